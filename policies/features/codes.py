"""3x3 colour codes around a point (laid out, and kept up to date, by the board; its `code_at`
is re-exported here): the 8 symmetries of the square, the canonical pattern classes
(`pattern_tables`), own-eye flags, and pattern pictures and masks for people and tests.  Both
feature sets build on these codes.
"""
from functools import lru_cache

import numpy as np

from engine.core.board import BLACK, BORDER, EMPTY, NEIGHBOURS, WHITE
from engine.core.board import code_at  # noqa: F401 (re-exported)

# ---------------------------------------------------------------------------------------------
# 3x3 codes
# ---------------------------------------------------------------------------------------------
# The code's layout (NEIGHBOURS) and `code_at` are the board's (engine/core/board.py), which
# keeps every point's code in `code3`.
NCODES = 4 ** 8
SYMMETRIES = ((1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0),
              (1, 0, 0, -1), (-1, 0, 0, 1), (0, 1, 1, 0), (0, -1, -1, 0))  # (dr,dc) -> matrix


def apply_symmetry(sym, dr, dc):
    a, b, c, d = sym
    return a * dr + b * dc, c * dr + d * dc


def _digits():
    codes = np.arange(NCODES, dtype=np.int64)
    return np.stack([(codes >> (2 * k)) & 3 for k in range(8)])  # [8, NCODES]


def _from_digits(digits):
    return sum(digits[k].astype(np.int64) << (2 * k) for k in range(8))


def _valid_codes(digits):
    """Codes that can occur around an on-board point: off-board cells form nothing, one
    whole side, or two adjacent sides (a corner)."""
    border = digits == BORDER
    rows = {s: np.array([dr == s for dr, _ in NEIGHBOURS]) for s in (1, -1)}
    cols = {s: np.array([dc == s for _, dc in NEIGHBOURS]) for s in (1, -1)}
    shapes = [np.zeros(8, bool)] + list(rows.values()) + list(cols.values())
    shapes += [rows[a] | cols[b] for a in (1, -1) for b in (1, -1)]
    ok = np.zeros(NCODES, bool)
    for shape in shapes:
        ok |= np.all(border == shape[:, None], axis=0)
    return ok


def _transform(digits, sym):
    index = {off: k for k, off in enumerate(NEIGHBOURS)}
    out = np.empty_like(digits)
    for k, (dr, dc) in enumerate(NEIGHBOURS):
        out[index[apply_symmetry(sym, dr, dc)]] = digits[k]
    return out


def _swap_colours(digits):
    out = digits.copy()
    out[digits == BLACK] = WHITE
    out[digits == WHITE] = BLACK
    return out


@lru_cache(maxsize=None)
def pattern_tables():
    """(pclass, eye, class_codes): `pclass[c-1, code]` is the pattern3x3 class of a move by
    colour c with 3x3 colour code `code` (-1 if the code cannot occur); `eye[c-1, code]` is 1
    if the point is c's single-point eye (engine.core.board.is_eye, read from the code);
    `class_codes[i]` is the canonical code of class i, colours relative to the mover
    (BLACK = own, WHITE = opponent), the smallest code among the 8 symmetric images."""
    digits = _digits()
    valid = _valid_codes(digits)
    canon = np.min(np.stack([_from_digits(_transform(digits, s)) for s in SYMMETRIES]), axis=0)
    class_codes = np.unique(canon[valid])
    cls = np.full(NCODES, -1, dtype=np.int32)
    cls[valid] = np.searchsorted(class_codes, canon[valid])
    swapped = _from_digits(_swap_colours(digits))
    pclass = np.stack([cls, cls[swapped]]).astype(np.int32)
    eye = np.zeros((2, NCODES), dtype=np.int8)
    orth = [k for k, (dr, dc) in enumerate(NEIGHBOURS) if dr == 0 or dc == 0]
    diag = [k for k in range(8) if k not in orth]
    for c in (BLACK, WHITE):
        walled = np.all((digits[orth] == c) | (digits[orth] == BORDER), axis=0)
        bad = np.sum(digits[diag] == 3 - c, axis=0) + np.any(digits[diag] == BORDER, axis=0)
        eye[c - 1] = walled & (bad < 2) & valid
    return pclass, eye, class_codes


def playable_classes():
    """pattern3x3's table for the policy: the class of a move by colour c with code `code`, or
    -1 where the move fills c's own eye (or the code cannot occur), as int16 (cache-friendly)."""
    pclass, eye, _ = pattern_tables()
    return np.where(eye != 0, -1, pclass).astype(np.int16)


_SYMBOL = {EMPTY: ".", BLACK: "X", WHITE: "O", BORDER: "#"}


def render_code(code, centre="*"):
    """A 3x3 code as 'abc/d*e/fgh' (X = own/black, O = opponent/white, # = off board)."""
    d = [_SYMBOL[(int(code) >> (2 * k)) & 3] for k in range(8)]
    return f"{d[0]}{d[1]}{d[2]}/{d[3]}{centre}{d[4]}/{d[5]}{d[6]}{d[7]}"


# Pattern strings: 3 rows top to bottom, the move in the centre ('.').  X own stone, O opponent
# stone, '.' empty, '#' off board, '?' anything, 'x' anything but X, 'o' anything but O.
_ALLOWED = {"X": (BLACK,), "O": (WHITE,), ".": (EMPTY,), "#": (BORDER,),
            "?": (EMPTY, BLACK, WHITE, BORDER), "x": (EMPTY, WHITE, BORDER),
            "o": (EMPTY, BLACK, BORDER)}


def pattern_match_mask(rows, both_colours=True):
    """Which mover-relative 3x3 codes match the pattern `rows` under some symmetry (and, with
    `both_colours`, also with X and O exchanged): a bool array over all codes."""
    if len(rows) != 3 or any(len(r) != 3 for r in rows) or rows[1][1] != ".":
        raise ValueError(f"bad 3x3 pattern {rows!r}")
    digits = _digits()
    cell = {}
    for i in range(3):
        for j in range(3):
            if (i, j) != (1, 1):
                cell[(1 - i, j - 1)] = rows[i][j]
    variants = [digits, _swap_colours(digits)] if both_colours else [digits]
    mask = np.zeros(NCODES, bool)
    for dig in variants:
        for sym in SYMMETRIES:
            ok = np.ones(NCODES, bool)
            for k, (dr, dc) in enumerate(NEIGHBOURS):
                ok &= np.isin(dig[k], _ALLOWED[cell[apply_symmetry(sym, dr, dc)]])
            mask |= ok
    return mask
