"""The opening book: moves chosen offline by deep searches, played without searching.

At 5,000 playouts a move the engine's opening moves each give away about 0.01 of the value
a deep search sees (BENCHMARKS.md, session 20); a book stores, for the positions of the first
plies, the move a search of many more playouts chose (built by `simbal book`,
engine/lab/book.py).  This module holds the file format and the lookup; the `Engine`
(player.py) asks it before searching.

A position is keyed by its stones and the side to move, up to the board's 8 symmetries: the
key is the smallest of the 8 transformed boards written as a string (`.` empty, `X` Black,
`O` White, row by row from the bottom), and the move is stored in that orientation.  So a
book built from one corner serves all four, and a position reached by other move orders is
found too (the lookup checks the move's legality, superko included, in the actual game).
A book is made for one board size and one komi and is used only in games from the empty
board with that komi (no handicap, no set-up stones).

The file (JSON): {"format": "simbal-book", "version": 1, "size": N, "komi": K,
"made_by": {...}, "entries": [{"position": ..., "to_play": "B"|"W", "move": vertex,
"visits": int, "winrate": float, "alternatives": [[vertex, visits], ...]}, ...]} (the
alternatives: the search's most visited moves, which a build extends from and a resumed
build reads back).  `read_book` refuses a file that breaks any of it,
naming the file and the entry.
"""
import json
import os
from pathlib import Path

from engine.core.board import BLACK, EMPTY, WHITE
from engine.core.coords import format_vertex, parse_vertex, point, row_col
from policies.loader import DEFAULTS_FILE, WEIGHTS_DIR

FORMAT = "simbal-book"
VERSION = 1
STONE = {EMPTY: ".", BLACK: "X", WHITE: "O"}
TO_PLAY = {BLACK: "B", WHITE: "W"}


class BookFileError(ValueError):
    """A book file that cannot be used; the message names the file and the problem."""


def transform(s, row, col, n):
    """(row, col) under symmetry s (0-7 of the square's dihedral group) on an n x n board."""
    if s & 4:
        row, col = col, row
    if s & 1:
        row = n - 1 - row
    if s & 2:
        col = n - 1 - col
    return row, col


def untransform(s, row, col, n):
    """The inverse of `transform(s, ., ., n)`."""
    if s & 2:
        col = n - 1 - col
    if s & 1:
        row = n - 1 - row
    if s & 4:
        row, col = col, row
    return row, col


def board_string(color, n):
    """A board's stones (`color`, its colour array) as a string, row by row from the bottom."""
    return "".join(STONE[int(color[point(n, r, c)])] for r in range(n) for c in range(n))


def transform_string(s, position, n):
    """A position string under symmetry s."""
    cells = [""] * (n * n)
    for r in range(n):
        for c in range(n):
            r2, c2 = transform(s, r, c, n)
            cells[r2 * n + c2] = position[r * n + c]
    return "".join(cells)


def canonical(position, n):
    """(key string, symmetry): the smallest of a position string's 8 transforms and the
    symmetry that gives it."""
    return min((transform_string(s, position, n), s) for s in range(8))


class Book:
    """Book moves by canonical position; `move(color, colour)` looks one up."""

    def __init__(self, size, komi, entries=None, made_by=None):
        self.size = int(size)
        self.komi = float(komi)
        # (position, to_play) -> (move, visits, win rate, ((alternative, visits), ...)), the
        # points in the key's (canonical) orientation; the alternatives include the move.
        self.entries = dict(entries or {})
        self.made_by = made_by or {}

    def __len__(self):
        return len(self.entries)

    def key(self, color, colour):
        """((position string, to_play letter), symmetry) of a board's stones, `colour` to move."""
        position, s = canonical(board_string(color, self.size), self.size)
        return (position, TO_PLAY[colour]), s

    def _from_key(self, s, p):
        r, c = row_col(self.size, p)
        return point(self.size, *untransform(s, r, c, self.size))

    def _to_key(self, s, p):
        r, c = row_col(self.size, p)
        return point(self.size, *transform(s, r, c, self.size))

    def move(self, color, colour):
        """The book's point for this position (in the board's own orientation), or None."""
        key, s = self.key(color, colour)
        entry = self.entries.get(key)
        return None if entry is None else self._from_key(s, entry[0])

    def alternatives(self, color, colour):
        """[(point, visits)] of the moves the book's search liked here (the book move among
        them), in the board's orientation; None when the position is not in the book."""
        key, s = self.key(color, colour)
        entry = self.entries.get(key)
        return None if entry is None else [(self._from_key(s, p), n) for p, n in entry[3]]

    def add(self, color, colour, p, visits, winrate, alternatives=()):
        """Store point `p` (in the board's orientation) as the move of this position, with the
        search's other good moves [(point, visits)]."""
        key, s = self.key(color, colour)
        self.entries[key] = (self._to_key(s, p), int(visits), round(float(winrate), 4),
                             tuple((self._to_key(s, q), int(n)) for q, n in alternatives))

    def to_json(self):
        vertex = lambda p: format_vertex(p, self.size)  # noqa: E731
        return {"format": FORMAT, "version": VERSION, "size": self.size, "komi": self.komi,
                "made_by": self.made_by,
                "entries": [{"position": pos, "to_play": to_play, "move": vertex(p),
                             "visits": visits, "winrate": winrate,
                             "alternatives": [[vertex(q), n] for q, n in alternatives]}
                            for (pos, to_play), (p, visits, winrate, alternatives)
                            in sorted(self.entries.items())]}


