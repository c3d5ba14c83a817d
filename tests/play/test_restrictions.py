"""engine/play/restrictions.py: allow/avoid with untilDepth become the root's allowed set and
the points kept out of each deeper ply, for the colour that moves there."""
import pytest

from engine.core.board import BLACK, PASS, WHITE
from engine.core.coords import parse_vertex
from engine.play.restrictions import Restriction, search_limits

A1, B1, A2, B2 = (parse_vertex(v, 2) for v in ("A1", "B1", "A2", "B2"))
LEGAL = {A1, B1, A2, B2, PASS}  # a 2x2 board's points and a pass


def test_no_restriction_leaves_the_search_free():
    assert search_limits([], BLACK, 2, LEGAL) == (None, [])


def test_allow_for_the_side_to_move_at_depth_one_is_the_root_only():
    allowed, deeper = search_limits([Restriction(True, BLACK, frozenset({B1, A2}), 1)],
                                    BLACK, 2, LEGAL)
    assert allowed == {B1, A2} and deeper == []


def test_the_opponents_restriction_starts_one_ply_down_and_alternates():
    allowed, deeper = search_limits([Restriction(False, WHITE, frozenset({B2}), 4)],
                                    BLACK, 2, LEGAL)
    assert allowed is None
    assert deeper == [{B2}, set(), {B2}]  # plies 1 and 3 are White's; ply 2 is Black's, free


def test_allow_keeps_out_every_other_point_and_avoid_adds_to_it():
    limits = [Restriction(True, BLACK, frozenset({A1, B1, A2}), 3),
              Restriction(False, BLACK, frozenset({B1}), 3)]
    allowed, deeper = search_limits(limits, BLACK, 2, LEGAL - {A1})
    assert allowed == {A2}  # allowed, legal and not avoided
    assert deeper == [set(), {B1, B2}]  # ply 2 is Black's: B2 not allowed, B1 avoided


def test_a_root_left_without_moves_is_refused():
    with pytest.raises(ValueError, match="no move"):
        search_limits([Restriction(True, BLACK, frozenset({A1}), 1)], BLACK, 2, {B1, PASS})
