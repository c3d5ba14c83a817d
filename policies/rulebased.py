"""Rule-based playouts after Fuego 1.1's default playout policy (the `rules` policy kind).

Written to set our learned playouts beside Fuego's on the same positions and in the same search
(BENCHMARKS.md, sessions 31-32); with the search's `prune_visits=0, uct_c=0` they are the 9x9
default (weights/defaults.json).  A move is the first of these that gives a playable point, each
list drawn from uniformly, a listed point being dropped when it is not playable and the draw
repeated.  Playable is Fuego's filter: legal (simple ko included), not a point whose neighbours
are all stones of one colour none of them in atari (an eye, false eyes included: diagonals are
not looked at), and not a *mutual atari* (three or more stones put in atari, not in a nakade
shape, where the opponent's stone would be in atari too).  One departure from Fuego: a nakade
shape is a mutual atari too when a chain of the opponent's next to it has, besides that point,
only an eye of its own as liberty (`eye_beside`).  Fuego lets every nakade-shaped throw-in
through, since its capture may leave the surrounding group one eye; but a group that keeps
another eye lives anyway, and the throw-in only hands it the capture: a seki the playouts
broke, and so misjudged (BENCHMARKS.md, session 53).  Such a throw-in is refused only when it
would be played: when the self-atari correction turns it into its chain's connection at the
other liberty, it is let through, since refusing it kept groups with one eye alive for ever
(session 62).  Refusals of mutual ataris go through Fuego's *balancer* (`balancer_refuses`):
a colour's are granted while it has had at most 100 more refused than the other colour, over
all the playouts the policy has played; past that, its mutual ataris are played.  A standoff
both colours meet (a seki) stays refused; one only one colour meets (a move its side needs,
say a connection that wins a capturing race through the self-atari correction) is played once
the balance is spent, which takes Fuego's search a few dozen playouts (session 63).

1. *atari capture*: the last move's chain is in atari: take its liberty;
2. *atari defence*: chains of the mover's next to the last move in atari: extend at the
   liberty unless that is a self-atari, or capture a chain of the opponent's in atari next to
   them (at a liberty other than the mover's own);
3. *low liberties*: the last move's chain has two liberties: each liberty where that chain
   would gain liberties (three or more) and the mover's stone would not be in atari; and the
   same for the mover's chains with two liberties next to the last move (extend where it
   gains), except chains already joined to another of the mover's chains through both
   liberties (a bamboo joint: Fuego's "simple chain");
4. *patterns*: the last move's 8 neighbours that match one of MoGo's 3x3 patterns
   (policies/builtin.py) and are not self-ataris; then the same around the move before it,
   outside the last move's neighbourhood;
5. a stored last good reply of the search's, when it gives one (Fuego has none);
6. *capture*: a chain of the opponent's in atari anywhere (policies/local.py keeps the list);
7. *random*: uniform among the playable empty points; else pass.  Over the `rules3x3` feature
   set (a weight file), the draw is by weight instead: a playable point with probability
   proportional to exp(theta) of its 3x3 pattern class, colours relative to the mover
   (`random_move`); the weights are what simulation balancing tunes
   (policies/train/, `playout_with_grad`).

A move drawn is then *corrected* when it is a self-atari (module functions say how).  A
self-atari is a move after which the mover's chain has one liberty, counting the stones it
captures (Fuego's GoBoardUtil::SelfAtari).

Fuego's mercy rule is the search's `playout_mercy` (`mercy_stones`).  Left out: Fuego's nakade
heuristic and fill-board moves (off by default in 1.1), its score bonus (the search's), the
fixed random order of its empty points within one playout, and Fuego's colour-specific
patterns (here every pattern holds for both colours).  Of the search's playout rules table, the
mercy rule alone is read here; the rest (ladders, fight answers, nakade) belongs to the softmax
kinds.

The policy's tables are `mogo[c - 1]`: bit `code` set where the 3x3 code around a point matches
a MoGo pattern (policies/builtin.py's mogo_code_bits: `matches_mogo`); and, with weights,
`pclass[c - 1, code]`, the 3x3 pattern class.  Everything a playout move runs is compiled
without reference counting (engine/core/jit.py), and the stages of a move that take the board
record, with the board's `play`, are copied into the playout loop (`no_refcount_inline`).
"""
import numpy as np
from numba import njit

