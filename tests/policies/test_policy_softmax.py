"""The softmax policy: exact sampling (chi-square), consistency of scores and probabilities,
symmetric positions, psi against finite differences and along a playout, the seam."""
import math

import numpy as np
import pytest

from engine.core.board import (BLACK, EMPTY, M_KO, M_KO_COLOR, M_LAST, M_LAST2, M_MOVES,
                               M_NEMPTY, M_PASSES, NO_MOVE, PASS, WHITE, area_score, copy_board,
                               is_eye, is_legal, new_board, play)
from engine.core.rng import make_rng
from policies import load_policy, policy_from_theta, policy_probabilities
from policies import softmax as S
from policies.kernel import (EXCLUDED_SCORE, NO_REPLIES, NO_RULES, move_scores, playout,
                             playout_moves, playout_with_grad, uniform_policy)
from policies.playout import move_cap
from policies.weights import feature_names


def pt(size, r, c):
    return r * (size + 2) + c


def policy(feature_set, size, seed, scale=1.0):
    theta = np.random.default_rng(seed).normal(0, scale, len(feature_names(feature_set, size)))
    return policy_from_theta(feature_set, theta, size)


def replayed(size, seed, moves, pol=None):
    """The position after `moves` moves of a seeded softmax playout, and the colour to move."""
    pol = pol or policy("pattern3x3", size, 0)
    record = np.full(1000, -3, np.int32)
    S.run_playout(new_board(size), BLACK, make_rng(seed), np.zeros((size + 2) ** 2, np.int8),
                  pol, np.zeros((2, 0)), record, NO_REPLIES, NO_RULES, new_board(size))
    b = new_board(size)
    c = BLACK
    for p in record[:moves]:
        play(b, int(p), c)
        c = 3 - c
    return b, c


def candidates(b, c):
    return [int(p) for p in b.empties[:b.meta[4]] if is_legal(b, p, c) and not is_eye(b, p, c)]


def chi_square(counts, probs, n):
    """Pearson's statistic over the moves with expected count >= 5 (the rest pooled), and its
    degrees of freedom."""
    expected = probs * n
    big = expected >= 5
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    keep = exp > 0
    stat = float(np.sum((obs[keep] - exp[keep]) ** 2 / exp[keep]))
    return stat, int(keep.sum()) - 1


def rejects(stat, df):
    """Far beyond the chi-square's bulk (mean df, sd sqrt(2 df)): p well below 1e-6."""
    return stat > df + 7 * math.sqrt(2 * df)


@pytest.mark.parametrize("feature_set", ["pattern3x3", "shape2x2"])
def test_sampled_frequencies_match_the_softmax(feature_set):
    size = 9
    pol = policy(feature_set, size, 3, 0.7)
    b, c = replayed(size, 5, 40, pol)
    probs = policy_probabilities(b, c, pol)
    n = 200_000
    counts = np.zeros(b.color.shape[0], np.int64)
    S.sample_moves(b, c, pol, make_rng(9), counts, n)
    assert counts.sum() == n and np.all(counts[probs == 0] == 0)
    stat, df = chi_square(counts, probs, n)
    assert df > 10 and not rejects(stat, df), (stat, df)
    # The test has power: a sampler off by 10% on the likeliest move, or one that ignored the
    # context (distance to the last moves), would fail it.
    off = probs.copy()
    off[np.argmax(off)] *= 1.1
    assert rejects(*chi_square(counts, off / off.sum(), n))
    if feature_set == "pattern3x3":
        theta = pol.theta.copy()
        theta[np.array([i for i, x in enumerate(feature_names("pattern3x3", size))
                        if x.startswith("last")])] = 0.0
        no_context = policy_probabilities(b, c, policy_from_theta("pattern3x3", theta, size))
        assert rejects(*chi_square(counts, no_context, n))


@pytest.mark.slow
@pytest.mark.parametrize("feature_set, size, moves", [("pattern3x3", 9, 0), ("pattern3x3", 19, 150),
                                                      ("shape2x2", 6, 12), ("pattern3x3", 9, 60)])
def test_sampled_frequencies_match_the_softmax_long(feature_set, size, moves):
    pol = policy(feature_set, size, size + moves, 1.5)
    b, c = replayed(size, moves, moves, pol)
    probs = policy_probabilities(b, c, pol)
    n = 3_000_000
    counts = np.zeros(b.color.shape[0], np.int64)
    S.sample_moves(b, c, pol, make_rng(size), counts, n)
    assert not rejects(*chi_square(counts, probs, n))


