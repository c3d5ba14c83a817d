"""The Go board: compiled rules core that everything else plays on.

Layout (after Pachi's board.c and KataGo's board.h): a flat array of
(N+2)x(N+2) points with a one-point border, so neighbours are p-1, p+1, p-W,
p+W with W = N+2.  Point (row r, column c), both from 1 at the bottom left, is
`r*W + c`.  Stones belong to chains kept as circular linked lists (`nxt`) with
a representative `head`; the head holds the chain's exact liberty count and
size, updated incrementally as stones are placed and captured.  Empty points
are kept in a list with back-pointers for O(1) random choice and removal.
Every point's 3x3 colour code (`code3`: the colours of its 8 neighbours, two
bits each) is kept up to date too, by one add per neighbour of a stone placed
or removed, so that pattern lookups read one number instead of eight colours.
The head also holds the sum of its chain's liberties' point indices (`libsum`,
as in Fuego's and GNU Go's liberty bookkeeping, but as one number): a chain in
atari has its liberty at `libsum[h]`, and a chain with two liberties, one of
them known, has the other at `libsum[h] - known`, without walking the chain.

A board is a namedtuple of numpy arrays, so compiled code can take it whole.
Copying is a handful of small array copies (`copy_into` reuses storage), which
is how search branches and how GTP undo works.

Rules: area (Tromp-Taylor) scoring, suicide illegal, simple ko enforced here;
positional superko is enforced by the game record (engine/play/game.py) for real
moves, using the Zobrist hash of the stones kept in `meta[M_HASH]`.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from engine.core.jit import no_refcount, no_refcount_inline

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
PASS = -1
MAX_SIZE = 25

# Slots of the int64 `meta` array.
M_SIZE = 0       # N
M_WIDTH = 1      # W = N + 2
M_KO = 2         # point forbidden by simple ko, or -1
M_KO_COLOR = 3   # colour forbidden to play at M_KO
M_NEMPTY = 4     # number of empty points (length of `empties`)
M_CAP = 5        # M_CAP + colour - 1: stones captured *by* that colour
M_LAST = 7       # last move (PASS, or -2 for none)
M_LAST2 = 8      # move before the last
M_PASSES = 9     # consecutive passes
M_MOVES = 10     # moves played on this board
M_HASH = 11      # Zobrist hash of the stones (positional)
M_STAMP = 12     # generation counter for the `mark` scratch array
M_CAUGHT = 13    # stones the last move captured
M_LEN = 14
NO_MOVE = -2

Board = namedtuple("Board", "color head nxt libs csize empties epos mark meta zob code3 libsum")

# 3x3 codes.  Neighbour k of a point, as (rows up, columns right); a code holds colour_k in
# bits 2k, 2k+1.  Reading order is the printed order: top row left to right, middle left and
# right, bottom row.  policies/features/codes.py builds the pattern classes on this layout.
NEIGHBOURS = ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1))


@njit(cache=True, nogil=True, inline='always')
def code_at(color, w, p):
    """The 3x3 colour code of point `p`, from scratch (the board keeps them in `code3`)."""
    return (np.int32(color[p + w - 1]) | (np.int32(color[p + w]) << 2)
            | (np.int32(color[p + w + 1]) << 4) | (np.int32(color[p - 1]) << 6)
            | (np.int32(color[p + 1]) << 8) | (np.int32(color[p - w - 1]) << 10)
            | (np.int32(color[p - w]) << 12) | (np.int32(color[p - w + 1]) << 14))


@njit(cache=True, nogil=True, inline='always')
def _update_codes(code, w, q, delta):
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

_zobrist_tables = {}


def zobrist_table(width):
    """Zobrist keys [colour, point] for a board of this padded width; fixed seed so hashes are stable."""
    table = _zobrist_tables.get(width)
    if table is None:
        gen = np.random.default_rng(0x5EED + width)
        table = gen.integers(-(2 ** 63), 2 ** 63 - 1, size=(3, width * width), dtype=np.int64)
        table[EMPTY, :] = 0
        _zobrist_tables[width] = table
    return table


def new_board(size):
    """An empty board of `size` x `size` (2..MAX_SIZE)."""
    if not 2 <= size <= MAX_SIZE:
        raise ValueError(f"board size {size} outside 2..{MAX_SIZE}")
    width = size + 2
    npoints = width * width
    color = np.full(npoints, BORDER, dtype=np.int8)
    empties = np.zeros(size * size, dtype=np.int32)
    epos = np.full(npoints, -1, dtype=np.int32)
    n = 0
    for r in range(1, size + 1):
        for c in range(1, size + 1):
            p = r * width + c
            color[p] = EMPTY
            empties[n] = p
            epos[p] = n
            n += 1
    meta = np.zeros(M_LEN, dtype=np.int64)
    meta[M_SIZE] = size
    meta[M_WIDTH] = width
    meta[M_KO] = -1
    meta[M_NEMPTY] = n
    meta[M_LAST] = NO_MOVE
    meta[M_LAST2] = NO_MOVE
    code3 = np.zeros(npoints, np.int32)   # border points' codes are never read
    for p in empties:
        code3[p] = code_at(color, width, p)
    return Board(color, np.zeros(npoints, np.int32), np.zeros(npoints, np.int32),
                 np.zeros(npoints, np.int32), np.zeros(npoints, np.int32),
                 empties, epos, np.zeros(npoints, np.int32), meta, zobrist_table(width), code3,
                 np.zeros(npoints, np.int32))


@njit(cache=True)
def copy_board(b):
    return Board(b.color.copy(), b.head.copy(), b.nxt.copy(), b.libs.copy(), b.csize.copy(),
                 b.empties.copy(), b.epos.copy(), b.mark.copy(), b.meta.copy(), b.zob,
                 b.code3.copy(), b.libsum.copy())


@no_refcount
def copy_into(dst, src):
    """Overwrite `dst` with `src` (same size) without allocating: the per-playout reset;
    without reference counting (engine/core/jit.py), as it runs once a simulation and once a
    node of the tree's ladder reading.  Loops, not slice assignments, which need numba's runtime."""
    # `mark` is not copied: it only has to stay below the stamp, so keep dst's stamp if it is
    # ahead (reusing a stamp value that dst's marks already hold would corrupt liberty counts).
    stamp = dst.meta[M_STAMP]
    _copy(dst.color, src.color)
    _copy(dst.head, src.head)
    _copy(dst.nxt, src.nxt)
    _copy(dst.libs, src.libs)
    _copy(dst.csize, src.csize)
    _copy(dst.empties, src.empties)
    _copy(dst.epos, src.epos)
    _copy(dst.meta, src.meta)
    _copy(dst.code3, src.code3)
    _copy(dst.libsum, src.libsum)
    if stamp > dst.meta[M_STAMP]:
        dst.meta[M_STAMP] = stamp


@njit(cache=True, nogil=True, inline='always')
def _copy(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def _new_stamp(b):
    return next_stamp(b.mark, b.meta)


@njit(cache=True, nogil=True, inline='always')
def next_stamp(mark, meta):
    """A `mark` value no point holds yet (the board's arrays, for hot loops that hold them)."""
    meta[M_STAMP] += 1
    if meta[M_STAMP] >= 2 ** 31 - 1:
        mark[:] = 0
        meta[M_STAMP] = 1
    return np.int32(meta[M_STAMP])


@no_refcount
def _remove_empty(b, p):
    n = b.meta[M_NEMPTY] - 1
    i = b.epos[p]
    last = b.empties[n]
    b.empties[i] = last
    b.epos[last] = i
    b.epos[p] = -1
    b.meta[M_NEMPTY] = n


@no_refcount
def _add_empty(b, p):
    n = b.meta[M_NEMPTY]
    b.empties[n] = p
    b.epos[p] = n
    b.meta[M_NEMPTY] = n + 1


@no_refcount
def is_legal(b, p, c):
    """Can colour `c` play at `p` (a point, not PASS)?  Occupied, suicide and simple ko are illegal."""
    if b.color[p] != EMPTY:
        return False
    if p == b.meta[M_KO] and c == b.meta[M_KO_COLOR]:
        return False
    w = b.meta[M_WIDTH]
    for q in (p - 1, p + 1, p - w, p + w):
        cq = b.color[q]
        if cq == EMPTY:
            return True
        if cq == c:
            if b.libs[b.head[q]] > 1:
                return True
        elif cq != BORDER:
            if b.libs[b.head[q]] == 1:
                return True
    return False


is_legal_inlined = no_refcount_inline(is_legal.py_func)
"""`is_legal`, copied into its caller: for the playout loops that ask it of every point they
consider (a call would push the whole board record)."""


@no_refcount
def is_eye(b, p, c):
    """Is empty `p` a single-point eye of colour `c`: every neighbour `c` (or edge) and the
    diagonals not controlled by the opponent (one opposing diagonal tolerated away from the edge)."""
    w = b.meta[M_WIDTH]
    for q in (p - 1, p + 1, p - w, p + w):
        cq = b.color[q]
        if cq != c and cq != BORDER:
            return False
    bad = 0
    edge = False
    for q in (p - w - 1, p - w + 1, p + w - 1, p + w + 1):
        cq = b.color[q]
        if cq == BORDER:
            edge = True
        elif cq == 3 - c:
            bad += 1
    if edge:
        bad += 1  # at the edge no opposing diagonal is tolerated
    return bad < 2


@no_refcount
def _merge(b, keep, gone):
    """Join chain `gone` into chain `keep` (both heads); liberties are the caller's job."""
    head = b.head
    nxt = b.nxt
    csize = b.csize
    s = gone
    while True:
        head[s] = keep
        s = nxt[s]
        if s == gone:
            break
    t = nxt[keep]
    nxt[keep] = nxt[gone]
    nxt[gone] = t
    csize[keep] += csize[gone]


@njit(cache=True, inline='always')
def _libs_not_of(color, head, mark, stamp, w, big, c, s):
    """How many empty neighbours of `s` not yet marked `stamp` (marked now) are not liberties of
    c's chain `big`, and the sum of their points."""
    n = 0
    total = 0
    for r in (s - 1, s + 1, s - w, s + w):
        if color[r] == EMPTY and mark[r] != stamp:
            mark[r] = stamp
            # Empty points keep stale heads, hence the colour tests.
            if not (color[r - 1] == c and head[r - 1] == big
                    or color[r + 1] == c and head[r + 1] == big
                    or color[r - w] == c and head[r - w] == big
                    or color[r + w] == c and head[r + w] == big):
                n += 1
                total += r
    return n, total


@no_refcount
def _merged_libs(b, p, c):
    """Liberties of the chain that c's new stone at `p` makes of its two or more adjacent
    chains, counted before they are merged: the biggest one's (already without p), plus the
    liberties of p and of the other chains that the biggest one does not have, so that only the
    smaller chains are walked.  Returns (liberties, the sum of their points)."""
    color = b.color
    head = b.head
    csize = b.csize
    nxt = b.nxt
    mark = b.mark
    w = b.meta[M_WIDTH]
    big = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] == c and (big < 0 or csize[head[q]] > csize[big]):
            big = head[q]
    stamp = _new_stamp(b)
    n, total = _libs_not_of(color, head, mark, stamp, w, big, c, p)
    n += b.libs[big]
    total += b.libsum[big]
    h2 = -1
    h3 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] != c:
            continue
        h = head[q]
        if h == big or h == h2 or h == h3:
            continue
        if h2 < 0:
            h2 = h
        else:
            h3 = h   # a third other chain overwrites: with four neighbours none can repeat
        s = h
        while True:
            k, t = _libs_not_of(color, head, mark, stamp, w, big, c, s)
            n += k
            total += t
            s = nxt[s]
            if s == h:
                break
    return n, total


