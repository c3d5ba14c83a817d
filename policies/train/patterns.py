"""Fitting a tree prior's large patterns (policies/patterns.py) to expert moves.

The model is the base policy's softmax with one more weight per large pattern:
pi(s, a) ∝ exp(H_base(s, a) + w[pattern(s, a)]), over the moves the base policy plays.  The
base weights stay fixed (train them first, e.g. `simbal train apprentice` on the same moves);
the pattern weights climb the log-likelihood of the expert moves by stochastic gradient
(w[a*] += alpha (1 - pi(a*)), w[a] -= alpha pi(a) for the other candidates, an L2 decay
`l2`), with alpha falling linearly to 0 over the epochs.  Only patterns met at least
`min_count` times among the training candidates get a weight: the rest weigh 0.  With
`locations`, every candidate also has a location code (policies/patterns.py: distances to the
two nearest edges, opening or not) whose weight is fitted alongside: H_base + w[pattern] +
w[location].

`simbal train-prior` (engine/lab/cli/train.py) runs it and writes the base weights plus the
patterns as one weight file, the engine's `--prior`.  `simbal eval prior` measures finished
priors on expert moves with `prior_accuracy`.
"""
import numpy as np

from engine.core.coords import parse_vertex
from policies.data.files import position_board
from policies.kernel import move_scores
from policies.patterns import codes_of, layout
from policies.softmax import EXCLUDED_SCORE


def _expert_among_candidates(pos, policy):
    """(board, colour, the points `policy` plays here, their scores, the index of the expert
    move among them), or None when the expert passes or plays a point the policy does not."""
    if pos.expert is None or pos.expert == "pass":
        return None
    b, c = position_board(pos)
    a = parse_vertex(pos.expert, pos.size)
    s = np.full(b.color.shape[0], EXCLUDED_SCORE)
    move_scores(b, c, policy, s)
    points = np.flatnonzero(s > EXCLUDED_SCORE)
    where = np.flatnonzero(points == a)
    if where.size == 0:
        return None
    return b, c, points, s[points], int(where[0])


def candidates(positions, base, radius, locations=False):
    """Per usable position (an expert move the base policy plays, not a pass): (base scores
    of the candidates, their codes [candidates, 1 or 2 with `locations`], index of the expert
    move among them)."""
    offs, perm = layout(radius)
    out = []
    for pos in positions:
        found = _expert_among_candidates(pos, base)
        if found is None:
            continue
        b, c, points, scores, expert = found
        codes = np.empty((points.size, 2 if locations else 1), np.int64)
        codes_of(b, c, offs, perm, points, codes)
        out.append((scores, codes, expert))
    return out


def prior_accuracy(positions, policy):
    """How well a whole prior (its softmax weights and large patterns, as the engine scores
    moves) predicts the expert moves: {"positions": usable positions, "hits": those whose
    expert move it scores highest, "top1": their share, "log_likelihood": mean log-probability
    of the expert move}.  Positions whose expert passes or plays a point the policy excludes
    are left out, as in training."""
    found = (_expert_among_candidates(pos, policy) for pos in positions)
    hits, loglik, n = _hits_and_loglik((f[3], f[4]) for f in found if f is not None)
    return {"positions": n, "hits": hits, "top1": hits / n if n else float("nan"),
            "log_likelihood": loglik / n if n else float("nan")}


def _indexed(items, keys):
    """Codes replaced by their index in `keys`, or len(keys) (the fixed-0 slot) if absent."""
    out = []
    for scores, codes, expert in items:
        j = np.searchsorted(keys, codes)
        known = j < len(keys)
        known[known] = keys[j[known]] == codes[known]
        out.append((scores, np.where(known, j, len(keys)), expert))
    return out


def _scores(scores, w, idx):
    return scores + w[idx].sum(axis=1)


def _hits_and_loglik(scored):
    """(expert moves scored highest, summed log-probability of the expert moves, positions)
    over (candidate scores, index of the expert move) pairs."""
    hits, loglik, n = 0, 0.0, 0
    for h, expert in scored:
        h = h - h.max()
        hits += int(np.argmax(h) == expert)
        loglik += h[expert] - np.log(np.exp(h).sum())
        n += 1
    return hits, loglik, n


def measure(items, w):
    """(top-1 accuracy, mean log-likelihood) of the expert moves under base + w."""
    hits, loglik, n = _hits_and_loglik((_scores(s, w, idx), e) for s, idx, e in items)
    return (hits / n, loglik / n) if n else (float("nan"), float("nan"))


def fit(train, test, base, radius=3, min_count=2, epochs=4, alpha=0.1, l2=0.001, seed=0,
        progress=None, min_weight=0.03, locations=False):
    """Fit pattern (and with `locations`, location) weights on `train` positions (with expert
    moves) over `base` (a Policy).  Returns (codes, weights, report): the sorted codes whose
    weight reached `min_weight` in size (the rest, mostly rare patterns, weigh 0: a smaller
    file) and their weights, and the accuracy / log-likelihood of base alone and with the
    patterns on `test` (and `train`)."""
    items = candidates(train, base, radius, locations)
    held = candidates(test, base, radius, locations) if test else []
    if not items:
        raise ValueError("no usable training position (expert moves the base policy plays)")
    codes, counts = np.unique(np.concatenate([c.ravel() for _, c, _ in items]),
                              return_counts=True)
    keys = codes[counts >= min_count]
    items, held = _indexed(items, keys), _indexed(held, keys)
    w = np.zeros(len(keys) + 1)          # the last slot: patterns without a weight, fixed at 0
    report = {"positions": len(items), "test_positions": len(held), "patterns_seen": int(len(codes)),
              "patterns_kept": int(len(keys)), "base": {"test": measure(held, w)}}
    rng = np.random.default_rng(seed)
    steps, done = epochs * len(items), 0
    for epoch in range(epochs):
        for i in rng.permutation(len(items)):
            scores, idx, expert = items[i]
            a = alpha * (1.0 - done / steps)
            h = _scores(scores, w, idx)
            p = np.exp(h - h.max())
            g = -p / p.sum()
            g[expert] += 1.0
            for column in idx.T:
                np.add.at(w, column, a * g)
            touched = idx.ravel()
            w[touched] -= a * l2 * w[touched]
            w[-1] = 0.0
            done += 1
            if progress and done % 1000 == 0:
                progress(done, steps)
        if progress:
            progress(done, steps)
    kept = np.abs(w[:-1]) >= min_weight
    w[:-1][~kept] = 0.0
    report["patterns"] = {"test": measure(held, w), "train": measure(items[:5000], w)}
    report["patterns_written"] = int(kept.sum())
    return keys[kept], w[:-1][kept], report
