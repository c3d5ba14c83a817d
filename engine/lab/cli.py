"""The `simbal` command line: one home for every tool (gtp, bench, and later ones).

`simbal gtp` and `python gtp_main.py` start the same GTP engine.  In GTP mode
stdout carries protocol text only; `--verbose` sends diagnostics to stderr.
"""
import io
import json
import os
import sys
import threading
from contextlib import ExitStack
from pathlib import Path

import click

from engine.lab import bench as bench_mod
from engine.parallel.cluster import cluster_for, cluster_options
from engine.lab.progress import ProgressBar


def _stderr(text):
    click.echo(text, err=True)


def _log_to_stderr(verbose):
    if not verbose:
        return lambda *a: None

    def log(*parts):
        print(*parts, file=sys.stderr, flush=True)
    return log


@click.group()
def main():
    """Simbal: a Go engine whose Monte-Carlo playouts are learned."""


@main.command()
@click.option("--size", default=9, show_default=True, type=click.IntRange(2, 25), help="Board size.")
@click.option("--komi", default=7.5, show_default=True, type=float, help="Komi.")
@click.option("--playouts", default=5000, show_default=True, type=click.IntRange(1),
              help="Playouts per move when there is no clock and no --time.")
@click.option("--time", "seconds", default=None, type=click.FloatRange(0.01),
              help="Seconds per move instead of a playout count (the GTP clock overrides both).")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Threads running playouts in parallel.")
@click.option("--weights", default=None,
              help="Playout policy: a weight file, or uniform / handcrafted "
                   "(default: the best shipped weights for the board size).")
@click.option("--prior", default=None,
              help="Tree prior (H of the search): a weight file, uniform, handcrafted, or playout "
                   "(the playout policy's own scores; default: the best shipped prior for the "
                   "board size, else playout).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0),
              help="Random seed: with --playouts, every decision is reproducible.")
@click.option("--max-nodes", default=1_000_000, show_default=True, type=click.IntRange(1024),
              help="Hard cap on search-tree nodes (memory); the search goes on when it is full.")
@click.option("--resign", default=0.1, show_default=True, type=click.FloatRange(0, 1),
              help="Resign when the win rate stays below this (0: never resign).")
@click.option("--ponder", is_flag=True, help="Think on the opponent's time.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Set a search parameter (repeatable); `simbal params` lists them.")
@click.option("--verbose", is_flag=True, help="Diagnostics on stderr.")
def gtp(size, komi, playouts, seconds, threads, weights, prior, seed, max_nodes, resign, ponder,
        params, verbose):
    """Run the GTP engine on stdin/stdout (for GoGui, Sabaki, twogtp, ...)."""
    from engine.gtp.server import GtpServer
    from engine.play.player import Engine, Settings
    from engine.lab.warmup import warm_up

    log = _log_to_stderr(verbose)
    # Load the compiled kernels in the background: the GUI's first commands are answered at
    # once, and the first search waits on numba's lock only if it has to.
    threading.Thread(target=lambda: log(f"warm-up {warm_up():.1f} s"), daemon=True).start()
    try:
        engine = Engine(size, komi, Settings(playouts, seconds, threads, seed, max_nodes, resign,
                                             ponder), weights=weights, log=log, prior=prior)
    except ValueError as e:  # WeightFileError names the file and the problem
        raise click.BadParameter(str(e), param_hint="--weights/--prior") from None
    for item in params:
        name, _, value = item.partition("=")
        try:
            engine.set_param(name, float(value))
        except (KeyError, ValueError):
            raise click.BadParameter(f"{item!r}: expected NAME=VALUE with a known name "
                                     "(see `simbal params`)", param_hint="--param") from None
    # Bytes that are not UTF-8 must not kill the input reader: they become U+FFFD and the
    # line answers `?` like any other garbage.
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    GtpServer(engine, log=log).serve(stdin, sys.stdout)
    # Leave at once: the warm-up thread may still be inside compiled code and the input
    # reader blocked on stdin, and interpreter shutdown under running daemon threads can abort.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@main.command()
def params():
    """List the search parameters, their defaults and meanings."""
    from engine.search.params import PARAMS
    for name, default, meaning in PARAMS:
        click.echo(f"{name:16s} {default:<8g} {meaning}")


