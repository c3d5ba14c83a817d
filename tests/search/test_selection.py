"""Selection in the compiled tree search (engine/search/mcts.py), checked on hand-built trees
against the formula of Chaslot et al. (see ../shared/ALGORITHMS.md), evaluated here in plain
Python:

    v + C*sqrt(ln n_p / n_k) + W*H_k/(n_k + 1),   v blended with RAVE by
    beta = n~ / (n + n~ + n*n~/equiv) when RAVE is on,

and every case also names the child a person working it out by hand expects, so that a
wrong formula in both places would still be caught.  Below `prune_visits` the child is
sampled with probability proportional to exp(H); that is checked with a chi-square bound.
Progressive unpruning follows its schedule.
"""
import math

import numpy as np
import pytest

from engine.core.rng import make_rng
from engine.search.mcts import select_child, unpruned_count

from helpers import params
from search_helpers import child, hand_tree


def formula_choice(children, n_p, p, eligible):
    """Index (0-based) of the child the documented rule picks among `eligible` indices:
    argmax of v + C*sqrt(ln n_p/n) + W*H/(n+1) over visited children, v blended with RAVE
    when on; unvisited children score first-play-urgency + W*H (so that they come first, in
    H order).  Ties go to the earlier child."""
    C, W, fpu, equiv = p.uct_c, p.bias_weight, p.first_play, p.rave_equiv
    log_np = math.log(max(n_p, 1))
    best, best_score = None, -math.inf
    for i in eligible:
        ch = children[i]
        n, rn = ch["visits"], ch["rave_n"]
        if n == 0:
            if p.rave > 0 and rn > 0:
                score = ch["rave_w"] / rn + C * math.sqrt(log_np) + W * ch["prior"]
            else:
                score = fpu + W * ch["prior"]
        else:
            v = ch["wins"] / n
            if p.rave > 0 and rn > 0:
                beta = rn / (n + rn + n * rn / equiv)
                v = (1 - beta) * v + beta * ch["rave_w"] / rn
            score = v + C * math.sqrt(log_np / n) + W * ch["prior"] / (n + 1)
        if score > best_score:
            best, best_score = i, score
    return best


def chosen(children, n_p, p, prune=False, seed=0):
    tree = hand_tree(children, n_p, prune)
    return int(select_child(tree, 0, p, make_rng(seed))) - 1


# Each case: (id, children, parent visits, parameter overrides, index expected by hand).
SELECTION_CASES = [
    # v_A = 0.6 over 80 visits vs v_B = 0.4 over 5: with C = 0.6 the bonus of the little-tried
    # child (0.6*sqrt(ln 100/5) = 0.58) beats the better mean (0.6 + 0.14) ...
    ("exploration wins", [child(80, 48), child(5, 2), child(15, 6, prior=-1.0)], 100,
     dict(uct_c=0.6, bias_weight=0.0), 1),
    # ... and with C = 0.1 the better mean wins.
    ("exploitation wins", [child(80, 48), child(5, 2), child(15, 6, prior=-1.0)], 100,
     dict(uct_c=0.1, bias_weight=0.0), 0),
    # Equal visits; the first child's mean is 0.05 lower but its H = 3 adds 3/41 = 0.073.
    ("bias decides", [child(40, 18, prior=3.0), child(40, 20, prior=0.0), child(20, 5, prior=-1.0)], 100,
     dict(bias_weight=1.0), 0),
    ("no bias: the mean decides", [child(40, 18, prior=3.0), child(40, 20, prior=0.0),
                                   child(20, 5, prior=-1.0)], 100, dict(bias_weight=0.0), 1),
    # Progressive bias fades: with 400 visits each the same H adds only 3/401.
    ("bias fades with visits", [child(400, 180, prior=3.0), child(400, 200, prior=0.0),
                                child(200, 50, prior=-1.0)], 1000, dict(bias_weight=1.0), 1),
    # A heavier weight restores it.
    ("bias weight scales H", [child(400, 180, prior=3.0), child(400, 200, prior=0.0),
                              child(200, 50, prior=-1.0)], 1000, dict(bias_weight=20.0), 0),
    # Unvisited children come first, best H first.
    ("unvisited before visited", [child(50, 40, prior=1.0), child(0, prior=0.5), child(0, prior=0.2),
                                  child(0, prior=-1.0)], 50, {}, 1),
    ("unvisited in H order", [child(50, 40, prior=1.0), child(4, 0, prior=0.5), child(0, prior=0.2),
                              child(0, prior=-1.0)], 54, {}, 2),
    # The same with RAVE on but no RAVE statistics yet.
    ("unvisited first, rave on but empty", [child(50, 40, prior=1.0), child(0, prior=0.5),
                                            child(0, prior=-1.0)], 50, dict(rave=1.0), 1),
    # A fresh node (no visits yet, T = 0) whose children carry RAVE priors: the best prior.
    ("fresh node, rave priors", [child(0, prior=0.0, rave_n=20, rave_w=12),
                                 child(0, prior=-0.5, rave_n=20, rave_w=15),
                                 child(0, prior=-3.0, rave_n=20, rave_w=2)], 0,
     dict(rave=1.0, bias_weight=0.0), 1),
    # All children visited: the formula alone.
    ("all visited", [child(30, 12, prior=0.5), child(10, 6, prior=0.2), child(10, 3, prior=-1.0)], 50, {}, 1),
]


