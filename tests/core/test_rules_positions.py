"""The rules on hand-made positions: captures, ko, suicide, superko, undo, handicap,
eyes, scoring, board sizes and the uniform playout.

Positions are drawn with `board_from_ascii` (top row first, X black, O white,
. empty) and points are named by GTP vertices: columns A.. from the left
(no I), rows 1.. from the bottom, so in a 5x5 diagram "A5" is the top-left
point and "E1" the bottom-right.
"""
import numpy as np
import pytest

from engine.core.board import (BLACK, EMPTY, M_CAP, M_HASH, M_KO, M_KO_COLOR, M_MOVES, M_NEMPTY,
                               M_PASSES, M_SIZE, PASS, WHITE, area_score, copy_board, is_eye,
                               is_legal, new_board, play)
from engine.core.coords import format_vertex, parse_vertex
from engine.core.rng import make_rng
from engine.play.game import Game, IllegalMove
from policies.kernel import NO_REPLIES, NO_RULES, run_playouts, uniform_policy
from policies.playout import finish_uniform, move_cap, uniform_move

from helpers import board_from_ascii

STATE_FIELDS = ("color", "head", "nxt", "libs", "csize", "empties", "epos", "meta")


def game_from(diagram, komi=0.0):
    """A game set up on the diagram's position, Black to play."""
    game = Game(komi=komi)
    game.reset(board=board_from_ascii(diagram))
    return game


def at(vertex, size=5):
    return parse_vertex(vertex, size)


def colour_at(board, vertex, size=5):
    return int(board.color[at(vertex, size)])


def liberties(board, vertex, size=5):
    return int(board.libs[board.head[at(vertex, size)]])


def snapshot(board):
    """Copies of every field of a board except the `mark` scratch array."""
    return {name: getattr(board, name).copy() for name in STATE_FIELDS}


def assert_state(board, expected):
    for name in STATE_FIELDS:
        assert np.array_equal(getattr(board, name), expected[name]), f"field {name} differs"


# ---------------------------------------------------------------------------
# Captures

TWO_CHAINS_IN_ATARI = """
. . . . .
. X . X .
X O . O X
. X . X .
. . . . .
"""

THREE_CHAINS_IN_ATARI = """
. X O X .
. X O X .
X O . O X
. X . X .
. . . . .
"""


def test_one_move_captures_two_chains():
    game = game_from(TWO_CHAINS_IN_ATARI)
    game.play(BLACK, at("C3"))
    b = game.board
    assert colour_at(b, "B3") == colour_at(b, "D3") == EMPTY
    assert game.captures(BLACK) == 2 and game.captures(WHITE) == 0
    assert liberties(b, "C3") == 4
    assert b.meta[M_KO] == -1
    assert not game.stones(WHITE)


def test_one_move_captures_three_chains():
    # White's chains C5-C4, B3 and D3 all have C3 as their last liberty.
    game = game_from(THREE_CHAINS_IN_ATARI)
    assert liberties(game.board, "C5") == liberties(game.board, "B3") == liberties(game.board, "D3") == 1
    game.play(BLACK, at("C3"))
    b = game.board
    assert game.captures(BLACK) == 4
    assert not game.stones(WHITE)
    assert int(b.meta[M_NEMPTY]) == 25 - len(game.stones(BLACK))
    assert liberties(b, "C3") == 4          # B3, D3 and C4 freed by the capture, and C2
    assert b.meta[M_KO] == -1