@main.command()
@click.argument("engine_a")
@click.argument("engine_b")
@click.option("--games", default=40, show_default=True, type=click.IntRange(1))
@click.option("--size", default=9, show_default=True, type=click.IntRange(2, 25))
@click.option("--komi", default=7.5, show_default=True, type=float)
@click.option("--out", "out_dir", default="runs/match", show_default=True,
              type=click.Path(file_okay=False), help="Folder for SGFs and results.jsonl (resumable).")
@click.option("--referee", default=None, help="GTP command of an engine that settles dead stones.")
@click.option("--time-settings", "time_settings", default=None, metavar="MAIN,BYO,STONES",
              help="Canadian clock for both sides, sent with time_settings and enforced.")
@click.option("--max-moves", default=0, type=click.IntRange(0), help="Move cap (0: 3*size*size).")
@click.option("--names", default="A,B", show_default=True, help="Labels for the two engines.")
@cluster_options
def match(engine_a, engine_b, games, size, komi, out_dir, referee, time_settings,
          max_moves, names, workers, scheduler):
    """Play ENGINE_A against ENGINE_B (GTP command lines), alternating colours."""
    from tqdm import tqdm

    from engine.lab.match import MatchConfig, run_match, summary

    config = MatchConfig(size=size, komi=komi, max_moves=max_moves)
    if time_settings:
        try:
            main_time, byo, stones = time_settings.split(",")
            config.main_time, config.byo_time, config.byo_stones = float(main_time), float(byo), int(stones)
        except ValueError:
            raise click.BadParameter("expected MAIN,BYO,STONES", param_hint="--time-settings") from None
    labels = tuple(names.split(",", 1)) if "," in names else (names, "B")
    bar = tqdm(total=games, unit="game", file=sys.stderr)

    def progress(done, total):
        bar.n = done
        bar.refresh()

    try:
        with cluster_for(workers, scheduler, _stderr) as cluster:
            results = run_match(engine_a, engine_b, games, out_dir, config, referee, cluster,
                                progress, labels)
    finally:
        bar.close()
    report = summary(results, labels)
    (Path(out_dir) / "summary.json").write_text(json.dumps(report, indent=2) + "\n")
    low, high = report["a_winrate_95"]
    click.echo(f"{labels[0]} vs {labels[1]}: {report['a_wins']:g}/{report['games']} "
               f"= {100 * (report['a_winrate'] or 0):.1f}% (95% interval {100 * low:.1f}-{100 * high:.1f}%)")
    for error in report["errors"]:
        click.echo(f"error: {error}", err=True)


@main.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--player", required=True, help="The name (from --names) whose play to review.")
@click.option("--horizon", default=12, show_default=True, type=click.IntRange(1),
              help="Moves after the escape within which a capture counts.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole review as JSON.")
def review(folder, player, horizon, as_json):
    """Chains run out of atari into a capture, per game, in a `simbal match` FOLDER."""
    from engine.lab.review import review as review_folder

    try:
        report = review_folder(folder, player, horizon)
    except (OSError, ValueError, KeyError) as err:
        raise click.ClickException(f"{folder}: {err}") from None
    if as_json:
        click.echo(json.dumps(report, indent=1))
        return
    for g in report["per_game"]:
        if g["own"] or g["opponent"]:
            click.echo(f"game {g['game']}: {player} scored {g['score']:g}; escapes captured "
                       f"(move, stones): {player} {g['own']}, opponent {g['opponent']}")
    for problem in report["unreadable"]:
        click.echo(f"unreadable: {problem}", err=True)
    click.echo(f"{player}: {report['games_with_collapse']} of {report['games']} games with an "
               f"escape into two liberties captured within {horizon} moves "
               f"({report['losses_with_collapse']} of its {report['losses']} losses); "
               f"opponent: {report['opponent_games_with_collapse']} games")


@main.command()
@click.argument("players", nargs=-1, required=True)
@click.option("--games", default=100, show_default=True, type=click.IntRange(0),
              help="Games per pairing (rounded up to even: colours balanced); 0 plays nothing "
                   "and rates the games in --out.")
@click.option("--gauntlet", default=None, metavar="NAME",
              help="Play NAME against each other player instead of a round robin.")
@click.option("--size", default=5, show_default=True, type=click.IntRange(2, 25))
@click.option("--komi", default=0.5, show_default=True, type=float)
@click.option("--max-moves", default=0, type=click.IntRange(0), help="Move cap (0: 3*size*size).")
@click.option("--out", "out_dir", default="runs/tournament", show_default=True,
              type=click.Path(file_okay=False), help="Folder for results (resumable).")
