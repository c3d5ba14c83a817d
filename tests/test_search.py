"""The Monte-Carlo tree search (engine/search.py, engine/tree.py) and the player around it
(engine/player.py, engine/timecontrol.py).

Selection is checked on hand-built trees against the formula of Chaslot et al. (see
../shared/ALGORITHMS.md), evaluated here in plain Python:

    v + C*sqrt(ln n_p / n_k) + W*H_k/(n_k + 1),   v blended with RAVE by
    beta = n~ / (n + n~ + n*n~/equiv) when RAVE is on,

and every case also names the child a person working it out by hand expects, so that a
wrong formula in both places would still be caught.  Below `prune_visits` the child is
sampled with probability proportional to exp(H); that is checked with a chi-square bound.

Engine-level tests run whole searches on 5x5 with few playouts: determinism, tree reuse,
superko at the root, passing, resigning, cleanup, and memory over many moves.
"""
import math
import resource
import tracemalloc

import numpy as np
import pytest

from engine.search import mcts as search
from engine.core.board import BLACK, EMPTY, M_MOVES, M_NEMPTY, PASS, WHITE, new_board, play
from engine.core.coords import format_vertex, parse_vertex
from engine.play.game import Game, board_from_ascii, setup_board
from engine.play.player import RESIGN_AFTER, Engine, Settings
from engine.core.rng import make_rng
from engine.search.mcts import (P_BIAS, P_C, P_EXPAND, P_FPU, P_RAVE, P_RAVE_EQ, default_params, expand, run,
                                select_child, unpruned_count)
from engine.play.timecontrol import SAFETY_SECONDS, TimeControl
from engine.search.tree import T_FULL, T_NODES, allocate, best_child, find_child, new_tree, reuse
from policies import load_policy, policy_probabilities
from policies.kernel import NO_REPLIES, move_scores, playout_moves, uniform_policy

POLICY = uniform_policy()
SIZE = 5
POINTS = (SIZE + 2) ** 2


def at(vertex, size=SIZE):
    return parse_vertex(vertex, size)


def params(**values):
    """Default parameters with some replaced by name (see search.PARAMS)."""
    p = default_params()
    for name, value in values.items():
        p[search.PARAM_INDEX[name]] = value
    return p


# -- hand-built trees -----------------------------------------------------------------------

def hand_tree(children, parent_visits, prune=False):
    """A root (node 0) with `parent_visits` visits and the given children at nodes 1..n, in
    the given order (callers list them by H, best first, with PASS last as `expand` does).
    Each child is a dict: visits, wins, prior and optionally rave_n, rave_w.  The root is
    marked never-pruned unless `prune`."""
    tree = new_tree(64, POINTS)
    n = len(children)
    tree.child_start[0] = 1
    tree.n_child[0] = n
    tree.allowed[0] = 0 if prune else n
    tree.visits[0] = parent_visits
    tree.meta[T_NODES] = 1 + n
    for i, ch in enumerate(children):
        k = 1 + i
        tree.move[k] = PASS if i == n - 1 else 10 + i
        tree.parent[k] = 0
        tree.visits[k] = ch.get("visits", 0)
        tree.wins[k] = ch.get("wins", 0.0)
        tree.prior[k] = ch.get("prior", 0.0)
        tree.rave_n[k] = ch.get("rave_n", 0.0)
        tree.rave_w[k] = ch.get("rave_w", 0.0)
    return tree


def child(visits=0, wins=0.0, prior=0.0, rave_n=0.0, rave_w=0.0):
    return dict(visits=visits, wins=wins, prior=prior, rave_n=rave_n, rave_w=rave_w)


def formula_choice(children, n_p, p, eligible):
    """Index (0-based) of the child the documented rule picks among `eligible` indices:
    argmax of v + C*sqrt(ln n_p/n) + W*H/(n+1) over visited children, v blended with RAVE
    when on; unvisited children score first-play-urgency + W*H (so that they come first, in
    H order).  Ties go to the earlier child."""
    C, W, fpu, equiv = p[P_C], p[P_BIAS], p[P_FPU], p[P_RAVE_EQ]
    log_np = math.log(max(n_p, 1))
    best, best_score = None, -math.inf
    for i in eligible:
        ch = children[i]
        n, rn = ch["visits"], ch["rave_n"]
        if n == 0:
            if p[P_RAVE] > 0 and rn > 0:
                score = ch["rave_w"] / rn + C * math.sqrt(log_np) + W * ch["prior"]
            else:
                score = fpu + W * ch["prior"]
        else:
            v = ch["wins"] / n
            if p[P_RAVE] > 0 and rn > 0:
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


@pytest.mark.parametrize("k_init, n_child", [(10, 4), (30, 29), (6, 5), (100, 1)])
def test_k_init_larger_than_the_children(k_init, n_child):
    p = params(unprune_k_init=float(k_init))
    for visits in (0, 30, 40, 1000, 10 ** 6):
        assert unpruned_count(visits, n_child, p) == n_child


# -- expansion --------------------------------------------------------------------------------

# Black has an eye at A5, White eyes at D2 and E1: each is its owner's own eye and suicide
# for the other colour.
EYES = """
. X . . .
X X . . .
. . . O .
. . O . O
. . . O .
"""


def expanded(board, colour, exclude=()):
    tree = new_tree(256, POINTS)
    ex = np.zeros(POINTS, np.int8)
    for p in exclude:
        ex[p] = 1
    ok = expand(tree, 0, board, colour, POLICY, default_params(), np.zeros(POINTS), ex)
    return ok, tree


def children_of(tree, node=0):
    first, n = int(tree.child_start[node]), int(tree.n_child[node])
    return [int(m) for m in tree.move[first:first + n]]


def empties(board):
    return {int(p) for p in board.empties[:int(board.meta[M_NEMPTY])]}