def test_probabilities_are_the_softmax_of_the_scores():
    for feature_set, size in (("pattern3x3", 9), ("shape2x2", 7), ("pattern3x3", 13)):
        pol = policy(feature_set, size, size)
        for moves in (0, 1, 25, 60):
            b, c = replayed(size, moves, moves, pol)
            h = np.full(b.color.shape[0], np.nan)
            move_scores(b, c, pol, h)
            probs = policy_probabilities(b, c, pol)
            cand = candidates(b, c)
            assert sorted(np.nonzero(probs)[0].tolist()) == sorted(cand)
            for p in b.empties[:b.meta[4]]:
                assert (h[p] == EXCLUDED_SCORE) == (p not in cand)
            e = np.exp(h[cand] - h[cand].max())
            np.testing.assert_allclose(probs[cand], e / e.sum(), rtol=1e-9)
            assert np.isnan(h[b.color != EMPTY]).all()  # only empty points are written


def test_pattern3x3_scores_without_a_play_state_are_the_features_sums_to_the_bit():
    # The tree's prior takes a shortcut (softmax._scores_p3); it must give exactly the sums of
    # theta over move_features' features, which the playouts and the gradients use.
    for size, plies in ((9, (0, 3, 30, 60)), (19, (0, 3, 30, 90, 160))):
        pol = policy("pattern3x3", size, 40 + size)
        for moves in plies:
            b, c = replayed(size, moves + size, moves, pol)
            for colour in (c, 3 - c):
                h = np.full(b.color.shape[0], np.nan)
                S.scores(b, colour, pol, h)
                st = S.new_state(b, pol, False)
                ko = b.meta[M_KO] if b.meta[M_KO_COLOR] == colour else -1
                for p in b.empties[:b.meta[M_NEMPTY]]:
                    n = S.move_features(b, st, pol, p, colour)
                    want = EXCLUDED_SCORE if n < 0 or p == ko else \
                        sum(st.fval[k] * pol.theta[st.fidx[k]] for k in range(n))
                    assert h[p] == want, (size, moves, colour, p)


def test_ko_point_is_excluded():
    # Black captures at c3 (white's stone at b3... ) leaving a ko White may not retake at once.
    size = 5
    b = new_board(size)
    for (r, col), colour in {(2, 2): BLACK, (3, 1): BLACK, (4, 2): BLACK, (2, 3): WHITE,
                             (3, 4): WHITE, (4, 3): WHITE, (3, 2): WHITE}.items():
        play(b, pt(size, r, col), colour)
    assert play(b, pt(size, 3, 3), BLACK) == 1 and b.meta[M_KO] == pt(size, 3, 2)
    for pol in (load_policy("handcrafted", size), policy("shape2x2", size, 1), uniform_policy()):
        probs = policy_probabilities(b, WHITE, pol)
        assert probs[pt(size, 3, 2)] == 0 and probs.sum() == pytest.approx(1.0)
        h = np.zeros(b.color.shape[0])
        move_scores(b, WHITE, pol, h)
        assert h[pt(size, 3, 2)] == EXCLUDED_SCORE
        counts = np.zeros(b.color.shape[0], np.int64)
        if pol.kind != 0:
            S.sample_moves(b, WHITE, pol, make_rng(1), counts, 2000)
            assert counts[pt(size, 3, 2)] == 0


def _symmetries(size):
    m = size + 1
    return [lambda r, c: (r, c), lambda r, c: (c, m - r), lambda r, c: (m - r, m - c),
            lambda r, c: (m - c, r), lambda r, c: (r, m - c), lambda r, c: (m - r, c),
            lambda r, c: (c, r), lambda r, c: (m - c, m - r)]


