"""Tournaments: round robins and gauntlets between players (engine/lab/players.py specs), rated.

The schedule gives every pairing the same number of games, rounded up to an even number so
that each player has Black in exactly half of them (the first-named player of a pairing is
Black in even rounds); rounds are interleaved across pairings so that a tournament stopped
early is still balanced.  Games run in batches of a few (`BATCH_GAMES`, saved as each ends)
on a cluster (engine/parallel/cluster.py: local Dask worker processes, a remote Dask cluster,
or this process); each worker process keeps its players alive across games.  Every game's
seed is derived from `--seed` and the game's identity, so results do not depend on which
worker played it.

Games are played by match.play_game: two passes, a resignation or the move cap end them;
dead stones are those both players list (policy players list none: they play to the end);
when the lists differ a referee decides, by default GnuGo (started only if a dispute
arises), and the area count with komi gives the winner.

One folder may hold several schedules between the same players (say a cheap round robin at
many games per pairing, a costlier one at fewer, and gauntlets): a run rates every game in the
folder between the players it names, not only its own schedule's, and `--games 0` plays
nothing and just rates them.

A game that failed (an engine could not be started or died, so nobody won) is recorded with
its error and played again when the tournament is resumed.

Folder: results.jsonl (one line per game, keyed `A vs B #k`; what makes it resumable),
games/*.sgf, tournament.json (the players and settings; resuming with a name bound to another
spec is refused), and the ratings (engine/lab/ratings.py) as ratings.md / .json / .png plus
pairs.json, the head-to-head scores with Wilson intervals.
"""
import json
import os
import re
from pathlib import Path

from engine.core.board import BLACK, WHITE
from engine.gtp.client import EngineFailure, GtpClient
from engine.lab import ratings as ratings_mod
from engine.lab.match import (play_game, read_results, result_text, search_lines,
                              wilson_interval)
from engine.lab.players import game_seed, gnugo_command, make_player
from engine.parallel.cluster import InProcess, close_cached, drop_cached, split, worker_cache
from engine.play.sgf import to_sgf

BATCH_GAMES = 4   # games a work unit at most (run_tournament)


class LazyClient:
    """A GTP engine started only when first asked something (the referee, rarely needed)."""

    def __init__(self, command):
        self.command = command
        self.client = None

    def send(self, command, timeout=None):
        if self.client is None:
            self.client = GtpClient(self.command)
        return self.client.send(command, timeout)

    def close(self):
        if self.client is not None:
            self.client.close()
            self.client = None


def schedule(names, games_per_pair, gauntlet=None):
    """[(key, a, b, k)]: round k of pairing (a, b), a Black when k is even.  Round robin over
    `names`, or `gauntlet` (a name) against each of the others."""
    if gauntlet is not None:
        pairs = [(gauntlet, n) for n in names if n != gauntlet]
    else:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    rounds = games_per_pair + games_per_pair % 2
    return [(f"{a} vs {b} #{k}", a, b, k) for k in range(rounds) for a, b in pairs]


# -- worker side --------------------------------------------------------------------------------

def _key(name, spec, config):
    return ("tournament", name, spec, config.size, config.komi)


def _player(name, spec, config):
    return worker_cache(_key(name, spec, config),
                        lambda: make_player(spec, config.size, config.komi))


def play_batch(tasks, specs, config, referee_cmd, seed):
    """Play `tasks` (from `schedule`); [(result dict, SGF bytes or None)] in order."""
    referee = LazyClient(referee_cmd) if referee_cmd else None
    out = []
    try:
        for key, a, b, k in tasks:
            names = {BLACK: a, WHITE: b} if k % 2 == 0 else {BLACK: b, WHITE: a}
            game = None
            try:
                clients = {c: _player(n, specs[n], config) for c, n in names.items()}
                for colour, client in clients.items():
                    if hasattr(client, "new_game"):
                        client.new_game(game_seed(seed, key, colour))
                result, game = play_game(clients, names, config, referee)
            except EngineFailure as e:
                result = {"black": names[BLACK], "white": names[WHITE], "winner": None,
                          "end": "failed", "error": str(e)}
            if result.get("error"):   # a GTP engine may have died: start afresh next game
                for n in names.values():
                    drop_cached(_key(n, specs[n], config))
            result.update(game=key, a=a, b=b, round=k)
            sgf = None
            if game is not None:
                sgf = to_sgf(game, result=result_text(result), black_name=names[BLACK],
                             white_name=names[WHITE])
            out.append((result, sgf))
    finally:
        if referee is not None:
            referee.close()
    return out


# -- controller side ----------------------------------------------------------------------------

def _safe(text):
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text)


