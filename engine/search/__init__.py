"""The Monte-Carlo tree search: the node pool (tree.py), the named constants (params.py) and
the compiled select / expand / playout / backup loop (mcts.py).  It reaches the playout and
prior policies through policies.kernel only."""
