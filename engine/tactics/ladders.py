"""Ladder reading for the tree: can a chain of one or two liberties be captured by ataris
(and, when asked, a few net moves)?

The playouts do not read ladders, so a simulation after an escape from atari into a working
ladder rarely plays the ladder out, and the tree likes the escape; GnuGo reads it and wins
the chain (BENCHMARKS.md, Strength: Simbal's escapes to two liberties captured soon after,
in a quarter of its losses).  The tree therefore asks this module once per expanded node
(engine/search.expand; with the search parameter `ladder_depth`, only for the nodes
expanded fewer than that many plies below the root), for the few moves next to a chain of one or two liberties:

- a move that leaves its own chain with two liberties that the opponent captures by
  successive ataris (a ladder, or a capture of the chaser that does not help), with up to
  `ladder_nets` net moves among them, has its H lowered by `ladder_escape`;
- an atari on a two-liberty chain that cannot escape has its H raised by `ladder_capture`.

The playouts may ask it too (`escape_is_caught`, search parameter `playout_ladders`): a drawn
escape from atari into a working ladder is then set aside and another move drawn, as Pachi's
and Fuego's playouts do.

The reading is a small depth-first search on board copies (an explicit stack): the attacker
tries both ataris and, while its allowance of nets lasts, the loose moves next to the two
liberties (a net, geta: the chain keeps two liberties but cannot run, as GnuGo's reading
finds); the defender extends (at either liberty after a net) or captures an attacking chain
in atari next to its own.  A net stone the defender could capture at once counts as no net.
Past a node budget or a depth the chain counts as escaping, so an unread case changes
nothing.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from engine.core.board import (EMPTY, M_LEN, M_WIDTH, Board, copy_into, is_legal, next_stamp,
                               play)
from engine.core.jit import no_refcount, no_refcount_inline

READ_DEPTH = 60      # plies: a ladder across 19x19 is about 40
READ_BUDGET = 400    # positions looked at per question
MAX_CANDIDATES = 8   # moves read at one node (a defender's: extend, or capture a chaser in atari)
OPEN = 2             # _candidates: the position needs reading (its moves are in the row)

# A reading's working memory, allocated by the caller once for many readings (the search: once
# a batch), so that reading allocates nothing and is compiled without reference counting
# (engine/core/jit.py): allocations and reference counts were most of the reading's cost
# (BENCHMARKS.md, session 41).  Row d of each board field is the board of frame d:
# row 0 the position after the move read (ladder_adjust's), rows 1.. the reading's plies; `mark`
# and the stamp in `meta` start at 0, below any stamp (copy_into keeps the larger).  `frames`:
# per frame, its moves (columns 0..MAX_CANDIDATES: count, then moves), the next to try and the
# nets left; its last row holds the node budget and _candidates' liberty lists.
LadderScratch = namedtuple("LadderScratch",
                           "color head nxt libs csize empties epos mark meta code3 libsum frames")
_TRIED = MAX_CANDIDATES + 1
_NETS = MAX_CANDIDATES + 2


@njit(cache=True)
def ladder_scratch(b):
    """A LadderScratch for boards of b's size."""
    rows = READ_DEPTH + 1
    points = b.color.shape[0]
    return LadderScratch(np.empty((rows, points), np.int8), np.empty((rows, points), np.int32),
                         np.empty((rows, points), np.int32), np.empty((rows, points), np.int32),
                         np.empty((rows, points), np.int32),
                         np.empty((rows, b.empties.shape[0]), np.int32),
                         np.empty((rows, points), np.int32), np.zeros((rows, points), np.int32),
                         np.zeros((rows, M_LEN), np.int64), np.empty((rows, points), np.int32),
                         np.empty((rows, points), np.int32),
                         np.zeros((READ_DEPTH + 2, MAX_CANDIDATES + 3), np.int32))


@njit(cache=True, nogil=True, inline='always')
def _frame_board(ls, zob, d):
    """Frame d's board: views of the scratch's rows (no copy)."""
    return Board(ls.color[d], ls.head[d], ls.nxt[d], ls.libs[d], ls.csize[d], ls.empties[d],
                 ls.epos[d], ls.mark[d], ls.meta[d], zob, ls.code3[d], ls.libsum[d])


@njit(cache=True, nogil=True, inline='always')
def _chain_libs(color, head, nxt, mark, meta, w, p, out):
    stamp = next_stamp(mark, meta)
    n = 0
    h = head[p]
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if color[q] == EMPTY and mark[q] != stamp:
                mark[q] = stamp
                out[n] = q
                n += 1
                if n == out.shape[0]:
                    return n
        s = nxt[s]
        if s == h:
            break
    return n


