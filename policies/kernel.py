"""The compiled seam between the engine and the playout policies.

A policy is one `Policy` namedtuple of arrays whatever its kind, so every
compiled caller (playouts, tree search, trainers) has a single signature and
a single on-disk cache entry; `kind` selects the move generator inside.

Two functions form the interface the engine uses:
- `playout(b, c, rng, owner, pol)` plays the board out from `c` to move and
  returns the area score (Black minus White), leaving final owners in `owner`;
- `move_scores(b, c, pol, out)` writes the policy's log-preference H(s, a) for
  every empty point into `out` (the tree's progressive bias / unpruning order).
"""
from collections import namedtuple

import numpy as np
from numba import njit

from engine.playout import finish_uniform

UNIFORM = 0

Policy = namedtuple("Policy", "kind weights")


def uniform_policy():
    return Policy(np.int64(UNIFORM), np.zeros(1, dtype=np.float64))


@njit(cache=True, nogil=True)
def playout(b, c, rng, owner, pol):
    return finish_uniform(b, c, rng, owner)


@njit(cache=True, nogil=True)
def move_scores(b, c, pol, out):
    out[:] = 0.0
