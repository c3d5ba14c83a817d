"""Feature sets of the softmax playout policy: codes, symmetries, names, incremental update.

Two feature sets describe a candidate move a for the player c to move in state s:

`pattern3x3` (version 1), for 9x9 and larger (MoGo, Mango, Coulom 2007):
- the 3x3 pattern of colours around a (empty / own / opponent / off-board),
  canonicalised under the 8 symmetries of the square; "colour swap" is handled by
  reading the colours relative to the mover, so a pattern for Black to play and
  its colour-inverted twin for White to play share one weight;
- tactics, from the chains next to a: capture (by the number of stones taken),
  escaping atari by extension (by the liberties reached), self-atari (by the size
  of the chain put in atari), atari on an opponent chain;
- distance to the edge (line 1..4), Coulom distance (|dx|+|dy|+max(|dx|,|dy|):
  2, 3, 4) to the last move and to the second-to-last move, and pass.
All are binary; the pattern and tactics depend only on a's neighbourhood
("local"), the distances on the last two moves ("context").

`shape2x2` (version 1): Silver & Tesauro's local shape features: the
configuration of every 1x1 and 2x2 square of the board after the move, with
location-dependent weights (shared under the 8 board symmetries) and
location-independent weights (also shared under translation), both at once.
Colour inversion negates a weight: the preference is Black's evaluation of the
position after the move (for White, its negation), so a shape and its colour
inverse are one parameter with opposite signs and a colour-symmetric shape
(e.g. the empty square) has none.  This gives the paper's 107 weights on 5x5
(see `shape2x2_counts`).  Only the squares holding the move or a captured stone
differ between candidates, so the feature vector used here is the change from s
to the position after a (the rest cancels in the softmax and in psi).

Incremental update: every point keeps its 3x3 colour code (`code`), changed by
a single add on each of the 8 neighbours when a stone appears or disappears;
after each move `play_and_mark` lists the points whose features may have
changed ("dirty"), which is all the softmax kernel re-evaluates.
"""
import sys
from functools import lru_cache

import numpy as np
from numba import njit

from engine.core.board import (BLACK, BORDER, EMPTY, M_LAST, M_LAST2, M_SIZE, M_WIDTH, PASS, WHITE,
                               next_stamp, play)

from policies.nrt import borrow

# Policy kinds: the uniform policy, and the softmax policy over each feature set.
UNIFORM, SHAPE2X2, PATTERN3X3 = 0, 1, 2
FEATURE_SETS = {"shape2x2": SHAPE2X2, "pattern3x3": PATTERN3X3}

# ---------------------------------------------------------------------------------------------
# 3x3 codes
# ---------------------------------------------------------------------------------------------
# Neighbour k of a point, as (rows up, columns right); the code holds colour_k in bits 2k, 2k+1.
# Reading order is the printed order: top row left to right, middle left/right, bottom row.
NEIGHBOURS = ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1))
NCODES = 4 ** 8
SYMMETRIES = ((1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0),
              (1, 0, 0, -1), (-1, 0, 0, 1), (0, 1, 1, 0), (0, -1, -1, 0))  # (dr,dc) -> matrix


def _apply(sym, dr, dc):
    a, b, c, d = sym
    return a * dr + b * dc, c * dr + d * dc


@njit(cache=True, nogil=True, inline='always')
def code_at(color, w, p):
    """The 3x3 colour code of point `p`, from scratch."""
    return (np.int32(color[p + w - 1]) | (np.int32(color[p + w]) << 2)
            | (np.int32(color[p + w + 1]) << 4) | (np.int32(color[p - 1]) << 6)
            | (np.int32(color[p + 1]) << 8) | (np.int32(color[p - w - 1]) << 10)
            | (np.int32(color[p - w]) << 12) | (np.int32(color[p - w + 1]) << 14))


@njit(cache=True, nogil=True)
def fill_codes(b, code):
    """`code[p]` for every point of the board (border points get 0)."""
    color = borrow(b.color)
    n = b.meta[M_SIZE]
    w = b.meta[M_WIDTH]
    code = borrow(code)
    code[:] = 0
    for r in range(1, n + 1):
        for c in range(1, n + 1):
            code[r * w + c] = code_at(color, w, r * w + c)


