"""The commands that play or read games between engines: `simbal match` (two GTP engines),
`simbal review` (a match folder's escapes into captures, and with labels where its games were
decided), `simbal tournament` (round robin or
gauntlet, then ratings), `simbal regress` (GTP regression suites) and `simbal agreement`
(engines' moves compared on a position file).  Options and output only: the work is in
engine.lab.match, review, players, tournament, regress and agreement."""
import json
import sys
import threading
from pathlib import Path

import click

from engine.lab.cli.options import komi_option, seed_option, size_option, stderr
from engine.lab.progress import ProgressBar
from engine.parallel.cluster import cluster_for, cluster_options

max_moves_option = click.option("--max-moves", default=0, type=click.IntRange(0),
                                help="Move cap (0: 3*size*size).")


@click.command()
@click.argument("engine_a")
@click.argument("engine_b")
@click.option("--games", default=40, show_default=True, type=click.IntRange(1))
@size_option(9)
@komi_option(7.5)
@click.option("--out", "out_dir", default="runs/match", show_default=True,
              type=click.Path(file_okay=False), help="Folder for SGFs and results.jsonl (resumable).")
@click.option("--referee", default=None, help="GTP command of an engine that settles dead stones.")
@click.option("--time-settings", "time_settings", default=None, metavar="MAIN,BYO,STONES",
              help="Canadian clock for both sides, sent with time_settings and enforced.")
@click.option("--byoyomi", default=None, metavar="MAIN,PERIOD,PERIODS",
              help="Japanese byo-yomi for both sides (kgs-time_settings byoyomi, or a Canadian "
                   "period of one stone to an engine without it), enforced.")
@max_moves_option
@click.option("--names", default="A,B", show_default=True, help="Labels for the two engines.")
@cluster_options
def match(engine_a, engine_b, games, size, komi, out_dir, referee, time_settings, byoyomi,
          max_moves, names, workers, scheduler):
    """Play ENGINE_A against ENGINE_B (GTP command lines, or gnugo[:LEVEL] and
    fuego[:GAMES|:SECONDSs] for those engines on one thread), alternating colours.  `{seed}`
    in a command line becomes the number of the first game its process plays (e.g. `python
    gtp_main.py --seed {seed}`): engines are kept across a worker's games, and a restarted one
    would otherwise replay an earlier game."""
    from tqdm import tqdm

    from engine.lab.match import MatchConfig, run_match, search_lines, summary

    engine_a, engine_b = _gtp_commands((engine_a, engine_b), size, "ENGINE_A/ENGINE_B")

    config = MatchConfig(size=size, komi=komi, max_moves=max_moves)
    if time_settings:
        try:
            main_time, byo, stones = time_settings.split(",")
            config.main_time, config.byo_time, config.byo_stones = float(main_time), float(byo), int(stones)
        except ValueError:
            raise click.BadParameter("expected MAIN,BYO,STONES", param_hint="--time-settings") from None
    if byoyomi:
        if time_settings:
            raise click.BadParameter("give one clock", param_hint="--byoyomi/--time-settings")
        try:
            main_time, period, periods = byoyomi.split(",")
            config.main_time, config.byo_time = float(main_time), float(period)
            config.byo_periods = int(periods)
            if config.main_time < 0 or config.byo_time <= 0 or config.byo_periods < 1:
                raise ValueError
        except ValueError:
            raise click.BadParameter("expected MAIN,PERIOD,PERIODS (a period > 0, periods >= 1)",
                                     param_hint="--byoyomi") from None
    labels = tuple(names.split(",", 1)) if "," in names else (names, "B")
    bar = tqdm(total=games, unit="game", file=sys.stderr)

    def progress(done, total):
        bar.n = done
        bar.refresh()

    try:
        with cluster_for(workers, scheduler, stderr) as cluster:
            results = run_match(engine_a, engine_b, games, out_dir, config, referee, cluster,
                                progress, labels)
    finally:
        bar.close()
    report = summary(results, labels)
    (Path(out_dir) / "summary.json").write_text(json.dumps(report, indent=2) + "\n")
    low, high = report["a_winrate_95"]
    click.echo(f"{labels[0]} vs {labels[1]}: {report['a_wins']:g}/{report['games']} "
               f"= {100 * (report['a_winrate'] or 0):.1f}% (95% interval {100 * low:.1f}-{100 * high:.1f}%)")
    for line in search_lines(results):
        click.echo(line)
    for error in report["errors"]:
        click.echo(f"error: {error}", err=True)


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--player", required=True, help="The name (from --names) whose play to review.")
@click.option("--horizon", default=12, show_default=True, type=click.IntRange(1),
              help="Moves after the escape within which a capture counts.")
@click.option("--labels", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Labelled positions of the folder's games (`simbal data sgf FOLDER/games`, "
                   "then `simbal data label`): also say where the games were decided.")
