"""Position files: the interchange format of the trainers and the MSE experiment.

One JSON object a line (format documented in policies/DATA.md, version FORMAT_VERSION):

    {"id": "g17", "size": 5, "komi": 24.5, "moves": [["B", "C3"], ["W", "pass"]],
     "to_play": "B", "value_black": 0.62}

moves replayed from the empty board; `value_black` the label (probability that Black wins
under best play), `expert` an expert move; any other key is kept in `Position.extra` (e.g.
"children" of depth-2 trees, "playouts" behind a label).  How a file was made (command,
seed, engine settings, date, library version, counts) goes to a sidecar `<file>.meta.json`,
so the file itself stays one object a line for any other tool.

This module reads, validates and writes those files, replays a position onto a compiled
board, and gives the resumable commands (policies/data/positions.py, policies/data/labels.py) their
append-as-you-go output: finished lines are appended, a run started again skips the ids
already written, and the file is rewritten in input order once complete.
"""
import gzip
import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from engine.core.board import BLACK, PASS, WHITE, is_legal, new_board, play
from engine.core.coords import format_vertex, parse_vertex
from policies.weights import library_version

FORMAT = "simbal-positions"
FORMAT_VERSION = 1
COLOUR = {"B": BLACK, "W": WHITE}
LETTER = {BLACK: "B", WHITE: "W"}
CORE_KEYS = ("id", "size", "komi", "moves", "to_play", "value_black", "expert")


class DataFileError(ValueError):
    """A position file (or a position in it) that cannot be used; the message names the file
    and the line."""


@dataclass
class Position:
    id: str
    size: int
    komi: float
    moves: list                       # [(colour letter, GTP vertex or "pass")]
    to_play: str                      # "B" or "W"
    value_black: float | None = None  # label: P(Black wins under best play)
    expert: str | None = None         # an expert's move for the side to play (vertex or "pass")
    extra: dict = field(default_factory=dict)

    def to_json(self):
        obj = {"id": self.id, "size": self.size, "komi": self.komi,
               "moves": [list(m) for m in self.moves], "to_play": self.to_play}
        if self.value_black is not None:
            obj["value_black"] = self.value_black
        if self.expert is not None:
            obj["expert"] = self.expert
        obj.update(self.extra)
        return json.dumps(obj, separators=(",", ":"))


def meta_path(path):
    """The sidecar that records how `path` was made."""
    path = Path(path)
    return path.with_name(path.name + ".meta.json")


def _number(obj, key, where):
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or abs(v) == float("inf"):
        raise DataFileError(f"{where}: {key!r} must be a number, not {v!r}")
    return v


def parse_position(obj, where):
    """A Position from one decoded JSON object; DataFileError naming `where` if it is bad."""
    if not isinstance(obj, dict):
        raise DataFileError(f"{where}: not a JSON object")
    missing = [k for k in ("id", "size", "komi", "moves", "to_play") if k not in obj]
    if missing:
        raise DataFileError(f"{where}: missing {', '.join(missing)}")
    pid = obj["id"]
    if isinstance(pid, bool) or not isinstance(pid, (str, int)):
        raise DataFileError(f"{where}: 'id' must be a string")
    size = obj["size"]
    if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= 25:
        raise DataFileError(f"{where}: 'size' must be an integer 2..25, not {size!r}")
    komi = float(_number(obj, "komi", where))
    if obj["to_play"] not in COLOUR:
        raise DataFileError(f"{where}: 'to_play' must be \"B\" or \"W\", not {obj['to_play']!r}")
    moves = obj["moves"]
    if not isinstance(moves, list):
        raise DataFileError(f"{where}: 'moves' must be a list of [colour, vertex]")
    checked = []
    for k, m in enumerate(moves):
        if (not isinstance(m, (list, tuple)) or len(m) != 2 or m[0] not in COLOUR
                or not isinstance(m[1], str)):
            raise DataFileError(f"{where}: move {k + 1} {m!r} is not [\"B\"|\"W\", vertex]")
        try:
            parse_vertex(m[1], size)
        except ValueError as e:
            raise DataFileError(f"{where}: move {k + 1}: {e}") from None
        checked.append((m[0], m[1]))
    value = obj.get("value_black")
    if value is not None:
        value = float(_number(obj, "value_black", where))
        if not 0.0 <= value <= 1.0:
            raise DataFileError(f"{where}: 'value_black' {value} is not a probability")
    expert = obj.get("expert")
    if expert is not None:
        try:
            parse_vertex(str(expert), size)
        except ValueError as e:
            raise DataFileError(f"{where}: expert move: {e}") from None
    extra = {k: v for k, v in obj.items() if k not in CORE_KEYS}
    return Position(str(pid), size, komi, checked, obj["to_play"], value, expert, extra)


