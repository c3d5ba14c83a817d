"""Explicit random-number state for compiled code.

Every compiled routine that draws random numbers takes one of these states (a
one-element uint64 array) instead of numba's hidden global generator, so that a
seed fully determines a playout, a search or a training run, and so that
threads can each own a stream.  The generator is xorshift64*, seeded through
splitmix64 so that nearby seeds give unrelated streams.
"""
import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_STAR = np.uint64(0x2545F4914F6CDD1D)


def make_rng(seed):
    """A fresh state for `seed` (any non-negative int)."""
    state = np.zeros(1, dtype=np.uint64)
    seed_rng(state, np.uint64(seed % (1 << 64)))
    return state


@njit(cache=True)
def seed_rng(state, seed):
    z = np.uint64(seed) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):  # xorshift must never hold zero
        z = _GOLDEN
    state[0] = z


@njit(cache=True)
def next_u64(state):
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * _STAR


@njit(cache=True)
def rand_below(state, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift, no modulo bias worth naming)."""
    hi = next_u64(state) >> np.uint64(32)
    return np.int64((hi * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def rand_float(state):
    """Uniform float in [0, 1)."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
