"""Local softmax playouts (policies/local.py): whole games of legal moves that replay from their
record, local draws that are the full softmax restricted to the last move's window, far draws
that are uniform when refused by weight every time, and the playout rules first."""
import numpy as np
import pytest

from engine.core.board import (BLACK, EMPTY, M_LAST, M_LAST2, M_MOVES, M_PASSES, WHITE,
                               area_score, copy_board, copy_into, is_eye, is_legal, new_board,
                               play)
from engine.core.coords import format_vertex, parse_vertex
from engine.core.rng import make_rng
from policies import default_softmax_spec, load_policy
from policies import softmax as S
from policies.features import WINDOW_DC, WINDOW_DR
from policies.local import ATARI_MAX, capture_move, note_ataris
from policies.kernel import (NO_REPLIES, NO_RULES, RULE_CAPTURES, RULE_FIGHTS, RULE_LOCAL,
                            playout_moves_reading)
from policies.playout import move_cap
from helpers import board_from_ascii
from test_policy_softmax import candidates, chi_square, rejects, replayed

# White's last move C2 leaves a race (tests/tactics/test_fights.py): Black's answers are D1
# (extend to three liberties) and D2 (an atari White cannot run from).
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


@pytest.fixture(scope="module")
def pol():
    return load_policy(default_softmax_spec(9), 9)


def local_rules(far, fights=0.0, captures=0.0):
    rules = NO_RULES.copy()
    rules[RULE_LOCAL] = far
    rules[RULE_FIGHTS] = fights
    rules[RULE_CAPTURES] = captures
    return rules


def first_move_counts(board, c, pol, rules, n, seed=5):
    """How often each point is the first move of `n` seeded playouts from `board`."""
    counts = np.zeros(board.color.shape[0], np.int64)
    work = copy_board(board)
    owner = np.zeros(board.color.shape[0], np.int8)
    first = np.zeros(1, np.int32)
    rng = make_rng(seed)
    for _ in range(n):
        copy_into(work, board)
        playout_moves_reading(work, c, rng, owner, pol, first, NO_REPLIES, rules, work)
        counts[first[0]] += 1
    return counts


@pytest.mark.parametrize("far, captures", [(0.05, 0.0), (0.41, 0.0), (5.0, 0.0), (0.41, 1.0)])
def test_local_playouts_play_legal_games_to_the_end(pol, far, captures):
    rules = local_rules(far, fights=1.0, captures=captures)
    for seed in range(12):
        start, c = replayed(9, seed, 15)
        b = copy_board(start)
        owner = np.zeros(b.color.shape[0], np.int8)
        record = np.full(4 * 81 + 64, -3, np.int32)
        score = playout_moves_reading(b, c, make_rng(seed), owner, pol, record, NO_REPLIES,
                                      rules, copy_board(start))
        assert b.meta[M_PASSES] >= 2 or b.meta[M_MOVES] >= move_cap(start)
        assert score == area_score(b, np.zeros_like(owner))
        # Every recorded move was legal when played, and none filled the mover's own eye.
        replay = copy_board(start)
        for p in record[:int(b.meta[M_MOVES] - start.meta[M_MOVES])]:
            p = int(p)
            if p >= 0:
                assert is_legal(replay, p, c) and not is_eye(replay, p, c)
            assert play(replay, p, c) >= 0
            c = 3 - c
        assert np.array_equal(replay.color, b.color)
        # The game ended with no candidate left to either side.
        for p in b.empties[:b.meta[4]]:
            assert not (is_legal(b, p, BLACK) and not is_eye(b, p, BLACK))
            assert not (is_legal(b, p, WHITE) and not is_eye(b, p, WHITE))


def test_a_seed_gives_the_same_game(pol):
    start, c = replayed(9, 3, 20)
    boards = []
    for _ in range(2):
        b = copy_board(start)
        playout_moves_reading(b, c, make_rng(9), np.zeros(b.color.shape[0], np.int8), pol,
                              np.zeros(0, np.int32), NO_REPLIES, local_rules(0.41), b)
        boards.append(b.color.copy())
    assert np.array_equal(*boards)


def window(b):
    last = int(b.meta[M_LAST])
    w = b.meta[1]
    return {last + int(dr) * w + int(dc) for dr, dc in zip(WINDOW_DR, WINDOW_DC)}


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_local_draws_are_the_softmax_restricted_to_the_last_moves_window(pol, seed):
    """With a negligible far weight, a move is drawn among the last move's window only, in the
    full softmax's proportions there (its context factors included)."""
    b, c = replayed(9, seed, 25)
    probs = np.zeros(b.color.shape[0])
    S.probabilities(b, c, pol, probs)
    near = np.zeros_like(probs)
    for q in window(b):
        if 0 <= q < probs.shape[0] and b.color[q] == EMPTY:
            near[q] = probs[q]
    assert near.sum() > 0
    near /= near.sum()
    n = 20000
    counts = first_move_counts(b, c, pol, local_rules(1e-12), n)
    assert counts[near == 0].sum() == 0
    stat, df = chi_square(counts, near, n)
    assert not rejects(stat, df)


