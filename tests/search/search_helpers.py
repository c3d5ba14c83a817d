"""Hand-built search trees for the selection and tree tests.
"""


from engine.core.board import PASS
from engine.search.tree import T_NODES, new_tree

from helpers import POINTS

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


def check_links(tree):
    """Every node in use is reached exactly once from the root, through its parent's block."""
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
