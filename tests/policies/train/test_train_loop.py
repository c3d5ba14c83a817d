"""The shared training loop: an interrupted run resumed from its checkpoint ends exactly where
an uninterrupted one does, where the batches run (this process, its threads, Dask workers)
does not change the result, checkpoints of other settings are refused, and the outputs (weight file with provenance, curve JSON and PNG) are
written; the `simbal train` command end to end on a position file."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from engine.lab.cli import main
from engine.search.params import default_playout_rules
from policies.data.files import Position, write_positions
from policies.train import loop
from policies.train.balance import Balance
from policies.train.loop import Settings, run
from policies.weights import read_weights

from train_helpers import SIZE, make_items, small_positions


class Interrupting:
    """A trainer that raises KeyboardInterrupt (Ctrl-C) at its `after`-th work unit."""

    def __init__(self, inner, after):
        self.inner = inner
        self.after = after
        self.calls = 0
        self.name = inner.name
        self.objective = inner.objective

    def count(self):
        return self.inner.count()

    def work(self, pol, index, rng):
        self.calls += 1
        if self.calls == self.after:
            raise KeyboardInterrupt
        return self.inner.work(pol, index, rng)


def settings(**kw):
    base = dict(trainer="balance", size=SIZE, alpha=2.0, iterations=12, batch=3, seed=4,
                hyper={"m": 4, "n": 4})
    base.update(kw)
    return Settings(**base)


@pytest.fixture(scope="module")
def items():
    labels = [0.9, 0.1, 0.8, 0.3, 0.5]
    return [make_items([p], value=v)[0] for p, v in zip(small_positions(), labels)]


def train(tmp_path, name, trainer, s, resume=False, cluster=None):
    out = tmp_path / f"{name}.json"
    curve = tmp_path / f"{name}.curve.json"
    run(trainer, s, out, curve, tmp_path / f"{name}.ckpt.json", resume=resume,
        checkpoint_seconds=0.0, progress=False, cluster=cluster)
    return read_weights(out), json.loads(curve.read_text())


@pytest.mark.parametrize("optimizer, alpha", [("sgd", 2.0), ("adam", 0.1)])
def test_resume_after_an_interruption_gives_the_uninterrupted_result(tmp_path, items, optimizer,
                                                                      alpha):
    s = settings(optimizer=optimizer, alpha=alpha)
    whole, whole_curve = train(tmp_path, "a", Balance(items, {"m": 4, "n": 4}), s)
    stopped = Interrupting(Balance(items, {"m": 4, "n": 4}), after=20)
    with pytest.raises(KeyboardInterrupt):
        train(tmp_path, "b", stopped, s)
    saved = json.loads((tmp_path / "b.ckpt.json").read_text())
    assert 0 < saved["iteration"] < 12
    assert ("adam" in saved) == (optimizer == "adam")
    resumed, resumed_curve = train(tmp_path, "b", Balance(items, {"m": 4, "n": 4}), s,
                                   resume=True)
    assert any(v != 0 for v in whole.weights.values())
    assert resumed.weights == whole.weights
    assert resumed_curve["weights"] == whole_curve["weights"]
    other_seed, _ = train(tmp_path, "d", Balance(items, {"m": 4, "n": 4}),
                          settings(optimizer=optimizer, alpha=alpha, seed=5))
    assert other_seed.weights != whole.weights


def test_adam_moves_every_weight_by_about_alpha_whatever_its_gradient_scale():
    adam = loop.Adam(3)
    direction = np.array([1e-4, 1.0, -50.0])
    for _ in range(5):
        step = adam.step(direction, 0.01)
        assert np.allclose(np.abs(step), 0.01, rtol=1e-3)
        assert np.all(np.sign(step) == np.sign(direction))


def test_a_checkpoint_from_before_the_optimizer_and_rules_settings_still_resumes(tmp_path, items):
    train(tmp_path, "a", Balance(items, {"m": 4, "n": 4}), settings(iterations=2))
    path = tmp_path / "a.ckpt.json"
    doc = json.loads(path.read_text())
    del doc["settings"]["optimizer"]
    del doc["settings"]["rules"]
    path.write_text(json.dumps(doc))
    resumed, _ = train(tmp_path, "a", Balance(items, {"m": 4, "n": 4}), settings(iterations=3),
                       resume=True)
    assert resumed.provenance["updates"] == 3


class Still:
    """A trainer whose every step is zero: only the weight decay moves the weights."""
    name = "balance"
    objective = "none"

    def __init__(self, n):
        self.n = n

    def count(self):
        return 5

    def work(self, pol, index, rng):
        return np.zeros(self.n), None, 0


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_weight_decay_shrinks_every_weight_by_alpha_times_l2_per_update(tmp_path, items,
                                                                         optimizer):
    start, _ = train(tmp_path, "start", Balance(items, {"m": 4, "n": 4}), settings())
    n = len(start.weights)
    kept, _ = train(tmp_path, "kept", Still(n), settings(init=str(tmp_path / "start.json"),
                                                         optimizer=optimizer, iterations=3))
    decayed, _ = train(tmp_path, "decayed", Still(n),
                       settings(init=str(tmp_path / "start.json"), optimizer=optimizer,
                                alpha=0.5, l2=0.2, iterations=3))
    assert any(v != 0 for v in start.weights.values())
    assert kept.weights == start.weights
    for name, w in start.weights.items():
        assert decayed.weights[name] == pytest.approx(w * 0.9 ** 3)


@pytest.mark.parametrize("cores, ship_seconds, where", [(1, 0.0, "local (2 processes)"),
                                                        (1, 1e9, "threads (1)"),
                                                        (2, 0.0, "threads (2)")])
def test_batches_on_dask_or_local_threads_give_the_in_process_result(
        tmp_path, items, dask_cluster, monkeypatch, cores, ship_seconds, where):
    # Each work unit has its own random stream, so where the units of a batch run (a batch
    # too small to ship, or a cluster no larger than this machine: this process's threads;
    # else the Dask workers) does not change what they draw.
    here, _ = train(tmp_path, "here", Balance(items, {"m": 4, "n": 4}), settings())
    monkeypatch.setattr(loop, "SHIP_SECONDS", ship_seconds)
    monkeypatch.setattr(loop, "default_workers", lambda: cores)
    spread, _ = train(tmp_path, "spread", Balance(items, {"m": 4, "n": 4}), settings(),
                      cluster=dask_cluster)
    assert spread.weights == here.weights
    ran_on = spread.provenance["batches_ran_on"]
    assert ran_on["where"] == where and len(ran_on["batch_seconds_probed"]) == 3
    assert here.provenance["batches_ran_on"]["where"] == "in-process"


def test_resume_refuses_a_checkpoint_of_other_settings(tmp_path, items):
    train(tmp_path, "a", Balance(items, {"m": 4, "n": 4}), settings(iterations=2))
    with pytest.raises(ValueError, match="a.ckpt.json.*alpha"):
        train(tmp_path, "a", Balance(items, {"m": 4, "n": 4}), settings(alpha=1.0), resume=True)
    (tmp_path / "a.ckpt.json").write_text("{trunc")
    with pytest.raises(ValueError, match="a.ckpt.json: unreadable"):
        train(tmp_path, "a", Balance(items, {"m": 4, "n": 4}), settings(), resume=True)


def test_outputs_carry_provenance_and_curves(tmp_path, items):
    wf, curve = train(tmp_path, "a", Balance(items, {"m": 4, "n": 4}), settings())
    prov = wf.provenance
    assert prov["trainer"] == "balance"
    assert prov["hyperparameters"]["alpha"] == 2.0
    assert prov["hyperparameters"]["hyper"] == {"m": 4, "n": 4}
    assert prov["simulations"] == 12 * 3 * 8 and prov["training_positions"] == 36
    assert wf.board_sizes == [SIZE] and wf.feature_set == "shape2x2"
    assert curve["points"][-1]["iteration"] == 12
    assert curve["weights"]["names"][0] == "li1x1"
    assert len(curve["weights"]["values"]) == 12
    assert (tmp_path / "a.curve.png").stat().st_size > 1000


def test_training_from_a_file_keeps_that_files_provenance(tmp_path, items):
    first, _ = train(tmp_path, "first", Balance(items, {"m": 4, "n": 4}), settings())
    second, _ = train(tmp_path, "second", Balance(items, {"m": 4, "n": 4}),
                      settings(init=str(tmp_path / "first.json"), seed=5))
    init = second.provenance["init"]
    assert init["path"] == str(tmp_path / "first.json") and len(init["sha256_16"]) == 16
    assert init["provenance"]["hyperparameters"]["seed"] == 4
    assert init["provenance"]["updates"] == first.provenance["updates"]
    assert "init" not in first.provenance   # a zero start has no file to record


def write_file(path):
    """Two labelled 5x5 positions with expert moves, as the interchange format."""
    positions = [Position("p1", 5, 0.5, [["B", "C3"], ["W", "D4"]], "B", 0.7, "B2"),
                 Position("p2", 5, 0.5, [["B", "C3"]], "W", 0.4, "C4")]
    write_positions(path, positions, {"test": True})


def test_train_command_end_to_end(tmp_path):
    data = tmp_path / "p.jsonl"
    write_file(data)
    out = tmp_path / "w.json"
    result = CliRunner().invoke(main, ["train", "apprentice", "--data", str(data), "--test",
                                       str(data), "--iterations", "5", "--eval-sims", "10",
                                       "--l2", "0.5", "--out", str(out), "--curve",
                                       str(tmp_path / "c.json"), "--workers", "0"])
    assert result.exit_code == 0, result.output
    final = json.loads(result.stdout.strip().splitlines()[-1])["final"]
    assert final["n"] == 2 and 0 <= final["mse"] <= 1
    prov = read_weights(out).provenance
    assert prov["hyperparameters"]["l2"] == 0.5
    assert prov["data"]["path"] == str(data) and prov["data"]["meta"]["made_by"] == {"test": True}
    assert "test_mse" in prov


def test_runs_with_different_out_files_keep_their_own_curve_and_checkpoint(tmp_path,
                                                                           monkeypatch):
    """Without --curve the curve and checkpoint are named after --out, so that two runs of one
    trainer side by side (say two step sizes) do not write, and --resume read, one file."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "p.jsonl"
    write_file(data)
    for name in ("first", "second"):
        result = CliRunner().invoke(main, ["train", "apprentice", "--data", str(data),
                                           "--iterations", "3", "--out", f"{name}.json",
                                           "--workers", "0"])
        assert result.exit_code == 0, result.output
    curves = sorted(p.name for p in (tmp_path / "runs" / "train").glob("*.curve.json"))
    assert curves == ["first.curve.json", "second.curve.json"]


