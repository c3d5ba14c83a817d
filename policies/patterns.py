"""Large local patterns of the tree prior: the diamond of points around a move.

The playouts look at 3x3 patterns only (policies/features.py): they are cheap to keep up to
date move by move.  The tree asks for its H once per node (engine/search.expand), so its prior
can afford a wider look: the colours of every point within Manhattan distance `radius` of the
move (12 points for radius 2, 24 for radius 3), relative to the mover (empty, own, opponent,
off the board), as one code canonicalised under the 8 symmetries of the square (the smallest
of the 8 readings).  As in Stern et al. and CrazyStone, such a pattern's weight is learnt from
a strong player's moves (policies/train/patterns.py), on top of a base policy's scores; the
weights live in the weight file beside the base policy's (policies/weights.py, "patterns").

A prior may also weigh where a move is: its *location*, the distances to the two nearest
edges (each capped at LOCATION_CAP) and whether the game is still in its opening (fewer stones
than OPENING_FILL of the points).  The 3x3 features see one distance (the line) and a radius-3
diamond sees the edge only from the third line out, so neither can tell a 4-4 or 3-4 point
from the middle of a side, and corners-first cannot be learnt without this.  Location codes
share the patterns' key space, after every diamond code (`location_base`), so a file holds
both in one sorted list and a prior without them works as before.

A policy carries its patterns as two arrays, sorted codes and their weights (`pat_keys`,
`pat_vals` of policies/kernel.Policy), and, for the tree's lookups, the same weights hashed by
every reading of each code (`pattern_hash`: `pat_hkeys`, `pat_hvals`); `add_scores` adds them
to the base policy's H.
"""
import numpy as np
from numba import njit

from engine.core.board import EMPTY, M_NEMPTY, M_SIZE, M_WIDTH
from policies.features import SYMMETRIES
from policies.nrt import borrow
from policies.softmax import EXCLUDED_SCORE

RADII = (2, 3)
DIAMOND_MARGIN = max(RADII)   # how far off the board a diamond point can be
# Distances to the edge beyond this one are all "far" (the centre of 13x13 is at 7).
LOCATION_CAP = 7
# The opening, for location codes: fewer stones on the board than this share of its points
# (up to 36 stones on 19x19, 16 on 13x13).
OPENING_FILL = 0.1
LOCATION_CODES = 2 * LOCATION_CAP * LOCATION_CAP


def location_base(radius):
    """The first location code of a prior with patterns of this radius: one past its diamond
    codes."""
    return 4 ** len(offsets(radius))


def offsets(radius):
    """(dr, dc) of the points at Manhattan distance 1..radius, in a fixed order."""
    return [(dr, dc) for dr in range(-radius, radius + 1) for dc in range(-radius, radius + 1)
            if 0 < abs(dr) + abs(dc) <= radius]


def layout(radius):
    """(offsets [k, 2], permutations [8, k]): reading k of symmetry s is offset perm[s, k]."""
    if radius not in RADII:
        raise ValueError(f"pattern radius {radius}: not one of {RADII}")
    offs = offsets(radius)
    index = {o: k for k, o in enumerate(offs)}
    # The 3x3 patterns' symmetries, (dr, dc) -> (a*dr + b*dc, c*dr + d*dc).
    perm = np.array([[index[(a * dr + b * dc, c * dr + d * dc)] for dr, dc in offs]
                     for a, b, c, d in SYMMETRIES], np.int64)
    return np.array(offs, np.int64), perm


@njit(cache=True, nogil=True, inline='always')
def _digit(color, size, w, r, col, c):
    """A diamond point's digit for c to move: 0 empty, 1 c's stone, 2 the opponent's, 3 off
    the board (row r, column col)."""
    if r < 1 or r > size or col < 1 or col > size:
        return 3
    x = color[r * w + col]
    return 0 if x == EMPTY else (1 if x == c else 2)


