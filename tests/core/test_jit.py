"""engine/core/jit.py: `no_refcount` really compiles without numba's runtime (so without
reference counting), and still works on the arrays it is given."""
import numpy as np
import pytest
from numba import njit
from numba.core.errors import NumbaError

from engine.core.jit import no_refcount


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
