"""The rule-based playouts after Fuego's (policies/rulebased.py): the self-atari test against
playing the move, the eye and mutual-atari filter, the corrections, each rule's answer in a
position made for it, whole games that are legal and end only when nothing is playable, and
the random step drawn by rules3x3 weights: its distribution, its psi, its weight files."""
import numpy as np
import pytest

from engine.core.board import (BLACK, BORDER, EMPTY, M_LAST, M_LAST2, M_MOVES, M_NEMPTY,
                               M_PASSES, WHITE, area_score, copy_board, is_eye, is_legal, play)
from engine.core.coords import parse_vertex
from engine.core.rng import make_rng
from policies import load_policy
from policies.builtin import mogo_code_bits, mogo_code_table
from policies.features import N_PAT, NCODES, RULES, code_at, libs_after
from policies.kernel import (NO_REPLIES, NO_RULES, playout_moves, playout_with_grad,
                             run_playouts)
from policies.loader import rules_policy
from policies.playout import move_cap
from policies.rulebased import (BALANCE_MARGIN, MAX_CANDIDATES, NOT_PLAYABLE,
                                PLAYABLE_SELF_ATARI, add_random_psi, atari_defence,
                                gains_liberties, low_liberty_moves, matches_mogo,
                                mercy_stones, nakade_shape, playable, run_rules_playout,
                                random_move, self_atari, self_atari_correction, surrounded)
from policies.weights import WeightFileError, read_weights, write_weights
from helpers import board_from_ascii
from test_local_playouts import first_move_counts
from test_policy_softmax import chi_square, rejects, replayed

NO_BALANCE = np.zeros(0, np.int64)   # `playable` with no balancer: every mutual atari refused


@pytest.fixture(scope="module")
def rules():
    return load_policy("rules", 9)


def arrays(b):
    return b.color, b.head, b.libs, b.libsum, b.nxt, int(b.meta[1])


def vertices(size):
    return lambda name: parse_vertex(name, size)


def first_moves(board, c, pol, n, seed=3):
    """How often each point is the first move of `n` seeded playouts (the rules ignore the
    search's playout-rules table)."""
    return first_move_counts(board, c, pol, NO_RULES, n, seed)


def points_of(counts):
    return {int(p) for p in np.nonzero(counts)[0]}


def test_gains_liberties_agrees_with_the_walking_count():
    """The liberty-sum shortcut of the low-liberty rule answers as policies.features'
    libs_after, which walks every adjacent chain, over random positions, both colours."""
    checked = gains = 0
    for seed in range(40):
        b, _ = replayed(9, seed, 20 + seed % 50)
        color, head, libs, libsum, nxt, w = arrays(b)
        for p in b.empties[:b.meta[M_NEMPTY]]:
            p = int(p)
            for mover in (BLACK, WHITE):
                expected = libs_after(color, head, libs, nxt, w, p, mover, 3) >= 3
                assert gains_liberties(color, head, libs, libsum, nxt, w, p, mover) == expected, \
                    (seed, p, mover)
                checked += 1
                gains += expected
    assert checked > 2000 and 50 < gains < checked - 50


def test_self_atari_is_one_liberty_after_the_move():
    """Over random positions, every legal move: a self-atari exactly when the mover's chain has
    one liberty once played, captures counted; a lone stone's capture (a ko-like recapture) is
    never one, as in Fuego."""
    checked = found = 0
    for seed in range(40):
        b, c = replayed(9, seed, 30 + seed % 40)
        color, head, libs, libsum, nxt, w = arrays(b)
        for p in b.empties[:b.meta[M_NEMPTY]]:
            p = int(p)
            for mover in (BLACK, WHITE):
                if not is_legal(b, p, mover):
                    continue
                after = copy_board(b)
                before = after.meta[5 + mover - 1]
                play(after, p, mover)
                lone_capture = (after.meta[5 + mover - 1] > before
                                and all(color[q] != mover for q in (p - 1, p + 1, p - w, p + w)))
                expected = after.libs[after.head[p]] == 1 and not lone_capture
                assert self_atari(color, head, libs, libsum, nxt, w, p, mover) == expected, (seed, p)
                checked += 1
                found += expected
    assert checked > 2000 and found > 50