def test_snapback():
    # White's A1-A2-B2-C2 has two liberties, B1 and C1.  Black throws in at B1 (self-atari,
    # its only liberty C1); White captures it at C1, which joins White's chain and leaves
    # it a single liberty, B1; Black plays B1 again and takes all five stones.
    game = game_from("""
        . . . . .
        . . . . .
        X X X . .
        O O O X .
        O . . X .
        """)
    game.play(BLACK, at("B1"))
    assert liberties(game.board, "B1") == 1 and liberties(game.board, "A1") == 1
    game.play(WHITE, at("C1"))
    assert game.captures(WHITE) == 1 and colour_at(game.board, "B1") == EMPTY
    assert liberties(game.board, "C1") == 1
    assert game.board.meta[M_KO] == -1      # the capturing stone joined a chain: no ko
    assert game.illegal_reason(BLACK, at("B1")) is None
    game.play(BLACK, at("B1"))
    assert game.captures(BLACK) == 5
    assert not game.stones(WHITE)
    assert liberties(game.board, "B1") == 3  # A1, C1 and B2, all freed by the capture


# ---------------------------------------------------------------------------
# Ko

KO = """
. . . . .
. X O . .
X O . O .
. X O . .
. . . . .
"""


def test_simple_ko_forbids_immediate_recapture_only():
    game = game_from(KO)
    game.play(BLACK, at("C3"))              # takes B3
    b = game.board
    assert game.captures(BLACK) == 1
    assert (b.meta[M_KO], b.meta[M_KO_COLOR]) == (at("B3"), WHITE)
    assert not is_legal(b, at("B3"), WHITE)
    assert is_legal(b, at("B3"), BLACK)     # the ko binds White only
    assert game.illegal_reason(WHITE, at("B3")) == "ko"
    with pytest.raises(IllegalMove, match="ko"):
        game.play(WHITE, at("B3"))
    game.play(WHITE, at("E5"))              # a move elsewhere (a ko threat) ...
    assert game.board.meta[M_KO] == -1
    game.play(BLACK, at("E1"))              # ... answered elsewhere
    game.play(WHITE, at("B3"))              # now White may retake
    b = game.board
    assert game.captures(WHITE) == 1 and colour_at(b, "C3") == EMPTY
    assert (b.meta[M_KO], b.meta[M_KO_COLOR]) == (at("C3"), BLACK)
    assert game.illegal_reason(BLACK, at("C3")) == "ko"


def test_no_ko_when_two_stones_are_captured():
    # Black C3 has no liberty of its own but takes the two stones A3-B3, so it is left with one
    # liberty (B3); White may play B3 at once, capturing C3, because that is not a ko.
    game = game_from("""
        . . . . .
        X X O . .
        O O . O .
        X X O . .
        . . . . .
        """)
    game.play(BLACK, at("C3"))
    b = game.board
    assert game.captures(BLACK) == 2
    assert liberties(b, "C3") == 1
    assert b.meta[M_KO] == -1
    assert game.illegal_reason(WHITE, at("B3")) is None
    game.play(WHITE, at("B3"))
    assert game.captures(WHITE) == 1 and colour_at(game.board, "C3") == EMPTY


def test_no_ko_when_the_capturing_stone_has_other_liberties():
    game = game_from("""
        . . . . .
        . X O . .
        X O . . .
        . X O . .
        . . . . .
        """)
    game.play(BLACK, at("C3"))
    assert game.captures(BLACK) == 1
    assert liberties(game.board, "C3") == 2
    assert game.board.meta[M_KO] == -1
    assert game.illegal_reason(WHITE, at("B3")) == "suicide"


def test_pass_clears_the_ko_point():
    game = game_from(KO)
    game.play(BLACK, at("C3"))
    game.play(WHITE, PASS)
    assert game.board.meta[M_KO] == -1


# ---------------------------------------------------------------------------
# Suicide

def test_single_stone_suicide_is_illegal():
    game = game_from("""
        . O . . .
        O . . . .
        . . . . .
        . . . . .
        . . . . .
        """)
    assert not is_legal(game.board, at("A5"), BLACK)
    assert game.illegal_reason(BLACK, at("A5")) == "suicide"
    before = snapshot(game.board)
    with pytest.raises(IllegalMove, match="suicide"):
        game.play(BLACK, at("A5"))
    assert_state(game.board, before)
    assert game.illegal_reason(WHITE, at("A5")) is None


