"""The baseline policies: `uniform`, the handcrafted MoGo-style policy as pattern3x3 weights, and
the table of MoGo's patterns that the rule-based playouts (`rules`, policies/rulebased.py) read.

The handcrafted policy follows MoGo's playout rules (Gelly et al. 2006, "Modification of UCT
with patterns in Monte-Carlo Go"), in this order of preference: capture, escape from atari,
the 3x3 MoGo patterns, random.  Expressed as softmax weights, each tier's log-preference is
several units above the next, so a higher tier is almost always chosen when present, and
moves of one tier are equally likely (the "random" of MoGo's rules).  MoGo looks for its
patterns around the last move only; features are additive here, so a pattern anywhere gets
a little weight and closeness to the last move a lot, which makes a pattern next to the last
move the strong choice (this beat patterns weighted everywhere alike: 60% against 35% versus
GnuGo in short probes, BENCHMARKS.md).  Large self-ataris are avoided, as MoGo's successors (Pachi, Fuego)
do.  These are the engine's default weights until trained ones exist; they are shipped
as weights/<N>x<N>-handcrafted.json (`python -m policies write-shipped`).
"""
from functools import lru_cache

import numpy as np

from engine.core.board import BORDER
from policies.features import NCODES, pattern3x3_names, pattern_match_mask, pattern_tables

# MoGo's 3x3 patterns (Gelly et al. 2006, figure 2) in the notation of features.py: the move at
# the centre; X own stone, O opponent, '.' empty, '#' off board, '?' anything, 'x' not X,
# 'o' not O.  Each is matched under the 8 symmetries and for both colours, as in MoGo.
MOGO_PATTERNS = {
    "hane (enclosing)": ("XOX", "...", "???"),
    "hane (non-cutting)": ("XO.", "...", "?.?"),
    "hane (magari)": ("XO?", "X..", "x.?"),
    "katatsuke / diagonal attachment": (".O.", "X..", "..."),
    "cut1 (unprotected cut)": ("XO?", "O.o", "?o?"),
    "cut1 (peeped cut)": ("XO?", "O.X", "???"),
    "cut2": ("?X?", "O.O", "ooo"),
    "cut keima": ("OX?", "o.O", "???"),
    "edge: chase": ("X.?", "O.?", "###"),
    "edge: block side cut": ("OX?", "X.O", "###"),
    "edge: block side connection": ("?X?", "x.O", "###"),
    "edge: sagari": ("?XO", "x.x", "###"),
    "edge: cut": ("?OX", "X.O", "###"),
}

# Log-preferences.  Tiers: capture > escape > pattern > random.
HANDCRAFTED = {
    "capture:1": 8.0, "capture:2": 8.5, "capture:3-5": 9.0, "capture:6+": 9.5,
    "escape:3+libs": 6.5, "escape:2libs": 5.5,
    "mogo_pattern": 1.0,
    "selfatari:1": -1.0, "selfatari:2": -3.0, "selfatari:3+": -5.0,
    "atari": 0.0,
    "line:1": -0.5, "line:2": 0.0, "line:3": 0.0, "line:4": 0.0,
    "last:d2": 2.5, "last:d3": 1.5, "last:d4": 0.5,
    "last2:d2": 0.0, "last2:d3": 0.0, "last2:d4": 0.0,
    "pass": -5.0,
}

HANDCRAFTED_PROVENANCE = {
    "trainer": "handcrafted",
    "hyperparameters": {"tiers": {k: v for k, v in HANDCRAFTED.items()},
                        "mogo_patterns": {k: "/".join(v) for k, v in MOGO_PATTERNS.items()}},
    "data": "none: set by hand after MoGo's playout rules (Gelly et al. 2006)",
    "training_games": 0,
}


@lru_cache(maxsize=None)
def mogo_classes():
    """Indices of the pattern3x3 classes that match a MoGo pattern (for either colour)."""
    _, _, class_codes = pattern_tables()
    mask = np.zeros(len(class_codes), bool)
    for rows in MOGO_PATTERNS.values():
        mask |= pattern_match_mask(rows)[class_codes]
    return np.nonzero(mask)[0]


@lru_cache(maxsize=None)
def mogo_code_table():
    """`table[c - 1, code]` = 1 where the 3x3 colour code around a point matches a MoGo pattern
    (for either colour, so both rows are the same), else 0: the `rules` policy's `pclass`.  As
    in Fuego, points on the first line match only the edge patterns and corners match none."""
    digits = np.stack([(np.arange(NCODES) >> (2 * k)) & 3 for k in range(8)])
    border = np.sum(digits == BORDER, axis=0)
    mask = np.zeros(NCODES, bool)
    for rows in MOGO_PATTERNS.values():
        edge = "#" in "".join(rows)
        mask |= pattern_match_mask(rows) & (border == (3 if edge else 0))
    return np.stack([mask, mask]).astype(np.int16)


@lru_cache(maxsize=None)
def mogo_code_bits():
    """`mogo_code_table` packed 8 codes a byte, code k in bit k & 7 of byte k >> 3: what the
    playouts read (policies/rulebased.py).  16 KB where the table takes 256 KB: the playouts
    look it up 16 times a move at codes spread over the whole table, and packed it stays in
    the level-1 cache."""
    return np.packbits(mogo_code_table().astype(bool), axis=1, bitorder="little")


def handcrafted_weights():
    """The handcrafted policy as a {name: weight} dict over the pattern3x3 feature set."""
    names = pattern3x3_names()
    weights = dict.fromkeys(names, 0.0)
    for i in mogo_classes():
        weights[names[i]] = HANDCRAFTED["mogo_pattern"]
    for name, value in HANDCRAFTED.items():
        if name != "mogo_pattern":
            weights[name] = value
    return weights


SHIPPED_SIZES = (9, 13, 19)


def write_shipped(directory):
    """(Re)write weights/<N>x<N>-handcrafted.json for the sizes the handcrafted weights ship for."""
    from pathlib import Path

    from policies.weights import write_weights
    paths = []
    for n in SHIPPED_SIZES:
        path = Path(directory) / f"{n}x{n}-handcrafted.json"
        write_weights(path, "pattern3x3", [n], handcrafted_weights(), HANDCRAFTED_PROVENANCE)
        paths.append(path)
    return paths

