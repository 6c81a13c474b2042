#!/bin/bash
# Reduced precision against fp32 at equal time, both tengen on the transformer net, one thread each,
# 19x19, 2 s a move (time_settings 0 2 1), komi 7.5, Chinese rules, GNU Go as referee.
# usage: [PREC_A=P PREC_B=P] prec-time.sh NAME GAMES BINARY OPENINGS
# A (Black in odd games) runs PREC_A (default bf16), B runs PREC_B (default fp32); game pairs 2k-1, 2k start
# from the first 24 moves of the k-th SGF in OPENINGS (a file or directory, e.g. sgf/openings-19).
NAME=$1; N=$2; T=$3; OPENINGS=$4
NET=/work/nets/b10c384h6nbttflrs.bin.gz
G="/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
export XDG_DATA_HOME=/nonexistent/xdg; unset TENGEN_MODEL
$T match --black "$T --model $NET --precision ${PREC_A:-bf16} --threads 1 --quiet" \
  --white "$T --model $NET --precision ${PREC_B:-fp32} --threads 1 --quiet" --referee "$G" \
  --games $N --size 19 --komi 7.5 --time 2 --rules chinese --sgf-dir /work/runs/$NAME \
  --openings "$OPENINGS" --opening-moves 24 \
  > /work/runs/$NAME.log 2>/work/runs/$NAME.err
