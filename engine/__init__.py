"""Simbal's engine: the Go rules, the tree search and the player, in layers (ARCHITECTURE.md).

core (compiled rules) -> tactics (compiled readers) -> [policies] -> search (the compiled
tree loop) -> play (game record and the Engine) -> gtp (the protocol) -> lab (the tools and
the `simbal` command line).  A module imports only from its own layer or lower ones;
tests/test_layers.py enforces it.
"""
