"""Expansion (legal non-eye children sorted by H, PASS last, RAVE seeded by the prior),
the result a simulation backs up (score weight), the all-moves-as-first credit (plain and
weighted by `rave_decay`) and the last good replies the search learns (engine/search/mcts.py).
"""

import numpy as np
import pytest

from engine.core.board import BLACK, M_MOVES, M_NEMPTY, PASS, WHITE, new_board, play
from engine.core.coords import parse_vertex
from engine.core.rng import make_rng
from engine.search import mcts as search
from engine.search.mcts import expand, run
from engine.search.params import default_params
from engine.search.tree import T_NODES, allocate, find_child, new_tree
from policies import load_policy
from policies.kernel import NO_REPLIES, move_scores, playout_moves

from helpers import POINTS, POLICY, SIZE, at, board_from_ascii, params, root

# -- expansion --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 8, 81, 362])
def test_children_sort_as_a_stable_argsort_by_decreasing_h(n):
    """expand orders children with its own allocation-free merge sort: it must give what
    np.argsort(-h, kind="mergesort") gives, ties (frequent: few distinct H) in board order."""
    rng = np.random.default_rng(n)
    for distinct in (2, 5, 1000):
        h = rng.integers(0, distinct, 400).astype(float) * 0.25 - 1.0
        order = np.full(400, -1, np.int64)
        search.sort_by_score(h, n, order, np.empty(400, np.int64))
        assert list(order[:n]) == list(np.argsort(-h[:n], kind="mergesort"))
        assert (order[n:] == -1).all()


# Black has an eye at A5, White eyes at D2 and E1: each is its owner's own eye and suicide
# for the other colour.
EYES = """
. X . . .
X X . . .
. . . O .
. . O . O
. . . O .
"""


def expanded(board, colour, exclude=()):
    tree = new_tree(256, POINTS)
    ex = np.zeros(POINTS, np.int8)
    for p in exclude:
        ex[p] = 1
    ok = expand(tree, 0, board, colour, POLICY, default_params(), np.zeros(POINTS), ex)
    return ok, tree


def children_of(tree, node=0):
    first, n = int(tree.child_start[node]), int(tree.n_child[node])
    return [int(m) for m in tree.move[first:first + n]]


def empties(board):
    return {int(p) for p in board.empties[:int(board.meta[M_NEMPTY])]}


@pytest.mark.parametrize("colour", [BLACK, WHITE])
def test_expand_creates_legal_non_eye_moves_and_pass_last(colour):
    board = board_from_ascii(EYES)
    ok, tree = expanded(board, colour)
    assert ok
    moves = children_of(tree)
    assert moves[-1] == PASS and PASS not in moves[:-1]
    assert len(set(moves)) == len(moves)
    assert set(moves[:-1]) == empties(board) - {at("A5"), at("D2"), at("E1")}
    n = len(moves)
    assert tree.child_start[0] == 1 and tree.meta[T_NODES] == 1 + n
    first = 1
    assert all(tree.parent[first:first + n] == 0)
    assert all(tree.visits[first:first + n] == 0) and all(tree.n_child[first:first + n] == 0)
    priors = tree.prior[first:first + n]
    assert all(np.diff(priors) <= 0), "children must be sorted by H, best first"
    assert priors[-1] < priors[0], "PASS comes after every move by H"
    # The uniform policy's H is flat: the node is marked never to be pruned.
    assert tree.allowed[0] == n


def test_expand_on_an_empty_board_and_with_exclusions():
    board = new_board(SIZE)
    ok, tree = expanded(board, BLACK)
    assert ok and len(children_of(tree)) == SIZE * SIZE + 1
    ok, tree = expanded(board, BLACK, exclude=[at("C3"), at("A1")])
    moves = children_of(tree)
    assert at("C3") not in moves and at("A1") not in moves
    assert len(moves) == SIZE * SIZE - 1


def test_expand_with_no_move_left_gives_pass_alone():
    board = board_from_ascii("""
        X X X X X
        X . X X X
        X X X X X
        X X X . X
        X X X X X""")
    for colour in (BLACK, WHITE):
        ok, tree = expanded(board, colour)
        assert ok and children_of(tree) == [PASS]
        assert tree.allowed[0] == 1


