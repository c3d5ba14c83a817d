"""Matches between GTP engines: the controller behind `simbal match`.

Each engine is a subprocess spoken to over GTP (ours, GnuGo, any other).  A
game runs from `clear_board` until two passes in a row, a resignation, or a
move cap; an illegal move, a crash or a lost clock loses the game, with the
error recorded.  Dead stones come from both engines' `final_status_list dead`;
when they disagree a referee engine decides (`--referee`), or else only the
stones both call dead are removed, and the game is marked disputed.  The
score is then our own Tromp-Taylor count (engine/play/game.py).

Results go to a folder: one SGF per game and `results.jsonl`, one line per
game, which is also what makes a match resumable: games already recorded are
not played again.  Games run as units on a cluster (engine/parallel/cluster.py: this process,
local Dask worker processes or a remote Dask cluster), each worker with its own pair of
engine processes kept alive across its games.  `{seed}` in an engine's command line becomes
the number of the first game that process plays, so an engine restarted after a crash (or
by a worker that starts afresh) does not replay an earlier game move for move.
"""
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

from engine.core.board import BLACK, PASS, WHITE
from engine.core.coords import format_vertex, parse_vertex
from engine.gtp.client import EngineFailure, GtpClient
from engine.parallel.cluster import InProcess, close_cached, drop_cached, worker_cache
from engine.play.game import Game, IllegalMove
from engine.play.player import score_text
from engine.play.sgf import to_sgf


@dataclass
class MatchConfig:
    size: int = 9
    komi: float = 7.5
    max_moves: int = 0            # 0: 3 * size * size
    main_time: float = 0.0        # seconds per side; 0 with byo_time 0: no clock
    byo_time: float = 0.0         # a Canadian period's seconds, or a Japanese period's
    byo_stones: int = 0           # stones a Canadian period must hold
    byo_periods: int = 0          # > 0: Japanese byo-yomi with this many periods
    move_timeout: float = 600.0   # a move slower than this loses (hung engine)


def wilson_interval(wins, n, z=1.96):
    """95% score interval for a win rate (draws counted as half wins)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _dead_list(client, size):
    text = client.send("final_status_list dead", timeout=120)
    return {parse_vertex(v, size) for v in text.split()}


# Commands that report an engine's last search, ours and Fuego's; each answers lines of
# `key value`, with simulations and seconds under these keys.
SEARCH_REPORTS = {"simbal-last_search": ("simulations", "seconds"),
                  "uct_stat_search": ("GamesPlayed", "Time")}


def _search_report(client):
    """The command `client` reports its last search with (SEARCH_REPORTS), or None; asked
    once per client process and remembered on it."""
    if not hasattr(client, "search_report"):
        client.search_report = None
        for name in SEARCH_REPORTS:
            try:
                ok, text = client.ask(f"known_command {name}", timeout=60)
            except EngineFailure:
                break
            if ok and text.strip().lower() == "true":
                client.search_report = name
                break
    return client.search_report


def parse_search_report(command, text):
    """(simulations, seconds) from a SEARCH_REPORTS command's answer, or None."""
    sims_key, seconds_key = SEARCH_REPORTS[command]
    fields = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2:
            fields.setdefault(words[0], words[1])
    try:
        return int(fields[sims_key]), float(fields[seconds_key])
    except (KeyError, ValueError):
        return None


def _record_search(client, tally, previous):
    """Add `client`'s last search to `tally` [searched moves, simulations, seconds]; a move
    chosen without a search (0 simulations), or a report the same as the one before (Fuego's
    after a book move repeats its last search), is not counted."""
    command = _search_report(client)
    if command is None:
        return previous
    try:
        ok, text = client.ask(command, timeout=60)
    except EngineFailure:
        return previous
    report = parse_search_report(command, text) if ok else None
    if report and report[0] > 0 and report != previous:
        tally[0] += 1
        tally[1] += report[0]
        tally[2] += report[1]
    return report


def search_summary(results):
    """Per player name, from the results' `search` records: searched moves, simulations a
    move and a second; players that do not report their searches are absent."""
    totals = {}
    for r in results:
        for side, name_key in (("B", "black"), ("W", "white")):
            s = r.get("search", {}).get(side)
            if s:
                t = totals.setdefault(r[name_key], [0, 0, 0.0])
                t[0] += s["moves"]
                t[1] += s["simulations"]
                t[2] += s["seconds"]
    return {name: {"moves": m, "simulations_per_move": sims / m if m else 0.0,
                   "simulations_per_second": sims / secs if secs else 0.0}
            for name, (m, sims, secs) in sorted(totals.items())}


