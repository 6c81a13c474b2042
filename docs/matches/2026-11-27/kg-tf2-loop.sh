#!/bin/bash
# Chunks of 2 games (kg-tf2.sh), tengen as A in odd chunks and KataGo as A in even ones, so that
# the colours stay even; between chunks it waits while /work/runs/PAUSE exists (for builds, which
# must not run beside a two-thread game), and stops when /work/runs/STOP exists.
cd /work/runs
i=${START:-1}
while [ ! -e STOP ]; do
  while [ -e PAUSE ]; do echo "waiting before chunk $i" > loop.state; sleep 3; done
  [ -e STOP ] && break
  echo "running chunk $i" > loop.state
  if [ $((i % 2)) -eq 1 ]; then ./kg-tf2.sh kg-tf2-f$i 2; else KATAGO_FIRST=1 ./kg-tf2.sh kg-tf2-f$i 2; fi
  i=$((i+1))
done
echo "stopped before chunk $i" > loop.state
