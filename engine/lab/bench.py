"""`simbal bench`: playout speed and engine start-up time, as figures for BENCHMARKS.md; with
`--cluster`, how the heavy commands scale on Dask workers (engine/parallel/cluster.py).

Speeds are playouts per second on one core from the empty board, best of a few
repeats (the machines are shared and noisy: compare figures from the same run).
Start-up is the wall time from launching `gtp_main.py` to its answer to
`protocol_version`, cold (empty numba cache) and warm (cache filled).  When Fuego 1.1 is
installed, its games per second (one thread, empty board, its `uct_stat_search`) are measured
in the same run beside the engine's in-search rate, with their ratio; and both again on the
middle-game positions of `data/9x9-midgame` (real games, where the tree reads ladders and its
prior sees shapes the empty board lacks), the mean of each position's rate.
Cluster figures: labelling and evaluating a position file with 1 and with 2 local Dask
workers, wall seconds (cluster start excluded), speed-up, the scheduling overhead the cluster
measured (the share of the workers' time not spent in the units), and as a control the
speed-up of two plain processes labelling half each (what the host allows).  Training is
not among them: on one machine its batches run on threads, not on the workers.
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

from engine.core.board import BLACK, new_board
from engine.core.rng import make_rng
from policies.kernel import NO_RULES, UNIFORM, run_playouts, uniform_policy

ROOT = Path(__file__).resolve().parents[2]   # the repository (engine/lab/bench.py)
MARK_START = "<!-- simbal-bench:start -->"
MARK_END = "<!-- simbal-bench:end -->"
CLUSTER_MARKS = ("<!-- simbal-bench-cluster:start -->", "<!-- simbal-bench-cluster:end -->")
CLUSTER_DATA = ROOT / "data" / "5x5"
MIDGAME = ROOT / "data" / "9x9-midgame" / "positions.jsonl"


def playout_rate(size, seconds=2.0, repeats=3, seed=1, policy=None, rules=NO_RULES):
    """Playouts per second on an empty `size` board (best of `repeats`) through the policy
    seam, with `policy` (a policies.kernel.Policy; default uniform) following the playout
    `rules` (policies.kernel.RULE_*; none by default)."""
    board = new_board(size)
    rng = make_rng(seed)
    policy = uniform_policy() if policy is None else policy

    def batch(n):
        return run_playouts(board, BLACK, n, rng, 7.5, policy, rules)
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
    """The softmax playout policies' speeds: pattern3x3 with the default (shipped) weights,
    alone and following the search's default playout rules (the raw rate of the playouts the
    search runs), and shape2x2 (all weights 0: none are trained yet; the work per move does
    not depend on them).  Where a board size's defaults choose local playouts
    (policies/local.py), their raw rate too, with the same rules.  And the rule-based playouts
    after Fuego's (policies/rulebased.py)."""
    import numpy as np

    from engine.search.params import default_playout_rules, size_playout_rules
    from policies import (default_search_params, default_softmax_spec, load_policy,
                          policy_from_theta)
    from policies.weights import feature_names

    shape = policy_from_theta("shape2x2", np.zeros(len(feature_names("shape2x2", 9))), 9)
    pattern = load_policy(default_softmax_spec(9), 9)
    pattern_19 = load_policy(default_softmax_spec(19), 19)
    rules = load_policy("rules", 9)   # Fuego's playout rules: no weights, any size
    return {
        "pattern3x3_9x9_playouts_per_s": round(playout_rate(9, seconds, policy=pattern)),
        "pattern3x3_rules_9x9_playouts_per_s":
            round(playout_rate(9, seconds, policy=pattern, rules=default_playout_rules())),
        "pattern3x3_19x19_playouts_per_s": round(playout_rate(19, seconds, policy=pattern_19)),
        "pattern3x3_rules_19x19_playouts_per_s":
            round(playout_rate(19, seconds, policy=pattern_19, rules=default_playout_rules())),
        "shape2x2_9x9_playouts_per_s": round(playout_rate(9, seconds, policy=shape)),
        "rules_9x9_playouts_per_s": round(playout_rate(9, seconds, policy=rules)),
        "rules_19x19_playouts_per_s": round(playout_rate(19, seconds, policy=rules)),
        **{f"pattern3x3_local_{n}x{n}_playouts_per_s":
           round(playout_rate(n, seconds, policy=pol, rules=size_playout_rules(n)))
           for n, pol in ((9, pattern), (19, pattern_19))
           if default_search_params(n).get("playout_local", 0.0) > 0.0},
    }


def search_rate(size, threads, seconds=2.0, repeats=3, weights=None):
    """Simulations per second of the tree search (the default engine, or the playout policy
    `weights`) from the empty board, best of `repeats` fresh searches with `threads`
    root-parallel threads."""
    from engine.play.player import Engine, Settings

    best = 0.0
    for r in range(repeats + 1):
        engine = Engine(size, 7.5, Settings(threads=threads, seed=r), weights=weights)
        start = time.perf_counter()
        sims = engine.search(BLACK, deadline=start + seconds / repeats)
        if r > 0:  # the first run only loads the compiled code
            best = max(best, sims / (time.perf_counter() - start))
    return best


