"""Learning curves as files a person can read: the curve JSON and its PNG (test-set MSE along
training, like Silver & Tesauro's Figure 3, and the evolution of the tracked weights, like their
Figure 2), and the comparison plot of several trainers on one axis."""
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)


def write_curve(curve, path):
    """Write `curve` (the loop's document) to `path` (.json) and a PNG beside it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(curve, indent=1) + "\n", encoding="utf-8")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    points = [p for p in curve["points"] if "mse" in p]
    if points:
        _mse_line(ax1, points, curve["trainer"])
    else:
        ax1.text(0.5, 0.5, "no test set (--test)", ha="center", transform=ax1.transAxes)
    ax1.set_title("test-set MSE (bootstrap 95% interval)")
    w = curve["weights"]
    if w["values"]:
        cols = list(zip(*w["values"]))
        for name, values in zip(w["names"], cols):
            ax2.plot(w["iterations"], values, lw=1, label=name)
        if len(w["names"]) <= 12:
            ax2.legend(fontsize=6, loc="best")
    ax2.set_xlabel("iterations")
    ax2.set_ylabel("weight")
    ax2.set_title("weights")
    fig.suptitle(f"{curve['trainer']}  ({curve.get('objective', '')})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path.with_suffix(".png"), dpi=80)
    plt.close(fig)


def _mse_line(ax, points, label):
    x = [p["units"] for p in points]
    y = [p["mse"] for p in points]
    if all("lo" in p for p in points):
        err = [[p["mse"] - p["lo"] for p in points], [p["hi"] - p["mse"] for p in points]]
        ax.errorbar(x, y, yerr=err, marker=".", capsize=2, elinewidth=0.6, label=label)
    else:
        ax.plot(x, y, marker=".", label=label)
    ax.set_xlabel("training positions / games")
    ax.set_ylabel("MSE")


def plot_comparison(curve_list, baselines, path, title):
    """All trainers' test-set MSE on one plot; `baselines` {name: mse} as horizontal lines."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for curve in curve_list:
        points = [p for p in curve["points"] if "mse" in p]
        if points:
            _mse_line(ax, points, curve["trainer"])
    for i, (name, mse) in enumerate(baselines.items()):
        ax.axhline(mse, color="k", ls=("--", ":", "-.")[i % 3], lw=1, label=name)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