@pytest.mark.parametrize("name, children, n_p, overrides, expected", SELECTION_CASES,
                         ids=[c[0] for c in SELECTION_CASES])
def test_selection_follows_the_formula(name, children, n_p, overrides, expected):
    p = params(prune_visits=0.0, **overrides)
    assert formula_choice(children, n_p, p, range(len(children))) == expected, "the case itself is wrong"
    assert chosen(children, n_p, p) == expected


@pytest.mark.parametrize("wins", [1, 2])
def test_unvisited_children_come_before_a_lucky_visited_one(wins):
    """The documented rule (search.py docstring, ALGORITHMS.md: "unvisited children are taken
    in order of H_k"): while an eligible child is unvisited, selection takes one.  Here, past
    T = 30 visits and without RAVE, one child won all its `wins` visits; its score
    1 + C*sqrt(ln 40/n) must not outrank the unvisited children's first-play urgency."""
    children = [child(wins, float(wins)), child(0), child(0), child(0)]
    p = params(first_play=10.0, uct_c=0.6, prune_visits=30.0, rave=0.0)
    choice = chosen(children, 40, p)
    assert choice == 1, (f"took the visited child {choice} (score "
                         f"{1 + 0.6 * math.sqrt(math.log(40) / wins):.2f}) over unvisited ones (10)")


def test_pruned_children_are_never_selected_but_pass_always_is_eligible():
    # 7 moves + PASS, pruning on, k_init 2, 35 visits (>= T = 30, < A = 40): only the first
    # two children by H and PASS are eligible.  Child 5 has the best record but is pruned.
    children = [child(10, 2, prior=1.0), child(10, 2, prior=0.8), child(0, prior=0.5),
                child(0, prior=0.4), child(0, prior=0.3), child(5, 5, prior=0.2),
                child(0, prior=0.1), child(10, 9, prior=-1.0)]
    p = params(unprune_k_init=2.0, prune_visits=30.0)
    assert chosen(children, 35, p, prune=True) == 7          # PASS, the best eligible
    assert formula_choice(children, 35, p, [0, 1, 7]) == 7
    # Never-pruned node (allowed == n_child): the unvisited children come into play.
    assert chosen(children, 35, p, prune=False) == 2
    # Past A = 40 visits a third child is unpruned: the unvisited child 2.
    assert chosen(children, 41, p, prune=True) == 2
    # A PASS with a poor record is still eligible but not chosen.
    children[7] = child(10, 1, prior=-1.0)
    assert chosen(children, 35, p, prune=True) in (0, 1)


def test_pass_is_eligible_even_with_k_init_one_and_no_unpruning():
    children = [child(20, 2, prior=1.0)] + [child(0, prior=0.5 - 0.1 * i) for i in range(5)] + \
               [child(20, 18, prior=-1.0)]
    p = params(unprune_k_init=1.0, unprune_a=1e9, prune_visits=30.0)
    assert chosen(children, 40, p, prune=True) == 6


def test_rave_changes_the_choice_only_when_on():
    # Child 0: better own mean (0.6 vs 0.5) but poor all-moves-as-first mean (0.2 vs 0.8).
    children = [child(20, 12, rave_n=200, rave_w=40), child(20, 10, rave_n=200, rave_w=160),
                child(20, 2, prior=-1.0)]
    off = params(prune_visits=0.0, rave=0.0)
    on = params(prune_visits=0.0, rave=1.0, rave_equiv=1000.0)
    assert chosen(children, 60, off) == 0
    # beta = 200 / (20 + 200 + 20*200/1000) = 0.893: child 1 blends to 0.77, child 0 to 0.24.
    assert formula_choice(children, 60, on, range(3)) == 1
    assert chosen(children, 60, on) == 1
    # With a tiny equivalence the n*n~/equiv term makes beta small (0.047): own means decide.
    tiny = params(prune_visits=0.0, rave=1.0, rave_equiv=1.0)
    assert formula_choice(children, 60, tiny, range(3)) == 0
    assert chosen(children, 60, tiny) == 0


