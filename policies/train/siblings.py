"""Sibling balancing: simulation balancing of the differences between a position's children.

A search chooses among a position's moves by comparing the values its playouts give the
positions after them; an error the playouts make on all of a position's children alike changes
no choice.  Policy-gradient balancing (balance.py) fits each position's playout mean to its
label, shared errors included, and on 9x9 its lower MSE has played worse (BENCHMARKS.md,
sessions 18 and 20).  This trainer takes *families*: the positions after several candidate
moves of one parent (position ids `<parent>|<move>`, as data/siblings.py writes them), each
labelled by an oracle.  Per family, with err_c = Vhat(c) - V(c) the bias of child c (V from M
simulations) and g_c its policy-gradient estimate (N further simulations, balance.py), it
steps along

    sum_c (err_c - (1 - level) * mean_f err_f) g_c / |family|

that is, it balances each child's error *relative to its siblings'*; `level` (0 to 1) keeps
that share of the family's common error (1: plain balancing over the children).  The
objective it reports is the mean squared sibling error sum_c (err_c - mean err)^2 / |family|.
"""
import numpy as np

from policies.kernel import NO_RULES
from policies.train.balance import Balance


def families_of(items):
    """Items grouped by parent (the id before '|'), in first-seen order; families of one child
    (nothing to compare) are left out."""
    groups = {}
    for item in items:
        groups.setdefault(item.id.split("|")[0], []).append(item)
    return [g for g in groups.values() if len(g) >= 2]


class Siblings:
    name = "siblings"
    objective = "squared sibling bias (err_c - family mean)^2 (lower is better)"
    need = ("value",)
    hyper = {"m": 16, "n": 16, "level": 0.0}

    def __init__(self, items, hyper, rules=NO_RULES):
        self.families = families_of(items)
        if not self.families:
            raise ValueError("siblings needs families: positions with ids '<parent>|<move>', "
                             "two or more per parent (data/siblings.py children)")
        self.level = float(hyper.get("level", 0.0))
        # Always the leave-one-out baseline, whose g estimates grad E[z] itself: then the step
        # is the gradient of the sibling objective, and its noise lower.
        self.per_child = Balance(items, {**hyper, "baseline": True}, rules)

    def count(self):
        return len(self.families)

    def work(self, pol, index, rng):
        family = self.families[index]
        errors, grads = [], []
        for item in family:
            v, g = self.per_child.estimates(pol, item, rng)
            errors.append(item.value - v)
            grads.append(g)
        errors = np.array(errors)
        centred = errors - errors.mean()
        weights = centred + self.level * errors.mean()
        direction = sum(w * g for w, g in zip(weights, grads)) / len(family)
        cost = len(family) * (self.per_child.m + self.per_child.n)
        return direction, float(np.mean(centred ** 2)), cost
