"""`no_refcount`: how the hot loops' compiled functions that allocate nothing and keep no array
they are given are compiled (the board's moves, the rule-based playouts).

numba reference-counts each array a compiled function holds: a call to NRT_incref or
NRT_decref (never inlined) for every array bound, passed or taken out of a record, on every
path its pruning pass cannot pair up.  Borrowed views (policies/nrt.py) make those calls
return at once, but the calls remain, and they keep LLVM from optimising across them: without
them the rule-based playouts ran 1.6 times as fast (BENCHMARKS.md, session 33).  Compiled
without numba's runtime (`_nrt=False`, an option numba keeps for this use but does not
document) a function emits none.  numba refuses to compile such a function if it allocates (an
array, a list, a copy): move the allocation to the caller.  It must not return or store an
array it was given either, which numba cannot check: use it for functions that return numbers.

A function compiled for a call from a `no_refcount` one inherits the option unless it sets
its own (numba's flag inheritance), so a callee that allocates (a board copy, the tree's
expansion, a softmax playout) would need `_nrt=True` in its decorator.  The search loop and the
local playouts were tried this way and did not run measurably faster (their reference counts
were already pruned or borrowed; BENCHMARKS.md, session 33), so they keep plain `njit`; of the
search's functions only `select_child` and `_update_rave`, called at every tree level and
allocating nothing, are compiled this way (session 40).
"""
from numba import njit

no_refcount = njit(cache=True, nogil=True, _nrt=False)

no_refcount_inline = njit(cache=True, nogil=True, _nrt=False, inline='always')
"""`no_refcount`, inlined into each caller by numba (IR inlining) for functions that take the
Board record: a call passes the record's ten arrays by value, about 70 words pushed on the
stack, which cost the rule-based playouts more than the calls' work (BENCHMARKS.md, session 39).
A function compiled this way is copied into every caller, so it is kept for small functions
and for the stages called once a move."""