@click.option("--blunder", default=0.2, show_default=True, type=click.FloatRange(0, 1),
              help="With --labels: a move that gives away this much of the value is a blunder.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole review as JSON.")
def review(folder, player, horizon, labels, blunder, as_json):
    """Chains run out of atari into a capture, per game, in a `simbal match` FOLDER; with
    --labels, the move of each game that gave most away and the blunders of both sides."""
    from engine.lab.review import review as review_folder

    try:
        report = review_folder(folder, player, horizon, labels, blunder)
    except (OSError, ValueError, KeyError) as err:
        raise click.ClickException(f"{folder}: {err}") from None
    if as_json:
        click.echo(json.dumps(report, indent=1))
        return
    for g in report["per_game"]:
        if g["own"] or g["opponent"]:
            click.echo(f"game {g['game']}: {player} scored {g['score']:g}; escapes captured "
                       f"(move, stones, read as caught): {player} {g['own']}, "
                       f"opponent {g['opponent']}")
    for problem in report["unreadable"]:
        click.echo(f"unreadable: {problem}", err=True)
    click.echo(f"{player}: {report['games_with_collapse']} of {report['games']} games with an "
               f"escape into two liberties captured within {horizon} moves "
               f"({report['losses_with_collapse']} of its {report['losses']} losses); "
               f"opponent: {report['opponent_games_with_collapse']} games")
    click.echo(f"{player}: {report['own_escapes_read_caught']} of its {report['own_escapes']} "
               f"such escapes were read as caught by the tree's ladder reader")
    if "swings" in report:
        _echo_swings(player, report["swings"])


def _echo_swings(player, sw):
    for name in sw["unlabelled_games"]:
        click.echo(f"unlabelled: {name} has no labelled positions", err=True)
    decided = ", ".join(f"{phase} {n}" for phase, n in sw["losses_decided_in"].items())
    click.echo(f"{player}'s {sw['losses']} labelled losses, by the phase of the move that gave "
               f"most away: {decided}")
    for group in ("losses", "wins"):
        means = sw[f"mean_value_in_{group}"]
        click.echo(f"{player}'s mean value in its {group} after move "
                   + ", ".join(f"{m}: {v:.3f}" for m, v in means.items() if v is not None))
    for colour, name in (("b", "Black"), ("w", "White")):
        c = sw["by_colour"][colour]
        if c["games"]:
            given = c["mean_given_away"]
            click.echo(f"{player} as {name}: {c['score']:g}/{c['games']}; mean value a move gave "
                       f"away, {player} / opponent: " + ", ".join(
                           f"{phase} {_signed(given['own'][phase])} / "
                           f"{_signed(given['opponent'][phase])}" for phase in given["own"]))
    own, opp = sw["own_blunders"], sw["opponent_blunders"]
    click.echo(f"blunders (a move giving away >= {sw['blunder']:g}): {player} {own['losses']} "
               f"in its losses and {own['wins']} in its wins; the opponent {opp['losses']} and "
               f"{opp['wins']}")


def _signed(x):
    return "-" if x is None else f"{x:+.4f}"


@click.command()
@click.argument("players", nargs=-1, required=True)
@click.option("--games", default=100, show_default=True, type=click.IntRange(0),
              help="Games per pairing (rounded up to even: colours balanced); 0 plays nothing "
                   "and rates the games in --out.")
@click.option("--gauntlet", default=None, metavar="NAME",
              help="Play NAME against each other player instead of a round robin.")
@size_option(5)
@komi_option(0.5)
@max_moves_option
@click.option("--out", "out_dir", default="runs/tournament", show_default=True,
              type=click.Path(file_okay=False), help="Folder for results (resumable).")
@click.option("--anchor", default=None, help="Player rated 0 (default: the first).")
@click.option("--prior", default=1.0, show_default=True, type=click.FloatRange(0),
              help="Virtual draws added between players who met (keeps perfect scores finite).")
@click.option("--referee", default="gnugo", show_default=True,
              help="GTP command that settles disputed dead stones; 'gnugo' (if installed) or 'none'.")
