"""Compile every numba kernel into the on-disk cache (run by `make`, and at engine start-up).

A cold JIT takes tens of seconds; from the cache, about a second.  Running the
kernels once on a small board is enough: numba caches per type signature, and
all board sizes share one signature.
"""
import sys
import time

from engine.core.board import BLACK
from engine.play.player import Engine, Settings
from policies import warm_up as warm_up_policies
from policies.train.kernels import warm_up as warm_up_trainers


def warm_up(trainers=True):
    """Run each kernel once; returns the seconds it took.  Without `trainers`, only what a
    game needs (search, playouts, scoring): the GTP engine leaves the trainers' kernels (the
    gradients, psi), about 120 MB once loaded, to the commands that use them."""
    start = time.perf_counter()
    engine = Engine(5, 0.5, Settings(playouts=64))
    engine.set_param("rave", 1)
    for _ in range(3):  # the later moves reuse the tree
        engine.game.play(engine.game.to_play, engine.genmove(engine.game.to_play))
    engine.final_score()
    engine.genmove(BLACK, cleanup=True)
    if trainers:
        warm_up_policies()
        warm_up_trainers()
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"warm-up took {warm_up():.1f} s", file=sys.stderr)
