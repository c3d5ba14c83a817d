"""The Monte-Carlo tree search: the node pool (tree.py) and the compiled select / expand /
playout / backup loop with its named constants (mcts.py).  It reaches the playout and prior
policies through policies.kernel only."""