def test_multi_stone_suicide_is_illegal():
    # Filling B5 would leave the chain A5-A4-B5 without liberties, capturing nothing.
    game = game_from("""
        X . O . .
        X O . . .
        O . . . .
        . . . . .
        . . . . .
        """)
    assert liberties(game.board, "A5") == 1
    assert not is_legal(game.board, at("B5"), BLACK)
    assert game.illegal_reason(BLACK, at("B5")) == "suicide"
    # White may fill it: that captures the two black stones.
    game.play(WHITE, at("B5"))
    assert game.captures(WHITE) == 2


def test_capture_that_looks_like_suicide_is_legal():
    # A5 has only white neighbours, but B5 is in atari: playing A5 captures it.
    game = game_from("""
        . O X . .
        O X . . .
        . . . . .
        . . . . .
        . . . . .
        """)
    assert is_legal(game.board, at("A5"), BLACK)
    game.play(BLACK, at("A5"))
    assert game.captures(BLACK) == 1 and colour_at(game.board, "B5") == EMPTY
    assert liberties(game.board, "A5") == 1
    assert (game.board.meta[M_KO], game.board.meta[M_KO_COLOR]) == (at("B5"), WHITE)  # a corner ko


def test_occupied_point_is_illegal():
    game = game_from(KO)
    assert not is_legal(game.board, at("B3"), BLACK)
    assert game.illegal_reason(BLACK, at("B3")) == "occupied"


# ---------------------------------------------------------------------------
# Positional superko and undo

def test_superko_refuses_retaking_a_ko_after_two_passes():
    # Black takes the ko; both pass, which clears the simple-ko point; White's recapture
    # would now recreate the starting position, so superko refuses it.
    game = game_from(KO)
    start = game.hash
    game.play(BLACK, at("C3"))
    game.play(WHITE, PASS)
    game.play(BLACK, PASS)
    assert is_legal(game.board, at("B3"), WHITE)     # simple ko no longer applies
    assert game.illegal_reason(WHITE, at("B3")) == "superko"
    after = copy_board(game.board)
    play(after, at("B3"), WHITE)
    assert int(after.meta[M_HASH]) == start          # ... because it recreates the start
    with pytest.raises(IllegalMove, match="superko"):
        game.play(WHITE, at("B3"))
    assert at("B3") not in game.legal_moves(WHITE)


