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
        if 0 < len(w["names"]) <= 12:
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


def plot_weight_grid(curve_list, path, title):
    """Silver & Tesauro's Figure 2: one panel per trainer, its tracked weights (the 1x1 and
    2x2 location-independent shapes) against training positions or games, one shared legend."""
    curves = [c for c in curve_list if c.get("weights", {}).get("values")]
    if not curves:
        return
    cols = 2 if len(curves) > 1 else 1
    rows = -(-len(curves) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.2 * rows), squeeze=False)
    for ax, curve in zip(axes.flat, curves):
        w = curve["weights"]
        per_iteration = curve["settings"]["batch"] if "settings" in curve else 1
        x = [i * per_iteration for i in w["iterations"]]
        for name, values in zip(w["names"], zip(*w["values"])):
            ax.plot(x, values, lw=1, label=name)
        ax.set_title(curve["trainer"], fontsize=9)
        ax.set_xlabel("training positions / games")
        ax.set_ylabel("weight")
    for ax in list(axes.flat)[len(curves):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=6, loc="lower center", ncol=min(len(labels), 5))
    fig.suptitle(title, fontsize=9)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=80)
    plt.close(fig)

