"""`simbal gtp` (the GTP engine on stdin/stdout, as gtp_main.py starts it), `simbal analysis`
(KataGo's JSON analysis protocol, a subset) and `simbal params` (the search parameters).  In GTP mode stdout carries protocol text only; `--verbose`
sends diagnostics to stderr."""
import io
import os
import sys
import threading

import click

from engine.lab.cli.options import komi_option, log_to_stderr, seed_option, size_option


def _read_config(ctx, param, path):
    """`--config FILE`: a TOML file whose keys are the other options' names (`playouts = 10000`,
    `max-move-time = 20`, `param = ["uct_c=0.2"]`); the command line wins over it."""
    if path is None:
        return None
    import tomllib
    try:
        with open(path, "rb") as f:
            table = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise click.BadParameter(f"{path}: {e}", ctx, param) from None
    names = {}
    for p in ctx.command.params:
        for opt in p.opts:
            names[opt.lstrip("-")] = p.name
        names[p.name] = p.name
    defaults = {}
    for key, value in table.items():
        if key not in names or names[key] == param.name:
            raise click.BadParameter(f"{path}: unknown option {key!r}", ctx, param)
        defaults[names[key]] = value
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return path


@click.command()
@click.option("--config", type=click.Path(dir_okay=False), default=None, is_eager=True,
              expose_value=False, callback=_read_config,
              help="Read options from this TOML file (keys: the option names, e.g. "
                   "`playouts = 10000`); options given on the command line win.")
@size_option(9, help="Board size.")
@komi_option(7.5, help="Komi.")
@click.option("--playouts", default=5000, show_default=True, type=click.IntRange(1),
              help="Playouts per move when there is no clock and no --time.")
@click.option("--count-reused", is_flag=True,
              help="--playouts counts the simulations a reused subtree already holds, as "
                   "Fuego's max_games does (for matches at equal playouts against Fuego).")
@click.option("--time", "seconds", default=None, type=click.FloatRange(0.01),
              help="Seconds per move instead of a playout count (the GTP clock overrides both).")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Threads running playouts in parallel.")
@click.option("--weights", default=None,
              help="Playout policy: a weight file (a path, or the name of one in weights/), or "
                   "uniform / handcrafted / rules (default: the best shipped weights for the "
                   "board size).")
@click.option("--prior", default=None,
              help="Tree prior (H of the search): a weight file (as --weights), uniform, "
                   "handcrafted, or playout (the playout policy's own scores; default: the best "
                   "shipped prior for the board size, else playout).")
@click.option("--book", default=None,
              help="Opening book: a book file (`simbal book`), or none (default: the shipped "
                   "book for the board size, if there is one).")
@seed_option(help="Random seed: with --playouts, every decision is reproducible.")
@click.option("--max-nodes", default=1_000_000, show_default=True, type=click.IntRange(1024),
              help="Search-tree nodes (memory: about 150 bytes each, spare pool included); "
                   "a full tree is pruned to its well-visited nodes and goes on growing.")
@click.option("--resign", default=0.1, show_default=True, type=click.FloatRange(0, 1),
              help="Resign when the win rate stays below this (0: never resign).")
@click.option("--ponder", is_flag=True, help="Think on the opponent's time.")
@click.option("--max-move-time", "max_move_seconds", default=30.0, show_default=True,
              type=click.FloatRange(0.01),
              help="Seconds a game clock may give one move at most (a huge main time, say).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Set a search parameter (repeatable); `simbal params` lists them.")
@click.option("--verbose", is_flag=True, help="Diagnostics on stderr.")
@click.option("--live-gfx", "live_gfx", type=click.FloatRange(0.1), default=None,
              metavar="SECONDS",
              help="While genmove thinks, write GoGui's live graphics (gogui-gfx: blocks: "
                   "visits, best variation) to stderr every SECONDS.")
@click.option("--log", "transcript_path", type=click.Path(dir_okay=False), default=None,
              help="Write a transcript of the session (every line in `<` and out `>`, with "
                   "seconds since the start) to this file.")
def gtp(size, komi, playouts, count_reused, seconds, threads, weights, prior, book, seed,
        max_nodes, resign, ponder, max_move_seconds, params, verbose, live_gfx, transcript_path):
    """Run the GTP engine on stdin/stdout (for GoGui, Sabaki, twogtp, ...)."""
    from engine.gtp.server import GtpServer
    from engine.lab.warmup import warm_up
    from engine.play.player import Engine, Settings
    from engine.search.params import parse_setting

    log = log_to_stderr(verbose)
    # Load the compiled kernels in the background: the GUI's first commands are answered at
    # once, and the first search waits on numba's lock only if it has to.
    threading.Thread(target=lambda: log(f"warm-up {warm_up(trainers=False):.1f} s"),
                     daemon=True).start()
    try:
        settings = Settings(playouts, seconds, threads, seed, max_nodes, resign, ponder,
                            max_move_seconds=max_move_seconds, count_reused=count_reused)
        engine = Engine(size, komi, settings, weights=weights, log=log, prior=prior, book=book)
    except ValueError as e:  # WeightFileError and BookFileError name the file and the problem
        raise click.BadParameter(str(e), param_hint="--weights/--prior/--book") from None
    for item in params:
        try:
            engine.set_param(*parse_setting(item))
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--param") from None
    # Bytes that are not UTF-8 must not kill the input reader: they become U+FFFD and the
    # line answers `?` like any other garbage.
    # newline="\n": only LF ends a line; a CR inside one is a control character the protocol
    # drops (universal newlines would split `name\rfoo` into two commands).
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    transcript = open(transcript_path, "a", encoding="utf-8") if transcript_path else None
    server = GtpServer(engine, log=log)
    if live_gfx:
        server.live_gfx = (live_gfx, lambda text: (sys.stderr.write(text), sys.stderr.flush()))
    server.serve(stdin, sys.stdout, transcript)
    if transcript is not None:
        transcript.close()
    # Leave at once: the warm-up thread may still be inside compiled code and the input
    # reader blocked on stdin, and interpreter shutdown under running daemon threads can abort.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


@click.command("analysis")
@click.option("--playouts", default=1000, show_default=True, type=click.IntRange(1),
              help="Visits per position when a query gives no maxVisits.")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--weights", default=None, help="Playout policy (as for `simbal gtp`).")
@click.option("--prior", default=None, help="Tree prior (as for `simbal gtp`).")
@seed_option(help="Random seed: the same queries give the same answers.")
@click.option("--max-nodes", default=1_000_000, show_default=True, type=click.IntRange(1024))
def analysis(playouts, threads, weights, prior, seed, max_nodes):
    """A subset of KataGo's JSON analysis protocol on stdin/stdout: one query a line (id,
    boardXSize, komi, rules, initialStones, moves, analyzeTurns, maxVisits,
    includeOwnership), one response a line per turn analysed."""
    from engine.gtp.kata_json import AnalysisEngine
    from engine.play.player import Engine, Settings

    try:
        engine = Engine(9, 7.5, Settings(playouts, None, threads, seed, max_nodes, 0.0),
                        weights=weights, prior=prior)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--weights/--prior") from None
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    AnalysisEngine(engine).serve(stdin, sys.stdout)


@click.command()
def params():
    """List the search parameters, their defaults and meanings."""
    from engine.search.params import PARAMS
    for name, default, meaning in PARAMS:
        click.echo(f"{name:16s} {default:<8g} {meaning}")
