"""The one candidate-move rule (engine.core.moves.candidates) that the policy players, the
engine and the depth-2 data trees share: legal points, never one's own single-point eye; and
Game.candidates, the same with positional superko."""
import random

import pytest

from engine.core.board import BLACK, EMPTY, PASS, WHITE, is_eye, is_legal, play
from engine.core.moves import candidates
from engine.play.game import Game

from helpers import at, board_from_ascii

KO = """
. . . . .
. X O . .
X O . O .
. X O . .
. . . . .
"""


def random_game(size, seed, moves):
    """A game of `moves` random candidate moves (passes when there is none)."""
    rng = random.Random(seed)
    g = Game(size, 7.5)
    colour = BLACK
    for _ in range(moves):
        options = g.candidates(colour)
        g.play(colour, rng.choice(options) if options else PASS)
        colour = BLACK + WHITE - colour
    return g


@pytest.mark.parametrize("size, seed, moves", [(5, 0, 10), (5, 1, 30), (7, 2, 60), (9, 3, 90),
                                               (3, 4, 12), (9, 5, 150)])
def test_candidates_are_the_legal_points_that_fill_no_own_eye(size, seed, moves):
    g = random_game(size, seed, moves)
    b = g.board
    for c in (BLACK, WHITE):
        want = [p for p in range(b.color.shape[0])
                if b.color[p] == EMPTY and is_legal(b, p, c) and not is_eye(b, p, c)]
        assert candidates(b, c) == want
        # What the engine and the policy players computed before there was one rule.
        assert g.candidates(c) == [p for p in g.legal_moves(c) if not is_eye(b, p, c)]


def test_own_eyes_are_no_candidates_and_a_full_board_has_none():
    # Black everywhere on 3x3 but its two eyes A1 and C3.
    b = board_from_ascii("""
        . X .
        X X X
        X X .""")
    assert candidates(b, BLACK) == []          # filling an own eye is never a candidate
    assert candidates(b, WHITE) == []          # both points are suicide for White
    b2 = board_from_ascii("""
        . X .
        X X X
        O O .""")
    assert at("A3", 3) not in candidates(b2, BLACK)   # still an eye
    assert at("C1", 3) in candidates(b2, BLACK)       # no eye (White touches it): a capture


def test_simple_ko_retake_is_no_candidate():
    b = board_from_ascii(KO)
    play(b, at("C3"), BLACK)                   # takes the ko at B3
    assert at("B3") not in candidates(b, WHITE)
    assert at("B3") in candidates(b, BLACK)


def test_game_candidates_also_leave_out_superko():
    g = Game(5, 0.5)
    g.reset(board=board_from_ascii(KO))
    g.play(BLACK, at("C3"))
    g.play(WHITE, PASS)
    g.play(BLACK, PASS)                        # the ko is open again, but B3 repeats the start
    board_moves = candidates(g.board, WHITE)
    assert at("B3") in board_moves
    assert g.candidates(WHITE) == [p for p in board_moves if p != at("B3")]
