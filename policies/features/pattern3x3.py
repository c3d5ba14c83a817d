"""The `pattern3x3` feature set (9x9 and larger): the layout of its weight vector and the
compiled evaluation of a candidate's local features (3x3 pattern class, capture / escape /
self-atari / atari tactics, edge line) and context features (distance to the last two moves).
See the package docstring for what the features mean.
"""

import numpy as np
from numba import njit

from engine.core.board import BLACK, BORDER, EMPTY, M_LAST, M_LAST2, M_WIDTH
from policies.features.codes import pattern_tables, render_code

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
def note_liberty(n, l1, l2, r):
    """One more liberty `r` counted: (n + 1, l1, l2) with r kept in the first free of l1, l2."""
    if l1 < 0:
        return n + 1, r, l2
    return n + 1, l1, r


@njit(cache=True, nogil=True, inline='always')
def count_new_liberties(color, nxt, w, h, p, n, l1, l2, cap):
    """Go on counting (from `n`, the first two found in l1, l2) with the liberties of chain `h`
    that are none of p, l1, l2, until `cap`: returns (n, l1, l2)."""
    s = h
    while True:
        for r in (s - 1, s + 1, s - w, s + w):
            if r != p and r != l1 and r != l2 and color[r] == EMPTY:
                n, l1, l2 = note_liberty(n, l1, l2, r)
                if n >= cap:
                    return n, l1, l2
        s = nxt[s]
        if s == h:
            break
    return n, l1, l2


@njit(cache=True, nogil=True, inline='always')
def libs_after(color, head, libs, nxt, w, p, c, cap):
    """Liberties (at most `cap`, which is 2 or 3) of c's chain through `p` if c played there
    without capturing: p's empty neighbours and the other liberties of c's adjacent chains."""
    n = 0
    l1 = l2 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] == EMPTY:
            n, l1, l2 = note_liberty(n, l1, l2, q)
            if n >= cap:
                return cap
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
        n, l1, l2 = count_new_liberties(color, nxt, w, h, p, n, l1, l2, cap)
        if n >= cap:
            return cap
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