@njit(cache=True, nogil=True, inline='always')
def update_codes(code, w, q, delta):
    """Point `q` changed colour by `delta` (new - old): fix the codes of its 8 neighbours.
    Neighbour r sees q at the mirrored offset, so q is digit 7-k of the point at q - offset_k."""
    code[q - w + 1] += delta            # q is r's top-left (k=0)
    code[q - w] += delta << 2
    code[q - w - 1] += delta << 4
    code[q + 1] += delta << 6
    code[q - 1] += delta << 8
    code[q + w + 1] += delta << 10
    code[q + w] += delta << 12
    code[q + w - 1] += delta << 14


def _digits():
    codes = np.arange(NCODES, dtype=np.int64)
    return np.stack([(codes >> (2 * k)) & 3 for k in range(8)])  # [8, NCODES]


def _from_digits(digits):
    return sum(digits[k].astype(np.int64) << (2 * k) for k in range(8))


def _valid_codes(digits):
    """Codes that can occur around an on-board point: off-board cells form nothing, one
    whole side, or two adjacent sides (a corner)."""
    border = digits == BORDER
    rows = {s: np.array([dr == s for dr, _ in NEIGHBOURS]) for s in (1, -1)}
    cols = {s: np.array([dc == s for _, dc in NEIGHBOURS]) for s in (1, -1)}
    shapes = [np.zeros(8, bool)] + list(rows.values()) + list(cols.values())
    shapes += [rows[a] | cols[b] for a in (1, -1) for b in (1, -1)]
    ok = np.zeros(NCODES, bool)
    for shape in shapes:
        ok |= np.all(border == shape[:, None], axis=0)
    return ok


def _transform(digits, sym):
    index = {off: k for k, off in enumerate(NEIGHBOURS)}
    out = np.empty_like(digits)
    for k, (dr, dc) in enumerate(NEIGHBOURS):
        out[index[_apply(sym, dr, dc)]] = digits[k]
    return out


def _swap_colours(digits):
    out = digits.copy()
    out[digits == BLACK] = WHITE
    out[digits == WHITE] = BLACK
    return out


@lru_cache(maxsize=None)
def pattern_tables():
    """(pclass, eye, class_codes): `pclass[c-1, code]` is the pattern3x3 class of a move by
    colour c with 3x3 colour code `code` (-1 if the code cannot occur); `eye[c-1, code]` is 1
    if the point is c's single-point eye (engine.core.board.is_eye, read from the code);
    `class_codes[i]` is the canonical code of class i, colours relative to the mover
    (BLACK = own, WHITE = opponent), the smallest code among the 8 symmetric images."""
    digits = _digits()
    valid = _valid_codes(digits)
    canon = np.min(np.stack([_from_digits(_transform(digits, s)) for s in SYMMETRIES]), axis=0)
    class_codes = np.unique(canon[valid])
    cls = np.full(NCODES, -1, dtype=np.int32)
    cls[valid] = np.searchsorted(class_codes, canon[valid])
    swapped = _from_digits(_swap_colours(digits))
    pclass = np.stack([cls, cls[swapped]]).astype(np.int32)
    eye = np.zeros((2, NCODES), dtype=np.int8)
    orth = [k for k, (dr, dc) in enumerate(NEIGHBOURS) if dr == 0 or dc == 0]
    diag = [k for k in range(8) if k not in orth]
    for c in (BLACK, WHITE):
        walled = np.all((digits[orth] == c) | (digits[orth] == BORDER), axis=0)
        bad = np.sum(digits[diag] == 3 - c, axis=0) + np.any(digits[diag] == BORDER, axis=0)
        eye[c - 1] = walled & (bad < 2) & valid
    return pclass, eye, class_codes


def playable_classes():
    """pattern3x3's table for the policy: the class of a move by colour c with code `code`, or
    -1 where the move fills c's own eye (or the code cannot occur), as int16 (cache-friendly)."""
    pclass, eye, _ = pattern_tables()
    return np.where(eye != 0, -1, pclass).astype(np.int16)


_SYMBOL = {EMPTY: ".", BLACK: "X", WHITE: "O", BORDER: "#"}


