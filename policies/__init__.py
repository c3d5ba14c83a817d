"""Playout policies: feature sets, the softmax simulation policy, weight files, trainers.

The policy side of the architecture (features -> policy -> weights -> trainers).
The engine reaches it through the compiled seam in policies/kernel.py only.
"""
