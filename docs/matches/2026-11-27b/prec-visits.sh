#!/bin/bash
# Reduced precision against fp32 at equal visits, both tengen on the transformer net, one thread each.
# usage: [SEED_A=S SEED_B=S PREC_A=P PREC_B=P] prec-visits.sh NAME SIZE VISITS GAMES BINARY
# A (Black in odd games) runs PREC_A (default bf16) with SEED_A (default 11), B runs PREC_B (default fp32)
# with SEED_B (default 22); other seeds make another stream play other games, swapped precisions test
# whether the side a precision plays on matters; OPENINGS=DIR starts game pairs from its SGF openings
# (24 moves each, e.g. sgf/openings-19).
NAME=$1; S=$2; V=$3; N=$4; T=$5
NET=/work/nets/b10c384h6nbttflrs.bin.gz
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
$T match --black "$T --model $NET --precision ${PREC_A:-bf16} --visits $V --seed ${SEED_A:-11} --quiet" \
  --white "$T --model $NET --precision ${PREC_B:-fp32} --visits $V --seed ${SEED_B:-22} --quiet" --referee "$G" \
  --games $N --size $S --komi 7.5 --rules chinese --sgf-dir /work/runs/$NAME \
  ${OPENINGS:+--openings "$OPENINGS" --opening-moves 24} \
  > /work/runs/$NAME.log 2>/work/runs/$NAME.err