@no_refcount
def _capture(b, h, c):
    """Remove the chain `h` (colour 3-c); its points become liberties of the adjacent `c` chains."""
    color = b.color
    head = b.head
    libs = b.libs
    nxt = b.nxt
    zob = b.zob
    meta = b.meta
    w = meta[M_WIDTH]
    o = 3 - c
    n = 0
    s = h
    code3 = b.code3
    libsum = b.libsum
    while True:
        color[s] = EMPTY
        _update_codes(code3, w, s, -o)
        meta[M_HASH] ^= zob[o, s]
        _add_empty(b, s)
        n += 1
        h1 = -1
        h2 = -1
        h3 = -1
        for q in (s - 1, s + 1, s - w, s + w):
            if color[q] == c:
                hq = head[q]
                if hq != h1 and hq != h2 and hq != h3:
                    libs[hq] += 1
                    libsum[hq] += s
                    if h1 < 0:
                        h1 = hq
                    elif h2 < 0:
                        h2 = hq
                    else:
                        h3 = hq
        s = nxt[s]
        if s == h:
            break
    meta[M_CAP + c - 1] += n
    return n


@no_refcount
def play(b, p, c):
    """Play colour `c` at `p` (or PASS).  The move must be legal (see `is_legal`); returns the
    number of stones captured."""
    meta = b.meta
    meta[M_LAST2] = meta[M_LAST]
    meta[M_LAST] = p
    meta[M_MOVES] += 1
    meta[M_KO] = -1
    meta[M_CAUGHT] = 0
    if p == PASS:
        meta[M_PASSES] += 1
        return 0
    meta[M_PASSES] = 0
    w = meta[M_WIDTH]
    o = 3 - c
    # The arrays read in the loops, bound once: numba reference-counts a record's field at
    # every read (policies/nrt.py).
    color = b.color
    head = b.head
    libs = b.libs
    mark = b.mark
    csize = b.csize
    libsum = b.libsum
    color[p] = c
    _update_codes(b.code3, w, p, c)
    meta[M_HASH] ^= b.zob[c, p]
    _remove_empty(b, p)
    head[p] = p
    b.nxt[p] = p
    csize[p] = 1
    # Every adjacent chain loses the liberty at p (once per chain); count p's own liberties.
    own = 0
    own_sum = 0
    stamp = _new_stamp(b)
    nfriend = 0
    friend = -1
    for q in (p - 1, p + 1, p - w, p + w):
        cq = color[q]
        if cq == EMPTY:
            own += 1
            own_sum += q
        elif cq != BORDER:
            hq = head[q]
            if mark[hq] != stamp:
                mark[hq] = stamp
                libs[hq] -= 1
                libsum[hq] -= p
                if cq == c:
                    nfriend += 1
                    friend = hq
    libs[p] = own
    libsum[p] = own_sum
    if nfriend == 1:
        # One friendly chain: it gains the empty neighbours of p that were not already its liberties.
        gained = 0
        gained_sum = 0
        for q in (p - 1, p + 1, p - w, p + w):
            if color[q] == EMPTY:
                already = False
                for r in (q - 1, q + 1, q - w, q + w):
                    if r != p and color[r] == c and head[r] == friend:
                        already = True
                if not already:
                    gained += 1
                    gained_sum += q
        _merge(b, friend, p)
        libs[friend] += gained
        libsum[friend] += gained_sum
    elif nfriend > 1:
        merged, merged_sum = _merged_libs(b, p, c)
        for q in (p - 1, p + 1, p - w, p + w):
            if color[q] == c:
                hq = head[q]
                hp = head[p]
                if hq != hp:
                    if csize[hq] >= csize[hp]:
                        _merge(b, hq, hp)
                    else:
                        _merge(b, hp, hq)
        libs[head[p]] = merged
        libsum[head[p]] = merged_sum
    captured = 0
    last_captured = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] == o and libs[head[q]] == 0:
            last_captured = q
            captured += _capture(b, head[q], c)
    hp = head[p]
    if captured == 1 and csize[hp] == 1 and libs[hp] == 1:
        meta[M_KO] = last_captured
        meta[M_KO_COLOR] = o
    meta[M_CAUGHT] = captured
    return captured


