"""Labels and expert moves for position files: V-hat(s) by a deep search of our own engine or
by an external GTP engine, expert moves from a strong engine's genmove, and depth-2 trees
(every candidate move and reply, each position two plies ahead labelled) for two-step
simulation balancing.

All of them go through `run_over_file`: every position is a work unit on a cluster
(engine/parallel/cluster.py: this process, local Dask worker processes or a remote Dask cluster), each
worker process keeps its own engine across units, every finished position is appended to the
output as it arrives, and a run started again skips the ids already there; the finished file
is rewritten in the input's order with its sidecar record (policies/data/files.py).  Each position's
random seed comes from the run's seed and the position's id, so results do not depend on the
order, the number of workers, or a worker that died and had its positions run again.

Our own label (`SearchLabeller`) is the win rate for Black of the most visited move at the
root of an `engine.play.player.Engine` search: the move the search would play, whose value is the
search's best estimate of the minimax value (the root's mean would mix in the exploration of
weaker moves).
"""
import math
import time
import zlib
from functools import partial

import numpy as np

from engine.core import moves
from engine.core.board import BLACK, M_SIZE, PASS, area_score, copy_board, play
from engine.core.coords import parse_vertex
from engine.core.rng import make_rng
from engine.gtp import fuego
from engine.gtp.client import EngineFailure, GtpClient, gnugo_command
from engine.parallel.cluster import InProcess, close_cached, drop_cached, value_key, worker_cache
from engine.play.game import IllegalMove
from engine.play.player import Engine, Settings
from engine.search import mcts as search
from engine.search import tree as tree_mod
from engine.search.params import default_params
from policies.data.evaluate import mc_values
from policies.data.files import (COLOUR, Appender, DataFileError, game_over, position_board,
                                 read_meta, read_positions, vertex, write_meta)
from policies.loader import load_policy

GNUGO = gnugo_command()   # the expert of `simbal data experts`
DIGITS = 4          # labels are written rounded: their noise is ~0.01
SCORE_SCALE = 2.0   # points: an oracle's score estimate m maps to P(Black wins) = 1/(1+e^(-m/2))


def position_seed(seed, pid, path=""):
    """A seed for one search, from the run's seed, the position id and the moves below it."""
    return zlib.crc32(f"{seed}|{pid}|{path}".encode()) + (seed << 32)


def candidates(b, c):
    """The softmax policies' candidate moves (engine.core.moves), or [PASS] when there is none:
    a depth-2 tree gives every position at least one child."""
    return moves.candidates(b, c) or [PASS]


def terminal_value(b, komi):
    """1.0 if Black wins the finished position `b` by area score, else 0.0."""
    owner = np.zeros(b.color.shape[0], np.int8)
    return 1.0 if area_score(b, owner) > komi else 0.0


class SearchLabeller:
    """V-hat(s) by our own engine: `playouts` simulations of the tree search with the playout
    policy `weights`, one thread (a cluster runs one labeller per worker process)."""

    def __init__(self, playouts, weights="uniform", seed=0):
        self.playouts, self.weights, self.seed = playouts, weights, seed

    def settings(self):
        return {"labeller": "simbal-search", "playouts": self.playouts, "weights": self.weights,
                "seed": self.seed, "value": "win rate of the most visited root move"}

    def value(self, pos):
        """(value_black, simulations) of `pos`."""
        engine = Engine(pos.size, pos.komi,
                        Settings(playouts=self.playouts, seed=position_seed(self.seed, pos.id),
                                 threads=1, resign=0.0, max_nodes=2 * self.playouts + 4096),
                        weights=self.weights)
        game = engine.game
        try:
            for letter, v in pos.moves:
                game.play(COLOUR[letter], parse_vertex(v, pos.size))
        except IllegalMove:
            # Positional superko broken in the record (the playouts only know simple ko):
            # search the position itself, without its history.
            game.reset(board=position_board(pos)[0])
        colour = COLOUR[pos.to_play]
        if game_over(pos):
            return terminal_value(game.board, pos.komi), 0
        sims = engine.search(colour, total=self.playouts)
        stats = engine.root_stats()
        if not stats:
            return terminal_value(game.board, pos.komi), sims
        winrate = stats[0].winrate
        return (winrate if colour == BLACK else 1.0 - winrate), sims

    def close(self):
        pass


