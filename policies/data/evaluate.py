"""The accuracy of Monte-Carlo evaluation: the measure every trainer is judged by.

`mc_values` evaluates each position of a set by `sims` playouts of a policy (the fraction
Black wins, score > komi), `mse_with_interval` compares such values with the labels (mean
squared error, bootstrap 95% interval), and `mse_report` does both for a position file, as
`simbal eval mse` prints it (Silver & Tesauro's Figure 3: 100 simulations per position, 1000
test positions), with `--against` also the ratio to another policy's MSE on the same
positions (`mse_ratio_with_interval`: a paired bootstrap, so the positions' shared difficulty
cancels out of the interval).  `label_agreement` compares two label files of the same
positions (another seed, another labeller): how noisy the labels themselves are.

The playouts run in compiled code (policies.kernel.run_playouts) in parts of the position set
spread over a cluster (engine/parallel/cluster.py); every position has its own random stream, seeded
from the run's seed and its index, so the values do not depend on the number of workers.
"""
import numpy as np

from engine.core.rng import make_rng
from engine.parallel.cluster import InProcess, split
from policies.data.files import DataFileError, position_board, read_positions
from policies.kernel import NO_RULES, run_playouts
from policies.loader import load_policy


def _values_of(part, pol, sims, seed, rules):
    """One work unit: the values of the (index, position) pairs of `part`."""
    out = []
    for i, pos in part:
        b, c = position_board(pos)
        out.append(run_playouts(b, c, sims, make_rng(seed * 1_000_003 + i), float(pos.komi),
                                pol, rules) / sims)
    return out


def mc_values(positions, pol, sims, seed, cluster=None, rules=None):
    """Per position, the fraction of `sims` playouts of Policy `pol` (from the position, its
    side to play moving first) that Black wins: float64 array in the positions' order.
    `cluster`: where (engine.parallel.cluster; default this process); `rules`: the playout
    rules (policies.kernel RULE_* vector; None for the plain policy)."""
    cluster = cluster or InProcess()
    parts = split(enumerate(positions), cluster.slots)
    rules = NO_RULES if rules is None else rules
    values = cluster.map(_values_of, parts, cluster.share(pol), sims, seed, rules)
    return np.array([v for part in values for v in part], dtype=np.float64)


def mse_with_interval(values, labels, n_boot=1000, seed=0):
    """Mean squared error of `values` against `labels` and its bootstrap 95% interval
    (percentiles of `n_boot` resamples of the positions): dict(mse=, lo=, hi=, n=)."""
    values = np.asarray(values, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    if values.shape != labels.shape or values.ndim != 1 or values.size == 0:
        raise ValueError(f"need two equal non-empty vectors, not {values.shape} and {labels.shape}")
    sq = (values - labels) ** 2
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, sq.size, size=(n_boot, sq.size))
    boot = sq[idx].mean(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return {"mse": float(sq.mean()), "lo": float(lo), "hi": float(hi), "n": int(sq.size)}


def mse_ratio_with_interval(values, other, labels, n_boot=1000, seed=0):
    """MSE of `values` over the MSE of `other` (both against `labels`) and the bootstrap 95%
    interval of that ratio, both MSEs taken on the same resamples: dict(ratio=, lo=, hi=)."""
    labels = np.asarray(labels, dtype=np.float64)
    sq = (np.asarray(values, dtype=np.float64) - labels) ** 2
    sq_other = (np.asarray(other, dtype=np.float64) - labels) ** 2
    if sq.shape != sq_other.shape or sq.ndim != 1 or sq.size == 0:
        raise ValueError(f"need three equal non-empty vectors, not {sq.shape} and "
                         f"{sq_other.shape}")
    if not sq_other.any():
        raise ValueError("the other policy's MSE is zero: no ratio")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, sq.size, size=(n_boot, sq.size))
    denominators = sq_other[idx].mean(axis=1)
    boot = sq[idx].mean(axis=1) / np.where(denominators > 0, denominators, np.nan)
    lo, hi = np.nanpercentile(boot, [2.5, 97.5])
    return {"ratio": float(sq.mean() / sq_other.mean()), "lo": float(lo), "hi": float(hi)}


