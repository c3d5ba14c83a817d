"""Criticality (Coulom 2009) in the search (engine/search/mcts.py): the covariance of owning a
point with winning, counted beside the ownership counts, raising H at expansion and
re-sorting the root's children once `crit_min` simulations have counted it.
"""

import numpy as np
import pytest

from engine.core.board import PASS, new_board
from engine.core.rng import make_rng
from engine.search.mcts import criticality, resort_children, run
from engine.search.tree import T_OWN_BLACK, T_OWN_SIMS, new_tree

from helpers import POINTS, POLICY, SIZE, params, root
from search_helpers import check_links


def counted(sims, black_wins, points):
    """A tree whose ownership counts say: `sims` decided simulations, `black_wins` won by
    Black, and for each point p of `points` a triple (Black's, White's, the winner's)."""
    tree = new_tree(64, POINTS)
    tree.meta[T_OWN_SIMS] = sims
    tree.meta[T_OWN_BLACK] = black_wins
    for p, (black, white, winner) in points.items():
        tree.owned[:, p] = (black, white, winner)
    return tree


def test_criticality_is_the_covariance_of_owning_a_point_with_winning():
    # 100 simulations, Black wins 60.  Point 10 is Black's exactly when Black wins: it
    # decides the game, 1 - (0.6^2 + 0.4^2) = 0.48.  Point 11 is always Black's: settled, 0.
    # Point 12 is Black's exactly when White wins: -0.48.  Point 13 is Black's in half of
    # each side's wins: its owner tells nothing, 0.
    tree = counted(100, 60, {10: (60, 40, 100), 11: (100, 0, 60), 12: (40, 60, 0),
                             13: (50, 50, 50)})
    assert criticality(tree, 10) == pytest.approx(0.48)
    assert criticality(tree, 11) == pytest.approx(0.0)
    assert criticality(tree, 12) == pytest.approx(-0.48)
    assert criticality(tree, 13) == pytest.approx(0.0)
    assert criticality(new_tree(64, POINTS), 10) == 0.0      # nothing counted yet


def grown(p, sims=2000, seed=5):
    tree = new_tree(20000, POINTS)
    run(tree, root(new_board(SIZE), 7.5), POLICY, POLICY, p, sims, make_rng(seed))
    return tree


def children(tree, node=0):
    first, count = int(tree.child_start[node]), int(tree.n_child[node])
    return list(range(first, first + count))


def test_resort_children_puts_critical_points_first_and_moves_their_statistics():
    tree = grown(params())
    kids = children(tree)
    stats = {int(tree.move[k]): (int(tree.visits[k]), float(tree.wins[k]), float(tree.rave_n[k]),
                                 float(tree.rave_w[k]), int(tree.n_child[k]),
                                 sorted(int(tree.move[g]) for g in children(tree, k)))
             for k in kids}
    prior = {int(tree.move[k]): float(tree.prior[k]) for k in kids}
    # The last move before PASS becomes the one critical point.
    hot = int(tree.move[kids[-2]])
    tree.owned[:] = 0
    tree.meta[T_OWN_SIMS], tree.meta[T_OWN_BLACK] = 100, 50
    tree.owned[:, hot] = (50, 50, 100)                      # criticality 0.5
    p = params(crit_weight=10.0)
    points = POINTS
    resort_children(tree, 0, p, np.empty(points), np.empty(points, np.int64),
                    np.empty(points, np.int64))
    after = children(tree)
    assert int(tree.move[after[0]]) == hot and int(tree.move[after[-1]]) == PASS
    keys = [prior[int(tree.move[k])] + (5.0 if tree.move[k] == hot else 0.0) for k in after[:-1]]
    assert keys == sorted(keys, reverse=True)
    assert tree.prior[after[0]] == 0.0
    assert all(np.diff(tree.prior[after[0]:after[-1] + 1]) <= 0)
    for k in after:
        m = int(tree.move[k])
        assert (int(tree.visits[k]), float(tree.wins[k]), float(tree.rave_n[k]),
                float(tree.rave_w[k]), int(tree.n_child[k]),
                sorted(int(tree.move[g]) for g in children(tree, k))) == stats[m]
    check_links(tree)


@pytest.mark.parametrize("weight", [0.0, 2.0])
def test_a_search_counts_criticality_only_when_it_uses_it(weight):
    sims = 1500
    tree = grown(params(crit_weight=weight, crit_min=200), sims)
    check_links(tree)
    if weight == 0.0:
        assert tree.meta[T_OWN_SIMS] == 0 and not tree.owned[2].any()
        return
    # Komi 7.5: no drawn simulation, so every one is counted.
    assert tree.meta[T_OWN_SIMS] == sims
    assert 0 < tree.meta[T_OWN_BLACK] < sims
    assert np.all(tree.owned[2] <= tree.owned[0] + tree.owned[1]) and tree.owned[2].any()
    # The root's children were sorted again by prior plus criticality: still best first.
    kids = children(tree)
    assert all(np.diff(tree.prior[kids[0]:kids[-1] + 1]) <= 0)
    assert tree.prior[kids[0]] == 0.0 and tree.move[kids[-1]] == PASS