from engine.core.board import (BLACK, BORDER, EMPTY, M_CAUGHT, M_KO, M_KO_COLOR, M_LAST,
                               M_LAST2, M_MOVES, M_NEMPTY, M_PASSES, M_SIZE, M_WIDTH, PASS,
                               area_score, is_legal, is_legal_inlined, next_stamp,
                               play_inlined)
from engine.core.jit import no_refcount, no_refcount_inline
from engine.core.rng import rand_below, rand_float
from engine.tactics.fights import NAKADE_MAX, one_liberty
from policies.features.pattern3x3 import count_new_liberties, note_liberty
from policies.local import ATARI_MAX, capture_move, list_ataris, note_ataris
from policies.playout import move_cap, set_aside, stored_reply

MAX_CANDIDATES = 64   # points listed for one draw (8 + 8 patterns; a few per chain otherwise)
# The weighted random step's draws refused by weight before the next playable point is kept
# whatever its weight: a bound on a move's time when every point weighs little against the
# heaviest class.  With every weight at least 1/20 of the largest, a refusal streak this long
# has probability at most 0.95^64 = 4%.
FALLBACK_TRIES = 64


@njit(cache=True, nogil=True, inline='always')
def _touches(color, head, w, s, c, h1, h2, h3, h4):
    """Is stone `s` next to a stone of colour c in one of the chains h1..h4?"""
    for r in (s - 1, s + 1, s - w, s + w):
        if color[r] == c:
            hr = head[r]
            if hr == h1 or hr == h2 or hr == h3 or hr == h4:
                return True
    return False


@njit(cache=True, nogil=True, inline='always')
def self_atari(color, head, libs, libsum, nxt, w, p, c):
    """Would c at empty `p` leave its chain in atari?  Captured stones next to the new chain
    count as liberties; a capture by a lone stone (a ko-like recapture) is never a self-atari,
    nor is a suicide (the callers never play one).  Copied into the caller: two empty
    neighbours, the common case, answer without a call (which pushes every array passed)."""
    empty = 0
    for q in (p - 1, p + 1, p - w, p + w):
        empty += color[q] == EMPTY
    if empty >= 2:
        return False
    return _self_atari_read(color, head, libs, libsum, nxt, w, p, c)


@no_refcount
def _self_atari_read(color, head, libs, libsum, nxt, w, p, c):
    """self_atari's answer with at most one empty neighbour: the neighbours' chains read."""
    lib = -1
    own = False
    capture = False
    h1 = h2 = h3 = h4 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        cq = color[q]
        if cq == EMPTY:
            if lib < 0:
                lib = q
            elif lib != q:
                return False
        elif cq == c:
            h = head[q]
            if libs[h] > 2:
                return False
            if h == h1 or h == h2 or h == h3:
                continue
            if h1 < 0:
                h1 = h
            elif h2 < 0:
                h2 = h
            elif h3 < 0:
                h3 = h
            else:
                h4 = h
            own = True
            # p is one of h's one or two liberties: the other one, if any, is the rest of the sum.
            if libs[h] == 2:
                r = libsum[h] - p
                if lib < 0:
                    lib = r
                elif lib != r:
                    return False
        elif cq != BORDER and libs[head[q]] == 1:
            if lib < 0:
                lib = q
                capture = True
            elif lib != q:
                return False
    if lib < 0:
        return False
    if capture and not own:
        return False
    if capture:
        # `lib` is a stone to be captured; its chain's other stones next to the new chain are
        # liberties too.
        hc = head[lib]
        s = hc
        while True:
            if s != lib and _touches(color, head, w, s, c, h1, h2, h3, h4):
                return False
            s = nxt[s]
            if s == hc:
                break
    return True