def read_positions(path, partial_ok=False):
    """Every position of a file.  DataFileError naming the file and line for a missing file, a
    line that is not a valid position, or an id used twice.  With `partial_ok` (resuming an
    interrupted run) a last line cut off mid-write is ignored.  A name ending in `.gz` is read
    through gzip (how labelled sets too costly to remake are kept in `data/`)."""
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as f:
                lines = f.read().splitlines()
        else:
            lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError, EOFError) as e:
        raise DataFileError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e})") from None
    out, seen = [], {}
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}, line {k}"
        try:
            obj = json.loads(line)
        except ValueError as e:
            if partial_ok and k == len(lines):
                break
            raise DataFileError(f"{where}: not JSON ({e})") from None
        pos = parse_position(obj, where)
        if pos.id in seen:
            raise DataFileError(f"{where}: id {pos.id!r} already used on line {seen[pos.id]}")
        seen[pos.id] = k
        out.append(pos)
    return out


def read_meta(path):
    """The sidecar record of `path` (a dict), or {} when there is none; DataFileError if it is
    unreadable."""
    mp = meta_path(path)
    if not mp.exists():
        return {}
    try:
        meta = json.loads(mp.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataFileError(f"{mp}: unreadable record of how {Path(path).name} was made ({e})") \
            from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise DataFileError(f"{mp}: not a {FORMAT} record")
    if meta.get("format_version") != FORMAT_VERSION:
        raise DataFileError(f"{mp}: format version {meta.get('format_version')!r} "
                            f"(this library reads {FORMAT_VERSION})")
    return meta


def write_meta(path, made_by, count, complete=True):
    """Write the sidecar of `path`: format, version, count, date, library version, made_by."""
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "count": count,
            "complete": complete,
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "library_version": library_version(), "made_by": made_by}
    _atomic_write(meta_path(path), json.dumps(meta, indent=1) + "\n")


def _atomic_write(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_positions(path, positions, made_by):
    """Write a whole position file (to a temporary file renamed into place) and its sidecar."""
    positions = list(positions)
    _atomic_write(path, "".join(p.to_json() + "\n" for p in positions))
    write_meta(path, made_by, len(positions))


class Appender:
    """The output of a resumable command: `done` holds the positions already in the file (from
    an earlier, interrupted run with the same settings) and `earlier` that run's record, `add`
    appends one more at once, and `finish` rewrites the file in the input's order with its
    sidecar.

    A run with other settings (`made_by["settings"]`) than the file's own refuses to mix them:
    DataFileError naming the file."""

    def __init__(self, path, made_by):
        self.path = Path(path)
        self.made_by = made_by
        self.done, self.earlier = {}, {}
        if self.path.exists():
            self.earlier = read_meta(self.path).get("made_by", {})
            if self.earlier.get("settings") != made_by.get("settings"):
                raise DataFileError(
                    f"{self.path}: already holds positions made with other settings "
                    f"({self.earlier.get('settings')}); choose another output or the same "
                    "settings")
            self.done = {p.id: p for p in read_positions(self.path, partial_ok=True)}
            # Drop a cut-off last line before appending after it.
            _atomic_write(self.path, "".join(p.to_json() + "\n" for p in self.done.values()))
        write_meta(self.path, made_by, len(self.done), complete=False)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "a", encoding="utf-8")

    def add(self, pos):
        self._file.write(pos.to_json() + "\n")
        self._file.flush()
        self.done[pos.id] = pos

    def finish(self, order):
        """Rewrite in the order of the ids in `order` (those done) and mark complete."""
        self._file.close()
        positions = [self.done[i] for i in order if i in self.done]
        write_positions(self.path, positions, self.made_by)
        return positions

    def close(self):
        self._file.close()


def position_board(pos):
    """(compiled Board, colour to play) after replaying `pos.moves` on an empty board with the
    board's rules (suicide and simple ko illegal; superko is not checked here).  DataFileError
    naming the position for an illegal move."""
    b = new_board(pos.size)
    for k, (letter, vertex) in enumerate(pos.moves):
        p = parse_vertex(vertex, pos.size)
        colour = COLOUR[letter]
        if p != PASS and not is_legal(b, p, colour):
            raise DataFileError(f"position {pos.id}: move {k + 1} ({letter} {vertex}) is illegal")
        play(b, p, colour)
    return b, COLOUR[pos.to_play]


def vertex(p, size):
    """A point (or PASS) as the files write it: "C3", "pass"."""
    return "pass" if p == PASS else format_vertex(p, size)


def game_over(pos):
    """Did the moves end with two passes (nothing left to evaluate or to move)?"""
    return (len(pos.moves) >= 2 and pos.moves[-1][1].lower() == "pass"
            and pos.moves[-2][1].lower() == "pass")
