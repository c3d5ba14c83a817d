"""`simbal train ALGO` (a playout policy by one of the five trainers), `simbal train-prior`
(a tree prior's large patterns), `simbal book` (an opening book from deep searches) and
`simbal reproduce 5x5|6x6` (the paper's experiment end to end).  Options only: the work is in
policies.train, policies.train.patterns, policies.train.reproduce and engine.lab.book.

`train` takes its options in groups: what it learns from, the step schedule, evaluation, the
trainers' own hyperparameters and the outputs; policies.train.make_settings turns the first
ones into the training's Settings record."""
import json
from types import SimpleNamespace

import click
import numpy as np

from engine.lab.cli.options import (command_line, one_line_errors, option_group, pick,
                                    rules_option, seed_option, stderr)
from engine.lab.progress import ProgressBar
from engine.parallel.cluster import cluster_for, cluster_options
from policies.data.files import DataFileError
from policies.weights import WeightFileError

ALGORITHMS = ["apprentice", "reinforce", "balance", "twostep", "adjust", "siblings"]
# ValueError: a bad checkpoint, mismatched settings, an unknown objective.
TRAINING_ERRORS = (DataFileError, WeightFileError, OSError, ValueError)


def _fail_cleanly(run):
    return one_line_errors(run, TRAINING_ERRORS)


data_options = option_group(
    click.option("--data", type=click.Path(dir_okay=False),
                 help="Training positions (labels, expert moves or depth-2 trees as ALGO needs); "
                      "reinforce: optional start positions (default: the empty board)."),
    click.option("--test", type=click.Path(dir_okay=False), help="Labelled test positions: MSE "
                 "tracked during training."),
    click.option("--size", type=click.IntRange(2, 25), help="Board size (default: the data's)."),
    click.option("--features", type=click.Choice(["shape2x2", "pattern3x3", "rules3x3"]),
                 help="Feature set (default shape2x2 up to 6x6, pattern3x3 above; rules3x3: "
                      "the weights of the rule-based playouts' random step)."))

step_options = option_group(
    click.option("--alpha", default=0.1, show_default=True, type=float, help="Step size."),
    click.option("--schedule", default="constant", show_default=True,
                 type=click.Choice(["constant", "inverse", "linear"]),
                 help="inverse: alpha/(1+t/decay); linear: down to 0 at the last iteration."),
    click.option("--decay", default=1000.0, show_default=True, type=float),
    click.option("--optimizer", default="sgd", show_default=True,
                 type=click.Choice(["sgd", "adam"]),
                 help="sgd: steps of alpha x the gradient estimate; adam: Adam's per-weight "
                      "steps of about alpha (try alpha 0.01)."),
    click.option("--l2", default=0.0, show_default=True, type=click.FloatRange(0.0),
                 help="Weight decay: every update also takes alpha x l2 x the weights off "
                      "them (toward uniform), against overfitting few positions."),
    click.option("--iterations", default=1000, show_default=True, type=click.IntRange(1),
                 help="Updates (each over --batch positions or games)."),
    click.option("--batch", default=2, show_default=True, type=click.IntRange(1)),
    seed_option(),
    click.option("--init", default="zero", show_default=True,
                 help="Starting weights: zero, a weight file, or a built-in policy (uniform = "
                      "zero; handcrafted, pattern3x3 only)."))

evaluation_options = option_group(
    click.option("--eval-every", default=0, show_default=True, type=click.IntRange(0),
                 help="Iterations between test-set evaluations (0: at the end only)."),
    click.option("--eval-sims", default=100, show_default=True, type=click.IntRange(1)),
    click.option("--test-limit", default=0, show_default=True, type=click.IntRange(0),
                 help="Use only the first N test positions (0: all)."),
    rules_option())

