"""Fixtures for the trainer tests: small positions whose playouts can be enumerated exactly in
Python (every game with its probability, outcome, length and psi sums), random weights, and
exact objectives computed from the enumeration."""
import numpy as np

from engine.core.board import M_MOVES, M_PASSES, PASS, area_score, copy_board, play
from policies import policy_from_theta, policy_probabilities
from policies.playout import move_cap
from policies.softmax import psi
from policies.train import Item
from policies.weights import feature_names

from helpers import board_from_ascii

SIZE = 5
KOMI = 0.5


def nweights(size=SIZE):
    return len(feature_names("shape2x2", size))


def shape_policy(theta, size=SIZE):
    return policy_from_theta("shape2x2", np.asarray(theta, float), size)


def random_theta(seed, scale=0.5, size=SIZE):
    return np.random.default_rng(seed).normal(0, scale, nweights(size))


class TooBig(Exception):
    pass


def games(b, c, pols, komi=KOMI, limit=4000):
    """Every playout from `b` (`c` to move) with the softmax policies pols[colour-1] (one
    policy for both: pols = (pol, pol)): a list of (probability, z Black wins, T moves,
    psi sums [2, weights] by colour).  TooBig past `limit` games."""
    nw = pols[0].theta.shape[0]
    out = []
    cap = move_cap(b)

    def rec(board, c, prob, gsum):
        if board.meta[M_PASSES] >= 2 or board.meta[M_MOVES] >= cap:
            owner = np.zeros(board.color.shape[0], np.int8)
            z = 1 if area_score(board, owner) > komi else 0
            out.append((prob, z, int(board.meta[M_MOVES] - b.meta[M_MOVES]), gsum))
            if len(out) > limit:
                raise TooBig
            return
        pol = pols[c - 1]
        probs = policy_probabilities(board, c, pol)
        moves = [int(p) for p in np.flatnonzero(probs)] or [PASS]
        for a in moves:
            g = np.zeros((1, nw))
            psi(board, c, pol, a, g, 0)
            nxt = copy_board(board)
            play(nxt, a, c)
            gs = gsum.copy()
            gs[c - 1] += g[0]
            rec(nxt, 3 - c, prob * (probs[a] if a != PASS else 1.0), gs)

    rec(copy_board(b), c, 1.0, np.zeros((2, nw)))
    return out


# Late positions of uniform random 5x5 games (found by a search over seeds): few empty points,
# so that every playout can be enumerated (8 to 44 games under random weights), with a real
# fight left (P(Black wins) between 0.15 and 0.65 under random_theta(1)).
POSITIONS = [
    (". X . X X\nX X X X X\nX . X O O\nO O O O .\n. X X O O", 2),
    ("X O . O X\nX O O O .\n. O O X X\nX X O X .\n. X X . X", 2),
    (". X . X .\nX X . X O\nX X X X O\nO O O O O\nO . . O .", 2),
    (". X . O O\nX X X X X\nX . X O O\nO O O O .\nX . O O O", 1),
    (". O . O X\nO O O O X\n. O O X X\nO X X X O\nO X . X .", 1),
]


def small_positions():
    """POSITIONS as (Board, colour to move)."""
    return [(board_from_ascii(text), colour) for text, colour in POSITIONS]


def exact_value(b, c, pol):
    return sum(p * z for p, z, _, _ in games(b, c, (pol, pol)))


def make_items(positions, **fields):
    return [Item(copy_board(b), c, KOMI, id=str(i), **fields)
            for i, (b, c) in enumerate(positions)]
