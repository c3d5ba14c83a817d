"""The playouts' answers to the last move (engine/tactics/fights.py) on hand-made positions: the
working atari and the extension to three liberties in a race of two against two, the rescue
of a chain in atari before anything else, no run into a ladder, nothing without a fight; the
vital point of a nakade shape and none of a living or too large space, the same answers as a
plain flood fill over random games; the vital point of a nakade shape just captured; and the
playouts that ask (`playout_fights`, `playout_nakade`, `playout_capture_nakade`) play those
answers."""
import numpy as np
import pytest

from engine.core.board import (BLACK, EMPTY, M_CAUGHT, M_LAST, M_NEMPTY, M_WIDTH, WHITE,
                               copy_board, copy_into, is_legal, new_board, play)
from engine.core.coords import format_vertex, parse_vertex
from engine.core.rng import make_rng
from engine.tactics.fights import (MAX_REPLIES, NAKADE_MAX, captured_nakade_reply, fight_replies,
                                   nakade_reply)
from policies.kernel import (NO_REPLIES, NO_RULES, RULE_CAPTURE_NAKADE, RULE_FIGHTS, RULE_NAKADE,
                             RULE_LOCAL, playout_moves, playout_moves_reading)
from policies.loader import default_softmax_spec, load_policy

from helpers import board_from_ascii

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
# White then ladders it (tests/tactics/test_ladders.py): no answer.
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
    return load_policy(default_softmax_spec(9), 9)


def rules(fights=0.0, nakade=0.0, capture_nakade=0.0, local=0.0):
    out = NO_RULES.copy()
    out[RULE_FIGHTS] = fights
    out[RULE_NAKADE] = nakade
    out[RULE_CAPTURE_NAKADE] = capture_nakade
    out[RULE_LOCAL] = local
    return out


def first_moves(board, pol, rule_set, games=200, seed=3):
    work = copy_board(board)
    owner = np.zeros(board.color.shape[0], np.int8)
    moves = np.zeros(1, np.int32)
    rng = make_rng(seed)
    seen = set()
    for _ in range(games):
        copy_into(work, board)
        playout_moves_reading(work, BLACK, rng, owner, pol, moves, NO_REPLIES, rule_set, work)
        seen.add(format_vertex(moves[0], 9))
    return seen


def test_playouts_that_ask_play_the_answers(policy):
    board = after(RACE, "C2")
    assert first_moves(board, policy, rules(fights=1.0)) == {"D1", "D2"}
    # Drawn from the policy alone, the first moves spread wider.
    assert len(first_moves(board, policy, NO_RULES) - {"D1", "D2"}) > 3


def test_playouts_without_fights_are_the_plain_playouts(policy):
    """Rules at 0 draw nothing extra: the same seed gives the same game."""
    board = after(RACE, "C2")
    owner = np.zeros(board.color.shape[0], np.int8)
    games = []
    for reading in (False, True):
        work = copy_board(board)
        moves = np.full(200, -3, np.int32)
        if reading:
            playout_moves_reading(work, BLACK, make_rng(11), owner, policy, moves, NO_REPLIES,
                                  NO_RULES, work)
        else:
            playout_moves(work, BLACK, make_rng(11), owner, policy, moves, NO_REPLIES)
        games.append(moves)
    assert np.array_equal(games[0], games[1])


# Black encloses A1-B1-C1 (a straight three) and A1-B1-C1-B2 (a pyramid four) in the corner.
STRAIGHT_THREE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    X X X X . . . . .
    . . . X . . . . ."""
PYRAMID_FOUR = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X . . . . . . .
    X . X X . . . . .
    . . . X . . . . ."""


def vital(board, colour=BLACK):
    space = np.zeros(NAKADE_MAX + 1, np.int32)
    p = nakade_reply(board.color, board.meta, board.mark, colour, space)
    return None if p < 0 else format_vertex(p, 9)


def test_the_vital_point_of_a_nakade_shape():
    assert vital(after(STRAIGHT_THREE, "A1")) == "B1"
    assert vital(after(STRAIGHT_THREE, "C1")) == "B1"
    assert vital(after(PYRAMID_FOUR, "A1")) == "B1"
    assert vital(after(PYRAMID_FOUR, "B2")) == "B1"


def test_no_vital_point_when_the_shape_has_none_or_is_not_small():
    assert vital(after(STRAIGHT_THREE, "B1")) is None        # taken: each end is alike
    assert vital(after(STRAIGHT_THREE, "A1"), WHITE) is None  # White encloses nothing
    # Without the wall's D1 the space runs along the edge: more than six points.
    open_edge = STRAIGHT_THREE.replace(". . . X . . . . .", ". . . . . . . . .")
    assert vital(after(open_edge, "A1")) is None
    # A straight four lives whoever plays in it: two points are alike.
    four = STRAIGHT_THREE.replace("X X X X . . . . .", "X X X X X . . . .").replace(
        ". . . X . . . . .", ". . . . X . . . .")
    assert vital(after(four, "A1")) is None


def test_playouts_that_ask_take_the_vital_point(policy):
    board = after(STRAIGHT_THREE, "A1")
    assert first_moves(board, policy, rules(nakade=1.0)) == {"B1"}
    assert first_moves(board, policy, NO_RULES) != {"B1"}


