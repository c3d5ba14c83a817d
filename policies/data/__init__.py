"""Data for the trainers and the measurements: the position-file format (files.py), position
sets from random play, self-play and SGF (positions.py), labels, expert moves and depth-2
trees (labels.py), and the MSE of Monte-Carlo evaluation (evaluate.py)."""