class GtpEngine:
    """An external GTP engine (one process) that positions are set up on."""

    def __init__(self, command):
        self.command = command
        self.client = GtpClient(command)

    def setup(self, pos):
        """Board size, komi and every move of `pos`; DataFileError if the engine refuses one."""
        send = self.client.send
        send(f"boardsize {pos.size}")
        send("clear_board")
        send(f"komi {pos.komi:g}")
        for colour, v in pos.moves:
            ok, text = self.client.ask(f"play {colour} {v}")
            if not ok:
                raise DataFileError(f"position {pos.id}: {self.command!r} refused {colour} {v} "
                                    f"({text})")

    def close(self):
        self.client.close()


class GtpOracle(GtpEngine):
    """V-hat(s) by an external GTP engine, with the best value command it offers:
    `uct_value` (Fuego: the root value of the search behind a `genmove`), `lz-genmove_analyze`
    (Leela Zero style: the chosen move's win rate in the last report of the search behind the
    move), else a score estimate (`estimate_score`, GnuGo; or `final_score`) mapped to a
    probability by 1/(1 + exp(-margin / SCORE_SCALE)): a deterministic engine's margin is not a
    probability, so this one is an approximation (policies/DATA.md)."""

    def __init__(self, command):
        super().__init__(command)
        known = set(self.client.send("list_commands").split())
        self.method = next((m for m in ("uct_value", "lz-genmove_analyze", "estimate_score",
                                        "final_score") if m in known), None)
        if self.method is None:
            self.close()
            raise EngineFailure(f"{command!r} has no value command (uct_value, "
                                "lz-genmove_analyze, estimate_score or final_score)")

    def settings(self):
        return {"labeller": "gtp", "command": self.command, "method": self.method,
                "score_scale": SCORE_SCALE}

    def value(self, pos):
        """P(Black wins) at `pos` by the engine's value command."""
        self.setup(pos)
        colour = pos.to_play
        if self.method == "uct_value":
            self.client.send(f"genmove {colour}")
            v = float(self.client.send("uct_value"))
            return v if colour == "B" else 1.0 - v
        if self.method == "lz-genmove_analyze":
            text = self.client.send(f"lz-genmove_analyze {colour} 1")
            infos = [line for line in text.splitlines() if line.startswith("info")]
            if not infos:
                raise EngineFailure(f"{self.command!r}: lz-genmove_analyze gave no win rate")
            words = infos[-1].split()
            v = int(words[words.index("winrate") + 1]) / 10000.0
            return v if colour == "B" else 1.0 - v
        text = self.client.send(self.method).split()[0].upper()   # "B+3.5 (...)", "W+2", "0"
        margin = 0.0 if text == "0" else float(text[2:]) * (1 if text[0] == "B" else -1)
        return 1.0 / (1.0 + math.exp(-margin / SCORE_SCALE))


class FuegoOracle(GtpOracle):
    """V-hat(s) the paper's way: the root value of one `games`-game Fuego 1.1 search
    (engine/gtp/fuego.py: one thread, no book, no mercy rule, no score or length bonus, no
    early stop, simple ko), seeded per position from the run's seed and the position's id,
    so a label does not depend on the order or the worker.  Also the leaves of depth-2 trees
    (`value` on a position plus the line of moves below it).  With `tree=False`, the mean of
    `games` of Fuego's playouts from the position instead (`--oracle fuego-playouts`)."""

    def __init__(self, games=10000, seed=0, tree=True):
        self.games, self.seed, self.tree = games, seed, tree
        super().__init__(fuego.oracle_command(games, tree))
        self.version = self.client.send("version").strip()
        self.size = None

    @staticmethod
    def describe(games, seed, tree=True):
        return {"labeller": "fuego" if tree else "fuego-playouts", "games": games,
                "seed": seed, "gtp_settings": list(fuego.oracle_settings(games, tree)),
                "value": ("uct_value after genmove, from Black's view" if tree else
                          "the mean of the playouts (uct_value, no tree), from Black's view")}

    def settings(self):
        return self.describe(self.games, self.seed, self.tree)

    def setup(self, pos, line=(), path=""):
        """`pos` and the moves of `line` (points, alternating from pos.to_play), then the
        search's seed (from the position and `path`, the line's name)."""
        super().setup(pos)
        if pos.size != self.size:   # Fuego reset its search settings to the new size's
            for setting in fuego.search_settings(fuego.oracle_settings(self.games, self.tree)):
                self.client.send(setting)
            self.size = pos.size
        colour = pos.to_play
        for p in line:
            ok, text = self.client.ask(f"play {colour} {vertex(p, pos.size)}")
            if not ok:
                raise DataFileError(f"position {pos.id}: Fuego refused {colour} "
                                    f"{vertex(p, pos.size)} ({text})")
            colour = "W" if colour == "B" else "B"
        self.client.send(f"set_random_seed {self.fuego_seed(pos, path)}")
        return colour

    def fuego_seed(self, pos, path=""):
        return position_seed(self.seed, pos.id, path) % 2**31

    def record(self, pos):
        """The label's provenance in the position (the shared Fuego-labelled sets' form)."""
        record = {"oracle": f"fuego-{self.version}", "games": self.games,
                  "fuego_seed": self.fuego_seed(pos)}
        return record if self.tree else dict(record, tree=False)

    def value(self, pos, line=(), path=""):
        """P(Black wins) after `pos` and `line`."""
        colour = self.setup(pos, line, path)
        self.client.send(f"genmove {colour}")
        v = float(self.client.send("uct_value"))
        return v if colour == "B" else 1.0 - v

    def leaf_value(self, pos, b, colour, line, path):
        """A depth-2 tree's leaf (LeafSearch's interface): Fuego replays `line` itself."""
        return self.value(pos, line, path)



