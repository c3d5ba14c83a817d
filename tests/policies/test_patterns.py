"""Large patterns of the tree prior (policies/patterns.py), their place in weight files, their
fitting (policies/train/patterns.py) and `simbal train-prior`."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from engine.core.board import BLACK, EMPTY, M_NEMPTY, M_WIDTH, WHITE, is_legal, new_board, play
from engine.core.coords import parse_vertex
from engine.lab.cli import main
from engine.play.player import Engine, Settings
from policies import WeightFileError, load_policy, read_weights, write_weights
from policies.data.files import Position, write_positions
from policies.kernel import move_scores
from policies.loader import policy_from_theta
from policies.patterns import (add_scores, hashed_weight, code_at, is_opening_location,
                               layout, location_base, location_code, offsets, pattern_hash,
                               raw_code)
from policies.softmax import EXCLUDED_SCORE
from policies.train.patterns import fit, prior_accuracy
from policies.weights import feature_names

from helpers import board_from_ascii

SHAPE = """
    . . . . . . .
    . . . . . . .
    . . X O . . .
    . . . X . . .
    . . O . . . .
    . . . . . . .
    . . . . . . ."""


def transform(text, fn):
    """The ASCII board with point (r, c) moved to fn(r, c, n)."""
    rows = [line.split() for line in text.strip().splitlines()]
    n = len(rows)
    out = [["."] * n for _ in range(n)]
    for r in range(n):
        for c in range(n):
            r2, c2 = fn(r, c, n)
            out[r2][c2] = rows[r][c]
    return "\n".join(" ".join(row) for row in out)


def code(text, vertex, colour, radius):
    b = board_from_ascii(text)
    offs, perm = layout(radius)
    return code_at(b, parse_vertex(vertex, 7), colour, offs, perm, np.empty(len(offs), np.int64))


def swap_colours(text):
    return text.replace("X", "x").replace("O", "X").replace("x", "O")


@pytest.mark.parametrize("radius", [2, 3])
def test_a_code_is_the_same_under_the_squares_symmetries_and_for_the_mover_s_colours(radius):
    assert len(offsets(radius)) == {2: 12, 3: 24}[radius]
    base = code(SHAPE, "D3", BLACK, radius)  # D3: row 3 from the bottom, the empty point below
    # Rotations and reflections move D3 with the stones (rows counted from the top: D3 = (4, 3)).
    moves = [(lambda r, c, n: (c, n - 1 - r)), (lambda r, c, n: (n - 1 - r, n - 1 - c)),
             (lambda r, c, n: (r, n - 1 - c)), (lambda r, c, n: (c, r))]
    for fn in moves:
        r, c = fn(4, 3, 7)
        vertex = "ABCDEFG"[c] + str(7 - r)
        assert code(transform(SHAPE, fn), vertex, BLACK, radius) == base
    # The same shape for White to move, colours swapped, is the same pattern ...
    assert code(swap_colours(SHAPE), "D3", WHITE, radius) == base
    # ... and not the same for the other colour, nor at another point, nor near the edge.
    assert code(SHAPE, "D3", WHITE, radius) != base
    assert code(SHAPE, "E5", BLACK, radius) != base
    empty = "\n".join([". " * 7] * 7)
    assert code(empty, "D4", BLACK, radius) == 0                      # all empty, all on board
    assert code(empty, "A1", BLACK, radius) != code(empty, "B2", BLACK, radius) != 0


@pytest.mark.parametrize("radius", [2, 3])
def test_a_code_is_the_smallest_of_its_eight_readings(radius):
    """code_at stops comparing a reading at its first digit that differs from the best one's;
    the code must still be the minimum over all 8 readings, built digit by digit."""
    offs, perm = layout(radius)
    rng = np.random.default_rng(radius)
    for _ in range(20):
        b, colour = random_board(rng, int(rng.integers(0, 40)))
        w = int(b.meta[M_WIDTH])
        for p in b.empties[:b.meta[M_NEMPTY]]:
            r0, c0 = divmod(int(p), w)
            digits = []
            for dr, dc in offs:
                r, c = r0 + dr, c0 + dc
                if not (1 <= r <= 9 and 1 <= c <= 9):
                    digits.append(3)                      # off the board
                else:
                    x = int(b.color[r * w + c])
                    digits.append(0 if x == EMPTY else 1 if x == colour else 2)
            readings = [sum(digits[perm[s, i]] * 4 ** (len(offs) - 1 - i)
                            for i in range(len(offs))) for s in range(8)]
            got = code_at(b, int(p), colour, offs, perm, np.empty(len(offs), np.int64))
            assert got == min(readings)


def random_board(rng, moves, size=9):
    """A board after `moves` random tries (illegal ones skipped), and the colour to move."""
    b = new_board(size)
    colour = BLACK
    for _ in range(moves):
        empties = [int(q) for q in b.empties[:b.meta[M_NEMPTY]]]
        q = empties[int(rng.integers(len(empties)))]
        if is_legal(b, q, colour):
            play(b, q, colour)
        colour = 3 - colour
    return b, colour


@pytest.mark.parametrize("radius", [2, 3])
def test_the_hashed_table_weighs_every_reading_as_the_sorted_codes_weigh_its_smallest(radius):
    """The tree's prior looks patterns up by the board's own reading in a hash of all eight
    readings (pattern_hash); a point must get the weight its canonical code has in the sorted
    arrays, and 0 when that code is not there.  Keys: half the codes seen, so both happen, and
    three location codes, which the table holds as they are."""
    offs, perm = layout(radius)
    rng = np.random.default_rng(10 + radius)
    boards = [random_board(rng, int(rng.integers(0, 50))) for _ in range(30)]
    scratch = np.empty(len(offs), np.int64)
    seen = sorted({int(code_at(b, int(p), c, offs, perm, scratch))
                   for b, c in boards for p in b.empties[:b.meta[M_NEMPTY]]})
    base = location_base(radius)
    locations = [base + k for k in (0, 7, 60)]   # first line corner, and two more classes
    keys = np.array(sorted(rng.choice(seen, len(seen) // 2, replace=False)) + locations, np.int64)
    weights = rng.normal(size=len(keys))
    weight_of = dict(zip(keys.tolist(), weights.tolist()))
    hkeys, hvals = pattern_hash(radius, keys, weights)
    hits = misses = located = 0
    for b, c in boards:
        for p in b.empties[:b.meta[M_NEMPTY]]:
            canonical = int(code_at(b, int(p), c, offs, perm, scratch))
            got = hashed_weight(hkeys, hvals, raw_code(b, int(p), c, offs))
            assert got == weight_of.get(canonical, 0.0)
            hits += canonical in weight_of
            misses += canonical not in weight_of
            location = int(location_code(b, int(p), base))
            assert hashed_weight(hkeys, hvals, location) == weight_of.get(location, 0.0)
            located += location in weight_of
    assert hits > 100 and misses > 100 and located > 10


@pytest.mark.parametrize("radius", [2, 3])
@pytest.mark.parametrize("size", [2, 3, 5, 9, 13])
def test_add_scores_weighs_each_candidate_as_its_own_lookup_does(radius, size):
    """add_scores reads every point's code in a frame of digits built once, three points wider
    than the board, and looks the codes up in a pass of their own: each candidate must get
    exactly what looking its raw code and its location up alone gives, on boards smaller than
    the diamond too, and the excluded points and stones nothing."""
    offs, perm = layout(radius)
    rng = np.random.default_rng(100 * radius + size)
    boards = [random_board(rng, int(rng.integers(0, size * size)), size) for _ in range(12)]
    scratch = np.empty(len(offs), np.int64)
    seen = sorted({int(code_at(b, int(p), c, offs, perm, scratch))
                   for b, c in boards for p in b.empties[:b.meta[M_NEMPTY]]})
    base = location_base(radius)
    chosen = rng.choice(seen, (len(seen) + 1) // 2, replace=False).tolist()
    keys = np.array(sorted(chosen) + [base + k for k in range(0, 98, 5)], np.int64)
    weights = rng.normal(size=len(keys))
    hkeys, hvals = pattern_hash(radius, keys, weights)
    changed = 0
    for b, c in boards:
        start = rng.normal(size=b.color.shape[0])
        excluded = rng.random(b.color.shape[0]) < 0.2
        start[excluded] = EXCLUDED_SCORE
        got = start.copy()
        add_scores(b, c, offs, keys, hkeys, hvals, got)
        want = start.copy()
        for p in b.empties[:b.meta[M_NEMPTY]]:
            if want[p] > EXCLUDED_SCORE:
                want[p] += hashed_weight(hkeys, hvals, raw_code(b, int(p), c, offs))
                want[p] += hashed_weight(hkeys, hvals, location_code(b, int(p), base))
        np.testing.assert_array_equal(got, want)
        changed += int((got != start).sum())
    assert changed > 5


def test_patterns_add_to_the_move_scores_of_playable_points_only():
    board = board_from_ascii(SHAPE)
    base = load_policy("handcrafted", 7)
    plain = np.full(board.color.shape[0], EXCLUDED_SCORE)
    move_scores(board, BLACK, base, plain)
    key = code(SHAPE, "D3", BLACK, 3)
    theta = base.theta
    pol = load_policy_with(theta, (3, np.array([key], np.int64), np.array([2.5])))
    scores = np.full(board.color.shape[0], EXCLUDED_SCORE)
    move_scores(board, BLACK, pol, scores)
    d3 = parse_vertex("D3", 7)
    assert scores[d3] == pytest.approx(plain[d3] + 2.5)
    others = np.arange(scores.size) != d3
    np.testing.assert_array_equal(scores[others], plain[others])   # stones, other points as they were


def load_policy_with(theta, patterns, size=7):
    return policy_from_theta("pattern3x3", theta, size, patterns)


PROV = {"trainer": "test", "hyperparameters": {}, "data": "none", "training_games": 0}


def test_weight_files_carry_patterns_and_refuse_bad_ones(tmp_path):
    theta = np.zeros(len(feature_names("pattern3x3", 9)))
    path = write_weights(tmp_path / "p.json", "pattern3x3", [9], theta, PROV,
                         patterns=(2, np.array([3, 70, 900]), np.array([0.5, -1.0, 2.0])))
    radius, keys, vals = read_weights(path).patterns
    assert radius == 2 and keys.tolist() == [3, 70, 900] and vals.tolist() == [0.5, -1.0, 2.0]
    assert read_weights(write_weights(tmp_path / "q.json", "pattern3x3", [9], theta, PROV)).patterns is None
    good = json.loads(path.read_text())
    bad_cases = {
        "radius 4": ({"radius": 4, "codes": [1], "weights": [1.0]}, "radius 4"),
        "unsorted": ({"radius": 2, "codes": [5, 3], "weights": [1.0, 1.0]}, "increasing"),
        "lengths": ({"radius": 2, "codes": [5, 6], "weights": [1.0]}, "same length"),
        "range": ({"radius": 2, "codes": [4 ** 12 + 98], "weights": [1.0]}, "0..16777313"),
        "nan": ({"radius": 2, "codes": [1], "weights": ["x"]}, "finite numbers"),
        "keys": ({"radius": 2, "codes": [1]}, "radius, codes and weights"),
    }
    for name, (pats, message) in bad_cases.items():
        doc = dict(good, patterns=pats)
        bad = tmp_path / f"bad-{name}.json"
        bad.write_text(json.dumps(doc))
        with pytest.raises(WeightFileError, match=message) as err:
            load_policy(str(bad), 9)
        assert str(bad) in str(err.value)


def corner_positions(count):
    """Empty 9x9 boards where the expert always takes a 3-3 point (which 3x3 features and the
    edge line cannot tell from the other third-line points)."""
    corners = ["C3", "G3", "C7", "G7"]
    return [Position(f"p{i}", 9, 7.0, [], "B", expert=corners[i % 4], extra={"game": f"g{i}"})
            for i in range(count)]


def test_fitted_patterns_learn_what_the_base_policy_cannot_see(tmp_path):
    base = load_policy(str(write_weights(tmp_path / "zero.json", "pattern3x3", [9],
                                         np.zeros(len(feature_names("pattern3x3", 9))), PROV)), 9)
    keys, values, report = fit(corner_positions(40), corner_positions(8), base, radius=3,
                               min_count=1, epochs=3, alpha=0.2)
    assert report["base"]["test"][1] == pytest.approx(-np.log(81))  # uniform over 81 points
    assert report["patterns"]["test"][1] > -np.log(4) - 0.5          # nearly all on the 3-3s
    pol = load_policy_with(base.theta, (3, keys, values), 9)
    scores = np.zeros(121)
    move_scores(new_board(9), BLACK, pol, scores)
    corners = [parse_vertex(v, 9) for v in ("C3", "G3", "C7", "G7")]
    others = [p for p in range(121) if scores[p] > EXCLUDED_SCORE and p not in corners]
    assert min(scores[corners]) > max(scores[others]) + 2.0
    with pytest.raises(ValueError, match="no usable training position"):
        fit([Position("x", 9, 7.0, [], "B", expert="pass")], [], base)


def test_train_prior_writes_a_prior_the_engine_plays_with(tmp_path):
    data = tmp_path / "moves.jsonl"
    write_positions(data, corner_positions(24), {"command": "test"})
    out = tmp_path / "prior.json"
    runner = CliRunner()
    r = runner.invoke(main, ["train-prior", "--data", str(data), "--test", str(data), "--base",
                             "handcrafted", "--min-count", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout.strip().splitlines()[-1])
    assert report["positions"] == 24 and report["patterns_written"] > 0
    assert report["patterns"]["test"][1] > report["base"]["test"][1]
    wf = read_weights(out)
    assert wf.provenance["trainer"] == "patterns" and wf.provenance["base"] == "handcrafted"
    engine = Engine(9, 7.0, Settings(playouts=200, seed=0), prior=str(out))
    assert engine.search(BLACK, total=200) == 200
    tree = engine._threads[0].tree
    best_by_prior = int(tree.move[tree.child_start[0]])      # children are sorted by H
    assert best_by_prior in [parse_vertex(v, 9) for v in ("C3", "G3", "C7", "G7")]
    r = runner.invoke(main, ["train-prior", "--data", str(tmp_path / "none.jsonl"), "--base",
                             "handcrafted", "--out", str(tmp_path / "x.json")])
    assert r.exit_code != 0 and "none.jsonl" in r.output and "Traceback" not in r.output


def test_eval_prior_measures_how_often_a_prior_ranks_the_expert_move_first(tmp_path):
    data = tmp_path / "moves.jsonl"
    positions = corner_positions(24) + [Position("p", 9, 7.0, [], "B", expert="pass")]
    write_positions(data, positions, {"command": "test"})
    zero = write_weights(tmp_path / "zero.json", "pattern3x3", [9],
                         np.zeros(len(feature_names("pattern3x3", 9))), PROV)
    flat = prior_accuracy(positions, load_policy(str(zero), 9))
    assert flat["positions"] == 24 and flat["hits"] == 0     # the pass is left out
    assert flat["log_likelihood"] == pytest.approx(-np.log(81))
    assert flat["top1"] == 0.0                               # ties go to the first point, A1
    fitted = tmp_path / "prior.json"
    runner = CliRunner()
    r = runner.invoke(main, ["train-prior", "--data", str(data), "--base", str(zero),
                             "--min-count", "1", "--out", str(fitted)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["eval", "prior", "--positions", str(data), str(zero), str(fitted)])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.strip().splitlines()]
    assert [row["prior"] for row in rows] == [str(zero), str(fitted)]
    assert rows[0]["top1"] == 0.0 and rows[0]["top1_95"][0] == 0.0
    # The 3-3 points are alike to any pattern: the fitted prior splits its mass among the
    # four, so it ranks the expert's corner first a quarter of the time.
    assert rows[1]["top1"] == pytest.approx(0.25)
    assert rows[1]["log_likelihood"] > -np.log(4) - 0.5
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = runner.invoke(main, ["eval", "prior", "--positions", str(data), str(bad)])
    assert r.exit_code != 0 and "bad.json" in r.output and "Traceback" not in r.output


def location(size, vertex, stones=0):
    """The location code of `vertex` on an NxN board with `stones` stones on it."""
    b = new_board(size)
    # Stones on the points of odd row and odd column: none touches another, none is captured.
    letters = "ABCDEFGHJKLMNOPQRST"[:size]
    spots = [f"{letters[c]}{r + 1}" for r in range(0, size, 2) for c in range(0, size, 2)]
    for k, v in enumerate(spots[:stones]):
        play(b, parse_vertex(v, size), BLACK if k % 2 == 0 else WHITE)
    assert size * size - b.meta[M_NEMPTY] == stones
    return location_code(b, parse_vertex(vertex, size), location_base(3)) - location_base(3)


def test_a_location_is_the_distances_to_the_two_nearest_edges_and_the_phase():
    cap = 7
    # The four 4-4 points of 19x19 share a code, and so do D3 and its seven images.
    assert location(19, "D4") == location(19, "Q4") == location(19, "D16") == location(19, "Q16")
    images = ["D3", "C4", "Q3", "R4", "C16", "D17", "R16", "Q17"]
    assert len({location(19, v) for v in images}) == 1
    # Near and far distances, capped: A1 is (1, 1), K10 (the centre) and K4 are "far".
    assert location(19, "A1") == (cap + 0) * cap + 0  # opening, near 1, far 1
    assert location(19, "D4") == (cap + 3) * cap + 3
    assert location(19, "K10") == (cap + 6) * cap + 6
    assert location(19, "K4") == (cap + 3) * cap + 6
    assert location(19, "D4") != location(19, "D10") != location(19, "C3")
    # After the opening (36 stones on 19x19, here 40) the same point has another code.
    assert location(19, "D4", stones=40) == location(19, "D4") - cap * cap
    assert location(19, "D4", stones=30) == location(19, "D4")


def test_opening_locations_are_the_location_codes_of_the_opening_alone():
    base = location_base(3)
    assert is_opening_location(base + location(19, "D4"), base)
    assert is_opening_location(base + location(19, "A1"), base)
    assert not is_opening_location(base + location(19, "D4", stones=40), base)
    assert not is_opening_location(base - 1, base)        # the largest diamond code
    assert not is_opening_location(base + 2 * 7 * 7, base)  # past the location codes


def test_location_weights_add_to_every_point_of_their_class():
    base = load_policy("handcrafted", 19)
    four_four = location_base(3) + location(19, "D4")
    pol = policy_from_theta("pattern3x3", base.theta, 19,
                            (3, np.array([four_four], np.int64), np.array([1.5])))
    board = new_board(19)
    plain = np.full(board.color.shape[0], EXCLUDED_SCORE)
    move_scores(board, BLACK, base, plain)
    scores = np.full(board.color.shape[0], EXCLUDED_SCORE)
    move_scores(board, BLACK, pol, scores)
    raised = {p for p in range(scores.size) if scores[p] != plain[p]}
    assert raised == {parse_vertex(v, 19) for v in ("D4", "Q4", "D16", "Q16")}
    for p in raised:
        assert scores[p] == pytest.approx(plain[p] + 1.5)


def star_positions(count):
    """Empty 13x13 boards where the expert takes a 4-4 point: the 3x3 features, the line and
    a radius-3 diamond (all empty, all on the board) see the same at D4 as at D7 or G7."""
    stars = ["D4", "K4", "D10", "K10"]
    return [Position(f"s{i}", 13, 7.0, [], "B", expert=stars[i % 4], extra={"game": f"g{i}"})
            for i in range(count)]


def test_location_weights_learn_the_corner_points_the_patterns_cannot_tell(tmp_path):
    base = load_policy(str(write_weights(tmp_path / "zero.json", "pattern3x3", [13],
                                         np.zeros(len(feature_names("pattern3x3", 13))),
                                         PROV)), 13)
    kwargs = dict(radius=3, min_count=1, epochs=3, alpha=0.2)
    _, _, without = fit(star_positions(40), star_positions(8), base, **kwargs)
    keys, values, report = fit(star_positions(40), star_positions(8), base, locations=True,
                               **kwargs)
    assert report["patterns"]["test"][1] > without["patterns"]["test"][1] + 0.5
    assert keys[-1] >= location_base(3)                  # location codes were kept
    pol = policy_from_theta("pattern3x3", base.theta, 13, (3, keys, values))
    scores = np.full(new_board(13).color.shape[0], EXCLUDED_SCORE)
    move_scores(new_board(13), BLACK, pol, scores)
    stars = [parse_vertex(v, 13) for v in ("D4", "K4", "D10", "K10")]
    others = [p for p in range(scores.size) if scores[p] > EXCLUDED_SCORE and p not in stars]
    assert min(scores[stars]) > max(scores[others]) + 1.0