def test_expand_normalises_priors_and_seeds_rave_with_the_policy():
    """Priors are H minus the best child's H; with RAVE on and prior_visits, every child starts
    with that many virtual AMAF games won at sigmoid(gain * (H - log mean exp H))."""
    pol = load_policy("handcrafted", SIZE)
    board = board_from_ascii(EYES)
    h = np.zeros(POINTS)
    move_scores(board, BLACK, pol, h)
    for rave, prior_n in ((0.0, 20.0), (1.0, 0.0), (1.0, 20.0)):
        tree = new_tree(256, POINTS)
        p = params(rave=rave, prior_visits=prior_n, prior_gain=0.7)
        assert expand(tree, 0, board, BLACK, pol, p, np.zeros(POINTS), np.zeros(POINTS, np.int8))
        first, n = int(tree.child_start[0]), int(tree.n_child[0])
        moves = [int(m) for m in tree.move[first:first + n - 1]]
        hs = np.array([h[m] for m in moves])
        assert tree.prior[first] == 0.0
        np.testing.assert_allclose(tree.prior[first:first + n - 1], hs - hs.max())
        assert tree.prior[first + n - 1] < tree.prior[first:first + n - 1].min()  # PASS last
        rn, rw = tree.rave_n[first:first + n], tree.rave_w[first:first + n]
        if rave == 0.0 or prior_n == 0.0:
            assert not rn.any() and not rw.any()
            continue
        assert np.all(rn == prior_n)
        mean = np.log(np.mean(np.exp(hs - hs.max())))
        expected = 1.0 / (1.0 + np.exp(-0.7 * (tree.prior[first:first + n] - mean)))
        np.testing.assert_allclose(rw / rn, expected)
        assert rw[0] / rn[0] > 0.5 > rw[n - 1] / rn[n - 1]


def test_a_fixed_prior_center_does_not_depend_on_the_other_moves():
    """With prior_center >= 0 a child's virtual win rate is sigmoid(gain * (H - centre)) in
    absolute H, so one overwhelming move (a capture) leaves the others' priors alone."""
    pol = load_policy("handcrafted", SIZE)
    board = board_from_ascii(EYES)
    h = np.zeros(POINTS)
    move_scores(board, BLACK, pol, h)
    tree = new_tree(256, POINTS)
    p = params(prior_visits=20.0, prior_gain=0.7, prior_center=1.5)
    assert expand(tree, 0, board, BLACK, pol, p, np.zeros(POINTS), np.zeros(POINTS, np.int8))
    first, n = int(tree.child_start[0]), int(tree.n_child[0])
    hs = np.array([h[int(m)] for m in tree.move[first:first + n - 1]])
    rn, rw = tree.rave_n[first:first + n - 1], tree.rave_w[first:first + n - 1]
    np.testing.assert_allclose(rw / rn, 1.0 / (1.0 + np.exp(-0.7 * (hs - 1.5))))


BLACK_TWO_EYES = """
. X . X X
X X X X X
X X X X X
X X X X X
X X X X X
"""


@pytest.mark.parametrize("weight, scale", [(0.0, 20.0), (1.0, 20.0), (0.5, 20.0), (0.5, 10.0)])
def test_score_weight_blends_the_margin_into_the_result(weight, scale):
    """Black owns all 25 points for good (two eyes, nothing left to play): with komi 7 every
    simulation is a win by 18, worth (1 - w) + w * (1 + min(18 / scale, 1)) / 2 to Black."""
    tree = new_tree(256, POINTS)
    p = params(score_weight=weight, score_scale=scale)
    run(tree, root(board_from_ascii(BLACK_TWO_EYES), 7.0), POLICY, POLICY, p, 10, make_rng(0))
    first = int(tree.child_start[0])
    assert children_of(tree) == [PASS] and tree.visits[first] == 10
    expected = (1.0 - weight) + weight * 0.5 * (1.0 + min(18.0 / scale, 1.0))
    assert tree.wins[first] / tree.visits[first] == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(4))
def test_rave_credits_the_moves_of_the_playout(seed):
    """One simulation from the root with expansion off: the root's first child (by H, chosen
    deterministically with prune_visits 0) is played, then a playout.  Each root child whose
    point was first played (tree move or playout move) by the root's player gets one AMAF game
    with the result (unweighted: rave_decay 0); no other child does.  The playout is replayed
    from the same rng state."""
    board = board_from_ascii(EYES)
    p = params(rave=1.0, prior_visits=0.0, prune_visits=0.0, expand_visits=1e9, rave_decay=0.0)
    tree = new_tree(256, POINTS)
    run(tree, root(board, 0.5), POLICY, POLICY, p, 1, make_rng(seed))
    first, n = int(tree.child_start[0]), int(tree.n_child[0])
    chosen = [k for k in range(first, first + n) if tree.visits[k] == 1]
    assert len(chosen) == 1
    work = board_from_ascii(EYES)
    move = int(tree.move[chosen[0]])
    play(work, move, BLACK)
    record = np.full(4 * POINTS, -3, np.int32)
    before = int(work.meta[M_MOVES])
    score = playout_moves(work, WHITE, make_rng(seed), np.zeros(POINTS, np.int8), POLICY, record, NO_REPLIES)
    sequence = [move] + [int(m) for m in record[:int(work.meta[M_MOVES]) - before]]
    first_by = {}
    for j, m in enumerate(sequence):
        if m != PASS and m not in first_by:
            first_by[m] = BLACK if j % 2 == 0 else WHITE
    black_won = 1.0 if score > 0.5 else 0.0
    credited = {int(tree.move[k]) for k in range(first, first + n) if tree.rave_n[k] > 0}
    expected = {m for m, c in first_by.items() if c == BLACK}
    assert credited == expected & {int(m) for m in tree.move[first:first + n]}
    assert len(credited) > 1, "the playout's moves must count, not only the tree's"
    for k in range(first, first + n):
        if tree.rave_n[k] > 0:
            assert tree.rave_n[k] == 1.0 and tree.rave_w[k] == black_won


