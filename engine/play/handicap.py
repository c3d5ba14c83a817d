"""Where handicap stones go: the standard fixed placement (as the GTP spec lays it down) and
Simbal's free placement.

Go knowledge that the handicap commands (engine/gtp/commands.py) ask for; `Game.place_handicap`
(game.py) puts the stones down.
"""
from engine.core.coords import point


def handicap_points(size, n):
    """The standard fixed handicap placement for `n` stones, or None if it has none."""
    if size < 7 or n < 2 or n > (4 if size == 7 or size % 2 == 0 else 9):
        return None
    low = 3 if size >= 13 else 2
    high, mid = size - 1 - low, size // 2
    layout = [(low, low), (high, high), (high, low), (low, high)]  # (row, col)
    if n >= 6:
        layout += [(mid, low), (mid, high)]
    if n >= 8:
        layout += [(low, mid), (high, mid)]
    if n % 2 == 1 and n >= 5:
        layout.append((mid, mid))
    return [point(size, r, c) for r, c in layout[:n]]


def free_handicap_points(size, n):
    """Simbal's choice of `n` free handicap stones (the fixed layout where there is one), or
    None if `n` stones cannot be placed (fewer than 2, or no empty point left)."""
    if n < 2 or n >= size * size:
        return None
    points = handicap_points(size, n)
    if points is None:
        # Beyond the fixed layouts: spread stones by taking every other point of the board.
        order = [point(size, r, c) for r in range(size) for c in range(size) if (r + c) % 2 == 0]
        order += [point(size, r, c) for r in range(size) for c in range(size) if (r + c) % 2 == 1]
        fixed = handicap_points(size, 9) or handicap_points(size, 4) or []
        points = (fixed + [p for p in order if p not in fixed])[:n]
    return points
