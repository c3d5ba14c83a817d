"""The trainers' view of a position file: boards, labels, expert moves and depth-2 trees as
arrays for the compiled work units.

Positions are read by policies.data.files (the interchange JSONL of issue 5); this module only turns
them into what the trainers need, once, before training starts.
"""
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.core.board import PASS
from engine.core.coords import parse_vertex
from policies.data.files import DataFileError, position_board, read_meta, read_positions


@dataclass
class Item:
    """One training position, ready for compiled code."""
    board: object                # engine.core.board.Board
    colour: int                  # to move
    komi: float
    value: float = np.nan        # label: P(Black wins), NaN if none
    expert: int = PASS - 1       # expert move (point or PASS), PASS - 1 if none
    tree: tuple = None           # (a1, first, a2, v3) arrays for twostep, or None
    id: str = ""


def _tree(pos, size):
    """The depth-2 tree as arrays; None if the position has none, empty arrays if its game is
    over (nothing to learn from it)."""
    children = pos.extra.get("children")
    if children is None:
        return None
    a1, first, a2, v3 = [], [0], [], []
    for child in children:
        a1.append(parse_vertex(child["move"], size))
        for grand in child.get("children", []):
            if grand.get("value_black") is None:
                raise ValueError(f"reply {grand.get('move')} after {child['move']} has no label")
            a2.append(parse_vertex(grand["move"], size))
            v3.append(float(grand["value_black"]))
        first.append(len(a2))
    return (np.array(a1, np.int64), np.array(first, np.int64), np.array(a2, np.int64),
            np.array(v3, np.float64))


def load_items(path, need=(), report=None):
    """The positions of `path` as Items.  `need` names what a position must have to be used:
    "value", "expert", "tree"; positions without it are left out (an expert engine may have
    resigned, a label run may have failed on one) and counted to `report`; a file with none
    left, or one that cannot be read, gives a DataFileError naming the file."""
    positions = read_positions(path)
    items = []
    for pos in positions:
        try:
            board, colour = position_board(pos)
            expert = PASS - 1 if pos.expert is None else parse_vertex(pos.expert, pos.size)
            tree = _tree(pos, pos.size)
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise DataFileError(f"{path}: position {pos.id}: {err}") from None
        item = Item(board, colour, float(pos.komi),
                    np.nan if pos.value_black is None else float(pos.value_black),
                    expert, tree, str(pos.id))
        lacks = {"value": np.isnan(item.value), "expert": expert == PASS - 1,
                 "tree": tree is None}
        if not any(lacks[k] for k in need):
            items.append(item)
    if not items:
        raise DataFileError(f"{path}: no position has {' and '.join(need) or 'anything'} "
                            f"(of {len(positions)})")
    if report and len(items) < len(positions):
        report(f"{path}: {len(positions) - len(items)} of {len(positions)} positions have no "
               f"{' / '.join(need)}: left out")
    sizes = {int(it.board.meta[0]) for it in items}
    if len(sizes) != 1:
        raise DataFileError(f"{path}: positions of several board sizes {sorted(sizes)}")
    return items


def checksum(path):
    """The first 16 hex digits of the file's SHA-256: how provenance names a file's content."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def describe(path):
    """What a weight file's provenance says about a data file: path, checksum, and the file's
    own record of how it was made (policies.data.files's sidecar), when it has one."""
    path = Path(path)
    info = {"path": str(path), "sha256_16": checksum(path)}
    try:
        info["meta"] = read_meta(path)
    except ValueError as err:
        info["meta"] = str(err)
    return info
