#!/bin/bash
# A level (tengen --level L, the built-in net, 200 visits a move: the level picks from the policy,
# the search only decides passes and resignation) against GNU Go 3.8 level 10, 19x19, 2 s a move.
# Usage: level-gnugo.sh LEVEL GAMES BINARY
L=$1; N=$2; T=$3
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
$T match --black "$T --level $L --playouts 200 --quiet" --white "$G" --referee "$G" --games $N --size 19 --komi 7.5 --time 2 \
  --rules chinese --sgf-dir /work/runs/level-$L-gnugo > /work/runs/level-$L-gnugo.log 2>/work/runs/level-$L-gnugo.err
