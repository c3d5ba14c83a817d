"""engine/parallel/cluster.py: the in-process and Dask backends give the same results, a worker that
dies mid-run has its units run again, and an interrupted distributed run resumes."""
import json
import operator
import os
import signal
import sys

import pytest
from click.testing import CliRunner

from engine.lab.cli import main
from engine.lab.match import MatchConfig, run_match
from engine.lab.tune import MatchObjective, MatchSetup
from engine.parallel import cluster as cluster_mod
from engine.parallel.cluster import (DaskCluster, InProcess, close_cached, drop_cached,
                                     open_cluster, split, value_key, worker_cache)
from policies.data.files import read_meta, read_positions, write_positions
from policies.data.labels import label_file
from policies.data.positions import random_positions

from conftest import GTP_MAIN


def test_split_cuts_consecutive_parts_about_four_a_slot():
    parts = split(range(100), slots=2)
    assert [x for p in parts for x in p] == list(range(100))
    assert len(parts) == 8 and max(map(len, parts)) == 13
    assert split(range(100), slots=2, most=5)[0] == [0, 1, 2, 3, 4]
    assert split([], slots=2) == [] and split([7], slots=4) == [[7]]


def test_in_process_runs_units_in_order_and_measures_them():
    c = InProcess()
    assert c.map(operator.mul, [1, 2, 3], 10) == [10, 20, 30]
    assert list(c.run(operator.add, ["a", "b"], "!")) == [(0, "a!"), (1, "b!")]
    report = c.report()
    assert report["where"] == "in-process" and report["workers"] == 1
    assert 0 <= report["overhead"] < 1 and report["busy_s"] <= report["wall_s"] + 1e-3
    with pytest.raises(ZeroDivisionError):
        c.map(operator.truediv, [1, 2], 0)
    assert isinstance(open_cluster(workers=0), InProcess)


def test_worker_cache_builds_once_per_key_and_closes():
    closed = []

    class Engine:
        def close(self):
            closed.append(self)

    made = []

    def make():
        made.append(Engine())
        return made[-1]

    key = value_key("test-cache", "gnugo --level 1", 5)
    assert key == value_key("test-cache", "gnugo --level 1", 5)     # equal values, equal keys
    assert key != value_key("test-cache", "gnugo --level 2", 5)
    first = worker_cache(key, make)
    assert worker_cache(key, make) is first and len(made) == 1
    drop_cached(key)
    assert closed == [first] and worker_cache(key, make) is not first
    close_cached("test-cache")
    assert len(closed) == 2 and key not in cluster_mod._CACHE
    # A lambda cannot be pickled by value: it is keyed by identity instead.
    f = lambda: None   # noqa: E731
    assert value_key("x", f) == value_key("x", f) != value_key("x", lambda: None)


def test_dask_cluster_maps_like_the_in_process_one(dask_cluster):
    assert dask_cluster.slots == 2
    units = list(range(40))
    assert dask_cluster.map(operator.mul, units, 3) == InProcess().map(operator.mul, units, 3)
    big = dask_cluster.share(list(range(10_000)))          # sent once, used by every unit
    assert dask_cluster.map(lambda i, xs: xs[i], [5, 9_999], big) == [5, 9_999]
    with pytest.raises(ZeroDivisionError):
        dask_cluster.map(operator.truediv, [1, 2], 0)
    report = dask_cluster.report()
    assert report["workers"] == 2 and report["busy_s"] >= 0 and 0 <= report["overhead"] <= 1


@pytest.fixture(scope="module")
def unlabelled(tmp_path_factory):
    path = tmp_path_factory.mktemp("cluster") / "positions.jsonl"
    positions = random_positions(5, 24.5, 14, seed=21)[0]
    write_positions(path, positions, {"test": True})
    return path


@pytest.fixture(scope="module")
def labelled_here(unlabelled, tmp_path_factory):
    out = tmp_path_factory.mktemp("here") / "labels.jsonl"
    label_file(unlabelled, out, playouts=300, seed=4)
    return [p.to_json() for p in read_positions(out)]


