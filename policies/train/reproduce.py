"""`simbal reproduce 5x5|6x6`: Silver & Tesauro's Monte-Carlo accuracy experiment end to end.

Data (random-game positions, split by game, deep-search labels, GnuGo expert moves, depth-2
trees) through the `simbal data` commands; the five trainers from zero shape2x2 weights through
`simbal train`, each tracking the test-set MSE; the final MSE of every trainer and of the
uniform and handcrafted policies through `simbal eval mse` (100 simulations, bootstrap 95%
interval); then a table (Markdown + JSON) and one plot of every learning curve.  Each step
runs as a `simbal` command in a subprocess, is timed, and is skipped when run again after it
finished (steps.json records them), so an interrupted reproduction resumes.

PLANS hold the sizes and training lengths, chosen so that the 5x5 run fits in an hour on two
cores; `scale` multiplies them all (0.1 for a quick look).  The budget "paper" trains every
trainer for the paper's 100,000 training games or positions (PAPER_UNITS), gives two-step
balancing a depth-2 tree for each of 1,000 positions (PAPER_TREES: the paper's data set; with
Fuego's 2,000-game leaves about 46 minutes on two cores for 5x5) and follows the test MSE on
all test positions every tenth of the way, as their Figure 3 does.

Labels (LABELLERS): "own", our search with uniform playouts (10,000 simulations a position,
depth-2 leaves a few hundred); or "fuego", the paper's labeller, Fuego 1.1 with the settings of
engine/gtp/fuego.py (10,000 games a position, 2,000 a depth-2 leaf, as in the paper).
"""
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from policies.data.files import read_positions, write_positions
from policies.train.curves import plot_comparison, plot_weight_grid

TRAINER_ORDER = ("apprentice", "reinforce", "balance", "twostep", "adjust")

PLANS = {
    5: {"komi": 24.5, "games": 2000, "test": 1000, "label_playouts": 10000,
        "depth2_playouts": 150, "depth2_positions": 250, "curve_positions": 200,
        "curve_points": 4,
        "trainers": {
            "apprentice": {"data": "expert", "alpha": 0.02, "iterations": 3000, "batch": 4},
            "reinforce": {"data": None, "alpha": 0.01, "iterations": 3000, "batch": 2},
            "balance": {"data": "labelled", "alpha": 0.05, "iterations": 2400, "batch": 2,
                        "m": 16, "n": 16, "baseline": True},
            "twostep": {"data": "depth2", "alpha": 0.2, "iterations": 3000, "batch": 2},
            "adjust": {"data": "expert", "alpha": 0.003, "iterations": 200, "batch": 2,
                       "n": 32, "candidates": 5, "objective": "prob"},
        }},
    6: {"komi": 3.5, "games": 2000, "test": 1000, "label_playouts": 10000,
        "depth2_playouts": 100, "depth2_positions": 200, "curve_positions": 250,
        "curve_points": 5,
        "trainers": {
            "apprentice": {"data": "expert", "alpha": 0.02, "iterations": 1500, "batch": 4},
            "reinforce": {"data": None, "alpha": 0.01, "iterations": 1200, "batch": 2},
            "balance": {"data": "labelled", "alpha": 0.05, "iterations": 600, "batch": 2,
                        "m": 16, "n": 16, "baseline": True},
            "twostep": {"data": "depth2", "alpha": 0.2, "iterations": 1200, "batch": 2},
            "adjust": {"data": "expert", "alpha": 0.01, "iterations": 200, "batch": 2,
                       "n": 32, "candidates": 5, "objective": "prob"},
        }},
}


PAPER_UNITS = 100_000      # training games or positions of every trainer (the paper's)
PAPER_CURVE_POINTS = 10
PAPER_TREES = 1_000        # depth-2 trees: one per position of the paper's 1,000-game data set

# Arguments of the label and depth-2 steps for each labeller; {plan key} filled from the plan.
LABELLERS = {
    "own": {"label": ["--playouts", "{label_playouts}"],
            "depth2": ["--playouts", "{depth2_playouts}"]},
    "fuego": {"label": ["--oracle", "fuego", "--playouts", "10000"],
              "depth2": ["--oracle", "fuego", "--playouts", "2000"]},
}