@pytest.mark.parametrize("feature_set", ["pattern3x3", "shape2x2"])
def test_symmetric_positions_give_symmetric_probabilities(feature_set):
    size = 9
    pol = policy(feature_set, size, 11)

    def position(first):
        b = new_board(size)
        for r, col in ((3, 3), (3, 7), (7, 3), (7, 7), (4, 5), (5, 4), (6, 5), (5, 6)):
            play(b, pt(size, r, col), first)
        for r, col in ((3, 5), (5, 3), (7, 5), (5, 7), (2, 2), (2, 8), (8, 2), (8, 8)):
            play(b, pt(size, r, col), 3 - first)
        b.meta[M_LAST] = pt(size, 5, 5)   # the centre: fixed by every symmetry
        b.meta[M_LAST2] = NO_MOVE
        return b
    b = position(BLACK)
    for c in (BLACK, WHITE):
        probs = policy_probabilities(b, c, pol)
        assert probs.sum() == pytest.approx(1.0) and len(set(np.round(probs, 12))) > 3
        for sym in _symmetries(size):
            for r in range(1, size + 1):
                for col in range(1, size + 1):
                    assert probs[pt(size, *sym(r, col))] == pytest.approx(probs[pt(size, r, col)],
                                                                          rel=1e-12, abs=1e-300)
    # Colour symmetry: the same shape with colours exchanged, the other player to move.
    swapped = position(WHITE)
    for c in (BLACK, WHITE):
        np.testing.assert_allclose(policy_probabilities(swapped, 3 - c, pol),
                                   policy_probabilities(b, c, pol), rtol=1e-12)


