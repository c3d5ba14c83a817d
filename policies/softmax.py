"""The compiled softmax playout policy: move weights, exact sampling, and psi = grad log pi.

pi(s, a) = exp(H(s, a)) / sum_b exp(H(s, b)) over the candidates b: the legal moves that do not
fill the mover's own single-point eye (pass only when there is none).  H = phi(s, a)^T theta
splits into a *local* part (3x3 pattern and tactics, or 2x2 shapes: a function of a's
neighbourhood) and a *context* part (distance to the last two moves; simple ko):

- local weights exp(local H) are kept per point and per colour in a `PlayState`, updated
  only at the points `features.play_and_mark` lists after each move, with per-row sums
  (recomputed exactly, only for the rows holding a changed point);
- the context is applied at sampling time as factors on the dozen points near the last two
  moves (and 0 on a ko point), whose rows alone get re-summed.

So a draw touches a few rows and never rescans the board, yet is exact: it draws from the
normalised products (up to floating-point rounding; local H is clamped to +-LOG_CLAMP so that
sums cannot overflow).  The same state and the same feature functions give the trainers
phi(s, a) and psi(s, a) = phi(s, a) - sum_b pi(s, b) phi(s, b), accumulated along a playout
by `run_playout` when asked.

Why one module of over 600 lines: the incremental state, the draw, psi and the playout loop
all read the same `PlayState` arrays in the same order, and the loop is the engine's hot path.
Taking the loop out (one playout driver for every policy) was tried and cost 10-18% of the
playout rate (BENCHMARKS.md, session 12); until a split keeps the speed, the module stays whole.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from engine.core.board import (EMPTY, M_CAUGHT, M_KO, M_KO_COLOR, M_LAST, M_LAST2, M_MOVES,
                               M_NEMPTY, M_PASSES, M_SIZE, M_WIDTH, PASS, area_score, is_eye,
                               is_legal)
from engine.core.rng import rand_float
from engine.tactics.fights import (MAX_REPLIES, NAKADE_MAX, captured_nakade_reply, fight_reply,
                                   nakade_reply)
from engine.tactics.ladders import escape_is_caught
from policies.features import (LAST2_OFF, LAST_OFF, PASS_OFF, PATTERN3X3, RULES, SHAPE2X2, UNIFORM,
                               WINDOW_BUCKET, WINDOW_DC, WINDOW_DR, pattern3x3_context,
                               pattern3x3_local, pattern3x3_tactics, play_and_mark, point_tables,
                               scan, shape2x2_arrays, shape2x2_local)
from policies.nrt import borrow, borrowed_board
from policies.playout import move_cap, stored_reply

LOG_CLAMP = 280.0           # |local H| beyond this is clamped (exp stays far from overflow)
W_MAX = np.exp(LOG_CLAMP)
W_MIN = np.exp(-LOG_CLAMP)
EXCLUDED_SCORE = -1000.0    # H reported for moves the policy never plays (illegal, own eye)
MISC_NDIRTY, MISC_DSTAMP, MISC_NCTX, MISC_CSTAMP, MISC_SQSTAMP = range(5)

# Per-playout state (the 3x3 codes are the board's, `code3`).  wt[c-1, p]: local weight of c
# playing p (0: not a candidate); tact[c-1, p]: (pattern3x3) its factor from the tactical and line
# features, so that a pattern change alone costs one lookup; rows[c-1, r]: sum of wt over row r
# (kept by differences), rowmax: its largest value since last summed (see CANCEL_GUARD); fac:
# context factors (1 except near the last moves while a move is drawn); dirty/dmark/dfull/wmark:
# the points to re-evaluate after a move, fully or for their pattern only (and the chains walked
# to find them); ctx: the points with a context factor; rowflag/rowadj: rows whose sum the context
# changes, and their new sums; fidx/fval: one move's features; done: scratch for shape2x2;
# rowof/line: each point's row and line (features.point_tables); misc: counters (MISC_*).
PlayState = namedtuple("PlayState", "wt tact rows rowmax fac dirty dmark dfull wmark ctx "
                                    "rowflag rowadj fidx fval done rowof line misc")


@njit(cache=True, nogil=True)
def new_state(b, pol, weights):
    """A state for board `b`; with `weights`, every point's local weights and the row sums."""
    npts = b.color.shape[0]
    w = b.meta[M_WIDTH]
    n = b.meta[M_SIZE]
    if pol.kind == SHAPE2X2 and n != pol.size:
        raise ValueError("shape2x2 policy built for another board size")
    fmax = 32 if pol.kind != SHAPE2X2 else 18 * npts + 32
    st = PlayState(np.zeros((2, npts)), np.zeros((2, npts)), np.zeros((2, w)), np.zeros((2, w)),
                   np.ones(npts), np.empty(npts, np.int32), np.zeros(npts, np.int32),
                   np.ones(npts, np.int8), np.zeros(npts, np.int32),
                   np.empty(64, np.int32), np.zeros(w, np.int8), np.zeros(w),
                   np.empty(fmax, np.int32), np.ones(fmax), np.zeros(npts, np.int32),
                   np.empty(npts, np.int32), np.empty(npts, np.int32), np.zeros(8, np.int64))
    point_tables(n, w, st.rowof, st.line)
    if weights:
        dirty = st.dirty
        dfull = st.dfull
        for r in range(1, n + 1):
            for c in range(1, n + 1):
                dirty[(r - 1) * n + c - 1] = r * w + c
                dfull[r * w + c] = 1
        refresh(b, st, pol, n * n)
        st.rowflag[:] = 1
        _sum_rows(st.wt, st.rows, st.rowflag, n, w)  # exact sums to start from
        st.rowmax[:] = st.rows
    return st