def test_labels_on_dask_equal_the_in_process_labels(unlabelled, labelled_here, dask_cluster,
                                                    tmp_path):
    out = tmp_path / "labels.jsonl"
    written, failures = label_file(unlabelled, out, playouts=300, seed=4, cluster=dask_cluster)
    assert failures == [] and [p.to_json() for p in written] == labelled_here
    assert read_meta(out)["made_by"]["cluster"]["workers"] == 2


def test_interrupted_dask_run_resumes_to_the_same_file(unlabelled, labelled_here, dask_cluster,
                                                       tmp_path):
    out = tmp_path / "labels.jsonl"

    def stop_after_four(done, total):
        if done == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        label_file(unlabelled, out, playouts=300, seed=4, cluster=dask_cluster,
                   progress=stop_after_four)
    assert len(read_positions(out, partial_ok=True)) == 4
    label_file(unlabelled, out, playouts=300, seed=4, cluster=dask_cluster)
    assert [p.to_json() for p in read_positions(out)] == labelled_here


def test_a_worker_killed_mid_run_has_its_positions_run_again(unlabelled, labelled_here,
                                                             tmp_path):
    cluster = DaskCluster(workers=2)     # its own: this test kills one of its workers
    try:
        pids = cluster.client.run(os.getpid)
        assert len(pids) == 2
        victim = sorted(pids.values())[0]
        killed = []

        def kill_one(done, total):
            if done == 2 and not killed:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        out = tmp_path / "labels.jsonl"
        written, failures = label_file(unlabelled, out, playouts=300, seed=4, cluster=cluster,
                                       progress=kill_one)
        assert killed and failures == []
        assert [p.to_json() for p in written] == labelled_here
        assert victim not in cluster.client.run(os.getpid).values()   # a fresh worker took over
    finally:
        cluster.close()


def test_cli_workers_zero_runs_in_this_process(unlabelled, tmp_path):
    out = tmp_path / "l.jsonl"
    r = CliRunner().invoke(main, ["data", "label", "--in", str(unlabelled), "--out", str(out),
                                  "--playouts", "50", "--workers", "0"])
    assert r.exit_code == 0, r.output
    usage = json.loads(r.stdout)["cluster"]
    assert usage["where"] == "in-process" and usage["workers"] == 1
    bad = CliRunner().invoke(main, ["eval", "mse", "--positions", str(out), "--workers", "-1"])
    assert bad.exit_code == 2 and "--workers" in bad.output


def test_a_match_on_dask_workers_plays_the_in_process_games(tmp_path, dask_cluster):
    engine = f"{sys.executable} {GTP_MAIN} --playouts 40 --size 5"
    config = MatchConfig(size=5, komi=7.5)
    here = run_match(engine, engine + " --seed 1", 4, tmp_path / "here", config)
    there = run_match(engine, engine + " --seed 1", 4, tmp_path / "there", config,
                      cluster=dask_cluster)
    keys = ("game", "winner", "moves", "end", "a_colour")
    assert all("error" not in r for r in there) and [r["game"] for r in there] == [0, 1, 2, 3]
    # A GTP engine is a process with a history: a seeded Simbal replays a game exactly only
    # when it is the same game of that process's life.  Game 0 is the first of the first
    # worker's engines as it is of the in-process ones.
    assert {k: there[0].get(k) for k in keys} == {k: here[0].get(k) for k in keys}
    assert sorted(p.name for p in (tmp_path / "there" / "games").iterdir()) == \
        [f"game-{i:04d}.sgf" for i in range(4)]


def test_tuning_objective_on_dask_equals_in_process(dask_cluster):
    setup = MatchSetup(size=5, komi=0.5, playouts=16, weights="uniform", opening=2)
    points = [({"uct_c": 2.0}, 11), ({"uct_c": 0.2}, 12), ({"uct_c": 1.0}, 13)]
    assert MatchObjective(setup, dask_cluster)(points) == MatchObjective(setup)(points)


def test_cli_runs_on_an_existing_scheduler(unlabelled, labelled_here, dask_cluster, tmp_path):
    out = tmp_path / "l.jsonl"
    address = dask_cluster.local.scheduler_address          # as `dask scheduler` would give
    r = CliRunner().invoke(main, ["data", "label", "--in", str(unlabelled), "--out", str(out),
                                  "--playouts", "300", "--seed", "4", "--scheduler", address])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["cluster"]["where"] == address
    assert [p.to_json() for p in read_positions(out)] == labelled_here