@pytest.mark.parametrize("feature_set, size", [("pattern3x3", 9), ("shape2x2", 6)])
def test_psi_matches_finite_differences(feature_set, size):
    """psi(s, a) = grad_theta log pi(s, a), against central differences of log pi."""
    pol = policy(feature_set, size, 21)
    b, c = replayed(size, 3, 2 * size, pol)
    a = candidates(b, c)[len(candidates(b, c)) // 2]
    grad = np.zeros((2, pol.theta.shape[0]))
    logp = S.psi(b, c, pol, a, grad, 0)
    assert logp == pytest.approx(math.log(policy_probabilities(b, c, pol)[a]))
    active = np.nonzero(grad[0])[0]
    others = np.random.default_rng(0).choice(pol.theta.shape[0], 20, replace=False)
    assert len(active) >= 5
    eps = 1e-6
    for i in np.union1d(active, others):
        lp = []
        for sign in (1, -1):
            theta = pol.theta.copy()
            theta[i] += sign * eps
            lp.append(S.psi(b, c, policy_from_theta(feature_set, theta, size), a,
                            np.zeros_like(grad), 0))
        assert grad[0, i] == pytest.approx((lp[0] - lp[1]) / (2 * eps), abs=1e-6), i


@pytest.mark.parametrize("feature_set, size", [("pattern3x3", 7), ("shape2x2", 5)])
def test_playout_with_grad_accumulates_psi_of_each_move(feature_set, size):
    pol = policy(feature_set, size, 31)
    npts = (size + 2) ** 2
    record = np.full(4 * size * size, -3, np.int32)
    grad = np.zeros((2, pol.theta.shape[0]))
    start = new_board(size)
    b1 = copy_board(start)
    score = S.run_playout(b1, BLACK, make_rng(7), np.zeros(npts, np.int8), pol, grad, record, NO_REPLIES,
                          NO_RULES, b1)
    # The same seed through the seam: the same game, with or without the gradient.
    b2, b3 = copy_board(start), copy_board(start)
    grad2 = np.zeros_like(grad)
    assert playout_with_grad(b2, BLACK, make_rng(7), np.zeros(npts, np.int8), pol, grad2, NO_RULES,
                             b2) == score
    assert playout(b3, BLACK, make_rng(7), np.zeros(npts, np.int8), pol) == score
    assert np.array_equal(b1.color, b2.color) and np.array_equal(b1.color, b3.color)
    np.testing.assert_array_equal(grad, grad2)
    # Replay, adding psi from scratch at each position.
    ref = np.zeros_like(grad)
    b = copy_board(start)
    c = BLACK
    for p in record[:b1.meta[M_MOVES]]:
        if p != PASS:
            assert np.isfinite(S.psi(b, c, pol, int(p), ref, c - 1))
        play(b, int(p), c)
        c = 3 - c
    np.testing.assert_allclose(grad, ref, atol=1e-9)
    assert np.abs(grad).sum() > 0


@pytest.mark.parametrize("spec", ["uniform", "handcrafted", "shape2x2"])
def test_seam_playout_plays_to_the_end_and_scores(spec):
    size = 7
    pol = policy("shape2x2", size, 2) if spec == "shape2x2" else load_policy(spec, size)
    rng = make_rng(3)
    for _ in range(20):
        b = new_board(size)
        owner = np.zeros(b.color.shape[0], np.int8)
        score = playout(b, BLACK, rng, owner, pol)
        assert b.meta[M_PASSES] >= 2 or b.meta[M_MOVES] >= move_cap(new_board(size))
        assert score == area_score(b, np.zeros_like(owner))
        # No one filled an own eye: no empty point is a one-point eye of... anyone who could move.
        for p in b.empties[:b.meta[4]]:
            assert not (is_legal(b, p, BLACK) and not is_eye(b, p, BLACK))
            assert not (is_legal(b, p, WHITE) and not is_eye(b, p, WHITE))


def test_uniform_probabilities_and_scores():
    b, c = replayed(9, 1, 30)
    probs = policy_probabilities(b, c, uniform_policy())
    cand = candidates(b, c)
    assert np.allclose(probs[cand], 1 / len(cand)) and probs.sum() == pytest.approx(1.0)
    h = np.zeros(b.color.shape[0])
    move_scores(b, c, uniform_policy(), h)
    assert all(h[p] == (0.0 if p in cand else EXCLUDED_SCORE) for p in b.empties[:b.meta[4]])


def test_handcrafted_prefers_capture_then_escape():
    size = 7
    b = new_board(size)
    # White d4 in atari (liberty d5); black b2 in atari (liberty b3).
    for r, col in ((4, 3), (4, 5), (3, 4), (2, 2)):
        play(b, pt(size, r, col), BLACK)
    for r, col in ((4, 4), (1, 2), (2, 1), (2, 3)):
        play(b, pt(size, r, col), WHITE)
    d5, b3 = pt(size, 5, 4), pt(size, 3, 2)
    pol = load_policy("handcrafted", size)
    for mover, capture, escape in ((BLACK, d5, b3), (WHITE, b3, d5)):
        probs = policy_probabilities(b, mover, pol)
        rest = np.delete(probs, [capture, escape])
        # The tiers: each capture or escape outweighs any other move many times over (the
        # many moves near the last move together may still hold a fair share).
        assert probs[capture] > probs[escape] > 5 * rest.max()
        assert probs[capture] > 50 * rest.max()


def test_uniform_through_the_seam_is_the_engines_uniform_playout():
    """kernel.playout runs policies.playout.finish_uniform on a borrowed view of the board
    (policies/nrt.py): the same game, the same owners, the board itself updated."""
    from engine.core.board import area_owner
    from policies.playout import finish_uniform
    for seed in range(5):
        b1, c = replayed(9, seed, 10)
        b2 = copy_board(b1)
        o1 = np.zeros(b1.color.shape[0], np.int8)
        o2 = np.zeros_like(o1)
        s1 = playout(b1, c, make_rng(seed), o1, uniform_policy())
        s2 = finish_uniform(b2, c, make_rng(seed), o2, np.zeros(0, np.int32), NO_REPLIES)
        assert s1 == s2 and np.array_equal(b1.color, b2.color) and np.array_equal(o1, o2)
        area_owner(b1, o2)
        assert np.array_equal(o1, o2)


@pytest.mark.parametrize("spec", ["uniform", "handcrafted", "shape2x2"])
def test_recorded_playout_moves_replay_to_the_same_game(spec):
    """playout_moves records every move (passes too, colours alternating) of the very game
    `playout` plays from the same rng state: replaying the record gives its final board."""
    size = 7
    pol = policy("shape2x2", size, 2) if spec == "shape2x2" else load_policy(spec, size)
    for seed in range(5):
        start, c = replayed(size, seed, 12)
        b1, b2 = copy_board(start), copy_board(start)
        owner = np.zeros(start.color.shape[0], np.int8)
        record = np.full(4 * size * size + 64, -3, np.int32)
        s1 = playout_moves(b1, c, make_rng(seed), owner, pol, record, NO_REPLIES)
        s2 = playout(b2, c, make_rng(seed), owner, pol)
        assert s1 == s2 and np.array_equal(b1.color, b2.color)
        played = int(b1.meta[M_MOVES] - start.meta[M_MOVES])
        assert played > 0 and np.all(record[played:] == -3)
        replay = copy_board(start)
        for p in record[:played]:
            assert play(replay, int(p), c) >= 0
            c = 3 - c
        assert np.array_equal(replay.color, b1.color)