@pytest.mark.parametrize("colour", [BLACK, WHITE])
def test_expand_creates_legal_non_eye_moves_and_pass_last(colour):
    board = board_from_ascii(EYES)
    ok, tree = expanded(board, colour)
    assert ok
    moves = children_of(tree)
    assert moves[-1] == PASS and PASS not in moves[:-1]
    assert len(set(moves)) == len(moves)
    assert set(moves[:-1]) == empties(board) - {at("A5"), at("D2"), at("E1")}
    n = len(moves)
    assert tree.child_start[0] == 1 and tree.meta[T_NODES] == 1 + n
    first = 1
    assert all(tree.parent[first:first + n] == 0)
    assert all(tree.visits[first:first + n] == 0) and all(tree.n_child[first:first + n] == 0)
    priors = tree.prior[first:first + n]
    assert all(np.diff(priors) <= 0), "children must be sorted by H, best first"
    assert priors[-1] < priors[0], "PASS comes after every move by H"
    # The uniform policy's H is flat: the node is marked never to be pruned.
    assert tree.allowed[0] == n


def test_expand_on_an_empty_board_and_with_exclusions():
    board = new_board(SIZE)
    ok, tree = expanded(board, BLACK)
    assert ok and len(children_of(tree)) == SIZE * SIZE + 1
    ok, tree = expanded(board, BLACK, exclude=[at("C3"), at("A1")])
    moves = children_of(tree)
    assert at("C3") not in moves and at("A1") not in moves
    assert len(moves) == SIZE * SIZE - 1


def test_expand_with_no_move_left_gives_pass_alone():
    board = board_from_ascii("""
        X X X X X
        X . X X X
        X X X X X
        X X X . X
        X X X X X""")
    for colour in (BLACK, WHITE):
        ok, tree = expanded(board, colour)
        assert ok and children_of(tree) == [PASS]
        assert tree.allowed[0] == 1


def test_expand_normalises_priors_and_seeds_rave_with_the_policy():
    """Priors are H minus the best child's H; with RAVE on and prior_visits, every child starts
    with that many virtual AMAF games won at sigmoid(gain * (H - log mean exp H))."""
    pol = load_policy("handcrafted", SIZE)
    board = board_from_ascii(EYES)
    h = np.zeros(POINTS)
    move_scores(board, BLACK, pol, h)
    for rave, prior_n in ((0.0, 20.0), (1.0, 0.0), (1.0, 20.0)):
        tree = new_tree(256, POINTS)
        p = params(rave=rave, prior_visits=prior_n, prior_gain=0.7)
        assert expand(tree, 0, board, BLACK, pol, p, np.zeros(POINTS), np.zeros(POINTS, np.int8))
        first, n = int(tree.child_start[0]), int(tree.n_child[0])
        moves = [int(m) for m in tree.move[first:first + n - 1]]
        hs = np.array([h[m] for m in moves])
        assert tree.prior[first] == 0.0
        np.testing.assert_allclose(tree.prior[first:first + n - 1], hs - hs.max())
        assert tree.prior[first + n - 1] < tree.prior[first:first + n - 1].min()  # PASS last
        rn, rw = tree.rave_n[first:first + n], tree.rave_w[first:first + n]
        if rave == 0.0 or prior_n == 0.0:
            assert not rn.any() and not rw.any()
            continue
        assert np.all(rn == prior_n)
        mean = np.log(np.mean(np.exp(hs - hs.max())))
        expected = 1.0 / (1.0 + np.exp(-0.7 * (tree.prior[first:first + n] - mean)))
        np.testing.assert_allclose(rw / rn, expected)
        assert rw[0] / rn[0] > 0.5 > rw[n - 1] / rn[n - 1]


def test_a_fixed_prior_center_does_not_depend_on_the_other_moves():
    """With prior_center >= 0 a child's virtual win rate is sigmoid(gain * (H - centre)) in
    absolute H, so one overwhelming move (a capture) leaves the others' priors alone."""
    pol = load_policy("handcrafted", SIZE)
    board = board_from_ascii(EYES)
    h = np.zeros(POINTS)
    move_scores(board, BLACK, pol, h)
    tree = new_tree(256, POINTS)
    p = params(prior_visits=20.0, prior_gain=0.7, prior_center=1.5)
    assert expand(tree, 0, board, BLACK, pol, p, np.zeros(POINTS), np.zeros(POINTS, np.int8))
    first, n = int(tree.child_start[0]), int(tree.n_child[0])
    hs = np.array([h[int(m)] for m in tree.move[first:first + n - 1]])
    rn, rw = tree.rave_n[first:first + n - 1], tree.rave_w[first:first + n - 1]
    np.testing.assert_allclose(rw / rn, 1.0 / (1.0 + np.exp(-0.7 * (hs - 1.5))))


BLACK_TWO_EYES = """
. X . X X
X X X X X
X X X X X
X X X X X
X X X X X
"""


@pytest.mark.parametrize("weight, scale", [(0.0, 20.0), (1.0, 20.0), (0.5, 20.0), (0.5, 10.0)])
def test_score_weight_blends_the_margin_into_the_result(weight, scale):
    """Black owns all 25 points for good (two eyes, nothing left to play): with komi 7 every
    simulation is a win by 18, worth (1 - w) + w * (1 + min(18 / scale, 1)) / 2 to Black."""
    tree = new_tree(256, POINTS)
    p = params(score_weight=weight, score_scale=scale)
    run(tree, board_from_ascii(BLACK_TWO_EYES), BLACK, POLICY, POLICY, p, 7.0, 10, make_rng(0), np.zeros(POINTS, np.int8))
    first = int(tree.child_start[0])
    assert children_of(tree) == [PASS] and tree.visits[first] == 10
    expected = (1.0 - weight) + weight * 0.5 * (1.0 + min(18.0 / scale, 1.0))
    assert tree.wins[first] / tree.visits[first] == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(4))
