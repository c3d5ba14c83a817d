"""Local softmax playouts: the pattern3x3 policy's weights, evaluated only where they matter.

The full softmax (policies/softmax.py) keeps every point's weight up to date after every move,
and that upkeep is most of a playout's time (BENCHMARKS.md, issue 25).  These playouts keep
nothing between moves.  A move is, in order:

1. the playout rules, as in the softmax playouts: the vital point of a nakade shape the last
   move captured, a nakade's vital point, an answer to the last move's fight, a stored last
   good reply (each when the policy would play it);
2. otherwise a draw between the *local* candidates, the points at Coulom distance 2-4 of the
   last move (the softmax's context window), each with its full softmax weight (3x3 pattern,
   tactics, line, distance to the last two moves), and the rest of the board, which weighs
   `far` per candidate point (its count taken as the number of other empty points);
3. a far move is drawn uniformly among the empty points and kept with probability
   min(1, weight / far), up to FAR_TRIES times (then the last candidate drawn is kept), so far
   moves follow min(weight, far): bad shapes and self-ataris are mostly refused, good ones all
   taken alike.  Own-eye fills, suicides and the ko point are never played.
   With the search's `playout_captures` q > 0, a far move first captures (with probability q)
   a chain in atari anywhere on the board, as MoGo's and Fuego's playouts do, drawn uniformly
   among the capturing points.  The capturing points are kept in a list that each move adds
   to (a chain gets into atari only by a stone placed next to it, or by being the stone's own
   chain) and each use checks, dropping the points that no longer capture.

Fuego, Pachi and MoGo play this way (rules, then the last move's neighbourhood, then a
filtered random move); the weights here are the trained pattern3x3 ones, and `far` is the
search's `playout_local` parameter (0 keeps the full softmax).  Weights are evaluated from
scratch (the 3x3 code, the adjacent chains), about 14 evaluations a move instead of the
upkeep of every changed point.  No psi: the trainers keep the full softmax.

Why the loop is one function: as in softmax.run_playout, the board's arrays are bound once per
playout (numba reference-counts a record's arrays at each read in a loop), and every array
the loop touches, the random state and its own scratch arrays included, is a borrowed view
(policies/nrt.py): the reference counting of the ones that were not was a quarter of a 9x9
search's time (BENCHMARKS.md, session 23).
"""
import numpy as np
from numba import njit

from engine.core.board import (EMPTY, M_CAUGHT, M_KO, M_KO_COLOR, M_LAST, M_LAST2, M_MOVES,
                               M_NEMPTY, M_PASSES, M_SIZE, M_WIDTH, PASS, area_score, is_legal,
                               play)
from engine.core.rng import rand_below, rand_float
from engine.tactics.fights import (MAX_REPLIES, NAKADE_MAX, captured_nakade_reply, fight_reply,
                                   nakade_reply)
from engine.tactics.ladders import escape_is_caught
from policies.features import (LAST2_OFF, LAST_OFF, MAX_DIST, WINDOW_BUCKET, WINDOW_DC,
                               WINDOW_DR, coulom_distance, pattern3x3_tactics, point_tables, scan)
from policies.nrt import borrow, borrowed_board
from policies.playout import move_cap, set_aside, stored_reply
from policies.softmax import (LADDER_REDRAWS, RULE_CAPTURE_NAKADE, RULE_CAPTURES, RULE_FIGHTS,
                              RULE_LADDERS, RULE_NAKADE, W_MAX, W_MIN)

FAR_TRIES = 4     # far draws refused by weight before one is kept whatever its weight
ATARI_MAX = 64    # capturing points listed at most (the list is pruned at each use)


@njit(cache=True, nogil=True, inline='always')
def local_weight(color, head, libs, csize, nxt, code3, w, line, pclass, etheta, fidx, p, c):
    """The softmax's local weight of c playing empty `p` (3x3 pattern class times the tactical
    and line factors), 0 where the policy never plays (own eye, suicide)."""
    cls = pclass[c - 1, code3[p]]
    if cls < 0:
        return 0.0
    sc = scan(color, head, libs, csize, w, p)
    k = pattern3x3_tactics(color, head, libs, nxt, w, line, p, c, sc, fidx, 0)
    if k < 0:
        return 0.0
    x = etheta[cls]
    for j in range(k):
        x *= etheta[fidx[j]]
    return min(max(x, W_MIN), W_MAX)


@njit(cache=True, nogil=True, inline='always')
def _playable(b, code3, pclass, p, c):
    """Would the policy play c at `p` (local_weight > 0: legal, the ko point included, and not
    an own eye)?  Without the weight's features."""
    return p >= 0 and is_legal(b, p, c) and pclass[c - 1, code3[p]] >= 0