# -- last good replies ------------------------------------------------------------------------

def expected_replies(sequence, first_colour, black_won, start=None):
    """LGRF-1 by hand: the winner's moves become replies to the moves before them; a loser's
    stored reply equal to its move is forgotten."""
    table = {} if start is None else dict(start)
    winner = BLACK if black_won else WHITE
    for j in range(1, len(sequence)):
        prev, m = sequence[j - 1], sequence[j]
        if prev == PASS or m == PASS:
            continue
        c = first_colour if j % 2 == 0 else 3 - first_colour
        if c == winner:
            table[(c, prev)] = m
        elif table.get((c, prev)) == m:
            del table[(c, prev)]
    return table


def reply_table(tree):
    return {(c + 1, p): int(tree.replies[c, p]) for c in range(2) for p in range(POINTS)
            if tree.replies[c, p] != PASS}


@pytest.mark.parametrize("seed", range(4))
def test_last_good_replies_are_the_winners_moves_of_the_simulation(seed):
    """One simulation with lgr on (no expansion: one tree move, then the playout), replayed:
    the table holds exactly the winner's replies, and a stored reply of the loser's that the
    simulation played is forgotten."""
    board = board_from_ascii(EYES)
    p = params(lgr=1.0, prune_visits=0.0, expand_visits=1e9)
    tree = new_tree(256, POINTS)
    run(tree, root(board, 0.5), POLICY, POLICY, p, 1, make_rng(seed))
    first, n = int(tree.child_start[0]), int(tree.n_child[0])
    move = int(tree.move[[k for k in range(first, first + n) if tree.visits[k] == 1][0]])
    work = board_from_ascii(EYES)
    play(work, move, BLACK)
    record = np.full(4 * POINTS, -3, np.int32)
    before = int(work.meta[M_MOVES])
    score = playout_moves(work, WHITE, make_rng(seed), np.zeros(POINTS, np.int8), POLICY, record,
                          np.full((2, POINTS), PASS, np.int32))
    sequence = [move] + [int(m) for m in record[:int(work.meta[M_MOVES]) - before]]
    table = expected_replies(sequence, BLACK, score > 0.5)
    assert len(table) > 3 and reply_table(tree) == table


def test_last_good_replies_forget_the_losers_moves():
    """Hand-made simulation: Black (first) wins, so Black's replies are stored and White's
    stored replies that it played are dropped; other stored replies stay."""
    a, b, c, d, e = (at(v) for v in ("A1", "B2", "C3", "D4", "E5"))
    replies = np.full((2, POINTS), PASS, np.int32)
    replies[WHITE - 1, a] = b          # White's answer to A1 was B2, and it loses again: forget
    replies[WHITE - 1, c] = a          # White's answer to C3 was A1, but it plays D4 now: keep
    replies[BLACK - 1, e] = a          # untouched
    moves = np.array([a, b, c, d, PASS, e, -3], np.int32)
    search._update_replies(replies, moves, 6, BLACK, 1.0)
    table = {(k + 1, p): int(replies[k, p]) for k in range(2) for p in range(POINTS)
             if replies[k, p] != PASS}
    assert table == {(BLACK, b): c, (WHITE, c): a, (BLACK, e): a}
    assert table == expected_replies([a, b, c, d, PASS, e], BLACK, True,
                                     {(WHITE, a): b, (WHITE, c): a, (BLACK, e): a})