@click.option("--anchor", default=None, help="Player rated 0 (default: the first).")
@click.option("--prior", default=1.0, show_default=True, type=click.FloatRange(0),
              help="Virtual draws added between players who met (keeps perfect scores finite).")
@click.option("--referee", default="gnugo", show_default=True,
              help="GTP command that settles disputed dead stones; 'gnugo' (if installed) or 'none'.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0))
@cluster_options
def tournament(players, games, gauntlet, size, komi, max_moves, out_dir, anchor, prior,
               referee, seed, workers, scheduler):
    """Round robin (or gauntlet) between PLAYERS, then Elo ratings.

    Each player is [NAME=]SPEC: policy:FILE (the policy played directly), mc1:FILE[:N] (one-ply
    Monte-Carlo, N=100 playouts per move), mcts:FILE[:PLAYOUTS] (the engine), gnugo[:LEVEL], or
    a GTP command line.  FILE is a weight file, uniform or handcrafted.  Results, SGFs and
    ratings (Markdown, JSON, PNG) go to --out; running again resumes.  The ratings use every
    game in --out between PLAYERS, also those of other schedules (gauntlets, other --games)."""
    from engine.lab.match import MatchConfig
    from engine.lab.players import check_spec, split_name
    from engine.lab.tournament import default_referee, report, run_tournament

    specs = {}
    for text in players:
        name, spec = split_name(text)
        if name in specs:
            raise click.BadParameter(f"two players named {name!r} (use NAME=SPEC)")
        try:
            check_spec(spec, size)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="PLAYERS") from None
        specs[name] = spec
    if len(specs) < 2:
        raise click.BadParameter("need at least two players", param_hint="PLAYERS")
    for name, label in ((gauntlet, "--gauntlet"), (anchor, "--anchor")):
        if name is not None and name not in specs:
            raise click.BadParameter(f"{name!r} is not a player ({', '.join(specs)})", param_hint=label)
    referee_cmd = (default_referee() if referee == "gnugo" else None if referee == "none"
                   else referee)
    bar = ProgressBar("game")
    try:
        with cluster_for(workers, scheduler, _stderr) as cluster:
            results = run_tournament(specs, out_dir,
                                     MatchConfig(size=size, komi=komi, max_moves=max_moves),
                                     games, gauntlet, cluster, referee_cmd, seed, bar)
    except ValueError as e:      # a corrupt results file or a clashing player record
        raise click.ClickException(str(e)) from None
    finally:
        bar.close()
    try:
        text = report(results, list(specs), out_dir, anchor, prior,
                      title=f"Tournament {size}x{size}, komi {komi:g}")
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(text)


@main.command()
@click.argument("suites", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--engine", "engine_cmd", default=None,
              help="GTP command of the engine under test (default: Simbal with --playouts).")
@click.option("--playouts", default=5000, show_default=True, type=click.IntRange(1),
              help="Playouts per move of the default engine.")
@click.option("--parallel", default=1, show_default=True, type=click.IntRange(1),
              help="Suites run at once (each with its own engine).")
@click.option("--json", "json_path", default=None, type=click.Path(dir_okay=False),
              help="Write every test's answer and verdict to this JSON file.")
def regress(suites, engine_cmd, playouts, parallel, json_path):
    """Run GTP regression SUITES (GoGui's .tst format) and report solved / total per file."""
    from concurrent.futures import ThreadPoolExecutor
    from dataclasses import asdict

    from engine.lab.regress import SuiteError, default_engine, parse_suite, run_suite, to_markdown

    engine_cmd = engine_cmd or default_engine(playouts)
    try:
        sizes = [len(parse_suite(s)) for s in suites]
    except SuiteError as e:
        raise click.ClickException(str(e)) from None
    bar = ProgressBar("command")
    steps = [0] * len(suites)
    lock = threading.Lock()

    def one(i):
        def progress(done, _):
            with lock:
                steps[i] = done
                bar(sum(steps), sum(sizes))
        return run_suite(suites[i], engine_cmd, progress)

    try:
        with ThreadPoolExecutor(parallel) as pool:
            results = list(pool.map(one, range(len(suites))))
    finally:
        bar.close()
    click.echo(to_markdown(results, engine_cmd))
    for r in results:
        for error in r.setup_errors[:5]:
            click.echo(f"{Path(r.file).name}: {error}", err=True)
    if json_path:
        Path(json_path).write_text(json.dumps({"engine": engine_cmd,
                                               "suites": [asdict(r) for r in results]}, indent=2) + "\n")


