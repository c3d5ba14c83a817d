"""Policy-gradient reinforcement learning, REINFORCE (Silver & Tesauro 2009, section 4.2):
self-play games with the current policy, theta += alpha (z/T) sum_t psi(s_t, a_t), where each
player's moves are reinforced by its own result (z = +1 for the winner's moves, -1 for the
loser's: ALGORITHMS.md's choice) and T is the game's length.

Games start from the empty board, or from the positions of a data file when one is given."""
import numpy as np

from policies.kernel import NO_RULES
from policies.train.kernels import outcome_sums


class Reinforce:
    name = "reinforce"
    objective = "Black's win rate in self-play"
    need = ()
    hyper = {"games": 1}

    def __init__(self, items, hyper, rules=NO_RULES):
        self.items = items
        self.rules = rules          # the playouts' rules (policies.kernel RULE_*)
        self.games = int(hyper.get("games", 1))

    def count(self):
        return len(self.items)

    def work(self, pol, index, rng):
        item = self.items[index]
        out = np.zeros((2, 2, pol.theta.shape[0]))
        wins = outcome_sums(item.board, item.colour, pol, rng, item.komi, self.games, True, out,
                            self.rules)
        # Rows: outcome (0 Black won, 1 White won); columns: whose moves.  Black's moves count
        # +1 when Black won and -1 when it lost; White's the other way round.
        step = (out[0, 0] - out[1, 0]) - (out[0, 1] - out[1, 1])
        return step / self.games, wins / self.games, self.games
