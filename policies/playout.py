"""Compiled playouts: play a position out to the end and score it.

The light playout here is the uniform policy of the rules-core issue: every
move is drawn uniformly among the legal moves that do not fill the mover's own
single-point eye; a player with no such move passes, and two passes (or a move
cap, which only superko-free cycles such as triple ko can reach) end the game.
Scores are Tromp-Taylor area differences, Black minus White, without komi.

Simple ko is enforced inside playouts; positional superko is not (it is for
real moves, in engine/play/game.py), as is usual for Monte-Carlo engines.

Last good replies (Drake 2009; Baier & Drake 2010, "The power of forgetting"): a
playout may be given a table `replies[colour - 1, previous move]` of answers that
won before (the search keeps it, engine/search/mcts.py); a stored answer to the move
just played is played when legal and not an own-eye fill, instead of drawing.
A table with no columns turns this off.
"""
from numba import njit

from engine.core.board import (EMPTY, M_LAST, M_MOVES, M_NEMPTY, M_PASSES, M_SIZE, PASS, area_score,
                               is_eye, is_legal, play)
from engine.core.rng import rand_below


@njit(cache=True)
def uniform_move(b, c, rng):
    """A uniformly random legal move for `c` that does not fill its own eye, or PASS.

    Rejected candidates are swapped to the end of the empty list so each is tried
    at most once: an exact uniform draw without rescanning the board."""
    k = b.meta[M_NEMPTY]
    while k > 0:
        i = rand_below(rng, k)
        p = b.empties[i]
        if not is_eye(b, p, c) and is_legal(b, p, c):
            return p
        k -= 1
        set_aside(b.empties, b.epos, i, k)
    return PASS


@njit(cache=True, nogil=True, inline='always')
def set_aside(empties, epos, i, k):
    """A draw from empties[:k + 1] refused empties[i]: swap it with empties[k], the last of
    them (`epos` kept true), so that the next draw, from empties[:k], cannot meet it again.
    The board's empty list stays the same set, in another order."""
    p = empties[i]
    q = empties[k]
    empties[i] = q
    epos[q] = i
    empties[k] = p
    epos[p] = k


@njit(cache=True, inline='always')
def stored_reply(replies, meta, c):
    """The last good reply of `c` to the move just played, or PASS (none, or no table)."""
    last = meta[M_LAST]
    if replies.shape[1] == 0 or last < 0:
        return PASS
    return replies[c - 1, last]


@njit(cache=True)
def move_cap(b):
    """Playouts stop after this many moves whatever happens (cycles without superko)."""
    n = b.meta[M_SIZE]
    return b.meta[M_MOVES] + 3 * n * n + 20


@njit(cache=True)
def finish_uniform(b, c, rng, owner, moves, replies):
    """Play the position on `b` out with the uniform policy, `c` to move; returns the area
    score (Black minus White) and leaves the final owners in `owner`.  The first len(moves)
    moves (PASS included, so colours alternate) are recorded in `moves`; `replies` as in the
    module docstring."""
    cap = move_cap(b)
    t = 0
    while b.meta[M_PASSES] < 2 and b.meta[M_MOVES] < cap:
        p = stored_reply(replies, b.meta, c)
        if p < 0 or b.color[p] != EMPTY or is_eye(b, p, c) or not is_legal(b, p, c):
            p = uniform_move(b, c, rng)
        if t < moves.shape[0]:
            moves[t] = p
        t += 1
        play(b, p, c)
        c = 3 - c
    return area_score(b, owner)