def label_one(labeller, pos):
    """`pos` with its label (value_black); for our search also the simulations ("playouts")."""
    if isinstance(labeller, SearchLabeller):
        v, sims = labeller.value(pos)
        pos.extra["playouts"] = sims
    elif game_over(pos):
        v = terminal_value(position_board(pos)[0], pos.komi)
    else:
        v = labeller.value(pos)
        if isinstance(labeller, FuegoOracle):
            pos.extra["label"] = labeller.record(pos)
    pos.value_black = round(float(v), DIGITS)
    return pos


class Expert(GtpEngine):
    """Expert moves from a GTP engine's genmove (default GnuGo level 10)."""

    def move(self, pos):
        """`pos` with the engine's move as its expert move; none if it resigns (GnuGo does when
        it sees all its stones dead: a quarter of random 5x5 positions at komi 24.5, whatever
        the komi; with --never-resign it passes there instead)."""
        self.setup(pos)
        answer = self.client.send(f"genmove {pos.to_play}").strip().lower()
        if answer != "resign":
            pos.expert = vertex(parse_vertex(answer, pos.size), pos.size)
        return pos


class LeafSearch:
    """The small searches behind depth-2 trees: the engine's compiled tree search
    (engine.search.mcts.run, default parameters, policy `weights`) on one reusable tree, called
    directly.  Engine.search would add a thread start, a game replay and a tree per call,
    which for a few hundred simulations cost more than the search itself (a tree has ~200
    leaves on 5x5).  Same value as SearchLabeller: the most visited root move's win rate;
    positional superko is not checked, as in the playouts and the policies' candidates."""

    def __init__(self, playouts, weights="uniform", seed=0):
        self.playouts, self.weights, self.seed = playouts, weights, seed
        self.size = None

    def settings(self):
        return {"labeller": "simbal-search (compiled, no superko)", "playouts": self.playouts,
                "weights": self.weights, "seed": self.seed,
                "value": "win rate of the most visited root move"}

    def value(self, b, colour, komi, seed):
        """P(Black wins) of board `b` with `colour` to play."""
        size = int(b.meta[M_SIZE])
        if size != self.size:
            points = b.color.shape[0]
            self.tree = tree_mod.new_tree(2 * self.playouts + 4096, points)
            self.exclude = search.unrestricted(points)
            self.policy = load_policy(self.weights, size)
            self.params = default_params()
            self.size = size
        t = self.tree
        tree_mod.clear(t)
        search.run(t, search.Root(b, colour, komi, self.exclude), self.policy, self.policy,
                   self.params, self.playouts, make_rng(seed))
        k = tree_mod.best_child(t, 0)
        if k < 0:
            return terminal_value(b, komi)
        v = t.wins[k] / t.visits[k]   # for the player who made the move: `colour`
        return v if colour == BLACK else 1.0 - v

    def leaf_value(self, pos, b, colour, line, path):
        """P(Black wins) of board `b` (`pos` after the moves of `line`), `colour` to play,
        searched with the seed of the position and `path`."""
        return self.value(b, colour, pos.komi, position_seed(self.seed, pos.id, path))

    def close(self):
        pass