def render_code(code, centre="*"):
    """A 3x3 code as 'abc/d*e/fgh' (X = own/black, O = opponent/white, # = off board)."""
    d = [_SYMBOL[(int(code) >> (2 * k)) & 3] for k in range(8)]
    return f"{d[0]}{d[1]}{d[2]}/{d[3]}{centre}{d[4]}/{d[5]}{d[6]}{d[7]}"


# Pattern strings: 3 rows top to bottom, the move in the centre ('.').  X own stone, O opponent
# stone, '.' empty, '#' off board, '?' anything, 'x' anything but X, 'o' anything but O.
_ALLOWED = {"X": (BLACK,), "O": (WHITE,), ".": (EMPTY,), "#": (BORDER,),
            "?": (EMPTY, BLACK, WHITE, BORDER), "x": (EMPTY, WHITE, BORDER),
            "o": (EMPTY, BLACK, BORDER)}


def pattern_match_mask(rows, both_colours=True):
    """Which mover-relative 3x3 codes match the pattern `rows` under some symmetry (and, with
    `both_colours`, also with X and O exchanged): a bool array over all codes."""
    if len(rows) != 3 or any(len(r) != 3 for r in rows) or rows[1][1] != ".":
        raise ValueError(f"bad 3x3 pattern {rows!r}")
    digits = _digits()
    cell = {}
    for i in range(3):
        for j in range(3):
            if (i, j) != (1, 1):
                cell[(1 - i, j - 1)] = rows[i][j]
    variants = [digits, _swap_colours(digits)] if both_colours else [digits]
    mask = np.zeros(NCODES, bool)
    for dig in variants:
        for sym in SYMMETRIES:
            ok = np.ones(NCODES, bool)
            for k, (dr, dc) in enumerate(NEIGHBOURS):
                ok &= np.isin(dig[k], _ALLOWED[cell[_apply(sym, dr, dc)]])
            mask |= ok
    return mask


# ---------------------------------------------------------------------------------------------
# pattern3x3: layout of the weight vector
# ---------------------------------------------------------------------------------------------
PATTERN3X3_VERSION = 1
N_PAT = 1107           # canonical 3x3 classes (checked against pattern_tables() at import)
CAP_OFF = N_PAT        # capture 1, 2, 3-5, 6+ stones
ESC_OFF = CAP_OFF + 4  # escape atari by extension, reaching 2 / 3+ liberties
SA_OFF = ESC_OFF + 2   # self-atari of a chain of 1, 2, 3+ stones (not capturing)
ATARI_OFF = SA_OFF + 3  # puts an opponent chain in atari
LINE_OFF = ATARI_OFF + 1  # on line 1, 2, 3, 4 (5 and more: no feature)
LAST_OFF = LINE_OFF + 4   # Coulom distance 2, 3, 4 to the last move
LAST2_OFF = LAST_OFF + 3  # ... to the move before it
PASS_OFF = LAST2_OFF + 3
N_PATTERN3X3 = PASS_OFF + 1
MAX_DIST = 4           # largest Coulom distance with a feature
# Offsets (rows, cols) within the distance window, i.e. Coulom distance 2..MAX_DIST.
WINDOW = tuple((dr, dc) for dr in range(-2, 3) for dc in range(-2, 3)
               if 2 <= abs(dr) + abs(dc) + max(abs(dr), abs(dc)) <= MAX_DIST)
WINDOW_DR = np.array([dr for dr, _ in WINDOW], dtype=np.int64)
WINDOW_DC = np.array([dc for _, dc in WINDOW], dtype=np.int64)
WINDOW_BUCKET = np.array([abs(dr) + abs(dc) + max(abs(dr), abs(dc)) - 2 for dr, dc in WINDOW],
                         dtype=np.int64)  # Coulom distance - 2: the offset of its weight


def pattern3x3_names():
    _, _, class_codes = pattern_tables()
    names = ["pat:" + render_code(code) for code in class_codes]
    names += ["capture:1", "capture:2", "capture:3-5", "capture:6+", "escape:2libs",
              "escape:3+libs", "selfatari:1", "selfatari:2", "selfatari:3+", "atari"]
    names += [f"line:{k}" for k in range(1, 5)]
    names += [f"last:d{d}" for d in range(2, MAX_DIST + 1)]
    names += [f"last2:d{d}" for d in range(2, MAX_DIST + 1)]
    names.append("pass")
    assert len(names) == N_PATTERN3X3
    return names


