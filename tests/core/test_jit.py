"""engine/core/jit.py: `no_refcount` really compiles without numba's runtime (so without
reference counting), and still works on the arrays it is given; `no_refcount_inline` copies
a function into its callers."""
import numpy as np
import pytest
from numba import njit
from numba.core.errors import NumbaError

from engine.core.board import BLACK, M_NEMPTY, PASS, is_legal, new_board, play, play_inlined
from engine.core.jit import no_refcount, no_refcount_inline


@no_refcount
def _count_positive(a):
    n = 0
    for x in a:
        n += x > 0
    return n


@no_refcount
def _allocates(n):
    return np.zeros(n).sum()


def test_no_refcount_functions_read_and_write_their_arrays():
    assert _count_positive(np.array([3, -1, 0, 7])) == 2


def test_no_refcount_refuses_to_compile_an_allocation():
    # The runtime is really off: allocating needs it, so numba refuses the function, which
    # compiles as plain njit.
    assert njit(_allocates.py_func)(3) == 0.0
    with pytest.raises(NumbaError):
        _allocates(3)


@no_refcount_inline
def _times_two(a, i):
    return 2 * a[i]


# Not cached (numba cannot show cached code), compiled like the playout loops.
@njit(nogil=True, _nrt=False)
def _caller_sum(a):
    return _times_two(a, 0) + _times_two(a, 1)


def test_no_refcount_inline_functions_are_copied_into_their_callers():
    a = np.array([3, 5], np.int64)
    assert _caller_sum(a) == 16
    assert _times_two(a, 1) == 10   # and still callable from Python on their own
    # Inlined by numba, the caller's code declares no function of the callee's name: the
    # arrays are not passed through a call.
    llvm = next(iter(_caller_sum.inspect_llvm().values()))
    assert "_times_two" not in llvm and "_caller_sum" in llvm


def test_the_inlined_play_plays_as_play():
    rng = np.random.default_rng(3)
    b1, b2 = new_board(7), new_board(7)
    c = BLACK
    for _ in range(150):
        legal = [int(p) for p in b1.empties[:b1.meta[M_NEMPTY]] if is_legal(b1, int(p), c)]
        p = int(rng.choice(legal)) if legal else PASS
        assert play(b1, p, c) == play_inlined(b2, p, c)
        c = 3 - c
    for a1, a2 in zip(b1, b2):
        assert np.array_equal(a1, a2)


def _compiled_functions():
    """Every numba dispatcher defined in the engine's and the policies' modules."""
    import importlib
    import pkgutil

    from numba.core.dispatcher import Dispatcher

    import engine
    import policies
    for package in (engine, policies):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if isinstance(value, Dispatcher) and value.py_func.__module__ == info.name:
                    yield info.name, name, value


def test_compiled_functions_have_only_hashable_defaults():
    # numba keys an omitted argument's default by id() when it cannot hash it (an array),
    # so the key changes in every process: the on-disk cache never hits, and each new
    # process recompiles the function (minutes for a playout driver) and grows its index.
    found = list(_compiled_functions())
    assert len(found) > 100
    bad = []
    for module, name, dispatcher in found:
        for default in dispatcher.py_func.__defaults__ or ():
            try:
                hash(default)
            except TypeError:
                bad.append(f"{module}.{name}")
    assert bad == []
