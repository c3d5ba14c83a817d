"""Apprenticeship learning (Silver & Tesauro 2009, section 4.1): maximum likelihood of expert
moves, theta += alpha psi(s, a*) per training position (the gradient of log pi(s, a*))."""
import numpy as np

from policies.softmax import psi


class Apprentice:
    name = "apprentice"
    objective = "log-likelihood of the expert move (higher is better)"
    need = ("expert",)
    hyper = {}

    def __init__(self, items, hyper):
        self.items = items

    def count(self):
        return len(self.items)

    def work(self, pol, index, rng):
        item = self.items[index]
        grad = np.zeros((1, pol.theta.shape[0]))
        logp = psi(item.board, item.colour, pol, item.expert, grad, 0)
        if not np.isfinite(logp):
            # An expert move the policy never plays (it fills an own eye, or is illegal here):
            # no likelihood to raise.
            return grad[0], None, 0
        return grad[0], float(logp), 0
