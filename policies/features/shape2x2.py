"""The `shape2x2` feature set (Silver & Tesauro's local shapes, the small boards): the layout
of its location-dependent and location-independent weights under the board's symmetries and
colour inversion, and the compiled change of the features a candidate move makes.  See the
package docstring for what the features mean.
"""
from functools import lru_cache

import numpy as np
from numba import njit

from engine.core.board import BLACK, EMPTY, M_SIZE, M_WIDTH, next_stamp
from policies.features.codes import SYMMETRIES, apply_symmetry
from policies.nrt import borrow

# ---------------------------------------------------------------------------------------------
# shape2x2
# ---------------------------------------------------------------------------------------------
SHAPE2X2_VERSION = 1
# A 2x2 square's cells: 0 = bottom-left, 1 = bottom-right, 2 = top-left, 3 = top-right; its
# configuration is sum(colour * 3**cell).
POW3 = (1, 3, 9, 27)
_CELLS = ((0, 0), (0, 1), (1, 0), (1, 1))  # (row, col) within the square


def _cfg_digits(cfg):
    return [(cfg // 3 ** k) % 3 for k in range(4)]


def _cfg_from(digits):
    return sum(d * 3 ** k for k, d in enumerate(digits))


def _cfg_swap(cfg):
    return _cfg_from([{0: 0, 1: 2, 2: 1}[d] for d in _cfg_digits(cfg)])


def render_cfg(cfg):
    s = {0: ".", 1: "X", 2: "O"}
    d = _cfg_digits(cfg)
    return f"{s[d[2]]}{s[d[3]]}/{s[d[0]]}{s[d[1]]}"


def _board_sym(sym, n, r, c):
    """Image of board cell (r, c) (0-based) under symmetry `sym` of an n x n board."""
    h = (n - 1) / 2
    dr, dc = apply_symmetry(sym, r - h, c - h)
    return int(round(dr + h)), int(round(dc + h))


def _orbits(items, images, swap):
    """Weight classes of a shape family: `images(item)` lists an item's symmetric images (itself
    included), `swap(item)` its colour inverse.  Returns {item: (class, sign)} with sign 0 for
    items equal (up to symmetry) to their own inverse, and the list of the classes'
    representatives (the positive member's smallest item)."""
    orbit_of, orbits = {}, []
    for it in items:
        if it not in orbit_of:
            members = frozenset(images(it))
            for m in members:
                orbit_of[m] = len(orbits)
            orbits.append(members)
    out, reps, done = {}, [], {}
    for i, members in enumerate(orbits):
        j = orbit_of[swap(min(members))]
        if i == j:
            for m in members:
                out[m] = (-1, 0)
            continue
        if i in done:
            continue
        a, b = min(orbits[i]), min(orbits[j])
        pos, neg = (i, j) if _black_first(a) <= _black_first(b) else (j, i)
        k = len(reps)
        reps.append(min(orbits[pos]))
        for m in orbits[pos]:
            out[m] = (k, 1)
        for m in orbits[neg]:
            out[m] = (k, -1)
        done[i] = done[j] = True
    return out, reps


def _black_first(item):
    """Order for choosing which of a shape and its inverse is named (and counts positive):
    more black stones first, then the smaller item."""
    cfg = item[-1]
    d = _cfg_digits(cfg) if cfg >= 0 else []
    return (-(d.count(1) - d.count(2)), item)


@lru_cache(maxsize=None)
def _li_classes():
    """Location-independent classes: 2x2 configurations under the 8 symmetries of a square."""
    def images(item):
        out = []
        for sym in SYMMETRIES:
            d = _cfg_digits(item[0])
            new = [0] * 4
            for k, (r, c) in enumerate(_CELLS):
                rr, cc = apply_symmetry(sym, r - 0.5, c - 0.5)
                new[_CELLS.index((int(rr + 0.5), int(cc + 0.5)))] = d[k]
            out.append((_cfg_from(new),))
        return out
    return _orbits([(cfg,) for cfg in range(81)], images, lambda it: (_cfg_swap(it[0]),))


@lru_cache(maxsize=None)
def shape2x2_layout(size):
    """The shape2x2 weights of an NxN board: (names, sq_ld, sq_li, pt_ld) where the tables map
    a square's bottom-left point (padded index) and configuration, a configuration, or a
    point to a signed weight reference s*(index+1) (0: no weight).  A black stone at a point
    counts +1 on its 1x1 weights, a white one -1.  Layout: li1x1, li2x2 classes, ld1x1
    classes, ld2x2 classes."""
    n = size
    w = n + 2
    li_map, li_reps = _li_classes()
    names = ["li1x1"] + ["li2x2:" + render_cfg(rep[0]) for rep in li_reps]
    sq_li = np.zeros(81, dtype=np.int32)
    for cfg in range(81):
        k, s = li_map[(cfg,)]
        sq_li[cfg] = s * (1 + k + 1)
    # ld1x1: orbits of (point, stone colour); a white stone is a black one's inverse.
    points = [(r, c) for r in range(n) for c in range(n)]
    pt_map, pt_reps = _orbits([(r, c, k) for r, c in points for k in (1, 2)],
                              lambda it: [(*_board_sym(s, n, it[0], it[1]), it[2])
                                          for s in SYMMETRIES],
                              lambda it: (it[0], it[1], 2))
    base = len(names)
    names += [f"ld1x1:r{r + 1}c{c + 1}" for r, c, _ in pt_reps]
    pt_ld = np.zeros(w * w, dtype=np.int32)
    for r, c in points:
        k, s = pt_map[(r, c, 1)]
        pt_ld[(r + 1) * w + c + 1] = s * (base + k + 1)

    def sq_images(item):
        r0, c0, cfg = item
        d = _cfg_digits(cfg)
        out = []
        for sym in SYMMETRIES:
            cells = [_board_sym(sym, n, r0 + r, c0 + c) for r, c in _CELLS]
            br, bc = min(x for x, _ in cells), min(y for _, y in cells)
            new = [0] * 4
            for k, (r, c) in enumerate(cells):
                new[_CELLS.index((r - br, c - bc))] = d[k]
            out.append((br, bc, _cfg_from(new)))
        return out
    squares = [(r, c) for r in range(n - 1) for c in range(n - 1)]
    sq_map, sq_reps = _orbits([(r, c, cfg) for r, c in squares for cfg in range(81)], sq_images,
                              lambda it: (it[0], it[1], _cfg_swap(it[2])))
    base = len(names)
    names += [f"ld2x2:r{r + 1}c{c + 1}:{render_cfg(cfg)}" for r, c, cfg in sq_reps]
    sq_ld = np.zeros((w * w, 81), dtype=np.int32)
    for r, c in squares:
        for cfg in range(81):
            k, s = sq_map[(r, c, cfg)]
            sq_ld[(r + 1) * w + c + 1, cfg] = s * (base + k + 1)
    return names, sq_ld, sq_li, pt_ld


def shape2x2_counts(size):
    """Unique shape2x2 weights on an NxN board, by kind."""
    names = shape2x2_layout(size)[0]
    kinds = ("li1x1", "li2x2", "ld1x1", "ld2x2")
    counts = {k: sum(1 for x in names if x.split(":")[0] == k) for k in kinds}
    counts["total"] = len(names)
    return counts


@njit(cache=True, nogil=True, inline='always')
def _add_weight(ref, val, fidx, fval, n):
    """Append the signed weight reference `ref` (see shape2x2_layout) with factor `val`."""
    if ref != 0:
        if ref > 0:
            fidx[n] = ref - 1
            fval[n] = val
        else:
            fidx[n] = -ref - 1
            fval[n] = -val
        n += 1
    return n


@njit(cache=True, nogil=True, inline='always')
def _square_cfg(color, mark, w, s, p, c, stamp):
    """Configurations (before, after) of the square with bottom-left `s` when c plays at p and
    the stones marked in `mark` with `stamp` are captured."""
    s = np.int64(s)
    before = 0
    after = 0
    k = 0
    for q in (s, s + 1, s + w, s + w + 1):
        cq = color[q]
        before += cq * POW3[k]
        if q == p:
            after += c * POW3[k]
        elif cq != EMPTY and mark[q] != stamp:
            after += cq * POW3[k]
        k += 1
    return before, after


@njit(cache=True, nogil=True, inline='always')
def _add_squares_of(color, mark, size, w, sq_ld, sq_li, q, p, c, sgn, stamp, done, dstamp,
                    fidx, fval, n):
    """Append the changes of the 2x2 squares containing point q not yet `done`."""
    q = np.int64(q)
    for s in (q, q - 1, q - w, q - w - 1):
        r = s // w
        col = s - r * w
        if r < 1 or r >= size or col < 1 or col >= size or done[s] == dstamp:
            continue
        done[s] = dstamp
        before, after = _square_cfg(color, mark, w, s, p, c, stamp)
        n = _add_weight(sq_ld[s, after], sgn, fidx, fval, n)
        n = _add_weight(sq_ld[s, before], -sgn, fidx, fval, n)
        n = _add_weight(sq_li[after], sgn, fidx, fval, n)
        n = _add_weight(sq_li[before], -sgn, fidx, fval, n)
    return n


@njit(cache=True, nogil=True, inline='always')
def _add_point(pt_ld, q, fidx, fval, n):
    """The 1x1 change of a stone of the mover appearing, or of an opponent's disappearing:
    +1 on the point's weights either way (sign of the stone times the mover's sign)."""
    n = _add_weight(pt_ld[q], 1.0, fidx, fval, n)
    fidx[n] = 0  # li1x1
    fval[n] = 1.0
    return n + 1


@njit(cache=True, nogil=True)
def shape2x2_local(b, pol, code, p, c, sc, fidx, fval, done, dstamp):
    """The shape2x2 feature changes (index, value) of c playing at empty `p`: every 1x1 and 2x2
    square holding p or a captured stone, after minus before, signed for the mover (+ for
    Black).  Returns the count, or -1 if the move is not a playout candidate.  `done` is a
    scratch int array of board length, `dstamp` a value not yet in it (squares counted)."""
    return shape2x2_arrays(borrow(b.color), borrow(b.head), borrow(b.libs), borrow(b.nxt),
                           borrow(b.mark), borrow(b.meta), borrow(pol.sq_ld), borrow(pol.sq_li),
                           borrow(pol.pt_ld), borrow(pol.eye), code, p, c, sc, fidx, fval, done,
                           dstamp)


@njit(cache=True, nogil=True, inline='always')
def shape2x2_arrays(color, head, libs, nxt, mark, meta, sq_ld, sq_li, pt_ld, eye, code, p, c, sc,
                    fidx, fval, done, dstamp):
    """shape2x2_local on the board's and the policy's arrays (for hot loops that hold them)."""
    size = meta[M_SIZE]
    w = meta[M_WIDTH]
    ci = c - 1
    if eye[ci, code] != 0:
        return -1
    o = 3 - c
    ne = sc[0]
    capture = sc[2] if c == BLACK else sc[1]
    own_ok = sc[5] if c == BLACK else sc[6]
    if ne == 0 and capture == 0 and own_ok == 0:
        return -1
    sgn = 1.0 if c == BLACK else -1.0
    stamp = next_stamp(mark, meta)
    # The captured chains (up to 4 distinct ones around p): heads h1..h4, stones marked.
    h1 = h2 = h3 = h4 = -1
    if capture > 0:
        for q in (p - 1, p + 1, p - w, p + w):
            if color[q] == o and libs[head[q]] == 1 and mark[q] != stamp:
                h = head[q]
                if h1 < 0:
                    h1 = h
                elif h2 < 0:
                    h2 = h
                elif h3 < 0:
                    h3 = h
                else:
                    h4 = h
                s = h
                while True:
                    mark[s] = stamp
                    s = nxt[s]
                    if s == h:
                        break
    n = _add_point(pt_ld, p, fidx, fval, 0)
    n = _add_squares_of(color, mark, size, w, sq_ld, sq_li, p, p, c, sgn, stamp, done, dstamp,
                        fidx, fval, n)
    for h in (h1, h2, h3, h4):
        if h < 0:
            continue
        s = h
        while True:
            n = _add_point(pt_ld, s, fidx, fval, n)
            n = _add_squares_of(color, mark, size, w, sq_ld, sq_li, s, p, c, sgn, stamp, done,
                                dstamp, fidx, fval, n)
            s = nxt[s]
            if s == h:
                break
    return n