def budget_plan(plan, budget, test_positions):
    """`plan` for a budget: "hour" as it is; "paper": every trainer's iterations raised so that
    iterations x batch = PAPER_UNITS, PAPER_TREES depth-2 trees, the curves on all
    `test_positions`."""
    if budget == "hour":
        return plan
    if budget != "paper":
        raise ValueError(f"unknown budget {budget!r} (hour or paper)")
    trainers = {name: dict(t, iterations=-(-PAPER_UNITS // t["batch"]))
                for name, t in plan["trainers"].items()}
    return dict(plan, trainers=trainers, curve_positions=test_positions,
                curve_points=PAPER_CURVE_POINTS, depth2_positions=PAPER_TREES)


class Steps:
    """Timed steps, each run once: steps.json keeps what finished, its output and duration."""

    def __init__(self, folder, log, cluster_args=()):
        self.path = Path(folder) / "steps.json"
        self.done = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.log = log
        self.cluster_args = list(cluster_args)

    def run(self, name, argv, on_cluster=True):
        if name in self.done:
            self.log(f"[{name}] done before ({self.done[name]['seconds']:.0f} s)")
            return self.done[name]["output"]
        self.log(f"[{name}] simbal {' '.join(argv)}")
        start = time.monotonic()
        extra = self.cluster_args if on_cluster else []
        proc = subprocess.run([sys.executable, "-m", "engine.lab.cli", *argv, *extra],
                              stdout=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"step {name} failed (exit {proc.returncode}): simbal "
                               f"{' '.join(argv)}")
        lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
        output = json.loads(lines[-1]) if lines else None
        seconds = time.monotonic() - start
        self.done[name] = {"seconds": round(seconds, 1), "output": output,
                           "command": "simbal " + " ".join(argv)}
        self.path.write_text(json.dumps(self.done, indent=1) + "\n")
        self.log(f"[{name}] {seconds:.0f} s")
        return output


def _same_settings(path, settings):
    """Record the run's settings in its folder; ValueError if the folder holds a run made with
    others (resuming it would mix their steps)."""
    if path.exists():
        before = json.loads(path.read_text())
        if before != settings:
            changed = ", ".join(f"{k} {before.get(k)!r} -> {v!r}" for k, v in settings.items()
                                if before.get(k) != v)
            raise ValueError(f"{path.parent} holds a reproduction with other settings "
                             f"({changed}); give another --out")
    else:
        path.write_text(json.dumps(settings) + "\n")


def _made_sets(size, plan, scale, seed, test_n, labeller, f, steps):
    """Random games, their split by game, and the labels of both parts."""
    games = _scaled(plan["games"], scale, 20)
    steps.run("data", ["data", "random", "--size", str(size), "--komi", str(plan["komi"]),
                       "--games", str(games), "--seed", str(seed), "--out", f["all"]],
              on_cluster=False)
    steps.run("split", ["data", "split", "--in", f["all"], "--test", str(test_n), "--seed",
                        str(seed), "--train-out", f["train"], "--test-out", f["test"]],
              on_cluster=False)
    label = [*labeller["label"], "--seed", str(seed)]
    steps.run("label-test", ["data", "label", "--in", f["test"], "--out", f["test-labelled"],
                             *label])
    steps.run("label-train", ["data", "label", "--in", f["train"], "--out", f["labelled"],
                              *label])


def _given_sets(folder, size, f, steps, log):
    """The labelled training and test sets of `folder`, copied in (checked: readable, every
    position labelled, of this board size)."""
    for key, name in (("labelled", "train"), ("test-labelled", "test")):
        src = folder / f"{size}x{size}-{name}.jsonl"
        positions = read_positions(src)
        bad = next((p for p in positions if p.value_black is None or p.size != size), None)
        if bad is not None:
            raise ValueError(f"{src}: position {bad.id} is unlabelled or not {size}x{size}")
        if f"copy-{name}" not in steps.done:
            write_positions(f[key], positions, {"command": "simbal reproduce --labelled",
                                                "from": str(src)})
            steps.done[f"copy-{name}"] = {"seconds": 0.0, "output": None,
                                          "command": f"copy {src}"}
            steps.path.write_text(json.dumps(steps.done, indent=1) + "\n")
            log(f"[copy-{name}] {len(positions)} positions from {src}")


def _scaled(n, scale, least=1):
    return max(least, int(round(n * scale)))


def reproduce(size, out_dir, scale=1.0, seed=1, ship=False, log=print, cluster_args=(),
              labels="own", budget="hour", labelled_dir=None):
    """The experiment's steps, each a `simbal` command run once (resumable); `cluster_args`
    (`--workers N` or `--scheduler ADDRESS`) go to every step that runs on a cluster;
    `labels` and `budget` as in the module docstring.  With `labelled_dir` (a folder holding
    `<N>x<N>-train.jsonl` and `<N>x<N>-test.jsonl`, labelled, such as the shared Fuego-labelled
    sets) those are the training and test sets: no random games, split or labels are made
    (`labels` then names the depth-2 leaves' labeller)."""
    test_n = _scaled(PLANS[size]["test"], scale, 10)
    plan = dict(budget_plan(PLANS[size], budget, test_n), labels=labels, budget=budget)
    labeller = {step: [a.format(**plan) for a in argv] for step, argv in LABELLERS[labels].items()}
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    _same_settings(d / "settings.json", {"board": size, "scale": scale, "seed": seed,
                                         "labels": labels, "budget": budget,
                                         "labelled": str(labelled_dir) if labelled_dir else None})
    steps = Steps(d, log, list(cluster_args))
    f = {k: str(d / f"{k}.jsonl") for k in ("all", "train", "test", "test-labelled",
                                             "labelled", "expert", "depth2")}
    if labelled_dir:
        _given_sets(Path(labelled_dir), size, f, steps, log)
    else:
        _made_sets(size, plan, scale, seed, test_n, labeller, f, steps)
    steps.run("experts", ["data", "experts", "--in", f["labelled"], "--out", f["expert"]])
    # Depth-2 trees cost ~100 leaf searches a position: only the first part of the training
    # set gets them (its order is already random).
    subset = d / "depth2-in.jsonl"
    if not subset.exists():
        first = _scaled(plan["depth2_positions"], scale, 10)
        write_positions(subset, read_positions(f["labelled"])[:first],
                        {"command": "simbal reproduce", "from": f["labelled"], "first": first})
    steps.run("depth2", ["data", "depth2", "--in", str(subset), "--out", f["depth2"],
                         *labeller["depth2"], "--seed", str(seed)])
    results = {}
    for name in ("uniform", "handcrafted"):
        results[name] = steps.run(f"eval-{name}", ["eval", "mse", "--positions",
                                                   f["test-labelled"], "--weights", name])
    curve_list = []
    for name in TRAINER_ORDER:
        t = dict(plan["trainers"][name])
        iterations = _scaled(t.pop("iterations"), scale, 10)
        source = t.pop("data")
        weights = d / "weights" / f"{size}x{size}-{name}.json"
        curve = d / "curves" / f"{size}x{size}-{name}.curve.json"
        argv = ["train", name, "--size", str(size), "--test", f["test-labelled"],
                "--test-limit", str(plan["curve_positions"]), "--iterations", str(iterations),
                "--eval-every", str(max(1, iterations // plan["curve_points"])),
                "--seed", str(seed), "--out", str(weights), "--curve", str(curve)]
        if source:
            argv += ["--data", f[source]]
        for key, value in t.items():
            argv += [f"--{key}"] if value is True else [f"--{key}", str(value)]
        if curve.with_suffix(".ckpt.json").exists() and f"train-{name}" not in steps.done:
            argv.append("--resume")
        steps.run(f"train-{name}", argv)
        curve_list.append(json.loads(curve.read_text()))
        results[name] = steps.run(f"eval-{name}", ["eval", "mse", "--positions",
                                                   f["test-labelled"], "--weights", str(weights)])
        if ship:
            # Shipped, not made the default: weights/defaults.json names a default only
            # after a strength check.
            shutil.copy(weights, Path("weights") / weights.name)
    summary = write_report(d, size, plan, steps, results, curve_list)
    return summary


def write_report(d, size, plan, steps, results, curve_list):
    """results.json, results.md (the table and the step times) and mse.png."""
    uniform = results["uniform"]["mse"]
    rows = []
    for name, r in results.items():
        train = steps.done.get(f"train-{name}")
        rows.append({"policy": name, "mse": r["mse"], "lo": r["lo"], "hi": r["hi"], "n": r["n"],
                     "ratio_to_uniform": r["mse"] / uniform,
                     "train_seconds": train["seconds"] if train else None})
    times = {k: v["seconds"] for k, v in steps.done.items()}
    doc = {"board": f"{size}x{size}", "plan": plan, "results": rows, "step_seconds": times,
           "total_seconds": round(sum(times.values()), 1),
           "commands": {k: v["command"] for k, v in steps.done.items()}}
    (d / "results.json").write_text(json.dumps(doc, indent=1) + "\n")
    lines = [f"## {size}x{size}: MSE of 100-simulation Monte-Carlo evaluation "
             f"({rows[0]['n']} test positions)", "",
             "| policy | MSE | 95% interval | / uniform | training time (s) |",
             "|---|---|---|---|---|"]
    for r in rows:
        t = "" if r["train_seconds"] is None else f"{r['train_seconds']:.0f}"
        lines.append(f"| {r['policy']} | {r['mse']:.4f} | {r['lo']:.4f}–{r['hi']:.4f} | "
                     f"{r['ratio_to_uniform']:.2f} | {t} |")
    lines += ["", "| step | seconds |", "|---|---|"]
    lines += [f"| {k} | {v:.0f} |" for k, v in times.items()]
    lines.append(f"| **total** | **{doc['total_seconds']:.0f}** |")
    (d / "results.md").write_text("\n".join(lines) + "\n")
    # The curves are measured on the first curve_positions test positions: the baseline drawn
    # with them is the uniform policy on those same positions (every curve starts there).
    start = next((c["points"][0]["mse"] for c in curve_list if c["points"]), uniform)
    plot_comparison(curve_list, {"uniform (zero weights)": start}, d / "mse.png",
                    f"{size}x{size}: test-set MSE during training\n(first "
                    f"{plan['curve_positions']} test positions, 100 simulations, 95% intervals)")
    plot_weight_grid(curve_list, d / "weights.png",
                     f"{size}x{size}: weights of the 1x1 and 2x2 location-independent shapes "
                     "during training")
    return {"table": str(d / "results.md"), "plot": str(d / "mse.png"),
            "weights_plot": str(d / "weights.png"), "total_seconds": doc["total_seconds"]}