@njit(cache=True, nogil=True, inline='always')
def _pick(loc, locw, nloc, u):
    """The local candidate at cumulative weight u (rounding past the end: the last one)."""
    p = loc[nloc - 1]
    for i in range(nloc):
        if u < locw[i]:
            return loc[i]
        u -= locw[i]
    return p


@njit(cache=True, nogil=True, inline='always')
def list_ataris(color, head, libs, w, empties, nempty, atari):
    """Fill atari[] with the empty points next to a chain in atari (a playout's start: the
    chains already in atari); returns their number."""
    natari = 0
    for i in range(nempty):
        q = empties[i]
        for r in (q - 1, q + 1, q - w, q + w):
            if (color[r] == 1 or color[r] == 2) and libs[head[r]] == 1 and natari < atari.shape[0]:
                atari[natari] = q
                natari += 1
                break
    return natari


@njit(cache=True, nogil=True, inline='always')
def note_ataris(color, head, libs, libsum, w, p, atari, natari):
    """Add to atari[:natari] the liberties of the chains in atari that the stone just played at
    `p` touches or belongs to; returns the new count."""
    for q in (p, p - 1, p + 1, p - w, p + w):
        cq = color[q]
        if (cq == 1 or cq == 2) and libs[head[q]] == 1 and natari < atari.shape[0]:
            x = libsum[head[q]]   # the liberty of a chain in atari
            known = False
            for i in range(natari):
                if atari[i] == x:
                    known = True
                    break
            if not known:
                atari[natari] = x
                natari += 1
    return natari


@njit(cache=True, nogil=True, inline='always')
def capture_move(color, head, libs, w, c, ko, atari, natari, rng):
    """A point where c captures a chain in atari, uniformly among the listed ones, or -1; the
    listed points that capture for neither colour are dropped.  Returns (point, new count)."""
    found = 0
    p = -1
    i = 0
    while i < natari:
        x = atari[i]
        mine = False
        live = False
        if color[x] == EMPTY:
            for q in (x - 1, x + 1, x - w, x + w):
                cq = color[q]
                if (cq == 1 or cq == 2) and libs[head[q]] == 1:
                    live = True
                    if cq == 3 - c:
                        mine = True
        if not live:
            natari -= 1
            atari[i] = atari[natari]
            continue
        if mine and x != ko:
            found += 1
            if rand_below(rng, found) == 0:   # reservoir draw: uniform among the captures
                p = x
        i += 1
    return p, natari


