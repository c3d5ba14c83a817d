"""The candidate moves of a position: the move set the softmax policies draw from (their
compiled twin is policies.softmax's candidate test), and so the moves the policy players, the
engine's pass decision and the depth-2 data trees consider.  Pure Python over the compiled
board rules; engine.play.game.Game.candidates adds positional superko for real games."""
from engine.core.board import M_NEMPTY, is_eye, is_legal


def candidates(b, c):
    """Legal points for `c` (suicide and simple ko checked) that do not fill `c`'s own
    single-point eye, in point order; [] when there is none (PASS is never listed)."""
    n = int(b.meta[M_NEMPTY])
    return sorted(int(p) for p in b.empties[:n] if is_legal(b, p, c) and not is_eye(b, p, c))