def search_lines(results):
    """search_summary as text lines, one a player (empty when no player reports)."""
    return [f"{name}: {s['simulations_per_move']:.0f} simulations a searched move "
            f"({s['moves']} moves), {s['simulations_per_second']:.0f} a second"
            for name, s in search_summary(results).items()]


def play_game(engines, names, config, referee=None, opening=()):
    """One game; `engines` maps BLACK and WHITE to GtpClients; `opening` lists (colour, point)
    moves played first on every board (a common start for paired games).  Returns a result
    dict and the finished Game."""
    size = config.size
    game = Game(size, config.komi)
    for client in engines.values():
        client.send(f"boardsize {size}")
        client.send("clear_board")
        client.send(f"komi {config.komi:g}")
        if config.main_time or config.byo_time:
            _send_clock(client, config)
    clocks = {c: [config.main_time, config.byo_time,
                  config.byo_periods or config.byo_stones, False] for c in engines}
    timed = bool(config.main_time or config.byo_time)
    cap = config.max_moves or 3 * size * size
    result = {"black": names[BLACK], "white": names[WHITE], "moves": 0}
    searches = {c: [0, 0, 0.0] for c in engines}   # searched moves, simulations, seconds
    last_report = {c: None for c in engines}
    colour, passes = BLACK, 0
    for colour, p in opening:
        game.play(colour, p)
        for client in engines.values():
            client.send(f"play {'b' if colour == BLACK else 'w'} {format_vertex(p, size)}")
        colour = BLACK + WHITE - colour
    while True:
        if len(game.moves) >= cap:
            result["end"] = "move cap"
            break
        mover, other = engines[colour], engines[BLACK + WHITE - colour]
        letter = "b" if colour == BLACK else "w"
        try:
            if timed:
                main, byo, stones, in_byo = clocks[colour]
                mover.send(f"time_left {letter} {max(byo if in_byo else main, 0):.0f} "
                           f"{stones if in_byo else 0}")
            start = time.monotonic()
            answer = mover.send(f"genmove {letter}", timeout=config.move_timeout).lower()
            used = time.monotonic() - start
        except EngineFailure as e:
            return _forfeit(result, game, colour, f"{names[colour]}: {e}"), game
        if timed and _spend(clocks[colour], used, config):
            return _forfeit(result, game, colour, f"{names[colour]} lost on time"), game
        last_report[colour] = _record_search(mover, searches[colour], last_report[colour])
        if answer == "resign":
            result["end"] = "resign"
            result["winner"] = "W" if colour == BLACK else "B"
            break
        try:
            p = parse_vertex(answer, size)
            game.play(colour, p)
        except (ValueError, IllegalMove) as e:
            return _forfeit(result, game, colour, f"{names[colour]} played {answer!r}: {e}"), game
        try:
            other.send(f"play {letter} {answer}")
        except EngineFailure as e:
            return _forfeit(result, game, BLACK + WHITE - colour, f"{names[BLACK + WHITE - colour]}: {e}"), game
        passes = passes + 1 if p == PASS else 0
        colour = BLACK + WHITE - colour
        if passes >= 2:
            result["end"] = "passes"
            break
    result["moves"] = len(game.moves)
    reported = {("B" if c == BLACK else "W"): {"moves": m, "simulations": sims,
                                                 "seconds": round(secs, 3)}
                for c, (m, sims, secs) in searches.items() if m}
    if reported:   # each side's searches: a slow machine or a starved engine shows here
        result["search"] = reported
    if timed:  # what each side had left: how close the game came to a loss on time
        result["clock_left"] = {("B" if c == BLACK else "W"): _clock_text(clocks[c], config)
                                for c in engines}
    if result.get("end") != "resign":
        result.update(_score(game, engines, referee, size))
    return result, game


def _clock_text(clock, config):
    main, byo, left, in_byo = clock
    if not in_byo:
        return f"{main:.1f} s main time"
    unit = "periods" if config.byo_periods else "stones"
    return f"byo-yomi, {byo:.1f} s and {left} {unit}"


