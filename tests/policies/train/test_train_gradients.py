"""The trainers' gradients: psi against finite differences of log pi; the simulation sums of
Algorithm 1 against exact expectations over every playout of small positions; Algorithm 2's
sums against finite differences of the depth-2 value; simulation adjusting's step against
finite differences of its objectives."""
import numpy as np
import pytest

from engine.core.board import PASS, copy_board, play
from engine.core.rng import make_rng
from policies import policy_probabilities
from policies.kernel import NO_RULES, RULE_FIGHTS, RULE_NAKADE, run_playouts
from policies.softmax import psi
from policies.train.adjust import Adjust
from policies.train.balance import Balance
from policies.train.inputs import Item
from policies.train.kernels import outcome_sums
from policies.train.siblings import Siblings, families_of
from policies.train.twostep import TwoStep

from helpers import board_from_ascii
from train_helpers import (KOMI, exact_value, games, make_items, random_theta, shape_policy,
                           small_positions)

MID_GAME = """
. . X . .
. X O O .
. X . O .
. . X O .
. . . . .
"""


def numeric_gradient(f, theta, h=1e-5):
    grad = np.zeros_like(theta)
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = h
        grad[k] = (f(theta + e) - f(theta - e)) / (2 * h)
    return grad


def check_directions(grad, f, theta, count=4, h=1e-5, atol=1e-7):
    """grad . d against the central difference of f along `count` random unit directions d
    (when f is costly: a wrong component shows up in a random direction all the same)."""
    rng = np.random.default_rng(0)
    for _ in range(count):
        d = rng.normal(size=theta.size)
        d /= np.linalg.norm(d)
        fd = (f(theta + h * d) - f(theta - h * d)) / (2 * h)
        assert abs(fd) > 1e-4
        assert grad @ d == pytest.approx(fd, abs=atol)


def test_psi_is_the_gradient_of_log_pi():
    b = board_from_ascii(MID_GAME)
    theta = random_theta(4, scale=0.8)
    for colour in (1, 2):
        probs = policy_probabilities(b, colour, shape_policy(theta))
        moves = np.flatnonzero(probs)
        assert len(moves) > 10
        for a in moves[::3]:
            g = np.zeros((1, theta.size))
            logp = psi(b, colour, shape_policy(theta), int(a), g, 0)
            assert logp == pytest.approx(np.log(probs[a]), abs=1e-12)
            fd = numeric_gradient(
                lambda t: np.log(policy_probabilities(b, colour, shape_policy(t))[a]), theta)
            assert np.abs(g[0]).max() > 0.1
            np.testing.assert_allclose(g[0], fd, atol=1e-6)


@pytest.fixture(scope="module")
def positions():
    return small_positions()


@pytest.fixture(scope="module")
def theta():
    return random_theta(1)


def exact_sums(b, c, pol, per_length):
    """The expectation, per playout, of outcome_sums' four rows, and their variance."""
    gs = games(b, c, (pol, pol))
    mean = np.zeros((2, 2, pol.theta.size))
    square = np.zeros_like(mean)
    for p, z, t, g in gs:
        w = 1.0 / t if per_length else 1.0
        mean[1 - z] += p * w * g
        square[1 - z] += p * (w * g) ** 2
    return mean, square - mean ** 2


@pytest.mark.parametrize("per_length", [True, False])
def test_simulation_sums_match_their_exact_expectations(positions, theta, per_length):
    pol = shape_policy(theta)
    n = 5000
    for b, c in positions[1:3]:
        mean, var = exact_sums(b, c, pol, per_length)
        out = np.zeros_like(mean)
        wins = outcome_sums(b, c, pol, make_rng(5), KOMI, n, per_length, out, NO_RULES)
        assert abs(wins / n - exact_value(b, c, pol)) < 5 * np.sqrt(0.25 / n)
        err = out / n - mean
        sd = np.sqrt(var / n)
        assert np.all(np.abs(err[sd == 0]) < 1e-9)
        assert np.all(np.abs(err[sd > 0]) < 5 * sd[sd > 0] + 1e-12)
        assert np.abs(mean).max() > 0.01     # not a comparison of zeros


def test_likelihood_ratio_is_the_gradient_of_the_win_rate(positions, theta):
    """sum_games P z sum_t psi = grad E[z]: what REINFORCE and simulation adjusting rely on
    (and a check of the enumeration itself)."""
    b, c = positions[2]
    mean, _ = exact_sums(b, c, shape_policy(theta), per_length=False)
    check_directions(mean[0, 0] + mean[0, 1], lambda t: exact_value(b, c, shape_policy(t)),
                     theta)


