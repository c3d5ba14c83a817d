"""The shipped engine on the boards people play: its opening on an empty 19x19 and 13x13 board
keeps off the first and second lines (issue 24's check; slow: 10 full-strength moves)."""
import pytest

from engine.core.board import PASS
from engine.core.coords import format_vertex, row_col
from engine.play.player import Engine, Settings


def line_of(p, size):
    """1 for the edge, 2 for the second line, ..."""
    r, c = row_col(size, p)
    return 1 + min(r, c, size - 1 - r, size - 1 - c)


@pytest.mark.slow
@pytest.mark.parametrize("size", [19, 13])
def test_the_first_ten_moves_with_the_defaults_keep_off_the_first_two_lines(size):
    e = Engine(size, 7.5, Settings(seed=1))
    moves = []
    for _ in range(10):
        colour = e.game.to_play
        p = e.genmove(colour)
        assert p is not None and p != PASS
        e.game.play(colour, p)
        moves.append(p)
    low = [format_vertex(p, size) for p in moves if line_of(p, size) <= 2]
    assert not low, f"on the first or second line: {low} of " \
                    f"{[format_vertex(p, size) for p in moves]}"