@njit(cache=True, nogil=True, inline='always')
def coulom_distance(dr, dc):
    ar = abs(dr)
    ac = abs(dc)
    return ar + ac + max(ar, ac)


@njit(cache=True, nogil=True)
def point_tables(n, w, rowof, line):
    """Per point: its row, and its line (1 for the edge, 2 for the next, ...; 0 off the
    board).  Tables, because integer division costs more than the rest of a point's update."""
    for p in range(w * w):
        r = p // w
        c = p - r * w
        rowof[p] = r
        line[p] = max(0, min(min(r, c), min(n + 1 - r, n + 1 - c)))


@njit(cache=True, nogil=True, inline='always')
def scan(color, head, libs, csize, w, p):
    """What the tactical features need to know about the chains next to empty `p`:
    (empty neighbours, then for Black and for White: stones in adjacent chains in atari,
    adjacent chains with exactly 2 liberties, adjacent chains with 2+ liberties, stones in
    adjacent chains, most liberties of an adjacent chain).  Each chain is counted once."""
    ne = 0
    at1b = at1w = l2b = l2w = okb = okw = szb = szw = mxb = mxw = 0
    h1 = h2 = h3 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        cq = color[q]
        if cq == EMPTY:
            ne += 1
        elif cq != BORDER:
            h = head[q]
            if h == h1 or h == h2 or h == h3:
                continue
            if h1 < 0:
                h1 = h
            elif h2 < 0:
                h2 = h
            else:
                h3 = h
            lib = libs[h]
            sz = csize[h]
            if cq == BLACK:
                szb += sz
                mxb = max(mxb, lib)
                if lib == 1:
                    at1b += sz
                else:
                    okb += 1
                    if lib == 2:
                        l2b += 1
            else:
                szw += sz
                mxw = max(mxw, lib)
                if lib == 1:
                    at1w += sz
                else:
                    okw += 1
                    if lib == 2:
                        l2w += 1
    return ne, at1b, at1w, l2b, l2w, okb, okw, szb, szw, mxb, mxw


@njit(cache=True, nogil=True, inline='always')
def libs_after(color, head, libs, nxt, w, p, c, cap):
    """Liberties (at most `cap`, which is 2 or 3) of c's chain through `p` if c played there
    without capturing: p's empty neighbours and the other liberties of c's adjacent chains."""
    n = 0
    l1 = l2 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] == EMPTY:
            n += 1
            if n >= cap:
                return cap
            if l1 < 0:
                l1 = q
            else:
                l2 = q
    h1 = h2 = h3 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] != c:
            continue
        h = head[q]
        if h == h1 or h == h2 or h == h3:
            continue
        if h1 < 0:
            h1 = h
        elif h2 < 0:
            h2 = h
        else:
            h3 = h
        if libs[h] - 1 >= cap:
            return cap
        s = h
        while True:
            for r in (s - 1, s + 1, s - w, s + w):
                if r != p and r != l1 and r != l2 and color[r] == EMPTY:
                    n += 1
                    if n >= cap:
                        return cap
                    if l1 < 0:
                        l1 = r
                    else:
                        l2 = r
            s = nxt[s]
            if s == h:
                break
    return n


@njit(cache=True, nogil=True, inline='always')
def pattern3x3_tactics(color, head, libs, nxt, w, line, p, c, sc, fidx, k):
    """Append to fidx[k:] the tactical and line features of c playing at empty `p` (board
    arrays, width w, `line` from point_tables), whose `scan` is `sc`; returns the new count,
    or -1 if the move is illegal (suicide; simple ko is context, not seen here)."""
    ne = sc[0]
    # sc: (empty, Black's and White's: atari stones, 2-liberty chains, 2+ liberty chains,
    # stones, most liberties), read as own / opponent.
    if c == BLACK:
        capture, own_atari, opp_two, own_ok = sc[2], sc[1], sc[4], sc[5]
        own_size, own_max = sc[7], sc[9]
    else:
        capture, own_atari, opp_two, own_ok = sc[1], sc[2], sc[3], sc[6]
        own_size, own_max = sc[8], sc[10]
    if ne == 0 and capture == 0 and own_ok == 0:
        return -1
    if capture > 0:
        fidx[k] = CAP_OFF + (0 if capture == 1 else 1 if capture == 2 else 2 if capture <= 5 else 3)
        k += 1
    elif own_atari > 0 or ne <= 1:
        if own_atari == 0:
            lib = libs_after(color, head, libs, nxt, w, p, c, 2)   # only self-atari matters
        elif ne >= 3 or own_max >= 4:
            lib = 3
        else:
            lib = libs_after(color, head, libs, nxt, w, p, c, 3)
        if lib <= 1:
            size = 1 + own_size
            fidx[k] = SA_OFF + (0 if size == 1 else 1 if size == 2 else 2)
            k += 1
        elif own_atari > 0:
            fidx[k] = ESC_OFF + (0 if lib == 2 else 1)
            k += 1
    if opp_two > 0:
        fidx[k] = ATARI_OFF
        k += 1
    ln = line[p]
    if ln <= 4:
        fidx[k] = LINE_OFF + ln - 1
        k += 1
    return k