# Option -> the hyperparameter it sets; make_settings keeps those of the chosen trainer.
HYPERPARAMETERS = {"m": "m", "n": "n", "baseline": "baseline", "games": "games",
                   "objective": "objective", "candidates": "k", "tau": "tau", "level": "level"}
algorithm_options = option_group(
    click.option("--m", "m", default=16, show_default=True, type=click.IntRange(1),
                 help="balance, siblings: simulations for V."),
    click.option("--n", "n", default=None, type=click.IntRange(1),
                 help="balance, siblings: simulations for the gradient (16); adjust: per "
                      "candidate (32)."),
    click.option("--baseline", is_flag=True, default=None,
                 help="balance: leave-one-out baseline, no 1/T (unbiased grad E[z], less noise); "
                      "siblings always uses it."),
    click.option("--level", default=None, type=click.FloatRange(0.0, 1.0),
                 help="siblings: share of a family's common error balanced too (0: only the "
                      "differences between siblings; 1: plain balancing of the children)."),
    click.option("--games", default=1, show_default=True, type=click.IntRange(1),
                 help="reinforce: self-play games per work unit."),
    click.option("--objective", default="prob", show_default=True,
                 type=click.Choice(["gap", "prob"]), help="adjust: 2014 gap or improved prob."),
    click.option("--candidates", default=6, show_default=True, type=click.IntRange(2),
                 help="adjust: candidate moves per position."),
    click.option("--tau", default=0.0, show_default=True, type=float,
                 help="adjust prob: softmax temperature (0: 0.5/sqrt(n))."),
    click.option("--komi", default=None, type=float, help="reinforce from the empty board."))

output_options = option_group(
    click.option("--out", type=click.Path(dir_okay=False),
                 help="Weight file (default weights/<N>x<N>-<ALGO>.json)."),
    click.option("--curve", type=click.Path(dir_okay=False),
                 help="Learning-curve JSON, PNG beside it (default runs/train/<stem of --out>"
                      ".curve.json, or runs/train/<N>x<N>-<ALGO>.curve.json without --out; the "
                      "checkpoint goes beside it too)."),
    click.option("--resume", is_flag=True, help="Continue from the checkpoint of an interrupted "
                 "run with the same settings."))

# The keyword arguments of policies.train.make_settings that are options of their own.
SETTINGS = ("data", "test", "size", "features", "alpha", "schedule", "decay", "iterations",
            "batch", "seed", "init", "eval_every", "eval_sims", "optimizer", "l2", "rules")


@click.command("train")
@click.argument("algo", type=click.Choice(ALGORITHMS))
@data_options
@step_options
@evaluation_options
@algorithm_options
@output_options
@cluster_options
def train(algo, workers, scheduler, **options):
    """Train a playout policy with ALGO; writes weights, a learning curve and checkpoints."""
    from policies.train import make_settings
    from policies.train import train as run_training
    o = SimpleNamespace(**options)

    def go():
        hyper = {name: options[option] for option, name in HYPERPARAMETERS.items()}
        settings = make_settings(algo, **pick(options, SETTINGS), hyper=hyper)
        with cluster_for(workers, scheduler, stderr) as cluster:
            path, result = run_training(settings, o.data, o.test, o.out, o.curve, o.komi,
                                        o.resume, test_limit=o.test_limit, report=stderr,
                                        cluster=cluster)
            usage = cluster.report()
        click.echo(json.dumps({"weights": str(path), "final": result["points"][-1],
                               "cluster": usage}))
    _fail_cleanly(go)


@click.command("reproduce")
@click.argument("board", type=click.Choice(["5x5", "6x6"]))
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
              help="Output folder (default runs/reproduce-<BOARD>[-fuego][-paper]); rerunning "
                   "resumes.")
@click.option("--scale", default=1.0, show_default=True, type=click.FloatRange(0.01),
              help="Multiply every data-set size and training length (0.1: a quick look).")