@pytest.mark.parametrize("weights", ["uniform", "handcrafted"])
def test_playouts_answer_with_a_usable_stored_reply_only(weights):
    """A stored reply to the last move is played at once; an occupied one is ignored, leaving
    the very game played without a table."""
    size, points = 9, 121
    pol = load_policy(weights, size)
    start = new_board(size)
    play(start, parse_vertex("E5", size), BLACK)

    def first_moves(replies, seed=3):
        b = new_board(size)
        play(b, parse_vertex("E5", size), BLACK)
        record = np.full(400, -3, np.int32)
        playout_moves(b, WHITE, make_rng(seed), np.zeros(points, np.int8), pol, record, replies)
        return [int(m) for m in record[:20]]

    table = np.full((2, points), PASS, np.int32)
    table[WHITE - 1, parse_vertex("E5", size)] = parse_vertex("J9", size)
    assert first_moves(table)[0] == parse_vertex("J9", size)
    plain = first_moves(NO_REPLIES)
    table[WHITE - 1, parse_vertex("E5", size)] = parse_vertex("E5", size)   # occupied
    assert first_moves(table) == plain


def test_rave_updates_weigh_early_plays_more_with_rave_decay():
    """AMAF credits the root's children whose point the root's player played first later in
    the simulation; with rave_decay d the credit falls from 1 + d at the root's own move to
    1 - d at the simulation's last, and a point the opponent took first earns nothing."""
    a, b, c, d = 10, 11, 12, 13
    moves = np.array([a, b, c, b, d], np.int32)   # Black a, c, d; White b (twice)
    for decay, expected in ((0.0, [1.0, 0.0, 1.0, 1.0]), (1.0, [2.0, 0.0, 1.0, 0.0]),
                            (0.5, [1.5, 0.0, 1.0, 0.5])):
        tree = new_tree(16, 81)
        start = allocate(tree, 4)
        tree.child_start[0], tree.n_child[0] = start, 4
        tree.move[start:start + 4] = (a, b, c, d)
        path = np.zeros(8, np.int32)
        path[1] = start                            # the tree part: Black's a
        search._update_rave(tree, path, 1, moves, len(moves), BLACK, 0.25,
                            np.zeros(81, np.int32), np.zeros((2, 81)), decay)
        np.testing.assert_allclose(tree.rave_n[start:start + 4], expected)
        np.testing.assert_allclose(tree.rave_w[start:start + 4], 0.25 * np.array(expected))


RAVE_SEEN = {"C3": (30.0, 21.0), "D4": (5.0, 1.0), "A1": (0.5, 0.5)}   # real AMAF games, wins


def grandchildren_rave(cap, prior_n=20.0):
    """Expand the root (Black to move), give some of its children the real AMAF games of
    RAVE_SEEN, then expand Black B2 and White E5 below it: {move: (rave_n, rave_w)} of the
    node two plies down, Black to move again, with rave_inherit `cap`; and the root's rates."""
    p = params(prior_visits=prior_n, rave_inherit=cap)
    board = new_board(SIZE)
    tree = new_tree(256, POINTS)
    scores, ex = np.zeros(POINTS), np.zeros(POINTS, np.int8)
    assert expand(tree, 0, board, BLACK, POLICY, p, scores, ex)
    for vertex, (real, won) in RAVE_SEEN.items():
        k = find_child(tree, 0, at(vertex))
        tree.rave_n[k] += real
        tree.rave_w[k] += won
    rates = {v: tree.rave_w[k] / tree.rave_n[k]
             for v in RAVE_SEEN for k in [find_child(tree, 0, at(v))]}
    black = find_child(tree, 0, at("B2"))
    play(board, at("B2"), BLACK)
    assert expand(tree, black, board, WHITE, POLICY, p, scores, ex, 1)
    white = find_child(tree, black, at("E5"))
    play(board, at("E5"), WHITE)
    assert expand(tree, white, board, BLACK, POLICY, p, scores, ex, 2)
    first, n = int(tree.child_start[white]), int(tree.n_child[white])
    return {int(tree.move[k]): (tree.rave_n[k], tree.rave_w[k]) for k in range(first, first + n)}, rates


@pytest.mark.parametrize("cap", [10.0, 40.0])
def test_rave_inherit_seeds_grandchildren_with_the_grandparents_amaf(cap):
    """With rave_inherit K, a node two plies below the root starts each child with
    min(K, real AMAF games) of the root's child of the same move, at that child's whole rate,
    beside the prior's games; moves the root saw fewer than one real game of, and PASS, get
    the prior alone (what rave_inherit 0 gives every child)."""
    plain, _ = grandchildren_rave(0.0)
    inherited, rates = grandchildren_rave(cap)
    assert plain.keys() == inherited.keys() and PASS in plain
    for move, (n, w) in inherited.items():
        vertex = next((v for v in RAVE_SEEN if at(v) == move), None)
        real = RAVE_SEEN[vertex][0] if vertex else 0.0
        extra = min(cap, real) if real >= 1.0 else 0.0
        assert n == pytest.approx(plain[move][0] + extra)
        assert w == pytest.approx(plain[move][1] + extra * (rates[vertex] if extra else 0.0))
    assert inherited[at("C3")][0] > plain[at("C3")][0]