def reference_vital(board, c):
    """nakade_reply written plainly (the whole flood fill, no shortcut), for the check below."""
    color, w, last = board.color, int(board.meta[M_WIDTH]), int(board.meta[M_LAST])
    if last < 0 or color[last] != 3 - c:
        return -1
    space, todo = {last}, [last]
    while todo:
        s = todo.pop()
        for q in (s - 1, s + 1, s - w, s + w):
            if q not in space and color[q] in (EMPTY, 3 - c):
                space.add(q)
                todo.append(q)
    if len(space) > NAKADE_MAX or len(space) < 3:
        return -1
    counts = {s: sum(q in space for q in (s - 1, s + 1, s - w, s + w))
              for s in space if color[s] == EMPTY}
    most = max([1, *counts.values()])
    best = [s for s, k in counts.items() if k == most]
    return best[0] if most > 1 and len(best) == 1 else -1


def agrees_over_random_games(reader, reference, seed, length):
    """reader(color, meta, mark, c, space) gives reference(board, c) after every move of 40
    random games (7x7 and 9x9, up to `length` moves), and finds a point more than 20 times."""
    rng = np.random.default_rng(seed)
    space = np.zeros(NAKADE_MAX + 1, np.int32)
    found = checked = 0
    for game in range(40):
        board = new_board(7 if game % 2 else 9)
        c = BLACK
        for _ in range(length):
            moves = [p for p in board.empties[:board.meta[M_NEMPTY]] if is_legal(board, p, c)]
            if not moves:
                break
            play(board, moves[rng.integers(len(moves))], c)
            c = 3 - c
            want = reference(board, c)
            assert reader(board.color, board.meta, board.mark, c, space) == want
            checked += 1
            found += want >= 0
    assert checked > 3000 and found > 20


def test_the_vital_point_agrees_with_a_plain_flood_fill_over_random_games():
    # The reader bounds the space from the last move's neighbours before filling it; that
    # bound must never change an answer.  Random games pass through every size of space.
    agrees_over_random_games(nakade_reply, reference_vital, 24, 120)


# Black's pyramid four A1-B1-C1-B2 on the edge has one liberty, D1; White D1 captures it and
# leaves a space White alone encloses, whose vital point B1 Black must take at once (the edge
# of session 31's game ctl/game-0091, BENCHMARKS.md).  A straight four has no vital point.
PYRAMID_CAPTURE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . O . . . . . . .
    O X O . . . . . .
    X X X . . . . . ."""
STRAIGHT_CAPTURE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    O O O O . . . . .
    X X X X . . . . ."""


def capture_vital(board, colour=BLACK):
    space = np.zeros(NAKADE_MAX + 1, np.int32)
    p = captured_nakade_reply(board.color, board.meta, board.mark, colour, space)
    return None if p < 0 else format_vertex(p, 9)


def test_the_board_counts_the_stones_the_last_move_captured():
    board = after(PYRAMID_CAPTURE, "D1")
    assert board.meta[M_CAUGHT] == 4 and board.color[at("B2")] == EMPTY
    play(board, at("G7"), BLACK)
    assert board.meta[M_CAUGHT] == 0


def test_the_vital_point_of_a_captured_nakade_shape():
    assert capture_vital(after(PYRAMID_CAPTURE, "D1")) == "B1"
    assert capture_vital(after(PYRAMID_CAPTURE, "D1"), WHITE) is None   # White captured
    assert capture_vital(after(STRAIGHT_CAPTURE, "E1")) is None          # two points alike
    # Seven points: too large to have a vital point.
    seven = STRAIGHT_CAPTURE.replace("O O O O . . . .", "O O O O O O O O").replace(
        "X X X X . . . .", "X X X X X X X .")
    assert capture_vital(after(seven, "H1")) is None
    # Nothing enclosed next to the last move on an open board.
    assert capture_vital(after(PYRAMID_CAPTURE, "G7")) is None


def test_playouts_that_ask_take_the_vital_point_after_a_capture(policy):
    board = after(PYRAMID_CAPTURE, "D1")
    for local in (0.0, 0.41):   # the full softmax playouts and the local ones
        asked = rules(capture_nakade=1.0, local=local)
        assert first_moves(board, policy, asked) == {"B1"}
        assert first_moves(board, policy, rules(local=local)) != {"B1"}


def reference_captured_vital(board, c):
    """captured_nakade_reply written plainly: each empty region next to the last move, in
    the order of its neighbours, filled whole."""
    color, w, last = board.color, int(board.meta[M_WIDTH]), int(board.meta[M_LAST])
    if last < 0 or color[last] != 3 - c:
        return -1
    for start in (last - 1, last + 1, last - w, last + w):
        if color[start] != EMPTY:
            continue
        space, todo = {start}, [start]
        while todo:
            s = todo.pop()
            for q in (s - 1, s + 1, s - w, s + w):
                if q not in space and color[q] == EMPTY:
                    space.add(q)
                    todo.append(q)
        if not 3 <= len(space) <= NAKADE_MAX:
            continue
        counts = {s: sum(q in space for q in (s - 1, s + 1, s - w, s + w)) for s in space}
        most = max(counts.values())
        best = [s for s, k in counts.items() if k == most]
        if most > 1 and len(best) == 1:
            return best[0]
    return -1


def test_the_captured_vital_point_agrees_with_a_plain_flood_fill_over_random_games():
    agrees_over_random_games(captured_nakade_reply, reference_captured_vital, 31, 150)