@njit(cache=True, nogil=True, inline='always')
def pattern3x3_local(color, head, libs, nxt, w, line, pclass, code, p, c, sc, fidx):
    """The local features of c playing at empty `p`: its 3x3 pattern class (from `code` and
    the policy's `pclass`, -1 where the move fills c's own eye: see playable_classes), then
    pattern3x3_tactics.  Returns the count, or -1 if the move is not a playout candidate."""
    cls = pclass[c - 1, code]
    if cls < 0:
        return -1
    fidx[0] = cls
    return pattern3x3_tactics(color, head, libs, nxt, w, line, p, c, sc, fidx, 1)


@njit(cache=True, nogil=True, inline='always')
def pattern3x3_context(meta, p, fidx, k):
    """Append the distance-to-last-moves features of `p` to `fidx[k:]`; returns the new count."""
    w = meta[M_WIDTH]
    r = p // w
    c = p - r * w
    last = meta[M_LAST]
    if last >= 0:
        lr = last // w
        d = coulom_distance(r - lr, c - (last - lr * w))
        if 2 <= d <= MAX_DIST:
            fidx[k] = LAST_OFF + d - 2
            k += 1
    last = meta[M_LAST2]
    if last >= 0:
        lr = last // w
        d = coulom_distance(r - lr, c - (last - lr * w))
        if 2 <= d <= MAX_DIST:
            fidx[k] = LAST2_OFF + d - 2
            k += 1
    return k


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
    dr, dc = _apply(sym, r - h, c - h)
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
                rr, cc = _apply(sym, r - 0.5, c - 0.5)
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
def play_and_mark(b, color, head, libs, nxt, w, code, dirty, dmark, dfull, wmark, misc, near_atari,
                  p, c):
    """Play c at p (legal) on `b` (whose arrays and width are passed too: see softmax.py's speed
    notes), update the 3x3 `code`s, and list in `dirty[:misc[0]]` the
    points whose features may have changed (`dmark`/`misc[1]` is the de-duplication stamp,
    `wmark` the same for chains walked, dfull[q] = 0 if only q's 3x3 pattern changed; the
    caller resets misc[0] and bumps misc[1] before each move).  Returns the captures.

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
    update_codes(code, w, p, c)
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
                update_codes(code, w, s, -o)
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


def _check():
    pclass, eye, class_codes = pattern_tables()
    assert len(class_codes) == N_PAT, len(class_codes)


_check()


def main(argv=None):
    """Print the number of unique weights of each feature set per board size."""
    sizes = [int(x) for x in (argv or sys.argv[1:])] or [5, 6, 7, 9, 13, 19]
    print(f"pattern3x3 v{PATTERN3X3_VERSION}: {N_PATTERN3X3} weights on every board size "
          f"({N_PAT} 3x3 pattern classes + {N_PATTERN3X3 - N_PAT} tactical/distance/pass)")
    for n in sizes:
        c = shape2x2_counts(n)
        print(f"shape2x2 v{SHAPE2X2_VERSION} {n}x{n}: {c['total']} weights "
              f"(location-independent 1x1 {c['li1x1']}, 2x2 {c['li2x2']}; "
              f"location-dependent 1x1 {c['ld1x1']}, 2x2 {c['ld2x2']})")

