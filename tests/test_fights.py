"""The playouts' answers to the last move's fight (engine/fights.py) on hand-made positions:
the working atari and the extension to three liberties in a race of two against two, the
rescue of a chain in atari before anything else, no run into a ladder, nothing without a
fight; and the softmax playouts that ask (`playout_fights`) play those answers."""
import numpy as np
import pytest

from engine.board import BLACK, WHITE, copy_board, copy_into, play
from engine.coords import format_vertex, parse_vertex
from engine.fights import MAX_REPLIES, fight_replies
from engine.game import board_from_ascii
from engine.rng import make_rng
from policies.kernel import NO_REPLIES, playout_moves, playout_moves_reading
from policies.loader import default_policy_spec, load_policy

# White's last move C2 leaves Black B1-C1 with two liberties (A1, D1) and White B2-C2 with
# two (A2, D2).  Black D2 is an atari White cannot run from (A2 reaches two liberties); Black
# A2 is not (White D2 reaches three); D1 extends Black to three liberties, A1 to one.
RACE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X X . . . . . .
    . O . . . . . . .
    . X X . . . . . ."""

# White's last move D3 puts Black C3 in atari; White B3 is in atari itself: Black captures
# at B2 or extends at C4 (four liberties).  D3 also leaves Black E3 with two liberties, which
# F3 or E2 would extend: that waits.
RESCUE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X . . O . . . .
    X O X . X . . . .
    . . O . . . . . .
    . . . . . . . . ."""

# White's last move C4 puts Black C3 in atari; extending at D3 gives two liberties only, and
# White then ladders it (tests/test_tactics.py): no answer.
LADDER = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . O X . . . . . .
    . . O O . . . . .
    . . . . . . . . ."""


def at(vertex):
    return parse_vertex(vertex, 9)


def after(text, last, colour=WHITE):
    """The fixture with `last` just played by `colour`."""
    board = board_from_ascii(text)
    play(board, at(last), colour)
    return board


def replies(board, colour):
    out = np.zeros(MAX_REPLIES, np.int32)
    n = fight_replies(board.color, board.head, board.libs, board.nxt, board.mark, board.meta,
                      colour, out)
    return sorted(format_vertex(p, 9) for p in out[:n])


def test_a_two_liberty_race_is_answered_by_the_working_atari_or_the_extension():
    board = after(RACE, "C2")
    assert board.libs[board.head[at("B1")]] == 2 and board.libs[board.head[at("C2")]] == 2
    assert replies(board, BLACK) == ["D1", "D2"]


def test_a_chain_in_atari_is_rescued_first():
    board = after(RESCUE, "D3")
    assert board.libs[board.head[at("C3")]] == 1 and board.libs[board.head[at("E3")]] == 2
    assert replies(board, BLACK) == ["B2", "C4"]
    # Without Black C3, E3 is the question.
    assert replies(after(RESCUE.replace("X O X . X", "X O . . X"), "D3"), BLACK) == ["E2", "F3"]
    # Had White played elsewhere, D3's atari would not be the question.
    assert replies(after(RESCUE, "G7"), BLACK) == []


def test_no_run_into_a_ladder():
    board = after(LADDER, "C4")
    assert board.libs[board.head[at("C3")]] == 1
    assert replies(board, BLACK) == []


def test_the_last_move_of_the_mover_or_a_quiet_move_asks_nothing():
    assert replies(after(RACE, "C2"), WHITE) == []        # White's own move: no answer for White
    assert replies(after(RACE, "G5"), BLACK) == []        # far from every chain


@pytest.fixture(scope="module")
def policy():
    return load_policy(default_policy_spec(9), 9)


def first_moves(board, pol, fights, games=200, seed=3):
    work = copy_board(board)
    owner = np.zeros(board.color.shape[0], np.int8)
    moves = np.zeros(1, np.int32)
    rng = make_rng(seed)
    seen = set()
    for _ in range(games):
        copy_into(work, board)
        playout_moves_reading(work, BLACK, rng, owner, pol, moves, NO_REPLIES, False, fights,
                              work)
        seen.add(format_vertex(moves[0], 9))
    return seen


def test_playouts_that_ask_play_the_answers(policy):
    board = after(RACE, "C2")
    assert first_moves(board, policy, 1.0) == {"D1", "D2"}
    # Drawn from the policy alone, the first moves spread wider.
    assert len(first_moves(board, policy, 0.0) - {"D1", "D2"}) > 3


def test_playouts_without_fights_are_the_plain_playouts(policy):
    """`playout_fights` 0 draws nothing extra: the same seed gives the same game."""
    board = after(RACE, "C2")
    owner = np.zeros(board.color.shape[0], np.int8)
    games = []
    for reading in (False, True):
        work = copy_board(board)
        moves = np.full(200, -3, np.int32)
        if reading:
            playout_moves_reading(work, BLACK, make_rng(11), owner, policy, moves, NO_REPLIES,
                                  False, 0.0, work)
        else:
            playout_moves(work, BLACK, make_rng(11), owner, policy, moves, NO_REPLIES)
        games.append(moves)
    assert np.array_equal(games[0], games[1])