def test_surrounded_points_include_false_eyes_but_not_ataris():
    v = vertices(5)
    b = board_from_ascii("""
        . . . . .
        . X . . .
        X . X . .
        O X O . .
        . . . . .""")
    color, head, libs, _, _, w = arrays(b)
    # B3 is a false eye (White on two diagonals): the board's eye test says so, Fuego's filter
    # looks at the four neighbours only.
    assert surrounded(color, head, libs, w, v("B3")) and not is_eye(b, v("B3"), BLACK)
    b = board_from_ascii("""
        . . . . .
        . . . . .
        X . . . .
        O X . . .
        . O X . .""")
    color, head, libs, _, _, w = arrays(b)
    assert not surrounded(color, head, libs, w, v("A1"))   # White's stones there are in atari
    assert not surrounded(color, head, libs, w, v("B4"))   # empty neighbours


def test_nakade_shapes():
    """Shapes of Black's stones joined to empty A1 (with A1): one eye once captured, or not, by
    Fuego's list (sizes up to three, square and pyramid four, bulky and crossed five, rabbity
    six)."""
    def shape(rows):
        b = board_from_ascii(". . . . .\n" * (5 - len(rows)) + "\n".join(rows))
        return nakade_shape(b.color, b.mark, b.meta, int(b.meta[1]), parse_vertex("A1", 5),
                            BLACK, np.zeros(8, np.int64))
    assert shape(["X X . . .", ". X . . ."])                    # square four
    assert shape([". X . . .", ". X X . ."])                    # pyramid four
    assert shape(["X . . . .", "X X . . .", ". X . . ."])       # bulky five
    assert shape([". X X . ."])                                 # straight three
    assert not shape([". X X X ."])                             # straight four lives
    assert not shape([". X . . .", ". X X X ."])                # an L of five
    assert not shape([". . . . X", ". . . . X", ". X X X X"])   # seven stones


def test_playable_refuses_eyes_and_mutual_ataris():
    v = vertices(5)
    # White's chain A2-D2-D1 and Black's B1 share their only liberties, A1 and C1 (a seki).
    # White A1 would put six stones in atari, not in a nakade shape, where Black's stone
    # would be in atari too: a mutual atari.  Black A1 puts only two stones in atari.
    b = board_from_ascii("""
        . . . . .
        . . . . .
        X X X X X
        O O O O X
        . X . O X""")
    space = np.zeros(8, np.int64)
    assert is_legal(b, v("A1"), WHITE) and not playable(b, v("A1"), WHITE, space, NO_BALANCE)
    assert playable(b, v("A1"), BLACK, space, NO_BALANCE)
    assert playable(b, v("C5"), WHITE, space, NO_BALANCE)
    b = board_from_ascii("""
        . . . . .
        . . . . .
        . . . . .
        X X . . .
        . X . . .""")
    assert not playable(b, v("A1"), BLACK, space, NO_BALANCE)   # Black's own eye
    assert not playable(b, v("A1"), WHITE, space, NO_BALANCE)   # suicide


# Black's nakade-shaped throw-in B3 beside White's chain with an eye at A1: a seki (session 53).
SEKI_5X5 = """
        . X O X .
        X X O X .
        O . O X .
        O O O X .
        . O X X ."""