@no_refcount
def chain_liberties(b, p, out):
    """The liberties of the chain at `p` into `out`, at most len(out) of them; how many."""
    return _chain_libs(b.color, b.head, b.nxt, b.mark, b.meta, b.meta[M_WIDTH], p, out)


@njit(cache=True, inline='always')
def _next_to(q, r, w):
    return abs(q - r) == 1 or abs(q - r) == w


@no_refcount_inline
def _add_nets(b, libs, att, row):
    """Append to `row` the attacker's net moves against a chain with liberties libs[0:2]: the
    empty points next to a liberty (a loose move that keeps the chain from running, geta),
    those next to both liberties first.  Stored as -(point + 1), to tell them from ataris."""
    w = b.meta[M_WIDTH]
    a, z = libs[0], libs[1]
    # First the points next to both liberties (each is one of a's neighbours), then those next
    # to one only (each appears once among the eight): no point is listed twice.
    around = (a - 1, a + 1, a - w, a + w, z - 1, z + 1, z - w, z + w)
    for both in (True, False):
        for k in range(4 if both else 8):
            q = around[k]
            if (row[0] < MAX_CANDIDATES and b.color[q] == EMPTY and q != a and q != z
                    and (_next_to(q, a, w) and _next_to(q, z, w)) == both
                    and is_legal(b, q, att)):
                row[0] += 1
                row[row[0]] = -(q + 1)


@no_refcount_inline
def _candidates(b, p, att, attacker_to_move, depth, budget, row, nets, net_stone, libs, one):
    """The moves to read at this node into `row`, or the node's value when it has none:
    1 the chain at `p` is (or will at once be) captured, 0 it escapes, OPEN otherwise (row[0]
    then holds the number of moves, row[1:] the moves).  The attacker may still play `nets`
    net moves in this line; `net_stone` is the net just played (the defender to move), or -1.
    `libs` (3) and `one` (1): scratch."""
    defender = 3 - att
    color, head, nxt, mark, meta = b.color, b.head, b.nxt, b.mark, b.meta
    if color[p] != defender:
        return 1
    budget[0] -= 1
    w = meta[M_WIDTH]
    n = _chain_libs(color, head, nxt, mark, meta, w, p, libs)
    row[0] = 0
    if attacker_to_move:
        if n == 1:
            return 1 if is_legal(b, libs[0], att) else 0
        if n >= 3 or depth <= 0 or budget[0] <= 0:
            return 0
        for i in range(2):   # the two ataris
            if is_legal(b, libs[i], att):
                row[0] += 1
                row[row[0]] = libs[i]
        if nets > 0:
            _add_nets(b, libs, att, row)
        return OPEN if row[0] > 0 else 0
    if net_stone >= 0:
        # After a net the chain has two liberties: it runs at either, and a net stone the
        # defender can take at once (in atari) holds nothing.
        if n >= 3 or b.libs[head[net_stone]] < 2:
            return 0
    elif n >= 2:
        return 0   # not in atari: the attacker's move did not hold it (a chaser was captured)
    if depth <= 0 or budget[0] <= 0:
        return 0
    for i in range(n):
        if is_legal(b, libs[i], defender):
            row[0] += 1
            row[row[0]] = libs[i]
    h = head[p]
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if color[q] == att and b.libs[head[q]] == 1 and row[0] < MAX_CANDIDATES:
                _chain_libs(color, head, nxt, mark, meta, w, q, one)
                known = False
                for k in range(1, row[0] + 1):
                    known = known or row[k] == one[0]
                if not known and is_legal(b, one[0], defender):
                    row[0] += 1
                    row[row[0]] = one[0]
        s = nxt[s]
        if s == h:
            break
    return OPEN if row[0] > 0 else 1


@njit(cache=True)
def capturable(b, p, att, attacker_to_move, nets=0):
    """Can `att` capture the chain at `p` by ataris, with at most `nets` net moves among them
    (reading within the budget)?  With scratch of its own (for occasional questions)."""
    return _read(b, p, att, attacker_to_move, nets, ladder_scratch(b))


