"""Answers to the last move's local fight, for the playouts: the chains next to it with one or
two liberties (Fuego's atari and low-liberty replies, Pachi's moggy 2-liberty checks).

The softmax playout policy weighs captures and escapes anywhere on the board and barely
prefers an atari to a quiet move, so a capturing race between two chains of two liberties is
decided by whichever side happens to draw a move there first; Simbal's losses to GnuGo were
races the playouts read the wrong way (BENCHMARKS.md, session 10).  With the search parameter
`playout_fights` p > 0, each playout move first asks `fight_reply` (with probability p) and
plays its answer instead of drawing.  The answers, by urgency:

1. the last move's chain in atari: capture it; a chain of the mover's next to the last move
   in atari: capture a chain of the opponent's in atari next to it, or extend at its liberty
   to three liberties or more;
2. the last move's chain with two liberties: atari it, from a point where the new stone keeps
   two liberties, if its run at the other liberty reaches no more than two and no chain of
   the mover's next to it is in atari (so it cannot capture its way out);  a chain of the
   mover's next to the last move with two liberties: extend at a liberty to three or more,
   capture an opponent chain in atari next to it, or atari one of two liberties next to it
   as above (the side to move wins a race of two against two).

One answer is drawn uniformly among those of the most urgent kind the position offers; the
caller checks that its policy would play it (legal, not filling an own eye, not a ko point).
Liberties are counted without the captures a move might make: a small, cheap reading.

Nakade (`nakade_reply`, search parameter `playout_nakade`, as Pachi's playouts): when the last
move was played inside a small space the mover encloses (at most NAKADE_MAX points, empty or
the opponent's, bounded by the mover's stones and the edge), the mover takes the space's vital
point, the empty point with the most neighbours in the space when exactly one has that many
(two or more): in a straight or bent three, a pyramid four, a bulky or crossed five, a rabbity
six, the point that decides between one eye and two.

Nakade after a capture (`captured_nakade_reply`, search parameter `playout_capture_nakade`):
when the last move captured a chain of 3 to NAKADE_MAX stones, the space it left is enclosed by
the capturer's stones alone, and the side that lost the stones takes its vital point the same
way.  A capture in the shape of a straight or bent three, a pyramid four, a bulky five or a
rabbity six leaves one eye, not two, when the loser plays there first; the learned weights,
which prefer contact with the last move and shun the first line, rarely find that point (a
pyramid four on the edge: BENCHMARKS.md, session 31).
"""
from numba import njit

from engine.core.board import EMPTY, M_LAST, M_WIDTH, next_stamp
from engine.core.rng import rand_below

MAX_REPLIES = 32   # answers gathered at most (a move touches four chains, each of few liberties)
NAKADE_MAX = 6     # largest space with a vital point (rabbity six)


@njit(cache=True, nogil=True, inline='always')
def _libs_if_played(color, head, nxt, mark, meta, p, c, filled, cap):
    """Liberties (counted to `cap`) of c's chain through empty `p` if c played there, with
    `filled` (a point, or -1) taken as occupied, and no captures.  Stops counting at `cap`,
    and walks a chain touching `p` on several sides once."""
    w = meta[M_WIDTH]
    stamp = next_stamp(mark, meta)
    mark[p] = stamp
    if filled >= 0:
        mark[filled] = stamp
    n = 0
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] == EMPTY and mark[q] != stamp:
            mark[q] = stamp
            n += 1
    if n >= cap:
        return cap
    seen0 = seen1 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] != c:
            continue
        h = head[q]
        if h == seen0 or h == seen1:
            continue
        if seen0 < 0:
            seen0 = h
        else:
            seen1 = h
        s = h
        while True:
            for r in (s - 1, s + 1, s - w, s + w):
                if color[r] == EMPTY and mark[r] != stamp:
                    mark[r] = stamp
                    n += 1
            if n >= cap:
                return cap
            s = nxt[s]
            if s == h:
                break
    return n