def test_train_command_follows_the_search_playout_rules_when_asked(tmp_path):
    data = tmp_path / "p.jsonl"
    write_file(data)
    out = tmp_path / "w.json"
    common = ["--data", str(data), "--iterations", "2", "--m", "2", "--n", "2", "--out", str(out),
              "--curve", str(tmp_path / "c.json"), "--workers", "0", "--rules", "search"]
    result = CliRunner().invoke(main, ["train", "balance", *common])
    assert result.exit_code == 0, result.output
    rules = read_weights(out).provenance["hyperparameters"]["rules"]
    assert rules == default_playout_rules().tolist() and any(rules)
    # The trainers without playouts refuse rules by name, without a traceback.
    result = CliRunner().invoke(main, ["train", "apprentice", *common])
    assert result.exit_code != 0 and "apprentice plays no playouts" in result.output
    assert "Traceback" not in result.output


def test_training_starts_from_a_built_in_policy_by_name():
    """--init takes the built-in names as every weight option does: handcrafted as its
    pattern3x3 weights, uniform (= zero) in any feature set; handcrafted over shape2x2 is
    refused with a message, not a traceback."""
    from policies.builtin import handcrafted_weights
    from policies.weights import WeightFileError, feature_names
    names = feature_names("pattern3x3", 9)
    theta = loop.initial_theta(settings(size=9, feature_set="pattern3x3", init="handcrafted"))
    expected = handcrafted_weights()
    assert theta.tolist() == [expected[n] for n in names] and theta.any()
    for init in ("uniform", "zero"):
        zero = loop.initial_theta(settings(size=9, feature_set="shape2x2", init=init))
        assert zero.shape == (len(feature_names("shape2x2", 9)),) and not zero.any()
    with pytest.raises(WeightFileError, match="handcrafted is pattern3x3"):
        loop.initial_theta(settings(feature_set="shape2x2", init="handcrafted"))