@no_refcount
def _read(b, p, att, attacker_to_move, nets, ls):
    """`capturable`, on the LadderScratch `ls` (frame 0 is b, which is only read).

    A depth-first AND/OR search with an explicit stack (numba's cache does not hold recursive
    functions): at the attacker's nodes one capturing move suffices, at the defender's every
    escape must fail.  Frame d holds a board (b itself at d = 0), its moves, the next one to
    try and the net moves the attacker has left."""
    frames = ls.frames
    moves = frames[:, :MAX_CANDIDATES + 1]
    tried = frames[:, _TRIED]
    nets_left = frames[:, _NETS]
    extra = frames[READ_DEPTH + 1]
    budget = extra[0:1]
    libs = extra[1:4]
    one = extra[4:5]
    budget[0] = READ_BUDGET
    tried[0] = 0
    nets_left[0] = nets
    value = _candidates(b, p, att, attacker_to_move, READ_DEPTH, budget, moves[0], nets, -1,
                        libs, one)
    if value != OPEN:
        return value == 1
    d = 0
    while True:
        attacker_here = attacker_to_move == (d % 2 == 0)
        if tried[d] < moves[d, 0]:
            tried[d] += 1
            child = _frame_board(ls, b.zob, d + 1)
            if d == 0:
                copy_into(child, b)
            else:
                copy_into(child, _frame_board(ls, b.zob, d))
            m = moves[d, tried[d]]
            net = -1
            if m < 0:   # a net move (_add_nets)
                m = -m - 1
                net = m
            play(child, m, att if attacker_here else 3 - att)
            nets_left[d + 1] = nets_left[d] - (1 if net >= 0 else 0)
            value = _candidates(child, p, att, not attacker_here, READ_DEPTH - d - 1, budget,
                                moves[d + 1], nets_left[d + 1], net, libs, one)
            if value == OPEN:
                d += 1
                tried[d] = 0
                continue
        else:   # every move tried: the attacker found no capture, the defender no escape
            value = 0 if attacker_here else 1
            if d == 0:
                return value == 1
            d -= 1
            attacker_here = not attacker_here
        # `value` is the outcome of a move at frame d: it settles the frame, or the next is tried.
        while (value == 1) == attacker_here:
            if d == 0:
                return value == 1
            d -= 1
            attacker_here = not attacker_here


@njit(cache=True, nogil=True, inline='always')
def _ladder_sides(b, m, c):
    """Does c's move at `m` touch a chain of c's with at most two liberties (save: an escape
    to read), and one of the opponent's with two (attack: an atari to read)?"""
    w = b.meta[M_WIDTH]
    save = False
    attack = False
    for q in (m - 1, m + 1, m - w, m + w):
        col = b.color[q]
        if col == c and b.libs[b.head[q]] <= 2:
            save = True
        elif col == 3 - c and b.libs[b.head[q]] == 2:
            attack = True
    return save, attack


@no_refcount
def ladder_adjust(b, c, moves, count, h, escape, capture, nets, ls):
    """Shift `h[i]`, the H of `moves[i]` for colour `c`, by the readings above (with up to
    `nets` net moves in a line), reading on the LadderScratch `ls`."""
    if escape == 0.0 and capture == 0.0:
        return
    first = 0
    while first < count:
        save, attack = _ladder_sides(b, moves[first], c)
        if save or attack:
            break
        first += 1
    if first == count:
        return   # most expansions: no reading
    w = b.meta[M_WIDTH]
    o = 3 - c
    after = _frame_board(ls, b.zob, 0)   # the position after a move
    for i in range(first, count):
        m = moves[i]
        save, attack = _ladder_sides(b, m, c)
        if not (save or attack):
            continue
        copy_into(after, b)
        play(after, m, c)
        if (save and escape != 0.0 and after.libs[after.head[m]] == 2
                and _read(after, m, o, True, nets, ls)):
            h[i] -= escape
        if attack and capture != 0.0:
            for q in (m - 1, m + 1, m - w, m + w):
                if (after.color[q] == o and after.libs[after.head[q]] == 1
                        and _read(after, q, c, False, nets, ls)):
                    h[i] += capture
                    break


@njit(cache=True)
def escape_is_caught(b, m, c, scratch):
    """Is `m` an extension by `c` of its chain in atari (next to `m`) to two liberties that
    the opponent then captures by ataris?  Plays on `scratch` (a board of b's size, which it
    overwrites); the reading itself is rare enough to make its own copies."""
    w = b.meta[M_WIDTH]
    in_atari = False
    for q in (m - 1, m + 1, m - w, m + w):
        in_atari = in_atari or (b.color[q] == c and b.libs[b.head[q]] == 1)
    if not in_atari:
        return False
    copy_into(scratch, b)
    play(scratch, m, c)
    return scratch.libs[scratch.head[m]] == 2 and capturable(scratch, m, 3 - c, True)
