"""Compiled tactical readers over the core board: ladders and nets (ladders.py), the answers
to the last move's fight and the vital point of a nakade (fights.py).  The playouts
(policies) and the tree (engine.search) ask them; they ask only the core."""
