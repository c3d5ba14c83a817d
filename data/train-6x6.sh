#!/bin/bash
# The five trainers of the 6x6 reproduction plan (policies/train/reproduce.py PLANS[6]) on the
# shipped data/6x6 sets, then the MSE of each on all 1000 test positions.
S=".venv/bin/python -m engine.lab.cli"
D=data/6x6; O=runs/6x6
common="--size 6 --test $D/test.jsonl --test-limit 250 --seed 1"
t() { name=$1; shift; start=$(date +%s)
  $S train $name $common --out $O/6x6-$name.json --curve $O/curves/6x6-$name.curve.json "$@" > $O/$name.out 2> $O/$name.err
  echo "$name train $(( $(date +%s) - start )) s" >> $O/times.log
  start=$(date +%s); $S eval mse --positions $D/test.jsonl --weights $O/6x6-$name.json --sims 100 --seed 0 > $O/$name.mse.json 2>/dev/null
  echo "$name eval $(( $(date +%s) - start )) s" >> $O/times.log; }
for w in uniform handcrafted; do $S eval mse --positions $D/test.jsonl --weights $w --sims 100 --seed 0 > $O/$w.mse.json 2>/dev/null; done
t apprentice --data $D/train.jsonl --alpha 0.02 --iterations 1500 --batch 4 --eval-every 300
t reinforce --alpha 0.01 --iterations 1200 --batch 2 --eval-every 240
t balance --data $D/train.jsonl --alpha 0.05 --iterations 600 --batch 2 --m 16 --n 16 --baseline --eval-every 120
t twostep --data $D/train-depth2.jsonl --alpha 0.2 --iterations 1200 --batch 2 --eval-every 240
t adjust --data $D/train.jsonl --alpha 0.01 --iterations 200 --batch 2 --n 32 --candidates 5 --objective prob --eval-every 40
echo done >> $O/times.log