@pytest.mark.parametrize("algo, problem", [("twostep", "no position has value and tree"),
                                           ("adjust", "no position has expert")])
def test_train_command_names_the_file_when_data_lacks_what_it_needs(tmp_path, algo, problem):
    data = tmp_path / "p.jsonl"
    write_positions(data, [Position("p1", 5, 0.5, [], "B", 0.5)], {})
    result = CliRunner().invoke(main, ["train", algo, "--data", str(data), "--workers", "0"])
    assert result.exit_code != 0
    assert str(data) in result.output and problem in result.output
    assert "Traceback" not in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "size": 5\n')
    result = CliRunner().invoke(main, ["train", algo, "--data", str(bad), "--size", "5",
                                       "--workers", "0"])
    assert result.exit_code != 0 and str(bad) in result.output


def test_reproduce_report_has_every_policy_with_its_interval(tmp_path):
    from policies.train.reproduce import PLANS, Steps, write_report
    steps = Steps(tmp_path, log=lambda text: None)
    steps.done = {"data": {"seconds": 3.0, "output": {}, "command": "simbal data random"},
                  "train-balance": {"seconds": 60.0, "output": {}, "command": "simbal train"}}
    results = {"uniform": {"mse": 0.02, "lo": 0.018, "hi": 0.022, "n": 1000},
               "handcrafted": {"mse": 0.03, "lo": 0.027, "hi": 0.033, "n": 1000},
               "balance": {"mse": 0.009, "lo": 0.008, "hi": 0.010, "n": 1000}}
    curve = {"trainer": "balance",
             "points": [{"units": 0, "mse": 0.02, "lo": 0.018, "hi": 0.022},
                        {"units": 100, "mse": 0.01, "lo": 0.009, "hi": 0.011}]}
    write_report(tmp_path, 5, PLANS[5], steps, results, [curve])
    table = (tmp_path / "results.md").read_text()
    assert "| balance | 0.0090 | 0.0080–0.0100 | 0.45 | 60 |" in table
    assert "| uniform | 0.0200 |" in table and "| **total** | **63** |" in table
    doc = json.loads((tmp_path / "results.json").read_text())
    assert [r["policy"] for r in doc["results"]] == ["uniform", "handcrafted", "balance"]
    assert (tmp_path / "mse.png").stat().st_size > 1000


