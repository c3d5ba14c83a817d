"""Fuego 1.1's MoGo-pattern tests over 3x3 codes (policies/fuego_patterns.py), on positions:
a pattern for the side to play only, a hane both colours see, none on a corner or without an
adjacent stone, and the table answering as the procedure for every code."""
import numpy as np

from engine.core.board import BLACK, WHITE, code_at
from engine.core.coords import parse_vertex
from helpers import board_from_ascii
from policies.features.codes import _digits, _valid_codes
from policies.fuego_patterns import fuego_code_table, matches


def code(b, name):
    return int(code_at(b.color, int(b.meta[1]), parse_vertex(name, 5)))


def test_an_edge_point_below_an_own_stone_beside_an_opposing_diagonal_is_for_the_side_to_play():
    # E3: White above (D3) with Black diagonally (D4), White on both sides (E4, E2): Fuego's
    # edge3 for White, nothing for Black (session 53's position, turned to this corner).
    b = board_from_ascii("""
        . . . . .
        . . . X O
        . . . O .
        . . . . O
        . . . . .""")
    assert matches(code(b, "E3"), WHITE)
    assert not matches(code(b, "E3"), BLACK)


def test_a_hane_matches_for_both_colours_and_nothing_matches_alone_or_on_a_corner():
    b = board_from_ascii("""
        . . . . .
        . X O . .
        . . . . .
        . . . . .
        X O . . .""")
    for c in (BLACK, WHITE):
        assert matches(code(b, "C3"), c)          # hane below White's stone, Black diagonal
        assert not matches(code(b, "E3"), c)      # no stone next to it
    b = board_from_ascii("""
        . . . . .
        . . . . .
        . . . . .
        O . . . .
        . X . . .""")
    assert not matches(code(b, "A1"), BLACK) and not matches(code(b, "A1"), WHITE)


def test_the_table_is_the_procedure_on_every_code_that_can_occur():
    table = fuego_code_table()
    valid = _valid_codes(_digits())
    assert table.shape[0] == 2 and not table[:, ~valid].any()
    codes = np.nonzero(valid)[0][::7]
    for c in (BLACK, WHITE):
        assert [bool(table[c - 1, k]) for k in codes] == [matches(int(k), c) for k in codes]
    assert 0 < table[0].sum() < valid.sum()
    assert not np.array_equal(table[0], table[1])   # some patterns are the side to play's
