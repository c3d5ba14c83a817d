#!/bin/sh
# The 9x9 tree prior from an expert's moves in a folder of SGF records, split by game, a
# pattern3x3 softmax trained by apprenticeship on them from zero, then radius-3 diamond
# patterns fitted over it.  Deterministic: rerunning gives the same file.
#
# weights/9x9-prior.json: the defaults, GnuGo 3.8 level 10's moves in the 1,097 games it played
# against Simbal in sessions 5-7 (data/9x9-gnugo, 31,608 positions; the SGFs are the match
# records of BENCHMARKS.md), 3,000 test positions.
# Other experts (BENCHMARKS.md, session 19, where the commands that made the data are): Fuego
# 1.1's moves in its self-play match records,
#   DATA=runs/s19-fuego-selfplay PLAYER= ITER=64000 sh data/train-prior-9x9.sh runs/prior-9x9-fuego
# or a position file that already has expert moves (`simbal data experts`):
#   MOVES=runs/s19-fexpert/fuego-experts.jsonl sh data/train-prior-9x9.sh runs/prior-9x9-fexpert
#
# Usage: [DATA=FOLDER] [PLAYER=NAME, empty for every move] [MOVES=FILE instead of DATA]
#        [ITER=N] [TEST=N] sh data/train-prior-9x9.sh [OUT_DIR]
set -e
S="${SIMBAL:-.venv/bin/simbal}"
O="${1:-runs/prior-9x9}"
DATA="${DATA-data/9x9-gnugo}"
PLAYER="${PLAYER-gnugo10}"
ITER="${ITER:-36000}"
TEST="${TEST:-3000}"
mkdir -p "$O"
if [ -n "$MOVES" ]; then
  cp "$MOVES" "$O/moves.jsonl"
else
  $S data sgf "$DATA" --size 9 ${PLAYER:+--player "$PLAYER"} --out "$O/moves.jsonl"
fi
$S data split --in "$O/moves.jsonl" --test "$TEST" --seed 1 --train-out "$O/train.jsonl" \
  --test-out "$O/test.jsonl"
$S train apprentice --data "$O/train.jsonl" --size 9 --features pattern3x3 --init zero \
  --alpha 0.2 --schedule linear --iterations "$ITER" --batch 8 --workers 0 \
  --out "$O/9x9-prior-base.json" --curve "$O/base.curve.json"
$S train-prior --data "$O/train.jsonl" --test "$O/test.jsonl" --base "$O/9x9-prior-base.json" \
  --radius 3 --out "$O/9x9-prior.json"