def test_reproduce_paper_budget_trains_every_trainer_on_100000_units_and_1000_trees():
    from policies.train.reproduce import PAPER_TREES, PAPER_UNITS, PLANS, budget_plan
    paper = budget_plan(PLANS[5], "paper", 1000)
    assert paper["depth2_positions"] == PAPER_TREES == 1000 > PLANS[5]["depth2_positions"]
    for name, t in paper["trainers"].items():
        assert t["iterations"] * t["batch"] >= PAPER_UNITS > (t["iterations"] - 1) * t["batch"]
        assert {k: v for k, v in t.items() if k != "iterations"} == {
            k: v for k, v in PLANS[5]["trainers"][name].items() if k != "iterations"}
    assert paper["curve_positions"] == 1000
    assert budget_plan(PLANS[5], "hour", 1000) is PLANS[5]
    with pytest.raises(ValueError, match="budget"):
        budget_plan(PLANS[5], "week", 1000)


def test_reproduce_refuses_a_folder_made_with_other_labels(tmp_path):
    from policies.train.reproduce import reproduce
    (tmp_path / "settings.json").write_text(json.dumps(
        {"board": 5, "scale": 1.0, "seed": 1, "labels": "own", "budget": "hour"}))
    with pytest.raises(ValueError, match="labels 'own' -> 'fuego'"):
        reproduce(5, tmp_path, labels="fuego", log=lambda text: None)
    assert not (tmp_path / "steps.json").exists()


def test_reproduce_weight_figure_has_a_panel_per_trainer(tmp_path):
    from policies.train.curves import plot_weight_grid
    curves = [{"trainer": name, "settings": {"batch": 2},
               "weights": {"names": ["li1x1", "li2x2:X./.X"], "iterations": [0, 10, 20],
                           "values": [[0.0, 0.0], [0.5, -0.2], [0.9, -0.4]]}}
              for name in ("apprentice", "balance", "twostep")]
    plot_weight_grid(curves, tmp_path / "w.png", "weights")
    assert (tmp_path / "w.png").stat().st_size > 5000
    plot_weight_grid([], tmp_path / "none.png", "weights")
    assert not (tmp_path / "none.png").exists()


def test_balance_trains_the_rule_based_playouts_random_step(tmp_path):
    """--features rules3x3: the file is a rules3x3 weight file that loads as the rule-based
    playouts, and the updates moved its weights (psi of the weighted random draws)."""
    from policies.features import RULES
    from policies.loader import load_policy
    data = tmp_path / "p.jsonl"
    write_file(data)
    out = tmp_path / "w.json"
    result = CliRunner().invoke(main, ["train", "balance", "--data", str(data), "--features",
                                       "rules3x3", "--alpha", "0.5", "--iterations", "4",
                                       "--m", "4", "--n", "4", "--out", str(out), "--curve",
                                       str(tmp_path / "c.json"), "--workers", "0"])
    assert result.exit_code == 0, result.output
    wf = read_weights(out, "rules3x3")
    assert np.count_nonzero(wf.theta(5)) > 5
    assert int(load_policy(str(out), 5).kind) == RULES
    # The curve follows the stoneless patterns: the random step in open space, on the edge,
    # in the corner.
    tracked = json.loads((tmp_path / "c.json").read_text())["weights"]["names"]
    assert len(tracked) == 3 and not any("X" in n or "O" in n for n in tracked)