@njit(cache=True, nogil=True, inline='always')
def neighbour_chains(color, head, w, x, col, h):
    """The heads of colour `col`'s chains next to `x`, other than `h`, each once (-1 where
    fewer than four)."""
    o1 = o2 = o3 = o4 = -1
    for q in (x - 1, x + 1, x - w, x + w):
        if color[q] == col:
            hq = head[q]
            if hq != h and hq != o1 and hq != o2 and hq != o3:
                if o1 < 0:
                    o1 = hq
                elif o2 < 0:
                    o2 = hq
                elif o3 < 0:
                    o3 = hq
                else:
                    o4 = hq
    return o1, o2, o3, o4


@njit(cache=True, nogil=True, inline='always')
def surrounded(color, head, libs, w, p):
    """Fuego's IsCompletelySurrounded: are `p`'s neighbours all stones of one colour (or the
    edge), none of them in atari?  Diagonals are not looked at, so a false eye counts too."""
    col = 0
    for q in (p - 1, p + 1, p - w, p + w):
        cq = color[q]
        if cq == EMPTY:
            return False
        if cq == BORDER:
            continue
        if libs[head[q]] == 1 or (col != 0 and cq != col):
            return False
        col = cq
    return True


@no_refcount
def nakade_shape(color, mark, meta, w, p, c, space):
    """Do c's stones joined to empty `p`, with `p`, form a shape whose capture leaves one eye:
    three points or fewer, a square or pyramid four, a bulky or crossed five, a rabbity six?
    `space`: scratch of at least NAKADE_MAX + 1 points."""
    stamp = next_stamp(mark, meta)
    mark[p] = stamp
    space[0] = p
    n = 1
    i = 0
    while i < n:
        s = space[i]
        i += 1
        for q in (s - 1, s + 1, s - w, s + w):
            if mark[q] != stamp and color[q] == c:
                if n == NAKADE_MAX:
                    return False
                mark[q] = stamp
                space[n] = q
                n += 1
    if n <= 3:
        return True
    ends = hubs = crosses = 0   # points with 1, 3 and 4 neighbours in the shape
    for i in range(n):
        s = space[i]
        k = 0
        for q in (s - 1, s + 1, s - w, s + w):
            k += mark[q] == stamp
        ends += k == 1
        hubs += k == 3
        crosses += k == 4
    if n == 4:
        return (ends == 0 and hubs == 0) or (ends == 3 and hubs == 1)
    if n == 5:
        return (ends == 1 and hubs == 1) or (ends == 4 and crosses == 1)
    return ends == 2 and crosses == 1 and hubs == 0


# What `mutual_atari` says of a self-atari.
NOT_MUTUAL = 0
MUTUAL = 1          # Fuego's mutual atari: refused
THROW_IN = 2        # a nakade-shaped throw-in beside a chain with an eye: refused if played


@no_refcount
def mutual_atari(color, head, libs, libsum, csize, nxt, mark, meta, w, p, c, space):
    """Fuego's IsMutualAtari, at a point the caller knows is a self-atari of c's: c at `p` puts
    three or more of its stones in atari, at a point where the opponent's stone would be in
    atari too (a seki-like standoff whoever plays first loses): MUTUAL; not when the stones
    form a nakade shape (NOT_MUTUAL), unless the opponent's chain next to them keeps an eye
    (`eye_beside`): THROW_IN."""
    n = 1
    for h in neighbour_chains(color, head, w, p, c, -1):
        if h >= 0:
            n += csize[h]
    opponent = False
    for q in (p - 1, p + 1, p - w, p + w):
        opponent |= color[q] == 3 - c
    if n <= 2 or not opponent:
        return NOT_MUTUAL
    if not self_atari(color, head, libs, libsum, nxt, w, p, 3 - c):
        return NOT_MUTUAL
    if n <= NAKADE_MAX and nakade_shape(color, mark, meta, w, p, c, space):
        return THROW_IN if eye_beside(color, head, libs, libsum, w, p, 3 - c) else NOT_MUTUAL
    return MUTUAL