def test_rave_credits_the_moves_of_the_playout(seed):
    """One simulation from the root with expansion off: the root's first child (by H, chosen
    deterministically with prune_visits 0) is played, then a playout.  Each root child whose
    point was first played (tree move or playout move) by the root's player gets one AMAF game
    with the result (unweighted: rave_decay 0); no other child does.  The playout is replayed
    from the same rng state."""
    board = board_from_ascii(EYES)
    p = params(rave=1.0, prior_visits=0.0, prune_visits=0.0, expand_visits=1e9, rave_decay=0.0)
    tree = new_tree(256, POINTS)
    run(tree, board, BLACK, POLICY, POLICY, p, 0.5, 1, make_rng(seed), np.zeros(POINTS, np.int8))
    first, n = int(tree.child_start[0]), int(tree.n_child[0])
    chosen = [k for k in range(first, first + n) if tree.visits[k] == 1]
    assert len(chosen) == 1
    work = board_from_ascii(EYES)
    move = int(tree.move[chosen[0]])
    play(work, move, BLACK)
    record = np.full(4 * POINTS, -3, np.int32)
    before = int(work.meta[M_MOVES])
    score = playout_moves(work, WHITE, make_rng(seed), np.zeros(POINTS, np.int8), POLICY, record, NO_REPLIES)
    sequence = [move] + [int(m) for m in record[:int(work.meta[M_MOVES]) - before]]
    first_by = {}
    for j, m in enumerate(sequence):
        if m != PASS and m not in first_by:
            first_by[m] = BLACK if j % 2 == 0 else WHITE
    black_won = 1.0 if score > 0.5 else 0.0
    credited = {int(tree.move[k]) for k in range(first, first + n) if tree.rave_n[k] > 0}
    expected = {m for m, c in first_by.items() if c == BLACK}
    assert credited == expected & {int(m) for m in tree.move[first:first + n]}
    assert len(credited) > 1, "the playout's moves must count, not only the tree's"
    for k in range(first, first + n):
        if tree.rave_n[k] > 0:
            assert tree.rave_n[k] == 1.0 and tree.rave_w[k] == black_won


# -- last good replies ------------------------------------------------------------------------

def expected_replies(sequence, first_colour, black_won, start=None):
    """LGRF-1 by hand: the winner's moves become replies to the moves before them; a loser's
    stored reply equal to its move is forgotten."""
    table = {} if start is None else dict(start)
    winner = BLACK if black_won else WHITE
    for j in range(1, len(sequence)):
        prev, m = sequence[j - 1], sequence[j]
        if prev == PASS or m == PASS:
            continue
        c = first_colour if j % 2 == 0 else 3 - first_colour
        if c == winner:
            table[(c, prev)] = m
        elif table.get((c, prev)) == m:
            del table[(c, prev)]
    return table


def reply_table(tree):
    return {(c + 1, p): int(tree.replies[c, p]) for c in range(2) for p in range(POINTS)
            if tree.replies[c, p] != PASS}


@pytest.mark.parametrize("seed", range(4))
def test_last_good_replies_are_the_winners_moves_of_the_simulation(seed):
    """One simulation with lgr on (no expansion: one tree move, then the playout), replayed:
    the table holds exactly the winner's replies, and a stored reply of the loser's that the
    simulation played is forgotten."""
    board = board_from_ascii(EYES)
    p = params(lgr=1.0, prune_visits=0.0, expand_visits=1e9)
    tree = new_tree(256, POINTS)
    run(tree, board, BLACK, POLICY, POLICY, p, 0.5, 1, make_rng(seed), np.zeros(POINTS, np.int8))
    first, n = int(tree.child_start[0]), int(tree.n_child[0])
    move = int(tree.move[[k for k in range(first, first + n) if tree.visits[k] == 1][0]])
    work = board_from_ascii(EYES)
    play(work, move, BLACK)
    record = np.full(4 * POINTS, -3, np.int32)
    before = int(work.meta[M_MOVES])
    score = playout_moves(work, WHITE, make_rng(seed), np.zeros(POINTS, np.int8), POLICY, record,
                          np.full((2, POINTS), PASS, np.int32))
    sequence = [move] + [int(m) for m in record[:int(work.meta[M_MOVES]) - before]]
    table = expected_replies(sequence, BLACK, score > 0.5)
    assert len(table) > 3 and reply_table(tree) == table


def test_last_good_replies_forget_the_losers_moves():
    """Hand-made simulation: Black (first) wins, so Black's replies are stored and White's
    stored replies that it played are dropped; other stored replies stay."""
    a, b, c, d, e = (at(v) for v in ("A1", "B2", "C3", "D4", "E5"))
    replies = np.full((2, POINTS), PASS, np.int32)
    replies[WHITE - 1, a] = b          # White's answer to A1 was B2, and it loses again: forget
    replies[WHITE - 1, c] = a          # White's answer to C3 was A1, but it plays D4 now: keep
    replies[BLACK - 1, e] = a          # untouched
    moves = np.array([a, b, c, d, PASS, e, -3], np.int32)
    search._update_replies(replies, moves, 6, BLACK, 1.0)
    table = {(k + 1, p): int(replies[k, p]) for k in range(2) for p in range(POINTS)
             if replies[k, p] != PASS}
    assert table == {(BLACK, b): c, (WHITE, c): a, (BLACK, e): a}
    assert table == expected_replies([a, b, c, d, PASS, e], BLACK, True,
                                     {(WHITE, a): b, (WHITE, c): a, (BLACK, e): a})


@pytest.mark.parametrize("weights", ["uniform", "handcrafted"])
def test_playouts_answer_with_a_usable_stored_reply_only(weights):
    """A stored reply to the last move is played at once; an occupied one is ignored, leaving
    the very game played without a table."""
    size, points = 9, 121
    pol = load_policy(weights, size)
    start = new_board(size)
    play(start, parse_vertex("E5", size), BLACK)

    def first_moves(replies, seed=3):
        b = new_board(size)
        play(b, parse_vertex("E5", size), BLACK)
        record = np.full(400, -3, np.int32)
        playout_moves(b, WHITE, make_rng(seed), np.zeros(points, np.int8), pol, record, replies)
        return [int(m) for m in record[:20]]

    table = np.full((2, points), PASS, np.int32)
    table[WHITE - 1, parse_vertex("E5", size)] = parse_vertex("J9", size)
    assert first_moves(table)[0] == parse_vertex("J9", size)
    plain = first_moves(NO_REPLIES)
    table[WHITE - 1, parse_vertex("E5", size)] = parse_vertex("E5", size)   # occupied
    assert first_moves(table) == plain


def tree_arrays(tree):
    return [a.copy() for a in tree]


