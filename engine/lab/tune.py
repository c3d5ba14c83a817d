"""RSPSA: tuning engine parameters that have no gradient (Kocsis, Szepesvari & Winands), with
FDSA as the comparison; the tuner behind `simbal tune`.  Formulas: ../shared/ALGORITHMS.md, 6.

Parameters are named entries of engine/search/params.py PARAMS, each with bounds [low, high] and a
scale; the algorithm works in units of the scale, x = (theta - low) / scale (default scale: a
quarter of the range, so that the paper's largest step, delta+ = 1, is a quarter of the range
and its first, delta0 = 0.05, 1.25%).  One iteration:

- RSPSA: r perturbations Delta in {-1, +1}^d; each is evaluated once (q = 1) on each side,
  f(x + c Delta; Y) and f(x - c Delta; Y), with common random numbers Y (the same seed, hence
  the same opening and the same engine randomness, on both sides); the gradient estimate is the
  mean of (f+ - f-) / (2 c_i Delta_i).  FDSA: for each parameter i in turn, f(x +- c_i e_i; Y),
  with r seeds per parameter, so 2 r d evaluations per iteration against RSPSA's 2 r.
- iRPROP- on the estimate (the same step rule for both methods, only the gradient differs):
  on a sign change delta_i <- max(eta- delta_i, delta-) and the component is zeroed (no move);
  on agreement delta_i <- min(eta+ delta_i, delta+); then x_i += sign(g_i) delta_i, clipped to
  the bounds.  Paper's constants: eta+ = 1.2, eta- = 0.8, delta- = 1e-3, delta+ = 1.0,
  delta0 = 0.05.
- Coupling: the perturbation follows the step size, c_i = rho delta_i with rho = 1 / 0.7.
  Evaluated points are clipped to the bounds and the difference quotient uses the clipped
  points.  A step that the bounds block counts as a sign change (delta_i shrinks): near a bound
  a large perturbation measures a secant across much of the range, whose sign can point out of
  the box for ever while delta_i grows; shrinking it brings the estimate back to the local
  slope.

Objectives map a batch of (parameters, seed) points to values, higher is better:
`MatchObjective` (a pair of games against a fixed opponent with colours swapped, the antithetic
pair: f = the tuned side's score, 0, 1/2 or 1) or `Synthetic` (a known optimum, for tests), or
any callable f(params, seed).  The run folder holds state.json (the checkpoint after every
iteration: resuming continues exactly as an uninterrupted run would, as every random draw
derives from the seed and the iteration number), log.jsonl (one line per iteration: parameters,
gradient estimate and signs, step sizes, objective) and trajectory.png.
"""
import importlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.parallel.cluster import InProcess

ETA_PLUS, ETA_MINUS = 1.2, 0.8
DELTA_MIN, DELTA_MAX, DELTA_0 = 1e-3, 1.0, 0.05
RHO = 1 / 0.7
PLOT_EVERY = 30.0      # seconds between redrawing trajectory.png (and after the last iteration)

# Default bounds of the search parameters (engine/search/params.py PARAMS) worth tuning.
BOUNDS = {
    "uct_c": (0.0, 5.0), "bias_weight": (0.0, 10.0), "expand_visits": (1.0, 20.0),
    "prune_visits": (1.0, 200.0), "unprune_k_init": (1.0, 20.0), "unprune_a": (1.0, 200.0),
    "unprune_b": (1.01, 3.0), "first_play": (0.0, 20.0), "rave_equiv": (10.0, 10000.0),
    "prior_visits": (0.0, 200.0), "prior_gain": (0.0, 5.0),
    "ladder_escape": (0.0, 10.0), "ladder_capture": (0.0, 10.0),
    "prior_center": (-1.0, 5.0),  # below 0: the adaptive centre (log mean exp H)
    "score_weight": (0.0, 0.5), "score_scale": (1.0, 80.0), "playout_gain": (0.25, 4.0),
    "rave_decay": (0.0, 1.0), "rave_skip": (0.0, 0.5), "rave_inherit": (0.0, 200.0),
    "crit_weight": (0.0, 20.0), "crit_min": (1.0, 5000.0), "ladder_nets": (0.0, 2.0),
    "ladder_depth": (0.0, 10.0),
    "playout_fights": (0.0, 1.0), "playout_nakade": (0.0, 1.0), "playout_local": (0.0, 5.0),
    "playout_captures": (0.0, 1.0), "playout_capture_nakade": (0.0, 1.0),
    "playout_mercy": (0.0, 0.5),
}


