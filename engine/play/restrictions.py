"""Moves kept out of a search, by depth: KataGo's `allow` / `avoid` with `untilDepth`, shared
by the GTP analysis commands (engine/gtp/analysis.py) and the JSON analysis mode
(engine/gtp/kata_json.py), which only parse their own syntax into `Restriction`s.

The result is what `Engine.search` takes: the root's allowed moves (legal ones only; None when
the root is free) and, for each deeper ply d, the set of points kept out of the nodes d plies
down.
"""
from dataclasses import dataclass

from engine.core.coords import point

MAX_DEPTH = 400  # an untilDepth past this many plies is cut to it


@dataclass(frozen=True)
class Restriction:
    allow: bool         # True: `who` may play only `points`; False: never `points`
    who: int            # the colour restricted
    points: frozenset   # points (PASS among them or not)
    until: int          # plies from the root it holds for (1: the next move only)


def search_limits(restrictions, to_play, size, legal):
    """(allowed, deeper) for a search of `to_play` to move on a `size` board whose root's legal
    moves are `legal` (PASS included).  Raises ValueError when the root is left no move."""
    allow, avoid = {}, {}
    for r in restrictions:
        first = 0 if r.who == to_play else 1  # the plies where `who` moves: first, +2, ...
        for depth in range(first, min(r.until, MAX_DEPTH), 2):
            table = allow if r.allow else avoid
            table[depth] = table.get(depth, set()) | set(r.points)
    allowed = None
    if 0 in allow or 0 in avoid:
        allowed = (allow.get(0, set(legal)) & set(legal)) - avoid.get(0, set())
        if not allowed:
            raise ValueError("no move is allowed")
    everywhere = {point(size, r, c) for r in range(size) for c in range(size)}
    deeper = [(everywhere - allow[d] if d in allow else set()) | avoid.get(d, set())
              for d in range(1, max([0, *allow, *avoid]) + 1)]
    return allowed, deeper
