#!/bin/bash
# tengen vs KataGo 1.17.2 Eigen, both on the transformer net, 19x19, komi 7.5, chinese, 2 s a move, 2 threads each.
# usage: kg-tf2.sh NAME GAMES [extra tengen flags]; tengen is A (Black in odd games), or KataGo with KATAGO_FIRST=1
NAME=$1; N=$2; shift 2
T=${T:-/work/oracle/tengen-m13}
NET=/work/nets/b10c384h6nbttflrs.bin.gz
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
K="env LD_PRELOAD=/work/oracle/libftz.so /work/oracle/KataGo/cpp/katago gtp -model $NET -config /work/oracle/katago-match2.cfg"
E="$T --model $NET --quiet --threads 2 $*"
A=$E; B=$K
if [ -n "$KATAGO_FIRST" ]; then A=$K; B=$E; fi
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
$T match --black "$A" --white "$B" --referee "$G" --games $N --size 19 --komi 7.5 --time 2 \
  --move-timeout 30 --rules chinese --sgf-dir /work/runs/$NAME > /work/runs/$NAME.log 2>/work/runs/$NAME.err