@dataclass
class Param:
    name: str
    start: float
    low: float
    high: float
    scale: float = 0.0      # 0: (high - low) / 4

    def __post_init__(self):
        if not self.low < self.high:
            raise ValueError(f"{self.name}: bounds {self.low}..{self.high} are empty")
        if not self.low <= self.start <= self.high:
            raise ValueError(f"{self.name}: start {self.start} is outside {self.low}..{self.high}")
        self.scale = self.scale or (self.high - self.low) / 4


def parse_param(text):
    """NAME=START[,LOW,HIGH[,SCALE]] to a Param (LOW, HIGH from BOUNDS when left out)."""
    name, _, rest = text.partition("=")
    try:
        values = [float(v) for v in rest.split(",")]
    except ValueError:
        raise ValueError(f"{text!r}: expected NAME=START[,LOW,HIGH[,SCALE]]") from None
    if len(values) == 1:
        if name not in BOUNDS:
            raise ValueError(f"{text!r}: no default bounds for {name!r}; give START,LOW,HIGH")
        values += BOUNDS[name]
    if len(values) not in (3, 4):
        raise ValueError(f"{text!r}: expected NAME=START[,LOW,HIGH[,SCALE]]")
    return Param(name, *values)


@dataclass
class Settings:
    method: str = "rspsa"         # or "fdsa"
    iterations: int = 50
    perturbations: int = 8        # r (RSPSA: per iteration; FDSA: per parameter)
    delta0: float = DELTA_0
    seed: int = 0


class Tuner:
    """RSPSA / FDSA state and steps; `run` drives it with checkpoints."""

    def __init__(self, params, settings, objective):
        self.params, self.settings, self.objective = list(params), settings, objective
        d = len(self.params)
        self.low = np.array([p.low for p in self.params])
        self.high = np.array([p.high for p in self.params])
        self.scale = np.array([p.scale for p in self.params])
        self.x = (np.array([p.start for p in self.params]) - self.low) / self.scale
        self.delta = np.full(d, settings.delta0)
        self.g_prev = np.zeros(d)
        self.t = 0

    # -- coordinates ------------------------------------------------------------------------

    def theta(self, x=None):
        x = self.x if x is None else x
        return np.clip(self.low + self.scale * x, self.low, self.high)

    def as_dict(self, x=None):
        return {p.name: float(v) for p, v in zip(self.params, self.theta(x))}

    # -- one iteration ----------------------------------------------------------------------

    def perturbations(self):
        """[(plus x, minus x, divisor vector, seed)] of this iteration."""
        s = self.settings
        rng = np.random.default_rng([s.seed, self.t])
        c = RHO * self.delta
        d = len(self.params)
        out = []
        if s.method == "rspsa":
            for k in range(s.perturbations):
                sign = rng.choice([-1.0, 1.0], size=d)
                out.append((self.x + c * sign, self.x - c * sign, 2 * c * sign,
                            int(rng.integers(1 << 62))))
        elif s.method == "fdsa":
            for i in range(d):
                for _ in range(s.perturbations):
                    e = np.zeros(d)
                    e[i] = 1.0
                    div = np.full(d, np.inf)       # this evaluation says nothing of the others
                    div[i] = 2 * c[i]
                    out.append((self.x + c * e, self.x - c * e, div, int(rng.integers(1 << 62))))
        else:
            raise ValueError(f"unknown method {s.method!r} (rspsa or fdsa)")
        return out

    def step(self):
        """Evaluate this iteration's perturbations, update x; returns the log record."""
        plan = self.perturbations()
        points = []
        for plus, minus, _, seed in plan:
            points += [(self.as_dict(plus), seed), (self.as_dict(minus), seed)]
        values = list(self.objective(points))
        d = len(self.params)
        grad_sum, grad_count = np.zeros(d), np.zeros(d)
        for k, (plus, minus, div, _) in enumerate(plan):
            # The evaluated points are clipped to the bounds: divide by the true difference.
            true_div = np.where(np.isinf(div), np.inf, (self.theta(plus) - self.theta(minus)) / self.scale)
            true_div = np.where(true_div == 0, np.inf, true_div)
            diff = values[2 * k] - values[2 * k + 1]
            grad_sum += diff / true_div
            grad_count += ~np.isinf(true_div)
        grad = grad_sum / np.maximum(grad_count, 1)
        before = self.as_dict()
        product = self.g_prev * grad
        self.delta = np.where(product > 0, np.minimum(self.delta * ETA_PLUS, DELTA_MAX),
                              np.where(product < 0, np.maximum(self.delta * ETA_MINUS, DELTA_MIN),
                                       self.delta))
        grad = np.where(product < 0, 0.0, grad)     # iRPROP-: no move after a sign change
        target = self.x + np.sign(grad) * self.delta
        self.x = np.clip(target, 0.0, (self.high - self.low) / self.scale)
        blocked = self.x != target
        self.delta = np.where(blocked, np.maximum(self.delta * ETA_MINUS, DELTA_MIN), self.delta)
        self.g_prev = np.where(blocked, 0.0, grad)
        self.t += 1
        return {"iteration": self.t, "params": before, "objective": float(np.mean(values)),
                "evaluations": len(values), "gradient": grad.tolist(),
                "signs": np.sign(grad).astype(int).tolist(), "step_sizes": self.delta.tolist(),
                "new_params": self.as_dict()}

    # -- checkpoints --------------------------------------------------------------------------

    def state(self):
        return {"t": self.t, "x": self.x.tolist(), "delta": self.delta.tolist(),
                "g_prev": self.g_prev.tolist(), "params": [vars(p) for p in self.params],
                "settings": vars(self.settings)}

    def restore(self, state, path):
        mine = self.state()
        for key in ("params", "settings"):
            theirs = {k: v for k, v in state.get(key, {}).items() if k != "iterations"} \
                if key == "settings" else state.get(key)
            ours = {k: v for k, v in mine[key].items() if k != "iterations"} \
                if key == "settings" else mine[key]
            if theirs != ours:
                raise ValueError(f"{path}: a run with other {key} ({theirs}); use another folder")
        self.t = int(state["t"])
        self.x, self.delta, self.g_prev = (np.array(state[k], dtype=float) for k in ("x", "delta", "g_prev"))