@njit(cache=True, nogil=True, inline='always')
def one_liberty(color, head, nxt, w, h):
    """A liberty of the chain headed by `h` (its only one when it is in atari), or -1."""
    s = h
    while True:
        for r in (s - 1, s + 1, s - w, s + w):
            if color[r] == EMPTY:
                return r
        s = nxt[s]
        if s == h:
            break
    return -1


@njit(cache=True, nogil=True, inline='always')
def _add(out, n, p):
    for i in range(n):
        if out[i] == p:
            return n
    if n < out.shape[0]:
        out[n] = p
        n += 1
    return n


@njit(cache=True, nogil=True, inline='always')
def _add_ataris(color, head, libs, nxt, mark, meta, h, c, out, n):
    """Append c's working ataris on the two-liberty chain headed by `h` (see the docstring)."""
    w = meta[M_WIDTH]
    a = z = -1
    s = h
    while True:   # one walk: the chain's two liberties, and whether it touches c in atari
        for r in (s - 1, s + 1, s - w, s + w):
            if color[r] == EMPTY:
                if a < 0:
                    a = r
                elif z < 0 and r != a:
                    z = r
            elif color[r] == c and libs[head[r]] == 1:
                return n
        s = nxt[s]
        if s == h:
            break
    if z < 0:
        z = a
    for x, y in ((a, z), (z, a)):
        if (_libs_if_played(color, head, nxt, mark, meta, x, c, -1, 2) >= 2
                and _libs_if_played(color, head, nxt, mark, meta, y, 3 - c, x, 3) <= 2):
            n = _add(out, n, x)
    return n


@njit(cache=True, nogil=True, inline='always')
def _add_rescues(color, head, libs, nxt, mark, meta, h, c, out, n, ataris, seen):
    """Append the moves that save c's chain headed by `h`: capture an opponent chain in atari
    next to it, extend at a liberty to three or more, and (with `ataris`) c's working ataris
    on opponent chains of two liberties next to it.  An opponent chain whose head's mark is
    `seen` has been read (and is marked so here); each liberty is read once, however many of
    the chain's stones touch it (the answers would only repeat)."""
    w = meta[M_WIDTH]
    lib0 = lib1 = -1
    s = h
    while True:
        for r in (s - 1, s + 1, s - w, s + w):
            if color[r] == 3 - c:
                hr = head[r]
                if mark[hr] == seen:
                    continue
                mark[hr] = seen
                lr = libs[hr]
                if lr == 1:
                    n = _add(out, n, one_liberty(color, head, nxt, w, hr))
                elif lr == 2 and ataris:
                    n = _add_ataris(color, head, libs, nxt, mark, meta, hr, c, out, n)
            elif color[r] == EMPTY and r != lib0 and r != lib1:
                if lib0 < 0:
                    lib0 = r
                else:
                    lib1 = r
                if _libs_if_played(color, head, nxt, mark, meta, r, c, -1, 3) >= 3:
                    n = _add(out, n, r)
        s = nxt[s]
        if s == h:
            break
    return n


@njit(cache=True, nogil=True, inline='always')
def fight_replies(color, head, libs, nxt, mark, meta, c, out):
    """The answers for c to the last move's fight (module docstring) into `out`; how many.
    Only the most urgent kind present is listed."""
    last = meta[M_LAST]
    if last < 0 or color[last] != 3 - c:
        return 0
    w = meta[M_WIDTH]
    n = 0
    for urgent in (True, False):
        want = 1 if urgent else 2
        seen = -1
        if libs[head[last]] == want:
            if urgent:
                n = _add(out, n, one_liberty(color, head, nxt, w, head[last]))
            else:
                n = _add_ataris(color, head, libs, nxt, mark, meta, head[last], c, out, n)
        seen0 = seen1 = seen2 = -1
        for q in (last - 1, last + 1, last - w, last + w):
            h = head[q]
            if color[q] != c or libs[h] != want or h == seen0 or h == seen1 or h == seen2:
                continue
            if seen0 < 0:
                seen0 = h
            elif seen1 < 0:
                seen1 = h
            else:
                seen2 = h
            if seen < 0:
                # Marks the opponent chains this pass has read, on their heads (the liberty
                # readings in between mark only empty points); the last move's is read above.
                seen = next_stamp(mark, meta)
                mark[head[last]] = seen
            n = _add_rescues(color, head, libs, nxt, mark, meta, h, c, out, n, not urgent,
                              seen)
        if n > 0:
            return n
    return 0