@njit(cache=True, nogil=True, inline='always')
def borrowed_state(st):
    """`st` with borrowed arrays (policies/nrt.py); valid while `st` lives."""
    return PlayState(borrow(st.wt), borrow(st.tact), borrow(st.rows), borrow(st.rowmax),
                     borrow(st.fac), borrow(st.dirty), borrow(st.dmark), borrow(st.dfull),
                     borrow(st.wmark), borrow(st.ctx), borrow(st.rowflag),
                     borrow(st.rowadj), borrow(st.fidx), borrow(st.fval), borrow(st.done),
                     borrow(st.rowof), borrow(st.line), borrow(st.misc))


# Speed notes.  numba reference-counts every array it takes out of a namedtuple (Board,
# PlayState, Policy), with atomic operations that cost more than the work done here, each time
# a field is read inside a loop or an inlined helper.  So the hot functions below take plain
# arrays and are inlined into their callers, which read every field once, on entry.

@njit(cache=True, nogil=True)
def local_features(b, st, pol, p, c, sc):
    """Local features of c at empty p into st.fidx/st.fval (count, or -1: not a candidate)."""
    if pol.kind == PATTERN3X3:
        return pattern3x3_local(b.color, b.head, b.libs, b.nxt, b.meta[M_WIDTH], st.line,
                                pol.pclass, b.code3[p], p, c, sc, st.fidx)
    st.misc[MISC_SQSTAMP] += 1
    return shape2x2_local(b, pol, b.code3[p], p, c, sc, st.fidx, st.fval, st.done,
                          st.misc[MISC_SQSTAMP])


@njit(cache=True, nogil=True, inline='always')
def _eval_p3(color, head, libs, csize, nxt, w, line, code, wt, tact, fidx, etheta, pclass, p,
             full):
    """pattern3x3: both colours' local weights at point p, exp(theta of the pattern class) times
    the tactical factor, itself recomputed only if `full` (binary features: products of
    exp(theta))."""
    if color[p] != EMPTY:
        wt[0, p] = 0.0
        wt[1, p] = 0.0
        return
    if full:
        sc = scan(color, head, libs, csize, w, p)
    for c in (1, 2):
        ci = c - 1
        if full:
            k = pattern3x3_tactics(color, head, libs, nxt, w, line, p, c, sc, fidx, 0)
            x = 0.0
            if k >= 0:
                x = 1.0
                for j in range(k):
                    x *= etheta[fidx[j]]
            tact[ci, p] = x
        cls = pclass[ci, code[p]]
        x = 0.0
        if cls >= 0 and tact[ci, p] > 0.0:
            x = min(max(etheta[cls] * tact[ci, p], W_MIN), W_MAX)
        wt[ci, p] = x