def run(tuner, out_dir, progress=None):
    """Iterate up to settings.iterations, resuming from out_dir/state.json; checkpoint, log and
    plot after every iteration.  Returns the log records (old and new)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    state_path, log_path = out / "state.json", out / "log.jsonl"
    if state_path.exists():
        try:
            state = json.loads(state_path.read_text())
        except ValueError:
            raise ValueError(f"{state_path}: corrupt checkpoint") from None
        tuner.restore(state, state_path)
    log = []
    if log_path.exists():
        for k, line in enumerate(log_path.read_text().splitlines(), 1):
            try:
                record = json.loads(line)
            except ValueError:
                raise ValueError(f"{log_path}, line {k}: corrupt record") from None
            if record["iteration"] <= tuner.t:     # lines past the checkpoint are redone
                log.append(record)
        log_path.write_text("".join(json.dumps(r) + "\n" for r in log))
    if progress:
        progress(tuner.t, tuner.settings.iterations)
    plotted = time.monotonic()
    while tuner.t < tuner.settings.iterations:
        record = tuner.step()
        log.append(record)
        with log_path.open("a") as f:
            f.write(json.dumps(record) + "\n")
        tmp = state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(tuner.state(), indent=1) + "\n")
        os.replace(tmp, state_path)     # a crash mid-write never leaves a torn checkpoint
        if time.monotonic() - plotted > PLOT_EVERY or tuner.t == tuner.settings.iterations:
            plot(log, out / "trajectory.png")
            plotted = time.monotonic()
        if progress:
            progress(tuner.t, tuner.settings.iterations)
    return log


def plot(log, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not log:
        return
    names = list(log[0]["params"])
    fig, axes = plt.subplots(len(names) + 1, 1, figsize=(7, 2.2 * (len(names) + 1)), sharex=True)
    its = [r["iteration"] for r in log]
    for ax, name in zip(axes, names):
        ax.plot(its, [r["new_params"][name] for r in log], marker=".")
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
    objective = np.array([r["objective"] for r in log])
    window = min(10, len(objective))
    smooth = np.convolve(objective, np.ones(window) / window, mode="valid")
    axes[-1].plot(its, objective, ".", alpha=0.4, label="per iteration")
    axes[-1].plot(its[window - 1:], smooth, label=f"mean of {window}")
    axes[-1].set_ylabel("objective")
    axes[-1].set_xlabel("iteration")
    axes[-1].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# -- objectives -----------------------------------------------------------------------------------

class Synthetic:
    """A noisy concave objective with a known maximiser: f = -sum(((theta - opt) / width)^2)
    + noise, where the noise has a part shared by every point of the same seed (what common
    random numbers cancel) and a part of its own (what they cannot)."""

    def __init__(self, optimum, width, common=1.0, own=0.1):
        self.optimum, self.width = dict(optimum), dict(width)
        self.common, self.own = common, own

    def value(self, params):
        return -sum(((params[n] - o) / self.width[n]) ** 2 for n, o in self.optimum.items())

    def __call__(self, points):
        out = []
        for params, seed in points:
            shared = np.random.default_rng([seed]).normal() * self.common
            key = [seed] + [int(abs(v) * 1e6) for v in params.values()]
            own = np.random.default_rng(key).normal() * self.own
            out.append(self.value(params) + shared + own)
        return out


class FunctionObjective:
    """A callable f(params: dict, seed: int) -> float named `module:function`."""

    def __init__(self, spec):
        module, _, name = spec.partition(":")
        try:
            self.f = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError, ValueError) as e:
            raise ValueError(f"objective {spec!r}: {e}") from None

    def __call__(self, points):
        return [float(self.f(params, seed)) for params, seed in points]


@dataclass
class MatchSetup:
    size: int = 9
    komi: float = 7.5
    playouts: int = 200
    weights: str | None = None          # None: the engine's default for the size
    opponent: dict | None = None        # the fixed opponent's parameters (default: engine defaults)
    opening: int = 2                    # random moves each side plays first (from the seed)
    max_moves: int = 0


def play_pair(setup, params, seed):
    """Tuned engine (`params`) against the fixed opponent, two games from the same random
    opening with colours swapped and the same seeds; the tuned side's mean score."""
    from engine.core.board import BLACK, WHITE
    from engine.lab.match import MatchConfig, play_game
    from engine.lab.players import EngineClient
    from engine.play.game import Game

    config = MatchConfig(size=setup.size, komi=setup.komi, max_moves=setup.max_moves)
    rng = np.random.default_rng([seed, 1])
    game = Game(setup.size, setup.komi)
    opening = []
    for k in range(setup.opening):
        colour = BLACK if k % 2 == 0 else WHITE
        moves = game.candidates(colour)
        p = int(moves[rng.integers(len(moves))])
        game.play(colour, p)
        opening.append((colour, p))
    score = 0.0
    for tuned_colour in (BLACK, WHITE):
        tuned = EngineClient(setup.weights, setup.playouts, setup.size, setup.komi, params)
        other = EngineClient(setup.weights, setup.playouts, setup.size, setup.komi, setup.opponent)
        tuned.new_game(seed)
        other.new_game(seed + 1)
        clients = {tuned_colour: tuned, BLACK + WHITE - tuned_colour: other}
        names = {tuned_colour: "tuned", BLACK + WHITE - tuned_colour: "fixed"}
        result, _ = play_game(clients, names, config, opening=opening)
        winner = result.get("winner")
        score += 0.5 if winner == "0" else float(winner == ("B" if tuned_colour == BLACK else "W"))
    return score / 2