@njit(cache=True, nogil=True, inline='always')
def eye_beside(color, head, libs, libsum, w, p, o):
    """Has a chain of o's next to empty `p` two liberties, `p` and an eye of o's (a point
    `surrounded` by o's stones)?  Then a throw-in at `p` cannot take its last eye."""
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] == o:
            h = head[q]
            if libs[h] == 2 and surrounded(color, head, libs, w, libsum[h] - p):
                return True
    return False


# Fuego's SgBalancer margin for its mutual-atari filter (GoUctPlayoutPolicy: 100).
BALANCE_MARGIN = 100

# What `playable` says of a point: the self-atari answer saves the caller from asking again
# whether the move needs self_atari_correction.
NOT_PLAYABLE = 0
PLAYABLE = 1               # and not a self-atari
PLAYABLE_SELF_ATARI = 2


@no_refcount_inline
def _open(b, p, c):
    """`playable` short of the mutual-atari test: an empty, legal point not `surrounded`."""
    return p >= 0 and b.color[p] == EMPTY \
        and not surrounded(b.color, b.head, b.libs, b.meta[M_WIDTH], p) \
        and is_legal_inlined(b, p, c)


@no_refcount
def balancer_refuses(balance, c):
    """Fuego's SgBalancer: may c's mutual atari be refused?  balance[0] counts Black's refusals
    minus White's; a colour's refusal is granted (and counted) while that count stays within
    BALANCE_MARGIN in its direction.  A standoff both colours refuse (a seki) stays refused;
    one that only one colour keeps meeting is let through once it is BALANCE_MARGIN refusals
    ahead, so a blind spot of one side does not last the whole search.  `balance` of size 0:
    no balancer, every refusal granted."""
    if balance.shape[0] == 0:
        return True
    if c == BLACK:
        if balance[0] < BALANCE_MARGIN:
            balance[0] += 1
            return True
    elif balance[0] > -BALANCE_MARGIN:
        balance[0] -= 1
        return True
    return False


@no_refcount_inline
def playable(b, p, c, space, balance):
    """Fuego's GeneratePoint: may a playout play c at `p`?  Legal (the simple ko included), not
    a point `surrounded` by one colour, not a `mutual_atari` the `balance` lets us refuse
    (`balancer_refuses`; session 53's throw-ins beside an eye are refused without it).
    NOT_PLAYABLE (false), PLAYABLE or PLAYABLE_SELF_ATARI."""
    if not _open(b, p, c):
        return NOT_PLAYABLE
    w = b.meta[M_WIDTH]
    if not self_atari(b.color, b.head, b.libs, b.libsum, b.nxt, w, p, c):
        return PLAYABLE
    m = mutual_atari(b.color, b.head, b.libs, b.libsum, b.csize, b.nxt, b.mark, b.meta, w, p, c, space)
    if m == MUTUAL:
        if balancer_refuses(balance, c):
            return NOT_PLAYABLE
    # The throw-in is refused only if it would be played: when the self-atari correction moves
    # it to the chain's other liberty (the throw-in's stones joining a living chain there), the
    # move is that connection, and refusing it would keep the standoff for ever.
    elif m == THROW_IN and self_atari_correction(b, b.color, b.head, b.libs, b.libsum, b.nxt, w,
                                                 p, c) == p:
        return NOT_PLAYABLE
    return PLAYABLE_SELF_ATARI


@njit(cache=True, nogil=True, inline='always')
def class_weight(pclass, etheta, gmax, code3, p, c):
    """The weighted random step's weight of c at empty `p` (`gmax` for a code with no class)."""
    k = pclass[c - 1, code3[p]]
    return etheta[k] if k >= 0 else gmax


