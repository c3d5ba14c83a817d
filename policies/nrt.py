"""Borrowed array views for compiled hot loops (a numba performance helper).

numba reference-counts every array a compiled function holds, with atomic
increments and decrements of the array's meminfo.  Where a loop passes arrays
to helpers or takes them out of namedtuples (Board, PlayState, Policy), those
atomics are not optimised away, and on shared machines they cost more than the
Go logic itself (they were 65% of a pattern playout's time here).  `borrow(a)`
returns the same array without a meminfo, for which numba's incref/decref
return at once.  Use it only on arrays that outlive the view: take views on
function entry of arrays the caller owns, never return or store them.  Even for
borrowed views numba still makes the calls; a function that neither allocates
nor keeps arrays is better compiled without reference counting at all
(engine/core/jit.py's `no_refcount`).

Binding a record's field to a local once is not always cheaper than reading it each time:
numba drops an increment-decrement pair that falls within one basic block, so a short
function with early returns (board.is_legal) reads its fields more cheaply in place than
bound at its top: bound, it cost the uniform playouts a fifth of their speed (BENCHMARKS.md,
session 24).
"""
from numba import njit
from numba.core import cgutils
from numba.extending import intrinsic

from engine.core.board import Board


@intrinsic
def borrow(typingctx, arr):
    """A view of `arr` that is not reference-counted (valid while `arr` lives)."""
    def codegen(context, builder, signature, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        dst = context.make_array(arr)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(dst, name, getattr(src, name))
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        return dst._getvalue()
    return arr(arr), codegen


@njit(cache=True, nogil=True, inline='always')
def borrowed_board(b):
    """The board `b` with borrowed arrays: engine code run on it (play, area_score, ...) skips
    the atomic reference counting too (about a third of `play`'s time).  Same rules as borrow."""
    return Board(borrow(b.color), borrow(b.head), borrow(b.nxt), borrow(b.libs), borrow(b.csize),
                 borrow(b.empties), borrow(b.epos), borrow(b.mark), borrow(b.meta), borrow(b.zob),
                 borrow(b.code3), borrow(b.libsum))
