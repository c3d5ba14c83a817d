"""The training loop the five trainers share: mini-batches spread over a cluster's workers
(engine/parallel/cluster.py) or this process's threads, the step-size schedule, checkpoints and exact
resume, the progress bar, test-set MSE along the way, and the weight file with its provenance.

A trainer (one module each) supplies `work(pol, index, rng) -> (step, objective, simulations)`:
the ascent direction from one work unit (one training position, or one self-play game), a
sample of its own objective, and how many simulations it ran.  The loop adds
alpha_t * (sum of a batch's steps) to theta after each batch (per-example SGD with the weights
held during a batch).

Determinism: unit `slot` of iteration t draws from a random state seeded by (seed, t, slot), and
epoch e visits the data in an order seeded by (seed, e); a batch's steps are summed in slot
order.  So a run depends on its settings only, not on the number of workers nor on where it
was interrupted: a checkpoint holds theta, the iteration and the curve so far, and resuming
replays the same random streams from there.
"""
import json
import signal
import threading
import time
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path

import numpy as np
from tqdm import tqdm

from engine.core.rng import make_rng
from engine.parallel.cluster import InProcess, Threads, default_workers, value_key, worker_cache
from policies.loader import BUILTIN, builtin_theta, policy_from_theta
from policies.softmax import sync_theta
from policies.train import curves
from policies.train.inputs import checksum
from policies.weights import feature_names, read_weights, write_weights

SCHEDULES = ("constant", "inverse", "linear")
OPTIMIZERS = ("sgd", "adam")
# Adam's moment decays and its guard against a zero second moment (Kingma & Ba's defaults).
ADAM_BETA1 = 0.9
ADAM_BETA2 = 0.999
ADAM_EPSILON = 1e-8
# A batch goes to a distributed cluster only when the cluster has more workers than this
# machine has cores and each worker's share computes at least this long (a Dask round trip
# costs milliseconds, and the batch ends when its slowest share does).  Otherwise (the paper's
# batches of two positions; a local cluster no larger than the machine) threads of this
# process run it, with no overhead at all.
SHIP_SECONDS = 0.1
PROBE_ITERATIONS = 3     # iterations timed on local threads before deciding


@dataclass
class Settings:
    trainer: str
    size: int
    feature_set: str = "shape2x2"
    alpha: float = 0.1
    schedule: str = "constant"       # constant | inverse: alpha/(1+t/decay) | linear: to 0
    decay: float = 1000.0
    iterations: int = 1000
    batch: int = 2                   # work units per step (positions or games)
    seed: int = 0
    init: str = "zero"               # starting weights: zero, a weight file, uniform, handcrafted
    eval_every: int = 0              # iterations between test-set evaluations (0: only at the end)
    eval_sims: int = 100
    eval_seed: int = 12345
    hyper: dict = field(default_factory=dict)   # the trainer's own hyper-parameters
    # sgd: theta += alpha_t * (a batch's summed steps); adam: the same steps through Adam's
    # moment estimates, so alpha_t is about how far each weight moves per update (Leela tuned
    # its playout patterns by simulation balancing with Adam).
    optimizer: str = "sgd"
    # Weight decay: each update also takes alpha_t * l2 * theta off the weights, pulling them
    # toward zero (the uniform policy).  Balancing on a few thousand positions overfits them:
    # the penalty keeps rare shapes, seen in a handful of positions, near zero.
    l2: float = 0.0
    # The playout rules (policies.kernel RULE_* vector) the training playouts and the test
    # evaluation follow: the search's, to balance the playouts the engine really plays; empty
    # for the plain softmax (the paper's setting).
    rules: list = field(default_factory=list)

    def step_size(self, t):
        if self.schedule == "inverse":
            return self.alpha / (1.0 + t / self.decay)
        if self.schedule == "linear":
            return self.alpha * max(0.0, 1.0 - t / self.iterations)
        return self.alpha


def unit_rng(seed, iteration, slot):
    """The random state of one work unit (independent streams for every (seed, t, slot))."""
    mixed = np.random.SeedSequence([seed, iteration, slot]).generate_state(2, np.uint64)
    return make_rng(int(mixed[0]))


def starts_from_file(settings):
    """Does --init name a weight file (rather than zero or a built-in policy)?"""
    return settings.init not in ("zero",) + BUILTIN