def test_a_nakade_throw_in_beside_a_chain_with_an_eye_is_a_mutual_atari():
    """Black's pyramid B3-B4-A4-B5 would be in atari at A5, and White's chain, whose other
    liberty is its eye A1, in atari too: a seki.  Fuego lets the nakade shape through, but White
    keeps A1 whatever the capture leaves, so Black B3 only loses four stones (BENCHMARKS.md,
    session 53): refused.  With A1 no eye of White's (Black B1), the throw-in may kill and is
    let through, a self-atari."""
    v = vertices(5)
    space = np.zeros(8, np.int64)
    b = board_from_ascii(SEKI_5X5)
    assert is_legal(b, v("B3"), BLACK) and self_atari(*arrays(b), v("B3"), BLACK)
    assert not playable(b, v("B3"), BLACK, space, NO_BALANCE)
    assert not playable(b, v("B3"), WHITE, space, NO_BALANCE)   # eight stones: a mutual atari
    b = board_from_ascii(SEKI_5X5.replace(". O X X .", ". X X X ."))
    assert playable(b, v("B3"), BLACK, space, NO_BALANCE) == PLAYABLE_SELF_ATARI
    assert not playable(b, v("B3"), WHITE, space, NO_BALANCE)


def test_the_balancer_lets_a_colour_through_once_it_has_refused_margin_more_than_the_other():
    """Fuego's SgBalancer: White's eight-stone mutual atari B3 in the seki above is refused while
    White's refusals stay within BALANCE_MARGIN of Black's, then let through; one refusal of
    Black's (the same position, colours swapped) makes room for one more of White's.  No
    balancer: always refused."""
    v = vertices(5)
    space = np.zeros(8, np.int64)
    b = board_from_ascii(SEKI_5X5)
    swapped = board_from_ascii(SEKI_5X5.replace("X", "x").replace("O", "X").replace("x", "O"))
    balance = np.zeros(1, np.int64)
    for _ in range(BALANCE_MARGIN):
        assert playable(b, v("B3"), WHITE, space, balance) == NOT_PLAYABLE
    assert balance[0] == -BALANCE_MARGIN
    assert playable(b, v("B3"), WHITE, space, balance) == PLAYABLE_SELF_ATARI
    assert playable(b, v("B3"), WHITE, space, NO_BALANCE) == NOT_PLAYABLE
    assert playable(swapped, v("B3"), BLACK, space, balance) == NOT_PLAYABLE
    assert balance[0] == -BALANCE_MARGIN + 1
    assert playable(b, v("B3"), WHITE, space, balance) == NOT_PLAYABLE
    assert playable(b, v("B3"), WHITE, space, balance) == PLAYABLE_SELF_ATARI


def test_a_throw_in_the_correction_turns_into_a_connection_is_played_as_the_connection():
    """From a game Simbal resigned against Fuego (runs of session 60, s58/ctl1s/game-0029 at
    move 65): White's chain E2-F2-G2-E3-G3-H3-F4-G4-F1 has two liberties, its eye F3 and G1.
    Black G1 is a pyramid-four self-atari beside that eye, the refused throw-in of session 53;
    but the self-atari correction plays it as J2, Black's connection to its living corner, after
    which G1 kills.  Refusing G1 left White alive in every playout (BENCHMARKS.md, session 62):
    it is playable, and corrected to J2.  The seki of the test above is still refused."""
    v = vertices(9)
    space = np.zeros(8, np.int64)
    b = board_from_ascii("""
        O . O O O . O X .
        X O . O . O X X .
        . O O X O O X O .
        . O X X O X . X .
        . O O X X X X . X
        O . X . X O O X X
        . O . X O . O O X
        X . . X O O O X .
        . X . X X O . X X""")
    g1 = v("G1")
    assert self_atari(*arrays(b), g1, BLACK) and is_legal(b, g1, BLACK)
    assert playable(b, g1, BLACK, space, NO_BALANCE) == PLAYABLE_SELF_ATARI
    assert self_atari_correction(b, *arrays(b), g1, BLACK) == v("J2")


