"""The search tree as a pool of nodes in flat arrays (compiled code's data).

Node 0 is the root.  A node's children are a contiguous block of the pool
(`child_start`, `n_child`), created all at once when the node is expanded and
sorted by the policy's heuristic H (best first), so progressive unpruning
needs only a count of how many leading children are eligible, computed from
the visits and kept in `allowed` (0 before the node's first selection); `allowed`
equal to `n_child` marks a node never to prune (its H could not tell the moves apart).
Values are kept from the point of view of the player who made the node's
move: `wins / visits` is that player's win rate, `score / visits` the mean final margin of
its simulations for that player (komi included) and `score2 / visits` the mean square, for
the analysis commands' score estimates.  RAVE statistics (all moves as first) live beside
the ordinary ones.

Beside the nodes the tree keeps the count of each point's final owners over this move's
simulations (`owned[0/1, p]`: Black, White; `owned[2, p]`: the simulation's winner, counted
only when the search uses criticality; `meta` holds how many simulations and Black's wins),
for the analysis commands' ownership and the prior's criticality term; and the playouts'
last good replies (`replies[colour - 1, move]`, policies/playout.py): search state that,
like the subtree, carries over from move to move.

The pool has a hard capacity: when it is full, nodes stop being expanded
until the player `prune`s the tree into its spare pool, keeping the children
of well-visited nodes only.  `reuse` copies the subtree under a chosen node
into a fresh pool, which is how the tree survives from one move to the next
without ever fragmenting.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from engine.core.board import PASS
from policies.nrt import borrow

T_NODES = 0      # nodes in use
T_FULL = 1       # expansions refused because the pool was full
T_OWN_SIMS = 2   # simulations counted in `owned` (criticality's denominator)
T_OWN_BLACK = 3  # of those, the ones Black won
T_LEN = 4

Tree = namedtuple("Tree", "move parent child_start n_child allowed visits wins prior "
                          "rave_n rave_w owned replies meta score score2")


def new_tree(capacity, board_points):
    """An empty pool of `capacity` nodes whose root (node 0) stands for the current position."""
    capacity = max(int(capacity), 16)
    tree = Tree(np.full(capacity, PASS, np.int32), np.full(capacity, -1, np.int32),
                np.zeros(capacity, np.int32), np.zeros(capacity, np.int32),
                np.zeros(capacity, np.int32), np.zeros(capacity, np.int64),
                np.zeros(capacity), np.zeros(capacity), np.zeros(capacity), np.zeros(capacity),
                np.zeros((3, board_points), np.int64), np.full((2, board_points), PASS, np.int32),
                np.zeros(T_LEN, np.int64), np.zeros(capacity), np.zeros(capacity))
    clear(tree)
    return tree


@njit(cache=True, nogil=True, inline='always')
def borrowed_tree(tree):
    """The pool with borrowed arrays (policies/nrt.py): a loop over nodes that writes through
    it skips the atomic reference counting of every field read.  Valid while `tree` lives."""
    return Tree(borrow(tree.move), borrow(tree.parent), borrow(tree.child_start),
                borrow(tree.n_child), borrow(tree.allowed), borrow(tree.visits), borrow(tree.wins),
                borrow(tree.prior), borrow(tree.rave_n), borrow(tree.rave_w), borrow(tree.owned),
                borrow(tree.replies), borrow(tree.meta), borrow(tree.score), borrow(tree.score2))


@njit(cache=True)
def clear(tree):
    """Reset to a lone, unvisited root, with no replies."""
    tree.meta[T_NODES] = 1
    tree.meta[T_FULL] = 0
    tree.meta[T_OWN_SIMS] = 0
    tree.meta[T_OWN_BLACK] = 0
    reset_node(tree, 0, PASS, -1, 0.0)
    tree.owned[:] = 0
    tree.replies[:] = PASS


@njit(cache=True)
def reset_node(tree, i, move, parent, prior):
    tree.move[i] = move
    tree.parent[i] = parent
    tree.child_start[i] = 0
    tree.n_child[i] = 0
    tree.allowed[i] = 0
    tree.visits[i] = 0
    tree.wins[i] = 0.0
    tree.prior[i] = prior
    tree.rave_n[i] = 0.0
    tree.rave_w[i] = 0.0
    tree.score[i] = 0.0
    tree.score2[i] = 0.0


@njit(cache=True)
def allocate(tree, count):
    """Index of a fresh block of `count` nodes, or -1 if the pool cannot hold it."""
    start = tree.meta[T_NODES]
    if start + count > tree.move.shape[0]:
        tree.meta[T_FULL] += 1
        return -1
    tree.meta[T_NODES] = start + count
    return start


@njit(cache=True)
def _copy_node(src, i, dst, j, parent):
    dst.move[j] = src.move[i]
    dst.parent[j] = parent
    dst.child_start[j] = 0
    dst.n_child[j] = 0
    dst.allowed[j] = src.allowed[i]
    dst.visits[j] = src.visits[i]
    dst.wins[j] = src.wins[i]
    dst.prior[j] = src.prior[i]
    dst.rave_n[j] = src.rave_n[i]
    dst.rave_w[j] = src.rave_w[i]
    dst.score[j] = src.score[i]
    dst.score2[j] = src.score2[i]


@njit(cache=True)
def reuse(src, new_root, dst):
    """Copy the subtree of `src` under `new_root` into `dst` (breadth first, blocks kept
    contiguous); stops copying deeper blocks if `dst` fills.  Ownership starts afresh; the
    replies are kept."""
    clear(dst)
    dst.replies[:] = src.replies
    return _copy_subtree(src, new_root, dst, 0)


@njit(cache=True)
def prune(src, dst, min_visits):
    """Copy all of `src` into `dst` as `reuse` does, except that only nodes with at least
    `min_visits` visits keep their children (the root always keeps its own): what a search
    does when its pool is full, so that it goes on growing where its visits go instead of
    stopping (Fuego's prune_full_tree; the caller picks `min_visits`).  Ownership and replies
    are kept: the search goes on.  Returns the nodes `dst` holds."""
    clear(dst)
    dst.replies[:] = src.replies
    dst.owned[:] = src.owned
    dst.meta[T_OWN_SIMS] = src.meta[T_OWN_SIMS]
    dst.meta[T_OWN_BLACK] = src.meta[T_OWN_BLACK]
    return _copy_subtree(src, 0, dst, min_visits)


@njit(cache=True)
def _copy_subtree(src, new_root, dst, min_visits):
    """`src`'s subtree under `new_root` into the cleared `dst`, breadth first, a node's
    children copied only when it has at least `min_visits` visits (the new root's always)
    and while they fit."""
    _copy_node(src, new_root, dst, 0, -1)
    dst.allowed[0] = src.allowed[new_root]
    queue_src = np.empty(dst.move.shape[0], np.int32)
    queue_dst = np.empty(dst.move.shape[0], np.int32)
    queue_src[0] = new_root
    queue_dst[0] = 0
    head = 0
    tail = 1
    while head < tail:
        i = queue_src[head]
        j = queue_dst[head]
        head += 1
        count = src.n_child[i]
        if count == 0:
            continue
        if j > 0 and src.visits[i] < min_visits:
            dst.allowed[j] = 0   # unexpanded again: progressive unpruning starts afresh
            continue
        block = allocate(dst, count)
        if block < 0:
            dst.allowed[j] = 0
            continue
        dst.child_start[j] = block
        dst.n_child[j] = count
        first = src.child_start[i]
        for k in range(count):
            _copy_node(src, first + k, dst, block + k, j)
            queue_src[tail] = first + k
            queue_dst[tail] = block + k
            tail += 1
    return dst.meta[T_NODES]


@njit(cache=True)
def find_child(tree, node, move):
    """The child of `node` reached by `move`, or -1."""
    first = tree.child_start[node]
    for k in range(first, first + tree.n_child[node]):
        if tree.move[k] == move:
            return k
    return -1


@njit(cache=True)
def best_child(tree, node):
    """The most visited child (ties: higher win rate), or -1 if none was visited."""
    best = -1
    first = tree.child_start[node]
    for k in range(first, first + tree.n_child[node]):
        if tree.visits[k] == 0:
            continue
        if best < 0 or tree.visits[k] > tree.visits[best] or (
                tree.visits[k] == tree.visits[best] and
                tree.wins[k] * tree.visits[best] > tree.wins[best] * tree.visits[k]):
            best = k
    return best
