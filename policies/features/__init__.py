"""Feature sets of the softmax playout policy: codes, symmetries, names, incremental update.

Two feature sets describe a candidate move a for the player c to move in state s:

`pattern3x3` (version 1), for 9x9 and larger (MoGo, Mango, Coulom 2007):
- the 3x3 pattern of colours around a (empty / own / opponent / off-board),
  canonicalised under the 8 symmetries of the square; "colour swap" is handled by
  reading the colours relative to the mover, so a pattern for Black to play and
  its colour-inverted twin for White to play share one weight;
- tactics, from the chains next to a: capture (by the number of stones taken),
  escaping atari by extension (by the liberties reached), self-atari (by the size
  of the chain put in atari), atari on an opponent chain;
- distance to the edge (line 1..4), Coulom distance (|dx|+|dy|+max(|dx|,|dy|):
  2, 3, 4) to the last move and to the second-to-last move, and pass.
All are binary; the pattern and tactics depend only on a's neighbourhood
("local"), the distances on the last two moves ("context").

`shape2x2` (version 1): Silver & Tesauro's local shape features: the
configuration of every 1x1 and 2x2 square of the board after the move, with
location-dependent weights (shared under the 8 board symmetries) and
location-independent weights (also shared under translation), both at once.
Colour inversion negates a weight: the preference is Black's evaluation of the
position after the move (for White, its negation), so a shape and its colour
inverse are one parameter with opposite signs and a colour-symmetric shape
(e.g. the empty square) has none.  This gives the paper's 107 weights on 5x5
(see `shape2x2_counts`).  Only the squares holding the move or a captured stone
differ between candidates, so the feature vector used here is the change from s
to the position after a (the rest cancels in the softmax and in psi).

Incremental update: every point keeps its 3x3 colour code (`code`), changed by
a single add on each of the 8 neighbours when a stone appears or disappears;
after each move `play_and_mark` lists the points whose features may have
changed ("dirty"), which is all the softmax kernel re-evaluates.

Modules: codes.py (3x3 codes, symmetries, pattern classes), pattern3x3.py and shape2x2.py (one
feature set each), update.py (the incremental update); this file names the policy kinds and
gathers the modules' public names, which the rest of Simbal imports from `policies.features`.
"""
import sys

# The package's API: the public names of its modules.
from policies.features.codes import (NCODES, NEIGHBOURS, SYMMETRIES, apply_symmetry,  # noqa: F401
                                     code_at, pattern_match_mask, pattern_tables,
                                     playable_classes, render_code)
from policies.features.pattern3x3 import (ATARI_OFF, CAP_OFF, ESC_OFF, LAST2_OFF,  # noqa: F401
                                          LAST_OFF, LINE_OFF, MAX_DIST, N_PAT, N_PATTERN3X3,
                                          PASS_OFF, PATTERN3X3_VERSION, SA_OFF, WINDOW,
                                          WINDOW_BUCKET, WINDOW_DC, WINDOW_DR, coulom_distance,
                                          libs_after, pattern3x3_context, pattern3x3_local,
                                          pattern3x3_names, pattern3x3_tactics, point_tables, scan)
from policies.features.shape2x2 import (POW3, SHAPE2X2_VERSION, render_cfg,  # noqa: F401
                                        shape2x2_arrays, shape2x2_counts, shape2x2_layout,
                                        shape2x2_local)
from policies.features.update import TACTICAL_LIBS, play_and_mark  # noqa: F401

# Policy kinds: the uniform policy, the softmax policy over each feature set, and the
# rule-based playouts after Fuego's (policies/rulebased.py), whose random step may draw by the
# weights of the `rules3x3` feature set (pattern3x3's 3x3 classes alone).
UNIFORM, SHAPE2X2, PATTERN3X3, RULES = 0, 1, 2, 3
FEATURE_SETS = {"shape2x2": SHAPE2X2, "pattern3x3": PATTERN3X3, "rules3x3": RULES}
RULES3X3_VERSION = 1


def _check():
    pclass, eye, class_codes = pattern_tables()
    assert len(class_codes) == N_PAT, len(class_codes)


_check()


def main(argv=None):
    """Print the number of unique weights of each feature set per board size."""
    sizes = [int(x) for x in (argv or sys.argv[1:])] or [5, 6, 7, 9, 13, 19]
    print(f"pattern3x3 v{PATTERN3X3_VERSION}: {N_PATTERN3X3} weights on every board size "
          f"({N_PAT} 3x3 pattern classes + {N_PATTERN3X3 - N_PAT} tactical/distance/pass)")
    for n in sizes:
        c = shape2x2_counts(n)
        print(f"shape2x2 v{SHAPE2X2_VERSION} {n}x{n}: {c['total']} weights "
              f"(location-independent 1x1 {c['li1x1']}, 2x2 {c['li2x2']}; "
              f"location-dependent 1x1 {c['ld1x1']}, 2x2 {c['ld2x2']})")