def fuego_rate(size, seconds=2.0, repeats=3):
    """Fuego 1.1's games per second in its whole search from the empty board, one thread, no
    opening book, `seconds` a search (its own `uct_stat_search` figure), best of `repeats`;
    None when Fuego is not installed."""
    from engine.gtp import fuego
    from engine.gtp.client import EngineFailure, GtpClient

    if not fuego.available():
        return None
    lines = (*fuego.player_settings(seconds=seconds), "uct_param_player reuse_subtree 0",
             "uct_param_player ponder 0", "uct_param_player early_pass 0")
    client = GtpClient(fuego.command(lines, book=False))
    best = 0.0
    try:
        client.send(f"boardsize {size}")
        for _ in range(repeats):
            client.send("clear_board")
            client.send("genmove b", timeout=10 * seconds + 30)
            for line in client.send("uct_stat_search").splitlines():
                if line.startswith("Games/s"):
                    best = max(best, float(line.split()[1]))
    except EngineFailure:
        return None
    finally:
        client.close()
    return best or None


def midgame_rate(seconds, positions=MIDGAME):
    """Simulations per second of the default engine's one-thread search, the mean over the
    positions of the file `positions` of a fresh search of `seconds` each."""
    from engine.play.player import Engine, Settings
    from policies.data.files import position_board, read_positions

    rates = []
    engine = None
    for pos in read_positions(positions):
        if engine is None:
            engine = Engine(pos.size, pos.komi, Settings(threads=1, seed=1))
            engine.search(BLACK, total=200)   # loads the compiled code
        board, colour = position_board(pos)
        engine.game.reset(board=board)
        start = time.perf_counter()
        sims = engine.search(colour, deadline=start + seconds)
        rates.append(sims / (time.perf_counter() - start))
    return sum(rates) / len(rates)


def fuego_midgame_rate(seconds, positions=MIDGAME):
    """Fuego 1.1's games per second (`fuego_rate`'s settings) on the same positions, the mean
    of each position's; None when Fuego is not installed."""
    from engine.gtp import fuego
    from engine.gtp.client import EngineFailure, GtpClient
    from policies.data.files import read_positions

    if not fuego.available():
        return None
    lines = (*fuego.player_settings(seconds=seconds), "uct_param_player reuse_subtree 0",
             "uct_param_player ponder 0", "uct_param_player early_pass 0")
    client = GtpClient(fuego.command(lines, book=False))
    rates = []
    try:
        for pos in read_positions(positions):
            client.send(f"boardsize {pos.size}")
            client.send("clear_board")
            for letter, vertex in pos.moves:
                client.send(f"play {letter} {vertex}")
            client.send(f"genmove {pos.to_play}", timeout=10 * seconds + 30)
            for line in client.send("uct_stat_search").splitlines():
                if line.startswith("Games/s"):
                    rates.append(float(line.split()[1]))
    except EngineFailure:
        return None
    finally:
        client.close()
    return sum(rates) / len(rates) if rates else None


def fuego_figures(seconds, engine_9, engine_19):
    """Fuego's games/s beside the engine's in-search rate, and their ratios (empty if Fuego is
    not installed)."""
    out = {}
    for size, ours in ((9, engine_9), (19, engine_19)):
        theirs = fuego_rate(size, seconds)
        if theirs:
            out[f"fuego_{size}x{size}_games_per_s"] = round(theirs)
            out[f"search_over_fuego_{size}x{size}"] = round(ours / theirs, 3)
    return out


# A cold start compiles the whole engine: about 12 minutes on one of these cores (session 43).
STARTUP_TIMEOUT = 1800


def startup_seconds(cache_dir=None, timeout=STARTUP_TIMEOUT):
    """Seconds from starting the GTP engine to its first answer, and to its first genmove's
    answer (None when it takes more than `timeout` seconds: the engine is stopped, so that the
    figures measured before are still written)."""
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
    try:
        proc.communicate("genmove b\nquit\n", timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return answered, None
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
        "search_19x19_playouts_per_s": round(search_rate(19, 1, seconds)),
        "search_rules_9x9_playouts_per_s": round(search_rate(9, 1, seconds, weights="rules")),
        "search_rules_19x19_playouts_per_s": round(search_rate(19, 1, seconds, weights="rules")),
    }
    # Fuego in the same run (the speed issue's yardstick), when it is installed.
    figures.update(fuego_figures(seconds, figures["search_9x9_playouts_per_s"],
                                 figures["search_19x19_playouts_per_s"]))
    each = 0.15 if quick else 0.5   # seconds a middle-game position (100 of them)
    figures["search_9x9_midgame_playouts_per_s"] = round(midgame_rate(each))
    theirs = fuego_midgame_rate(each)
    if theirs:
        figures["fuego_9x9_midgame_games_per_s"] = round(theirs)
        figures["search_over_fuego_9x9_midgame"] = round(
            figures["search_9x9_midgame_playouts_per_s"] / theirs, 3)
    if not quick:
        with tempfile.TemporaryDirectory() as cold:
            first, ready = startup_seconds(cold)
        figures["startup_cold_protocol_version_s"] = round(first, 2)
        figures["startup_cold_first_genmove_s"] = round(ready, 2) if ready else None
        first, ready = startup_seconds()
        figures["startup_warm_protocol_version_s"] = round(first, 2)
        figures["startup_warm_first_genmove_s"] = round(ready, 2) if ready else None
    return figures