def test_the_balancer_ends_a_blind_spot_that_only_one_colour_meets():
    """From a game Simbal resigned against Fuego (s58/pv100-1s/game-0095 at move 61, White to
    move): Black's H1-H2-G2 and White's J2 share J1; Black J1 is a mutual atari (four stones),
    which the correction would play as G1, the connection that wins the race against White's
    one-eyed chain.  White never meets a mutual atari here, so with the balancer Black's
    refusals run out and the playouts find the kill (Fuego's search does the same: its playouts
    turn after a few dozen); without it White lives in almost every playout (BENCHMARKS.md,
    session 63)."""
    b = board_from_ascii("""
        . O . O X X X . .
        O X O O O X . X X
        . X . O X X X O O
        . X O . . . X O .
        X O O X X . X O X
        O O . X O . X O O
        . X O X O O O O .
        . O . X X O X X O
        . . . X X X . X .""")
    n = 400
    white = {}
    for name, balance in (("none", NO_BALANCE), ("balanced", np.zeros(1, np.int64))):
        pol = load_policy("rules", 9)._replace(balance=balance)
        white[name] = 1 - run_playouts(b, WHITE, n, make_rng(1), 7.5, pol, NO_RULES) / n
    assert white["none"] > 0.8 and white["balanced"] < 0.35, white


def test_corrections_replace_self_ataris_by_better_points():
    """Over random positions: the correction leaves a move that is not a self-atari alone, and
    replaces a self-atari only by a legal point that is not one."""
    changed = 0
    for seed in range(30):
        b, c = replayed(9, seed, 40)
        color, head, libs, libsum, nxt, w = arrays(b)
        for p in b.empties[:b.meta[M_NEMPTY]]:
            p = int(p)
            if not is_legal(b, p, c):
                continue
            r = self_atari_correction(b, color, head, libs, libsum, nxt, w, p, c)
            if not self_atari(color, head, libs, libsum, nxt, w, p, c):
                assert r == p
            elif r != p:
                changed += 1
                assert color[r] == EMPTY and is_legal(b, r, c)
                assert not self_atari(color, head, libs, libsum, nxt, w, r, c) or \
                    all(color[q] != c for q in (p - 1, p + 1, p - w, p + w))
    assert changed > 10


def test_a_lone_self_atari_moves_to_its_open_neighbour():
    v = vertices(5)
    b = board_from_ascii("""
        . . . . .
        . . . . .
        O . . . .
        . O . . .
        . . . . .""")
    color, head, libs, libsum, nxt, w = arrays(b)
    # Black A2 has one liberty (A1) and captures nothing; A1 has two empty neighbours counting
    # A2 itself, so Fuego plays A1 instead.
    assert self_atari_correction(b, color, head, libs, libsum, nxt, w, v("A2"), BLACK) == v("A1")


def test_the_last_moves_chain_in_atari_is_captured(rules):
    v = vertices(5)
    b = board_from_ascii("""
        . . . . .
        . . . . .
        . . X . .
        . X . X .
        . . . . .""")
    play(b, v("C2"), WHITE)     # in atari at C1
    counts = first_moves(b, BLACK, rules, 200)
    assert points_of(counts) == {v("C1")}


def test_atari_is_answered_by_extending(rules):
    v = vertices(5)
    b = board_from_ascii("""
        . . . . .
        . . . . .
        . O X O .
        . . . . .
        . . . . .""")
    play(b, v("C4"), WHITE)     # Black C3 in atari, its liberty C2 gives it three
    assert points_of(first_moves(b, BLACK, rules, 200)) == {v("C2")}


def test_atari_is_answered_by_extending_or_capturing_an_attacker(rules):
    v = vertices(5)
    b = board_from_ascii("""
        . . . . .
        . . . . .
        . . X . .
        O X O X .
        . . . . .""")
    play(b, v("B3"), WHITE)     # Black B2 in atari; White's C2 next to it is in atari at C1
    assert points_of(first_moves(b, BLACK, rules, 400)) == {v("B1"), v("C1")}


