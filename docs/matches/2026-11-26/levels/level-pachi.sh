#!/bin/bash
# A level (tengen --level L, the built-in net, 200 visits a move) against Pachi 12.90 without DCNN at 5000
# playouts a move on one thread (its README's KGS 3k), 19x19, komi 7.5, Chinese rules, colours alternating
# (A Black in odd games), GNU Go 3.8 as referee. Usage: level-pachi.sh LEVEL GAMES TENGEN PACHI
# (PACHI: a pachi binary built without DCNN, its data files beside it). With HANDICAP=N the level takes Black and
# N stones in every game (--fixed-colors, komi 0.5), for the levels far below Pachi. SEED=S seeds the level (a run
# continuing a cell needs a seed of its own).
L=$1; N=$2; T=$3; P=$4
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
NAME=level-$L-pachi${HANDICAP:+-h$HANDICAP}${SUFFIX:+-$SUFFIX}
K=${HANDICAP:+0.5}
cd "$(dirname "$P")" || exit 1
$T match --black "$T --level $L --playouts 200 ${SEED:+--seed $SEED} --quiet" --white "$P -t =5000 --nodcnn threads=1" --referee "$G" \
  --games $N --size 19 --komi ${K:-7.5} --rules chinese ${HANDICAP:+--handicap $HANDICAP --fixed-colors} --sgf-dir /work/runs/$NAME > /work/runs/$NAME.log 2>/work/runs/$NAME.err