@no_refcount_inline
def random_move(b, c, rng, space, balance, pclass, etheta, gmax):
    """The random step: a `playable` point drawn from the empty ones, or PASS; and whether it
    is a self-atari.  `gmax` 0: uniformly (policies/playout.py's uniform_move with Fuego's
    filter: each point tried at most once).  Else by weight (rules3x3): with probability
    proportional to the class weight etheta[pclass[c - 1, code]], by rejection: a point drawn
    uniformly is kept with probability weight / `gmax` (the largest weight), then if
    playable; unplayable points are dropped as they are drawn.  The weight is read first
    because it costs less than `playable`.  After FALLBACK_TRIES refusals by weight, the next
    playable point is kept."""
    empties = b.empties
    epos = b.epos
    code3 = b.code3
    k = b.meta[M_NEMPTY]
    refused = 0
    while k > 0:
        i = rand_below(rng, k)
        p = empties[i]
        if gmax > 0.0 and refused < FALLBACK_TRIES:
            g = class_weight(pclass, etheta, gmax, code3, p, c)
            if g < gmax and rand_float(rng) * gmax >= g:
                refused += 1
                continue
        status = playable(b, p, c, space, balance)
        if status != NOT_PLAYABLE:
            return p, status == PLAYABLE_SELF_ATARI
        k -= 1
        set_aside(empties, epos, i, k)
    return PASS, False


@no_refcount
def add_random_psi(b, c, space, balance, pclass, etheta, gmax, p, grad):
    """grad[c - 1] += psi = grad log pi of the weighted random step's draw `p`: the indicator of
    p's class minus the classes' expectation over the playable points (each `playable` point
    weighs its class weight).  The playouts pass an empty `balance`, so that asking does not
    spend theirs; the mutual ataris their balancer lets through are then left out of the
    expectation.  For the trainers; as exact as the draw (those and FALLBACK_TRIES aside)."""
    code3 = b.code3
    empties = b.empties
    total = 0.0
    for i in range(b.meta[M_NEMPTY]):
        q = empties[i]
        if playable(b, q, c, space, balance) != NOT_PLAYABLE:
            total += class_weight(pclass, etheta, gmax, code3, q, c)
    if total <= 0.0:
        return
    k = pclass[c - 1, code3[p]]
    if k >= 0:
        grad[c - 1, k] += 1.0
    for i in range(b.meta[M_NEMPTY]):
        q = empties[i]
        kq = pclass[c - 1, code3[q]]
        if kq >= 0 and playable(b, q, c, space, balance) != NOT_PLAYABLE:
            grad[c - 1, kq] -= etheta[kq] / total


@njit(cache=True, nogil=True, inline='always')
def _push(cand, n, p):
    if n < cand.shape[0]:
        cand[n] = p
        n += 1
    return n


@no_refcount_inline
def select_random(b, cand, n, c, rng, space, balance, safe):
    """A playable point drawn uniformly from cand[:n] (repeats weigh more, as in Fuego), the
    unplayable ones dropped as they are drawn, and whether it is a self-atari; -1 when none is.
    `safe`: the listed points are known not to be self-ataris (so not mutual ataris either)."""
    while n > 0:
        i = rand_below(rng, n)
        p = cand[i]
        if safe:
            if _open(b, p, c):
                return p, False
        else:
            status = playable(b, p, c, space, balance)
            if status != NOT_PLAYABLE:
                return p, status == PLAYABLE_SELF_ATARI
        n -= 1
        cand[i] = cand[n]
    return -1, False


@no_refcount_inline
def atari_defence(color, head, libs, libsum, nxt, w, last, c, cand):
    """List c's answers to the atari the opponent's last move gave (module docstring, rule 2);
    returns their number."""
    n = 0
    for h in neighbour_chains(color, head, w, last, c, -1):
        if h < 0 or libs[h] != 1:
            continue
        mine = libsum[h]   # h is in atari: its liberty
        if not self_atari(color, head, libs, libsum, nxt, w, mine, c):
            n = _push(cand, n, mine)
        # Capture the opponent's chains in atari next to this one: after taking one whose
        # liberty is not ours, we keep our liberty and gain the captured stone's point.
        a1 = a2 = a3 = a4 = -1
        s = h
        while True:
            for r in (s - 1, s + 1, s - w, s + w):
                if color[r] == 3 - c and libs[head[r]] == 1:
                    hr = head[r]
                    if hr != a1 and hr != a2 and hr != a3 and hr != a4:
                        if a1 < 0:
                            a1 = hr
                        elif a2 < 0:
                            a2 = hr
                        elif a3 < 0:
                            a3 = hr
                        else:
                            a4 = hr
                        x = libsum[hr]
                        if x != mine:
                            n = _push(cand, n, x)
            s = nxt[s]
            if s == h:
                break
    return n


