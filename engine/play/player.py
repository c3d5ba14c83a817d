"""The player: decides moves and judges finished games for one `Game`.

`Engine` holds the game record, the playout policy, the search parameters, the
clocks and one search tree per thread (root parallelism: the threads search
independent trees of the same position and their root statistics are summed,
so results stay reproducible for a seed and a playout count).  It offers what
a GTP front end needs: generate a move, analyse, estimate ownership, list dead /
alive / seki stones, score.  It knows the game but nothing of the protocol
(engine/gtp/ translates).

Trees survive from one move to the next: a new search walks the old tree down
the moves played since and keeps that subtree (engine/search/tree.py `reuse`).  In the
opening, a move the opening book holds for the position (book.py) is played without a search.
"""
import math
import threading
import time
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from engine.core.board import BLACK, M_HASH, M_NEMPTY, PASS, copy_board, play
from engine.core.coords import format_vertex
from engine.core.rng import make_rng
from engine.play.book import default_book_spec, read_book
from engine.play.game import Game, opponent
from engine.play.status import classify
from engine.play.timecontrol import TimeControl
from engine.search import mcts as search
from engine.search import tree as tree_mod
from engine.search.params import Params, default_params, with_params
from engine.tactics.ladders import chain_liberties
from policies import (default_policy_spec, default_prior_spec, default_search_params,
                      default_softmax_spec, load_policy, with_gain)
from policies.kernel import RULES

BATCH = 64                 # simulations per compiled call between clock / stop checks
EARLY_STOP_MIN_SIMS = 256  # simulations before the rate, hence an early stop, is trusted
# A full pool is pruned to the children of nodes with at least this many visits (Fuego 1.1's
# prune_min_count), the threshold doubled until the pruned tree fills at most half the pool.
PRUNE_MIN_VISITS = 16
OWNERSHIP_PLAYOUTS = 400   # playouts behind final_status_list and final_score
RESIGN_AFTER = 0.25        # fraction of the board's points that must be played before resigning


@dataclass
class Settings:
    playouts: int = 5000            # per move, when no clock and no --time
    seconds: float | None = None    # per move, instead of playouts
    threads: int = 1
    seed: int = 0
    max_nodes: int = 1_000_000      # tree nodes, all threads together
    resign: float = 0.1             # resign below this win rate (0: never)
    ponder: bool = False            # think on the opponent's time
    params: Params = field(default_factory=default_params)
    max_move_seconds: float = 30.0  # cap on the time a clock gives one move (1e9 s of main time)
    # `playouts` counts the simulations a reused subtree already holds, as Fuego's max_games
    # does: the search stops once the root has that many (so "equal playouts" against Fuego
    # means equal trees, not Simbal's new simulations on top of the reused ones).
    count_reused: bool = False


@dataclass
class MoveStats:
    move: int
    visits: int
    winrate: float      # for the player to move at the root
    prior: float        # policy probability among the root's children
    pv: list
    score_mean: float = 0.0   # mean final margin of its simulations for the player to move
    score_stdev: float = 0.0  # their standard deviation, in points


RootKey = namedtuple("RootKey", "hash moves colour origin")


def root_key(game, colour):
    """What a tree's root stands for: `game`'s position reached by its moves, `colour` to move.
    The origin (start position, size, komi) counts too: a set-up or re-komied game with the
    same move list is another game."""
    origin = (int(game.initial_board.meta[M_HASH]), game.size, game.scoring_komi)
    return RootKey(game.hash, tuple(game.moves), colour, origin)


