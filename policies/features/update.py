"""The incremental update after a move, shared by both feature sets: `play_and_mark` plays the
move (the board updates every point's 3x3 code itself) and lists the points whose features may
have changed ("dirty"), which is all the softmax policy re-evaluates.
"""

import numpy as np
from numba import njit

from engine.core.board import BLACK, EMPTY, PASS, WHITE, play


# ---------------------------------------------------------------------------------------------
# Incremental update
# ---------------------------------------------------------------------------------------------
# The helpers take the board's arrays, not the board: numba reference-counts a namedtuple's
# arrays on every field access inside a loop, which costs far more than the work here.
@njit(cache=True, nogil=True, inline='always')
def _mark(color, q, dirty, dmark, dfull, misc, full):
    """List empty q as dirty (once per move); `full`: its tactics may have changed too, not
    only its 3x3 pattern (dfull[q] = 1)."""
    if dmark[q] != misc[1]:
        if color[q] == EMPTY:
            dmark[q] = misc[1]
            dfull[q] = full
            dirty[misc[0]] = q
            misc[0] += 1
    elif full:
        dfull[q] = 1


@njit(cache=True, nogil=True, inline='always')
def _mark_around(color, w, q, dirty, dmark, dfull, misc):
    """q changed colour: q itself (stone or not), fully; its empty 4 neighbours fully; its empty
    diagonal neighbours for their 3x3 pattern only (their own neighbours, and so their chains,
    did not change, except through chains that _mark_liberties covers)."""
    q = np.int64(q)
    if dmark[q] != misc[1]:
        dmark[q] = misc[1]
        dirty[misc[0]] = q
        misc[0] += 1
    dfull[q] = 1
    for r in (q - 1, q + 1, q - w, q + w):
        _mark(color, r, dirty, dmark, dfull, misc, 1)
    for r in (q - w - 1, q - w + 1, q + w - 1, q + w + 1):
        _mark(color, r, dirty, dmark, dfull, misc, 0)


@njit(cache=True, nogil=True, inline='always')
def _mark_liberties(color, nxt, w, h, dirty, dmark, dfull, wmark, misc):
    """Every liberty of chain `h` (once per move: `wmark` on the head): their tactical
    features read this chain."""
    if wmark[h] == misc[1]:
        return
    wmark[h] = misc[1]
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if color[q] == EMPTY:
                _mark(color, q, dirty, dmark, dfull, misc, 1)
        s = nxt[s]
        if s == h:
            break


@njit(cache=True, nogil=True, inline='always')
def _mark_atari_nearby(color, head, libs, nxt, w, q, dirty, dmark, dfull, wmark, misc):
    """shape2x2 only: a capture's features read the colours around the captured chain, so the
    liberty of any chain in atari with a stone next to (or diagonal to) changed point q."""
    for r in (q - 1, q + 1, q - w, q + w, q - w - 1, q - w + 1, q + w - 1, q + w + 1):
        cr = color[r]
        if (cr == BLACK or cr == WHITE) and libs[head[r]] == 1:
            _mark_liberties(color, nxt, w, head[r], dirty, dmark, dfull, wmark, misc)


# Liberty counts up to this are read by the features (1, 2, and 3 for libs_after's cap).
TACTICAL_LIBS = 3


@njit(cache=True, nogil=True, inline='always')
def play_and_mark(b, color, head, libs, nxt, w, dirty, dmark, dfull, wmark, misc, near_atari, p,
                  c):
    """Play c at p (legal) on `b` (whose arrays and width are passed too: see softmax.py's speed
    notes) and list in `dirty[:misc[0]]` the points whose features may have changed
    (`dmark`/`misc[1]` is the de-duplication stamp, `wmark` the same for chains walked,
    dfull[q] = 0 if only q's 3x3 pattern changed; the caller resets misc[0] and bumps misc[1]
    before each move).  Returns the captures.

    Dirty points: the move and every captured stone with their 8 neighbours (3x3 codes), and
    the liberties of every chain the move touched (the new chain, the opposing chains that
    lost a liberty, the chains next to captured stones) when its liberty count is, or was,
    at most TACTICAL_LIBS.  With `near_atari` (shape2x2), also the liberty of chains in atari
    next to any changed point."""
    if p == PASS:
        return play(b, PASS, c)
    o = 3 - c
    # Before the move: the adjacent opposing chains (captured ones too), and the fewest
    # liberties among the adjacent own chains.
    o1 = o2 = o3 = o4 = -1
    own_min = 1 << 30
    k = 0
    for q in (p - 1, p + 1, p - w, p + w):
        cq = color[q]
        if cq == c:
            own_min = min(own_min, libs[head[q]])
        elif cq == o:
            h = head[q]
            if h == o1 or h == o2 or h == o3:
                continue
            if k == 0:
                o1 = h
            elif k == 1:
                o2 = h
            elif k == 2:
                o3 = h
            else:
                o4 = h
            k += 1
    captured = play(b, p, c)
    _mark_around(color, w, p, dirty, dmark, dfull, misc)
    hp = head[p]
    if libs[hp] <= TACTICAL_LIBS or own_min <= TACTICAL_LIBS:
        _mark_liberties(color, nxt, w, hp, dirty, dmark, dfull, wmark, misc)
    if near_atari:
        _mark_atari_nearby(color, head, libs, nxt, w, p, dirty, dmark, dfull, wmark, misc)
    for h in (o1, o2, o3, o4):
        if h < 0:
            continue
        if color[h] == o:
            if libs[h] <= TACTICAL_LIBS:
                _mark_liberties(color, nxt, w, h, dirty, dmark, dfull, wmark, misc)
        elif captured > 0:
            # A captured chain: its links survive the capture, so walk it.
            s = h
            while True:
                _mark_around(color, w, s, dirty, dmark, dfull, misc)
                s = nxt[s]
                if s == h:
                    break
            s = h
            while True:
                for q in (s - 1, s + 1, s - w, s + w):
                    # A chain next to captured stones gained at most `captured` liberties: if it
                    # has more than TACTICAL_LIBS beyond those, no feature saw a change.
                    if color[q] == c and libs[head[q]] - captured <= TACTICAL_LIBS:
                        _mark_liberties(color, nxt, w, head[q], dirty, dmark, dfull, wmark, misc)
                if near_atari:
                    _mark_atari_nearby(color, head, libs, nxt, w, s, dirty, dmark, dfull, wmark,
                                       misc)
                s = nxt[s]
                if s == h:
                    break
    return captured