def labelled(path, target="label"):
    """The positions of `path` and their labels (`target` "result": the results of the games
    they come from instead); DataFileError if any position has none."""
    positions = read_positions(path)
    if not positions:
        raise DataFileError(f"{path}: no positions")
    if target == "result":
        missing = [p.id for p in positions if p.extra.get("result_black") is None]
        if missing:
            raise DataFileError(f"{path}: {len(missing)} positions have no game result "
                                f"(first: {missing[0]}); positions from `simbal data sgf` of "
                                "records whose RE names a winner have one")
        return positions, np.array([float(p.extra["result_black"]) for p in positions])
    missing = [p.id for p in positions if p.value_black is None]
    if missing:
        raise DataFileError(f"{path}: {len(missing)} positions have no value_black "
                            f"(first: {missing[0]}); label them with `simbal data label`")
    return positions, np.array([p.value_black for p in positions])


def mse_report(path, weights, sims=100, seed=0, cluster=None, against=None, rules=None,
               params=(), target="label"):
    """`simbal eval mse`: the MSE of `sims`-playout evaluations with the policy `weights`
    (a weight file, uniform, handcrafted or rules) against the labels of the position file `path`;
    with `against` (another policy) also that policy's MSE with the same seed and the ratio
    of the two.  `rules`: the playout rules both follow (a RULE_* vector; None for none;
    "engine" for the engine's own on the positions' board size); `params`: (name, value)
    pairs of search parameters set over those rules (the playout_* ones change them).
    `target` "result": against the results of the positions' games instead of their labels (a
    measure that owes nothing to any labeller's search)."""
    positions, labels = labelled(path, target)
    sizes = {p.size for p in positions}
    if len(sizes) != 1:
        raise DataFileError(f"{path}: positions of several board sizes {sorted(sizes)}")
    size = sizes.pop()
    params = dict(params)
    if params and rules is None:
        raise ValueError("parameters change the playout rules: give the rules to change "
                         "(search or engine)")
    engine_rules = isinstance(rules, str)   # "engine": the size's own, resolved here
    if params or engine_rules:
        from engine.search.params import size_playout_rules
        rules = size_playout_rules(size if engine_rules else None, **params)
    pol = load_policy(weights, size)
    other = load_policy(against, size) if against is not None else None
    values = mc_values(positions, pol, sims, seed, cluster, rules)
    result = dict(mse_with_interval(values, labels, seed=seed), sims=sims,
                  weights=str(weights), positions=str(path), seed=seed)
    if target != "label":
        result["target"] = target
    if rules is not None:
        result["rules"] = [float(r) for r in rules]
    if params:
        result["params"] = params
    if other is not None:
        other_values = mc_values(positions, other, sims, seed, cluster, rules)
        result["against"] = dict(mse_with_interval(other_values, labels, seed=seed),
                                 weights=str(against))
        result["ratio"] = mse_ratio_with_interval(values, other_values, labels, seed=seed)
    return result


def label_agreement(path_a, path_b):
    """How far the labels of two files of the same positions differ: the mean squared
    difference with its interval, and the noise of one label if both are independent
    estimates of the same value (the difference's standard deviation over sqrt 2)."""
    a_pos, a = labelled(path_a)
    b_pos, b = labelled(path_b)
    b_by_id = dict(zip((p.id for p in b_pos), b))
    common = [i for i, p in enumerate(a_pos) if p.id in b_by_id]
    if not common:
        raise DataFileError(f"{path_a} and {path_b} have no position id in common")
    va = a[common]
    vb = np.array([b_by_id[a_pos[i].id] for i in common])
    many = va.size > 1
    return dict(mse_with_interval(va, vb),
                label_sd=float(np.std(va - vb, ddof=1) / np.sqrt(2)) if many else None,
                mean_a=float(va.mean()), mean_b=float(vb.mean()),
                correlation=float(np.corrcoef(va, vb)[0, 1]) if many else None)