class SearchThread:
    """One tree (with a spare pool for reuse) and one random stream."""

    def __init__(self, capacity, board_points):
        self.capacity = capacity
        self.tree = tree_mod.new_tree(capacity, board_points)
        self.space = None  # search.Workspace: what its searches work in, made at the first
        self.spare = None
        self.key = None  # the RootKey the root stands for
        self.sims = 0    # simulations in the tree's ownership counts (since its last clear)
        self.prunes = 0  # times the pool filled and was pruned (since the thread began)

    def sync(self, game, colour, allow_reuse):
        """Make the root stand for `game`'s position with `colour` to move."""
        old, self.key = self.key, root_key(game, colour)
        moves = self.key.moves
        if (allow_reuse and old is not None and old.origin == self.key.origin
                and moves[:len(old.moves)] == old.moves):
            node, expected = 0, old.colour
            for col, mv in moves[len(old.moves):]:
                node = tree_mod.find_child(self.tree, node, mv) if col == expected else -1
                if node < 0:
                    break
                expected = opponent(col)
            if node >= 0 and expected == colour:
                if node != 0:
                    if self.spare is None:
                        self.spare = tree_mod.new_tree(self.capacity, self.tree.owned.shape[1])
                    tree_mod.reuse(self.tree, node, self.spare)
                    self.tree, self.spare = self.spare, self.tree
                    self.sims = 0        # reuse starts the ownership counts afresh
                return
        tree_mod.clear(self.tree)
        self.sims = 0

    def make_room(self):
        """The pool is full: prune the tree into the spare pool (tree.prune), keeping the
        children of nodes with PRUNE_MIN_VISITS visits or more, doubled until at most half
        the pool is in use, so that a long search goes on deepening where it looks."""
        if self.spare is None:
            self.spare = tree_mod.new_tree(self.capacity, self.tree.owned.shape[1])
        least = PRUNE_MIN_VISITS
        while (tree_mod.prune(self.tree, self.spare, least) > self.capacity // 2
               and least <= self.tree.visits[0]):
            least *= 2
        self.tree, self.spare = self.spare, self.tree
        self.prunes += 1