play_inlined = no_refcount_inline(play.py_func)
"""`play`, copied into its caller: for the playout loops that call it once a move
(engine/core/jit.py's no_refcount_inline)."""


@njit(cache=True)
def area_owner(b, owner):
    """Fill `owner[p]` (a signed array, e.g. int8) with the Tromp-Taylor owner of every point: the stone's colour, or for
    an empty region the one colour it reaches (EMPTY if it reaches both or neither)."""
    color = b.color   # bound once: numba reference-counts a record's field at every read
    mark = b.mark
    empties = b.empties
    w = b.meta[M_WIDTH]
    for p in range(owner.shape[0]):
        cp = color[p]
        owner[p] = cp if cp != BORDER else EMPTY
    # A played-out board's empty points are nearly all alone between stones: settled in one
    # pass, without the flood fill and its stack, which only open points (an empty neighbour)
    # need.
    n_open = 0
    for i in range(b.meta[M_NEMPTY]):
        p = empties[i]
        reach = 0
        alone = True
        for q in (p - 1, p + 1, p - w, p + w):
            cq = color[q]
            alone &= cq != EMPTY
            reach |= cq if cq != BORDER else 0
        if alone:
            owner[p] = reach if reach != 3 else EMPTY
        else:
            n_open += 1
    if n_open == 0:
        return
    stamp = _new_stamp(b)
    stack = np.empty(n_open, dtype=np.int32)
    for i in range(b.meta[M_NEMPTY]):
        start = empties[i]
        if mark[start] == stamp or not (color[start - 1] == EMPTY or color[start + 1] == EMPTY
                                        or color[start - w] == EMPTY
                                        or color[start + w] == EMPTY):
            continue   # flooded already, or alone (settled by the first pass)
        # Flood the region once to learn which colours it touches, then once more to paint it.
        reach = 0
        top = 0
        stack[top] = start
        top += 1
        mark[start] = stamp
        while top > 0:
            top -= 1
            s = stack[top]
            owner[s] = -1  # provisional: part of this region
            for q in (s - 1, s + 1, s - w, s + w):
                cq = color[q]
                if cq == EMPTY:
                    if mark[q] != stamp:
                        mark[q] = stamp
                        stack[top] = q
                        top += 1
                elif cq != BORDER:
                    reach |= cq
        colour = reach if reach == BLACK or reach == WHITE else EMPTY
        # Second pass over the region's points (marked -1 in owner).
        stack[0] = start
        top = 1
        owner[start] = colour
        while top > 0:
            top -= 1
            s = stack[top]
            for q in (s - 1, s + 1, s - w, s + w):
                if owner[q] == -1:
                    owner[q] = colour
                    stack[top] = q
                    top += 1


@njit(cache=True)
def area_score(b, owner):
    """Black's area minus White's (no komi), using `owner` as scratch (length of the board)."""
    area_owner(b, owner)
    score = 0
    for p in range(owner.shape[0]):   # without branches: a count the compiler can vectorise
        score += (owner[p] == BLACK) - (owner[p] == WHITE)
    return score
