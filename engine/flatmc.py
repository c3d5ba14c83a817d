"""One-ply Monte-Carlo evaluation: each candidate move followed by uniform playouts.

This is the paper's "MC" player (Silver & Tesauro's one-ply search) and the
engine's move generator until the tree search lands.  Simulations are spread
round-robin over the candidates; each one also records who owns every point
at the end, which is what dead-stone and score estimates are made from.

The kernel releases the GIL so several Python threads can each run a share of
the simulations with their own random stream and statistics.
"""
import numpy as np
from numba import njit

from .board import BLACK, M_PASSES, WHITE, copy_board, copy_into, play
from .playout import finish_uniform


@njit(cache=True, nogil=True)
def flat_mc(b, c, candidates, start, count, rng, komi, wins, visits, owned):
    """Run `count` simulations from `b` (unchanged) for colour `c` to move.

    Simulation i (numbered from `start`) plays candidates[i % len] first, then a
    uniform playout.  Adds to wins[k] (wins for `c`, a jigo counting one half),
    visits[k], owned[0, p] (playouts Black owned p) and owned[1, p] (White)."""
    work = copy_board(b)
    owner = np.zeros(b.color.shape[0], dtype=np.int8)
    n = candidates.shape[0]
    for i in range(start, start + count):
        k = i % n
        copy_into(work, b)
        work.meta[M_PASSES] = 0  # a finished game is played out afresh, not scored as it stands
        play(work, candidates[k], c)
        margin = finish_uniform(work, 3 - c, rng, owner) - komi
        if margin == 0:
            wins[k] += 0.5
        elif (margin > 0) == (c == BLACK):
            wins[k] += 1.0
        visits[k] += 1
        for p in range(owner.shape[0]):
            if owner[p] == BLACK:
                owned[0, p] += 1
            elif owner[p] == WHITE:
                owned[1, p] += 1