@seed_option(1)
@click.option("--labels", default="own", show_default=True, type=click.Choice(["own", "fuego"]),
              help="Label the positions by our search with uniform playouts, or by Fuego 1.1 "
                   "on PATH as the paper did (10,000 games a position, 2,000 a depth-2 leaf).")
@click.option("--budget", default="hour", show_default=True, type=click.Choice(["hour", "paper"]),
              help="hour: training lengths that fit an hour on two cores; paper: 100,000 "
                   "training positions or games for every trainer, curves on every test "
                   "position.")
@click.option("--labelled", "labelled_dir", default=None,
              type=click.Path(exists=True, file_okay=False),
              help="Train and test on this folder's labelled <N>x<N>-train.jsonl and "
                   "<N>x<N>-test.jsonl (e.g. ../shared/data/fuego-labels) instead of making "
                   "and labelling random games.")
@click.option("--ship", is_flag=True, help="Copy the trained weights to weights/<N>x<N>-<trainer>.json "
              "(weights/defaults.json decides which file is the engine's default).")
@cluster_options
def reproduce(board, out_dir, scale, seed, labels, budget, labelled_dir, ship, workers,
              scheduler):
    """Silver & Tesauro's MSE experiment end to end: data, labels, five trainers, table, plots
    (Figure 3: test MSE during training; Figure 2: weights during training)."""
    from policies.train.reproduce import reproduce as run
    size = int(board.split("x")[0])
    if labels == "fuego":
        from engine.gtp import fuego
        from engine.gtp.client import EngineFailure
        try:
            fuego.find_program()
        except EngineFailure as e:
            raise click.ClickException(str(e)) from None
    # Each step is a `simbal` subprocess: it gets the same cluster options.
    cluster_args = (["--scheduler", scheduler] if scheduler else
                    ["--workers", str(workers)] if workers is not None else [])
    default_out = f"runs/reproduce-{board}" + (f"-{labels}" if labels != "own" else "") + (
        f"-{budget}" if budget != "hour" else "")
    summary = _fail_cleanly(lambda: run(size, out_dir or default_out, scale, seed, ship,
                                        log=stderr, cluster_args=cluster_args, labels=labels,
                                        budget=budget, labelled_dir=labelled_dir))
    click.echo(json.dumps(summary))


@click.command("train-prior")
@click.option("--data", required=True, type=click.Path(dir_okay=False),
              help="Positions with expert moves (e.g. `simbal data sgf --player gnugo10`).")
@click.option("--base", required=True,
              help="The prior's softmax weights (a weight file or handcrafted), e.g. `simbal "
                   "train apprentice` on the same moves; kept as they are.")
@click.option("--test", type=click.Path(dir_okay=False),
              help="Held-out positions with expert moves: accuracy reported.")
@click.option("--radius", default=3, show_default=True, type=click.Choice(["2", "3"]),
              help="Pattern radius (Manhattan distance around the move).")
@click.option("--min-count", default=2, show_default=True, type=click.IntRange(1),
              help="Patterns met fewer times among the training candidates weigh 0.")
@click.option("--min-weight", default=0.03, show_default=True, type=click.FloatRange(0),
              help="Patterns whose weight ends smaller in size are left out (weigh 0).")
@click.option("--locations", is_flag=True,
              help="Also weigh each move's location (distances to the two nearest edges, "
                   "opening or not): how a prior learns corners first.")