def test_expand_refuses_when_the_pool_is_full_and_leaves_the_tree_intact():
    tree = new_tree(16, POINTS)          # 26 children of the empty 5x5 board do not fit
    tree.visits[0] = 5
    before = tree_arrays(tree)
    ok = expand(tree, 0, new_board(SIZE), BLACK, POLICY, default_params(), np.zeros(POINTS),
                np.zeros(POINTS, np.int8))
    assert not ok
    after = tree_arrays(tree)
    for name, x, y in zip(tree._fields, before, after):
        if name == "meta":
            assert y[T_NODES] == x[T_NODES] and y[T_FULL] == x[T_FULL] + 1
        else:
            assert np.array_equal(x, y), name


@pytest.mark.parametrize("capacity", [16, 30])
def test_run_keeps_searching_when_the_pool_is_full(capacity):
    """16 nodes: not even the root's 26 children fit; 30: the root expands, nothing else does.
    Either way every simulation is run and counted, and refusals are counted in T_FULL."""
    tree = new_tree(capacity, POINTS)
    board = new_board(SIZE)
    count = 500
    done = run(tree, board, BLACK, POLICY, POLICY, default_params(), 7.5, count, make_rng(3),
               np.zeros(POINTS, np.int8))
    assert done == count
    assert tree.visits[0] == count
    assert tree.meta[T_NODES] <= capacity
    assert tree.meta[T_FULL] > 0
    if capacity == 16:
        assert tree.n_child[0] == 0
    else:
        first, n = tree.child_start[0], tree.n_child[0]
        assert n == 26
        assert tree.visits[first:first + n].sum() == count
        assert all(tree.n_child[first:first + n] == 0)
    assert np.array_equal(board.color, new_board(SIZE).color), "run must not change the root board"
    # Ownership was still gathered from every playout.
    assert (tree.owned[0] + tree.owned[1]).max() <= count
    assert (tree.owned[0] + tree.owned[1]).sum() > 0


def test_run_grows_a_consistent_tree():
    tree = new_tree(20000, POINTS)
    run(tree, new_board(SIZE), BLACK, POLICY, POLICY, default_params(), 7.5, 3000, make_rng(5),
        np.zeros(POINTS, np.int8))
    n = int(tree.meta[T_NODES])
    assert n > 100 and tree.meta[T_FULL] == 0
    for node in range(n):
        first, count = int(tree.child_start[node]), int(tree.n_child[node])
        if count == 0:
            continue
        kids = range(first, first + count)
        assert all(tree.parent[k] == node for k in kids)
        assert tree.move[first + count - 1] == PASS
        # Every visit but the one that expanded the node (and those before) went to a child.
        assert tree.visits[first:first + count].sum() <= tree.visits[node]
        assert tree.visits[node] - tree.visits[first:first + count].sum() <= search.default_params()[P_EXPAND]
        assert all(0 <= tree.wins[k] <= tree.visits[k] for k in kids)


# -- reuse, find_child, best_child ---------------------------------------------------------------

def grown_tree(sims=3000, seed=5, capacity=20000):
    tree = new_tree(capacity, POINTS)
    run(tree, new_board(SIZE), BLACK, POLICY, POLICY, default_params(), 7.5, sims, make_rng(seed),
        np.zeros(POINTS, np.int8))
    return tree


def subtree(tree, node):
    """Nested (move, visits, wins, prior, allowed, rave_n, rave_w, [children]) of `node`."""
    first, count = int(tree.child_start[node]), int(tree.n_child[node])
    return (int(tree.move[node]), int(tree.visits[node]), float(tree.wins[node]),
            float(tree.prior[node]), int(tree.allowed[node]), float(tree.rave_n[node]),
            float(tree.rave_w[node]), [subtree(tree, k) for k in range(first, first + count)])


def size_of(sub):
    return 1 + sum(size_of(s) for s in sub[7])


def check_links(tree):
    n = int(tree.meta[T_NODES])
    assert tree.parent[0] == -1
    seen = {0}
    for node in range(n):
        first, count = int(tree.child_start[node]), int(tree.n_child[node])
        for k in range(first, first + count):
            assert tree.parent[k] == node
            assert k not in seen
            seen.add(k)
    assert seen == set(range(n)), "every node in use is reached exactly once"


def test_reuse_copies_the_subtree_exactly():
    src = grown_tree()
    root_first = int(src.child_start[0])
    new_root = int(best_child(src, 0))
    assert new_root >= root_first
    expected = subtree(src, new_root)
    assert len(expected[7]) > 0, "the chosen child must have been expanded"
    dst = new_tree(20000, POINTS)
    dst.visits[5] = 99                        # garbage from an earlier use must not survive
    used = reuse(src, new_root, dst)
    assert used == size_of(expected) == dst.meta[T_NODES]
    assert subtree(dst, 0) == expected
    assert dst.visits[0] == src.visits[new_root] and dst.wins[0] == src.wins[new_root]
    assert dst.move[0] == src.move[new_root]
    check_links(dst)
    assert dst.owned.sum() == 0               # ownership starts afresh
    # The source is untouched and reuse of the root copies everything.
    whole = new_tree(20000, POINTS)
    assert reuse(src, 0, whole) == src.meta[T_NODES]
    assert subtree(whole, 0) == subtree(src, 0)


def test_reuse_into_a_small_pool_truncates_cleanly():
    src = grown_tree()
    dst = new_tree(40, POINTS)
    used = reuse(src, 0, dst)
    assert used <= 40 and dst.meta[T_NODES] == used
    check_links(dst)
    # The root's 26 children fit; grandchildren blocks that did not fit are cut at their parent.
    assert dst.n_child[0] == src.n_child[0]
    full = subtree(src, 0)

    def check(sub_dst, sub_src):
        assert sub_dst[:4] == sub_src[:4]
        if sub_dst[7]:
            assert len(sub_dst[7]) == len(sub_src[7])
            for a, b in zip(sub_dst[7], sub_src[7]):
                check(a, b)
    check(subtree(dst, 0), full)
    # A search can go on in the truncated tree.
    run(dst, new_board(SIZE), BLACK, POLICY, POLICY, default_params(), 7.5, 200, make_rng(1), np.zeros(POINTS, np.int8))
    assert dst.visits[0] == src.visits[0] + 200