@pytest.mark.parametrize("baseline", [False, True])
def test_algorithm1_step_is_unbiased(positions, theta, baseline):
    """E[(Vhat - V) g] = (Vhat - E z) E[g] with V and g from independent simulations; E[g] is
    the paper's sum of z/T sum psi, or with the leave-one-out baseline grad E[z] itself."""
    pol = shape_policy(theta)
    b, c = positions[1]
    label = 0.9
    item = make_items([(b, c)], value=label)[0]
    trainer = Balance([item], {"m": 4, "n": 4, "baseline": baseline})
    mean, _ = exact_sums(b, c, pol, per_length=not baseline)
    expected = (label - exact_value(b, c, pol)) * (mean[0, 0] + mean[0, 1])
    steps = np.array([trainer.work(pol, 0, make_rng(r))[0] for r in range(1500)])
    sd = steps.std(axis=0) / np.sqrt(len(steps))
    assert np.abs(expected).max() > 0.01
    assert np.all(np.abs(steps.mean(axis=0) - expected) < 5 * sd + 1e-9)


def sibling_items(positions, labels):
    """positions[1] and positions[2] as the two children of one parent, with `labels`."""
    return [Item(copy_board(b), c, KOMI, value=v, id=f"parent|{k}")
            for k, ((b, c), v) in enumerate(zip(positions[1:3], labels))]


@pytest.mark.parametrize("level", [0.0, 0.5])
def test_sibling_step_is_unbiased(positions, theta, level):
    """E[step] = sum_c (e_c - (1 - level) mean e) grad E[z_c] / |family|, e_c = Vhat_c - E z_c:
    each child balanced against its siblings, plus `level` of their common error."""
    pol = shape_policy(theta)
    labels = [0.9, 0.2]
    items = sibling_items(positions, labels)
    trainer = Siblings(items, {"m": 4, "n": 4, "level": level})
    errors, grads = [], []
    for (b, c), label in zip(positions[1:3], labels):
        mean, _ = exact_sums(b, c, pol, per_length=False)
        errors.append(label - exact_value(b, c, pol))
        grads.append(mean[0, 0] + mean[0, 1])
    errors = np.array(errors)
    weights = errors - (1 - level) * errors.mean()
    expected = (weights[0] * grads[0] + weights[1] * grads[1]) / 2
    steps = np.array([trainer.work(pol, 0, make_rng(r))[0] for r in range(1500)])
    sd = steps.std(axis=0) / np.sqrt(len(steps))
    assert np.abs(expected).max() > 0.005
    assert np.all(np.abs(steps.mean(axis=0) - expected) < 5 * sd + 1e-9)


def test_sibling_balancing_ignores_an_error_shared_by_the_family(positions, theta):
    """Labels off the playouts' values by the same amount for every child: at level 0 nothing
    to learn (zero step on average), where plain balancing would move."""
    pol = shape_policy(theta)
    labels = [exact_value(b, c, pol) + 0.1 for b, c in positions[1:3]]
    trainer = Siblings(sibling_items(positions, labels), {"m": 4, "n": 4})
    steps = np.array([trainer.work(pol, 0, make_rng(r))[0] for r in range(1500)])
    sd = steps.std(axis=0) / np.sqrt(len(steps))
    assert np.all(np.abs(steps.mean(axis=0)) < 5 * sd + 1e-9)
    plain = Siblings(sibling_items(positions, labels), {"m": 4, "n": 4, "level": 1.0})
    moved = np.array([plain.work(pol, 0, make_rng(r))[0] for r in range(1500)]).mean(axis=0)
    assert np.abs(moved).max() > 10 * sd.max()


def test_siblings_group_by_parent_and_refuse_lone_children(positions):
    items = sibling_items(positions, [0.5, 0.5]) + make_items(positions[:1], value=0.5)
    assert [[it.id for it in f] for f in families_of(items)] == [["parent|0", "parent|1"]]
    with pytest.raises(ValueError, match="families"):
        Siblings(make_items(positions[:2], value=0.5), {})


def full_tree(b, c, pol, seed, drop=0):
    """Every candidate move at both plies, random labels; `drop` removes that many first
    moves (an incomplete tree)."""
    rng = np.random.default_rng(seed)
    a1 = [int(p) for p in np.flatnonzero(policy_probabilities(b, c, pol))][drop:]
    first, a2 = [0], []
    for a in a1:
        s2 = copy_board(b)
        play(s2, a, c)
        a2 += [int(p) for p in np.flatnonzero(policy_probabilities(s2, 3 - c, pol))] or [PASS]
        first.append(len(a2))
    return (np.array(a1), np.array(first), np.array(a2), rng.uniform(0, 1, len(a2)))