def test_two_liberty_chain_is_attacked_where_it_would_extend(rules):
    v = vertices(5)
    b = board_from_ascii("""
        . . . . .
        . . . . .
        . X . X .
        . . . . .
        . . . . .""")
    play(b, v("C3"), WHITE)     # two liberties, C4 and C2, each giving it three more
    counts = first_moves(b, BLACK, rules, 4000)
    assert points_of(counts) == {v("C4"), v("C2")}
    assert abs(counts[v("C4")] - 2000) < 200


def test_the_packed_mogo_table_answers_as_the_table_for_every_code():
    """The playouts read MoGo's patterns from a bit table; every code of either colour must
    read as the plain table says (its matches and its non-matches)."""
    table, bits = mogo_code_table(), mogo_code_bits()
    assert bits.dtype == np.uint8 and bits.shape == (2, NCODES // 8)
    read = np.array([[matches_mogo(bits, c, np.int32(code)) for code in range(NCODES)]
                     for c in (BLACK, WHITE)])
    assert np.array_equal(read, table > 0)
    assert 0 < table[0].sum() < NCODES


def test_pattern_moves_are_uniform_among_the_matches(rules):
    """Where the last move leaves no atari and no two-liberty chain, the move is uniform among
    the last two moves' neighbours that match a MoGo pattern and are playable, no self-atari."""
    table = mogo_code_table()
    assert table.shape == (2, NCODES) and np.array_equal(table[0], table[1])
    space = np.zeros(8, np.int64)
    cand = np.zeros(MAX_CANDIDATES, np.int64)
    tested = 0
    for seed in range(60):
        b, c = replayed(9, seed, 12 + seed % 20)
        color, head, libs, libsum, nxt, w = arrays(b)
        last, last2 = int(b.meta[M_LAST]), int(b.meta[M_LAST2])
        if last < 0 or last2 < 0 or color[last2] == EMPTY or libs[head[last]] == 1:
            continue
        if atari_defence(color, head, libs, libsum, nxt, w, last, c, cand) or \
                low_liberty_moves(color, head, libs, libsum, nxt, w, last, c, cand):
            continue

        def ring(p):
            return [p + w - 1, p + w, p + w + 1, p - 1, p + 1, p - w - 1, p - w, p - w + 1]
        listed = [q for q in ring(last) if color[q] == EMPTY]
        listed += [q for q in ring(last2) if color[q] == EMPTY and q not in ring(last)]
        expected = [q for q in listed if table[c - 1, code_at(color, w, q)]
                    and not self_atari(color, head, libs, libsum, nxt, w, q, c)
                    and playable(b, q, c, space, NO_BALANCE)]
        if len(expected) < 3:
            continue
        n = 3000
        counts = first_moves(b, c, rules, n, seed)
        probs = np.zeros(b.color.shape[0])
        probs[expected] = 1.0 / len(expected)
        assert points_of(counts) == set(expected), seed
        assert not rejects(*chi_square(counts, probs, n)), seed
        tested += 1
        if tested == 3:
            break
    assert tested == 3


@pytest.mark.parametrize("seed", range(8))
def test_playouts_are_legal_games_that_end_with_nothing_playable(rules, seed):
    start, c = replayed(9, seed, 10 + 5 * seed)
    b = copy_board(start)
    owner = np.zeros(b.color.shape[0], np.int8)
    record = np.full(4 * 81 + 64, -3, np.int32)
    score = playout_moves(b, c, make_rng(seed), owner, rules, record, NO_REPLIES)
    assert b.meta[M_PASSES] >= 2 or b.meta[M_MOVES] >= move_cap(start)
    assert score == area_score(b, np.zeros_like(owner))
    replay = copy_board(start)
    for p in record[:int(b.meta[M_MOVES] - start.meta[M_MOVES])]:
        p = int(p)
        if p >= 0:
            assert is_legal(replay, p, c)
        play(replay, p, c)
        c = 3 - c
    assert np.array_equal(replay.color, b.color)
    w = int(b.meta[1])
    on_board = [p for p in range(b.color.shape[0]) if b.color[p] != BORDER]
    assert all(b.code3[p] == code_at(b.color, w, p) for p in on_board)   # kept by the inlined play
    space = np.zeros(8, np.int64)
    for p in b.empties[:b.meta[M_NEMPTY]]:
        assert not playable(b, int(p), BLACK, space, NO_BALANCE) \
            and not playable(b, int(p), WHITE, space, NO_BALANCE)


def test_mercy_stones_is_fuegos_share_of_the_board():
    assert mercy_stones(9, 0.3) == 24 and mercy_stones(19, 0.3) == 108
    assert mercy_stones(9, 0.0) == 0


@pytest.mark.parametrize("seed", range(6))
def test_mercy_rule_ends_a_playout_when_the_capture_lead_first_reaches_it(rules, seed):
    """With the mercy rule (here 8 stones, so that it often applies), a playout stops at the
    first move after which one colour has captured that many stones more than the other in
    this playout, and is scored as it stands; without it, the same seed plays on."""
    start, c0 = replayed(9, seed, 10 + 3 * seed)
    mercy = 8 / 81
    threshold = mercy_stones(9, mercy)
    stopped = 0
    for k in range(10):
        b = copy_board(start)
        owner = np.zeros(b.color.shape[0], np.int8)
        record = np.full(4 * 81 + 64, -3, np.int64)
        score = run_rules_playout(b, c0, make_rng(100 * seed + k), owner, rules, record,
                                  NO_REPLIES, mercy, np.zeros((2, 0)))
        assert score == area_score(b, np.zeros_like(owner))
        n = int(b.meta[M_MOVES] - start.meta[M_MOVES])
        replay, c, lead = copy_board(start), c0, 0
        for t, p in enumerate(record[:n]):
            assert abs(lead) < threshold   # no move is played once the rule applies
            caught = play(replay, int(p), c)
            lead += caught if c == BLACK else -caught
            c = 3 - c
        assert np.array_equal(replay.color, b.color)
        if abs(lead) >= threshold:
            stopped += 1
            assert b.meta[M_PASSES] < 2
            full = copy_board(start)
            run_rules_playout(full, c0, make_rng(100 * seed + k), owner, rules,
                              np.zeros(0, np.int64), NO_REPLIES, 0.0, np.zeros((2, 0)))
            assert full.meta[M_MOVES] > b.meta[M_MOVES]
        else:
            assert b.meta[M_PASSES] >= 2 or b.meta[M_MOVES] >= move_cap(start)
    assert stopped > 0


# -- the weighted random step (rules3x3 weights) ----------------------------------------------

def weighted(seed, spread=0.7):
    return rules_policy(np.random.default_rng(seed).normal(0.0, spread, N_PAT))


def random_step_probabilities(b, c, pol):
    """The weighted random step's exact distribution: each playable point's class weight,
    normalised."""
    color, _, _, _, _, w = arrays(b)
    space = np.zeros(8, np.int64)
    probs = np.zeros(b.color.shape[0])
    for p in b.empties[:b.meta[M_NEMPTY]]:
        p = int(p)
        if playable(b, p, c, space, NO_BALANCE):
            probs[p] = pol.etheta[pol.pclass[c - 1, code_at(color, w, p)]]
    return probs / probs.sum()


def test_zero_rules3x3_weights_play_the_rules_games(rules):
    """All weights alike: the weighted step draws exactly as Fuego's uniform one, seed for
    seed (the same random numbers, the same games)."""
    flat = rules_policy(np.zeros(N_PAT))
    for seed in range(6):
        start, c = replayed(9, seed, 8 + 4 * seed)
        games = []
        for pol in (rules, flat):
            b = copy_board(start)
            record = np.full(4 * 81 + 64, -3, np.int32)
            playout_moves(b, c, make_rng(seed), np.zeros(b.color.shape[0], np.int8), pol,
                          record, NO_REPLIES)
            games.append(record)
        assert np.array_equal(games[0], games[1]), seed


def test_weighted_random_step_follows_the_class_weights():
    """Drawn many times, the weighted random step's points follow weight / total over the
    playable points (no unplayable point, no point missing), for either colour."""
    pol = weighted(1)
    gmax = float(pol.etheta.max())
    space = np.zeros(8, np.int64)
    for seed, c in ((3, BLACK), (4, WHITE)):
        b, _ = replayed(9, seed, 25)
        probs = random_step_probabilities(b, c, pol)
        assert np.count_nonzero(probs) > 20 and probs.max() > 2.5 * np.median(probs[probs > 0])
        rng = make_rng(seed)
        n = 40_000
        counts = np.zeros(b.color.shape[0], np.int64)
        for _ in range(n):
            p, _ = random_move(b, c, rng, space, NO_BALANCE, pol.pclass, pol.etheta, gmax)
            counts[p] += 1
        assert points_of(counts) == set(np.nonzero(probs)[0].tolist())
        assert not rejects(*chi_square(counts, probs, n)), seed
        uniform = (probs > 0) / np.count_nonzero(probs)
        assert rejects(*chi_square(counts, uniform, n)), seed   # the test can tell


def test_random_step_psi_is_the_class_indicator_minus_its_expectation():
    pol = weighted(2)
    gmax = float(pol.etheta.max())
    space = np.zeros(8, np.int64)
    b, c = replayed(9, 6, 30)
    color, _, _, _, _, w = arrays(b)
    probs = random_step_probabilities(b, c, pol)
    p = int(np.argmax(probs))
    grad = np.zeros((2, N_PAT))
    add_random_psi(b, c, space, NO_BALANCE, pol.pclass, pol.etheta, gmax, p, grad)
    expected = np.zeros(N_PAT)
    expected[pol.pclass[c - 1, code_at(color, w, p)]] += 1.0
    for q in np.nonzero(probs)[0]:
        expected[pol.pclass[c - 1, code_at(color, w, q)]] -= probs[q]
    assert np.allclose(grad[c - 1], expected) and not grad[2 - c].any()
    assert abs(grad.sum()) < 1e-9 and np.abs(grad).sum() > 0.5


def test_playout_with_grad_sums_the_weighted_draws_psi():
    """A rules3x3 playout's psi: both colours' rows sum to zero (each draw's indicator minus a
    distribution), are not zero, and the same seed plays the same game as `playout_moves`."""
    pol = weighted(3)
    start, c = replayed(9, 2, 10)
    grad = np.zeros((2, N_PAT))
    b = copy_board(start)
    owner = np.zeros(b.color.shape[0], np.int8)
    score = playout_with_grad(b, c, make_rng(9), owner, pol, grad, NO_RULES, copy_board(start))
    again = copy_board(start)
    assert playout_moves(again, c, make_rng(9), owner, pol, np.zeros(0, np.int32),
                         NO_REPLIES) == score
    assert np.array_equal(again.color, b.color)
    assert np.all(np.abs(grad.sum(axis=1)) < 1e-9) and np.all(np.abs(grad).sum(axis=1) > 1.0)


def test_rules3x3_weight_files_load_as_the_rule_based_playouts(tmp_path):
    theta = np.random.default_rng(4).normal(0.0, 0.5, N_PAT)
    path = tmp_path / "rules3x3.json"
    write_weights(path, "rules3x3", [9], theta, {"trainer": "test"})
    pol = load_policy(str(path), 9)
    assert int(pol.kind) == RULES and np.allclose(pol.theta, theta)
    assert np.array_equal(pol.mogo, mogo_code_bits())
    with pytest.raises(WeightFileError, match="rules3x3"):
        read_weights(path, "pattern3x3")
