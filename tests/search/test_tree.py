"""The node pool of the search (engine/search/tree.py): a full pool, a consistent tree after a
search, reuse of a subtree by compaction, pruning a full tree, find_child and best_child.
"""

import numpy as np
import pytest

from engine.core.board import BLACK, PASS, new_board
from engine.core.rng import make_rng
from engine.search.mcts import expand, run
from engine.search.params import default_params
from engine.search.tree import (T_FULL, T_NODES, best_child, find_child, new_tree, prune,
                                reuse)

from helpers import POINTS, POLICY, SIZE, root
from search_helpers import check_links, child, hand_tree


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
    done = run(tree, root(board, 7.5), POLICY, POLICY, default_params(), count, make_rng(3))
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
    run(tree, root(new_board(SIZE), 7.5), POLICY, POLICY, default_params(), 3000, make_rng(5))
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
        assert tree.visits[node] - tree.visits[first:first + count].sum() <= default_params().expand_visits
        assert all(0 <= tree.wins[k] <= tree.visits[k] for k in kids)


# -- reuse, find_child, best_child ---------------------------------------------------------------

def grown_tree(sims=3000, seed=5, capacity=20000):
    tree = new_tree(capacity, POINTS)
    run(tree, root(new_board(SIZE), 7.5), POLICY, POLICY, default_params(), sims, make_rng(seed))
    return tree


def subtree(tree, node):
    """Nested (move, visits, wins, prior, allowed, rave_n, rave_w, [children]) of `node`."""
    first, count = int(tree.child_start[node]), int(tree.n_child[node])
    return (int(tree.move[node]), int(tree.visits[node]), float(tree.wins[node]),
            float(tree.prior[node]), int(tree.allowed[node]), float(tree.rave_n[node]),
            float(tree.rave_w[node]), [subtree(tree, k) for k in range(first, first + count)])


def size_of(sub):
    return 1 + sum(size_of(s) for s in sub[7])


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
    run(dst, root(new_board(SIZE), 7.5), POLICY, POLICY, default_params(), 200, make_rng(1))
    assert dst.visits[0] == src.visits[0] + 200


def test_prune_keeps_the_children_of_well_visited_nodes_only():
    src = grown_tree()
    least = 20
    src.owned[0, 7] = 11                      # the search's ownership counts go on
    dst = new_tree(20000, POINTS)
    dst.visits[5] = 99                        # garbage from an earlier use must not survive
    used = prune(src, dst, least)
    assert used == dst.meta[T_NODES] < src.meta[T_NODES]
    check_links(dst)
    assert np.array_equal(dst.owned, src.owned) and np.array_equal(dst.replies, src.replies)
    kept, dropped = [0], [0]

    def check(sub_dst, sub_src, is_root):
        assert sub_dst[:4] == sub_src[:4] and sub_dst[5:7] == sub_src[5:7]
        if sub_src[7] and (is_root or sub_src[1] >= least):
            assert sub_dst[4] == sub_src[4] and len(sub_dst[7]) == len(sub_src[7])
            kept[0] += not is_root
            for a, b in zip(sub_dst[7], sub_src[7]):
                check(a, b, False)
        else:
            assert sub_dst[7] == [] and (sub_dst[4] == 0 or not sub_src[7])
            dropped[0] += bool(sub_src[7])

    check(subtree(dst, 0), subtree(src, 0), True)
    assert kept[0] > 0 and dropped[0] > 0, "the grown tree must have nodes on both sides of the line"
    # The root keeps its children whatever its visits; a search goes on in the pruned tree and
    # expands the dropped nodes again.
    assert prune(src, dst, 10 ** 9) == 1 + src.n_child[0]
    run(dst, root(new_board(SIZE), 7.5), POLICY, POLICY, default_params(), 500, make_rng(1))
    assert dst.visits[0] == src.visits[0] + 500 and dst.meta[T_NODES] > 1 + src.n_child[0]
    check_links(dst)


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