def initial_theta(settings):
    if not starts_from_file(settings):
        spec = "uniform" if settings.init == "zero" else settings.init
        return builtin_theta(spec, settings.feature_set, settings.size)
    wf = read_weights(settings.init, settings.feature_set)
    return wf.theta(settings.size, strict=True)


def tracked_names(feature_set, size):
    """The weights followed along training (the paper's Figure 2): the location-independent
    shapes for shape2x2, the tactical and context weights for pattern3x3, the stoneless
    patterns (open space, edge, corner) for rules3x3."""
    names = feature_names(feature_set, size)
    if feature_set == "shape2x2":
        return [n for n in names if n.startswith("li")]
    if feature_set == "rules3x3":
        return [n for n in names if "X" not in n and "O" not in n]
    return [n for n in names if not n.startswith("pat:")]


class Adam:
    """Adam's update (Kingma & Ba 2015) of the ascent direction: per-weight steps of about
    alpha_t, whatever the scale of each weight's gradient.  Its moments are part of the
    checkpoint, so a resumed run is the uninterrupted one."""

    def __init__(self, n, state=None):
        self.m = np.zeros(n) if state is None else np.array(state["m"], dtype=np.float64)
        self.v = np.zeros(n) if state is None else np.array(state["v"], dtype=np.float64)
        self.t = 0 if state is None else int(state["t"])

    def step(self, direction, alpha):
        self.t += 1
        self.m = ADAM_BETA1 * self.m + (1 - ADAM_BETA1) * direction
        self.v = ADAM_BETA2 * self.v + (1 - ADAM_BETA2) * direction * direction
        m_hat = self.m / (1 - ADAM_BETA1 ** self.t)
        v_hat = self.v / (1 - ADAM_BETA2 ** self.t)
        return alpha * m_hat / (np.sqrt(v_hat) + ADAM_EPSILON)

    def state(self):
        return {"m": self.m.tolist(), "v": self.v.tolist(), "t": self.t}


class Checkpoint:
    """theta, iteration, counters and the curve so far, written atomically as JSON (floats
    round-trip exactly) every `seconds` and when training stops or is interrupted."""

    def __init__(self, path, seconds=30.0):
        self.path = Path(path)
        self.seconds = seconds
        self.last = time.monotonic()

    def load(self, settings):
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"{self.path}: no checkpoint to resume from") from None
        except (OSError, ValueError) as err:
            raise ValueError(f"{self.path}: unreadable checkpoint ({err})") from None
        saved = dict(doc.get("settings", {}))
        for f in fields(Settings):   # settings added since the checkpoint: their defaults
            if f.default is not MISSING:
                saved.setdefault(f.name, f.default)
            elif f.default_factory is not MISSING:
                saved.setdefault(f.name, f.default_factory())
        mine = asdict(settings)
        # Only the length of the run may change between an interrupted run and its resumption.
        saved.pop("iterations", None)
        mine.pop("iterations", None)
        if saved != mine:
            diff = sorted(k for k in set(saved) | set(mine) if saved.get(k) != mine.get(k))
            raise ValueError(f"{self.path}: the checkpoint was made with other settings "
                             f"({', '.join(diff)}); resume with the same ones")
        return doc

    def due(self):
        return time.monotonic() - self.last >= self.seconds

    def save(self, state):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(state), encoding="utf-8")
        tmp.replace(self.path)
        self.last = time.monotonic()


class Evaluator:
    """Test-set MSE of the current weights: Monte-Carlo values (policies.data.evaluate) against the
    labels, with a bootstrap interval.  Same seed every time, so curves compare like with like."""

    def __init__(self, positions, sims, seed, rules=None):
        from policies.data.evaluate import mc_values, mse_with_interval
        self._values = mc_values
        self._mse = mse_with_interval
        self.positions = positions
        self.labels = np.array([p.value_black for p in positions], dtype=np.float64)
        self.sims = sims
        self.seed = seed
        self.rules = rules

    def __call__(self, pol, cluster=None):
        values = self._values(self.positions, pol, self.sims, self.seed, cluster, self.rules)
        return self._mse(values, self.labels)


def _units(part, trainer, pol, seed, t):
    """The trainer's work on the (slot, index) pairs of `part` with the policy of iteration t."""
    return [(slot, trainer.work(pol, index, unit_rng(seed, t, slot))) for slot, index in part]