class Engine:
    def __init__(self, size=9, komi=7.5, settings=None, weights=None, log=None, prior=None,
                 book=None):
        self.game = Game(size, komi)
        self.settings = settings or Settings()
        self.weights = None         # the spec in use; None: the best shipped for the size
        self.prior_weights = None   # the tree prior's spec; None: the best shipped for the size
        self._policy = self._prior = None
        self._policy_size = self._prior_size = None
        # Parameters the board size's shipped defaults set (weights/defaults.json "params"),
        # except those given by name (set_param) or already away from the global default.
        base = default_params()
        self._explicit = {name for name, value in self.settings.params._asdict().items()
                          if value != getattr(base, name)}
        self._size_params = set()
        self.load_prior(prior)
        self.load_weights(weights)
        self.load_book(book)
        self.clock = TimeControl()
        self.log = log or (lambda *a: None)
        self._decisions = 0
        self._low_winrate = False   # the previous decision was below the resign threshold
        self.stop = threading.Event()
        self.now = time.perf_counter   # the clock of deadlines (tests give a fake one)
        self.stopped_early = False     # did the last search end before its deadline, decided?
        # The last genmove's (simulations, seconds): (0, 0.0) for a move chosen without a
        # search (a book move, a pass with nothing useful left, restricted_genmove).
        self.last_search = (0, 0.0)

    # -- playout policy ---------------------------------------------------------------------

    def load_weights(self, spec):
        """Use the playout policy `spec` ("uniform", "handcrafted", a weight file; None for the
        best shipped weights of the board size).  On any error (WeightFileError naming the
        file) the policy in use is kept."""
        size = self.game.size
        self._policy = load_policy(spec or default_policy_spec(size), size)
        self._gained = None  # (gain, the policy times it), made when first asked for
        self._status = None  # the status_policy, made when first asked for
        self.weights, self._policy_size = spec, size
        self._apply_size_params(size)
        if self._prior_size != size:
            self.load_prior(self.prior_weights)
        self._threads = []  # trees searched with another policy are not reused

    def load_prior(self, spec):
        """Take the tree's H from the policy `spec` (as load_weights; "playout": the playout
        policy itself; None: the best shipped prior of the board size, else the playout
        policy).  On any error the prior in use is kept."""
        size = self.game.size
        spec_used = spec or default_prior_spec(size)
        self._prior = None if spec_used == "playout" else load_policy(spec_used, size)
        self.prior_weights, self._prior_size = spec, size
        self._threads = []

    def load_book(self, spec):
        """Play from the opening book `spec` (a book file; "none": no book; None: the shipped
        book of the board size, if any).  BookFileError naming the file if it is bad, and the
        book in use is kept."""
        book = None if spec in (None, "none") else read_book(spec)
        self.book_spec, self._book, self._book_size = spec, book, None

    @property
    def book(self):
        """The opening book in use for the current board size, or None."""
        if self.book_spec is None and self._book_size != self.game.size:
            path = default_book_spec(self.game.size)
            self._book, self._book_size = (read_book(path) if path else None), self.game.size
        return self._book

    def book_move(self, colour):
        """The book's move for `colour` here, or None: only in a game from the empty board
        whose size and komi are the book's, and only a legal move (superko checked)."""
        book, g = self.book, self.game
        if (book is None or book.size != g.size or book.komi != g.komi or g.handicap
                or int(g.initial_board.meta[M_NEMPTY]) != g.size * g.size):
            return None
        p = book.move(g.board.color, colour)
        return p if p is not None and g.is_legal(colour, p) else None

    def _follow_board_size(self):
        if self._policy_size != self.game.size:  # boardsize changed: same specs, new size
            self.load_weights(self.weights)      # (which reloads the prior too)

    @property
    def policy(self):
        """The playout policy: the loaded weights times the `playout_gain` parameter."""
        self._follow_board_size()
        gain = self.settings.params.playout_gain
        if self._gained is None or self._gained[0] != gain:
            self._gained = (gain, self._policy if gain == 1.0 else with_gain(self._policy, gain))
        return self._gained[1]

    @property
    def status_policy(self):
        """The playouts behind final_status and ownership: the playout policy, except that the
        rule-based playouts give way to the board size's best softmax (default_softmax_spec).
        The rules never play a self-atari, so a group whose capture starts with one (a
        throw-in, or filling its last outside liberty) stays alive in every playout; the
        softmax plays such moves now and then (BENCHMARKS.md, session 34)."""
        policy = self.policy
        if int(policy.kind) != RULES:
            return policy
        if self._status is None:
            self._status = load_policy(default_softmax_spec(self.game.size), self.game.size)
        return self._status

    @property
    def prior(self):
        """The policy whose move scores are the tree's H (the playout policy's own weights, not
        their gain, when no separate prior is loaded: the gain tunes the playouts alone)."""
        self._follow_board_size()
        return self._policy if self._prior is None else self._prior

    # -- parameters ------------------------------------------------------------------------

    def _apply_size_params(self, size):
        """Take the board size's default parameters (policies.default_search_params) for the
        names not set explicitly; those a previous size set and this one does not go back to
        the global defaults."""
        wanted = default_search_params(size)
        base = default_params()
        values = {name: wanted.get(name, getattr(base, name))
                  for name in (set(wanted) | self._size_params) - self._explicit}
        self._size_params = set(wanted)
        if values:
            self.settings.params = with_params(self.settings.params, **values)

    def set_param(self, name, value):
        """Set a search parameter by name (engine/search/params.py); KeyError if unknown.  A
        parameter set so keeps its value whatever the board size."""
        self._follow_board_size()
        self.settings.params = with_params(self.settings.params, **{name: value})
        self._explicit.add(name)

    def params(self):
        self._follow_board_size()
        return self.settings.params._asdict()

    # -- searching -------------------------------------------------------------------------

    def _searchers(self):
        points = self.game.board.color.shape[0]
        threads = self.settings.threads
        capacity = max(self.settings.max_nodes // threads, 1024)
        if (len(self._threads) != threads or self._threads[0].tree.owned.shape[1] != points
                or self._threads[0].capacity != capacity):
            self._threads = [SearchThread(capacity, points) for _ in range(threads)]
        return self._threads

    def candidates(self, colour):
        """Legal moves that do not fill one's own single-point eye (superko checked)."""
        return self.game.candidates(colour)

    def search(self, colour, deadline=None, total=None, report=None, interval=1.0,
               should_stop=None, allowed=None, deeper=(), full_playouts=False):
        """Search the current position for `colour` until `total` simulations, `deadline`,
        `should_stop()` (polled every 20 ms) or `self.stop`; calls `report()` every
        `interval` seconds meanwhile; with `allowed` (a set of points) the root considers
        only those moves, and `deeper[d - 1]` (a set of points) are kept out of the nodes d
        plies below the root; `full_playouts` plays every playout to its end (no mercy rule),
        for analysis, whose scores and ownership the mercy rule would shrink.  A search with a
        deadline ends early once its move cannot change (`_decided`) if the time saved goes
        to later moves (`time_is_banked`).  Returns the number of simulations run."""
        g = self.game
        params = self.settings.params
        if full_playouts:
            params = params._replace(playout_mercy=0.0)
        policy, prior = self.policy, self.prior  # first: a board-size change renews the trees
        searchers = self._searchers()
        exclude = search.unrestricted(g.board.color.shape[0], 1 + len(deeper))
        b = g.board
        for p in b.empties[:int(b.meta[M_NEMPTY])]:
            if g.illegal_reason(colour, int(p)) == "superko" or (
                    allowed is not None and int(p) not in allowed):
                exclude[0, p] = 1
        for d, points in enumerate(deeper, start=1):
            exclude[d, [p for p in points if p != PASS]] = 1
        root = search.Root(b, colour, g.scoring_komi, exclude)
        self.stopped_early = False
        self._decisions += 1
        base = self.settings.seed * 1_000_003 + self._decisions * 7919
        threads = len(searchers)
        share = None if total is None else -(-total // threads)
        done = [0] * threads
        errors = []

        def work(t, s, rng):
            try:
                while not self.stop.is_set() and (share is None or done[t] < share):
                    n = BATCH if share is None else min(BATCH, share - done[t])
                    search.run_in(s.tree, root, policy, prior, params, n, rng, s.space)
                    if s.tree.meta[tree_mod.T_FULL]:
                        s.make_room()
                    done[t] += n
                    s.sims += n    # now, for the analysis that reads ownership mid-search
                    if deadline is not None and self.now() > deadline:
                        break
            except Exception as e:
                # A thread's exception would otherwise only be printed, and the search would
                # look finished with no simulations: genmove would pass instead of failing.
                errors.append(e)
                self.stop.set()

        for s in searchers:
            s.sync(g, colour, allow_reuse=not exclude.any())
            if s.space is None or s.space.owner.shape[0] != b.color.shape[0]:
                s.space = search.workspace(b)
        if share is not None and self.settings.count_reused:
            held = max(int(s.tree.visits[0]) for s in searchers)
            share = max(share - held, 1)
        pool = [threading.Thread(target=work, args=(t, s, make_rng(base + t)), daemon=True)
                for t, s in enumerate(searchers)]
        for th in pool:
            th.start()
        start = self.now()
        early_stop = deadline is not None and self.time_is_banked()
        next_report = start + interval
        watching = report is not None or should_stop is not None or deadline is not None
        for th in pool:
            while th.is_alive():
                th.join(timeout=0.02 if watching else None)
                if should_stop is not None and should_stop():
                    self.stop.set()
                if early_stop and self._decided(start, sum(done), deadline):
                    self.stopped_early = True
                    self.stop.set()
                if report and self.now() >= next_report:
                    report()
                    next_report = self.now() + interval
        if errors:
            raise errors[0]
        return sum(done)

    def _decided(self, start, sims, deadline):
        """Can the most visited root move no longer be overtaken before `deadline`, at the
        rate seen so far (each remaining simulation going to the runner-up)?  Then the rest
        of the time would not change the move: stop (Fuego and Pachi do the same)."""
        now = self.now()
        if sims < EARLY_STOP_MIN_SIMS or now <= start:
            return False
        left = (deadline - now) * sims / (now - start)
        visits = {}
        for s in self._threads:
            t = s.tree
            first, count = int(t.child_start[0]), int(t.n_child[0])
            for k in range(first, first + count):
                m = int(t.move[k])
                visits[m] = visits.get(m, 0) + int(t.visits[k])
        top = sorted(visits.values(), reverse=True)[:2] + [0, 0]
        return top[0] - top[1] > left

    def has_search(self, colour):
        """Do the trees stand for the current position with `colour` to move?"""
        key = root_key(self.game, colour)
        return bool(self._threads) and all(s.key == key for s in self._threads)

    def root_stats(self):
        """Statistics of the root's visited children over all threads, most visited first."""
        merged = {}
        for s in self._threads:
            t = s.tree
            first, count = t.child_start[0], t.n_child[0]
            priors = t.prior[first:first + count]
            weights = np.exp(priors - priors.max()) if count else priors
            weights = weights / weights.sum() if count else weights
            for i in range(count):
                k = first + i
                m = int(t.move[k])
                # Read while a search may still run (analysis): the sums before the visits,
                # which a simulation increments first, so that a sum never counts a
                # simulation the visits do not.
                sums = np.array([t.wins[k], t.score[k], t.score2[k]])
                v = int(t.visits[k])
                old = merged.get(m)
                pv = self._pv(t, k) if old is None or v > old[3] else old[4]
                vs, total = (old[0] + v, old[1] + sums) if old else (v, sums)
                merged[m] = (vs, total, float(weights[i]), max(v, old[3] if old else 0), pv)
        stats = []
        for m, (vs, (wins, score, score2), prior, _, pv) in merged.items():
            if vs > 0:
                mean = score / vs
                stdev = math.sqrt(max(score2 / vs - mean * mean, 0.0))
                # Clipped: the compiler may still order a simulation's two increments the
                # other way round.
                stats.append(MoveStats(m, vs, min(max(wins / vs, 0.0), 1.0), prior, pv, mean,
                                       stdev))
        stats.sort(key=lambda s: (-s.visits, -s.winrate))
        return stats

    def search_ownership(self):
        """Each point's expected final owner over the search's simulations, +1 Black to -1
        White (the mean of Black's share minus White's), or None before any simulation."""
        sims = sum(s.sims for s in self._threads)
        if not sims:
            return None
        owned = sum(s.tree.owned[0].astype(np.float64) - s.tree.owned[1] for s in self._threads)
        # Mid-search the counts may hold part of a batch `sims` does not count yet.
        return np.clip(owned / sims, -1.0, 1.0)

    def root_score(self):
        """(mean, stdev) of the final margin over the root's simulations, for the player to
        move there, or None before any."""
        visits = sum(int(s.tree.visits[0]) for s in self._threads)
        if not visits:
            return None
        # The root's statistics are its mover's: the opponent of the player to move.
        mean = -sum(float(s.tree.score[0]) for s in self._threads) / visits
        square = sum(float(s.tree.score2[0]) for s in self._threads) / visits
        return mean, math.sqrt(max(square - mean * mean, 0.0))

    @staticmethod
    def _pv(t, node, limit=20):
        pv = [int(t.move[node])]
        while len(pv) < limit:
            node = tree_mod.best_child(t, node)
            if node < 0:
                break
            pv.append(int(t.move[node]))
        return pv

    def time_is_banked(self):
        """Does the time a move leaves unused go to later moves?  Under a GTP clock it does,
        so a search stops once its move is decided.  With a fixed time a move (`--time`, no
        clock) it would be lost, so the search goes on to its deadline: the visits it adds
        under the chosen move start the next search (tree reuse).  Fuego, too, spends its
        whole second (BENCHMARKS.md, session 35)."""
        return self.clock.limited

    def think_budget(self, colour):
        """(deadline or None, simulation count or None) for the next decision."""
        g = self.game
        seconds = self.clock.budget(colour, len(g.moves), g.size * g.size,
                                    int(g.board.meta[M_NEMPTY]))
        if seconds is not None:
            seconds = min(seconds, self.settings.max_move_seconds)
            if self.clock.move_cap is not None:
                seconds = min(seconds, self.clock.move_cap)
        else:
            seconds = self.settings.seconds
        if seconds is None:
            return None, self.settings.playouts
        return self.now() + seconds, None

    # -- deciding --------------------------------------------------------------------------

    def analyze(self, colour, report, interval, should_stop, allowed=None, deeper=()):
        """Search until `should_stop()`, calling `report()` every `interval` seconds; with
        `allowed` and `deeper`, the moves restricted as in `search`."""
        self.stop.clear()
        self.search(colour, report=report, interval=interval, should_stop=should_stop,
                    allowed=allowed, deeper=deeper, full_playouts=True)
        report()

    def ponder(self, should_stop):
        """Think on the opponent's time (their move next) until `should_stop()`; the tree is
        kept for our next search."""
        self.stop.clear()
        self.search(self.game.to_play, should_stop=should_stop)

    def genmove(self, colour, cleanup=False, report=None, interval=1.0, should_stop=None,
                allowed=None, deeper=()):
        """Choose a move for `colour` (not played): a point, PASS, or None to resign.

        Passes when nothing useful is left, when the search prefers it, or when the
        opponent has passed and we win as the board stands (with dead stones removed), having
        first taken its own live chains out of atari (a ko it just took, say).  With `cleanup`
        (kgs-genmove_cleanup) it never passes while opponent stones are dead on the board, so
        that they get captured.  With `allowed` (GNU Go's restricted_genmove: a set of legal
        points, PASS among them or not) it answers one of them, never resigning; `deeper`
        restricts the search below the root as in `search`."""
        g = self.game
        start = time.perf_counter()
        self.last_search = (0, 0.0)
        self.stop.clear()
        if allowed is not None:
            return self._restricted_move(colour, allowed, report, interval, should_stop, deeper)
        if not self.candidates(colour):
            return PASS
        if cleanup or (g.moves and g.moves[-1][1] == PASS):
            dead = [p for chain in self.final_status(colour)["dead"] for p in chain]
            dead_theirs = [p for p in dead if g.board.color[p] == opponent(colour)]
            margin = g.score(dead)
            winning = margin > 0 if colour == BLACK else margin < 0
            if winning and not (cleanup and dead_theirs):
                rescue = self._rescue_before_passing(colour, dead)
                return PASS if rescue is None else rescue
        if not cleanup:
            p = self.book_move(colour)
            if p is not None:
                self.log(f"genmove: book move {format_vertex(p, g.size)}")
                return p
        deadline, total = self.think_budget(colour)
        sims = self.search(colour, deadline, total, report, interval, should_stop,
                           deeper=deeper)
        stats = self.root_stats()
        if cleanup:
            stats = [s for s in stats if s.move != PASS] or stats
        if not stats:
            return PASS
        best = stats[0]
        self.last_search = (sims, time.perf_counter() - start)
        self.log(f"genmove: {sims} simulations in {self.last_search[1]:.2f} s"
                 f"{' (stopped early: decided)' if self.stopped_early else ''}, "
                 f"best {best.move} visits {best.visits} win rate {best.winrate:.3f}")
        if self._should_resign(best.winrate):
            return None
        return best.move

    def _rescue_before_passing(self, colour, dead):
        """A move that takes one of `colour`'s live chains out of atari (its liberty, when
        that leaves the chain two liberties or more), or None.  A chain left in atari at the
        end, as after taking a ko, is alive with `colour` to move and dead with the opponent
        to move: passing would leave its fate to whoever moves next, and a referee may judge
        it either way."""
        g = self.game
        b = g.board
        gone = set(dead)
        libs = np.zeros(1, np.int32)
        for p in g.stones(colour):
            if b.libs[b.head[p]] != 1 or p in gone or chain_liberties(b, p, libs) != 1:
                continue
            q = int(libs[0])
            if g.is_legal(colour, q):
                after = copy_board(b)
                play(after, q, colour)
                if after.libs[after.head[q]] >= 2:
                    return q
        return None

    def _restricted_move(self, colour, allowed, report=None, interval=1.0, should_stop=None,
                         deeper=()):
        """The most visited of the `allowed` moves after a search limited to them (eye-filling
        moves, which the tree never expands, only when nothing else is allowed)."""
        deadline, total = self.think_budget(colour)
        self.search(colour, deadline, total, report, interval, should_stop, allowed=allowed,
                    deeper=deeper)
        stats = [s for s in self.root_stats() if s.move in allowed]
        if stats:
            return stats[0].move
        return min(allowed, key=lambda p: (p == PASS, p))

    def _should_resign(self, winrate):
        """Resign when the win rate stays below the threshold two decisions running, and never
        in the opening."""
        threshold = self.settings.resign
        low = threshold > 0 and winrate < threshold
        opening = len(self.game.moves) < RESIGN_AFTER * self.game.size ** 2
        resign = low and self._low_winrate and not opening
        self._low_winrate = low
        return resign

    # -- judging the end -------------------------------------------------------------------

    def ownership(self, colour=None, playouts=OWNERSHIP_PLAYOUTS):
        """(black_share, white_share): fraction of playouts in which each point ends owned by
        each colour, playing the current position out with the `status_policy`."""
        g = self.game
        colour = colour or g.to_play
        policy = self.status_policy   # first: a board-size change brings its parameters
        t = tree_mod.new_tree(g.board.color.shape[0] + 16, g.board.color.shape[0])
        # The root only (every simulation is a playout), its moves drawn from the policy too.
        params = with_params(self.settings.params, expand_visits=math.inf, prune_visits=math.inf)
        root = search.Root(g.board, colour, g.scoring_komi,
                           search.unrestricted(g.board.color.shape[0]))
        # The first moves too are drawn from the playout policy (not the prior): a pure playout.
        search.run(t, root, policy, policy, params, playouts, make_rng(self.settings.seed + 17))
        return t.owned[0] / playouts, t.owned[1] / playouts

    def final_status(self, colour=None):
        """Chains classified as dead / alive / seki (see engine/play/status.py)."""
        black, white = self.ownership(colour)
        return classify(self.game.board, black, white)

    def final_score(self):
        """Area score with komi after removing the stones judged dead (positive: Black ahead)."""
        dead = [p for chain in self.final_status()["dead"] for p in chain]
        return self.game.score(dead)


def score_text(margin):
    """GTP / SGF result text: B+3.5, W+0.5 or 0."""
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"