@seed_option()
@cluster_options
def tournament(players, games, gauntlet, size, komi, max_moves, out_dir, anchor, prior,
               referee, seed, workers, scheduler):
    """Round robin (or gauntlet) between PLAYERS, then Elo ratings.

    Each player is [NAME=]SPEC: policy:FILE (the policy played directly), mc1:FILE[:N] (one-ply
    Monte-Carlo, N=100 playouts per move), mcts:FILE[:PLAYOUTS] (the engine), gnugo[:LEVEL],
    fuego[:GAMES|:SECONDSs] (one thread, book on), or a GTP command line.  FILE is a weight file, uniform, handcrafted or rules.  Results, SGFs and
    ratings (Markdown, JSON, PNG) go to --out; running again resumes.  The ratings use every
    game in --out between PLAYERS, also those of other schedules (gauntlets, other --games)."""
    from engine.lab.match import MatchConfig
    from engine.lab.tournament import default_referee, report, run_tournament

    specs = _tournament_specs(players, size)
    for name, label in ((gauntlet, "--gauntlet"), (anchor, "--anchor")):
        if name is not None and name not in specs:
            raise click.BadParameter(f"{name!r} is not a player ({', '.join(specs)})", param_hint=label)
    referee_cmd = (default_referee() if referee == "gnugo" else None if referee == "none"
                   else referee)
    try:
        with ProgressBar("game") as bar, cluster_for(workers, scheduler, stderr) as cluster:
            results = run_tournament(specs, out_dir,
                                     MatchConfig(size=size, komi=komi, max_moves=max_moves),
                                     games, gauntlet, cluster, referee_cmd, seed, bar)
    except ValueError as e:      # a corrupt results file or a clashing player record
        raise click.ClickException(str(e)) from None
    try:
        text = report(results, list(specs), out_dir, anchor, prior,
                      title=f"Tournament {size}x{size}, komi {komi:g}")
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(text)


def _tournament_specs(players, size):
    """{name: spec} of the PLAYERS arguments, each checked before any game starts."""
    from engine.lab.players import check_spec, split_name

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
    return specs


@click.command()
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

    with bar, ThreadPoolExecutor(parallel) as pool:
        results = list(pool.map(one, range(len(suites))))
    click.echo(to_markdown(results, engine_cmd))
    for r in results:
        for error in r.setup_errors[:5]:
            click.echo(f"{Path(r.file).name}: {error}", err=True)
    if json_path:
        Path(json_path).write_text(json.dumps({"engine": engine_cmd,
                                               "suites": [asdict(r) for r in results]}, indent=2) + "\n")


@click.command()
@click.argument("positions", type=click.Path(exists=True, dir_okay=False))
@click.argument("engines", nargs=-1, required=True)
@click.option("--names", default=None,
              help="Comma-separated labels for the engines (default: E1,E2,...).")
@click.option("--max-moves", default=30, show_default=True, type=click.IntRange(0),
              help="Keep the positions with fewer moves played (0: all).")
@click.option("--limit", default=200, show_default=True, type=click.IntRange(0),
              help="At most this many positions, the file's first (0: all).")
@click.option("--out", "out_dir", default="runs/agreement", show_default=True,
              type=click.Path(file_okay=False), help="Folder for answers.jsonl and summary.json.")
def agreement(positions, engines, names, max_moves, limit, out_dir):
    """How often ENGINES choose the same move in the POSITIONS of a position file: each one's
    agreement with the file's expert moves, with each other, and its share of moves on lines
    1-2.  ENGINES are GTP command lines, or gnugo[:LEVEL] and fuego[:GAMES|:SECONDSs]; each is
    asked with reg_genmove (genmove then undo if it lacks it)."""
    from engine.gtp.client import EngineFailure
    from engine.lab.agreement import opening_positions, run_agreement, table
    from policies.data.files import DataFileError

    try:
        chosen = opening_positions(positions, max_moves or None, limit or None)
    except DataFileError as e:
        raise click.ClickException(str(e)) from None
    if not chosen:
        raise click.ClickException(f"{positions}: no position with fewer than {max_moves} moves")
    labels = _engine_labels(names, len(engines))
    commands = dict(zip(labels, _gtp_commands(engines, chosen[0].size, "ENGINES")))
    try:
        with ProgressBar("move") as bar:
            report = run_agreement(chosen, commands, out_dir, bar)
    except EngineFailure as e:
        raise click.ClickException(f"engine failed: {e}") from None
    click.echo(table(report))


def _engine_labels(names, count):
    """The --names labels, one per engine and all different (E1, E2, ... without --names)."""
    labels = names.split(",") if names else [f"E{k + 1}" for k in range(count)]
    if len(labels) != count or len(set(labels)) != count or not all(labels):
        raise click.BadParameter(f"expected {count} different names, got {names!r}",
                                 param_hint="--names")
    return labels


def _gtp_commands(specs, size, hint):
    """The GTP command line of each engine spec (a command line, or gnugo[:LEVEL] /
    fuego[:...], checked for the board size first)."""
    from engine.lab.players import check_spec, gtp_command

    commands = []
    for spec in specs:
        kind = spec.partition(":")[0]
        if kind in ("policy", "mc1", "mcts"):   # in-process players speak no GTP of their own
            raise click.BadParameter(f"{spec!r}: give a GTP command line (e.g. "
                                     "\"python gtp_main.py --playouts 1000\")",
                                     param_hint=hint)
        try:
            if kind in ("gnugo", "fuego"):
                check_spec(spec, size)
            commands.append(gtp_command(spec))
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint=hint) from None
    return commands
