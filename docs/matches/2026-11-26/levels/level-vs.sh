#!/bin/bash
# Level against level (the mark: each level beats the level five stones below it in >= 75% of even games).
# Both tengen with the built-in net at 200 visits a move, 19x19, komi 7.5, Chinese rules, colours alternating,
# GNU Go 3.8 as referee. Usage: [SEED_A=S SEED_B=S SUFFIX=X] level-vs.sh HIGH LOW GAMES BINARY. Two streams
# need seeds of their own: with the same seeds, at fixed visits, they play the same games move for move.
H=$1; L=$2; N=$3; T=$4
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
NAME=level-$H-vs-$L${SUFFIX:+-$SUFFIX}
$T match --black "$T --level $H --playouts 200 ${SEED_A:+--seed $SEED_A} --quiet" \
  --white "$T --level $L --playouts 200 ${SEED_B:+--seed $SEED_B} --quiet" --referee "$G" \
  --games $N --size 19 --komi 7.5 --time 2 --rules chinese --sgf-dir /work/runs/$NAME > /work/runs/$NAME.log 2>/work/runs/$NAME.err