@no_refcount
def simple_chain(color, head, w, h, l1, l2):
    """Fuego's IsSimpleChain: is the two-liberty chain `h` (liberties l1 and l2) joined, through
    both its liberties, to one other chain of its colour (so neither side needs to play there)?"""
    if l2 < 0:
        return False
    col = color[h]
    a1, a2, a3, a4 = neighbour_chains(color, head, w, l1, col, h)
    b1, b2, b3, b4 = neighbour_chains(color, head, w, l2, col, h)
    for a in (a1, a2, a3, a4):
        if a >= 0 and (a == b1 or a == b2 or a == b3 or a == b4):
            return True
    return False


@njit(cache=True, nogil=True, inline='always')
def gains_liberties(color, head, libs, libsum, nxt, w, p, c):
    """Would c at empty `p` have three liberties or more, captures aside?  policies.features'
    libs_after(..., 3) >= 3, with c's adjacent chains of one or two liberties read from the
    board's liberty sums: only a chain with three is walked.  (libs_after itself serves the
    softmax features, whose code does not carry the sums.)"""
    n = 0
    l1 = l2 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] == EMPTY:
            n, l1, l2 = note_liberty(n, l1, l2, q)
    if n >= 3:
        return True
    for h in neighbour_chains(color, head, w, p, c, -1):
        if h < 0:
            continue
        k = libs[h]
        if k >= 4:
            return True
        if k == 2:   # p and one other
            r = libsum[h] - p
            if r != l1 and r != l2:
                n, l1, l2 = note_liberty(n, l1, l2, r)
        elif k == 3:
            n, l1, l2 = count_new_liberties(color, nxt, w, h, p, n, l1, l2, 3)
        if n >= 3:
            return True
    return False


@no_refcount
def _good_liberties(color, head, libs, libsum, nxt, w, h, c, cand, n):
    """Append the liberties of two-liberty chain `h` where its owner would reach three
    liberties or more and c's stone would not be in atari (Fuego's PlayGoodLiberties)."""
    # The first liberty the chain walk meets, then the rest of the sum (the order the rule
    # has always listed them in: seeded playouts depend on it).
    l1 = one_liberty(color, head, nxt, w, h)
    l2 = libsum[h] - l1
    if simple_chain(color, head, w, h, l1, l2):
        return n
    owner = color[h]
    for x in (l1, l2):
        # Three liberties for c's own chain (captures aside) are no self-atari.
        if gains_liberties(color, head, libs, libsum, nxt, w, x, owner) \
                and (owner == c or not self_atari(color, head, libs, libsum, nxt, w, x, c)):
            n = _push(cand, n, x)
    return n


@no_refcount_inline
def low_liberty_moves(color, head, libs, libsum, nxt, w, last, c, cand):
    """List c's moves at the two-liberty chains of the last move (module docstring, rule 3)."""
    n = 0
    hl = head[last]
    if libs[hl] == 2:
        n = _good_liberties(color, head, libs, libsum, nxt, w, hl, c, cand, n)
    for h in neighbour_chains(color, head, w, last, c, -1):
        if h < 0 or libs[h] != 2:
            continue
        n = _good_liberties(color, head, libs, libsum, nxt, w, h, c, cand, n)
    return n


@njit(cache=True, nogil=True, inline='always')
def matches_mogo(mogo, c, code):
    """Does 3x3 code `code` match a MoGo pattern for c to move (`mogo`: the packed table)?"""
    return ((mogo[c - 1, code >> 3] >> (code & 7)) & 1) != 0


