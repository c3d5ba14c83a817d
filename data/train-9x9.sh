#!/bin/bash
# The five trainers on the 9x9 set (data/make.sh 9: self-play positions, self-labelled), with
# pattern3x3 features, each starting from the handcrafted weights (the engine's default) rather
# than zero: 9x9 has ten times the patterns' data needs of 5x5 and a few thousand updates at
# most, so the question asked here is whether a trainer's objective improves the policy the engine plays with.
# Then the MSE of each (and of uniform / handcrafted) on all 1000 test positions.
S=".venv/bin/python -m engine.lab.cli"; S_PY=.venv/bin/python
D=data/9x9; O=${OUT:-runs/9x9}
mkdir -p $O/curves
common="--size 9 --features pattern3x3 --init handcrafted --test $D/test.jsonl --test-limit 250 --seed 1"
t() { name=$1; shift; start=$(date +%s)
  $S train $name $common --out $O/9x9-$name.json --curve $O/curves/9x9-$name.curve.json "$@" > $O/$name.out 2> $O/$name.err
  echo "$name train $(( $(date +%s) - start )) s" >> $O/times.log
  start=$(date +%s); $S eval mse --positions $D/test.jsonl --weights $O/9x9-$name.json --sims 100 --seed 0 > $O/$name.mse.json 2>/dev/null
  echo "$name eval $(( $(date +%s) - start )) s" >> $O/times.log; }
for w in uniform handcrafted; do $S eval mse --positions $D/test.jsonl --weights $w --sims 100 --seed 0 > $O/$w.mse.json 2>/dev/null; done
t apprentice --data $D/train.jsonl --alpha 0.02 --iterations 1000 --batch 4 --eval-every 200
t reinforce --komi 7 --alpha 0.05 --iterations 2000 --batch 2 --eval-every 250
t balance --data $D/train.jsonl --alpha 0.5 --iterations 1500 --batch 2 --m 16 --n 16 --baseline --eval-every 250
t twostep --data $D/train-depth2.jsonl --alpha 5 --iterations 400 --batch 2 --eval-every 80
t adjust --data $D/train.jsonl --alpha 0.01 --iterations 100 --batch 2 --n 32 --candidates 5 --objective prob --eval-every 20
$S_PY - "$O" <<'PY'
import json, sys
from pathlib import Path
from policies.train.curves import plot_comparison
o = Path(sys.argv[1])
curves = [json.loads((o / f"curves/9x9-{t}.curve.json").read_text())
          for t in ("apprentice", "reinforce", "balance", "twostep", "adjust")]
base = {w: json.loads((o / f"{w}.mse.json").read_text())["mse"] for w in ("uniform", "handcrafted")}
plot_comparison(curves, base, o / "mse-9x9.png", "9x9 test MSE (250 positions while training)")
PY
echo done >> $O/times.log
