#!/bin/sh
# The 9x9 tree prior (weights/9x9-prior.json): GnuGo 3.8 level 10's moves in the 1,097 games
# it played against Simbal in sessions 5-7 (data/9x9-gnugo, 31,608 positions; the SGFs are the
# match records of BENCHMARKS.md), split by game (3,000 test positions), a pattern3x3 softmax
# trained by apprenticeship on them from zero, then radius-3 diamond patterns fitted over it.
# Deterministic: rerunning gives the same file.  Usage: sh data/train-prior-9x9.sh [OUT_DIR]
set -e
S="${SIMBAL:-.venv/bin/simbal}"
O="${1:-runs/prior-9x9}"
mkdir -p "$O"
$S data sgf data/9x9-gnugo --size 9 --player gnugo10 --out "$O/moves.jsonl"
$S data split --in "$O/moves.jsonl" --test 3000 --seed 1 --train-out "$O/train.jsonl" \
  --test-out "$O/test.jsonl"
$S train apprentice --data "$O/train.jsonl" --size 9 --features pattern3x3 --init zero \
  --alpha 0.2 --schedule linear --iterations 36000 --batch 8 --workers 0 \
  --out "$O/9x9-prior-base.json" --curve "$O/base.curve.json"
$S train-prior --data "$O/train.jsonl" --test "$O/test.jsonl" --base "$O/9x9-prior-base.json" \
  --radius 3 --out "$O/9x9-prior.json"
