"""Compiled work units of the trainers: simulations with psi sums, and the exact depth-2 sums.

Each function works on one position and returns its contribution; the Python side (loop.py)
spreads positions over threads or a cluster's workers, each with its own random state.  They
only call the policy seam (policies.kernel.playout_with_grad) and softmax.psi, so the trainers
use exactly the playouts and features the engine uses.
"""
import numpy as np
from numba import njit

from engine.core.board import M_MOVES, M_PASSES, copy_board, copy_into, play
from policies.kernel import playout_with_grad
from policies.softmax import psi


@njit(cache=True, nogil=True)
def outcome_sums(b, c, pol, rng, komi, n, per_length, out, rules):
    """Run n playouts from `b` (unchanged), `c` to move, following the playout `rules`
    (policies.kernel RULE_*; NO_RULES for the plain policy), and accumulate their psi sums split by
    outcome and by colour: out[0, k] += w_j G_jk over the playouts Black won (score > komi),
    out[1, k] += w_j G_jk over the others, where G_jk is the sum of psi(s_t, a_t) over the moves
    of colour k+1 in playout j and w_j = 1/T_j (T_j: moves played, passes included) if
    `per_length`, else 1.  Any linear function of the outcome z is then a combination of these
    four rows, e.g. sum_j z_j w_j sum_t psi = out[0, 0] + out[0, 1].  Returns Black's wins."""
    work = copy_board(b)
    scratch = copy_board(b)
    owner = np.zeros(b.color.shape[0], np.int8)
    grad = np.zeros((2, pol.theta.shape[0]))
    wins = 0
    for _ in range(n):
        copy_into(work, b)
        grad[:] = 0.0
        start = work.meta[M_MOVES]
        score = playout_with_grad(work, c, rng, owner, pol, grad, rules, scratch)
        moves = work.meta[M_MOVES] - start
        w = 1.0 / moves if per_length and moves > 0 else 1.0
        row = 0 if score > komi else 1
        wins += 1 - row
        out[row] += w * grad
    return wins


@njit(cache=True, nogil=True)
def twostep_sums(b, c, pol, a1, first, a2, v3, g, gm):
    """Algorithm 2's exact sums over a depth-2 tree from `b`, `c` to move: first moves a1[i],
    their replies a2[first[i]:first[i+1]] with labels v3 (P(Black wins) two plies ahead).
    With p = pi(s1, a1) pi(s2, a2): g += sum p v3 (psi(s1, a1) + psi(s2, a2)) and
    gm += sum p (psi(s1, a1) + psi(s2, a2)) (the gradient of the mass); returns
    (sum p v3, sum p).  Moves the policy never plays get p = 0; the second number is the
    probability mass the tree covers (1 when it holds every candidate move).  After a first
    move that ends the game (a second pass) the tree's single reply has p2 = 1."""
    nw = pol.theta.shape[0]
    psi1 = np.zeros((1, nw))
    psi2 = np.zeros((1, nw))
    s2 = copy_board(b)
    value = 0.0
    mass = 0.0
    for i in range(a1.shape[0]):
        psi1[:] = 0.0
        lp1 = psi(b, c, pol, a1[i], psi1, 0)
        if lp1 == -np.inf:
            continue
        p1 = np.exp(lp1)
        copy_into(s2, b)
        play(s2, a1[i], c)
        over = s2.meta[M_PASSES] >= 2     # a second pass ended the game: its one "reply"
        for j in range(first[i], first[i + 1]):
            psi2[:] = 0.0
            lp2 = 0.0 if over else psi(s2, 3 - c, pol, a2[j], psi2, 0)
            if lp2 == -np.inf:
                continue
            p = p1 * np.exp(lp2)
            value += p * v3[j]
            mass += p
            for k in range(nw):
                d = p * (psi1[0, k] + psi2[0, k])
                gm[k] += d
                g[k] += v3[j] * d
    return value, mass


def warm_up():
    """Compile (or load from numba's cache) both kernels by running each once on a 5x5 board
    (`make`'s warm-up; every trainer calls them with these types)."""
    from engine.core.board import BLACK, new_board
    from engine.core.coords import point
    from engine.core.rng import make_rng
    from policies.kernel import NO_RULES
    from policies.loader import policy_from_theta
    from policies.weights import feature_names

    size = 5
    board = new_board(size)
    pol = policy_from_theta("shape2x2", np.zeros(len(feature_names("shape2x2", size))), size)
    nw = pol.theta.shape[0]
    outcome_sums(board, BLACK, pol, make_rng(1), 0.5, 2, True, np.zeros((2, 2, nw)), NO_RULES)
    centre = point(size, 2, 2)
    twostep_sums(board, BLACK, pol, np.array([centre], np.int64), np.array([0, 1], np.int64),
                 np.array([point(size, 2, 3)], np.int64), np.array([0.5]), np.zeros(nw), np.zeros(nw))