@njit(cache=True, nogil=True)
def run_local_playout(b, c, rng, owner, pol, moves, replies, rules, far, scratch):
    """Play `b` out from c to move with local softmax playouts (module docstring; `far` > 0 is
    the weight of a far point), return the area score (Black minus White, final owners in
    `owner`); the first len(moves) moves are recorded in `moves`, `replies` and `rules` as in
    softmax.run_playout (ladder redraws are far draws)."""
    b = borrowed_board(b)
    color = borrow(b.color)
    head = borrow(b.head)
    libs = borrow(b.libs)
    libsum = borrow(b.libsum)
    csize = borrow(b.csize)
    nxt = borrow(b.nxt)
    meta = borrow(b.meta)
    mark = borrow(b.mark)
    empties = borrow(b.empties)
    epos = borrow(b.epos)
    code3 = borrow(b.code3)
    etheta = borrow(pol.etheta)
    pclass = borrow(pol.pclass)
    replies = borrow(replies)
    rng = borrow(rng)
    npts = color.shape[0]
    n = meta[M_SIZE]
    w = meta[M_WIDTH]
    # This playout's own arrays, used through borrowed views (the module docstring); the owners
    # are written once more after the loop, which keeps them alive to there.
    ints_own = np.empty(2 * npts + 32 + max(MAX_REPLIES, NAKADE_MAX + 1), np.int32)
    ints = borrow(ints_own)
    line = ints[:npts]
    rowof = ints[npts:2 * npts]
    fidx = ints[2 * npts:2 * npts + 32]
    answers = ints[2 * npts + 32:]
    point_tables(n, w, rowof, line)
    nwin = WINDOW_DR.shape[0]
    points_own = np.empty(nwin + ATARI_MAX, np.int64)
    points = borrow(points_own)
    loc = points[:nwin]
    atari = points[nwin:]
    locw_own = np.empty(nwin)
    locw = borrow(locw_own)
    ladders = rules[RULE_LADDERS] > 0.0
    fights = rules[RULE_FIGHTS]
    nakade = rules[RULE_NAKADE]
    captures = rules[RULE_CAPTURES] if rules.shape[0] > RULE_CAPTURES else 0.0
    after_capture = rules[RULE_CAPTURE_NAKADE] if rules.shape[0] > RULE_CAPTURE_NAKADE else 0.0
    natari = 0
    if captures > 0.0:
        natari = list_ataris(color, head, libs, w, empties, meta[M_NEMPTY], atari)
    nrec = moves.shape[0]
    cap = move_cap(b)
    t = 0
    while meta[M_PASSES] < 2 and meta[M_MOVES] < cap:
        ko = meta[M_KO] if meta[M_KO_COLOR] == c else -1
        p = -1
        if 3 <= meta[M_CAUGHT] <= NAKADE_MAX and (after_capture >= 1.0 or (
                after_capture > 0.0 and rand_float(rng) < after_capture)):
            p = captured_nakade_reply(color, meta, mark, c, answers)
        if not _playable(b, code3, pclass, p, c) and (
                nakade >= 1.0 or (nakade > 0.0 and rand_float(rng) < nakade)):
            p = nakade_reply(color, meta, mark, c, answers)
        if not _playable(b, code3, pclass, p, c):
            p = -1
            if fights >= 1.0 or (fights > 0.0 and rand_float(rng) < fights):
                p = fight_reply(color, head, libs, nxt, mark, meta, c, rng, answers)
        if not _playable(b, code3, pclass, p, c):
            p = stored_reply(replies, meta, c)
        if not _playable(b, code3, pclass, p, c):
            # The local candidates, with the softmax's context factors.
            p = -1
            nloc = 0
            lsum = 0.0
            last = meta[M_LAST]
            last2 = meta[M_LAST2]
            if last >= 0:
                lr = last // w
                lc = last - lr * w
                l2r = last2 // w
                l2c = last2 - l2r * w
                for k in range(nwin):
                    q = last + WINDOW_DR[k] * w + WINDOW_DC[k]
                    if q < 0 or q >= npts or color[q] != EMPTY or q == ko:
                        continue
                    x = local_weight(color, head, libs, csize, nxt, code3, w, line, pclass,
                                     etheta, fidx, q, c)
                    if x > 0.0:
                        x *= etheta[LAST_OFF + WINDOW_BUCKET[k]]
                        if last2 >= 0:
                            qr = lr + WINDOW_DR[k]
                            d = coulom_distance(qr - l2r, lc + WINDOW_DC[k] - l2c)
                            if 2 <= d <= MAX_DIST:
                                x *= etheta[LAST2_OFF + d - 2]
                        loc[nloc] = q
                        locw[nloc] = x
                        nloc += 1
                        lsum += x
            nfar = meta[M_NEMPTY] - nloc
            u = rand_float(rng) * (lsum + far * nfar)
            if u < lsum:
                p = _pick(loc, locw, nloc, u)
            redraws = 0
            if p < 0 and natari > 0 and (captures >= 1.0
                                         or (captures > 0.0 and rand_float(rng) < captures)):
                p, natari = capture_move(color, head, libs, w, c, ko, atari, natari, rng)
            while True:
                if p < 0:
                    # Far: uniform over the empty points, refused by weight (module docstring).
                    # Points that can never be played are swapped out of the draw.
                    kk = meta[M_NEMPTY]
                    tries = 0
                    while kk > 0:
                        i = rand_below(rng, kk)
                        q = empties[i]
                        x = 0.0
                        if q != ko:
                            x = local_weight(color, head, libs, csize, nxt, code3, w, line,
                                             pclass, etheta, fidx, q, c)
                        if x > 0.0:
                            if tries >= FAR_TRIES or x >= far or rand_float(rng) * far < x:
                                p = q
                                break
                            tries += 1
                        else:
                            kk -= 1
                            set_aside(empties, epos, i, kk)
                    if p < 0 and nloc > 0:  # nothing playable far away: a local move
                        p = _pick(loc, locw, nloc, rand_float(rng) * lsum)
                if not (ladders and p >= 0 and redraws < LADDER_REDRAWS
                        and escape_is_caught(b, p, c, scratch)):
                    break
                redraws += 1
                p = -1
                nloc = 0
            if p < 0:
                p = PASS
        if t < nrec:
            moves[t] = p
        t += 1
        play(b, p, c)
        if captures > 0.0 and p >= 0:
            natari = note_ataris(color, head, libs, libsum, w, p, atari, natari)
        c = 3 - c
    ints_own[0] = points_own[0] = 0
    locw_own[0] = 0.0
    return area_score(b, owner)
