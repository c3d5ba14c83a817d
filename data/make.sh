#!/bin/sh
# The shipped 5x5 and 6x6 data sets (policies/DATA.md): positions from uniformly random games,
# split by game, labelled by a 10,000-simulation search of our engine (uniform playouts),
# GnuGo level 10 expert moves on the training part, depth-2 trees (1,000 simulations per leaf)
# for the first training positions.  Every step resumes if interrupted.  Usage: sh data/make.sh [5|6 ...]
set -e
S="${SIMBAL:-.venv/bin/simbal}"
for n in ${*:-5 6}; do
  case $n in 5) komi=24.5; d2=200;; 6) komi=3.5; d2=100;; *) echo "size 5 or 6" >&2; exit 2;; esac
  d=data/${n}x${n}
  mkdir -p $d
  t() { start=$(date +%s); "$@"; echo "[$n x $n] $(($(date +%s) - start)) s: $*" >> $d/times.log; }
  t $S data random --size $n --komi $komi --games 2000 --seed 1 --out $d/all.jsonl
  t $S data split --in $d/all.jsonl --test 1000 --seed 1 --train-out $d/train-raw.jsonl --test-out $d/test-raw.jsonl
  t $S data label --in $d/test-raw.jsonl --out $d/test.jsonl --playouts 10000 --seed 1
  t $S data label --in $d/train-raw.jsonl --out $d/train-labelled.jsonl --playouts 10000 --seed 1
  t $S data experts --in $d/train-labelled.jsonl --out $d/train.jsonl
  t $S data depth2 --in $d/train.jsonl --out $d/train-depth2.jsonl --playouts 1000 --seed 1 --limit $d2
done
