"""`simbal data` (position sets, labels, expert moves, depth-2 trees) and `simbal eval` (the
accuracy of Monte-Carlo evaluation against labels, and of tree priors on expert moves).
Options and output only: the work is in policies.data (positions, labels, evaluate; formats
in policies/DATA.md) and policies.train.patterns (a prior's accuracy)."""
import json
from contextlib import ExitStack

import click

from engine.gtp.client import EngineFailure, gnugo_command
from engine.lab.cli.options import (command_line, in_file_option, komi_option, one_line_errors,
                                    out_file_option, rules_option, seed_option, size_option, stderr)
from engine.lab.progress import ProgressBar
from engine.parallel.cluster import cluster_for, cluster_options


def _data_errors(run):
    """`run()`; a bad input file or engine becomes a one-line error, not a traceback."""
    from policies.data.files import DataFileError
    return one_line_errors(run, (DataFileError, EngineFailure, OSError))


def _fuego_if_asked(oracle):
    """Stop at once, in one line, when Fuego is asked for as the oracle and is missing."""
    if oracle in ("fuego", "fuego-playouts"):
        from engine.gtp import fuego
        try:
            fuego.find_program()
        except EngineFailure as e:
            raise click.ClickException(str(e)) from None


@click.group()
def data():
    """Position sets, labels, expert moves and depth-2 trees (policies/DATA.md)."""


@data.command("random")
@size_option(5)
@komi_option(24.5)
@click.option("--games", default=2000, show_default=True, type=click.IntRange(1))
@seed_option()
@click.option("--source", default="random", show_default=True,
              type=click.Choice(["random", "selfplay"]),
              help="Uniformly random games, or games of the engine against itself.")
@click.option("--playouts", default=100, show_default=True, type=click.IntRange(1),
              help="Self-play: playouts per move.")
@click.option("--weights", default="uniform", show_default=True, help="Self-play: playout policy.")
@out_file_option()
@cluster_options
def data_random(size, komi, games, seed, source, playouts, weights, out, workers, scheduler):
    """One position per game at a uniformly random move (Silver & Tesauro's protocol).
    Self-play games run on the cluster; random games are too quick to send anywhere."""
    from policies.data.positions import random_file
    with ProgressBar("game") as bar, ExitStack() as stack:
        cluster = (stack.enter_context(cluster_for(workers, scheduler, stderr))
                   if source == "selfplay" else None)
        counts = random_file(out, size, komi, games, seed, source, playouts, weights,
                             cluster, command_line(), bar)
    click.echo(json.dumps(counts))


@data.command("sgf")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@out_file_option()
@click.option("--size", default=None, type=click.IntRange(2, 25), help="Keep only this size.")
@click.option("--per-game", default=0, show_default=True, type=click.IntRange(0),
              help="Positions drawn per game (0: every move).")
@komi_option(7.5, help="For records without a komi.")
@seed_option()
@click.option("--player", default=None,
              help="Only the moves of the player so named (PB/PW), e.g. gnugo10 in match records.")
@click.option("--after", default=None,
              help="Only the positions after these numbers of moves, comma-separated (e.g. 20,30).")
def data_sgf(folder, out, size, per_game, komi, seed, player, after):
    """Positions and expert moves (the move played) from every .sgf under FOLDER."""
    from policies.data.positions import sgf_file
    try:
        after = tuple(int(k) for k in after.split(",")) if after else None
    except ValueError:
        raise click.BadParameter(f"{after!r}: expected move counts such as 20,30",
                                 param_hint="--after") from None
    counts = sgf_file(folder, out, size, per_game, seed, komi, command_line(),
                      report=stderr, player=player, after=after)
    click.echo(json.dumps(counts))


@data.command("split")
@in_file_option()
@click.option("--test", default=1000, show_default=True, type=click.IntRange(1),
              help="Positions in the test part (whole games, so at least this many).")
@seed_option()
@click.option("--train-out", required=True, type=click.Path(dir_okay=False))
@click.option("--test-out", required=True, type=click.Path(dir_okay=False))
def data_split(in_path, test, seed, train_out, test_out):
    """Split a position file into train and test files disjoint by game."""
    from policies.data.positions import split_file
    counts = _data_errors(lambda: split_file(in_path, test, seed, train_out, test_out,
                                             command_line()))
    click.echo(json.dumps(counts))


