"""Value each engine's move by an oracle, position by position (BENCHMARKS.md, session 20).

    python data/move_values.py after POSITIONS ANSWERS OUT     # positions after the answers
    simbal data label --in OUT --out LABELLED --oracle fuego --playouts 3000
    python data/move_values.py compare ANSWERS LABELLED        # mean values, paired differences

POSITIONS is the position file the agreement run read, ANSWERS its answers.jsonl (`simbal
agreement`). `after` writes one position for each distinct move of a position (the engines'
answers and the game's move), id `<position id>|<move>`. `compare` prints each engine's mean
value for the mover after its move, and the paired differences, with 95% intervals.
"""
import json
import math
import sys


def after(positions_path, answers_path, out_path):
    pos = {}
    for line in open(positions_path):
        p = json.loads(line)
        pos[p["id"]] = p
    with open(out_path, "w") as out:
        for line in open(answers_path):
            a = json.loads(line)
            p = pos[a["id"]]
            for m in sorted({m.upper() for m in a["answers"].values()} | {a["expert"].upper()}):
                if m in ("PASS", "RESIGN"):
                    continue
                out.write(json.dumps({
                    "id": f"{a['id']}|{m}", "size": p["size"], "komi": p["komi"],
                    "moves": p["moves"] + [[p["to_play"], m]],
                    "to_play": "W" if p["to_play"] == "B" else "B"}) + "\n")


def mean_interval(xs):
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return m, 1.96 * sd / math.sqrt(len(xs))


def compare(answers_path, labelled_path):
    labels = {}
    for line in open(labelled_path):
        d = json.loads(line)
        labels[d["id"]] = d["value_black"]
    rows = []
    for line in open(answers_path):
        a = json.loads(line)
        black_moved = a["move_number"] % 2 == 0

        def value(move):
            v = labels.get(f"{a['id']}|{move.upper()}")
            return None if v is None else (v if black_moved else 1 - v)
        row = {name: value(m) for name, m in a["answers"].items()}
        row["game"] = value(a["expert"])
        if all(v is not None for v in row.values()):
            rows.append(row)
    names = list(rows[0])
    print(f"{len(rows)} positions")
    for n in names:
        m, e = mean_interval([r[n] for r in rows])
        print(f"{n:12s} mean value for the mover after its move {m:.4f} +- {e:.4f}")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            m, e = mean_interval([r[a] - r[b] for r in rows])
            print(f"{a} - {b}: {m:+.4f} +- {e:.4f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["after"] and len(sys.argv) == 5:
        after(*sys.argv[2:])
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 4:
        compare(*sys.argv[2:])
    else:
        sys.exit(__doc__)
