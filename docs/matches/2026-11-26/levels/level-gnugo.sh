#!/bin/bash
# A level (tengen --level L, the built-in net, 200 visits a move: a kyu level picks from the policy, a dan level
# lets the search choose among the moves it draws; the search decides passes and resignation) against GNU Go 3.8 level 10, 19x19, 2 s a move.
# Usage: [HANDICAP=N] level-gnugo.sh LEVEL GAMES BINARY; with HANDICAP the level takes Black and N stones in every
# game (--fixed-colors; the komi 0.5), for the levels far below GNU Go. SEED=S seeds the level: a run continuing a
# cell needs a seed of its own, or it may replay the games of the run before it
L=$1; N=$2; T=$3
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
NAME=level-$L-gnugo${HANDICAP:+-h$HANDICAP}${SUFFIX:+-$SUFFIX}
K=${HANDICAP:+0.5}
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
$T match --black "$T --level $L --playouts 200 ${SEED:+--seed $SEED} --quiet" --white "$G" --referee "$G" --games $N --size 19 --komi ${K:-7.5} --time 2 \
  --rules chinese ${HANDICAP:+--handicap $HANDICAP --fixed-colors} --sgf-dir /work/runs/$NAME > /work/runs/$NAME.log 2>/work/runs/$NAME.err
