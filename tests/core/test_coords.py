"""The GTP colour names (engine/core/coords.py), shared by the GTP server and the in-process
players: b, black, w and white in any case, nothing else."""
import pytest

from engine.core.board import BLACK, WHITE
from engine.core.coords import parse_colour


@pytest.mark.parametrize("text, colour", [
    ("b", BLACK), ("B", BLACK), ("black", BLACK), ("Black", BLACK), ("BLACK", BLACK),
    ("w", WHITE), ("W", WHITE), ("white", WHITE), ("wHiTe", WHITE), ("WHITE", WHITE),
])
def test_colour_names_in_any_case(text, colour):
    assert parse_colour(text) == colour


@pytest.mark.parametrize("text", ["", "x", "bl", "blk", "whites", " b", "b ", "empty", "1",
                                  "ｂ", "PASS"])
def test_anything_else_is_refused(text):
    with pytest.raises(ValueError):
        parse_colour(text)