def test_find_child_and_best_child():
    children = [child(10, 4), child(30, 10), child(30, 20), child(0), child(5, 5)]
    tree = hand_tree(children, 75)
    assert find_child(tree, 0, 10) == 1 and find_child(tree, 0, 13) == 4
    assert find_child(tree, 0, PASS) == 5
    assert find_child(tree, 0, 99) == -1
    assert find_child(tree, 3, 10) == -1          # a leaf has no children
    # Most visited; the tie between nodes 2 and 3 (30 visits) goes to the higher win rate.
    assert best_child(tree, 0) == 3
    tree.wins[3] = 5.0
    assert best_child(tree, 0) == 2
    unvisited = hand_tree([child(0), child(0)], 0)
    assert best_child(unvisited, 0) == -1
    assert best_child(tree, 1) == -1


# -- the engine ----------------------------------------------------------------------------------

def engine(size=SIZE, komi=7.5, **settings):
    settings.setdefault("max_nodes", 20000)
    settings.setdefault("resign", 0.0)
    return Engine(size, komi, Settings(**settings))


def stats_of(e):
    return [(s.move, s.visits, round(s.winrate, 12), s.pv) for s in e.root_stats()]


OPENING = [(BLACK, "C3"), (WHITE, "C4"), (BLACK, "D4")]


@pytest.mark.parametrize("threads", [1, 2])
def test_same_seed_and_playouts_give_the_same_decisions(threads):
    runs = []
    for _ in range(2):
        e = engine(playouts=400, seed=11, threads=threads)
        record = []
        for colour, v in OPENING:
            e.game.play(colour, at(v))
        for _ in range(4):
            colour = e.game.to_play
            m = e.genmove(colour)
            record.append((m, stats_of(e)))
            e.game.play(colour, m)
        runs.append(record)
    assert runs[0] == runs[1]
    assert sum(v for _, v, _, _ in runs[0][0][1]) == 400
    other = engine(playouts=400, seed=12, threads=threads)
    for colour, v in OPENING:
        other.game.play(colour, at(v))
    other.genmove(other.game.to_play)
    assert stats_of(other) != runs[0][0][1], "a different seed should give different statistics"


def test_tree_is_reused_across_moves():
    e = engine(playouts=600, seed=3)
    m = e.genmove(BLACK)
    t = e._threads[0].tree
    node = find_child(t, 0, m)
    carried = int(t.visits[node])
    assert carried > 0
    e.game.play(BLACK, m)
    e.search(WHITE, total=300)
    assert e._threads[0].tree.visits[0] == carried + 300
    # Two moves on (our reply and theirs): the grandchild's visits are carried.
    t = e._threads[0].tree
    reply = e.root_stats()[0].move
    r_node = find_child(t, 0, reply)
    answer = best_child(t, r_node)
    assert answer > 0
    answer_move, carried2 = int(t.move[answer]), int(t.visits[answer])
    e.game.play(WHITE, reply)
    e.game.play(BLACK, answer_move)
    e.search(WHITE, total=100)
    assert e._threads[0].tree.visits[0] == carried2 + 100
    # An unrelated move order (undo and a different move) starts afresh.
    e.game.undo()
    e.game.undo()
    e.game.play(WHITE, at("A1") if reply != at("A1") else at("E5"))
    e.search(BLACK, total=100)
    assert e._threads[0].tree.visits[0] == 100


def test_pondering_grows_the_tree_used_after_the_opponents_move():
    e = engine(playouts=200, seed=6)
    m = e.genmove(BLACK)
    e.game.play(BLACK, m)
    polls = []

    def enough():
        polls.append(1)
        return e._threads[0].tree.visits[0] >= 500

    e.ponder(enough)
    t = e._threads[0].tree
    assert polls and t.visits[0] >= 500
    reply = e.root_stats()[0].move
    carried = int(t.visits[find_child(t, 0, reply)])
    assert carried > 0
    e.game.play(WHITE, reply)
    e.genmove(BLACK)
    assert e._threads[0].tree.visits[0] == carried + 200


def test_tree_is_not_reused_for_a_different_position_with_the_same_moves():
    """The tree stands for a position: a set-up position (loadsgf with AB/AW stones, no
    moves) must not inherit the tree of the empty board just because neither has moves.
    Otherwise genmove can answer a point that is occupied."""
    e = engine(playouts=3000, seed=1)
    e.search(BLACK, total=3000)
    best = e.root_stats()[0].move
    e.game.reset(board=setup_board(SIZE, black=[], white=[best]))
    e.settings.playouts = 50
    m = e.genmove(BLACK)
    assert m == PASS or e.game.board.color[m] == EMPTY, \
        f"genmove answered {format_vertex(m, SIZE)}, which is occupied"
    assert e._threads[0].tree.visits[0] == 50


def test_loadsgf_of_a_setup_position_after_a_search_through_gtp(tmp_path, run_simbal, parse_gtp,
                                                                read_board):
    """The same through gtp_main.py: search the empty board, load an SGF with a white stone
    on C3 (no moves, Black to play), ask for a move.  The engine must survive (descending into
    the stale child C3 plays on an occupied point inside compiled code) and answer an empty
    point."""
    sgf_path = tmp_path / "setup.sgf"
    sgf_path.write_text("(;GM[1]FF[4]SZ[5]KM[7.5]AW[cc]PL[B])")
    transcript = (f"boardsize 5\nclear_board\nreg_genmove b\nloadsgf {sgf_path}\ngenmove b\n"
                  "showboard\nquit\n").encode()
    proc = run_simbal(transcript, "--size", "5", "--seed", "3", playouts=2000)
    assert proc.returncode == 0, f"engine died with code {proc.returncode}"
    responses = parse_gtp(proc.stdout.decode())
    assert len(responses) == 7 and all(r.ok for r in responses), responses
    move = responses[4].body
    assert read_board(responses[5].body) == {"C3": "O", move.upper(): "X"}


