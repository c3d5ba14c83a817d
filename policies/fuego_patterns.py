"""Fuego 1.1's test of MoGo's 3x3 patterns (GoUctPatterns: hane, cut and edge), evaluated once
on every 3x3 colour code: the table the rule-based playouts (policies/rulebased.py) read.

MoGo's paper (Gelly et al. 2006, figure 2) draws the patterns; Fuego writes them as procedures
(`MatchHane`, `MatchCut`, `MatchEdge`), which differ from the drawings in places: some edge
patterns hold only for the side to play (an own stone above the point with an opposing stone
diagonally next to it matches whatever lies beside the point), the cuts count liberties and
diagonals.  Simbal's playouts first read the drawings (policies/builtin.MOGO_PATTERNS, for both
colours); reading Fuego's procedures instead brought their values closer to Fuego's labels of
the positions of Simbal's games against Fuego (BENCHMARKS.md, session 53).  Here, as in Fuego:
no pattern without an adjacent stone, none on a corner point, only the edge patterns on the
first line.  The table is `table[c - 1, code]`, 1 where colour c to play at a point with that
code matches; codes that cannot occur stay 0.
"""
from functools import lru_cache

import numpy as np

from engine.core.board import BLACK, BORDER, EMPTY, NEIGHBOURS, WHITE
from policies.features.codes import NCODES, _digits, _valid_codes

NS, WE = (1, 0), (0, 1)
ORTH = (NS, (-1, 0), WE, (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _add(*ds):
    return (sum(d[0] for d in ds), sum(d[1] for d in ds))


def _neg(d):
    return (-d[0], -d[1])


def _other(d):
    """The other axis (Fuego's OtherDir)."""
    return WE if d[1] == 0 else NS


def _opp(c):
    return WHITE if c == BLACK else BLACK


class _Around:
    """The 8 neighbours of a point by offset, read from a 3x3 code, with Fuego's counts."""

    def __init__(self, code):
        self.col = {off: (code >> (2 * k)) & 3 for k, off in enumerate(NEIGHBOURS)}
        self.col[(0, 0)] = EMPTY   # the point itself (two opposite directions add up to it)

    def __call__(self, d):
        return self.col[d]

    def nb(self, c):
        return sum(self.col[d] == c for d in ORTH)

    def nd(self, c):
        return sum(self.col[d] == c for d in DIAG)

    def find_dir(self, c):
        return next(d for d in ORTH if self.col[d] == c)


def matches(code, to_play):
    """Fuego's MatchAnyPattern for `to_play` at an empty point with this 3x3 code."""
    at = _Around(code)
    n_black, n_white = at.nb(BLACK), at.nb(WHITE)
    if n_black == 0 and n_white == 0:
        return False
    edges = [d for d in ORTH if at(d) == BORDER]
    if len(edges) >= 2:
        return False
    if edges:
        return _edge(at, _neg(edges[0]), n_black, n_white, to_play)
    return _hane(at, n_black, n_white, to_play) or _cut(at)


def _edge(at, up, n_black, n_white, to_play):
    side = _other(up)
    up_c = at(up)
    if at.nb(EMPTY) > 0 and up_c == EMPTY:                       # edge1: chase
        for s in (side, _neg(side)):
            if at(s) in (BLACK, WHITE) and at(_add(s, up)) == _opp(at(s)):
                return True
    if (up_c == BLACK and n_black == 1 and n_white > 0) \
            or (up_c == WHITE and n_white == 1 and n_black > 0):   # edge2
        return True
    if up_c == to_play and at.nd(_opp(up_c)) > 0:                # edge3: for the side to play
        return True
    if up_c == _opp(to_play):
        for s in (side, _neg(side)):
            if at(_add(s, up)) != to_play:
                continue
            if at.nb(up_c) <= 2 and at.nd(to_play) > 0 and at(s) != up_c:   # edge4
                return True
            if at.nb(up_c) == 2 and at.nb(to_play) == 1 and at(s) == up_c:  # edge5
                return True
    return False


def _hane1(at, c, o, cdir, odir):
    return (at(cdir) == c and at(_add(cdir, odir)) == o and at(_add(cdir, _neg(odir))) == o
            and at(odir) == EMPTY and at(_neg(odir)) == EMPTY)


def _hane(at, n_black, n_white, to_play):
    n_empty = at.nb(EMPTY)
    if n_empty < 2 or n_empty > 3:
        return False
    if (n_black < 1 or n_black > 2) and (n_white < 1 or n_white > 2):
        return False
    if n_empty == 2:
        if n_black == 1 and n_white == 1 \
                and at(_add(at.find_dir(BLACK), at.find_dir(WHITE))) != EMPTY:   # hane3
            return True
    else:
        c = BLACK if n_black == 1 else WHITE
        d = at.find_dir(c)
        od = _other(d)
        for a, b in ((od, _neg(od)), (_neg(od), od)):                            # hane2
            if at(_add(d, a)) == EMPTY and at(_add(d, b)) == _opp(c):
                return True
        c1 = at(_add(d, od))
        if to_play == _opp(c) and c1 != EMPTY and _opp(c1) == at(_add(d, _neg(od))):   # hane4
            return True
    dirs = ((NS, WE), (_neg(NS), WE), (WE, NS), (_neg(WE), NS))
    for c, n_c in ((WHITE, n_white), (BLACK, n_black)):                          # hane1
        if at.nd(_opp(c)) >= 2 and n_c > 0 and any(_hane1(at, c, _opp(c), a, b) for a, b in dirs):
            return True
    return False


def _cut(at):
    if sum(at(d) == EMPTY for d in ORTH + DIAG) > 6:
        return False
    n_empty = at.nb(EMPTY)
    for cdir in (NS, _neg(NS)):                                                  # cut1
        c = at(cdir)
        if c in (BLACK, WHITE) and at.nb(c) >= 2 and not (at.nb(c) == 3 and n_empty == 1) \
                and any(at(o) == c and at(_add(cdir, o)) == _opp(c) for o in (WE, _neg(WE))):
            return True
    for cdir in (NS, WE):                                                        # cut2
        c = at(cdir)
        if c in (BLACK, WHITE) and at.nb(c) == 2 and at.nb(_opp(c)) > 0 and at.nd(c) <= 2 \
                and at(_neg(cdir)) == c:
            o = _other(cdir)
            for a in (o, _neg(o)):
                if at(a) == _opp(c) and at(_add(_neg(a), cdir)) != c \
                        and at(_add(_neg(a), _neg(cdir))) != c:
                    return True
    return False


@lru_cache(maxsize=None)
def fuego_code_table():
    """`table[c - 1, code]`: 1 where colour c to play at a point with 3x3 code `code` matches
    one of Fuego's patterns (0.5 s, once per process)."""
    table = np.zeros((2, NCODES), np.int16)
    for code in np.nonzero(_valid_codes(_digits()))[0]:
        for c in (BLACK, WHITE):
            table[c - 1, code] = matches(int(code), c)
    return table
