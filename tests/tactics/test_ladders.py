"""Ladder reading (engine/tactics/ladders.py) on hand-made positions: a ladder to the edge is read as a
capture, a ladder breaker or a capturable chaser saves the chain, a net (geta) catches what
ataris alone do not, and the tree's priors of expanded nodes move by `ladder_escape` /
`ladder_capture` exactly for the moves read so, and playouts that read ladders
(`playout_ladders`) set such escapes aside."""
import numpy as np
import pytest

from engine.core.board import BLACK, WHITE, copy_board
from engine.core.coords import parse_vertex
from engine.core.rng import make_rng
from engine.search.mcts import expand
from engine.search.tree import new_tree
from engine.tactics.ladders import capturable, chain_liberties, escape_is_caught
from policies.kernel import NO_REPLIES, NO_RULES, RULE_LADDERS, playout_moves, playout_moves_reading
from policies.loader import load_policy

from helpers import board_from_ascii, params

# Black C3 in atari (White B3, C2, C4; D2 makes the ladder): extending at D3 gives two
# liberties, and White's ataris drive the chain diagonally up to the right edge.
LADDER = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . O . . . . . .
    . O X . . . . . .
    . . O O . . . . .
    . . . . . . . . ."""


def at(vertex):
    return parse_vertex(vertex, 9)


def with_stones(text, **extra):
    """The fixture `text` with extra stones: vertex=colour letter."""
    rows = [line.split() for line in text.strip().splitlines()]
    for vertex, colour in extra.items():
        col = "ABCDEFGHJ".index(vertex[0])
        rows[9 - int(vertex[1:])][col] = colour
    return board_from_ascii("\n".join(" ".join(r) for r in rows))


def test_chain_liberties_lists_each_liberty_once():
    board = board_from_ascii(LADDER)
    out = np.zeros(8, np.int32)
    assert chain_liberties(board, at("C3"), out) == 1 and out[0] == at("D3")
    n = chain_liberties(board, at("C2"), out)
    assert sorted(out[:n]) == sorted(at(v) for v in ("C1", "D1", "E2", "D3", "B2"))


def test_a_ladder_to_the_edge_is_a_capture():
    board = board_from_ascii(LADDER)
    # White to move captures at D3 at once; Black to move extends and is still caught.
    assert capturable(board, at("C3"), WHITE, True)
    assert capturable(board, at("C3"), WHITE, False)


@pytest.mark.parametrize("breaker", ["F6", "G7", "E6"])
def test_a_ladder_breaker_on_the_path_lets_the_chain_escape(breaker):
    board = with_stones(LADDER, **{breaker: "X"})
    assert not capturable(board, at("C3"), WHITE, False)
    assert capturable(board, at("C3"), WHITE, True)   # White to move still takes it at D3


def test_a_white_stone_on_the_path_keeps_the_ladder():
    assert capturable(with_stones(LADDER, F6="O"), at("C3"), WHITE, False)


def test_capturing_a_chaser_in_atari_is_an_escape():
    # White C4 has one liberty left (D4; Black B4 and C5 around it): Black takes it instead.
    board = with_stones(LADDER, B4="X", C5="X")
    assert not capturable(board, at("C3"), WHITE, False)


def test_two_liberties_with_the_move_or_three_are_not_read_as_capturable():
    board = with_stones(LADDER, C4=".")
    assert not capturable(board, at("C3"), WHITE, False)   # two liberties, Black to move
    assert capturable(board, at("C3"), WHITE, True)        # White to move: C4, then the ladder
    board = with_stones(LADDER, C4=".", C2=".")
    assert not capturable(board, at("C3"), WHITE, True)    # three liberties


# Black D4 (two liberties, D5 and E4) in White's wall C4-C6, D3; Black F6 breaks the ladders.
# White E4, Black D5 (liberties D6, E5), then the net E6 catches it: Black D6 leaves D7 alone
# (atari at D7, then E5 is taken at F5), Black E5 leaves D6 and F5 (F5, then D6 is alone).
NET = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . O . . X . . .
    . . O . . . . . .
    . . O X . . . . .
    . . . O . . . . .
    . . . . . . . . .
    . . . . . . . . ."""


def test_a_net_catches_what_the_ladder_does_not():
    board = board_from_ascii(NET)
    assert not capturable(board, at("D4"), WHITE, True, 0)   # ataris alone: F6 breaks them
    assert capturable(board, at("D4"), WHITE, True, 1)
    assert capturable(board, at("D4"), WHITE, True, 2)


@pytest.mark.parametrize("helper", ["D7", "E7", "G5"])
def test_a_stone_that_breaks_the_net_lets_the_chain_escape(helper):
    # D7 or E7: Black D6 (or E6's neighbour) connects out; G5: White's F5 is in atari, taken.
    assert not capturable(with_stones(NET, **{helper: "X"}), at("D4"), WHITE, True, 1)


