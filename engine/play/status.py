"""Dead, alive and seki stones at the end of a game, from playout ownership.

A chain is dead when, over many playouts from the current position, its points
end up owned by the opponent more often than not.  Among the live stones, a
group (chains of one colour joined through territory they surround) is in seki
when it touches a neutral empty region (one reaching both colours) and owns
fewer than two regions of its own: it lives only because neither side can
approach the shared liberties.  This is what `final_status_list` and
`final_score` report to GUIs and match referees.
"""
import numpy as np

from engine.core.board import BLACK, EMPTY, WHITE


def chains(board):
    """{head: [points]} for every chain on the board."""
    out = {}
    stones = np.flatnonzero((board.color == BLACK) | (board.color == WHITE))
    for p in stones:
        out.setdefault(int(board.head[p]), []).append(int(p))
    return out


def _regions(color, width):
    """Empty regions of a colour array: list of (points, set of colours reached)."""
    seen = np.zeros(color.shape[0], dtype=bool)
    regions = []
    for start in np.flatnonzero(color == EMPTY):
        if seen[start]:
            continue
        seen[start] = True
        stack, points, reach = [int(start)], [], set()
        while stack:
            s = stack.pop()
            points.append(s)
            for q in (s - 1, s + 1, s - width, s + width):
                cq = color[q]
                if cq == EMPTY and not seen[q]:
                    seen[q] = True
                    stack.append(q)
                elif cq in (BLACK, WHITE):
                    reach.add(int(cq))
        regions.append((points, reach))
    return regions


def classify(board, black_share, white_share):
    """Split the stones into {'dead': [...], 'alive': [...], 'seki': [...]}, each a list of
    chains (lists of points), given per-point ownership shares in [0, 1]."""
    width = int(board.meta[1])
    status = {"dead": [], "alive": [], "seki": []}
    live = {}
    color = board.color.copy()
    for head, points in chains(board).items():
        colour = int(board.color[head])
        theirs = white_share if colour == BLACK else black_share
        if np.mean(theirs[points]) > 0.5:
            status["dead"].append(points)
            color[points] = EMPTY
        else:
            live[head] = points
    # Union live chains of one colour that share a region only they reach; count those regions.
    parent = {h: h for h in live}

    def find(h):
        while parent[h] != h:
            parent[h] = parent[parent[h]]
            h = parent[h]
        return h

    head_of = {p: h for h, pts in live.items() for p in pts}
    own_regions, touches_neutral = {}, set()
    for points, reach in _regions(color, width):
        adjacent = {head_of[q] for s in points for q in (s - 1, s + 1, s - width, s + width)
                    if q in head_of}
        if len(reach) == 1:
            adjacent = sorted(adjacent)
            for h in adjacent[1:]:
                parent[find(h)] = find(adjacent[0])
            if adjacent:
                own_regions.setdefault(adjacent[0], 0)
                own_regions[adjacent[0]] += 1
        elif len(reach) == 2:
            touches_neutral.update(adjacent)
    eyes, neutral = {}, set()
    for h, n in own_regions.items():
        eyes[find(h)] = eyes.get(find(h), 0) + n
    for h in touches_neutral:
        neutral.add(find(h))
    for h, points in live.items():
        g = find(h)
        in_seki = g in neutral and eyes.get(g, 0) < 2
        status["seki" if in_seki else "alive"].append(points)
    return status