def default_book_spec(size):
    """The shipped book of an NxN board, as weights/defaults.json names it under "books", or
    None (no book for that size)."""
    try:
        books = json.loads(DEFAULTS_FILE.read_text()).get("books", {})
        name = books.get(str(size))
    except (OSError, ValueError, AttributeError) as e:
        raise BookFileError(f"{DEFAULTS_FILE}: unreadable ({e})") from None
    return None if name is None else str(WEIGHTS_DIR / name)


def write_book(path, book):
    """Write `book` to `path` atomically (a crash leaves the old file or the new, whole)."""
    path = Path(path)
    part = path.with_suffix(path.suffix + f".{os.getpid()}.part")
    data = book.to_json()
    entries = data.pop("entries")
    head = json.dumps(data)[:-1]   # one entry a line: a person can read and diff the file
    text = head + ', "entries": [\n' + ",\n".join(json.dumps(e) for e in entries) + "\n]}\n"
    part.write_text(text, encoding="utf-8")
    part.replace(path)


def read_book(path):
    """The Book in `path`; BookFileError naming the file (and the entry) when it is not a
    readable, valid book."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise BookFileError(f"{path}: not a readable book ({getattr(e, 'strerror', None) or e})") \
            from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BookFileError(f"{path}: not a {FORMAT} file")
    if data.get("version") != VERSION:
        raise BookFileError(f"{path}: book version {data.get('version')!r}, this engine reads "
                            f"{VERSION}")
    size, komi = data.get("size"), data.get("komi")
    if not isinstance(size, int) or not 2 <= size <= 25:
        raise BookFileError(f"{path}: size {size!r} is not a board size (2-25)")
    if not isinstance(komi, (int, float)) or isinstance(komi, bool):
        raise BookFileError(f"{path}: komi {komi!r} is not a number")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise BookFileError(f"{path}: no list of entries")
    book = Book(size, komi, made_by=data.get("made_by") or {})
    for k, e in enumerate(entries):
        where = f"{path}, entry {k}"
        try:
            position, to_play, vertex = e["position"], e["to_play"], e["move"]
            visits, winrate = int(e["visits"]), float(e["winrate"])
        except (TypeError, KeyError, ValueError) as err:
            raise BookFileError(f"{where}: missing or bad field ({err})") from None
        if (not isinstance(position, str) or len(position) != size * size
                or set(position) - set(STONE.values())):
            raise BookFileError(f"{where}: position is not {size * size} of '.XO'")
        if canonical(position, size)[0] != position:
            raise BookFileError(f"{where}: position is not in its canonical orientation (the "
                                f"smallest of its 8 symmetric strings)")
        if to_play not in ("B", "W"):
            raise BookFileError(f"{where}: to_play {to_play!r} is not B or W")
        try:
            p = parse_vertex(str(vertex), size)
            alternatives = tuple((parse_vertex(str(q), size), int(n))
                                 for q, n in e.get("alternatives", []))
        except (TypeError, ValueError) as err:
            raise BookFileError(f"{where}: move: {err}") from None
        for q in (p, *(q for q, _ in alternatives)):
            r, c = row_col(size, q)
            if r < 0 or position[r * size + c] != ".":
                raise BookFileError(f"{where}: move {format_vertex(q, size)} is not an empty "
                                    f"point")
        if (position, to_play) in book.entries:
            raise BookFileError(f"{where}: position listed twice")
        book.entries[(position, to_play)] = (p, visits, winrate, alternatives)
    return book