@njit(cache=True, nogil=True, inline='always')
def _eval_s2(color, head, libs, csize, nxt, mark, meta, code, wt, fidx, fval, done, misc, theta,
             sq_ld, sq_li, pt_ld, eye, p):
    """shape2x2: both colours' weights at point p, exp(sum of feature value * theta)."""
    if color[p] != EMPTY:
        wt[0, p] = 0.0
        wt[1, p] = 0.0
        return
    sc = scan(color, head, libs, csize, meta[M_WIDTH], p)
    for c in (1, 2):
        misc[MISC_SQSTAMP] += 1
        k = shape2x2_arrays(color, head, libs, nxt, mark, meta, sq_ld, sq_li, pt_ld, eye, code[p],
                            p, c, sc, fidx, fval, done, misc[MISC_SQSTAMP])
        x = 0.0
        if k >= 0:
            h = 0.0
            for j in range(k):
                h += fval[j] * theta[fidx[j]]
            x = np.exp(min(max(h, -LOG_CLAMP), LOG_CLAMP))
        wt[c - 1, p] = x


@njit(cache=True, nogil=True, inline='always')
def _sum_rows(wt, rows, rowflag, n, w):
    """Re-sum both colours' rows flagged in `rowflag` (clearing the flags)."""
    for r in range(1, n + 1):
        if rowflag[r] != 0:
            rowflag[r] = 0
            s0 = 0.0
            s1 = 0.0
            base = r * w
            for q in range(base + 1, base + n + 1):
                s0 += wt[0, q]
                s1 += wt[1, q]
            rows[0, r] = s0
            rows[1, r] = s1


# Row sums are kept by adding differences.  Their rounding error stays below a few ulps of the
# largest value the sum held since it was last summed from its points (rowmax); once the sum
# falls below CANCEL_GUARD of that (large weights left the row), it is summed afresh, so its
# relative error stays below about 1e-16 / CANCEL_GUARD per update.
CANCEL_GUARD = 1e-6


@njit(cache=True, nogil=True, inline='always')
def _row_delta(wt, rows, rowmax, n, w, r, p, old0, old1):
    """Point p (row r) changed weights from (old0, old1): update both colours' row sums."""
    for k in range(2):
        d = wt[k, p] - (old0 if k == 0 else old1)
        if d != 0.0:
            after = rows[k, r] + d
            top = rowmax[k, r]
            if after <= CANCEL_GUARD * top:
                after = 0.0
                base = r * w
                for q in range(base + 1, base + n + 1):
                    after += wt[k, q]
                rowmax[k, r] = after
            elif after > top:
                rowmax[k, r] = after
            rows[k, r] = after


@njit(cache=True, nogil=True, inline='always')
def _refresh_points(nd, dirty, p3, color, head, libs, csize, nxt, mark, meta, line, code, wt,
                    tact, fidx, fval, done, misc, dfull, rows, rowmax, rowof, etheta, pclass,
                    theta, sq_ld, sq_li, pt_ld, eye):
    """Re-evaluate both colours' local weights at dirty[:nd], updating their row sums (the
    arrays of `refresh`, for the playout loop that holds them)."""
    n = meta[M_SIZE]
    w = meta[M_WIDTH]
    for i in range(nd):
        p = dirty[i]
        old0 = wt[0, p]
        old1 = wt[1, p]
        if p3:
            _eval_p3(color, head, libs, csize, nxt, w, line, code, wt, tact, fidx, etheta, pclass,
                     p, dfull[p])
        else:
            _eval_s2(color, head, libs, csize, nxt, mark, meta, code, wt, fidx, fval, done, misc,
                     theta, sq_ld, sq_li, pt_ld, eye, p)
        _row_delta(wt, rows, rowmax, n, w, rowof[p], p, old0, old1)


@njit(cache=True, nogil=True)
def refresh(b, st, pol, nd):
    """Re-evaluate both colours' local weights at st.dirty[:nd], updating their row sums."""
    _refresh_points(nd, borrow(st.dirty), pol.kind == PATTERN3X3, borrow(b.color),
                    borrow(b.head), borrow(b.libs), borrow(b.csize), borrow(b.nxt),
                    borrow(b.mark), borrow(b.meta), borrow(st.line), borrow(b.code3),
                    borrow(st.wt), borrow(st.tact), borrow(st.fidx), borrow(st.fval),
                    borrow(st.done), borrow(st.misc), borrow(st.dfull), borrow(st.rows),
                    borrow(st.rowmax), borrow(st.rowof), borrow(pol.etheta), borrow(pol.pclass),
                    borrow(pol.theta), borrow(pol.sq_ld), borrow(pol.sq_li), borrow(pol.pt_ld),
                    borrow(pol.eye))