def test_komi_change_drops_the_tree():
    """Win rates depend on komi: a tree searched under another komi must not be reused."""
    e = engine(playouts=200, seed=2)
    e.search(BLACK, total=200)
    e.game.komi = -30.5
    e.search(BLACK, total=100)
    assert e._threads[0].tree.visits[0] == 100


KO = """
. . . . .
. X O . .
X O . O .
. X O . .
. . . . .
"""


def superko_game():
    """Black took the ko at C3, both passed: White's retake at B3 would repeat the start."""
    g = Game(SIZE, 0.5)
    g.reset(board=board_from_ascii(KO))
    g.play(BLACK, at("C3"))
    g.play(WHITE, PASS)
    g.play(BLACK, PASS)
    assert g.illegal_reason(WHITE, at("B3")) == "superko"
    return g


@pytest.mark.parametrize("seed", range(6))
def test_superko_forbidden_root_moves_are_never_chosen(seed):
    e = engine(playouts=300, seed=seed, komi=0.5)
    e.game = superko_game()
    assert at("B3") not in e.candidates(WHITE)
    for threads in (1, 2):
        e.settings.threads = threads
        e.search(WHITE, total=300)
        assert at("B3") not in [s.move for s in e.root_stats()]
        for s in e._threads:
            assert find_child(s.tree, 0, at("B3")) < 0
        m = e.genmove(WHITE)
        assert m != at("B3")
        if m is not None:
            assert e.game.is_legal(WHITE, m)


def test_superko_exclusion_survives_an_earlier_search_of_the_same_position():
    """A tree grown before the repetition became forbidden (e.g. by analysis of the same moves
    but another history) must not bring the forbidden move back."""
    e = engine(playouts=200, seed=4, komi=0.5)
    e.game = superko_game()
    e.search(WHITE, total=200)
    e.search(WHITE, total=200)        # the same position again
    assert find_child(e._threads[0].tree, 0, at("B3")) < 0


FILLED = """
X X X X X
X . X X X
X X X X X
X X X . X
X X X X X
"""

# Black owns three columns, White two; komi 0.5: Black wins by 4.5.
SETTLED = """
. . X O .
. . X O .
. . X O .
. . X O .
. . X O .
"""


@pytest.mark.parametrize("colour", [BLACK, WHITE])
def test_genmove_passes_with_no_useful_move(colour):
    e = engine(playouts=50)
    e.game.reset(board=board_from_ascii(FILLED))
    assert e.genmove(colour) == PASS


@pytest.mark.parametrize("seed", range(3))
def test_genmove_passes_after_the_opponent_passed_when_winning(seed):
    e = engine(playouts=100, seed=seed, komi=0.5)
    e.game.reset(board=board_from_ascii(SETTLED))
    e.game.play(WHITE, PASS)
    assert e.genmove(BLACK) == PASS
    # Losing (komi 10.5): it keeps playing instead.
    e.game.komi = 10.5
    assert e.genmove(BLACK) != PASS


def play_to_move_count(e, n):
    """Play a quiet opening on 5x5 (corners and edges) until `n` moves are on the record."""
    seq = ["A1", "E5", "A5", "E1", "B1", "D5", "A2", "E4", "C1", "C5", "A4", "E2"]
    colour = BLACK
    for v in seq[:n]:
        e.game.play(colour, at(v))
        colour = WHITE if colour == BLACK else BLACK


def test_resigns_only_after_two_low_decisions_past_the_opening():
    e = engine(playouts=60, seed=1, komi=50.0, resign=0.1)   # Black cannot win with komi 50
    assert RESIGN_AFTER * SIZE * SIZE < 8
    play_to_move_count(e, 8)
    first = e.genmove(BLACK)
    assert first is not None, "resigned on the first low decision"
    e.game.play(BLACK, first)
    e.game.play(WHITE, PASS if first == PASS else e.candidates(WHITE)[0])
    assert e.genmove(BLACK) is None


def test_never_resigns_in_the_opening():
    e = engine(playouts=60, seed=1, komi=50.0, resign=0.1)
    for _ in range(3):
        m = e.genmove(BLACK)
        assert m is not None
        assert len(e.game.moves) < RESIGN_AFTER * SIZE * SIZE


def test_never_resigns_with_resign_zero():
    e = engine(playouts=60, seed=1, komi=50.0, resign=0.0)
    play_to_move_count(e, 8)
    for _ in range(4):
        m = e.genmove(BLACK)
        assert m is not None
        e.game.play(BLACK, m)
        e.game.play(WHITE, PASS)


def test_should_resign_needs_two_low_decisions_running():
    e = engine(resign=0.2)
    play_to_move_count(e, 10)
    assert [e._should_resign(w) for w in (0.1, 0.5, 0.1, 0.1, 0.1, 0.3, 0.19)] == \
        [False, False, False, True, True, False, False]
    e.settings.resign = 0.0
    assert [e._should_resign(w) for w in (0.0, 0.0, 0.0)] == [False, False, False]
    opening = engine(resign=0.2)
    assert [opening._should_resign(w) for w in (0.0, 0.0, 0.0)] == [False, False, False]


# A white stone dead inside Black's area; Black wins easily with it removed.
DEAD_STONE = """
. . X O .
O . X O .
. . X O .
. . X O .
. . X O .
"""


def test_cleanup_does_not_pass_while_dead_stones_remain():
    e = engine(playouts=60, seed=2, komi=0.5)
    e.game.reset(board=board_from_ascii(DEAD_STONE))
    stone = at("A4")
    e.game.play(WHITE, PASS)
    assert e.genmove(BLACK) == PASS, "without cleanup, a won game after a pass is passed"
    for _ in range(30):
        if e.game.board.color[stone] != WHITE:
            break
        m = e.genmove(BLACK, cleanup=True)
        assert m is not None and m != PASS, "passed in cleanup with a dead white stone on the board"
        e.game.play(BLACK, m)
        e.game.play(WHITE, PASS)
    assert e.game.board.color[stone] == EMPTY, "cleanup never captured the dead stone"
    assert e.genmove(BLACK, cleanup=True) == PASS


