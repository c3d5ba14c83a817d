"""Two-step simulation balancing (Silver & Tesauro 2009, Algorithm 2): minimises the two-step
imbalance B_2 with exact sums over each training position's depth-2 tree, no simulation:
V = sum p Vhat(s3), g = sum p Vhat(s3) (psi(s1, a1) + psi(s2, a2)), p = pi(s1, a1) pi(s2, a2),
theta += alpha (Vhat(s1) - V) g.

If a tree lacks some candidate moves of the policy, V is taken over the moves it has (V/m with
m = sum p, the mass covered) and g is the exact gradient of that ratio; with full trees m = 1
and this is Algorithm 2 as written."""
import numpy as np

from policies.train.kernels import twostep_sums


class TwoStep:
    name = "twostep"
    objective = "two-step squared bias (Vhat - V2)^2 (lower is better)"
    need = ("value", "tree")
    hyper = {}

    def __init__(self, items, hyper):
        self.items = items

    def count(self):
        return len(self.items)

    def estimates(self, pol, item):
        """(V, g): the depth-2 expectation of the labels and its exact gradient."""
        a1, first, a2, v3 = item.tree
        nw = pol.theta.shape[0]
        g = np.zeros(nw)
        gm = np.zeros(nw)
        value, mass = twostep_sums(item.board, item.colour, pol, a1, first, a2, v3, g, gm)
        if mass <= 0.0:
            return item.value, g     # no move of the tree is ever played: nothing to learn
        v = value / mass
        return v, (g - v * gm) / mass

    def work(self, pol, index, rng):
        item = self.items[index]
        v, g = self.estimates(pol, item)
        bias = item.value - v
        return bias * g, bias * bias, 0


def imbalance_report(path, weights="uniform"):
    """`simbal eval twostep`: the two-step imbalance B_2 (mean of (Vhat(s1) - V2)^2 over the
    depth-2 trees of `path`) of the playout policy `weights` (a weight file or uniform), with
    a bootstrap 95% interval and the mean signed bias: the trainer's objective, measured on
    trees it may not have seen (does it generalise, or only fit its training trees?).
    `effective_trees`, (sum of the squared biases)^2 / (sum of their squares), says how many
    trees carry it (all n when they share it evenly; on 5x5 random positions about a tenth:
    BENCHMARKS.md, session 29), `top_tenth_share` the share held by the worst tenth."""
    from policies.data.evaluate import mse_with_interval
    from policies.loader import builtin_theta, load_policy, policy_from_theta
    from policies.train.inputs import load_items

    items = load_items(path, need=("value", "tree"))
    size = int(items[0].board.meta[0])
    # Uniform as zero softmax weights (any feature set gives the same policy): psi, and so
    # the two-step sums, need a softmax policy.
    pol = (policy_from_theta("shape2x2", builtin_theta("uniform", "shape2x2", size), size)
           if weights == "uniform" else load_policy(weights, size, strict=True))
    trainer = TwoStep(items, {})
    v2 = np.array([trainer.estimates(pol, it)[0] for it in items])
    labels = np.array([it.value for it in items])
    result = mse_with_interval(v2, labels)
    bias = labels - v2
    sq = bias ** 2
    total = float(sq.sum())
    worst = np.sort(sq)[::-1][:max(1, len(sq) // 10)]
    return {"imbalance": result["mse"], "lo": result["lo"], "hi": result["hi"],
            "n": result["n"], "mean_bias": float(bias.mean()),
            "effective_trees": total ** 2 / float((sq ** 2).sum()) if total > 0 else 0.0,
            "top_tenth_share": float(worst.sum()) / total if total > 0 else 0.0,
            "weights": str(weights), "trees": str(path)}