def _send_clock(client, config):
    """The clock's settings to one engine.  Japanese byo-yomi goes as `kgs-time_settings
    byoyomi` to an engine that knows it, else (as kgsGtp does) as a Canadian period of one
    stone: the same limit on every move, without the count of periods."""
    main, byo = f"{config.main_time:g}", f"{config.byo_time:g}"
    if not config.byo_periods:
        client.send(f"time_settings {main} {byo} {config.byo_stones}")
    elif client.send("known_command kgs-time_settings").strip() == "true":
        client.send(f"kgs-time_settings byoyomi {main} {byo} {config.byo_periods}")
    else:
        client.send(f"time_settings {main} {byo} 1")


def _spend(clock, used, config):
    """Charge `used` seconds to a [main, byo, stones_left, in_byo] clock (with Japanese
    byo-yomi the third is the periods left); True if it ran out."""
    if config.byo_periods:
        return _spend_japanese(clock, used, config)
    main, byo, stones, in_byo = clock
    if not in_byo:
        main -= used
        if main >= 0:
            clock[0] = main
            return False
        if config.byo_time <= 0:
            return True
        clock[0], clock[3] = 0.0, True
        used, byo, stones = -main, config.byo_time, config.byo_stones
    byo -= used
    if byo < 0:
        return True
    stones -= 1
    if stones <= 0:
        byo, stones = config.byo_time, config.byo_stones
    clock[1], clock[2] = byo, stones
    return False


def _spend_japanese(clock, used, config):
    """Japanese byo-yomi: after the main time, a move within one period costs nothing; each
    whole period a move overruns uses one up; the clock runs out with the last period."""
    main, _, periods, in_byo = clock
    if not in_byo:
        if main - used >= 0:
            clock[0] = main - used
            return False
        clock[0], clock[3] = 0.0, True
        used = used - main
    periods -= max(math.ceil(used / config.byo_time) - 1, 0)  # whole periods overrun
    clock[1], clock[2] = config.byo_time, periods
    return periods <= 0


def _forfeit(result, game, loser, error):
    result.update(winner="W" if loser == BLACK else "B", end="forfeit", error=error,
                  moves=len(game.moves))
    return result


def _score(game, engines, referee, size):
    """Dead stones by agreement (or referee), then our Tromp-Taylor count."""
    try:
        lists = [_dead_list(engines[c], size) for c in (BLACK, WHITE)]
    except EngineFailure as e:
        lists, error = [set(), set()], str(e)
    else:
        error = None
    disputed = lists[0] != lists[1]
    if disputed and referee is not None:
        referee.send(f"boardsize {size}")
        referee.send("clear_board")
        referee.send(f"komi {game.komi:g}")
        for colour, p in game.moves:
            referee.send(f"play {'b' if colour == BLACK else 'w'} {format_vertex(p, size)}")
        dead = _dead_list(referee, size)
    else:
        dead = lists[0] & lists[1]
    margin = game.score(dead)
    out = {"score": margin, "winner": "B" if margin > 0 else "W" if margin < 0 else "0",
           "dead": sorted(format_vertex(p, size) for p in dead), "disputed": disputed}
    if error:
        out["error"] = error
    return out


def _clients_key(cmd_a, cmd_b, referee_cmd):
    return ("match", cmd_a, cmd_b, referee_cmd)


class _Clients:
    """The two engines of a match (and its referee), kept by a worker across its games."""

    def __init__(self, cmd_a, cmd_b, referee_cmd):
        self.a = self.b = self.referee = None
        try:
            self.a = GtpClient(cmd_a)
            self.b = GtpClient(cmd_b)
            self.referee = GtpClient(referee_cmd) if referee_cmd else None
        except EngineFailure:
            self.close()
            raise

    def close(self):
        for c in (self.a, self.b, self.referee):
            if c:
                c.close()


def seeded(cmd, game):
    """`cmd` with `{seed}` replaced by the number of the game its process starts with."""
    return cmd.replace("{seed}", str(game))


