"""The player: decides moves and judges finished games for one `Game`.

`Engine` holds the game record, the thinking settings (playouts, time, threads,
seed) and the clocks, and offers what a GTP front end needs: generate a move,
estimate ownership, list dead / alive / seki stones, and score.  It knows the
game but nothing of the protocol (engine/gtp.py translates).

Moves come from one-ply Monte-Carlo (engine/flatmc.py) over uniform playouts,
run on `threads` threads each with its own random stream, so a seed and a
fixed playout count make every decision reproducible.
"""
import threading
import time
from dataclasses import dataclass

import numpy as np

from .board import BLACK, PASS, WHITE, is_eye
from .flatmc import flat_mc
from .game import Game, opponent
from .rng import make_rng
from .status import classify
from .timecontrol import TimeControl

BATCH = 256            # simulations per thread between clock checks
OWNERSHIP_PLAYOUTS = 400


@dataclass
class Settings:
    playouts: int = 10000          # per move, when no clock and no --time
    seconds: float | None = None   # per move, instead of playouts
    threads: int = 1
    seed: int = 0


class Engine:
    def __init__(self, size=9, komi=7.5, settings=None, log=None):
        self.game = Game(size, komi)
        self.settings = settings or Settings()
        self.clock = TimeControl()
        self.log = log or (lambda *a: None)
        self._streams = 0

    def _rngs(self):
        """Fresh random streams for one decision, derived from the seed and a counter."""
        self._streams += 1
        base = self.settings.seed * 1_000_003 + self._streams * 7919
        return [make_rng(base + t) for t in range(self.settings.threads)]

    def candidates(self, colour):
        """Legal moves that do not fill one's own single-point eye (superko checked)."""
        b = self.game.board
        return [p for p in self.game.legal_moves(colour) if not is_eye(b, p, colour)]

    def _simulate(self, colour, candidates, deadline, total):
        """Spread simulations over `candidates` until `total` are done or `deadline` passes."""
        g = self.game
        n = len(candidates)
        cand = np.array(candidates, dtype=np.int32)
        threads = self.settings.threads
        wins = np.zeros((threads, n))
        visits = np.zeros((threads, n), dtype=np.int64)
        owned = np.zeros((threads, 2, g.board.color.shape[0]), dtype=np.int64)
        rngs = self._rngs()
        share = -(-total // threads)

        def worker(t):
            done = 0
            while done < share:
                count = min(BATCH, share - done)
                flat_mc(g.board, colour, cand, t * share + done, count, rngs[t], g.komi,
                        wins[t], visits[t], owned[t])
                done += count
                if deadline is not None and time.perf_counter() > deadline:
                    break

        if threads == 1:
            worker(0)
        else:
            pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
            for th in pool:
                th.start()
            for th in pool:
                th.join()
        return wins.sum(0), visits.sum(0), owned.sum(0)

    def think_budget(self, colour):
        """(deadline or None, playout count) for the next decision."""
        g = self.game
        seconds = self.clock.budget(colour, len(g.moves), g.size * g.size)
        if seconds is None:
            seconds = self.settings.seconds
        if seconds is None:
            return None, self.settings.playouts
        return time.perf_counter() + seconds, 1 << 40

    def genmove(self, colour, cleanup=False):
        """Choose a move for `colour` (not played).  PASS when nothing useful is left, or
        when the opponent has passed and we win as the board stands; with `cleanup`
        (kgs-genmove_cleanup) never pass while opponent stones are dead on the board."""
        g = self.game
        start = time.perf_counter()
        moves = self.candidates(colour)
        if not moves:
            return PASS
        opponent_passed = bool(g.moves) and g.moves[-1][1] == PASS
        if opponent_passed or cleanup:
            status = self.final_status(colour)
            dead_theirs = [p for chain in status["dead"] for p in chain
                           if g.board.color[p] == opponent(colour)]
            margin = g.score([p for chain in status["dead"] for p in chain])
            winning = margin > 0 if colour == BLACK else margin < 0
            if winning and not (cleanup and dead_theirs):
                return PASS
        deadline, total = self.think_budget(colour)
        wins, visits, _ = self._simulate(colour, moves, deadline, total)
        rate = np.where(visits > 0, wins / np.maximum(visits, 1), -1.0)
        best = int(np.argmax(rate))
        self.log(f"genmove {len(moves)} candidates, {int(visits.sum())} playouts in "
                 f"{time.perf_counter() - start:.2f} s, best win rate {rate[best]:.3f}")
        return int(moves[best])

    def ownership(self, colour=None, playouts=OWNERSHIP_PLAYOUTS):
        """(black_share, white_share): fraction of playouts in which each point ends owned
        by each colour, playing out the current position with `colour` to move."""
        g = self.game
        colour = colour or g.to_play
        moves = self.candidates(colour) or [PASS]
        _, visits, owned = self._simulate(colour, moves, None, playouts)
        n = max(int(visits.sum()), 1)
        return owned[0] / n, owned[1] / n

    def final_status(self, colour=None):
        """Chains classified as dead / alive / seki (see engine/status.py)."""
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


__all__ = ["Engine", "Settings", "score_text", "BLACK", "WHITE"]