def _play_point(point, setup):
    """One work unit: the game pair of one (params, seed) point."""
    params, seed = point
    return play_pair(setup, params, seed)


class MatchObjective:
    """f(params; seed) = play_pair's score, the points of a batch played on a cluster
    (engine.parallel.cluster; default this process), one game pair a unit."""

    def __init__(self, setup, cluster=None):
        self.setup = setup
        self.cluster = cluster or InProcess()

    def __call__(self, points):
        return self.cluster.map(_play_point, list(points), self.setup)


def check_names(params):
    """ValueError for a parameter the engine does not have."""
    from engine.search.params import Params
    for p in params:
        if p.name not in Params._fields:
            raise ValueError(f"unknown engine parameter {p.name!r} (see `simbal params`)")


def distance(tuner, optimum):
    """Largest distance from `optimum` in units of each parameter's scale (for reports, tests)."""
    theta = tuner.as_dict()
    return max(abs(theta[p.name] - optimum[p.name]) / p.scale for p in tuner.params)



def validate(objective, params, pairs, seed):
    """`pairs` game pairs (fresh seeds, independent of the tuning run's) of `params` against the
    objective's fixed opponent: the score, games and 95% Wilson interval."""
    from engine.lab.match import wilson_interval
    rng = np.random.default_rng([seed, 99991])
    points = [(params, int(rng.integers(1 << 62))) for _ in range(pairs)]
    points_won = 2 * sum(objective(points))
    games = 2 * pairs
    low, high = wilson_interval(points_won, games)
    return {"params": params, "games": games, "points": points_won, "score": points_won / games,
            "score_95": [low, high]}