def _shipped_units(part, trainer, feature_set, size, theta, seed, t):
    """One work unit on a cluster worker: _units with this worker's copy of the policy, set to
    the weights `theta` of iteration `t`."""
    pol = worker_cache(value_key("train-policy", feature_set, size),
                       lambda: policy_from_theta(feature_set, theta, size))
    pol.theta[:] = theta
    sync_theta(pol)
    return _units(part, trainer, pol, seed, t)


class BatchRunner:
    """Where each iteration's batch runs: on `cluster` when it is distributed, larger than this
    machine, and a worker's share of a batch is worth the round trip (SHIP_SECONDS, judged on
    the first iterations, run on local threads); else on threads of this process (or, for an
    in-process cluster, one unit after another).  Results never depend on the choice: each
    unit has its own random stream and the steps are summed in slot order."""

    def __init__(self, cluster, trainer, settings):
        self.cluster, self.trainer, self.settings = cluster, trainer, settings
        self.local = (cluster if not cluster.remote
                      else Threads(min(cluster.slots, default_workers())))
        self.ship = False if not cluster.remote else None     # None: not decided yet
        self.probe = []
        self.shared = None

    def __call__(self, slots, pol, theta, t):
        s = self.settings
        runner = self.cluster if self.ship else self.local
        parts = [slots[i::runner.slots] for i in range(min(runner.slots, len(slots)))]
        if self.ship:
            return self.cluster.map(_shipped_units, parts, self.shared, s.feature_set, s.size,
                                    theta.copy(), s.seed, t)
        busy = self.local.busy
        done = self.local.map(_units, parts, self.trainer, pol, s.seed, t)
        if self.ship is None:
            self.probe.append(self.local.busy - busy)
            if len(self.probe) == PROBE_ITERATIONS:
                self.ship = (self.cluster.slots > self.local.slots and
                             min(self.probe) / self.cluster.slots >= SHIP_SECONDS)
                if self.ship:
                    self.shared = self.cluster.share(self.trainer)
        return done

    def report(self):
        return dict(self.cluster.report() if self.ship else self.local.report(),
                    batch_seconds_probed=[round(x, 4) for x in self.probe])

    def close(self):
        if self.local is not self.cluster:
            self.local.close()