def test_rave_beta_boundary_matches_the_formula():
    """Sweep the RAVE equivalence across the point where the choice flips: the engine and
    the formula must flip at the same place (a beta computed differently, e.g. without the
    n*n~/equiv term or with n in place of n~, flips elsewhere)."""
    children = [child(30, 18, rave_n=100, rave_w=30), child(30, 15, rave_n=100, rave_w=60),
                child(30, 3, prior=-1.0)]
    flips = []
    for equiv in np.geomspace(1.0, 10000.0, 60):
        p = params(prune_visits=0.0, rave=1.0, rave_equiv=float(equiv))
        expected = formula_choice(children, 90, p, range(3))
        assert chosen(children, 90, p) == expected, f"equiv {equiv:.3g}"
        flips.append(expected)
    assert set(flips) == {0, 1}, "the sweep must cross the boundary"


# -- the soft start: sampling by exp(H) below T ---------------------------------------------------

def test_below_prune_visits_children_are_sampled_by_exp_h():
    priors = [1.0, 0.5, 0.0, -1.0]
    children = [child(3, 1, prior=h) for h in priors] + [child(0, prior=-2.0)]  # PASS last
    tree = hand_tree(children, 12)  # 12 < T = 30
    p = params()
    rng = make_rng(12345)
    draws = 20000
    counts = np.zeros(len(children), int)
    for _ in range(draws):
        counts[select_child(tree, 0, p, rng) - 1] += 1
    assert counts[-1] == 0, "PASS was sampled while other children exist"
    weights = np.exp(priors)
    expected = draws * weights / weights.sum()
    chi2 = float(np.sum((counts[:-1] - expected) ** 2 / expected))
    # 3 degrees of freedom: P(chi2 > 30) is about 1e-6.  A uniform sampler scores ~3000 here,
    # one proportional to H or leaving out a child far more.
    assert chi2 < 30, f"counts {counts[:-1].tolist()} vs expected {expected.round().tolist()}"


def test_sampling_ignores_the_statistics_below_prune_visits():
    # Same priors, wildly different records: frequencies still follow exp(H) only.
    children = [child(10, 0, prior=0.0), child(1, 1, prior=0.0), child(0, prior=-1.0)]
    tree = hand_tree(children, 11)
    rng = make_rng(7)
    counts = np.zeros(3, int)
    for _ in range(4000):
        counts[select_child(tree, 0, params(), rng) - 1] += 1
    assert counts[2] == 0
    assert abs(counts[0] - 2000) < 4 * math.sqrt(1000)  # binomial(4000, 0.5): sd ~ 32


def test_pass_is_sampled_when_it_is_the_only_child():
    tree = hand_tree([child(0, prior=0.0)], 3)
    assert select_child(tree, 0, params(), make_rng(1)) == 1


# -- progressive unpruning --------------------------------------------------------------------

def schedule(visits, n_child, k_init, a, b):
    """k_init children, plus one for each j >= 0 with A*B^j <= visits; capped at n_child."""
    k = k_init
    while k < n_child and a * b ** (k - k_init) <= visits:
        k += 1
    return min(k, n_child)


@pytest.mark.parametrize("visits, expected", [
    (0, 5), (30, 5), (39.9, 5), (40.1, 6), (51, 6), (53, 7), (67, 7), (68, 8), (87, 8), (88, 9),
    (114, 9), (115, 10), (1000, 5 + 13), (10 ** 6, 40),
])
def test_unpruning_schedule_at_chosen_visits(visits, expected):
    # A = 40, B = 1.3, k_init = 5: thresholds 40, 52, 67.6, 87.9, 114.2, ...; at 1000 visits
    # 40*1.3^j <= 1000 for j = 0..12 (1.3^12 = 23.3, 1.3^13 = 30.3), so 13 more children.
    p = params(unprune_k_init=5.0, unprune_a=40.0, unprune_b=1.3)
    assert schedule(visits, 40, 5, 40.0, 1.3) == expected
    assert unpruned_count(visits, 40, p) == expected