@njit(cache=True, nogil=True)
def advance(b, st, pol, p, c):
    """Play c at p (a candidate, or PASS) and bring the state up to date; returns captures."""
    misc = st.misc
    misc[MISC_NDIRTY] = 0
    misc[MISC_DSTAMP] += 1
    captured = play_and_mark(b, b.color, b.head, b.libs, b.nxt, b.meta[M_WIDTH], st.dirty,
                             st.dmark, st.dfull, st.wmark, misc, pol.kind == SHAPE2X2, p, c)
    refresh(b, st, pol, misc[MISC_NDIRTY])
    return captured


@njit(cache=True, nogil=True, inline='always')
def _begin(meta, npts, rowof, wt, fac, ctx, rowflag, rowadj, rows, etheta, p3, misc, c):
    """See begin_move."""
    w = meta[M_WIDTH]
    n = meta[M_SIZE]
    ci = c - 1
    nctx = 0
    # Context factors.  A point enters `ctx` when its factor first leaves 1 (a factor of exactly
    # 1 changes nothing, so such points may stay out).
    if p3:
        for which in range(2):
            last = meta[M_LAST] if which == 0 else meta[M_LAST2]
            off = LAST_OFF if which == 0 else LAST2_OFF
            if last < 0 or (etheta[off] == 1.0 and etheta[off + 1] == 1.0
                            and etheta[off + 2] == 1.0):
                continue
            # Branch-free (the branches were unpredictable): points off the array are
            # clamped onto a border point, whose weight is 0, and multiplied by 1.
            for k in range(WINDOW_DR.shape[0]):
                q = last + WINDOW_DR[k] * w + WINDOW_DC[k]
                qc = min(max(q, 0), npts - 1)
                f = etheta[off + WINDOW_BUCKET[k]]
                take = (q == qc) & (wt[ci, qc] > 0.0) & (f != 1.0)
                ctx[nctx] = qc
                nctx += take & (fac[qc] == 1.0)
                fac[qc] *= 1.0 + take * (f - 1.0)
    ko = meta[M_KO]
    if ko >= 0 and meta[M_KO_COLOR] == c and wt[ci, ko] > 0.0:
        listed = False
        for i in range(nctx):
            listed = listed or ctx[i] == ko
        if not listed:
            ctx[nctx] = ko
            nctx += 1
        fac[ko] = 0.0
    misc[MISC_NCTX] = nctx
    # Rows holding context points: their sums plus the changes, re-summed exactly if the
    # changes cancel most of the row (CANCEL_GUARD).
    for i in range(nctx):
        q = ctx[i]
        r = rowof[q]
        if rowflag[r] == 0:
            rowflag[r] = 1
            rowadj[r] = rows[ci, r]
        rowadj[r] += wt[ci, q] * (fac[q] - 1.0)
    for i in range(nctx):
        r = rowof[ctx[i]]
        if rowflag[r] == 1:
            rowflag[r] = 2
            if rowadj[r] <= CANCEL_GUARD * rows[ci, r]:
                s = 0.0
                base = r * w
                for q in range(base + 1, base + n + 1):
                    s += wt[ci, q] * fac[q]
                rowadj[r] = s
    total = 0.0
    for r in range(1, n + 1):
        total += rowadj[r] if rowflag[r] != 0 else rows[ci, r]
    return total


@njit(cache=True, nogil=True)
def begin_move(b, st, pol, c):
    """Apply the context of c's move (distance factors, ko) and return the total weight of c's
    candidates (0: c must pass).  Pair with `end_move`."""
    return _begin(b.meta, b.color.shape[0], st.rowof, st.wt, st.fac, st.ctx, st.rowflag,
                  st.rowadj, st.rows, pol.etheta, pol.kind == PATTERN3X3, st.misc, c)


