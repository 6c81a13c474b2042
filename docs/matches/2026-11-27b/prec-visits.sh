#!/bin/bash
# Issue 25: bf16 against fp32 at equal visits, both tengen on the transformer net, one thread each.
# usage: [SEED_A=S SEED_B=S] prec-visits.sh NAME SIZE VISITS GAMES BINARY; A is bf16 (Black in odd games), B fp32;
# the seeds (default 11 and 22) make a second stream play other games than the first.
NAME=$1; S=$2; V=$3; N=$4; T=$5
NET=/work/nets/b10c384h6nbttflrs.bin.gz
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
$T match --black "$T --model $NET --precision bf16 --visits $V --seed ${SEED_A:-11} --quiet" \
  --white "$T --model $NET --precision fp32 --visits $V --seed ${SEED_B:-22} --quiet" --referee "$G" \
  --games $N --size $S --komi 7.5 --rules chinese --sgf-dir /work/runs/$NAME \
  > /work/runs/$NAME.log 2>/work/runs/$NAME.err