def test_far_draws_refused_every_time_are_uniform(pol):
    """A far weight no move reaches refuses each draw by weight FAR_TRIES times and keeps the
    next: a uniform move among the candidates (the window's own points weigh nothing beside
    the far mass)."""
    b, c = replayed(9, 6, 20)
    cand = candidates(b, c)
    probs = np.zeros(b.color.shape[0])
    probs[cand] = 1.0 / len(cand)
    n = 20000
    counts = first_move_counts(b, c, pol, local_rules(1e200), n)
    assert counts[probs == 0].sum() == 0
    stat, df = chi_square(counts, probs, n)
    assert not rejects(stat, df)


def test_far_draws_prefer_heavier_moves(pol):
    """With a far weight between the candidates' weights, light moves (below it) are kept less
    often than heavy ones: the draw is not uniform."""
    b, c = replayed(9, 6, 20)
    b.meta[M_LAST] = b.meta[M_LAST2] = -1   # no window, no context: every move is far
    scores = np.full(b.color.shape[0], -np.inf)
    S.scores(b, c, pol, scores)
    cand = candidates(b, c)
    h = scores[cand]
    light = [p for p in cand if scores[p] < np.quantile(h, 0.25)]
    heavy = [p for p in cand if scores[p] > np.quantile(h, 0.75)]
    counts = first_move_counts(b, c, pol, local_rules(float(np.exp(np.median(h)))), 20000)
    assert counts[heavy].mean() > 2 * counts[light].mean()


def test_the_playout_rules_come_first(pol):
    """The fight rule's answers are played before any local or far draw (tests/tactics)."""
    board = board_from_ascii(RACE)
    play(board, parse_vertex("C2", 9), WHITE)
    counts = first_move_counts(board, BLACK, pol, local_rules(0.41, fights=1.0), 300)
    assert {format_vertex(int(p), 9) for p in np.flatnonzero(counts)} == {"D1", "D2"}


# A White stone in atari in the corner (Black captures at A8), a Black one in atari on the other
# side (White captures at J2), and nothing else near them.
TWO_ATARIS = """
    O X . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . X . . . .
    . . . . . . . . .
    . . . . O . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . O X"""


def first_vertices(counts):
    return {format_vertex(int(p), 9) for p in np.flatnonzero(counts)}


@pytest.mark.parametrize("c, capture", [(BLACK, "A8"), (WHITE, "J2")])
def test_far_moves_capture_a_chain_in_atari_anywhere_first(pol, c, capture):
    """With playout_captures 1, a far move is the mover's capture of a chain in atari, however
    far from the last move; the other colour's capture is not the mover's."""
    board = board_from_ascii(TWO_ATARIS)
    board.meta[M_LAST] = board.meta[M_LAST2] = -1   # no window: every move is far
    counts = first_move_counts(board, c, pol, local_rules(0.41, captures=1.0), 300)
    assert first_vertices(counts) == {capture}
    # Without the rule the far draw finds it now and then only.
    counts = first_move_counts(board, c, pol, local_rules(0.41), 300)
    assert len(first_vertices(counts)) > 10


def test_the_capture_list_follows_the_moves():
    """A move that puts a chain in atari lists its liberty (the stone's own chain included); a
    listed point captures for one colour only, and is dropped once it captures nothing."""
    empty_rows = "\n".join([". . . . . . . . ."] * 8)
    board = board_from_ascii("O . . . . . . . .\n" + empty_rows)
    w = int(board.meta[1])
    v = {name: parse_vertex(name, 9) for name in ("A9", "B9", "A8", "A7", "B8", "B1", "A1", "A2")}
    atari = np.zeros(ATARI_MAX, np.int64)
    arrays = (board.color, board.head, board.libs, board.libsum, w)

    play(board, v["B9"], BLACK)                      # White's A9 in atari, its liberty A8
    n = note_ataris(*arrays, v["B9"], atari, 0)
    assert list(atari[:n]) == [v["A8"]]
    rng = make_rng(1)
    assert capture_move(board.color, board.head, board.libs, w, BLACK, -1, atari, n, rng) \
        == (v["A8"], 1)
    assert capture_move(board.color, board.head, board.libs, w, WHITE, -1, atari, n, rng) \
        == (-1, 1)                                   # listed, but not White's capture
    assert capture_move(board.color, board.head, board.libs, w, BLACK, v["A8"], atari, n,
                         rng) == (-1, 1)             # the ko point is not played

    play(board, v["A8"], WHITE)                      # White extends to two liberties
    n = note_ataris(*arrays, v["A8"], atari, n)
    assert capture_move(board.color, board.head, board.libs, w, BLACK, -1, atari, n, rng) \
        == (-1, 0)                                   # A8 dropped

    play(board, v["A7"], BLACK)                      # atari again, at B8
    n = note_ataris(*arrays, v["A7"], atari, 0)
    assert list(atari[:n]) == [v["B8"]]

    play(board, v["B1"], BLACK)
    play(board, v["A1"], WHITE)                      # a self-atari: Black captures at A2
    n = note_ataris(*arrays, v["A1"], atari, n)
    assert sorted(atari[:n]) == sorted([v["B8"], v["A2"]])
    picks = {capture_move(board.color, board.head, board.libs, w, BLACK, -1, atari, n,
                           rng)[0] for _ in range(40)}
    assert picks == {v["B8"], v["A2"]}               # uniform among the captures