def depth2_tree(leaf, pos):
    """`pos` with "children": for every candidate move of the side to play, its label and
    every candidate reply with the label of the position two plies ahead (LeafSearch or
    FuegoOracle).  A move that ends the game (a second pass) gets the result instead, with the
    one reply "pass" of the same result, so that every line of the tree carries its
    probability.  A position without a label gets one from the same search."""
    b, c = position_board(pos)
    size, komi = pos.size, pos.komi
    if pos.value_black is None:
        v = leaf.leaf_value(pos, b, c, (), "")
        pos.value_black = round(float(v), DIGITS)
    if game_over(pos):
        pos.extra["children"] = []
        return pos
    passed = bool(pos.moves) and pos.moves[-1][1].lower() == "pass"
    children = []
    for a1 in candidates(b, c):
        b1 = copy_board(b)
        play(b1, a1, c)
        if passed and a1 == PASS:
            v = terminal_value(b1, komi)
            children.append({"move": "pass", "value_black": v,
                             "children": [{"move": "pass", "value_black": v}]})
            continue
        v1 = leaf.leaf_value(pos, b1, 3 - c, (a1,), str(a1))
        replies = []
        for a2 in candidates(b1, 3 - c):
            b2 = copy_board(b1)
            play(b2, a2, 3 - c)
            if a1 == PASS and a2 == PASS:
                v2 = terminal_value(b2, komi)
            else:
                v2 = leaf.leaf_value(pos, b2, c, (a1, a2), f"{a1},{a2}")
            replies.append({"move": vertex(a2, size), "value_black": round(float(v2), DIGITS)})
        children.append({"move": vertex(a1, size), "value_black": round(float(v1), DIGITS),
                         "children": replies})
    pos.extra["children"] = children
    return pos


class _Failed:
    """A position given up (its reason), as a unit's result: reported, not fatal."""

    def __init__(self, reason):
        self.reason = reason


def _work_on(pos, make_worker, work):
    """One unit on a cluster worker: `work(worker, pos)` with this process's worker made by
    `make_worker` (kept across units: an engine process, a loaded policy).  A position that
    fails (DataFileError, a bad move from the engine, or an engine failure twice running: the
    engine is restarted once) comes back as _Failed; an engine that cannot even start raises,
    which stops the whole run."""
    key = value_key("labels", make_worker)
    worker = worker_cache(key, make_worker)
    try:
        return work(worker, pos)
    except ValueError as e:          # DataFileError, a move the engine gave that is bad
        return _Failed(str(e))
    except EngineFailure:            # restart the engine once, then give the position up
        drop_cached(key)
        worker = worker_cache(key, make_worker)
        try:
            return work(worker, pos)
        except (ValueError, EngineFailure) as again:
            return _Failed(str(again))


def run_over_file(in_path, out_path, make_worker, work, made_by, cluster=None, progress=None,
                  report=print, limit=None, keep=None):
    """Apply `work(worker, position) -> position` to every position of `in_path` not yet in
    `out_path`, one position a unit on `cluster` (engine.parallel.cluster; default in this process),
    each worker process with its own `make_worker()`, appending results as they arrive.
    A position that fails is reported and left out; `keep(position)`: only the positions it
    accepts; `limit`: only the first of those.  Returns (positions written, failures)."""
    cluster = cluster or InProcess()
    positions = read_positions(in_path)
    if keep is not None:
        positions = [pos for pos in positions if keep(pos)]
    positions = positions[:limit]
    app = Appender(out_path, made_by)
    todo = [pos for pos in positions if pos.id not in app.done]
    total, done0, start = len(positions), len(app.done), time.perf_counter()
    failures = []
    count = done0
    if progress:
        progress(done0, total)
    try:
        for i, result in cluster.run(_work_on, todo, make_worker, work):
            if isinstance(result, _Failed):
                failures.append(todo[i].id)
                report(f"{todo[i].id}: {result.reason}")
            else:
                app.add(result)
            count += 1
            if progress:
                progress(count, total)
    except BaseException:
        app.close()
        raise
    finally:
        cluster.on_workers(close_cached, "labels")
    seconds = time.perf_counter() - start
    app.made_by = dict(made_by, failures=len(failures), seconds_last_run=round(seconds, 1),
                       positions_last_run=count - done0, cluster=cluster.report(),
                       seconds=round(app.earlier.get("seconds", 0) + seconds, 1))
    return app.finish([p.id for p in positions]), failures


def _input_record(path):
    meta = read_meta(path)
    return {"path": str(path), "made_by": meta.get("made_by")} if meta else {"path": str(path)}


def label_file(in_path, out_path, playouts=10000, weights="uniform", oracle=None, seed=0,
               cluster=None, command="", progress=None, report=print):
    """`simbal data label`: every position of `in_path` labelled into `out_path` (resumable)
    by our search (`playouts`, `weights`), by the GTP engine `oracle`, with oracle "fuego"
    by Fuego 1.1 searches of `playouts` games (FuegoOracle), or with "fuego-playouts" by the
    mean of `playouts` of Fuego's playouts."""
    if oracle in ("fuego", "fuego-playouts"):   # the paper's labeller; `playouts` = its games
        tree = oracle == "fuego"
        make = partial(FuegoOracle, playouts, seed, tree)
        settings = FuegoOracle.describe(playouts, seed, tree)
    elif oracle:
        make = partial(GtpOracle, oracle)
        settings = {"labeller": "gtp", "command": oracle, "score_scale": SCORE_SCALE}
    else:
        make = partial(SearchLabeller, playouts, weights, seed)
        settings = make().settings()
    made_by = {"command": command, "step": "label", "settings": settings,
               "input": _input_record(in_path)}
    return run_over_file(in_path, out_path, make, label_one, made_by, cluster, progress, report)