@no_refcount_inline
def pattern_moves(color, head, libs, libsum, nxt, code3, w, mogo, last, last2, c, cand):
    """List the points around the last two moves that match a MoGo pattern and are not
    self-ataris (module docstring, rule 4); the board keeps their 3x3 codes in `code3`."""
    n = 0
    for centre in (last, last2):
        if centre < 0:
            continue
        for q in (centre + w - 1, centre + w, centre + w + 1, centre - 1, centre + 1,
                  centre - w - 1, centre - w, centre - w + 1):
            if color[q] != EMPTY:
                continue
            if centre == last2:
                d = abs(q - last)   # q is empty and `last` a stone: d is never 0
                if d <= 1 or (d >= w - 1 and d <= w + 1):   # next to the last move
                    continue
            if matches_mogo(mogo, c, code3[q]) \
                    and not self_atari(color, head, libs, libsum, nxt, w, q, c):
                n = _push(cand, n, q)
    return n


@no_refcount
def _captures(color, head, libs, w, p, c):
    """Would c at empty `p` capture (an opponent chain next to it in atari)?"""
    for q in (p - 1, p + 1, p - w, p + w):
        if color[q] == 3 - c and libs[head[q]] == 1:
            return True
    return False


@no_refcount_inline
def self_atari_correction(b, color, head, libs, libsum, nxt, w, p, c):
    """`p`, or the point Fuego plays instead of the self-atari `p` (module docstring): next to
    c's chains, the first neighbour's point (itself if empty, its chain's other liberty if
    c's) when legal and not a self-atari; a lone stone's one empty neighbour when legal and it
    has two empty neighbours or captures.  The replacement is not filtered further."""
    ne = 0
    empty = -1
    own = False
    for q in (p - w, p - 1, p + 1, p + w):
        if color[q] == EMPTY:
            ne += 1
            if empty < 0:
                empty = q
        elif color[q] == c:
            own = True
    if ne >= 2:
        return p
    if own:
        if not self_atari(color, head, libs, libsum, nxt, w, p, c):
            return p
        r = -1
        for q in (p - w, p - 1, p + 1, p + w):
            cq = color[q]
            if cq == EMPTY:
                r = q
            elif cq == c:
                # q's chain has p and at most one other liberty (p is a self-atari).
                hq = head[q]
                r = libsum[hq] - p if libs[hq] == 2 else -1
            elif cq == 3 - c and libs[head[q]] == 1:
                return p   # Fuego proposes the stone itself, which is never legal
            else:
                continue
            break
        if r >= 0 and is_legal(b, r, c) and not self_atari(color, head, libs, libsum, nxt, w, r, c):
            return r
        return p
    if ne == 1 and not _captures(color, head, libs, w, p, c) and is_legal(b, empty, c):
        ne2 = 0
        for q in (empty - 1, empty + 1, empty - w, empty + w):
            ne2 += color[q] == EMPTY
        if ne2 >= 2 or _captures(color, head, libs, w, empty, c):
            return empty
    return p


@njit(cache=True, nogil=True, inline='always')
def run_rules_playout(b, c, rng, owner, pol, moves, replies, mercy, grad):
    """Play `b` out from c to move by the rules of the module docstring; returns the area score
    (Black minus White) with the final owners in `owner`; the first len(moves) moves are
    recorded in `moves`, and `replies` are the search's last good replies (policies/playout.py).
    `mercy` > 0 ends the game early by the `mercy_stones` rule (0: played to the end).  A
    policy with weights (`rules3x3`) draws its random moves by them; then, when `grad` has a
    column per weight, grad[k-1] += the psi of colour k's weighted draws (the other moves are
    the rules', which no weight changes); grad of shape (2, 0): none."""
    points = np.empty(MAX_CANDIDATES + ATARI_MAX + NAKADE_MAX + 1, np.int64)
    gmax = 0.0
    for k in range(pol.etheta.shape[0]):
        gmax = max(gmax, pol.etheta[k])
    play_rules_moves(b, c, rng, pol.mogo, pol.balance, moves, replies, points,
                     mercy_stones(b.meta[M_SIZE], mercy), pol.pclass, pol.etheta, gmax, grad)
    return area_score(b, owner)