@njit(cache=True, nogil=True, inline='always')
def fight_reply(color, head, libs, nxt, mark, meta, c, rng, out):
    """One of `fight_replies`, drawn uniformly, or -1 when the last move started no fight."""
    n = fight_replies(color, head, libs, nxt, mark, meta, c, out)
    if n == 0:
        return -1
    return out[rand_below(rng, n)]


@njit(cache=True, nogil=True, inline='always')
def nakade_reply(color, meta, mark, c, space):
    """The vital point of the small space c encloses around the last move (module docstring),
    or -1.  `space`: scratch of at least NAKADE_MAX + 1 points."""
    last = meta[M_LAST]
    if last < 0 or color[last] != 3 - c:
        return -1
    w = meta[M_WIDTH]
    # A cheap bound first: the last move's neighbours in the space, and the diagonal ones
    # joined to it through them, are already too many on an open board.
    o = 3 - c
    n = 1
    side = 0   # bits: the space holds the west, east, north, south neighbour
    for k, q in enumerate((last - 1, last + 1, last - w, last + w)):
        if color[q] == EMPTY or color[q] == o:
            n += 1
            side |= 1 << k
    for q, joins in ((last - w - 1, 5), (last - w + 1, 6), (last + w - 1, 9), (last + w + 1, 10)):
        if side & joins and (color[q] == EMPTY or color[q] == o):
            n += 1
    if n > NAKADE_MAX:
        return -1
    stamp = next_stamp(mark, meta)
    mark[last] = stamp
    space[0] = last
    n = 1
    i = 0
    while i < n:   # flood fill over empty points and the opponent's stones, up to the mover's
        s = space[i]
        i += 1
        for q in (s - 1, s + 1, s - w, s + w):
            if mark[q] != stamp and (color[q] == EMPTY or color[q] == 3 - c):
                if n == NAKADE_MAX:
                    return -1
                mark[q] = stamp
                space[n] = q
                n += 1
    if n < 3:
        return -1
    return _vital_point(color, mark, stamp, space, n, w)


@njit(cache=True, nogil=True, inline='always')
def _vital_point(color, mark, stamp, space, n, w):
    """The empty point of space[:n] (marked `stamp`) with the most neighbours in it, when
    exactly one has that many (two or more), else -1."""
    best = -1
    most = 1
    tie = False
    for i in range(n):
        s = space[i]
        if color[s] != EMPTY:
            continue
        k = 0
        for q in (s - 1, s + 1, s - w, s + w):
            k += mark[q] == stamp
        if k > most:
            best, most, tie = s, k, False
        elif k == most:
            tie = True
    return -1 if tie else best


@njit(cache=True, nogil=True, inline='always')
def captured_nakade_reply(color, meta, mark, c, space):
    """The vital point of a space of 3 to NAKADE_MAX empty points next to the last move, the
    opponent's (module docstring: called after that move captured as many stones), or -1.
    `space`: scratch of at least NAKADE_MAX + 1 points."""
    last = meta[M_LAST]
    if last < 0 or color[last] != 3 - c:
        return -1
    w = meta[M_WIDTH]
    for start in (last - 1, last + 1, last - w, last + w):
        if color[start] != EMPTY:
            continue
        stamp = next_stamp(mark, meta)
        mark[start] = stamp
        space[0] = start
        n = 1
        i = 0
        small = True
        while i < n and small:   # flood fill over empty points
            s = space[i]
            i += 1
            for q in (s - 1, s + 1, s - w, s + w):
                if mark[q] != stamp and color[q] == EMPTY:
                    if n == NAKADE_MAX:
                        small = False
                        break
                    mark[q] = stamp
                    space[n] = q
                    n += 1
        if small and n >= 3:
            p = _vital_point(color, mark, stamp, space, n, w)
            if p >= 0:
                return p
    return -1