@njit(cache=True, nogil=True, inline='always')
def _end(rowof, ctx, fac, rowflag, misc):
    for i in range(misc[MISC_NCTX]):
        q = ctx[i]
        fac[q] = 1.0
        rowflag[rowof[q]] = 0
    misc[MISC_NCTX] = 0


@njit(cache=True, nogil=True)
def end_move(b, st):
    """Undo `begin_move`'s context factors."""
    _end(st.rowof, st.ctx, st.fac, st.rowflag, st.misc)


@njit(cache=True, nogil=True, inline='always')
def _draw(n, w, rowflag, rowadj, rows, wt, fac, c, total, u):
    ci = c - 1
    x = u * total
    row = -1
    for r in range(1, n + 1):
        s = rowadj[r] if rowflag[r] != 0 else rows[ci, r]
        if s > 0.0:
            row = r
            if x < s:
                break
            x -= s
    if row < 0:
        return PASS
    base = row * w
    best = PASS
    for q in range(base + 1, base + n + 1):
        y = wt[ci, q] * fac[q]
        if y > 0.0:
            best = q
            if x < y:
                return q
            x -= y
    return best


@njit(cache=True, nogil=True)
def draw(b, st, c, total, u):
    """The candidate at cumulative weight u*total (u uniform in [0, 1)), inside begin/end_move:
    first the row, then the point.  Rounding can leave u past the last weight: the last
    positive one is taken."""
    return _draw(b.meta[M_SIZE], b.meta[M_WIDTH], st.rowflag, st.rowadj, st.rows, st.wt, st.fac,
                 c, total, u)


@njit(cache=True, nogil=True)
def move_features(b, st, pol, p, c):
    """phi(s, p) for c into st.fidx/st.fval: local and context features, or the pass feature
    for PASS; returns the count (-1: p is not a candidate, ko aside)."""
    if p == PASS:
        if pol.kind == PATTERN3X3:
            st.fidx[0] = PASS_OFF
            st.fval[0] = 1.0
            return 1
        return 0
    k = local_features(b, st, pol, p, c,
                       scan(b.color, b.head, b.libs, b.csize, b.meta[M_WIDTH], p))
    if k > 0 and pol.kind == PATTERN3X3:
        k = pattern3x3_context(b.meta, p, st.fidx, k)
        st.fval[:k] = 1.0
    return k


@njit(cache=True, nogil=True)
def _add_features(fidx, fval, k, grad, gi, scale):
    for i in range(k):
        grad[gi, fidx[i]] += scale * fval[i]


@njit(cache=True, nogil=True)
def add_psi(b, st, pol, c, total, a, grad, gi):
    """grad[gi] += psi(s, a) = phi(s, a) - sum_p pi(s, p) phi(s, p), inside begin/end_move."""
    ci = c - 1
    empties = borrow(b.empties)
    wt = borrow(st.wt)
    fac = borrow(st.fac)
    fidx = borrow(st.fidx)
    fval = borrow(st.fval)
    for i in range(b.meta[M_NEMPTY]):
        p = empties[i]
        y = wt[ci, p] * fac[p]
        if y > 0.0:
            _add_features(fidx, fval, move_features(b, st, pol, p, c), grad, gi, -y / total)
    _add_features(fidx, fval, move_features(b, st, pol, a, c), grad, gi, 1.0)


LADDER_REDRAWS = 3  # escapes set aside per move at most (a move rarely offers more)
# run_playout's `rules`.  RULE_LOCAL > 0: local playouts instead (policies/local.py), which
# alone read RULE_CAPTURES; RULE_MERCY is read by the rule-based playouts alone
# (policies/rulebased.py).
(RULE_LADDERS, RULE_FIGHTS, RULE_NAKADE, RULE_LOCAL, RULE_CAPTURES, RULE_CAPTURE_NAKADE,
 RULE_MERCY) = range(7)
NO_RULES = np.zeros(7)