def run(trainer, settings, out, curve_path, checkpoint_path, resume=False, test=None,
        data_info=None, checkpoint_seconds=30.0, progress=True, cluster=None):
    """Train; returns the final curve document.  `trainer` has .work, .count, .name,
    .objective; `test` an Evaluator or None; `cluster` where the work units run
    (engine.parallel.cluster; default this process)."""
    cluster = cluster or InProcess()
    batches = BatchRunner(cluster, trainer, settings)
    theta = initial_theta(settings)
    pol = policy_from_theta(settings.feature_set, theta, settings.size)
    theta = pol.theta          # the policy's own array: updated in place, then sync_theta
    names = feature_names(settings.feature_set, settings.size)
    tracked = tracked_names(settings.feature_set, settings.size)
    tracked_idx = [names.index(n) for n in tracked]
    track_every = max(1, settings.iterations // 200)
    ckpt = Checkpoint(checkpoint_path, checkpoint_seconds)
    state = {"settings": asdict(settings), "iteration": 0, "theta": theta.tolist(),
             "objective": None, "units": 0, "simulations": 0, "seconds": 0.0,
             "curve": {"trainer": trainer.name, "objective": trainer.objective,
                       "points": [], "weights": {"names": tracked, "iterations": [],
                                                 "values": []}}}
    if resume:
        state = ckpt.load(settings)
        theta[:] = state["theta"]
        sync_theta(pol)
        state["settings"] = asdict(settings)
    if settings.optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {settings.optimizer!r} "
                         f"(one of {', '.join(OPTIMIZERS)})")
    adam = Adam(theta.shape[0], state.get("adam")) if settings.optimizer == "adam" else None
    curve = state["curve"]
    count = trainer.count()
    order_epoch = -1
    order = None

    def evaluate(t):
        point = {"iteration": t, "units": state["units"], "simulations": state["simulations"],
                 "seconds": round(state["seconds"], 2), "objective": state["objective"]}
        if test is not None:
            point.update(test(pol, cluster))
        curve["points"].append(point)
        return point

    def snapshot():
        state["theta"] = theta.tolist()
        if adam is not None:
            state["adam"] = adam.state()
        ckpt.save(state)

    start_t = state["iteration"]
    bar = tqdm(total=settings.iterations, initial=start_t, disable=not progress,
               desc=f"{trainer.name} {settings.size}x{settings.size}", unit="it",
               dynamic_ncols=True)
    # A `kill` (SIGTERM) saves a checkpoint like Ctrl-C does (signals reach the main thread only).
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM)
    if main_thread:
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    last_point = None
    try:
        if start_t == 0 and settings.eval_every and not curve["points"]:
            last_point = evaluate(0)
        t0 = time.monotonic() - state["seconds"]
        for t in range(start_t, settings.iterations):
            slots = []
            for slot in range(settings.batch):
                k = t * settings.batch + slot
                epoch, pos = divmod(k, count)
                if epoch != order_epoch:
                    order = np.random.default_rng([settings.seed, epoch, 7]).permutation(count)
                    order_epoch = epoch
                slots.append((slot, int(order[pos])))
            done = batches(slots, pol, theta, t)
            results = sorted((r for rs in done for r in rs), key=lambda r: r[0])
            total = np.zeros_like(theta)
            for _, (step, objective, sims) in results:
                total += step
                state["simulations"] += int(sims)
                if objective is not None:   # None: the unit had nothing to learn from
                    state["objective"] = (objective if state["objective"] is None
                                          else 0.99 * state["objective"] + 0.01 * objective)
            state["units"] += len(results)
            alpha_t = settings.step_size(t)
            if settings.l2:
                # Decoupled from Adam's moments (AdamW): the penalty shrinks every weight
                # alike instead of being rescaled per weight.
                theta -= alpha_t * settings.l2 * theta
            if adam is None:
                theta += alpha_t * total
            else:
                theta += adam.step(total, alpha_t)
            sync_theta(pol)
            state["iteration"] = t + 1
            state["seconds"] = time.monotonic() - t0
            if (t + 1) % track_every == 0 or t + 1 == settings.iterations:
                curve["weights"]["iterations"].append(t + 1)
                curve["weights"]["values"].append([float(theta[i]) for i in tracked_idx])
            if settings.eval_every and (t + 1) % settings.eval_every == 0:
                last_point = evaluate(t + 1)
            postfix = {"obj": f"{state['objective'] or 0:.4g}"}
            if last_point is not None and "mse" in last_point:
                postfix["mse"] = f"{last_point['mse']:.4f}"
            bar.set_postfix(postfix, refresh=False)
            bar.update(1)
            if ckpt.due():
                snapshot()
        if not curve["points"] or curve["points"][-1]["iteration"] != state["iteration"]:
            evaluate(state["iteration"])
        snapshot()
    except KeyboardInterrupt:
        snapshot()
        bar.close()
        raise
    finally:
        batches.close()
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
        bar.close()
    write_outputs(trainer, settings, theta, state, out, curve_path, data_info, batches.report())
    return curve


def write_outputs(trainer, settings, theta, state, out, curve_path, data_info, ran_on=None):
    """The weight file (with provenance), the curve JSON and its PNG."""
    curve = state["curve"]
    final = curve["points"][-1]
    provenance = {
        "trainer": trainer.name,
        "hyperparameters": asdict(settings),
        "data": data_info or {},
        "training_games": state["units"] if trainer.name == "reinforce" else 0,
        "training_positions": 0 if trainer.name == "reinforce" else state["units"],
        "updates": state["iteration"],
        "simulations": state["simulations"],
        "seconds": round(state["seconds"], 1),
        "objective": trainer.objective,
        "final_objective": state["objective"],
        "batches_ran_on": ran_on,
    }
    if starts_from_file(settings):
        # Training continued from a file: keep that file's own history, so that a chain of
        # runs (e.g. REINFORCE resumed from a shipped file) stays traceable to its data.
        provenance["init"] = {"path": str(settings.init), "sha256_16": checksum(settings.init),
                              "provenance": read_weights(settings.init).provenance}
    if "mse" in final:
        provenance["test_mse"] = {k: final[k] for k in ("mse", "lo", "hi", "n") if k in final}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    write_weights(out, settings.feature_set, [settings.size], theta, provenance)
    curve["settings"] = asdict(settings)
    curve["weight_file"] = str(out)
    curves.write_curve(curve, curve_path)