def experts_file(in_path, out_path, engine=GNUGO, cluster=None, command="", progress=None,
                 report=print):
    """`simbal data experts`: the GTP engine's genmove as every position's expert move.  The
    sidecar counts the positions left without one (the engine resigned) and those whose
    expert move is a pass."""
    made_by = {"command": command, "step": "experts", "settings": {"expert": engine},
               "input": _input_record(in_path)}
    written, failures = run_over_file(in_path, out_path, partial(Expert, engine), Expert.move,
                                      made_by, cluster, progress, report)
    meta = read_meta(out_path)
    meta["made_by"]["counts"] = {
        "positions": len(written), "no_expert": sum(p.expert is None for p in written),
        "expert_pass": sum(p.expert == "pass" for p in written)}
    write_meta(out_path, meta["made_by"], len(written))
    return written, failures


# Playouts per position for `depth2_file`'s `biased` filter: enough that their noise (sd 0.016
# at most) is small beside the errors it selects on.
BIAS_SIMS = 1000


def depth2_file(in_path, out_path, playouts=1000, weights="uniform", seed=0, cluster=None,
                command="", progress=None, report=print, limit=None, oracle=None, between=None,
                biased=None):
    """`simbal data depth2`: every position's depth-2 tree, leaves labelled by our search with
    `playouts` simulations each, or (oracle "fuego") by Fuego searches of `playouts` games.
    Only some positions, when asked (unlabelled ones are then refused):
    `between` (lo, hi): those labelled in [lo, hi];
    `biased` e: those whose value under uniform playouts (BIAS_SIMS of them) is at least `e`
    off the label.  The second is the one that picks out the trees that carry two-step
    balancing's objective (BENCHMARKS.md, session 45): on 5x5 random positions, the trees with
    e >= 0.2 are two-fifths of them and hold nine-tenths of uniform's two-step imbalance, while
    the undecided roots (labels within 0.05-0.95) hold only their share of it."""
    wanted = None
    if between is not None or biased is not None:
        positions = read_positions(in_path)
        for pos in positions:
            if pos.value_black is None:
                raise DataFileError(f"{in_path}: position {pos.id} has no label; --between and "
                                    "--biased need labelled positions (simbal data label)")
        keep = np.ones(len(positions), dtype=bool)
        if between is not None:
            lo, hi = between
            if not 0.0 <= lo <= hi <= 1.0:
                raise ValueError(f"between: need 0 <= lo <= hi <= 1, got {lo} and {hi}")
            keep &= np.array([lo <= pos.value_black <= hi for pos in positions])
        if biased is not None:
            if not 0.0 <= biased <= 1.0:
                raise ValueError(f"biased: need 0 <= e <= 1, got {biased}")
            size = positions[0].size
            values = mc_values(positions, load_policy("uniform", size), BIAS_SIMS, seed, cluster)
            labels = np.array([pos.value_black for pos in positions])
            keep &= np.abs(values - labels) >= biased
        wanted = {pos.id for pos, k in zip(positions, keep) if k}
    if oracle == "fuego":
        make = partial(FuegoOracle, playouts, seed)
        leaf_settings = FuegoOracle.describe(playouts, seed)
    elif oracle:
        raise ValueError(f"--oracle {oracle!r}: depth-2 trees know only 'fuego' "
                         "(or our own search, without --oracle)")
    else:
        make = partial(LeafSearch, playouts, weights, seed)
        leaf_settings = LeafSearch(playouts, weights, seed).settings()
    settings = dict(leaf_settings, tree="depth2",
                    moves="legal, not filling own single-point eye; pass only without any")
    if between is not None:
        settings["roots_labelled_between"] = list(between)
    if biased is not None:
        settings["roots_uniform_error_at_least"] = {"error": biased, "playouts": BIAS_SIMS,
                                                    "seed": seed}
    made_by = {"command": command, "step": "depth2", "settings": settings,
               "input": _input_record(in_path)}
    return run_over_file(in_path, out_path, make, depth2_tree, made_by, cluster, progress,
                         report, limit, None if wanted is None else (lambda pos: pos.id in wanted))