def test_memory_stays_flat_over_many_moves():
    """A thousand genmove/play cycles on 5x5 (games restarted when they end): the trees stay
    the same two pools per thread, Python-side allocations do not grow, and neither does the
    peak RSS (which also covers compiled code's own allocations)."""
    e = engine(playouts=20, seed=9, max_nodes=4096)

    def cycles(n):
        for _ in range(n):
            colour = e.game.to_play
            m = e.genmove(colour)
            if m is None or e.game.last_two_passed() or len(e.game.moves) >= 60:
                e.game.reset()
                continue
            e.game.play(colour, m)
            if e.game.last_two_passed():
                e.game.reset()

    cycles(200)
    pools = {id(a) for s in e._threads for a in (s.tree.move, s.spare.move if s.spare else None)}
    e.game.reset()
    tracemalloc.start()
    try:
        cycles(50)
        e.game.reset()
        base, _ = tracemalloc.get_traced_memory()
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        cycles(1000)
        e.game.reset()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert len(e._threads) == 1
    assert {id(a) for s in e._threads for a in (s.tree.move, s.spare.move if s.spare else None)} <= pools
    assert end - base < 256 * 1024, f"Python allocations grew by {(end - base) / 1024:.0f} KiB"
    assert rss_after - rss_before < 20 * 1024, f"peak RSS grew by {(rss_after - rss_before) / 1024:.1f} MiB"


# -- time control ---------------------------------------------------------------------------------

def test_no_time_settings_means_no_budget():
    tc = TimeControl()
    assert tc.budget(BLACK, 0, 81) is None
    tc.set_canadian(300, 30, 0)              # byo-yomi time with no stones: no limit (GTP)
    assert tc.budget(BLACK, 10, 81) is None
    tc.set_canadian(300, 0, 0)
    assert tc.budget(BLACK, 10, 81) is not None
    tc.set_none()
    assert tc.budget(BLACK, 10, 81) is None


@pytest.mark.parametrize("main, points", [(60, 81), (300, 81), (900, 361), (30, 25)])
def test_absolute_time_spends_most_in_the_middle_game(main, points):
    tc = TimeControl()
    tc.set_canadian(main, 0, 0)
    expected_game = 0.9 * points + 20
    left, spent = float(main), {}
    for k in range(0, int(expected_game) + 1, 2):
        b = tc.budget(BLACK, k, points)
        spent[k] = b
        left -= b
        tc.time_left(BLACK, left, 0)
    phase = {k: k / expected_game for k in spent}
    opening = [b for k, b in spent.items() if phase[k] < 0.2]
    middle = [b for k, b in spent.items() if 0.2 <= phase[k] <= 0.5]
    endgame = [b for k, b in spent.items() if phase[k] > 0.5]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    assert mean(middle) > mean(opening)
    assert mean(middle) > mean(endgame)
    # At the same remaining time, the middle game's move gets more than the opening's.
    tc.time_left(BLACK, main, 0)
    assert tc.budget(BLACK, int(0.3 * expected_game), points) > tc.budget(BLACK, 0, points)


@pytest.mark.parametrize("remaining", [0.5, 1.0, 2.0, 5.0, 30.0, 300.0, 3600.0])
@pytest.mark.parametrize("moves", [0, 20, 40, 80, 200, 400])
def test_absolute_budget_never_exceeds_remaining_time_minus_margin(remaining, moves):
    for points in (25, 81, 361):
        tc = TimeControl()
        tc.set_canadian(600, 0, 0)
        tc.time_left(WHITE, remaining, 0)
        b = tc.budget(WHITE, moves, points)
        assert 0 < b <= remaining - SAFETY_SECONDS


@pytest.mark.parametrize("seconds, stones", [(300, 25), (100, 5), (30, 10), (10, 1)])
def test_canadian_byo_yomi_divides_the_period_over_its_stones(seconds, stones):
    tc = TimeControl()
    tc.set_canadian(0, 300, 25)
    tc.time_left(BLACK, seconds, stones)
    b = tc.budget(BLACK, 50, 81)
    per_stone = seconds / stones
    assert b <= per_stone - SAFETY_SECONDS + 1e-9
    assert b >= 0.8 * per_stone - SAFETY_SECONDS


def test_canadian_byo_yomi_from_the_settings_alone():
    tc = TimeControl()
    tc.set_canadian(0, 60, 20)          # no time_left yet: a fresh period
    b = tc.budget(WHITE, 0, 81)
    assert 0.8 * 3 - SAFETY_SECONDS <= b <= 3 - SAFETY_SECONDS


@pytest.mark.parametrize("period", [10, 30, 60])
def test_japanese_byo_yomi_uses_the_period(period):
    tc = TimeControl()
    tc.set_japanese(0, period, 5)
    tc.time_left(BLACK, period, 5)
    b = tc.budget(BLACK, 60, 81)
    assert 0.8 * period - SAFETY_SECONDS <= b <= period - SAFETY_SECONDS
    tc.time_left(BLACK, period, 1)      # last period: still the whole period
    assert tc.budget(BLACK, 60, 81) <= period - SAFETY_SECONDS


def test_main_time_with_byo_yomi_behind_it_uses_the_byo_yomi_as_a_floor():
    tc = TimeControl()
    tc.set_canadian(10, 60, 10)
    tc.time_left(BLACK, 10, 0)
    b = tc.budget(BLACK, 30, 81)
    assert b >= 6 * 0.9 - SAFETY_SECONDS - 1e-9


@pytest.mark.parametrize("main, points", [(10, 25), (60, 81), (300, 81), (30, 81), (900, 361), (5, 81),
                                          (10, 361)])
def test_simulated_game_with_absolute_time_never_runs_out(main, points):
    """Spend exactly what `budget` says, move after move, up to the match runner's move cap
    (3 * points moves in all, half of them ours)."""
    tc = TimeControl()
    tc.set_canadian(main, 0, 0)
    left = float(main)
    for k in range(0, 3 * points, 2):
        b = tc.budget(BLACK, k, points)
        assert b < left, f"move {k}: budget {b:.3f} s with {left:.3f} s left"
        left -= b
        tc.time_left(BLACK, left, 0)


