"""Compile every numba kernel into the on-disk cache (run by `make`, and at engine start-up).

A cold JIT takes tens of seconds; from the cache, about a second.  Running the
kernels once on a small board is enough: numba caches per type signature, and
all board sizes share one signature.
"""
import sys
import time

from .board import BLACK, new_board
from .game import Game
from .playout import uniform_playouts
from .rng import make_rng


def warm_up():
    """Run each kernel once; returns the seconds it took."""
    start = time.perf_counter()
    game = Game(5, 0.5)
    for p in game.legal_moves(BLACK)[:3]:
        game.play(game.to_play, p)
    game.score()
    uniform_playouts(new_board(5), BLACK, 2, make_rng(0), 0.5)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"warm-up took {warm_up():.1f} s", file=sys.stderr)
