"""Feature sets: weight counts, symmetries, eye table, features against plain-Python references,
and incremental codes and weights against from-scratch ones after every move of random games."""
import numpy as np
import pytest

from engine.core.board import (BLACK, EMPTY, M_KO, M_LAST, M_LAST2, M_PASSES, PASS, WHITE,
                               copy_board, is_eye, is_legal, new_board, play)
from engine.core.rng import make_rng, rand_float
from policies import policy_from_theta
from policies import softmax as S
from policies.features import (ATARI_OFF, CAP_OFF, ESC_OFF, LAST2_OFF, LAST_OFF, LINE_OFF, N_PAT,
                               N_PATTERN3X3, NEIGHBOURS, SA_OFF, SYMMETRIES, code_at,
                               pattern3x3_names, pattern_tables, shape2x2_counts, shape2x2_layout)
from policies.weights import feature_names


def test_shape2x2_weight_counts():
    """Silver & Tesauro report 107 unique weights on 5x5 (colour inversion negates a weight)."""
    assert shape2x2_counts(5) == {"li1x1": 1, "li2x2": 8, "ld1x1": 6, "ld2x2": 92, "total": 107}
    assert shape2x2_counts(6)["total"] == 155
    assert shape2x2_counts(9)["total"] == 368


def test_pattern3x3_layout():
    names = pattern3x3_names()
    assert len(names) == N_PATTERN3X3 == N_PAT + 21 and len(set(names)) == len(names)
    assert names[CAP_OFF] == "capture:1" and names[LAST_OFF] == "last:d2" and names[-1] == "pass"


def _digits(code):
    return [(code >> (2 * k)) & 3 for k in range(8)]


def _from(digits):
    return sum(d << (2 * k) for k, d in enumerate(digits))


def _sym(code, sym):
    a, b, c, d = sym
    index = {off: k for k, off in enumerate(NEIGHBOURS)}
    out = [0] * 8
    for k, (dr, dc) in enumerate(NEIGHBOURS):
        out[index[(a * dr + b * dc, c * dr + d * dc)]] = _digits(code)[k]
    return _from(out)


def _swap(code):
    return _from([{1: 2, 2: 1}.get(d, d) for d in _digits(code)])


def test_pattern_classes_are_invariant_under_symmetries_and_colour_swap():
    pclass, _, _ = pattern_tables()
    rng = np.random.default_rng(0)
    valid = np.nonzero(pclass[0] >= 0)[0]
    for code in rng.choice(valid, 300):
        for sym in SYMMETRIES:
            assert pclass[0, _sym(int(code), sym)] == pclass[0, code]
        assert pclass[1, code] == pclass[0, _swap(int(code))]  # White sees colours swapped


def _random_positions(size, count, seed, moves=(10, 60)):
    """Boards part-way through uniform random games (legal, no own-eye filling)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        b = new_board(size)
        c = BLACK
        for _ in range(rng.integers(*moves)):
            cand = [p for p in b.empties[:b.meta[4]] if is_legal(b, p, c) and not is_eye(b, p, c)]
            if not cand:
                break
            play(b, int(rng.choice(cand)), c)
            c = 3 - c
        out.append((b, c))
    return out


def test_eye_table_matches_the_board():
    _, eye, _ = pattern_tables()
    for b, _ in _random_positions(7, 20, 1, (20, 60)):
        w = b.meta[1]
        for p in b.empties[:b.meta[4]]:
            for c in (BLACK, WHITE):
                assert bool(eye[c - 1, code_at(b.color, w, p)]) == is_eye(b, p, c)


# --- plain-Python references ------------------------------------------------------------------

def _rc(b, p):
    return divmod(int(p), int(b.meta[1]))


def reference_pattern3x3(b, p, c):
    """The pattern3x3 feature indices of c playing empty p, computed by playing the move on a
    copy; None if the move is illegal or fills c's own eye (ko aside)."""
    if is_eye(b, p, c):
        return None
    ko, kc = b.meta[M_KO], b.meta[3]
    b.meta[M_KO] = -1
    legal = is_legal(b, p, c)
    b.meta[M_KO], b.meta[3] = ko, kc
    if not legal:
        return None
    pclass, _, _ = pattern_tables()
    feats = {int(pclass[c - 1, code_at(b.color, b.meta[1], p)])}
    w = int(b.meta[1])
    o = 3 - c
    nbrs = [p - 1, p + 1, p - w, p + w]
    own_atari = any(b.color[q] == c and b.libs[b.head[q]] == 1 for q in nbrs)
    opp_two = any(b.color[q] == o and b.libs[b.head[q]] == 2 for q in nbrs)
    after = copy_board(b)
    after.meta[M_KO] = -1
    captured = play(after, p, c)
    if captured:
        feats.add(CAP_OFF + [0, 0, 1, 2, 2, 2][min(captured, 5)] + (captured >= 6))
    else:
        libs = after.libs[after.head[p]]
        if libs == 1:
            size = after.csize[after.head[p]]
            feats.add(SA_OFF + min(size, 3) - 1)
        elif own_atari:
            feats.add(ESC_OFF + (0 if libs == 2 else 1))
    if opp_two:
        feats.add(ATARI_OFF)
    r, col = _rc(b, p)
    n = int(b.meta[0])
    line = min(r, col, n + 1 - r, n + 1 - col)
    if line <= 4:
        feats.add(LINE_OFF + line - 1)
    for slot, off in ((M_LAST, LAST_OFF), (M_LAST2, LAST2_OFF)):
        last = b.meta[slot]
        if last >= 0:
            lr, lc = _rc(b, last)
            dr, dc = abs(r - lr), abs(col - lc)
            d = dr + dc + max(dr, dc)
            if 2 <= d <= 4:
                feats.add(off + d - 2)
    return feats