def children_priors(board, colour, depth=0, **values):
    p = params(**values)
    points = board.color.shape[0]
    tree = new_tree(512, points)
    pol = load_policy("handcrafted", 9)
    assert expand(tree, 0, board, colour, pol, p, np.zeros(points), np.zeros(points, np.int8),
                  depth)
    first, n = int(tree.child_start[0]), int(tree.n_child[0])
    return {int(tree.move[k]): float(tree.prior[k]) for k in range(first, first + n)}


def test_expand_lowers_the_escape_into_a_ladder_and_only_that():
    board = board_from_ascii(LADDER)
    off = children_priors(board, BLACK, ladder_escape=0.0, ladder_capture=0.0)
    on = children_priors(board, BLACK, ladder_escape=2.5, ladder_capture=0.0)
    shift = {m: on[m] - off[m] for m in off}
    # Priors are relative to the best child; D3 is the escape and drops by 2.5 against the rest.
    others = {round(v, 9) for m, v in shift.items() if m != at("D3")}
    assert len(others) == 1
    assert shift[at("D3")] == pytest.approx(others.pop() - 2.5)
    broken = with_stones(LADDER, F6="X")
    off = children_priors(broken, BLACK, ladder_escape=0.0, ladder_capture=0.0)
    on = children_priors(broken, BLACK, ladder_escape=2.5, ladder_capture=0.0)
    assert on == off


@pytest.mark.parametrize("depth, read", [(0, True), (1, True), (2, False), (5, False)])
def test_ladder_depth_keeps_the_reading_to_the_nodes_near_the_root(depth, read):
    board = board_from_ascii(LADDER)
    off = children_priors(board, BLACK, depth, ladder_escape=0.0, ladder_capture=0.0)
    on = children_priors(board, BLACK, depth, ladder_escape=2.5, ladder_capture=0.0,
                         ladder_depth=2)
    assert (on != off) == read
    everywhere = children_priors(board, BLACK, depth, ladder_escape=2.5, ladder_capture=0.0)
    assert everywhere != off   # 0, the default: every depth reads


def test_expand_lowers_the_escape_into_a_net_only_with_ladder_nets():
    # NET with White's atari at E4 played: Black D5 runs into the net.
    board = with_stones(NET, E4="O")
    off = children_priors(board, BLACK, ladder_escape=0.0, ladder_capture=0.0)
    ladders = children_priors(board, BLACK, ladder_escape=2.5, ladder_capture=0.0)
    assert ladders == off
    nets = children_priors(board, BLACK, ladder_escape=2.5, ladder_capture=0.0, ladder_nets=1)
    shift = {m: nets[m] - off[m] for m in off}
    others = {round(v, 9) for m, v in shift.items() if m != at("D5")}
    assert len(others) == 1
    assert shift[at("D5")] == pytest.approx(others.pop() - 2.5)


def test_expand_raises_the_atari_that_captures_by_ladder():
    # The same shape with colours swapped and C4 empty: Black to move, White C3 has two
    # liberties; the atari at C4 drives it into the ladder, the atari at D3 lets it out.
    swapped = LADDER.replace("O", "x").replace("X", "O").replace("x", "X")
    board = with_stones(swapped, C4=".")
    off = children_priors(board, BLACK, ladder_escape=0.0, ladder_capture=0.0)
    on = children_priors(board, BLACK, ladder_escape=0.0, ladder_capture=1.5)
    shift = {m: on[m] - off[m] for m in off}
    base = shift[at("A9")]
    raised = {m for m, d in shift.items() if d == pytest.approx(base + 1.5)}
    assert raised == {at("C4")}
    assert all(d == pytest.approx(base) for m, d in shift.items() if m not in raised)


def test_escape_is_caught_only_for_an_escape_into_a_working_ladder():
    board = board_from_ascii(LADDER)
    scratch = board_from_ascii(LADDER)
    assert escape_is_caught(board, at("D3"), BLACK, scratch)
    assert not escape_is_caught(board, at("E5"), BLACK, scratch)   # not an escape
    broken = with_stones(LADDER, F6="X")
    assert not escape_is_caught(broken, at("D3"), BLACK, scratch)
    assert board.color[at("D3")] == 0   # the board itself is left alone


def first_moves(board, reading, games=200):
    """Black's first move in `games` seeded playouts of the handcrafted policy from `board`."""
    pol = load_policy("handcrafted", 9)
    points = board.color.shape[0]
    firsts = []
    for seed in range(games):
        work, record = copy_board(board), np.full(4, -3, np.int32)
        args = (work, BLACK, make_rng(seed), np.zeros(points, np.int8), pol, record, NO_REPLIES)
        if reading:
            rules = NO_RULES.copy()
            rules[RULE_LADDERS] = 1.0
            playout_moves_reading(*args, rules, copy_board(board))
        else:
            playout_moves(*args)
        firsts.append(int(record[0]))
    return firsts


def test_playouts_that_read_ladders_never_run_into_one():
    board = board_from_ascii(LADDER)
    plain = first_moves(board, False)
    assert plain.count(at("D3")) > 100   # the escape's weight makes it the usual first move
    assert at("D3") not in first_moves(board, True)
    # With a ladder breaker the escape works, and the reading playouts still play it.
    broken = with_stones(LADDER, F6="X")
    assert first_moves(broken, True).count(at("D3")) > 100