def _over_file(run, what, workers, scheduler):
    """`run(cluster, progress)` over every position of a file, then its counts as JSON; the
    positions that failed are reported and left for the next run to retry."""
    with ProgressBar("position") as bar, cluster_for(workers, scheduler, stderr) as cluster:
        written, failures = _data_errors(lambda: run(cluster, bar))
        usage = cluster.report()
    if failures:
        click.echo(f"{len(failures)} positions could not be {what} (see above); run the "
                   "command again to retry them", err=True)
    click.echo(json.dumps({"positions": len(written), "failures": len(failures),
                           "cluster": usage}))


@data.command("label")
@in_file_option()
@out_file_option(help="Output (resumable: ids already in it are skipped).")
@click.option("--playouts", default=10000, show_default=True, type=click.IntRange(1),
              help="Simulations of our search per label (with --oracle fuego: Fuego's games).")
@click.option("--weights", default="uniform", show_default=True,
              help="Playout policy of our search.")
@click.option("--oracle", default=None, metavar="CMD|fuego|fuego-playouts",
              help="Label by this GTP engine instead (uct_value, lz-genmove_analyze, or a "
                   "score estimate); `fuego`: Fuego 1.1 on PATH with the paper's settings "
                   "(one full search of --playouts games a position, seeded by --seed); "
                   "`fuego-playouts`: the mean of --playouts of Fuego's playouts, no tree "
                   "(its Monte-Carlo evaluation, for `simbal eval labels`).")
@seed_option()
@cluster_options
def data_label(in_path, out, playouts, weights, oracle, seed, workers, scheduler):
    """Label every position with V-hat(s), the probability that Black wins."""
    from policies.data.labels import label_file
    _fuego_if_asked(oracle)
    _over_file(lambda cluster, progress: label_file(
        in_path, out, playouts, weights, oracle, seed, cluster, command_line(), progress,
        report=stderr), "labelled", workers, scheduler)


@data.command("experts")
@in_file_option()
@out_file_option()
@click.option("--engine", default=gnugo_command(), show_default=True,
              help="GTP command of the expert.")
@cluster_options
def data_experts(in_path, out, engine, workers, scheduler):
    """Add the expert engine's genmove to every position."""
    from policies.data.labels import experts_file
    _over_file(lambda cluster, progress: experts_file(
        in_path, out, engine, cluster, command_line(), progress, report=stderr),
        "given an expert move", workers, scheduler)


@data.command("depth2")
@in_file_option()
@out_file_option()
@click.option("--playouts", default=1000, show_default=True, type=click.IntRange(1),
              help="Simulations of our search per leaf (with --oracle fuego: Fuego's games; "
                   "the paper: 2000).")
@click.option("--weights", default="uniform", show_default=True)
@click.option("--oracle", default=None, type=click.Choice(["fuego"]),
              help="Label the leaves (and unlabelled roots) by Fuego 1.1 searches instead.")
@seed_option()
@click.option("--limit", default=None, type=click.IntRange(1),
              help="Only the first N positions of the input (after --between).")
@click.option("--between", default=None, nargs=2, type=click.FloatRange(0.0, 1.0),
              metavar="LO HI", help="Only the positions labelled P(Black wins) in [LO, HI].")
@click.option("--biased", default=None, type=click.FloatRange(0.0, 1.0), metavar="E",
              help="Only the positions whose value under uniform playouts is at least E off "
                   "the label: the trees that carry two-step balancing's objective (0.2 keeps "
                   "two-fifths of 5x5 random positions and nine-tenths of the objective).")
@cluster_options
def data_depth2(in_path, out, playouts, weights, oracle, seed, limit, between, biased, workers,
                scheduler):
    """Every candidate move and reply of each position, labelled (two-step balancing)."""
    from policies.data.labels import depth2_file
    _fuego_if_asked(oracle)
    if between is not None and between[0] > between[1]:
        raise click.BadParameter(f"{between[0]} > {between[1]}", param_hint="--between")
    _over_file(lambda cluster, progress: depth2_file(
        in_path, out, playouts, weights, seed, cluster, command_line(), progress,
        report=stderr, limit=limit, oracle=oracle, between=between, biased=biased), "expanded",
        workers, scheduler)


@click.group("eval")
def eval_group():
    """Accuracy of Monte-Carlo evaluation (policies/data/evaluate.py) and of tree priors."""