@main.command()
@click.option("--param", "param_specs", multiple=True, required=True,
              metavar="NAME=START[,LOW,HIGH[,SCALE]]",
              help="A parameter to tune (repeatable); bounds default to policies/tune.py BOUNDS.")
@click.option("--method", type=click.Choice(["rspsa", "fdsa"]), default="rspsa", show_default=True)
@click.option("--iterations", default=50, show_default=True, type=click.IntRange(1))
@click.option("--perturbations", default=8, show_default=True, type=click.IntRange(1),
              help="r: perturbations per iteration (FDSA: per parameter), one game pair each.")
@click.option("--delta0", default=0.05, show_default=True, type=click.FloatRange(1e-3, 1.0),
              help="Initial step, as a fraction of each parameter's scale.")
@click.option("--objective", default="match", show_default=True,
              help="match (game pairs against the fixed opponent), synthetic (a known optimum at "
                   "the engine defaults), or MODULE:FUNCTION f(params, seed) -> float.")
@click.option("--size", default=9, show_default=True, type=click.IntRange(2, 25))
@click.option("--komi", default=7.5, show_default=True, type=float)
@click.option("--playouts", default=200, show_default=True, type=click.IntRange(1),
              help="Playouts per move of both engines in the match objective.")
@click.option("--weights", default=None, help="Playout policy of both engines (default: shipped).")
@click.option("--opponent-param", "opponent_params", multiple=True, metavar="NAME=VALUE",
              help="Parameters of the fixed opponent (default: the engine's defaults).")
@click.option("--opening", default=2, show_default=True, type=click.IntRange(0),
              help="Random opening moves shared by both games of a pair.")
@click.option("--validate", "validate_pairs", default=0, show_default=True, type=click.IntRange(0),
              help="After tuning, play this many game pairs (fresh seeds) of the result against "
                   "the opponent and report the score with its Wilson interval.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0))
@click.option("--out", "out_dir", default="runs/tune", show_default=True,
              type=click.Path(file_okay=False), help="Checkpoint, log and plot (resumable).")
@cluster_options
def tune(param_specs, method, iterations, perturbations, delta0, objective, size, komi, playouts,
         weights, opponent_params, opening, validate_pairs, seed, out_dir, workers, scheduler):
    """Tune engine parameters with RSPSA (or FDSA) against a noisy objective."""
    from engine.lab import tune as tune_mod

    try:
        params = [tune_mod.parse_param(text) for text in param_specs]
        tune_mod.check_names(params)
        opponent = {}
        for text in opponent_params:
            name, _, value = text.partition("=")
            opponent[name] = float(value)
        tune_mod.check_names(tune_mod.Param(n, 0.0, 0.0, 1.0) for n in opponent)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    with ExitStack() as stack:
        if objective == "match":
            setup = tune_mod.MatchSetup(size, komi, playouts, weights, opponent or None, opening)
            f = tune_mod.MatchObjective(setup, stack.enter_context(
                cluster_for(workers, scheduler, _stderr)))
        elif objective == "synthetic":
            from engine.search.params import default_params
            defaults = default_params()._asdict()
            f = tune_mod.Synthetic({p.name: defaults[p.name] for p in params},
                                   {p.name: p.scale / 4 for p in params})
        else:
            try:
                f = tune_mod.FunctionObjective(objective)
            except ValueError as e:
                raise click.BadParameter(str(e), param_hint="--objective") from None
        _tune_and_validate(tune_mod, params, f, method, iterations, perturbations, delta0,
                           validate_pairs, seed, out_dir)


def _tune_and_validate(tune_mod, params, f, method, iterations, perturbations, delta0,
                       validate_pairs, seed, out_dir):
    tuner = tune_mod.Tuner(params, tune_mod.Settings(method, iterations, perturbations, delta0,
                                                     seed), f)
    bar = ProgressBar("iteration")
    try:
        log = tune_mod.run(tuner, out_dir, bar)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    finally:
        bar.close()
    final = tuner.as_dict()
    click.echo(f"after {tuner.t} iterations ({sum(r['evaluations'] for r in log)} evaluations): "
               + " ".join(f"{k}={v:.4g}" for k, v in final.items()))
    if validate_pairs:
        report = tune_mod.validate(f, final, validate_pairs, seed)
        (Path(out_dir) / "validation.json").write_text(json.dumps(report, indent=2) + "\n")
        low, high = report["score_95"]
        click.echo(f"validation: {report['points']:g}/{report['games']} = {100 * report['score']:.1f}% "
                   f"(95% interval {100 * low:.1f}-{100 * high:.1f}%)")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (for scripts).")
@click.option("--quick", is_flag=True, help="Shorter timings, no start-up figures.")
@click.option("--write", type=click.Path(dir_okay=False), default=None,
              help="Also record the figures in this Markdown file (e.g. BENCHMARKS.md).")
@click.option("--cluster", "on_cluster", is_flag=True,
              help="Instead: labelling and evaluation with 1 and 2 Dask workers.")
def bench(as_json, quick, write, on_cluster):
    """Measure playout rates and start-up time (or, with --cluster, Dask scaling)."""
    if on_cluster:
        figures = (bench_mod.cluster_figures(100, 2000) if quick
                   else bench_mod.cluster_figures())
    else:
        figures = bench_mod.run(quick=quick)
    if as_json:
        click.echo(bench_mod.to_json(figures))
    else:
        for key, value in figures.items():
            click.echo(f"{key:40s} {value:>12,}" if isinstance(value, int) else f"{key:40s} {value:>12}")
    if write and on_cluster:
        bench_mod.write_into(write, figures, bench_mod.CLUSTER_MARKS, "simbal bench --cluster")
    elif write:
        bench_mod.write_into(write, figures)


# -- data sets and the Monte-Carlo accuracy measure (policies/positions.py, labels.py,
#    evaluate.py; formats in policies/DATA.md) ----------------------------------------------

def _command_line():
    return "simbal " + " ".join(sys.argv[1:])


def _data_errors(run):
    """Run `run()`; a bad input file or engine becomes a one-line error, not a traceback."""
    from policies.data.files import DataFileError
    from engine.gtp.client import EngineFailure
    try:
        return run()
    except (DataFileError, EngineFailure, OSError) as e:
        raise click.ClickException(str(e)) from None


def _report_failures(failures, what):
    if failures:
        click.echo(f"{len(failures)} positions could not be {what} (see above); run the "
                   "command again to retry them", err=True)


@main.group()
def data():
    """Position sets, labels, expert moves and depth-2 trees (policies/DATA.md)."""


@data.command("random")
@click.option("--size", default=5, show_default=True, type=click.IntRange(2, 25))
@click.option("--komi", default=24.5, show_default=True, type=float)
@click.option("--games", default=2000, show_default=True, type=click.IntRange(1))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0))
@click.option("--source", default="random", show_default=True,
              type=click.Choice(["random", "selfplay"]),
              help="Uniformly random games, or games of the engine against itself.")