def play_one(i, cmd_a, cmd_b, referee_cmd, config, names):
    """One work unit: game `i` of a match (A is Black when i is even) on this worker's pair of
    engines; (result dict, SGF bytes or None).  An engine that failed is dropped, so the next
    game starts afresh; one that cannot even start loses this game only."""
    key = _clients_key(cmd_a, cmd_b, referee_cmd)
    black_is_a = i % 2 == 0
    game = None
    try:
        clients = worker_cache(key, lambda: _Clients(seeded(cmd_a, i), seeded(cmd_b, i),
                                                     referee_cmd))
        engines = ({BLACK: clients.a, WHITE: clients.b} if black_is_a
                   else {BLACK: clients.b, WHITE: clients.a})
        labels = ({BLACK: names[0], WHITE: names[1]} if black_is_a
                  else {BLACK: names[1], WHITE: names[0]})
        result, game = play_game(engines, labels, config, clients.referee)
        if result.get("error"):
            drop_cached(key)  # an engine failed (maybe died): the next game starts afresh
    except EngineFailure as e:
        result = {"error": str(e), "winner": None, "end": "failed"}
        drop_cached(key)
    result["game"] = i
    result["a_colour"] = "B" if black_is_a else "W"
    result["a_wins"] = (None if result.get("winner") is None else
                        0.5 if result["winner"] == "0" else
                        float(result["winner"] == result["a_colour"]))
    sgf = None
    if game is not None:
        sgf = to_sgf(game, result=result_text(result), black_name=result.get("black"),
                     white_name=result.get("white"))
    return result, sgf


def run_match(cmd_a, cmd_b, games, out_dir, config, referee_cmd=None, cluster=None,
              progress=None, names=("A", "B")):
    """Play `games` games between two engine command lines, alternating colours (A is
    Black in even-numbered games), skipping games already in `out_dir/results.jsonl`; one
    game a unit on `cluster` (engine.parallel.cluster; default this process), each worker keeping its
    engine processes across its games.  Returns every result (old and new)."""
    out = Path(out_dir)
    (out / "games").mkdir(parents=True, exist_ok=True)
    results_path = out / "results.jsonl"
    done = {r["game"]: r for r in read_results(results_path, repair=True)}
    todo = [i for i in range(games) if i not in done]
    cluster = cluster or InProcess()
    if progress:
        progress(len(done), games)
    try:
        for _, (result, sgf) in cluster.run(play_one, todo, cmd_a, cmd_b, referee_cmd, config,
                                            tuple(names)):
            i = result["game"]
            if sgf is not None:
                (out / "games" / f"game-{i:04d}.sgf").write_bytes(sgf)
            with results_path.open("a") as f:
                f.write(json.dumps(result) + "\n")
            done[i] = result
            if progress:
                progress(len(done), games)
    finally:
        cluster.on_workers(close_cached, "match")
    return [done[i] for i in sorted(done)]


def read_results(path, repair=False):
    """The result dicts of a results.jsonl file (none if it does not exist); ValueError naming
    the file and line for anything that is not one JSON object per line.  A last line cut off
    by an interrupted run is ignored (its game is simply played again), and with `repair`
    removed from the file so that new lines can be appended."""
    path = Path(path)
    if not path.exists():
        return []
    text = path.read_text()
    lines = text.splitlines()
    out = []
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            if not isinstance(r, dict) or "game" not in r:
                raise ValueError("not a game result")
        except ValueError as e:
            if k == len(lines) and not text.endswith("\n"):
                if repair:
                    path.write_text(text[:len(text) - len(line)])
                break
            raise ValueError(f"{path}, line {k}: corrupt result ({e})") from None
        out.append(r)
    return out


def result_text(result):
    """The SGF RE value of a result dict: B+R, W+F, B+3.5, 0 or ?."""
    winner = result.get("winner")
    if result.get("end") == "resign":
        return f"{winner}+R"
    if result.get("end") == "forfeit":
        return f"{winner}+F"
    if "score" in result:
        return score_text(result["score"])
    return "?"


def summary(results, names=("A", "B")):
    """Win rate of A with its 95% interval, from the decided games."""
    decided = [r["a_wins"] for r in results if r.get("a_wins") is not None]
    n, wins = len(decided), sum(decided)
    low, high = wilson_interval(wins, n)
    return {"a": names[0], "b": names[1], "games": n, "a_wins": wins,
            "a_winrate": wins / n if n else None, "a_winrate_95": [low, high],
            "search": search_summary(results),
            "errors": [r["error"] for r in results if r.get("error")]}