@eval_group.command("mse")
@click.option("--positions", required=True, type=click.Path(dir_okay=False),
              help="Labelled position file.")
@click.option("--weights", default="uniform", show_default=True,
              help="Playout policy: a weight file, uniform, handcrafted or rules.")
@click.option("--sims", default=100, show_default=True, type=click.IntRange(1),
              help="Playouts per position.")
@click.option("--against", default=None,
              help="Another playout policy (e.g. uniform): its MSE on the same playout seeds, "
                   "and the ratio of the two with a paired bootstrap interval.")
@rules_option(engine=True)
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A search parameter set over the --rules (repeatable; the playout_* ones "
                   "change the playouts, e.g. playout_capture_nakade=1).")
@click.option("--target", default="label", show_default=True,
              type=click.Choice(["label", "result"]),
              help="label: the positions' labels; result: the results of the games they come "
                   "from (`simbal data sgf` of records with a result).")
@seed_option()
@cluster_options
def eval_mse(positions, weights, sims, against, rules, params, target, seed, workers,
             scheduler):
    """MSE of Monte-Carlo evaluation against the labels, with a bootstrap 95% interval."""
    from engine.search.params import parse_setting
    from policies.data.evaluate import mse_report
    try:
        settings = [parse_setting(item) for item in params]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--param") from None
    if settings and rules is None:
        raise click.BadParameter("a parameter changes the playout rules: give --rules search "
                                 "or --rules engine", param_hint="--param")
    try:
        with cluster_for(workers, scheduler, stderr) as cluster:
            result = _data_errors(lambda: mse_report(positions, weights, sims, seed, cluster,
                                                     against, rules, settings, target))
    except ValueError as e:   # WeightFileError names the file
        raise click.BadParameter(str(e), param_hint="--weights") from None
    click.echo(json.dumps(result))


@eval_group.command("prior")
@click.option("--positions", required=True, type=click.Path(dir_okay=False),
              help="Positions with expert moves (`simbal data sgf --player`, `simbal data "
                   "experts`).")
@click.argument("priors", nargs=-1, required=True)
def eval_prior(positions, priors):
    """How well each of PRIORS (a prior weight file, as `--prior`, or a built-in policy)
    predicts the expert moves: the share it ranks first (Wilson 95% interval) and the mean
    log-likelihood, one JSON line a prior, on the same positions."""
    from engine.lab.match import wilson_interval
    from policies.data.files import read_positions
    from policies.loader import load_policy
    from policies.train.patterns import prior_accuracy
    items = _data_errors(lambda: read_positions(positions))
    sizes = sorted({pos.size for pos in items})
    if len(sizes) != 1:
        raise click.ClickException(f"{positions}: expected positions of one board size, "
                                   f"found {sizes or 'none'}")
    size = sizes[0]
    for spec in priors:
        try:
            policy = load_policy(spec, size)
        except ValueError as e:   # WeightFileError names the file
            raise click.BadParameter(str(e), param_hint="PRIORS") from None
        report = prior_accuracy(items, policy)
        report["top1_95"] = list(wilson_interval(report["hits"], report["positions"]))
        click.echo(json.dumps({"prior": spec, **report}))


@eval_group.command("twostep")
@click.option("--trees", required=True, type=click.Path(dir_okay=False),
              help="Depth-2 trees with labelled leaves (`simbal data depth2`).")
@click.option("--weights", default="uniform", show_default=True,
              help="Playout policy: a weight file or uniform.")
def eval_twostep(trees, weights):
    """Two-step imbalance of a policy on depth-2 trees (two-step balancing's objective), with
    a bootstrap 95% interval: on held-out trees it shows whether training generalises."""
    from policies.train.twostep import imbalance_report
    try:
        result = _data_errors(lambda: imbalance_report(trees, weights))
    except ValueError as e:   # WeightFileError names the file
        raise click.BadParameter(str(e), param_hint="--weights") from None
    click.echo(json.dumps(result))


@eval_group.command("labels")
@click.argument("file_a", type=click.Path(dir_okay=False))
@click.argument("file_b", type=click.Path(dir_okay=False))
def eval_labels(file_a, file_b):
    """Agreement of two label files of the same positions (label noise, labeller bias)."""
    from policies.data.evaluate import label_agreement
    click.echo(json.dumps(_data_errors(lambda: label_agreement(file_a, file_b))))
