"""Simulation adjusting (Araki et al. 2014, 2017): make the Monte-Carlo *move choice* match the
expert's move, with no strong evaluator.  For a training position s with expert move a*,
candidates C = the expert move plus the top K-1 moves by the current policy's probability;
for each a in C, N simulations after a give V(a) (the mover's win rate) and, by the likelihood
ratio, grad V(a) = (1/N) sum_j (z_j - zbar_-j) sum_t psi(s_t, a_t) (zbar_-j: the mean outcome
of the other N-1 simulations, a baseline that keeps the estimate unbiased and cuts its noise).

Objectives (`objective` hyper-parameter):
- "gap" (2014): J = (V(a_max) - V(a*))^2, a_max = argmax V; grad J = 2 (V_max - V_*)
  (grad V_max - grad V_*).
- "prob" (improved, ALGORITHMS.md's choice): J = -log P(a*), P = softmax(V / tau) over C, tau
  the sampling noise of N simulations by default (0.5 / sqrt(N)); grad J = -(1/tau)
  (grad V_* - sum_a P(a) grad V(a)).
theta -= alpha grad J."""
import numpy as np

from engine.core.board import copy_board, is_legal, play
from engine.core.rng import rand_float
from policies.kernel import NO_RULES
from policies.softmax import probabilities
from policies.train.kernels import outcome_sums

OBJECTIVES = ("gap", "prob")


class Adjust:
    name = "adjust"
    need = ("expert",)
    hyper = {"objective": "prob", "n": 32, "k": 6, "tau": 0.0}

    def __init__(self, items, hyper, rules=NO_RULES):
        self.items = items
        self.rules = rules          # the playouts' rules (policies.kernel RULE_*)
        self.kind = hyper.get("objective", "prob")
        if self.kind not in OBJECTIVES:
            raise ValueError(f"unknown objective {self.kind!r} (known: {', '.join(OBJECTIVES)})")
        self.n = int(hyper.get("n", 32))
        self.k = int(hyper.get("k", 6))
        self.tau = float(hyper.get("tau") or 0.5 / np.sqrt(self.n))
        self.objective = ("(V(a_max) - V(a*))^2" if self.kind == "gap"
                          else "-log P(a*) of the simulated move choice") + " (lower is better)"

    def count(self):
        return len(self.items)

    def candidates(self, pol, item, rng):
        """The expert move and the K-1 likeliest others under the policy (ties broken at
        random: from zero weights every move is as likely)."""
        probs = np.zeros(item.board.color.shape[0])
        probabilities(item.board, item.colour, pol, probs)
        moves = [int(p) for p in np.flatnonzero(probs) if p != item.expert]
        moves.sort(key=lambda p: (-probs[p], rand_float(rng)))
        return [item.expert] + moves[:self.k - 1]

    def values(self, pol, item, moves, rng):
        """V(a) (mover's win rate) and grad V(a) for each move, by N simulations after it."""
        nw = pol.theta.shape[0]
        values = np.zeros(len(moves))
        grads = np.zeros((len(moves), nw))
        black = item.colour == 1
        for i, a in enumerate(moves):
            work = copy_board(item.board)
            play(work, a, item.colour)
            out = np.zeros((2, 2, nw))
            wins = outcome_sums(work, 3 - item.colour, pol, rng, item.komi, self.n, False, out,
                                self.rules)
            won = out[0] if black else out[1]    # psi sums of the playouts the mover won
            lost = out[1] if black else out[0]
            w = wins if black else self.n - wins
            values[i] = w / self.n
            # Leave-one-out baseline: each playout's outcome minus the mean of the others'
            # (unbiased, since E[sum psi] = 0; far less noisy than z alone).
            n1 = max(self.n - 1, 1)
            grads[i] = ((1.0 - (w - 1) / n1) * (won[0] + won[1])
                        - (w / n1) * (lost[0] + lost[1])) / self.n
        return values, grads

    def work(self, pol, index, rng):
        item = self.items[index]
        nw = pol.theta.shape[0]
        if item.expert < 0 or not is_legal(item.board, item.expert, item.colour):
            return np.zeros(nw), None, 0     # a pass or an illegal record: nothing to match
        moves = self.candidates(pol, item, rng)
        values, grads = self.values(pol, item, moves, rng)
        sims = self.n * len(moves)
        if self.kind == "gap":
            best = int(np.argmax(values))
            gap = values[best] - values[0]
            return -2.0 * gap * (grads[best] - grads[0]), gap * gap, sims
        x = values / self.tau
        p = np.exp(x - x.max())
        p /= p.sum()
        grad_j = -(grads[0] - p @ grads) / self.tau
        return -grad_j, float(-np.log(p[0])), sims