@njit(cache=True, nogil=True, inline='always')
def _set_aside(p, c, n, w, wt, fac, ctx, rowof, rowflag, rowadj, rows, misc, total):
    """Give candidate `p` weight 0 for this move only (as `_begin` does for a ko point: its
    factor is restored by `_end`); returns the new total weight.  The row is re-summed."""
    ci = c - 1
    r = rowof[p]
    before = rowadj[r] if rowflag[r] != 0 else rows[ci, r]
    listed = False
    for i in range(misc[MISC_NCTX]):
        listed = listed or ctx[i] == p
    if not listed:
        ctx[misc[MISC_NCTX]] = p
        misc[MISC_NCTX] += 1
    fac[p] = 0.0
    rowflag[r] = 2
    after = 0.0
    base = r * w
    for q in range(base + 1, base + n + 1):
        after += wt[ci, q] * fac[q]
    rowadj[r] = after
    return total - before + after


@njit(cache=True, nogil=True)
def run_playout(b, c, rng, owner, pol, grad, moves, replies, rules, scratch):
    """Play `b` out with the softmax policy from c to move (two passes or move_cap), return the
    area score (Black minus White, final owners in `owner`).  If grad has weight-length rows,
    grad[c-1] += psi(s_t, a_t) for each move of colour c; the first len(moves) moves are
    recorded in `moves`.  The draws do not depend on either, so a seed gives the same game.
    A stored last good reply (policies/playout.py) the policy would play (positive weight) is
    played without a draw; trainers pass a table without columns, as psi assumes draws.
    `rules` (RULE_*; NO_RULES for none): with
    RULE_LADDERS a drawn escape into a working ladder (engine/tactics.escape_is_caught, read
    on `scratch`, a board of b's size) is set aside for this move and another drawn, up to
    LADDER_REDRAWS times; each move is, with probability RULE_NAKADE, the vital point of a
    small space the last move was played in, else with probability RULE_FIGHTS an answer to
    the last move's local fight (engine/tactics/fights.py), when there is one the policy would play
    (these come before any stored reply).  With rules, psi is added for the drawn moves only:
    a rule's move does not depend on theta, so with rules of probability 1 (the search's
    defaults) and no ladder redraws this is the exact gradient of log P(game); a coin below 1
    makes it approximate (a draw can pick the move a rule would have played)."""
    b = borrowed_board(b)
    st = new_state(b, pol, True)
    color = borrow(b.color)
    head = borrow(b.head)
    libs = borrow(b.libs)
    csize = borrow(b.csize)
    nxt = borrow(b.nxt)
    meta = borrow(b.meta)
    npts = color.shape[0]
    n = meta[M_SIZE]
    w = meta[M_WIDTH]
    code = borrow(b.code3)
    wt = borrow(st.wt)
    rows = borrow(st.rows)
    rowmax = borrow(st.rowmax)
    fac = borrow(st.fac)
    dirty = borrow(st.dirty)
    dmark = borrow(st.dmark)
    dfull = borrow(st.dfull)
    wmark = borrow(st.wmark)
    tact = borrow(st.tact)
    ctx = borrow(st.ctx)
    rowflag = borrow(st.rowflag)
    rowadj = borrow(st.rowadj)
    fidx = borrow(st.fidx)
    misc = borrow(st.misc)
    etheta = borrow(pol.etheta)
    pclass = borrow(pol.pclass)
    rowof = borrow(st.rowof)
    line = borrow(st.line)
    mark, fval, done = borrow(b.mark), borrow(st.fval), borrow(st.done)
    theta, sq_ld, sq_li, pt_ld, eye = (borrow(pol.theta), borrow(pol.sq_ld), borrow(pol.sq_li),
                                       borrow(pol.pt_ld), borrow(pol.eye))
    p3 = pol.kind == PATTERN3X3
    shape = pol.kind == SHAPE2X2
    want_grad = grad.shape[1] > 0
    replies = borrow(replies)
    rng = borrow(rng)
    nrec = moves.shape[0]
    answers_own = np.empty(max(MAX_REPLIES, NAKADE_MAX + 1), np.int32)
    answers = borrow(answers_own)   # the owner is written after the loop: alive to there
    ladders = rules[RULE_LADDERS] > 0.0
    fights = rules[RULE_FIGHTS]
    nakade = rules[RULE_NAKADE]
    after_capture = rules[RULE_CAPTURE_NAKADE] if rules.shape[0] > RULE_CAPTURE_NAKADE else 0.0
    cap = move_cap(b)
    t = 0
    while meta[M_PASSES] < 2 and meta[M_MOVES] < cap:
        total = _begin(meta, npts, rowof, wt, fac, ctx, rowflag, rowadj, rows, etheta, p3, misc, c)
        p = PASS
        if total > 0.0:
            p = -1
            if 3 <= meta[M_CAUGHT] <= NAKADE_MAX and (after_capture >= 1.0 or (
                    after_capture > 0.0 and rand_float(rng) < after_capture)):
                p = captured_nakade_reply(color, meta, mark, c, answers)
            # A probability of 1 (the default) draws no number for the coin.
            if (p < 0 or wt[c - 1, p] * fac[p] <= 0.0) and (
                    nakade >= 1.0 or (nakade > 0.0 and rand_float(rng) < nakade)):
                p = nakade_reply(color, meta, mark, c, answers)
            if (p < 0 or wt[c - 1, p] * fac[p] <= 0.0) and (
                    fights >= 1.0 or (fights > 0.0 and rand_float(rng) < fights)):
                p = fight_reply(color, head, libs, nxt, mark, meta, c, rng, answers)
            if p < 0 or wt[c - 1, p] * fac[p] <= 0.0:
                p = stored_reply(replies, meta, c)
            if p < 0 or wt[c - 1, p] * fac[p] <= 0.0:
                p = _draw(n, w, rowflag, rowadj, rows, wt, fac, c, total, rand_float(rng))
                redraws = 0
                while (ladders and p != PASS and redraws < LADDER_REDRAWS
                       and escape_is_caught(b, p, c, scratch)):
                    total = _set_aside(p, c, n, w, wt, fac, ctx, rowof, rowflag, rowadj, rows,
                                       misc, total)
                    redraws += 1
                    p = PASS
                    if total > 0.0:
                        p = _draw(n, w, rowflag, rowadj, rows, wt, fac, c, total, rand_float(rng))
                if want_grad:
                    add_psi(b, st, pol, c, total, p, grad, c - 1)
        _end(rowof, ctx, fac, rowflag, misc)
        if t < nrec:
            moves[t] = p
        t += 1
        misc[MISC_NDIRTY] = 0
        misc[MISC_DSTAMP] += 1
        play_and_mark(b, color, head, libs, nxt, w, dirty, dmark, dfull, wmark, misc, shape,
                      p, c)
        _refresh_points(misc[MISC_NDIRTY], dirty, p3, color, head, libs, csize, nxt, mark, meta,
                        line, code, wt, tact, fidx, fval, done, misc, dfull, rows, rowmax, rowof,
                        etheta, pclass, theta, sq_ld, sq_li, pt_ld, eye)
        c = 3 - c
    answers_own[0] = 0
    return area_score(b, owner)