def cluster_run(what, workers, folder, positions, playouts):
    """Labelling or evaluation on a fresh local Dask cluster of `workers` processes: (wall
    seconds of the job alone, the cluster's report).  The workers load the compiled code first
    (a unit each), as a long run would have done long before its end."""
    from engine.parallel.cluster import DaskCluster
    from policies.data.evaluate import mse_report
    from policies.data.labels import label_file
    cluster = DaskCluster(workers=workers)
    try:
        cluster.map(_warm_worker, list(range(workers)))
        cluster.busy = cluster.wall = 0.0
        start = time.perf_counter()
        if what == "label":
            label_file(positions, Path(folder) / f"label-{workers}.jsonl", playouts=playouts,
                       cluster=cluster)
        else:
            mse_report(positions, "uniform", sims=playouts, cluster=cluster)
        return time.perf_counter() - start, cluster.report()
    finally:
        cluster.close()


def _warm_worker(_):
    """Load the compiled search and playout kernels into this worker process."""
    from policies.kernel import uniform_policy as uniform
    run_playouts(new_board(5), BLACK, 10, make_rng(1), 0.5, uniform(), NO_RULES)
    from engine.play.player import Engine, Settings
    Engine(5, 0.5, Settings(playouts=20, threads=1)).search(BLACK, total=20)


def two_plain_processes(folder, positions, playouts):
    """Wall seconds of two plain processes (no Dask) labelling one half of `positions` each,
    side by side: with the one-worker time, what this host allows two workers at best."""
    from policies.data.files import read_positions, write_positions
    everything = read_positions(positions)
    half = len(everything) // 2
    procs = []
    start = time.perf_counter()
    for k, part in enumerate((everything[:half], everything[half:])):
        path = Path(folder) / f"half-{k}.jsonl"
        write_positions(path, part, {"bench": "half"})
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "engine.lab.cli", "data", "label", "--in", str(path), "--out",
             str(Path(folder) / f"half-{k}-l.jsonl"), "--playouts", str(playouts),
             "--workers", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT))
    for proc in procs:
        proc.wait()
    return time.perf_counter() - start


def cluster_figures(label_positions=1000, label_playouts=10000):
    """Speed-ups of labelling (the issue's benchmark: `label_positions` 5x5 positions,
    `label_playouts` simulations each) and evaluation with 2 workers against 1, and the
    ceiling the host sets: two plain processes labelling half each, against one worker."""
    from policies.data.files import read_positions, write_positions
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        test = Path(folder) / "test.jsonl"
        write_positions(test, read_positions(CLUSTER_DATA / "test.jsonl")[:label_positions],
                        {"bench": "first positions of data/5x5/test.jsonl"})
        for what, positions, playouts in [("label", test, label_playouts), ("eval", test, 100)]:
            one, _ = cluster_run(what, 1, folder, positions, playouts)
            two, usage = cluster_run(what, 2, folder, positions, playouts)
            figures[f"{what}_1worker_s"] = round(one, 1)
            figures[f"{what}_2workers_s"] = round(two, 1)
            figures[f"{what}_speedup"] = round(one / two, 2)
            figures[f"{what}_2workers_overhead"] = usage["overhead"]
            if what == "label":
                plain = two_plain_processes(folder, test, label_playouts)
                figures["label_2plain_processes_s"] = round(plain, 1)
                figures["label_host_ceiling_speedup"] = round(one / plain, 2)
    return figures


def markdown(figures, marks=(MARK_START, MARK_END), title="make bench"):
    lines = [marks[0],
             f"Latest `{title}` ({date.today().isoformat()}, {platform.machine()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()}):",
             "", "| figure | value |", "|---|---|"]
    lines += [f"| `{k}` | {v:,} |" if isinstance(v, int) else f"| `{k}` | {v} |"
              for k, v in figures.items()]
    lines.append(marks[1])
    return "\n".join(lines)


def write_into(path, figures, marks=(MARK_START, MARK_END), title="make bench"):
    """Replace the generated section of `path` between `marks` (appending it if missing)."""
    path = Path(path)
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    block = markdown(figures, marks, title)
    start, end = marks
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


def to_json(figures):
    return json.dumps(figures, sort_keys=True)