@click.option("--epochs", default=4, show_default=True, type=click.IntRange(1))
@click.option("--alpha", default=0.1, show_default=True, type=click.FloatRange(0, min_open=True))
@click.option("--l2", default=0.001, show_default=True, type=click.FloatRange(0))
@seed_option()
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="The prior's weight file (the engine's --prior).")
def train_prior(data, base, test, radius, min_count, min_weight, locations, epochs, alpha, l2,
                seed, out):
    """Fit a tree prior's large patterns to expert moves over a base softmax policy
    (policies/train/patterns.py); writes one weight file and prints accuracies as JSON."""
    from policies.data.files import read_positions
    from policies.loader import load_policy
    from policies.train.patterns import fit
    from policies.weights import write_weights

    def go():
        train_pos = read_positions(data)
        test_pos = read_positions(test) if test else []
        if not train_pos:
            raise ValueError(f"{data}: no positions")
        size = train_pos[0].size
        feature_set, sizes, weights, base_prov = _base_weights(base, size)
        with ProgressBar("position") as bar:
            keys, values, report = fit(train_pos, test_pos, load_policy(base, size), int(radius),
                                       min_count, epochs, alpha, l2, seed, bar, min_weight,
                                       locations)
        hyper = {"radius": int(radius), "min_count": min_count, "min_weight": min_weight,
                 "locations": locations, "epochs": epochs, "alpha": alpha, "l2": l2,
                 "seed": seed}
        write_weights(out, feature_set, sizes, weights, {
            "trainer": "patterns", "hyperparameters": hyper, "base": base_prov,
            "data": str(data), "training_games": 0, "positions": report["positions"]},
            patterns=(int(radius), keys, np.round(values, 5)))
        click.echo(json.dumps({"weights": str(out), **report}))
    _fail_cleanly(go)


def _base_weights(base, size):
    """(feature set, board sizes, {feature: weight}, provenance) of the prior's base policy:
    a built-in one (pattern3x3 on this size) or a weight file."""
    from policies.loader import BUILTIN, builtin_theta
    from policies.weights import feature_names, read_weights

    if base in BUILTIN:
        return ("pattern3x3", [size],
                dict(zip(feature_names("pattern3x3", size), builtin_theta(base, "pattern3x3", size))),
                base)
    wf = read_weights(base)
    return wf.feature_set, wf.board_sizes, wf.weights, wf.provenance


@click.command("book")
@click.option("--size", default=9, show_default=True, type=click.IntRange(2, 25))
@click.option("--komi", default=7.5, show_default=True, type=float,
              help="The book serves games with this komi only.")
@click.option("--playouts", default=50000, show_default=True, type=click.IntRange(1),
              help="Simulations of each position's search.")
@click.option("--plies", default=10, show_default=True, type=click.IntRange(1),
              help="Depth of the book: positions after at most this many moves less one.")
@click.option("--branch", default=3, show_default=True, type=click.IntRange(1),
              help="Moves of each position followed to the next ply (most visited first).")
@click.option("--share", default=0.25, show_default=True, type=click.FloatRange(0, 1),
              help="... each with at least this share of the best move's visits.")
@click.option("--max-positions", default=500, show_default=True, type=click.IntRange(1),
              help="Stop when the book holds this many positions.")
@click.option("--games", type=click.Path(exists=True, file_okay=False), default=None,
              help="Also search every position of the openings of the SGF games under this "
                   "folder (e.g. a match's games/): the lines opponents play.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A search parameter for the book's searches (repeatable).")
@seed_option()
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="The book file (extended when it exists: an interrupted build resumes).")
@cluster_options
def book(size, komi, playouts, plies, branch, share, max_positions, games, params, seed, out,
         workers, scheduler):
    """Build an opening book from the engine's own deep searches (engine/lab/book.py); the
    engine plays it with `--book FILE`, and by default when weights/defaults.json names one."""
    from engine.lab.book import build_book
    from engine.play.book import BookFileError
    from engine.search.params import parse_setting

    def go():
        settings = tuple(parse_setting(item) for item in params)
        made_by = {"command": command_line()}
        with cluster_for(workers, scheduler, stderr) as cluster, ProgressBar("position") as bar:
            result = build_book(out, size, komi, playouts, plies, branch, share,
                                max_positions, games, settings, seed, cluster, made_by, bar)
        click.echo(json.dumps({"book": str(out), "positions": len(result)}))
    one_line_errors(go, (BookFileError, OSError, ValueError))
