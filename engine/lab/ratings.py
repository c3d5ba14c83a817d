"""Ratings from game results: the maximum-likelihood Bradley-Terry fit behind `simbal tournament`.

Model: P(i beats j) = 1 / (1 + exp(-(r_i - r_j))), ratings r in natural log-odds, reported on
the Elo scale (ELO = 400 / ln 10 per unit, so a 75% score is 190.8 Elo).  The fit maximises
the log-likelihood of all games by Newton's method (the problem is concave), with one named
player held at 0 (the anchor; default the first player).

- Draws count as half a win for each side (Go with fractional komi has none; a move-capped game
  scored exactly komi could).
- Prior (as BayesElo's): every pair of players that met gets `prior` virtual draws added, so a
  player who wins or loses every game still gets a finite rating; with 1 virtual draw and
  hundreds of games the shift is a few Elo.  Players with no game at all are left out; a
  field that splits into groups that never met (through any chain of games) has no common
  scale and is refused.
- 95% intervals come from the covariance at the optimum (the inverse of the negative Hessian
  with the anchor fixed), so they are intervals *relative to the anchor*: the anchor's own is 0.

Only numpy; results as a table (Markdown), JSON and a PNG chart with error bars.
"""
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ELO = 400.0 / math.log(10.0)
Z95 = 1.959964


@dataclass
class Rating:
    name: str
    elo: float
    low: float          # 95% interval, relative to the anchor
    high: float
    games: int
    score: float        # points won (draws 1/2)


class RatingError(ValueError):
    """The results cannot be rated (unknown anchor, disconnected field)."""


def tally(games, players=None):
    """(players, wins, count): wins[i, j] = points i scored against j; count[i, j] = games
    between them.  `games` are (a, b, score of a) with score 1, 0.5 or 0."""
    names = list(players) if players is not None else []
    for a, b, _ in games:
        for n in (a, b):
            if n not in names:
                names.append(n)
    index = {n: i for i, n in enumerate(names)}
    m = len(names)
    wins = np.zeros((m, m))
    count = np.zeros((m, m))
    for a, b, s in games:
        i, j = index[a], index[b]
        wins[i, j] += s
        wins[j, i] += 1.0 - s
        count[i, j] += 1
        count[j, i] += 1
    return names, wins, count


def _connected(count):
    m = count.shape[0]
    seen, stack = {0}, [0]
    while stack:
        i = stack.pop()
        for j in np.flatnonzero(count[i] > 0):
            if int(j) not in seen:
                seen.add(int(j))
                stack.append(int(j))
    return len(seen) == m


def fit(games, anchor=None, prior=1.0, players=None):
    """Ratings (a list of Rating, best first) from (a, b, score of a) games; `players` fixes
    the order of names (and the default anchor, the first); see the module docstring."""
    names, wins, count = tally(games, players)
    played = count.sum(axis=1) > 0
    keep = np.flatnonzero(played)
    names = [names[i] for i in keep]
    wins, count = wins[np.ix_(keep, keep)], count[np.ix_(keep, keep)]
    if not names:
        return []
    anchor = names[0] if anchor is None else anchor
    if anchor not in names:
        raise RatingError(f"anchor {anchor!r} has no games (players: {', '.join(names)})")
    if not _connected(count):
        raise RatingError("the players fall into groups that never met: ratings have no common scale")
    met = count > 0
    w = wins + 0.5 * prior * met        # virtual draws between players who met
    n = count + prior * met
    a = names.index(anchor)
    free = np.array([i for i in range(len(names)) if i != a], dtype=int)
    r = np.zeros(len(names))
    cov = np.zeros((len(free), len(free)))
    for _ in range(100):
        diff = r[:, None] - r[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        grad = (w - n * p).sum(axis=1)
        curv = n * p * (1.0 - p)
        info = np.diag(curv.sum(axis=1)) - curv       # negative Hessian of the log-likelihood
        info_f = info[np.ix_(free, free)]
        if not len(free):
            break
        step = np.linalg.solve(info_f, grad[free])
        # Newton from 0 can overshoot when a player scores near 0% or 100%: cap the move.
        largest = np.abs(step).max()
        if largest > 2.0:
            step *= 2.0 / largest
        r[free] += step
        if largest < 1e-10:
            break
    if len(free):
        diff = r[:, None] - r[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        curv = n * p * (1.0 - p)
        info = np.diag(curv.sum(axis=1)) - curv
        cov = np.linalg.inv(info[np.ix_(free, free)])
    sd = np.zeros(len(names))
    sd[free] = np.sqrt(np.diag(cov))
    out = [Rating(name, ELO * r[i], ELO * (r[i] - Z95 * sd[i]), ELO * (r[i] + Z95 * sd[i]),
                  int(count[i].sum()), float(wins[i].sum()))
           for i, name in enumerate(names)]
    out.sort(key=lambda x: -x.elo)
    return out


def to_markdown(ratings, anchor=None):
    lines = ["| rank | player | Elo | 95% interval | games | score |",
             "|---:|---|---:|---|---:|---:|"]
    for k, x in enumerate(ratings, 1):
        pct = 100.0 * x.score / x.games if x.games else 0.0
        lines.append(f"| {k} | {x.name} | {x.elo:.0f} | {x.low:.0f} to {x.high:.0f} | {x.games} "
                     f"| {x.score:g} ({pct:.1f}%) |")
    if anchor:
        lines.append(f"\nAnchor: {anchor} = 0 Elo; intervals are relative to it.")
    return "\n".join(lines) + "\n"


def save(ratings, out_dir, anchor=None, title="Ratings"):
    """ratings.md, ratings.json and ratings.png in `out_dir`; returns the Markdown."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    text = to_markdown(ratings, anchor)
    (out / "ratings.md").write_text(f"# {title}\n\n" + text)
    (out / "ratings.json").write_text(json.dumps(
        {"anchor": anchor, "scale": "Elo (400/ln10 per unit of log-odds)",
         "ratings": [asdict(x) for x in ratings]}, indent=2) + "\n")
    plot(ratings, out / "ratings.png", title)
    return text


def plot(ratings, path, title="Ratings"):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 0.45 * len(ratings) + 1.5))
    ys = np.arange(len(ratings))[::-1]
    elo = np.array([x.elo for x in ratings])
    err = np.array([[x.elo - x.low for x in ratings], [x.high - x.elo for x in ratings]])
    ax.errorbar(elo, ys, xerr=err, fmt="o", capsize=4)
    ax.set_yticks(ys, [x.name for x in ratings])
    ax.set_xlabel("Elo (95% interval)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