@pytest.mark.parametrize("main, byo, stones", [(0, 30, 10), (60, 30, 5), (10, 5, 1), (0, 300, 25)])
def test_simulated_game_with_canadian_byo_yomi_never_runs_out(main, byo, stones):
    tc = TimeControl()
    tc.set_canadian(main, byo, stones)
    left, in_byo, period, stones_left = float(main), main == 0, float(byo), stones
    for k in range(0, 400, 2):
        if in_byo:
            tc.time_left(BLACK, period, stones_left)
        else:
            tc.time_left(BLACK, left, 0)
        b = tc.budget(BLACK, k, 81)
        if not in_byo:
            left -= b
            if left < 0:                      # overran main time into the first period
                in_byo, period = True, byo + left
                assert period > 0
                stones_left = stones - 1
                if stones_left == 0:
                    period, stones_left = float(byo), stones
            continue
        assert b < period, f"move {k}: budget {b:.2f} s, {period:.2f} s left for {stones_left} stones"
        period -= b
        stones_left -= 1
        if stones_left == 0:
            period, stones_left = float(byo), stones


def test_simulated_game_with_japanese_byo_yomi_never_loses_a_period():
    tc = TimeControl()
    tc.set_japanese(20, 10, 3)
    left, periods = 20.0, 3
    for k in range(0, 300, 2):
        if left > 0:
            tc.time_left(BLACK, left, 0)
        else:
            tc.time_left(BLACK, 10, periods)
        b = tc.budget(BLACK, k, 81)
        if left > 0:
            left -= b
            over = -left if left < 0 else 0
            assert over < 10
        else:
            assert b < 10, f"move {k} would use up a period"


def _root_priors(engine):
    t = engine._threads[0].tree
    first, count = t.child_start[0], t.n_child[0]
    return {int(t.move[k]): float(t.prior[k]) for k in range(first, first + count)}


def test_the_tree_takes_h_from_the_prior_policy_and_the_playouts_from_the_playout_policy():
    """H (the children's order and priors) is the prior policy's, whatever the playouts use;
    "playout" gives back the playout policy's own H; the playouts do not change with the prior."""
    colour = BLACK
    handcrafted = Engine(9, 7.0, Settings(playouts=50, seed=1), weights="handcrafted", prior="uniform")
    handcrafted.search(colour, total=50)
    assert set(_root_priors(handcrafted).values()) - {-1.0} == {0.0}  # uniform H: all equal
    own = Engine(9, 7.0, Settings(playouts=50, seed=1), weights="handcrafted", prior="playout")
    own.search(colour, total=50)
    scores = np.zeros(own.game.board.color.shape[0])
    move_scores(own.game.board, colour, load_policy("handcrafted", 9), scores)
    priors = _root_priors(own)
    top = max(scores[p] for p in priors if p != PASS)
    assert all(priors[p] == pytest.approx(scores[p] - top) for p in priors if p != PASS)
    assert len(set(priors.values())) > 2    # the handcrafted H tells moves apart
    # Ownership is a pure playout statistic: the prior does not enter it.
    np.testing.assert_array_equal(handcrafted.ownership(colour, 50)[0], own.ownership(colour, 50)[0])


def test_a_refused_prior_keeps_the_one_in_use(tmp_path):
    engine = Engine(9, 7.0, Settings(playouts=20), prior="uniform")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        engine.load_prior(str(bad))
    assert engine.prior_weights == "uniform" and engine.prior.kind == uniform_policy().kind
    engine.load_prior("handcrafted")
    engine.game.reset(13)   # a new board size reloads the prior for that size
    assert engine.prior_weights == "handcrafted"
    np.testing.assert_array_equal(engine.prior.theta, load_policy("handcrafted", 13).theta)


def test_playout_gain_sharpens_the_playouts_and_leaves_the_prior_alone():
    """playout_gain multiplies the playout softmax's weights (an inverse temperature): above 1
    the favourite moves get likelier, 0 makes every candidate alike; H keeps the weights as
    loaded, and the gain survives a change of board size."""
    engine = Engine(9, 7.0, Settings(playouts=20, seed=1), weights="handcrafted", prior="playout")
    loaded = load_policy("handcrafted", 9)
    board = engine.game.board
    probs = {}
    for gain in (0.0, 1.0, 2.0):
        engine.set_param("playout_gain", gain)
        np.testing.assert_allclose(engine.policy.theta, gain * loaded.theta)
        np.testing.assert_array_equal(engine.prior.theta, loaded.theta)
        probs[gain] = policy_probabilities(board, BLACK, engine.policy)
    candidates = probs[1.0] > 0
    assert np.allclose(probs[0.0][candidates], 1.0 / candidates.sum())
    assert probs[2.0].max() > probs[1.0].max() > probs[0.0].max()
    engine.game.reset(13)
    np.testing.assert_allclose(engine.policy.theta, 2.0 * load_policy("handcrafted", 13).theta)


def test_rave_updates_weigh_early_plays_more_with_rave_decay():
    """AMAF credits the root's children whose point the root's player played first later in
    the simulation; with rave_decay d the credit falls from 1 + d at the root's own move to
    1 - d at the simulation's last, and a point the opponent took first earns nothing."""
    a, b, c, d = 10, 11, 12, 13
    moves = np.array([a, b, c, b, d], np.int32)   # Black a, c, d; White b (twice)
    for decay, expected in ((0.0, [1.0, 0.0, 1.0, 1.0]), (1.0, [2.0, 0.0, 1.0, 0.0]),
                            (0.5, [1.5, 0.0, 1.0, 0.5])):
        tree = new_tree(16, 81)
        start = allocate(tree, 4)
        tree.child_start[0], tree.n_child[0] = start, 4
        tree.move[start:start + 4] = (a, b, c, d)
        path = np.zeros(8, np.int32)
        path[1] = start                            # the tree part: Black's a
        search._update_rave(tree, path, 1, moves, len(moves), BLACK, 0.25,
                            np.zeros(81, np.int32), decay)
        np.testing.assert_allclose(tree.rave_n[start:start + 4], expected)
        np.testing.assert_allclose(tree.rave_w[start:start + 4], 0.25 * np.array(expected))