# Three kos on 9x9: K1 at B8/C8, K2 at B4/C4, K3 at G8/H8.  Each ko is held by one stone
# that the other side can take (a single stone, left with one liberty, taking a single
# stone).  At the start White holds K1 (stone on B8) and K3 (G8), Black holds K2 (C4).
# Writing a position as the holders of (K1, K2, K3):
#   start         (W, B, W)
#   1 B C8 x B8   (B, B, W)     ko point now B8 for White
#   2 W B4 x C4   (B, W, W)     ko point C4 for Black
#   3 B H8 x G8   (B, W, B)     ko point G8 for White
#   4 W B8 x C8   (W, W, B)     ko point C8 for Black
#   5 B C4 x B4   (W, B, B)     ko point B4 for White
#   6 W G8 x H8   (W, B, W) = start
# No move retakes the ko just taken, so simple ko allows all six, and the stones away from
# the kos never change; the positions after moves 1-5 are all different from each other
# and from the start, so move 6 is the first to repeat a position and superko refuses it.
TRIPLE_KO = """
. X O . . . X O .
X O . O . X O . O
. X O . . . X O .
. . . . . . . . .
. X O . . . . . .
X . X O . . . . .
. X O . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
TRIPLE_KO_CYCLE = [(BLACK, "C8"), (WHITE, "B4"), (BLACK, "H8"), (WHITE, "B8"), (BLACK, "C4")]
TRIPLE_KO_REPEAT = (WHITE, "G8")


def test_triple_ko_cycle_is_refused_by_superko():
    game = game_from(TRIPLE_KO)
    start = game.hash
    seen = {start}
    for colour, vertex in TRIPLE_KO_CYCLE:
        before = game.captures(colour)
        game.play(colour, at(vertex, 9))
        assert game.captures(colour) == before + 1 and game.hash not in seen
        seen.add(game.hash)
    assert game.captures(BLACK) == 3 and game.captures(WHITE) == 2
    colour, vertex = TRIPLE_KO_REPEAT
    assert is_legal(game.board, at(vertex, 9), colour)  # not the simple-ko point (that is B4)
    assert game.illegal_reason(colour, at(vertex, 9)) == "superko"
    with pytest.raises(IllegalMove, match="superko"):
        game.play(colour, at(vertex, 9))


def test_undo_forgets_undone_positions_only():
    game = game_from(TRIPLE_KO)
    start = game.hash
    for colour, vertex in TRIPLE_KO_CYCLE:
        game.play(colour, at(vertex, 9))
    # Undo move 5 and play it again: its position was forgotten, so it is no repetition.
    game.undo()
    assert game.to_play == BLACK
    assert game.illegal_reason(BLACK, at("C4", 9)) is None
    game.play(BLACK, at("C4", 9))
    # The start position is still remembered: the cycle's last move is still refused.
    colour, vertex = TRIPLE_KO_REPEAT
    assert game.illegal_reason(colour, at(vertex, 9)) == "superko"
    # Undo all the way back; the same sequence is then legal again.
    for _ in TRIPLE_KO_CYCLE:
        game.undo()
    assert not game.moves and game.hash == start
    for colour, vertex in TRIPLE_KO_CYCLE:
        game.play(colour, at(vertex, 9))
    assert len(game.moves) == len(TRIPLE_KO_CYCLE)


def test_undo_without_moves_raises():
    with pytest.raises(IndexError):
        Game(5).undo()


def test_undo_restores_exact_state():
    game = game_from(KO)
    game.play(BLACK, at("E5"))
    game.play(WHITE, at("A1"))
    states = [snapshot(game.board)]
    moves = [(BLACK, at("C3")), (WHITE, at("E4")), (BLACK, PASS), (WHITE, at("B3")), (BLACK, at("D1"))]
    for colour, p in moves:
        game.play(colour, p)
        states.append(snapshot(game.board))
    # Black took the ko, White took it back after a threat and a pass: each side has captured
    # once and each side has been bound by a ko on the way.
    assert game.captures(BLACK) == 1 and game.captures(WHITE) == 1
    for colour, p in reversed(moves):
        game.undo()
        states.pop()
        assert_state(game.board, states[-1])
        assert game.to_play == colour
    assert game.board.meta[M_KO] == -1 and int(game.board.meta[M_CAP]) == 0
    # In the middle of the sequence the ko state is restored too.
    game.play(BLACK, at("C3"))
    game.play(WHITE, at("E4"))
    game.undo()
    assert (game.board.meta[M_KO], game.board.meta[M_KO_COLOR]) == (at("B3"), WHITE)
    assert game.illegal_reason(WHITE, at("B3")) == "ko"


# ---------------------------------------------------------------------------
# Handicap

def test_handicap_placement():
    game = Game(9, komi=0.5)
    points = [at(v, 9) for v in ("C3", "G7", "C7", "G3")]
    game.place_handicap(points)
    b = game.board
    assert sorted(game.stones(BLACK)) == sorted(points) and not game.stones(WHITE)
    assert game.to_play == WHITE and game.handicap == points and not game.moves
    assert int(b.meta[M_MOVES]) == 0 and int(b.meta[M_CAP]) == 0 and int(b.meta[M_KO]) == -1
    assert int(b.meta[M_NEMPTY]) == 81 - 4
    expected_hash = 0
    for p in points:
        expected_hash ^= int(b.zob[BLACK, p])
    assert game.hash == expected_hash
    # Every empty point reaches only black; White gets a point per handicap stone.
    assert game.score() == 81 - 0.5 - 4
    game.play(WHITE, at("E5", 9))
    game.undo()                                 # undo goes back to the handicap, not further
    assert sorted(game.stones(BLACK)) == sorted(points) and game.to_play == WHITE


@pytest.mark.parametrize("points", [["C3"], ["C3", "C3"]])
def test_bad_handicap_is_refused(points):
    game = Game(9)
    with pytest.raises(IllegalMove):
        game.place_handicap([at(v, 9) for v in points])
    assert not game.stones(BLACK)


def test_handicap_only_on_an_empty_board():
    game = Game(9)
    game.play(BLACK, at("E5", 9))
    with pytest.raises(IllegalMove, match="not empty"):
        game.place_handicap([at("C3", 9), at("G7", 9)])
    fresh = Game(9)
    fresh.place_handicap([at("C3", 9), at("G7", 9)])
    with pytest.raises(IllegalMove):
        fresh.place_handicap([at("C7", 9), at("G3", 9)])


# ---------------------------------------------------------------------------
# Eyes

@pytest.mark.parametrize("diagram, eye, expected", [
    # A real eye in the centre, and one with a single opposing diagonal (still real).
    (""". . . . .
        . X X X .
        . X . X .
        . X X X .
        . . . . .""", "C3", True),
    (""". . . . .
        . O X X .
        . X . X .
        . X X X .
        . . . . .""", "C3", True),
    # Two opposing diagonals in the centre: a false eye.
    (""". . . . .
        . O X X .
        . X . X .
        . X X O .
        . . . . .""", "C3", False),
    # On the edge: real with friendly diagonals, false with one opposing diagonal.
    (""". . . . .
        . . . . .
        . . . . .
        . X X X .
        . X . X .""", "C1", True),
    (""". . . . .
        . . . . .
        . . . . .
        . O X X .
        . X . X .""", "C1", False),
    # In the corner likewise.
    (""". . . . .
        . . . . .
        . . . . .
        X X . . .
        . X . . .""", "A1", True),
    (""". . . . .
        . . . . .
        . . . . .
        X O . . .
        . X . . .""", "A1", False),
    # Not surrounded: an empty or an opposing neighbour.
    (""". . . . .
        . X X X .
        . X . . .
        . X X X .
        . . . . .""", "C3", False),
    (""". . . . .
        . X X X .
        . X . O .
        . X X X .
        . . . . .""", "C3", False),
])
def test_is_eye(diagram, eye, expected):
    board = board_from_ascii(diagram)
    assert is_eye(board, at(eye), BLACK) is expected
    assert is_eye(board, at(eye), WHITE) is False


# ---------------------------------------------------------------------------
# Scoring

def test_seki_shared_liberties_count_for_nobody():
    # White's C5-C4-C3-B3-A3 and Black's A5 and B4 share the liberties B5 and A4; whoever plays
    # either puts their own stones in atari, so neither does: seki.
    diagram = """
        X . O X .
        . X O X .
        O O O X .
        X X X X .
        . . . . .
        """
    game = game_from(diagram, komi=0.5)
    b = game.board
    assert liberties(b, "C5") == 2 and liberties(b, "A5") == 2 and liberties(b, "B4") == 2
    for colour in (BLACK, WHITE):
        trial = copy_board(b)
        play(trial, at("B5"), colour)
        assert liberties(trial, "B5") == 1         # self-atari for either side
    owner = game.owners()
    assert owner[at("B5")] == EMPTY and owner[at("A4")] == EMPTY
    # Black: 9 stones + 9 points of territory; White: 5 stones; 2 dame.
    assert np.sum(owner == BLACK) == 18 and np.sum(owner == WHITE) == 5
    assert area_score(b, np.zeros_like(owner)) == 13
    assert game.score() == 12.5


def test_tromp_taylor_score_with_dame_and_komi():
    # Black and White each own columns A-B / D-E (7 stones + 3 points); column C is dame.
    game = game_from("""
        . X . O .
        X X . O O
        . X . O .
        X X . O O
        . X . O .
        """, komi=7.5)
    owner = game.owners()
    assert all(owner[at(f"C{row}")] == EMPTY for row in range(1, 6))
    assert owner[at("A5")] == BLACK and owner[at("E3")] == WHITE
    assert np.sum(owner == BLACK) == 10 and np.sum(owner == WHITE) == 10
    assert game.score() == -7.5


def test_tromp_taylor_score_small_board():
    # Black: 4 stones and the corners A3 and A1; White: 2 stones; C3 touches both: dame.
    game = game_from("""
        . X .
        X X O
        . X O
        """, komi=0.5)
    assert game.owners()[at("C3", 3)] == EMPTY
    assert game.score() == 6 - 2 - 0.5
    game.komi = 4.0
    assert game.score() == 0


def test_score_with_dead_stones():
    # The white stone on A5 leaves B5, A4 and B4 touching both colours (dame) unless it is dead.
    game = game_from("""
        O . X . .
        . . X . .
        X X X . .
        . . . . .
        . . . . .
        """, komi=0.5)
    assert game.score() == 21 - 1 - 0.5
    assert game.score(dead=[at("A5")]) == 25 - 0.5


def test_empty_board_scores_nothing():
    game = Game(9, komi=7.5)
    assert game.score() == -7.5
    assert np.all(game.owners() == EMPTY)


# ---------------------------------------------------------------------------
# Board sizes

def test_size_2():
    # A1 and B1 (black) lose their last liberty when White fills A2.
    game = Game(2, komi=0.0)
    for colour, vertex in [(BLACK, "A1"), (WHITE, "B2"), (BLACK, "B1")]:
        game.play(colour, at(vertex, 2))
    assert liberties(game.board, "A1", 2) == 1 and liberties(game.board, "B2", 2) == 1
    game.play(WHITE, at("A2", 2))
    assert game.captures(WHITE) == 2
    assert sorted(game.stones(WHITE)) == sorted(at(v, 2) for v in ("A2", "B2"))
    assert game.score() == -4
    # Black plays into the two-point space, then fills it: that takes White's last liberty
    # first, so it captures rather than being suicide.
    game.play(BLACK, at("A1", 2))
    game.play(BLACK, at("B1", 2))
    assert game.captures(BLACK) == 2 and not game.stones(WHITE)
    assert game.score() == 4


def test_size_19():
    game = Game(19)
    assert len(game.legal_moves(BLACK)) == 361
    assert format_vertex(at("T19", 19), 19) == "T19"
    game.play(WHITE, at("T19", 19))
    game.play(BLACK, at("S19", 19))
    game.play(BLACK, at("T18", 19))
    assert game.captures(BLACK) == 1 and colour_at(game.board, "T19", 19) == EMPTY
    game.play(WHITE, at("A1", 19))
    # Black: two stones and T19; the rest of the board touches both colours.
    assert game.score() == 3 - 1 - 7.5


@pytest.mark.parametrize("size", [1, 26])
def test_sizes_outside_2_to_25_are_refused(size):
    with pytest.raises(ValueError):
        new_board(size)


def test_size_25():
    b = new_board(25)
    assert int(b.meta[M_NEMPTY]) == 625
    z25, y25, z24 = (at(v, 25) for v in ("Z25", "Y25", "Z24"))
    assert format_vertex(z25, 25) == "Z25"
    play(b, z25, WHITE)
    play(b, y25, BLACK)
    assert int(b.libs[b.head[z25]]) == 1
    assert play(b, z24, BLACK) == 1
    assert b.color[z25] == EMPTY
    owner = np.zeros(b.color.shape[0], dtype=np.int8)
    assert area_score(b, owner) == 625


# ---------------------------------------------------------------------------
# Uniform playouts

# A black chain with three single-point eyes (A5, C5, E5): no sequence of legal moves can
# capture it as long as Black never fills its own eyes.
NO_RECORD = np.zeros(0, np.int32)  # finish_uniform's move record, when the moves do not matter

LIVING_BLACK = """
. X . X .
X X X X X
. . . . .
. . . . .
. . . . .
"""


def test_uniform_move_passes_when_only_own_eyes_remain():
    # Every empty point is a black eye (and suicide for White): both sides pass.
    board = board_from_ascii("""
        . X .
        X X X
        . X .
        """)
    rng = make_rng(1)
    for _ in range(20):
        assert uniform_move(board, BLACK, rng) == PASS
        assert uniform_move(board, WHITE, rng) == PASS
    owner = np.zeros(board.color.shape[0], dtype=np.int8)
    assert finish_uniform(board, BLACK, rng, owner, NO_RECORD, NO_REPLIES) == 9
    assert int(board.meta[M_PASSES]) == 2


@pytest.mark.parametrize("diagram", [LIVING_BLACK, TRIPLE_KO, None])
def test_uniform_moves_are_legal_and_never_fill_own_eyes(diagram):
    """Step playouts move by move: each move is legal and not the mover's own eye, and a pass
    only comes when no such move exists."""
    rng = make_rng(7)
    for _ in range(30):
        board = board_from_ascii(diagram) if diagram else new_board(9)
        colour = BLACK
        cap = move_cap(board)
        while board.meta[M_PASSES] < 2 and board.meta[M_MOVES] < cap:
            p = uniform_move(board, colour, rng)
            empties = board.empties[:int(board.meta[M_NEMPTY])].tolist()
            if p == PASS:
                assert all(is_eye(board, q, colour) or not is_legal(board, q, colour) for q in empties)
            else:
                assert p in empties and is_legal(board, p, colour) and not is_eye(board, p, colour)
            play(board, p, colour)
            colour = 3 - colour


def test_living_group_survives_every_playout():
    rng = make_rng(11)
    start = board_from_ascii(LIVING_BLACK)
    group = [at(v) for v in ("B5", "D5", "A4", "B4", "C4", "D4", "E4")]
    eyes = [at(v) for v in ("A5", "C5", "E5")]
    owner = np.zeros(start.color.shape[0], dtype=np.int8)
    for _ in range(200):
        board = copy_board(start)
        score = finish_uniform(board, WHITE, rng, owner, NO_RECORD, NO_REPLIES)
        assert all(board.color[p] == BLACK for p in group)
        assert all(board.color[p] == EMPTY and owner[p] == BLACK for p in eyes)
        assert score == np.sum(owner == BLACK) - np.sum(owner == WHITE)


@pytest.mark.parametrize("diagram", [LIVING_BLACK, TRIPLE_KO, None])
def test_playouts_always_end(diagram):
    rng = make_rng(3)
    for _ in range(50):
        board = board_from_ascii(diagram) if diagram else new_board(9)
        owner = np.zeros(board.color.shape[0], dtype=np.int8)
        cap = move_cap(board)
        score = finish_uniform(board, BLACK, rng, owner, NO_RECORD, NO_REPLIES)
        assert board.meta[M_PASSES] >= 2 or board.meta[M_MOVES] == cap
        size = int(board.meta[M_SIZE])
        assert -size * size <= score <= size * size


def test_batched_uniform_playouts_match_playouts_on_fresh_copies():
    """`run_playouts` reuses one work board (`copy_into`) across playouts; that must make
    no difference to the results of the same random stream on fresh copies."""
    start = board_from_ascii(LIVING_BLACK)
    for seed in range(5):
        n = 40
        wins = run_playouts(start, WHITE, n, make_rng(seed), 0.5, uniform_policy(), NO_RULES)
        rng = make_rng(seed)
        owner = np.zeros(start.color.shape[0], dtype=np.int8)
        expected = sum(finish_uniform(copy_board(start), WHITE, rng, owner, NO_RECORD, NO_REPLIES) > 0.5 for _ in range(n))
        assert wins == expected, f"seed {seed}"