@njit(cache=True, nogil=True)
def code_at(b, p, c, offs, perm, vals):
    """The canonical pattern code of point p for colour c to move (`vals`: scratch of k)."""
    size = b.meta[M_SIZE]
    w = b.meta[M_WIDTH]
    color = borrow(b.color)
    r0 = p // w
    c0 = p % w
    k = offs.shape[0]
    seen = 0   # the digits or-ed: 0 when every point is empty and on the board
    for i in range(k):
        vals[i] = _digit(color, size, w, r0 + offs[i, 0], c0 + offs[i, 1], c)
        seen |= vals[i]
    if seen == 0:
        # Every reading is all zeros (the code of an empty diamond): most points of a big
        # board's opening, where the prior is asked about every one at each expansion.
        return 0
    # The smallest of the 8 readings is the lexicographically smallest digit sequence (all
    # have k digits), so each reading is compared with the best so far only up to its first
    # differing digit; the code is built once, from the winner.
    bs = 0
    for s in range(1, 8):
        for i in range(k):
            d = vals[perm[s, i]]
            e = vals[perm[bs, i]]
            if d != e:
                if d < e:
                    bs = s
                break
    code = 0
    for i in range(k):
        code = code * 4 + vals[perm[bs, i]]
    return code


@njit(cache=True, nogil=True)
def location_code(b, p, base):
    """The location code of point p (`base`: location_base of the prior's radius)."""
    size = b.meta[M_SIZE]
    w = b.meta[M_WIDTH]
    r = p // w
    col = p % w
    dr = min(r, size + 1 - r)
    dc = min(col, size + 1 - col)
    near = min(min(dr, dc), LOCATION_CAP)
    far = min(max(dr, dc), LOCATION_CAP)
    stones = size * size - b.meta[M_NEMPTY]
    opening = 1 if stones < OPENING_FILL * size * size else 0
    return base + (opening * LOCATION_CAP + near - 1) * LOCATION_CAP + far - 1


def is_opening_location(code, base):
    """Is `code` a location code (`base`: location_base of the prior's radius) of the
    opening?"""
    return base + LOCATION_CAP * LOCATION_CAP <= code < base + LOCATION_CODES


# The lookup table's hash: Fibonacci hashing (Knuth), the multiplier 2^64 / golden ratio as a
# signed 64-bit number; the slot is taken from the product's high bits, which mix every digit.
HASH_MULTIPLIER = -7046029254386353131
HASH_SHIFT = 40          # slots up to 2^24: bits 40-63 of the product
NO_CODE = -1             # an empty slot


@njit(cache=True, nogil=True, inline='always')
def _slot(code, mask):
    return ((code * HASH_MULTIPLIER) >> HASH_SHIFT) & mask


@njit(cache=True)
def _insert(hkeys, hvals, codes, weights):
    mask = hkeys.shape[0] - 1
    for i in range(codes.shape[0]):
        j = _slot(codes[i], mask)
        while hkeys[j] != NO_CODE:
            j = (j + 1) & mask
        hkeys[j] = codes[i]
        hvals[j] = weights[i]