@click.option("--playouts", default=100, show_default=True, type=click.IntRange(1),
              help="Self-play: playouts per move.")
@click.option("--weights", default="uniform", show_default=True, help="Self-play: playout policy.")
@click.option("--out", required=True, type=click.Path(dir_okay=False))
@cluster_options
def data_random(size, komi, games, seed, source, playouts, weights, out, workers, scheduler):
    """One position per game at a uniformly random move (Silver & Tesauro's protocol).
    Self-play games run on the cluster; random games are too quick to send anywhere."""
    from policies.data.positions import random_file
    bar = ProgressBar("game")
    try:
        with ExitStack() as stack:
            cluster = (stack.enter_context(cluster_for(workers, scheduler, _stderr))
                       if source == "selfplay" else None)
            counts = random_file(out, size, komi, games, seed, source, playouts, weights,
                                 cluster, _command_line(), bar)
    finally:
        bar.close()
    click.echo(json.dumps(counts))


@data.command("sgf")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False))
@click.option("--size", default=None, type=click.IntRange(2, 25), help="Keep only this size.")
@click.option("--per-game", default=0, show_default=True, type=click.IntRange(0),
              help="Positions drawn per game (0: every move).")
@click.option("--komi", default=7.5, show_default=True, type=float,
              help="For records without a komi.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0))
@click.option("--player", default=None,
              help="Only the moves of the player so named (PB/PW), e.g. gnugo10 in match records.")
def data_sgf(folder, out, size, per_game, komi, seed, player):
    """Positions and expert moves (the move played) from every .sgf under FOLDER."""
    from policies.data.positions import sgf_file
    counts = sgf_file(folder, out, size, per_game, seed, komi, _command_line(),
                      report=lambda text: click.echo(text, err=True), player=player)
    click.echo(json.dumps(counts))


@data.command("split")
@click.option("--in", "in_path", required=True, type=click.Path(dir_okay=False))
@click.option("--test", default=1000, show_default=True, type=click.IntRange(1),
              help="Positions in the test part (whole games, so at least this many).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0))
@click.option("--train-out", required=True, type=click.Path(dir_okay=False))
@click.option("--test-out", required=True, type=click.Path(dir_okay=False))
def data_split(in_path, test, seed, train_out, test_out):
    """Split a position file into train and test files disjoint by game."""
    from policies.data.positions import split_file
    counts = _data_errors(lambda: split_file(in_path, test, seed, train_out, test_out,
                                             _command_line()))
    click.echo(json.dumps(counts))


def _over_file(run, what, workers, scheduler):
    bar = ProgressBar("position")
    try:
        with cluster_for(workers, scheduler, _stderr) as cluster:
            written, failures = _data_errors(lambda: run(cluster, bar))
            usage = cluster.report()
    finally:
        bar.close()
    _report_failures(failures, what)
    click.echo(json.dumps({"positions": len(written), "failures": len(failures),
                           "cluster": usage}))


@data.command("label")
@click.option("--in", "in_path", required=True, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="Output (resumable: ids already in it are skipped).")
@click.option("--playouts", default=10000, show_default=True, type=click.IntRange(1),
              help="Simulations of our search per label.")
@click.option("--weights", default="uniform", show_default=True,
              help="Playout policy of our search.")
@click.option("--oracle", default=None, metavar="CMD",
              help="Label by this GTP engine instead (uct_value, lz-genmove_analyze, or a "
                   "score estimate).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0))
@cluster_options
def data_label(in_path, out, playouts, weights, oracle, seed, workers, scheduler):
    """Label every position with V-hat(s), the probability that Black wins."""
    from policies.data.labels import label_file
    _over_file(lambda cluster, progress: label_file(
        in_path, out, playouts, weights, oracle, seed, cluster, _command_line(), progress,
        report=_stderr), "labelled", workers, scheduler)


@data.command("experts")
@click.option("--in", "in_path", required=True, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False))
@click.option("--engine", default="/usr/games/gnugo --mode gtp --level 10 --chinese-rules",
              show_default=True, help="GTP command of the expert.")
@cluster_options
def data_experts(in_path, out, engine, workers, scheduler):
    """Add the expert engine's genmove to every position."""
    from policies.data.labels import experts_file
    _over_file(lambda cluster, progress: experts_file(
        in_path, out, engine, cluster, _command_line(), progress, report=_stderr),
        "given an expert move", workers, scheduler)


@data.command("depth2")
@click.option("--in", "in_path", required=True, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False))
@click.option("--playouts", default=1000, show_default=True, type=click.IntRange(1),
              help="Simulations of our search per leaf.")
@click.option("--weights", default="uniform", show_default=True)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0))
@click.option("--limit", default=None, type=click.IntRange(1),
              help="Only the first N positions of the input.")
