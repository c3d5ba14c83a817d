"""Policy-gradient simulation balancing (Silver & Tesauro 2009, Algorithm 1): minimises the
full imbalance B_inf = E_rho[(V*(s) - E_pi[z|s])^2].  Per training position s1 with label
Vhat: V = mean of M simulations' outcomes, g = (1/N) sum_j (z_j/T_j) sum_t psi(s_t, a_t) over N
further, independent simulations, and theta += alpha (Vhat - V) g.  The two sample sets come
from one random stream one after the other, so they are independent and the product is an
unbiased estimate of (Vhat - E z) E g."""
import numpy as np

from policies.kernel import NO_RULES, run_playouts
from policies.train.kernels import outcome_sums


class Balance:
    name = "balance"
    objective = "squared bias (Vhat - V)^2 (lower is better)"
    need = ("value",)
    hyper = {"m": 16, "n": 16, "baseline": False}

    def __init__(self, items, hyper, rules=NO_RULES):
        self.items = items
        self.rules = rules          # the playouts' rules (policies.kernel RULE_*)
        self.m = int(hyper.get("m", 16))
        self.n = int(hyper.get("n", 16))
        self.baseline = bool(hyper.get("baseline", False))

    def count(self):
        return len(self.items)

    def estimates(self, pol, item, rng):
        """(V, g) for one position: the bias term's mean and the policy-gradient estimate."""
        v = run_playouts(item.board, item.colour, self.m, rng, item.komi, pol, self.rules) / self.m
        out = np.zeros((2, 2, pol.theta.shape[0]))
        wins = outcome_sums(item.board, item.colour, pol, rng, item.komi, self.n,
                            not self.baseline, out, self.rules)
        if not self.baseline:
            return v, (out[0, 0] + out[0, 1]) / self.n
        # sum_j (z_j - (W - z_j)/(N-1)) G_j, split by outcome: won rows weigh
        # 1 - (W-1)/(N-1), lost rows -W/(N-1).
        n = self.n
        won = 1.0 - (wins - 1) / (n - 1)
        lost = -wins / (n - 1)
        return v, (won * (out[0, 0] + out[0, 1]) + lost * (out[1, 0] + out[1, 1])) / n

    def work(self, pol, index, rng):
        item = self.items[index]
        v, g = self.estimates(pol, item, rng)
        bias = item.value - v
        return bias * g, bias * bias, self.m + self.n