def depth2_value(b, c, tree, theta):
    """sum pi pi v3 / sum pi pi in plain Python."""
    a1, first, a2, v3 = tree
    pol = shape_policy(theta)
    p1 = policy_probabilities(b, c, pol)
    value = mass = 0.0
    for i, a in enumerate(a1):
        s2 = copy_board(b)
        play(s2, int(a), c)
        p2 = policy_probabilities(s2, 3 - c, pol)
        for j in range(first[i], first[i + 1]):
            p = p1[a] * (p2[a2[j]] if a2[j] != PASS else 1.0)
            value += p * v3[j]
            mass += p
    return value / mass


@pytest.mark.parametrize("drop", [0, 2])
def test_algorithm2_sums_are_the_exact_gradient(theta, drop):
    b = board_from_ascii(MID_GAME)
    pol = shape_policy(theta)
    tree = full_tree(b, 1, pol, 3, drop)
    item = make_items([(b, 1)], value=0.5, tree=tree)[0]
    v, g = TwoStep([item], {}).estimates(pol, item)
    assert v == pytest.approx(depth2_value(b, 1, tree, theta), abs=1e-12)
    fd = numeric_gradient(lambda t: depth2_value(b, 1, tree, t), theta)
    assert np.abs(fd).max() > 1e-3
    np.testing.assert_allclose(g, fd, atol=1e-7)


def exact_move_values(b, c, moves, theta):
    """V(a) (the mover's win rate) and grad V(a), exactly, for each move."""
    pol = shape_policy(theta)
    values, grads = [], []
    for a in moves:
        s = copy_board(b)
        play(s, a, c)
        mean, _ = exact_sums(s, 3 - c, pol, per_length=False)
        v = exact_value(s, 3 - c, pol)
        row = 0 if c == 1 else 1
        values.append(v if c == 1 else 1 - v)
        grads.append(mean[row, 0] + mean[row, 1])
    return np.array(values), np.array(grads)


@pytest.mark.parametrize("objective", ["gap", "prob"])
def test_adjusting_step_descends_its_objective(positions, theta, objective, monkeypatch):
    """With exact V(a) and grad V(a) in place of the simulations, the step is -grad J."""
    b, c = positions[1]
    pol = shape_policy(theta)
    moves = [int(p) for p in np.flatnonzero(policy_probabilities(b, c, pol))]
    values, _ = exact_move_values(b, c, moves, theta)
    expert = moves[int(np.argmin(values))]   # not the best move: J > 0
    item = make_items([(b, c)], expert=expert)[0]
    trainer = Adjust([item], {"objective": objective, "k": len(moves), "n": 64, "tau": 0.2})
    monkeypatch.setattr(trainer, "values",
                        lambda pol, item, ms, rng: exact_move_values(b, c, ms, pol.theta))
    step, j, _ = trainer.work(pol, 0, make_rng(0))
    order = trainer.candidates(pol, item, make_rng(0))

    def objective_value(t):
        v, _ = exact_move_values(b, c, order, t)
        if objective == "gap":
            return (v.max() - v[0]) ** 2
        x = v / 0.2
        return -(x[0] - x.max() - np.log(np.exp(x - x.max()).sum()))
    assert j == pytest.approx(objective_value(theta), abs=1e-12)
    check_directions(-step, objective_value, theta, atol=1e-6)


def search_rules():
    """The search's default playout rules: fight answers and nakade, no ladder redraws."""
    rules = NO_RULES.copy()
    rules[RULE_FIGHTS] = rules[RULE_NAKADE] = 1.0
    return rules


def test_simulations_with_playout_rules_are_the_search_playouts():
    """With playout rules the trainers' simulations are the games the search's playouts play
    from the same random state (the same wins), not the plain policy's."""
    b = board_from_ascii(MID_GAME)
    pol = shape_policy(random_theta(2))
    n = 300
    for c in (1, 2):
        out = np.zeros((2, 2, pol.theta.shape[0]))
        wins = outcome_sums(b, c, pol, make_rng(9), KOMI, n, False, out, search_rules())
        assert wins == run_playouts(b, c, n, make_rng(9), KOMI, pol, search_rules())
        assert np.abs(out).max() > 0.01


def test_balance_with_playout_rules_estimates_v_with_them():
    b = board_from_ascii(MID_GAME)
    pol = shape_policy(random_theta(2))
    item = make_items([(b, 1)], value=0.5)
    plain = Balance(item, {"m": 64, "n": 8})
    ruled = Balance(item, {"m": 64, "n": 8}, search_rules())
    v_ruled, _ = ruled.estimates(pol, item[0], make_rng(3))
    v_plain, _ = plain.estimates(pol, item[0], make_rng(3))
    assert v_ruled == run_playouts(b, 1, 64, make_rng(3), KOMI, pol, search_rules()) / 64
    assert v_plain == run_playouts(b, 1, 64, make_rng(3), KOMI, pol, NO_RULES) / 64