@cluster_options
def data_depth2(in_path, out, playouts, weights, seed, limit, workers, scheduler):
    """Every candidate move and reply of each position, labelled (two-step balancing)."""
    from policies.data.labels import depth2_file
    _over_file(lambda cluster, progress: depth2_file(
        in_path, out, playouts, weights, seed, cluster, _command_line(), progress,
        report=_stderr, limit=limit), "expanded", workers, scheduler)


@main.group("eval")
def eval_group():
    """Accuracy of Monte-Carlo evaluation (policies/evaluate.py)."""


@eval_group.command("mse")
@click.option("--positions", required=True, type=click.Path(dir_okay=False),
              help="Labelled position file.")
@click.option("--weights", default="uniform", show_default=True,
              help="Playout policy: a weight file, uniform or handcrafted.")
@click.option("--sims", default=100, show_default=True, type=click.IntRange(1),
              help="Playouts per position.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0))
@cluster_options
def eval_mse(positions, weights, sims, seed, workers, scheduler):
    """MSE of Monte-Carlo evaluation against the labels, with a bootstrap 95% interval."""
    from policies.data.evaluate import mse_report
    try:
        with cluster_for(workers, scheduler, _stderr) as cluster:
            result = _data_errors(lambda: mse_report(positions, weights, sims, seed, cluster))
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


# -- offline trainers and the MSE experiment (policies/train) ---------------------------------
from engine.lab.train_commands import (reproduce as _reproduce, train as _train,  # noqa: E402
                                       train_prior as _train_prior)

main.add_command(_train)
main.add_command(_reproduce)
main.add_command(_train_prior)


if __name__ == "__main__":
    main()
