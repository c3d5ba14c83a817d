"""The Monte-Carlo accuracy measure (policies/data/evaluate.py) and `simbal eval`."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from engine.core.rng import make_rng
from engine.lab.cli import main
from policies import load_policy
from policies.data.evaluate import (label_agreement, mc_values, mse_ratio_with_interval,
                                    mse_with_interval)
from policies.data.files import Position, position_board, read_positions, write_positions
from policies.data.positions import random_positions
from policies.kernel import NO_RULES, run_playouts


@pytest.fixture(scope="module")
def positions():
    return random_positions(5, 24.5, 40, seed=11)[0]


def test_mc_values_are_deterministic_and_independent_of_workers(positions, dask_cluster):
    pol = load_policy("uniform", 5)
    one = mc_values(positions, pol, 50, seed=3)
    two = mc_values(positions, pol, 50, seed=3, cluster=dask_cluster)
    assert np.array_equal(one, two)
    assert not np.array_equal(one, mc_values(positions, pol, 50, seed=4))
    assert one.shape == (len(positions),) and np.all((one >= 0) & (one <= 1))
    # Each value is the kernel's own count of Black wins from that position.
    b, c = position_board(positions[7])
    wins = run_playouts(b, c, 50, make_rng(3 * 1_000_003 + 7), positions[7].komi, pol, NO_RULES)
    assert one[7] == wins / 50


def test_mc_values_count_black_wins_whoever_moves():
    pol = load_policy("handcrafted", 5)
    cases = [(-25.5, [], "B"), (-25.5, [("B", "C3")], "W"), (25.5, [], "B"),
             (25.5, [("B", "C3")], "W")]
    ps = [Position(str(i), 5, k, m, t) for i, (k, m, t) in enumerate(cases)]
    assert mc_values(ps, pol, 20, seed=0).tolist() == [1.0, 1.0, 0.0, 0.0]


@pytest.mark.slow
def test_mc_values_converge_to_the_playout_mean(positions):
    pol = load_policy("uniform", 5)
    many = mc_values(positions[:5], pol, 20000, seed=1)
    other = mc_values(positions[:5], pol, 20000, seed=2)
    assert np.max(np.abs(many - other)) < 0.03   # 4.5 standard errors at p = 0.5


def test_mse_with_interval():
    rng = np.random.default_rng(0)
    labels = rng.random(400)
    values = np.clip(labels + rng.normal(0, 0.2, 400), 0, 1)
    r = mse_with_interval(values, labels, n_boot=500, seed=1)
    assert r["n"] == 400 and r["mse"] == pytest.approx(np.mean((values - labels) ** 2))
    assert r["lo"] < r["mse"] < r["hi"] and r["hi"] - r["lo"] < r["mse"]
    assert r == mse_with_interval(values, labels, n_boot=500, seed=1)
    assert mse_with_interval(labels, labels) == {"mse": 0.0, "lo": 0.0, "hi": 0.0, "n": 400}
    with pytest.raises(ValueError):
        mse_with_interval(values, labels[:10])


def test_the_ratio_of_two_mses_has_a_paired_interval():
    rng = np.random.default_rng(0)
    labels = rng.random(400)
    hard = rng.random(400) < 0.3          # positions both policies get wrong
    noise = rng.normal(0, 0.1, 400) + np.where(hard, 0.5, 0.0)
    good, bad = labels + noise, labels + 2 * noise      # bad's errors are good's, doubled
    r = mse_ratio_with_interval(good, bad, labels, n_boot=500, seed=1)
    assert r["ratio"] == pytest.approx(0.25)
    # Paired: every resample keeps the ratio at 1/4, however hard its positions.
    assert r["lo"] == pytest.approx(0.25) and r["hi"] == pytest.approx(0.25)
    other = labels + rng.normal(0, 0.2, 400)
    r = mse_ratio_with_interval(good, other, labels, n_boot=500, seed=1)
    assert r["lo"] < r["ratio"] < r["hi"]
    with pytest.raises(ValueError, match="zero"):
        mse_ratio_with_interval(good, labels, labels)


def test_eval_mse_command(tmp_path, positions):
    path = tmp_path / "test.jsonl"
    for p in positions:
        p.value_black = 0.5
    write_positions(path, positions, {"command": "test"})
    r = CliRunner().invoke(main, ["eval", "mse", "--positions", str(path), "--weights", "uniform",
                                  "--sims", "40", "--seed", "5", "--workers", "0"])
    assert r.exit_code == 0, r.output
    result = json.loads(r.stdout)
    values = mc_values(read_positions(path), load_policy("uniform", 5), 40, seed=5)
    assert result["mse"] == pytest.approx(np.mean((values - 0.5) ** 2))
    assert result["n"] == len(positions) and result["sims"] == 40
    assert result["weights"] == "uniform" and result["lo"] <= result["mse"] <= result["hi"]
    assert "ratio" not in result
    r = CliRunner().invoke(main, ["eval", "mse", "--positions", str(path), "--weights", "uniform",
                                  "--against", "uniform", "--sims", "40", "--seed", "5",
                                  "--workers", "0"])
    paired = json.loads(r.stdout)
    assert paired["against"]["mse"] == paired["mse"] == result["mse"]   # same playout seeds
    assert paired["ratio"] == {"ratio": 1.0, "lo": 1.0, "hi": 1.0}
    r = CliRunner().invoke(main, ["eval", "mse", "--positions", str(path), "--weights",
                                  str(tmp_path / "none.json"), "--workers", "0"])
    assert r.exit_code != 0 and "none.json" in r.output and "Traceback" not in r.output


def test_eval_mse_refuses_unlabelled_positions(tmp_path, positions):
    path = tmp_path / "raw.jsonl"
    for p in positions:
        p.value_black = None
    write_positions(path, positions, {})
    r = CliRunner().invoke(main, ["eval", "mse", "--positions", str(path), "--workers", "0"])
    assert r.exit_code != 0 and "no value_black" in r.output


def test_label_agreement(tmp_path):
    a = [Position(f"p{i}", 5, 0.5, [], "B", value_black=v) for i, v in enumerate([0.2, 0.4, 0.9])]
    b = [Position(f"p{i}", 5, 0.5, [], "B", value_black=v) for i, v in enumerate([0.3, 0.4, 0.7])]
    write_positions(tmp_path / "a.jsonl", a, {})
    write_positions(tmp_path / "b.jsonl", b[::-1], {})   # matched by id, not by line
    r = label_agreement(tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    assert r["n"] == 3 and r["mse"] == pytest.approx((0.01 + 0 + 0.04) / 3)
    assert r["label_sd"] == pytest.approx(np.std([-0.1, 0.0, 0.2], ddof=1) / np.sqrt(2))


def test_eval_mse_with_the_search_playout_rules(tmp_path, positions):
    """--rules search evaluates with the playouts the search plays (fight answers, nakade)."""
    from engine.search.params import default_playout_rules
    path = tmp_path / "test.jsonl"
    for p in positions:
        p.value_black = 0.5
    write_positions(path, positions, {"command": "test"})
    args = ["eval", "mse", "--positions", str(path), "--weights", "handcrafted", "--sims", "40",
            "--seed", "5", "--workers", "0"]
    ruled = json.loads(CliRunner().invoke(main, args + ["--rules", "search"]).stdout)
    plain = json.loads(CliRunner().invoke(main, args).stdout)
    rules = default_playout_rules()
    assert ruled["rules"] == rules.tolist() and "rules" not in plain
    pol = load_policy("handcrafted", 5)
    values = mc_values(read_positions(path), pol, 40, seed=5, rules=rules)
    assert ruled["mse"] == pytest.approx(np.mean((values - 0.5) ** 2))
    assert plain["mse"] != ruled["mse"]


def test_eval_mse_with_the_engines_own_playouts_on_the_board_size(tmp_path):
    """--rules engine: the playouts the engine plays on that size (its defaults.json
    parameters too, so on 9x9 the local playouts), not the global defaults."""
    from engine.search.params import default_playout_rules, size_playout_rules
    from policies import default_search_params
    from policies.kernel import RULE_LOCAL
    path = tmp_path / "nine.jsonl"
    write_positions(path, [Position("a", 9, 7.5, [("B", "E5"), ("W", "C3")], "B", value_black=0.6),
                           Position("b", 9, 7.5, [("B", "D4")], "W", value_black=0.3)],
                    {"command": "test"})
    args = ["eval", "mse", "--positions", str(path), "--weights", "handcrafted", "--sims", "30",
            "--seed", "2", "--workers", "0", "--rules", "engine"]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    result = json.loads(run.stdout)
    rules = size_playout_rules(9)
    assert result["rules"] == rules.tolist()
    assert rules[RULE_LOCAL] == default_search_params(9).get("playout_local", 0.0)
    values = mc_values(read_positions(path), load_policy("handcrafted", 9), 30, seed=2,
                       rules=rules)
    assert result["mse"] == pytest.approx(np.mean((values - np.array([0.6, 0.3])) ** 2))
    if rules.tolist() != default_playout_rules().tolist():
        search = json.loads(CliRunner().invoke(main, args[:-1] + ["search"]).stdout)
        assert search["rules"] != result["rules"]


def test_trainers_do_not_offer_the_engines_playouts():
    # Local playouts have no gradient: `simbal train --rules engine` is refused by click.
    run = CliRunner().invoke(main, ["train", "balance", "--rules", "engine"])
    assert run.exit_code == 2 and "'engine' is not one of" in run.output


def test_eval_mse_with_a_playout_parameter_over_the_rules(tmp_path):
    """--param sets a search parameter over the rules: the playouts it changes are measured."""
    from engine.search.params import size_playout_rules
    from policies.kernel import RULE_CAPTURE_NAKADE
    path = tmp_path / "nine.jsonl"
    write_positions(path, [Position("a", 9, 7.5, [("B", "E5"), ("W", "C3")], "B", value_black=0.6)],
                    {"command": "test"})
    args = ["eval", "mse", "--positions", str(path), "--weights", "handcrafted", "--sims", "20",
            "--seed", "2", "--workers", "0", "--rules", "engine"]
    run = CliRunner().invoke(main, args + ["--param", "playout_capture_nakade=1"])
    assert run.exit_code == 0, run.output
    result = json.loads(run.stdout)
    rules = size_playout_rules(9, playout_capture_nakade=1.0)
    assert result["rules"] == rules.tolist() and rules[RULE_CAPTURE_NAKADE] == 1.0
    assert result["params"] == {"playout_capture_nakade": 1.0}
    # Without rules to change, or with an unknown name: a usage error, not a traceback.
    bare = CliRunner().invoke(main, args[:-2] + ["--param", "playout_capture_nakade=1"])
    assert bare.exit_code == 2 and "--rules" in bare.output
    unknown = CliRunner().invoke(main, args + ["--param", "no_such=1"])
    assert unknown.exit_code == 2 and "no_such" in unknown.output