def _check_players(out, specs, config):
    """Record the players and settings; refuse to resume with a name bound to another spec."""
    path = out / "tournament.json"
    old = {}
    if path.exists():
        try:
            doc = json.loads(path.read_text())
            old = doc["players"]
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{path}: not a tournament record") from None
        if (doc.get("size"), doc.get("komi")) != (config.size, config.komi):
            raise ValueError(f"{path}: this tournament was played on {doc.get('size')}x"
                             f"{doc.get('size')} with komi {doc.get('komi')}")
        for name, spec in specs.items():
            if name in old and old[name] != spec:
                raise ValueError(f"{path}: player {name!r} was {old[name]!r}, not {spec!r} "
                                 "(give the new one another name: NAME=SPEC)")
    doc = {"players": {**old, **specs}, "size": config.size, "komi": config.komi,
           "max_moves": config.max_moves}
    path.write_text(json.dumps(doc, indent=2) + "\n")


def run_tournament(specs, out_dir, config, games_per_pair, gauntlet=None, cluster=None,
                   referee_cmd=None, seed=0, progress=None):
    """Play the schedule's games not yet in out_dir/results.jsonl on `cluster`
    (engine.parallel.cluster; default this process).  `specs`: {name: spec} in order.  Returns every
    result (old and new) of this schedule, then the folder's other games between these players
    (other schedules: see the module docstring)."""
    out = Path(out_dir)
    (out / "games").mkdir(parents=True, exist_ok=True)
    _check_players(out, specs, config)
    results_path = out / "results.jsonl"
    # A failed game (an engine that could not start or died: no winner) is played again, so
    # that fixing an install and rerunning completes the schedule; its line stays as history.
    done = {r["game"]: r for r in read_results(results_path, repair=True)
            if r.get("end") != "failed"}
    plan = schedule(list(specs), games_per_pair, gauntlet)
    todo = [t for t in plan if t[0] not in done]
    cluster = cluster or InProcess()
    # Games are saved a batch at a time, so a batch is what a stopped run loses and how far
    # the progress bar jumps: a few games, not 50 (an hour at 1 s a move).  A worker keeps
    # its players across batches (worker_cache), so small batches cost a task each, no more.
    batches = split(todo, cluster.slots, most=BATCH_GAMES)
    count = [len(plan) - len(todo)]
    if progress:
        progress(count[0], len(plan))

    def record(items):
        with results_path.open("a") as f:
            for result, sgf in items:
                if sgf is not None:
                    (out / "games" / f"{_safe(result['game'])}.sgf").write_bytes(sgf)
                f.write(json.dumps(result) + "\n")
                done[result["game"]] = result
        count[0] += len(items)
        if progress:
            progress(count[0], len(plan))

    try:
        for _, items in cluster.run(play_batch, batches, specs, config, referee_cmd, seed):
            record(items)
    finally:
        cluster.on_workers(close_cached, "tournament")
    planned = {key for key, *_ in plan}
    others = [r for key, r in done.items() if key not in planned
              and r.get("a") in specs and r.get("b") in specs]
    return [done[key] for key, *_ in plan if key in done] + others


def rated_games(results):
    """(black, white, Black's score) of every decided game."""
    score = {"B": 1.0, "W": 0.0, "0": 0.5}
    return [(r["black"], r["white"], score[r["winner"]]) for r in results
            if r.get("winner") in score]


def pair_scores(results):
    """Head-to-head: per pairing, A's points, games and 95% Wilson interval of A's score."""
    pairs = {}
    for black, white, s in rated_games(results):
        a, b = sorted((black, white))
        points = s if black == a else 1.0 - s
        entry = pairs.setdefault((a, b), [0.0, 0])
        entry[0] += points
        entry[1] += 1
    return [{"a": a, "b": b, "a_points": p, "games": n, "a_score": p / n,
             "a_score_95": list(wilson_interval(p, n))} for (a, b), (p, n) in sorted(pairs.items())]


def report(results, names, out_dir, anchor=None, prior=1.0, title="Tournament"):
    """Rate the results, save ratings.{md,json,png} and pairs.json; returns the Markdown."""
    anchor = anchor or names[0]
    table = ratings_mod.fit(rated_games(results), anchor=anchor, prior=prior, players=names)
    text = ratings_mod.save(table, out_dir, anchor, title)
    pairs = pair_scores(results)
    (Path(out_dir) / "pairs.json").write_text(json.dumps(pairs, indent=2) + "\n")
    errors = [r for r in results if r.get("error")]
    lines = [text, "| pairing | score | 95% interval |", "|---|---:|---|"]
    for p in pairs:
        low, high = p["a_score_95"]
        lines.append(f"| {p['a']} vs {p['b']} | {p['a_points']:g}/{p['games']} "
                     f"| {100 * low:.0f}-{100 * high:.0f}% |")
    searched = search_lines(results)
    if searched:
        lines += ["", "Simulations a searched move (for the players that report them):", ""]
        lines += [f"- {line}" for line in searched]
    if errors:
        lines.append(f"\n{len(errors)} games with errors (forfeits or engines that failed), "
                     f"e.g. {errors[0]['error']}")
    return "\n".join(lines) + "\n"


def default_referee():
    """GnuGo's command line when it is installed (the referee of disputed dead stones)."""
    command = gnugo_command()
    path = command.split()[0]
    return command if os.path.isfile(path) and os.access(path, os.X_OK) else None