def test_pattern3x3_features_match_a_reference():
    pol = policy_from_theta("pattern3x3", np.zeros(N_PATTERN3X3), 9)
    checked = 0
    for b, c in _random_positions(9, 12, 2, (20, 90)):
        st = S.new_state(b, pol, False)
        for p in b.empties[:b.meta[4]]:
            for colour in (BLACK, WHITE):
                k = S.move_features(b, st, pol, p, colour)
                got = None if k < 0 else set(st.fidx[:k].tolist())
                assert got == reference_pattern3x3(b, p, colour), (p, colour)
                checked += 1
    assert checked > 500


def _shape_value(b, names, sq_ld, sq_li, pt_ld):
    """Black's shape2x2 evaluation phi(s).theta-style vector of position b, over ALL squares:
    the counts of every weight (signed), from the tables' signed references."""
    vec = np.zeros(len(names))
    w = int(b.meta[1])
    n = int(b.meta[0])

    def add(ref, sign):
        if ref:
            vec[abs(ref) - 1] += sign * np.sign(ref)
    for r in range(1, n + 1):
        for col in range(1, n + 1):
            p = r * w + col
            if b.color[p] != EMPTY:
                s = 1 if b.color[p] == BLACK else -1
                add(pt_ld[p], s)
                add(1, s)  # li1x1 is weight 0
            if r < n and col < n:
                cells = (p, p + 1, p + w, p + w + 1)
                cfg = sum(int(b.color[q]) * 3 ** k for k, q in enumerate(cells))
                add(sq_ld[p, cfg], 1)
                add(sq_li[cfg], 1)
    return vec


@pytest.mark.parametrize("size", [5, 7])
def test_shape2x2_scores_are_whole_board_differences(size):
    """H(s, a) from the local features = (phi(s after a) - phi(s)).theta over every square of the
    board, signed for the mover: what does not contain the move or a capture cancels."""
    names, sq_ld, sq_li, pt_ld = shape2x2_layout(size)
    theta = np.random.default_rng(size).normal(0, 1, len(names))
    pol = policy_from_theta("shape2x2", theta, size)
    out = np.zeros((size + 2) ** 2)
    captures = 0
    for b, c in _random_positions(size, 15, 3, (5, 3 * size * size // 4)):
        b.meta[M_KO] = -1
        S.scores(b, c, pol, out)
        before = _shape_value(b, names, sq_ld, sq_li, pt_ld) @ theta
        for p in b.empties[:b.meta[4]]:
            if is_eye(b, p, c) or not is_legal(b, p, c):
                assert out[p] == S.EXCLUDED_SCORE
                continue
            after = copy_board(b)
            captures += play(after, p, c) > 0
            sign = 1 if c == BLACK else -1
            h = (_shape_value(after, names, sq_ld, sq_li, pt_ld) @ theta - before) * sign
            assert out[p] == pytest.approx(h, abs=1e-9)
    assert captures > 0


# --- incremental update -----------------------------------------------------------------------

def _check_state(b, st, ref, pattern):
    w = int(b.meta[1])
    assert all(b.code3[p] == code_at(b.color, w, p) for p in np.flatnonzero(b.color != 3)), \
        "3x3 codes"
    np.testing.assert_allclose(st.wt, ref.wt, rtol=1e-12, atol=0, err_msg="local weights")
    np.testing.assert_allclose(st.rows, ref.rows, rtol=1e-9, atol=1e-300, err_msg="row sums")
    if pattern:
        empty = b.color == EMPTY
        np.testing.assert_allclose(st.tact[:, empty], ref.tact[:, empty], rtol=1e-12)


@pytest.mark.parametrize("feature_set, size", [("pattern3x3", 5), ("pattern3x3", 9),
                                               ("pattern3x3", 13), ("shape2x2", 5),
                                               ("shape2x2", 9)])
def test_incremental_state_equals_from_scratch_after_every_move(feature_set, size):
    theta = np.random.default_rng(size).normal(0, 1.0, len(feature_names(feature_set, size)))
    pol = policy_from_theta(feature_set, theta, size)
    games = 3 if size <= 9 else 1
    for g in range(games):
        b = new_board(size)
        rng = make_rng(100 * size + g)
        st = S.new_state(b, pol, True)
        c = BLACK
        moves = 0
        while b.meta[M_PASSES] < 2 and moves < 3 * size * size:
            total = S.begin_move(b, st, pol, c)
            p = S.draw(b, st, c, total, rand_float(rng)) if total > 0 else PASS
            S.end_move(b, st)
            S.advance(b, st, pol, p, c)
            c = 3 - c
            moves += 1
            _check_state(b, st, S.new_state(b, pol, True), feature_set == "pattern3x3")
        assert moves > size * size // 2