def pattern_hash(radius, keys, weights):
    """(hkeys, hvals): the diamond codes of `keys` (sorted, canonical) and their `weights` as an
    open-addressed hash of *raw* codes: every one of a canonical code's eight readings is a key,
    so the tree's prior looks a point's pattern up as the board reads it (`raw_code`), without
    the search for the smallest reading or a binary search over the sorted codes.  Two canonical
    codes never share a reading (each reading has one smallest form), so the weights agree with
    the sorted arrays' exactly.  Location codes, which have no readings, are keys as they are.
    Slots: a power of two at least twice the keys (so a miss probes about two slots)."""
    offs, perm = layout(radius)
    k = offs.shape[0]
    keys = np.asarray(keys, np.int64)
    weights = np.asarray(weights, np.float64)
    diamond = keys < 4 ** k
    codes, vals = keys[diamond], weights[diamond]
    # A code's digit i (the first digit most significant) has place value place[i].
    place = 4 ** np.arange(k - 1, -1, -1, dtype=np.int64)
    digits = (codes[:, None] // place) % 4
    readings = []
    for s in range(8):
        raw = np.empty_like(digits)
        raw[:, perm[s]] = digits       # reading s of the raw digits is the canonical code
        readings.append(raw @ place)
    readings.append(keys[~diamond])
    raw, first = np.unique(np.concatenate(readings), return_index=True)
    slots = 8
    while slots < 2 * raw.shape[0]:
        slots *= 2
    hkeys = np.full(slots, NO_CODE, np.int64)
    hvals = np.zeros(slots)
    _insert(hkeys, hvals, raw, np.concatenate([np.tile(vals, 8), weights[~diamond]])[first])
    return hkeys, hvals


@njit(cache=True, nogil=True)
def raw_code(b, p, c, offs):
    """Point p's pattern code as the board reads it (offsets in `offs` order, no symmetry),
    for c to move: the key of `pattern_hash`'s table."""
    size = b.meta[M_SIZE]
    w = b.meta[M_WIDTH]
    return _raw_code_at(borrow(b.color), size, w, p // w, p % w, c, offs)


@njit(cache=True, nogil=True, inline='always')
def _raw_code_at(color, size, w, r0, c0, c, offs):
    """raw_code of the point at row r0, column c0."""
    code = 0
    for i in range(offs.shape[0]):
        code = code * 4 + _digit(color, size, w, r0 + offs[i, 0], c0 + offs[i, 1], c)
    return code


@njit(cache=True, nogil=True, inline='always')
def hashed_weight(hkeys, hvals, code):
    mask = hkeys.shape[0] - 1
    j = _slot(code, mask)
    while True:
        key = hkeys[j]
        if key == code:
            return hvals[j]
        if key == NO_CODE:
            return 0.0
        j = (j + 1) & mask


@njit(cache=True, nogil=True)
def add_scores(b, c, offs, keys, hkeys, hvals, scores):
    """scores[p] += the weight of p's pattern (and of its location, if the prior has location
    codes), for every empty point the base policy plays (scores above EXCLUDED_SCORE), from
    `pattern_hash`'s table (hkeys, hvals) of the sorted `keys` and their weights; codes not in
    `keys` weigh 0."""
    if keys.shape[0] == 0:
        return
    base = 4 ** offs.shape[0]
    locations = keys[keys.shape[0] - 1] >= base
    size = b.meta[M_SIZE]
    w = b.meta[M_WIDTH]
    color = borrow(b.color)
    k = offs.shape[0]
    # The board's digits for c to move, in a frame wide enough that every diamond point of
    # every point is inside it (3 off the board): a digit is one load, without the four bound
    # checks of `_digit`.  `step[i]`: offset i's distance in the frame.
    frame = size + 2 * DIAMOND_MARGIN
    scratch_own = np.empty(frame * frame + k + 2 * size * size + 1, np.int64)
    scratch = borrow(scratch_own)
    digits = scratch[:frame * frame]
    step = scratch[frame * frame:frame * frame + k]
    # The codes first, then one load of each code's slot, then the lookups.  The table is
    # megabytes, so a lookup is a cache miss; the second pass's loads depend on nothing but
    # their code, so the processor has many misses in flight at once, where a lookup right
    # after its point's code would wait for each alone (BENCHMARKS.md, session 47).
    found = scratch[frame * frame + k:]
    digits[:] = 3
    for r in range(size):
        for col in range(size):
            x = color[(r + 1) * w + col + 1]
            digits[(r + DIAMOND_MARGIN) * frame + col + DIAMOND_MARGIN] = (
                0 if x == EMPTY else (1 if x == c else 2))
    for i in range(k):
        step[i] = offs[i, 0] * frame + offs[i, 1]
    n = 0
    # Row by row rather than down the empty list: each point's row and column come free,
    # where raw_code would divide by the width twice a point.
    for r0 in range(1, size + 1):
        for c0 in range(1, size + 1):
            p = r0 * w + c0
            if color[p] != EMPTY or scores[p] <= EXCLUDED_SCORE:
                continue
            at = (r0 - 1 + DIAMOND_MARGIN) * frame + c0 - 1 + DIAMOND_MARGIN
            code = 0
            for i in range(k):
                code = code * 4 + digits[at + step[i]]
            found[2 * n] = p
            found[2 * n + 1] = code
            n += 1
    mask = hkeys.shape[0] - 1
    touched = 0
    weights = 0.0
    for i in range(n):   # location codes are few, so their slots stay in the cache anyway
        j = _slot(found[2 * i + 1], mask)
        touched ^= hkeys[j]
        weights += hvals[j]
    for i in range(n):
        p = found[2 * i]
        scores[p] += hashed_weight(hkeys, hvals, found[2 * i + 1])
        if locations:
            scores[p] += hashed_weight(hkeys, hvals, location_code(b, p, base))
    # The touches' results are used, so the compiler keeps the loads.
    found[2 * n] = touched + (weights > 0.0)


@njit(cache=True, nogil=True)
def codes_of(b, c, offs, perm, points, out):
    """out[i, 0] = the pattern code of points[i], and out[i, 1] its location code if `out`
    has a second column (for the trainer)."""
    vals = np.empty(offs.shape[0], np.int64)
    base = 4 ** offs.shape[0]
    for i in range(points.shape[0]):
        out[i, 0] = code_at(b, points[i], c, offs, perm, vals)
        if out.shape[1] > 1:
            out[i, 1] = location_code(b, points[i], base)