@pytest.mark.parametrize("k_init, a, b", [(5, 40, 1.3), (3, 50, 1.3), (10, 10, 2.0), (1, 1, 1.5)])
def test_unpruning_schedule_matches_the_formula_everywhere(k_init, a, b):
    p = params(unprune_k_init=float(k_init), unprune_a=float(a), unprune_b=float(b))
    for n_child in (1, 3, 20, 80):
        previous = 0
        for visits in list(range(0, 300)) + [10 ** 3, 10 ** 4, 10 ** 5]:
            got = unpruned_count(visits, n_child, p)
            assert got == schedule(visits, n_child, k_init, a, b), (n_child, visits)
            assert got >= previous       # never prunes again as visits grow
            previous = got


def test_unpruning_count_walked_on_from_a_known_count_is_the_same():
    """select_child keeps a node's count and walks the schedule on from it as visits grow:
    the count must be the formula's, from any smaller count it knew."""
    p = params(unprune_k_init=5.0, unprune_a=40.0, unprune_b=1.3)
    known = 0
    for visits in range(0, 3000, 7):
        known = unpruned_count(visits, 40, p, known)
        assert known == schedule(visits, 40, 5, 40.0, 1.3), visits
    for start in (0, 1, 5, 9):
        assert unpruned_count(100, 40, p, start) == schedule(100, 40, 5, 40.0, 1.3)


def test_selection_keeps_the_unpruned_count_in_the_node():
    """A pruned node's `allowed` holds the count reached at its visits after a selection."""
    children = [child(1, 1, prior=-0.1 * k) for k in range(12)]
    tree = hand_tree(children, 100, prune=True)
    p = params(prune_visits=0.0, unprune_k_init=5.0, unprune_a=40.0, unprune_b=1.3)
    assert tree.allowed[0] == 0
    select_child(tree, 0, p, make_rng(1))
    assert tree.allowed[0] == unpruned_count(100, 11, p) == 9


@pytest.mark.parametrize("k_init, n_child", [(10, 4), (30, 29), (6, 5), (100, 1)])
def test_k_init_larger_than_the_children(k_init, n_child):
    p = params(unprune_k_init=float(k_init))
    for visits in (0, 30, 40, 1000, 10 ** 6):
        assert unpruned_count(visits, n_child, p) == n_child


def test_without_narrowing_a_low_prior_child_with_the_best_value_is_chosen_early():
    """The 9x9 default (`unprune_k_init` 1000, session 69): every child competes from the
    first selection, so the child the prior ranks tenth but whose games went best is chosen at
    60 visits, where the schedule of k_init 5 still hides it (7 children eligible)."""
    children = [child(5, 1.0, prior=-0.1 * k) for k in range(11)] + [child(5, 1.0)]
    children[9] = child(5, 4.5, prior=-0.9)
    base = dict(prune_visits=0.0, uct_c=0.0, bias_weight=0.0, rave=0.0)
    narrowed = params(**base, unprune_k_init=5.0, unprune_a=40.0, unprune_b=1.3)
    assert unpruned_count(60, 11, narrowed) == 7
    assert select_child(hand_tree(children, 60, prune=True), 0, narrowed, make_rng(1)) != 10
    wide = params(**base, unprune_k_init=1000.0)
    assert select_child(hand_tree(children, 60, prune=True), 0, wide, make_rng(1)) == 10


def test_rave_skip_ignores_rave_in_that_share_of_selections():
    """With `rave_skip` s, a selection ignores RAVE with probability s: here RAVE makes child 0
    (mean 0.4, AMAF 0.9 over 500) the choice and the plain means make child 1 (mean 0.6,
    AMAF 0.1), so child 1's share of many selections estimates s; s = 0 never skips and
    s = 1 always does."""
    children = [child(50, 20, rave_n=500, rave_w=450), child(50, 30, rave_n=500, rave_w=50)]
    base = dict(prune_visits=0.0, uct_c=0.0, bias_weight=0.0, rave_equiv=2000.0)
    assert formula_choice(children, 100, params(**base, rave=1.0), range(2)) == 0
    assert formula_choice(children, 100, params(**base, rave=0.0), range(2)) == 1
    tree = hand_tree(children, 100)
    for share, expected in ((0.0, 0.0), (0.05, 0.05), (0.5, 0.5), (1.0, 1.0)):
        rng = make_rng(11)
        p = params(**base, rave=1.0, rave_skip=share)
        draws = 4000
        skipped = sum(select_child(tree, 0, p, rng) == 2 for _ in range(draws)) / draws
        # binomial(4000, s): sd at most 0.008
        assert abs(skipped - expected) < 0.03, (share, skipped)
