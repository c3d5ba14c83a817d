"""Small builders the tests share: boards drawn in ASCII, vertices on the small test board,
search parameters by name.  Test code only: the engine never needs them."""
import numpy as np

from engine.core.board import BLACK
from engine.core.coords import parse_vertex, point
from engine.play.game import setup_board
from engine.search.mcts import Root, unrestricted
from engine.search.params import default_params, with_params
from policies.kernel import uniform_policy

POLICY = uniform_policy()
SIZE = 5
POINTS = (SIZE + 2) ** 2


def at(vertex, size=SIZE):
    return parse_vertex(vertex, size)


def params(**values):
    """Default parameters with some replaced by name (see engine/search/params.py)."""
    return with_params(default_params(), **values)


def root(board, komi, colour=BLACK):
    """The search's Root for `board`, `colour` to move, no root move excluded."""
    return Root(board, colour, komi, unrestricted(board.color.shape[0]))


def board_from_ascii(text):
    """Board from rows of `X` (black), `O` (white), `.` (empty), top row first."""
    rows = [line.split() for line in text.strip().splitlines()]
    size = len(rows)
    black, white = [], []
    for i, cells in enumerate(rows):
        if len(cells) != size:
            raise ValueError(f"row {i + 1} has {len(cells)} points, expected {size}")
        for c, ch in enumerate(cells):
            p = point(size, size - 1 - i, c)
            if ch in "Xx":
                black.append(p)
            elif ch in "Oo":
                white.append(p)
            elif ch not in ".+":
                raise ValueError(f"unknown point {ch!r}")
    return setup_board(size, black, white)
