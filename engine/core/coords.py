"""Conversions between board points and the outside world's coordinates.

Compiled code speaks flat point indices (see engine/core/board.py); GTP speaks
vertices such as "D4" (columns A..Z without I, rows from 1 at the bottom);
sgfmill speaks (row, col) pairs from (0, 0) at the bottom left; GTP names
colours "b", "black", "w" or "white".  These conversions happen only at the
edges: GTP, SGF and data files.
"""
from engine.core.board import BLACK, PASS, WHITE

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
COLOURS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}   # GTP's names, lowercase


def point(size, row, col):
    """Flat index of sgfmill-style (row, col), both from 0 at the bottom left."""
    return (row + 1) * (size + 2) + col + 1


def row_col(size, p):
    """Inverse of `point`."""
    r, c = divmod(p, size + 2)
    return r - 1, c - 1


def parse_vertex(text, size):
    """GTP vertex (case-insensitive, e.g. "d4", "PASS") to a point or PASS; ValueError if bad."""
    t = text.strip().upper()
    if t == "PASS":
        return PASS
    if len(t) < 2 or t[0] not in COLUMNS or not (t[1:].isascii() and t[1:].isdigit()):
        raise ValueError(f"invalid vertex {text!r}")
    col = COLUMNS.index(t[0])
    row = int(t[1:]) - 1
    if not (0 <= col < size and 0 <= row < size):
        raise ValueError(f"vertex {text!r} is off the {size}x{size} board")
    return point(size, row, col)


def parse_colour(text):
    """GTP colour (b, black, w, white in any case) to BLACK or WHITE; ValueError if bad."""
    try:
        return COLOURS[text.lower()]
    except KeyError:
        raise ValueError(f"invalid colour {text!r}") from None


def format_vertex(p, size):
    """Point (or PASS) to an uppercase GTP vertex."""
    if p == PASS:
        return "PASS"
    r, c = row_col(size, p)
    return f"{COLUMNS[c]}{r + 1}"