@njit(cache=True, nogil=True)
def _uniform_candidate(b, p, c):
    return not is_eye(b, p, c) and is_legal(b, p, c)


@njit(cache=True, nogil=True)
def probabilities(b, c, pol, out):
    """out[p] = pi(s, p) for c to move (0 for every non-candidate); returns the number of
    candidates."""
    out[:] = 0.0
    count = 0
    empties = borrow(b.empties)
    if pol.kind == UNIFORM or pol.kind == RULES:   # the rules draw no distribution: shown flat
        for i in range(b.meta[M_NEMPTY]):
            p = empties[i]
            if _uniform_candidate(b, p, c):
                out[p] = 1.0
                count += 1
        if count > 0:
            out /= count
        return count
    st = new_state(b, pol, True)
    wt = borrow(st.wt)
    fac = borrow(st.fac)
    total = begin_move(b, st, pol, c)
    if total > 0.0:
        for i in range(b.meta[M_NEMPTY]):
            p = empties[i]
            y = wt[c - 1, p] * fac[p]
            if y > 0.0:
                out[p] = y / total
                count += 1
    end_move(b, st)
    return count


@njit(cache=True, nogil=True)
def scores(b, c, pol, out):
    """out[p] = H(s, p) for every empty p, EXCLUDED_SCORE for non-candidates (illegal, ko, own
    eye); other entries untouched."""
    ko = b.meta[M_KO] if b.meta[M_KO_COLOR] == c else -1
    empties = borrow(b.empties)
    if pol.kind == UNIFORM or pol.kind == RULES:
        for i in range(b.meta[M_NEMPTY]):
            p = empties[i]
            out[p] = 0.0 if _uniform_candidate(b, p, c) else EXCLUDED_SCORE
        return
    if pol.kind == PATTERN3X3:
        _scores_p3(b, c, pol, out, ko)
        return
    st_own = new_state(b, pol, False)
    st = borrowed_state(st_own)   # move_features reads its fields at every point
    fidx = st.fidx
    fval = st.fval
    theta = borrow(pol.theta)
    for i in range(b.meta[M_NEMPTY]):
        p = empties[i]
        n = move_features(b, st, pol, p, c)
        if n < 0 or p == ko:
            out[p] = EXCLUDED_SCORE
        else:
            h = 0.0
            for k in range(n):
                h += fval[k] * theta[fidx[k]]
            out[p] = h
    st_own.misc[0] = 0   # keeps the borrowed state's owner alive to here


