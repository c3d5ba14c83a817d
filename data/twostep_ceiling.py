"""Two-step balancing's ceiling, the table and the figure (data/twostep-ceiling.sh makes the inputs):
for 5x5 and 6x6, each weight file's two-step imbalance on the depth-2 trees of the 300 test
positions and its Monte-Carlo MSE on those positions, both as ratios to uniform's.

    python data/twostep_ceiling.py FOLDER OUT.json OUT.png

FOLDER holds trees-N.jsonl, positions-N.jsonl and the weight files twostep-N.json,
twostep-lin-N.json, balance-N.json (N = 5, 6); the shipped weights/NxN-balance.json are measured
beside them.  An existing OUT.json is reused (only the figure is redrawn)."""
import json
import os
import subprocess
import sys

SIMBAL = os.path.join(".venv", "bin", "simbal")
ARMS = [("uniform", "uniform"),
        ("two-step fitted here, alpha 0.2", "{f}/twostep-{n}.json"),
        ("two-step fitted here, alpha 0.05 decaying", "{f}/twostep-lin-{n}.json"),
        ("balancing fitted here", "{f}/balance-{n}.json"),
        ("shipped balancing", "weights/{n}x{n}-balance.json")]


def evaluate(*args):
    out = subprocess.run([SIMBAL, "eval", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(folder):
    table = {}
    for n in (5, 6):
        trees, positions = f"{folder}/trees-{n}.jsonl", f"{folder}/positions-{n}.jsonl"
        base = evaluate("twostep", "--trees", trees)["imbalance"]
        rows = []
        for name, pattern in ARMS:
            w = pattern.format(f=folder, n=n)
            b2 = evaluate("twostep", "--trees", trees, "--weights", w)["imbalance"]
            mse = evaluate("mse", "--positions", positions, "--weights", w, "--against", "uniform",
                           "--workers", "1")
            rows.append(dict(name=name, weights=w, imbalance=b2, imbalance_ratio=b2 / base,
                             mse=mse["mse"], mse_ratio=mse["ratio"]["ratio"],
                             lo=mse["ratio"]["lo"], hi=mse["ratio"]["hi"]))
            print(n, json.dumps(rows[-1]), flush=True)
        table[f"{n}x{n}"] = rows
    return table


def plot(table, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.2), sharey=True)
    for ax, (board, rows) in zip(axes, table.items()):
        for r in rows:
            ax.errorbar(r["imbalance_ratio"], r["mse_ratio"],
                        yerr=[[r["mse_ratio"] - r["lo"]], [r["hi"] - r["mse_ratio"]]],
                        fmt="o", capsize=3, label=r["name"])
        ax.axhline(0.5, color="grey", ls="--", lw=0.8)
        ax.text(0.02, 0.51, "the paper's half", color="grey", fontsize=8,
                transform=ax.get_yaxis_transform())
        ax.set_title(f"{board}: 300 Fuego-labelled test positions")
        ax.set_xlabel("two-step imbalance on their depth-2 trees / uniform's")
        ax.set_xlim(0, 1.2)
    axes[0].set_ylabel("MSE of 100 playouts / uniform's (paired 95%)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("Trained on the test positions themselves: two-step's objective falls, "
                 "the MSE stays above half")
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    fig.savefig(path, dpi=110)


def main(folder, out_json, out_png):
    if os.path.exists(out_json):
        table = json.load(open(out_json))
    else:
        table = measure(folder)
        with open(out_json, "w") as f:
            json.dump(table, f, indent=1)
    plot(table, out_png)


if __name__ == "__main__":
    main(*sys.argv[1:])
