#!/bin/sh
# The shipped data sets (policies/DATA.md).  5x5 and 6x6: positions from uniformly random games,
# split by game, labelled by a 10,000-simulation search of our engine (uniform playouts),
# GnuGo level 10 expert moves on the training part, depth-2 trees (1,000 simulations per leaf)
# for the first training positions.  9x9: positions from self-play of the engine (handcrafted
# playouts, 100 per move), self-labelled by 5,000-simulation searches with the same playouts,
# depth-2 trees of 100 simulations per leaf for 10 positions.  Every step resumes if
# interrupted.  Usage: sh data/make.sh [5|6|9 ...]
set -e
S="${SIMBAL:-.venv/bin/simbal}"
for n in ${*:-5 6}; do
  src="--source random"; search="--playouts 10000"; leaf="--playouts 1000"
  case $n in
    5) komi=24.5; d2=200;;
    6) komi=3.5; d2=100;;
    9) komi=7; d2=10; leaf="--playouts 100 --weights handcrafted"
       src="--source selfplay --playouts 100 --weights handcrafted"
       search="--playouts 5000 --weights handcrafted";;
    *) echo "size 5, 6 or 9" >&2; exit 2;;
  esac
  d=data/${n}x${n}
  mkdir -p $d
  t() { start=$(date +%s); "$@"; echo "[$n x $n] $(($(date +%s) - start)) s: $*" >> $d/times.log; }
  t $S data random --size $n --komi $komi --games 2000 --seed 1 $src --out $d/all.jsonl
  t $S data split --in $d/all.jsonl --test 1000 --seed 1 --train-out $d/train-raw.jsonl --test-out $d/test-raw.jsonl
  t $S data label --in $d/test-raw.jsonl --out $d/test.jsonl $search --seed 1
  t $S data label --in $d/train-raw.jsonl --out $d/train-labelled.jsonl $search --seed 1
  t $S data experts --in $d/train-labelled.jsonl --out $d/train.jsonl
  t $S data depth2 --in $d/train.jsonl --out $d/train-depth2.jsonl $leaf --seed 1 --limit $d2
done