@njit(cache=True, nogil=True)
def mercy_stones(size, mercy):
    """Fuego's mercy rule: a playout ends once one colour has captured this many stones more
    than the other, `mercy` times the board's points (Fuego: 0.3, 24 on 9x9), and is scored as
    it stands (Tromp-Taylor, which Fuego does not do: it counts a win for the side ahead; how
    often the two differ is measured in BENCHMARKS.md, session 34).  Unlike Fuego's, the count
    starts at the playout's first move, not from the stones on the board, so that a lopsided
    position is still played out.  0: off."""
    return int(mercy * size * size) if mercy > 0.0 else 0


@no_refcount
def play_rules_moves(b, c, rng, mogo, balance, moves, replies, points, mercy, pclass, etheta, gmax,
                     grad):
    """run_rules_playout's moves, to the end of the game (two passes or the move cap) or until
    one colour has captured `mercy` stones more than the other (0: no limit), with `points` as
    scratch; random moves by weight when `gmax` > 0 (psi into `grad` when it has columns);
    compiled without reference counting, hence apart."""
    color = b.color
    head = b.head
    libs = b.libs
    libsum = b.libsum
    nxt = b.nxt
    meta = b.meta
    empties = b.empties
    code3 = b.code3
    w = meta[M_WIDTH]
    cand = points[:MAX_CANDIDATES]
    atari = points[MAX_CANDIDATES:MAX_CANDIDATES + ATARI_MAX]
    space = points[MAX_CANDIDATES + ATARI_MAX:]
    natari = list_ataris(color, head, libs, w, empties, meta[M_NEMPTY], atari)
    nrec = moves.shape[0]
    cap = move_cap(b)
    t = 0
    lead = 0   # stones Black has captured in this playout minus those White has
    while meta[M_PASSES] < 2 and meta[M_MOVES] < cap:
        if mercy > 0 and (lead >= mercy or -lead >= mercy):
            break
        p = -1
        risky = True   # p may be a self-atari (then it goes through self_atari_correction)
        last = meta[M_LAST]
        if last >= 0 and color[last] != EMPTY:
            hl = head[last]
            if libs[hl] == 1:
                cand[0] = libsum[hl]
                p, risky = select_random(b, cand, 1, c, rng, space, balance, False)
            if p < 0:
                n = atari_defence(color, head, libs, libsum, nxt, w, last, c, cand)
                p, risky = select_random(b, cand, n, c, rng, space, balance, False)
            if p < 0:
                n = low_liberty_moves(color, head, libs, libsum, nxt, w, last, c, cand)
                p, risky = select_random(b, cand, n, c, rng, space, balance, True)
            if p < 0:
                last2 = meta[M_LAST2]
                if last2 >= 0 and color[last2] == EMPTY:
                    last2 = -1
                n = pattern_moves(color, head, libs, libsum, nxt, code3, w, mogo, last, last2, c, cand)
                p, risky = select_random(b, cand, n, c, rng, space, balance, True)
        if p < 0:
            p = stored_reply(replies, meta, c)
            if p >= 0:
                status = playable(b, p, c, space, balance)
                risky = status == PLAYABLE_SELF_ATARI
                if status == NOT_PLAYABLE:
                    p = -1
        if p < 0 and natari > 0:
            ko = meta[M_KO] if meta[M_KO_COLOR] == c else -1
            p, natari = capture_move(color, head, libs, w, c, ko, atari, natari, rng)
            risky = True
        if p < 0:
            p, risky = random_move(b, c, rng, space, balance, pclass, etheta, gmax)
            if p >= 0 and gmax > 0.0 and grad.shape[1] > 0:
                add_random_psi(b, c, space, balance[:0], pclass, etheta, gmax, p, grad)
        if p >= 0 and risky:
            p = self_atari_correction(b, color, head, libs, libsum, nxt, w, p, c)
        if t < nrec:
            moves[t] = p
        t += 1
        play_inlined(b, p, c)
        if p >= 0:
            natari = note_ataris(color, head, libs, libsum, w, p, atari, natari)
            lead += meta[M_CAUGHT] if c == BLACK else -meta[M_CAUGHT]
        c = 3 - c
