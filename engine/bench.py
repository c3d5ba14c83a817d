"""`simbal bench`: playout speed and engine start-up time, as figures for BENCHMARKS.md.

Speeds are playouts per second on one core from the empty board, best of a few
repeats (the machines are shared and noisy: compare figures from the same run).
Start-up is the wall time from launching `gtp_main.py` to its answer to
`protocol_version`, cold (empty numba cache) and warm (cache filled).
"""
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from policies.kernel import UNIFORM, run_playouts, uniform_policy

from .board import BLACK, new_board
from .rng import make_rng

ROOT = Path(__file__).resolve().parent.parent
MARK_START = "<!-- simbal-bench:start -->"
MARK_END = "<!-- simbal-bench:end -->"


def playout_rate(size, seconds=2.0, repeats=3, seed=1, policy=None):
    """Playouts per second on an empty `size` board (best of `repeats`) through the policy
    seam, with `policy` (a policies.kernel.Policy; default uniform)."""
    board = new_board(size)
    rng = make_rng(seed)
    policy = uniform_policy() if policy is None else policy

    def batch(n):
        return run_playouts(board, BLACK, n, rng, 7.5, policy)
    batch(10)  # compile / load outside the timing
    step = 500 if policy.kind == UNIFORM else 100
    best = 0.0
    for _ in range(repeats):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / repeats:
            batch(step)
            n += step
        best = max(best, n / (time.perf_counter() - start))
    return best


def policy_rates(seconds):
    """The softmax playout policies' speeds: pattern3x3 with the default (shipped) weights, and
    shape2x2 (all weights 0: none are trained yet; the work per move does not depend on them)."""
    import numpy as np

    from policies import default_policy_spec, load_policy, policy_from_theta
    from policies.weights import feature_names

    shape = policy_from_theta("shape2x2", np.zeros(len(feature_names("shape2x2", 9))), 9)
    return {
        "pattern3x3_9x9_playouts_per_s":
            round(playout_rate(9, seconds, policy=load_policy(default_policy_spec(9), 9))),
        "pattern3x3_19x19_playouts_per_s":
            round(playout_rate(19, seconds, policy=load_policy(default_policy_spec(19), 19))),
        "shape2x2_9x9_playouts_per_s": round(playout_rate(9, seconds, policy=shape)),
    }


def search_rate(size, threads, seconds=2.0, repeats=3):
    """Simulations per second of the tree search (uniform playouts) from the empty board,
    best of `repeats` fresh searches with `threads` root-parallel threads."""
    from .player import Engine, Settings

    best = 0.0
    for r in range(repeats + 1):
        engine = Engine(size, 7.5, Settings(threads=threads, seed=r))
        start = time.perf_counter()
        sims = engine.search(BLACK, deadline=start + seconds / repeats)
        if r > 0:  # the first run only loads the compiled code
            best = max(best, sims / (time.perf_counter() - start))
    return best


def startup_seconds(cache_dir=None):
    """Seconds from starting the GTP engine to its first answer (and its exit)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(ROOT / "gtp_main.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    proc.stdin.write("protocol_version\n")
    proc.stdin.flush()
    proc.stdout.readline()
    answered = time.perf_counter() - start
    proc.communicate("genmove b\nquit\n", timeout=600)
    return answered, time.perf_counter() - start


def run(quick=False):
    """All figures as one flat dict (keys `<what>_<N>x<N>_playouts_per_s` and so on)."""
    seconds = 1.0 if quick else 3.0
    figures = {
        "uniform_9x9_playouts_per_s": round(playout_rate(9, seconds)),
        "uniform_19x19_playouts_per_s": round(playout_rate(19, seconds)),
        **policy_rates(seconds),
        "search_9x9_playouts_per_s": round(search_rate(9, 1, seconds)),
        "search_9x9_2threads_playouts_per_s": round(search_rate(9, 2, seconds)),
    }
    if not quick:
        with tempfile.TemporaryDirectory() as cold:
            first, ready = startup_seconds(cold)
        figures["startup_cold_protocol_version_s"] = round(first, 2)
        figures["startup_cold_first_genmove_s"] = round(ready, 2)
        first, ready = startup_seconds()
        figures["startup_warm_protocol_version_s"] = round(first, 2)
        figures["startup_warm_first_genmove_s"] = round(ready, 2)
    return figures


def markdown(figures):
    lines = [MARK_START,
             f"Latest `make bench` ({date.today().isoformat()}, {platform.machine()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()}):",
             "", "| figure | value |", "|---|---|"]
    lines += [f"| `{k}` | {v:,} |" if isinstance(v, int) else f"| `{k}` | {v} |"
              for k, v in figures.items()]
    lines.append(MARK_END)
    return "\n".join(lines)


def write_into(path, figures):
    """Replace the generated section of `path` (appending it if missing)."""
    path = Path(path)
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    block = markdown(figures)
    if MARK_START in text and MARK_END in text:
        head, rest = text.split(MARK_START, 1)
        text = head + block + rest.split(MARK_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


def to_json(figures):
    return json.dumps(figures, sort_keys=True)
