#!/bin/sh
# The 13x13 and 19x19 tree priors (weights/13x13-prior.json, weights/19x19-prior.json): GnuGo
# 3.8 level 10's moves in its own self-play games (data/SIZExSIZE-gnugo, made by
# data/gnugo_selfplay.py with seeds 1.. and 1001..; GnuGo's fuseki library gives the openings),
# split by game, a pattern3x3 softmax trained by apprenticeship on them from zero (its line
# features learn the third and fourth lines), then radius-3 diamond patterns fitted over it.
# With LOCATIONS=1 the prior also weighs each move's location (train-prior --locations); with
# OPENING_LOCATIONS=1 it takes the location weights of the opening alone (data/opening_locations.py:
# the shipped 19x19 prior, TEST=1000 ITER=30000).
# Deterministic for a given data folder.  Usage: sh data/train-prior-selfplay.sh SIZE [OUT_DIR]
set -e
S="${SIMBAL:-.venv/bin/simbal}"
N="$1"
O="${2:-runs/prior-${N}x${N}}"
TEST="${TEST:-2000}"
ITER="${ITER:-36000}"
[ -n "$N" ] || { echo "usage: sh data/train-prior-selfplay.sh SIZE [OUT_DIR]" >&2; exit 2; }
mkdir -p "$O"
$S data sgf "data/${N}x${N}-gnugo" --size "$N" --player gnugo10 --out "$O/moves.jsonl"
$S data split --in "$O/moves.jsonl" --test "$TEST" --seed 1 --train-out "$O/train.jsonl" \
  --test-out "$O/test.jsonl"
$S train apprentice --data "$O/train.jsonl" --size "$N" --features pattern3x3 --init zero \
  --alpha 0.2 --schedule linear --iterations "$ITER" --batch 8 --workers 0 \
  --out "$O/${N}x${N}-prior-base.json" --curve "$O/base.curve.json"
prior() {
  $S train-prior --data "$O/train.jsonl" --test "$O/test.jsonl" --base "$O/${N}x${N}-prior-base.json" \
    --radius 3 "$@"
}
if [ -n "$OPENING_LOCATIONS" ]; then
  prior --out "$O/${N}x${N}-prior-plain.json"
  prior --locations --out "$O/${N}x${N}-prior-located.json"
  PYTHONPATH=. "${PYTHON:-.venv/bin/python}" data/opening_locations.py "$O/${N}x${N}-prior-plain.json" \
    "$O/${N}x${N}-prior-located.json" "$O/${N}x${N}-prior.json"
else
  prior ${LOCATIONS:+--locations} --out "$O/${N}x${N}-prior.json"
fi
