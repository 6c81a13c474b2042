#!/bin/bash
# Move-choice probe (docs/matches/2026-11-25, section 3).
#   probe.sh deep POSITIONS OUT     25 s of kata-analyze per position (the reference)
#   probe.sh choose POSITIONS OUT   the move each configuration plays at 1.7 s, seeds 1 and 2
# POSITIONS: lines "SGF MOVE COLOR" (the position before MOVE, COLOR to play).
# TENGEN, TENGEN_OLD (binaries under test) and NET (the b15c192 net) come from the environment.
set -eu
mode=$1 list=$2 out=$3
while read -r sgf move color; do
  case $mode in
  deep)
    line=$( (printf 'loadsgf %s %s\nkata-analyze %s interval 500\n' "$sgf" "$move" "$color"; sleep 25) |
      timeout 26 "$TENGEN" --model "$NET" --seed 7 2>/dev/null | grep info | tail -1 || true)
    echo "$sgf $move $color $line" >>"$out" ;;
  choose)
    for cfg in "lcb4 $TENGEN 4" "lcb1 $TENGEN 1" "old4 $TENGEN_OLD 4"; do
      read -r name binary batch <<<"$cfg"
      for seed in 1 2; do
        mv=$(printf 'loadsgf %s %s\ngenmove %s\nquit\n' "$sgf" "$move" "$color" |
          "$binary" --model "$NET" --quiet --time 1.7 --batch "$batch" --seed "$seed" 2>/dev/null |
          grep '^= [A-Z]' | cut -c3-)
        echo "$sgf $move $name $seed $mv" >>"$out"
      done
    done ;;
  esac
done <"$list"
