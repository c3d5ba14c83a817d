#!/bin/bash
# Two-step balancing's ceiling (BENCHMARKS.md, session 60): on 5x5 and 6x6, depth-2 trees of the
# first 300 shared Fuego-labelled *test* positions (500-game Fuego leaves), two-step balancing
# and policy-gradient balancing trained on those same positions, then each weight file's two-step
# imbalance on the trees and MSE on the positions (docs/twostep-ceiling.png).  Needs Fuego 1.1
# on PATH; about 35 minutes of two cores for the trees, an hour of one core for the six runs.
# A quick look at every step: POSITIONS=5 UPDATES=100 OUT=runs/ceiling-quick \
#     FIGURE=runs/ceiling-quick/ceiling.png bash data/twostep-ceiling.sh
set -e
S=.venv/bin/simbal
L=${LABELS:-../shared/data/fuego-labels}
O=${OUT:-runs/twostep-ceiling}
N=${POSITIONS:-300}
U=${UPDATES:-50000}
FIGURE=${FIGURE:-docs/twostep-ceiling.png}
mkdir -p $O
for n in 5 6; do
  $S data depth2 --in $L/${n}x${n}-test.jsonl --out $O/trees-$n.jsonl --oracle fuego --playouts 500 \
    --seed 60$n --limit $N --workers 2
  .venv/bin/python - $O/trees-$n.jsonl $L/${n}x${n}-test.jsonl $O/positions-$n.jsonl <<'PY'
import json, sys
ids = {json.loads(l)["id"] for l in open(sys.argv[1])}
with open(sys.argv[3], "w") as out:
    out.writelines(l for l in open(sys.argv[2]) if json.loads(l)["id"] in ids)
PY
  common="--test $O/positions-$n.jsonl --iterations $U --batch 2 --eval-every $((U / 5)) --seed 1 --workers 1"
  $S train twostep --data $O/trees-$n.jsonl $common --alpha 0.2 --out $O/twostep-$n.json
  $S train twostep --data $O/trees-$n.jsonl $common --alpha 0.05 --schedule linear --out $O/twostep-lin-$n.json
  $S train balance --data $O/positions-$n.jsonl $common --alpha 0.05 --baseline --m 16 --n 16 \
    --out $O/balance-$n.json
done
.venv/bin/python data/twostep_ceiling.py $O $O/ceiling.json $FIGURE