@njit(cache=True, nogil=True)
def _scores_p3(b, c, pol, out, ko):
    """`scores` for pattern3x3 without a play state: the tree's prior is evaluated at every
    expansion, and a state's eighteen arrays cost more than the scores
    (BENCHMARKS.md, session 28).  The same features in the same order as move_features, so
    the same sums to the last bit."""
    color = borrow(b.color)
    head = borrow(b.head)
    libs = borrow(b.libs)
    csize = borrow(b.csize)
    nxt = borrow(b.nxt)
    meta = borrow(b.meta)
    empties = borrow(b.empties)
    code3 = borrow(b.code3)
    pclass = borrow(pol.pclass)
    theta = borrow(pol.theta)
    npts = color.shape[0]
    w = meta[M_WIDTH]
    ints_own = np.empty(2 * npts + 32, np.int32)
    ints = borrow(ints_own)
    rowof = ints[:npts]
    line = ints[npts:2 * npts]
    fidx = ints[2 * npts:]
    point_tables(meta[M_SIZE], w, rowof, line)
    for i in range(meta[M_NEMPTY]):
        p = empties[i]
        k = pattern3x3_local(color, head, libs, nxt, w, line, pclass, code3[p], p,
                             c, scan(color, head, libs, csize, w, p), fidx)
        if k > 0:
            k = pattern3x3_context(meta, p, fidx, k)
        if k < 0 or p == ko:
            out[p] = EXCLUDED_SCORE
        else:
            h = 0.0
            for j in range(k):
                h += theta[fidx[j]]   # move_features' fval is 1: x * 1.0 == x exactly
            out[p] = h
    ints_own[0] = 0   # keeps the borrowed views' owner alive to here


@njit(cache=True, nogil=True)
def psi(b, c, pol, a, grad, gi):
    """grad[gi] += psi(s, a) for c to move; returns log pi(s, a) (-inf if a is not a candidate:
    then grad is unchanged; 0 when c has no candidate and a is PASS)."""
    if pol.kind == UNIFORM or pol.kind == RULES:
        return np.nan
    st = new_state(b, pol, True)
    total = begin_move(b, st, pol, c)
    result = -np.inf
    if total <= 0.0:
        result = 0.0 if a == PASS else -np.inf
    elif a != PASS and b.color[a] == EMPTY:
        y = st.wt[c - 1, a] * st.fac[a]
        if y > 0.0:
            result = np.log(y / total)
            add_psi(b, st, pol, c, total, a, grad, gi)
    end_move(b, st)
    return result


@njit(cache=True, nogil=True)
def sample_moves(b, c, pol, rng, counts, n):
    """Draw n moves for c from the position (unchanged) and count them in counts[p] (the
    sampler's own test)."""
    st = new_state(b, pol, True)
    total = begin_move(b, st, pol, c)
    if total > 0.0:
        for _ in range(n):
            counts[draw(b, st, c, total, rand_float(rng))] += 1
    end_move(b, st)


@njit(cache=True, nogil=True)
def sync_theta(pol):
    """After changing pol.theta in place (a trainer's step): refresh the derived exp(theta)."""
    theta = pol.theta
    etheta = pol.etheta
    for i in range(theta.shape[0]):
        etheta[i] = np.exp(min(max(theta[i], -LOG_CLAMP), LOG_CLAMP))
