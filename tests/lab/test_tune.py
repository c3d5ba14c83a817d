"""RSPSA and FDSA (engine/lab/tune.py, `simbal tune`): the iRPROP- step rule, common random numbers,
convergence on a synthetic noisy objective with a known optimum, exact resumption, and the
game-pair objective."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from engine.lab.cli import main as cli
from engine.lab.tune import (DELTA_0, ETA_MINUS, ETA_PLUS, RHO, MatchSetup, Param, Settings,
                             Synthetic, Tuner, check_names, distance, parse_param, play_pair, run)

OPTIMUM = {"uct_c": 1.2, "bias_weight": 3.0}
WIDTH = {"uct_c": 1.0, "bias_weight": 2.0}


def poor_start():
    # Far from the optimum: about 2.2 and 1.2 scale units (a quarter of each range) away.
    return [Param("uct_c", 4.0, 0.0, 5.0), Param("bias_weight", 0.0, 0.0, 10.0)]


class Recorder:
    """A deterministic objective that records what it was asked."""

    def __init__(self, f):
        self.f, self.calls = f, []

    def __call__(self, points):
        self.calls.append(points)
        return [self.f(params) for params, _ in points]


def test_parse_param_and_names():
    p = parse_param("uct_c=2.4")
    assert (p.start, p.low, p.high, p.scale) == (2.4, 0.0, 5.0, 1.25)
    assert parse_param("prune_visits=30,1,101,10").scale == 10
    for text, words in (("nope=1", "no default bounds"), ("uct_c=x", "expected"),
                        ("uct_c=9,0,5", "outside"), ("uct_c=1,2,2", "empty")):
        with pytest.raises(ValueError, match=words):
            parse_param(text)
    with pytest.raises(ValueError, match="unknown engine parameter"):
        check_names([Param("warp_speed", 1, 0, 2)])


def test_rspsa_pairs_share_seeds_and_perturb_every_parameter():
    rec = Recorder(lambda p: 0.0)
    tuner = Tuner(poor_start(), Settings(perturbations=5, seed=1), rec)
    tuner.step()
    points = rec.calls[0]
    assert len(points) == 10
    for plus, minus in zip(points[::2], points[1::2]):
        assert plus[1] == minus[1]                          # common random numbers
        for name in ("uct_c", "bias_weight"):               # simultaneous perturbation
            assert plus[0][name] != minus[0][name]
    assert len({seed for _, seed in points}) == 5           # r independent perturbations


def test_irprop_steps_grow_on_agreement_and_shrink_without_moving_on_reversal():
    # f increases with uct_c: the step grows by eta+ each time the sign repeats.
    tuner = Tuner([Param("uct_c", 1.0, 0.0, 5.0)], Settings(perturbations=1), Recorder(lambda p: p["uct_c"]))
    xs = []
    for _ in range(4):
        tuner.step()
        xs.append(tuner.x[0])
    steps = np.diff([(1.0 - 0.0) / 1.25] + xs)
    assert steps[0] == pytest.approx(DELTA_0)
    assert steps[1:] == pytest.approx(DELTA_0 * ETA_PLUS ** np.arange(1, 4))
    # Reverse the slope: the next step shrinks the step size and leaves x where it is.
    tuner.objective = Recorder(lambda p: -p["uct_c"])
    x, delta = tuner.x[0], tuner.delta[0]
    record = tuner.step()
    assert tuner.x[0] == x and record["signs"] == [0]
    assert tuner.delta[0] == pytest.approx(delta * ETA_MINUS)
    # Then a fresh start in the new direction, by the same (shrunk) step.
    tuner.step()
    assert tuner.x[0] == pytest.approx(x - delta * ETA_MINUS)


def test_perturbation_is_coupled_to_the_step_size():
    rec = Recorder(lambda p: p["uct_c"])
    tuner = Tuner([Param("uct_c", 2.5, 0.0, 5.0)], Settings(perturbations=1), rec)
    for _ in range(3):
        tuner.step()
    delta = tuner.delta[0]
    tuner.step()
    (plus, _), (minus, _) = rec.calls[-1]
    assert abs(plus["uct_c"] - minus["uct_c"]) / 1.25 == pytest.approx(2 * RHO * delta)


def test_a_step_blocked_by_a_bound_shrinks_the_step():
    tuner = Tuner([Param("uct_c", 0.01, 0.0, 5.0)], Settings(perturbations=1),
                  Recorder(lambda p: -p["uct_c"]))
    tuner.step()
    assert tuner.x[0] == 0.0 and tuner.delta[0] == pytest.approx(DELTA_0 * ETA_MINUS)


@pytest.mark.parametrize("method, r", [("rspsa", 8), ("fdsa", 4)])
def test_converges_on_a_noisy_synthetic_objective(method, r):
    # The noise (sd 1 shared by a pair's two points, 0.3 of its own) dwarfs the differences the
    # perturbations measure; from the poor start both methods must end within 0.25 scale units
    # (6.25% of each range) of the optimum after 60 iterations (960 evaluations either way).
    tuner = Tuner(poor_start(), Settings(method=method, iterations=60, perturbations=r, seed=0),
                  Synthetic(OPTIMUM, WIDTH, common=1.0, own=0.3))
    start = distance(tuner, OPTIMUM)
    for _ in range(60):
        tuner.step()
    assert start > 2.0
    assert distance(tuner, OPTIMUM) < 0.25


def test_common_random_numbers_cut_the_gradient_variance():
    # The first gradient estimate over many seeds: with the noise shared by a pair's two points
    # (what a common seed gives) its spread is far smaller than with the same amount of noise
    # drawn independently for each point.
    def spread(common, own):
        grads = [Tuner(poor_start(), Settings(perturbations=1, seed=s),
                       Synthetic(OPTIMUM, WIDTH, common=common, own=own)).step()["gradient"][0]
                 for s in range(200)]
        return np.std(grads)
    assert spread(1.0, 0.1) * 3 < spread(0.0, np.sqrt(1.0 + 0.1 ** 2))


def test_resume_equals_uninterrupted(tmp_path):
    def tuner(iterations):
        return Tuner(poor_start(), Settings(iterations=iterations, perturbations=4, seed=7),
                     Synthetic(OPTIMUM, WIDTH))
    whole = run(tuner(12), tmp_path / "whole")
    run(tuner(5), tmp_path / "part")
    # A crash after a log line but before its checkpoint: that line is redone, not duplicated.
    log = tmp_path / "part" / "log.jsonl"
    log.write_text(log.read_text() + json.dumps({"iteration": 6, "params": {}}) + "\n")
    resumed = run(tuner(12), tmp_path / "part")
    assert [r["new_params"] for r in resumed] == [r["new_params"] for r in whole]
    assert len(log.read_text().splitlines()) == 12
    assert json.loads((tmp_path / "part" / "state.json").read_text()) == \
           json.loads((tmp_path / "whole" / "state.json").read_text())
    assert (tmp_path / "part" / "trajectory.png").exists()
    other = Tuner([Param("uct_c", 1.0, 0.0, 5.0)], Settings(iterations=13), Synthetic(OPTIMUM, WIDTH))
    with pytest.raises(ValueError, match="other params"):
        run(other, tmp_path / "part")


def test_game_pair_objective_is_reproducible():
    setup = MatchSetup(size=5, komi=0.5, playouts=16, weights="uniform", opening=2)
    a = play_pair(setup, {"uct_c": 2.0}, 11)
    assert a in (0.0, 0.5, 1.0)
    assert play_pair(setup, {"uct_c": 2.0}, 11) == a       # same seed and parameters: same games


def test_cli_tune_synthetic_and_bad_input(tmp_path):
    out = tmp_path / "t"
    args = ["tune", "--param", "uct_c=3", "--objective", "synthetic", "--iterations", "3",
            "--perturbations", "2", "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "after 3 iterations (12 evaluations)" in result.output
    assert len((out / "log.jsonl").read_text().splitlines()) == 3
    bad = CliRunner().invoke(cli, ["tune", "--param", "warp=1,0,2"])
    assert bad.exit_code == 2 and "unknown engine parameter" in bad.output
    opponent = CliRunner().invoke(cli, args + ["--opponent-param", "uct_c=fast"])
    assert opponent.exit_code == 2 and "'uct_c=fast': expected NAME=VALUE" in opponent.output
    (out / "state.json").write_text("{torn")
    torn = CliRunner().invoke(cli, args)
    assert torn.exit_code == 1 and "state.json: corrupt checkpoint" in torn.output


def test_every_continuous_search_parameter_has_default_bounds():
    """`simbal tune --param NAME=START` must work for each search constant; only the on/off
    switches (RAVE, last good replies, ladders in the playouts) are not tunable quantities."""
    from engine.lab.tune import BOUNDS
    from engine.search.params import PARAMS, default_params
    names = {name for name, _, _ in PARAMS} - {"rave", "lgr", "playout_ladders"}
    assert names <= set(BOUNDS), f"no bounds for {sorted(names - set(BOUNDS))}"
    for (name, _, _), value in zip(PARAMS, default_params()):
        if name in BOUNDS:
            low, high = BOUNDS[name]
            assert low <= value <= high, name
