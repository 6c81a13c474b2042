#!/bin/bash
# bf16 against fp32 at equal visits on a convolution net, both tengen, one thread each.
# usage: [NET=FILE SEED_A=S SEED_B=S PREC_A=P PREC_B=P OPENINGS=DIR] prec-visits.sh NAME SIZE VISITS GAMES BINARY
# A (Black in odd games) runs PREC_A (default bf16) with SEED_A (default 11), B runs PREC_B (default
# fp32) with SEED_B (default 22); NET defaults to the built-in net's file (g170 b6c96); other seeds
# make another stream play other games; OPENINGS=DIR starts game pairs from its SGF openings (24
# moves each).
NAME=$1; S=$2; V=$3; N=$4; T=$5
NET=${NET:-/work/shared/nets/g170-b6c96-s175395328-d26788732.bin.gz}
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
$T match --black "$T --model $NET --precision ${PREC_A:-bf16} --visits $V --seed ${SEED_A:-11} --quiet" \
  --white "$T --model $NET --precision ${PREC_B:-fp32} --visits $V --seed ${SEED_B:-22} --quiet" --referee "$G" \
  --games $N --size $S --komi 7.5 --rules chinese --sgf-dir /work/runs/s36/$NAME \
  ${OPENINGS:+--openings "$OPENINGS" --opening-moves 24} \
  > /work/runs/s36/$NAME.log 2>/work/runs/s36/$NAME.err
