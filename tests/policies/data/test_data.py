"""Position files (policies/data/files.py), position sets (policies/data/positions.py), labels, expert
moves and depth-2 trees (policies/data/labels.py), and the `simbal data` commands."""
import gzip
import json
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from engine.core.board import EMPTY, PASS, copy_board, play
from engine.core.coords import parse_vertex
from engine.lab.cli import main
from engine.play.game import Game
from policies import load_policy
from policies.data.files import (DataFileError, Position, game_over, meta_path, position_board,
                                 read_meta, read_positions, write_positions)
from policies.data.labels import (GtpOracle, LeafSearch, SearchLabeller, candidates, depth2_tree,
                                  experts_file, label_one, run_over_file)
from policies.data.positions import random_positions, selfplay_positions, sgf_positions, split
from policies.softmax import probabilities

from conftest import GTP_MAIN  # noqa: E402  (the engine, as the GUIs start it)

GOOD = {"id": "g17", "size": 5, "komi": 24.5, "moves": [["B", "C3"], ["W", "pass"]],
        "to_play": "B", "value_black": 0.62}


def write_lines(path, objects):
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects))
    return path


def pos(moves, to_play, komi=24.5, size=5, pid="p"):
    return Position(pid, size, komi, [tuple(m.split()) for m in moves], to_play)


# -- the file format ---------------------------------------------------------------------------

def test_interchange_line_reads_and_writes_back_unchanged(tmp_path):
    src = write_lines(tmp_path / "in.jsonl", [dict(GOOD, expert="D4", children=[], note="kept")])
    (p,) = read_positions(src)
    assert (p.id, p.size, p.komi, p.to_play, p.value_black, p.expert) == \
        ("g17", 5, 24.5, "B", 0.62, "D4")
    assert p.moves == [("B", "C3"), ("W", "pass")]
    assert p.extra == {"children": [], "note": "kept"}
    out = tmp_path / "out.jsonl"
    write_positions(out, [p], {"command": "test", "seed": 3})
    assert json.loads(out.read_text()) == json.loads(src.read_text())
    meta = read_meta(out)   # provenance in the sidecar, the data file one object a line
    assert meta["format_version"] == 1 and meta["count"] == 1
    assert meta["made_by"] == {"command": "test", "seed": 3}
    assert meta_path(out).name == "out.jsonl.meta.json"


@pytest.mark.parametrize("line, problem", [
    ('{"id": "a", "size": 5', "not JSON"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "moves"}), "missing moves"),
    (json.dumps(dict(GOOD, moves=[["B", "Z9"]])), "move 1"),
    (json.dumps(dict(GOOD, moves=[["X", "C3"]])), "move 1"),
    (json.dumps(dict(GOOD, value_black=1.5)), "not a probability"),
    (json.dumps(dict(GOOD, value_black="high")), "value_black"),
    (json.dumps(dict(GOOD, to_play="black")), "to_play"),
    (json.dumps(dict(GOOD, size=30)), "size"),
    (json.dumps(dict(GOOD, expert="Q16")), "expert"),
    ("[1, 2]", "not a JSON object"),
    (json.dumps(GOOD), "already used on line 1"),
])
def test_a_malformed_line_names_file_and_line(tmp_path, line, problem):
    path = write_lines(tmp_path / "bad.jsonl", [GOOD, line])
    with pytest.raises(DataFileError) as err:
        read_positions(path)
    assert f"{path}, line 2" in str(err.value) and problem in str(err.value)


def test_missing_file_and_bad_sidecar_are_clear_errors(tmp_path):
    with pytest.raises(DataFileError, match="nothere.jsonl"):
        read_positions(tmp_path / "nothere.jsonl")
    path = write_lines(tmp_path / "p.jsonl", [GOOD])
    meta_path(path).write_text('{"format": "simbal-positions", "format_version": 9}')
    with pytest.raises(DataFileError, match="format version 9"):
        read_meta(path)


def test_a_gzipped_file_reads_like_the_plain_one_and_a_broken_one_is_refused(tmp_path):
    plain = write_lines(tmp_path / "p.jsonl", [GOOD, dict(GOOD, id="g18", value_black=0.1)])
    packed = tmp_path / "p.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert read_positions(packed) == read_positions(plain)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed.read_bytes()[:-12])   # truncated in the middle of the stream
    with pytest.raises(DataFileError, match="cut.jsonl.gz: cannot read"):
        read_positions(cut)
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_bytes(plain.read_bytes())        # not gzip at all
    with pytest.raises(DataFileError, match="fake.jsonl.gz: cannot read"):
        read_positions(fake)


def test_position_board_replays_moves_and_refuses_illegal_ones():
    b, c = position_board(pos(["B C3", "W D4", "B pass"], "W"))
    assert c == 2 and b.color[parse_vertex("C3", 5)] == 1 and b.color[parse_vertex("D4", 5)] == 2
    assert int(np.sum(b.color == EMPTY)) == 23
    with pytest.raises(DataFileError, match="move 2"):
        position_board(pos(["B C3", "W C3"], "B"))


# -- position sets ------------------------------------------------------------------------------

def test_random_positions_follow_the_protocol():
    positions, counts = random_positions(5, 24.5, 120, seed=4)
    again, _ = random_positions(5, 24.5, 120, seed=4)
    assert [p.to_json() for p in positions] == [p.to_json() for p in again]   # reproducible
    other, _ = random_positions(5, 24.5, 120, seed=5)
    assert [p.to_json() for p in positions] != [p.to_json() for p in other]
    assert counts["positions"] == len(positions) >= 110
    assert len({p.extra["game"] for p in positions}) == len(positions)       # one per game
    lengths = [len(p.moves) for p in positions]
    assert min(lengths) < 10 and max(lengths) > 20                            # a random move
    for p in positions:
        assert not game_over(p)
        assert p.to_play == "BW"[len(p.moves) % 2]
        game = Game(5, 24.5)   # legal under the full rules, superko included
        for letter, v in p.moves:
            game.play(1 if letter == "B" else 2, parse_vertex(v, 5))


def test_selfplay_positions_are_reproducible_positions_of_engine_games(dask_cluster):
    positions, counts = selfplay_positions(5, 24.5, 4, seed=2, playouts=30, weights="uniform")
    assert counts["games"] == 4 and len(positions) == counts["positions"] >= 3
    again, _ = selfplay_positions(5, 24.5, 4, seed=2, playouts=30, weights="uniform",
                                  cluster=dask_cluster)
    assert [p.to_json() for p in positions] == [p.to_json() for p in again]
    for p in positions:
        assert p.extra["source"] == "selfplay" and not game_over(p)
        position_board(p)


def test_split_is_disjoint_by_game_and_covers_everything():
    positions = [Position(f"{g}:{k}", 5, 0.5, [], "B", extra={"game": str(g)})
                 for g in range(30) for k in range(3)]
    train, test = split(positions, 10, seed=1)
    assert 10 <= len(test) <= 12 and len(train) + len(test) == 90
    assert not {p.extra["game"] for p in train} & {p.extra["game"] for p in test}
    assert split(positions, 10, seed=1)[1] == test


SGF = "(;GM[1]FF[4]SZ[5]KM[2.5];B[cc];W[dd];B[cd];W[])"


def test_sgf_positions_give_expert_moves_and_skip_broken_files(tmp_path):
    (tmp_path / "good.sgf").write_text(SGF)
    (tmp_path / "broken.sgf").write_text("(;GM[1]SZ[5];B[cc];W[cc])")     # illegal move
    (tmp_path / "junk.sgf").write_text("this is not SGF")
    (tmp_path / "big.sgf").write_text("(;GM[1]SZ[9];B[cc])")
    reports = []
    positions, counts = sgf_positions(tmp_path, size=5, report=reports.append)
    assert counts == {"files": 4, "skipped_files": 3, "positions": 4}
    assert len(reports) == 3 and any("broken.sgf" in r for r in reports)
    assert [p.expert for p in positions] == ["C3", "D2", "C2", "pass"]
    assert [len(p.moves) for p in positions] == [0, 1, 2, 3]
    assert [p.to_play for p in positions] == ["B", "W", "B", "W"]
    assert positions[0].komi == 2.5 and positions[0].id == "good:1"


def test_sgf_positions_after_given_move_counts_only(tmp_path):
    (tmp_path / "good.sgf").write_text(SGF)
    positions, counts = sgf_positions(tmp_path, size=5, after=(1, 3))
    assert [len(p.moves) for p in positions] == [1, 3]
    assert [p.expert for p in positions] == ["D2", "pass"]


def test_sgf_positions_of_one_player_keep_only_its_moves(tmp_path):
    (tmp_path / "a.sgf").write_text("(;GM[1]SZ[5]PB[gnugo]PW[simbal];B[cc];W[dd];B[cd];W[])")
    (tmp_path / "b.sgf").write_text("(;GM[1]SZ[5]PB[simbal]PW[gnugo];B[bb];W[cc];B[dd])")
    (tmp_path / "c.sgf").write_text("(;GM[1]SZ[5]PB[x]PW[y];B[bb])")
    reports = []
    positions, counts = sgf_positions(tmp_path, size=5, report=reports.append, player="gnugo")
    assert counts == {"files": 3, "skipped_files": 1, "positions": 3}
    assert len(reports) == 1 and "c.sgf" in reports[0] and "gnugo" in reports[0]
    assert [(p.id, p.to_play, p.expert) for p in positions] == [
        ("a:1", "B", "C3"), ("a:3", "B", "C2"), ("b:2", "W", "C3")]


def test_sgf_positions_carry_the_games_result_for_eval_mse_against_it(tmp_path):
    (tmp_path / "b.sgf").write_text("(;GM[1]SZ[5]KM[2.5]RE[B+R];B[cc];W[dd];B[cd])")
    (tmp_path / "w.sgf").write_text("(;GM[1]SZ[5]KM[2.5]RE[W+3.5];B[cc];W[dd])")
    (tmp_path / "none.sgf").write_text("(;GM[1]SZ[5]KM[2.5];B[cc])")
    positions, _ = sgf_positions(tmp_path, size=5)
    results = {p.id: p.extra.get("result_black") for p in positions}
    assert results == {"b:1": 1.0, "b:2": 1.0, "b:3": 1.0, "none:1": None, "w:1": 0.0,
                       "w:2": 0.0}
    kept = [p for p in positions if p.extra.get("result_black") is not None]
    for p in kept:
        p.value_black = 0.5
    write_positions(tmp_path / "r.jsonl", kept, {"test": True})
    args = ["eval", "mse", "--positions", str(tmp_path / "r.jsonl"), "--weights", "uniform",
            "--sims", "16", "--seed", "4", "--workers", "0"]
    by_result = json.loads(CliRunner().invoke(main, args + ["--target", "result"]).stdout)
    by_label = json.loads(CliRunner().invoke(main, args).stdout)
    assert by_result["target"] == "result" and "target" not in by_label
    # The same playouts against the two targets: 0.5 everywhere, or the results 1, 1, 1, 0, 0.
    from policies.data.evaluate import mc_values
    values = mc_values(read_positions(tmp_path / "r.jsonl"), load_policy("uniform", 5), 16, 4)
    assert by_label["mse"] == pytest.approx(np.mean((values - 0.5) ** 2))
    assert by_result["mse"] == pytest.approx(np.mean((values - [1, 1, 1, 0, 0]) ** 2))
    # A file without results is refused by name, in one line.
    write_positions(tmp_path / "n.jsonl", [positions[3]], {"test": True})
    run = CliRunner().invoke(main, ["eval", "mse", "--positions", str(tmp_path / "n.jsonl"),
                                    "--target", "result", "--workers", "0"])
    assert run.exit_code != 0 and "no game result" in run.output
    assert "Traceback" not in run.output


# -- resumable runs over a file -----------------------------------------------------------------

class Dummy:
    def __init__(self, calls):
        self.calls = calls

    def close(self):
        pass


def halve(worker, p):
    worker.calls.append(p.id)
    if p.id == "bad":
        raise DataFileError("bad position")
    p.value_black = 0.5
    return p


def test_run_over_file_resumes_skips_failures_and_keeps_input_order(tmp_path):
    src = tmp_path / "in.jsonl"
    ids = [f"p{i}" for i in range(8)]
    write_positions(src, [Position(i, 5, 0.5, [], "B") for i in ids + ["bad"]], {})
    out = tmp_path / "out.jsonl"
    made_by = {"settings": {"x": 1}}
    # An interrupted earlier run: two positions done, a third cut off mid-line.
    write_lines(out, [dict(id="p5", size=5, komi=0.5, moves=[], to_play="B", value_black=0.25),
                      dict(id="p1", size=5, komi=0.5, moves=[], to_play="B", value_black=0.25)])
    with open(out, "a") as f:
        f.write('{"id": "p2", "si')
    from policies.data.files import write_meta
    write_meta(out, dict(made_by, seconds=100.0), 2, complete=False)
    calls, reports = [], []
    written, failures = run_over_file(src, out, lambda: Dummy(calls), halve, made_by,
                                      report=reports.append)
    assert sorted(calls) == sorted(set(ids + ["bad"]) - {"p1", "p5"})
    assert failures == ["bad"] and "bad position" in reports[0]
    back = read_positions(out)
    assert [p.id for p in back] == ids                               # input order, no "bad"
    assert [p.value_black for p in back if p.id in ("p1", "p5")] == [0.25, 0.25]   # kept
    meta = read_meta(out)
    assert meta["complete"] and meta["made_by"]["failures"] == 1
    assert meta["made_by"]["positions_last_run"] == 7                  # 6 done + 1 failed
    assert meta["made_by"]["seconds"] == pytest.approx(100.0 + meta["made_by"]["seconds_last_run"],
                                                       abs=0.11)
    with pytest.raises(DataFileError, match="other settings"):
        run_over_file(src, out, lambda: Dummy([]), halve, {"settings": {"x": 2}})


# -- labels, experts, depth-2 trees -------------------------------------------------------------

@pytest.mark.parametrize("to_play", ["B", "W"])
def test_search_labels_are_black_win_probabilities(to_play):
    moves = ["B C3", "W D4"] if to_play == "B" else ["B C3"]
    labeller = SearchLabeller(300, "uniform", seed=1)
    assert label_one(labeller, pos(moves, to_play, komi=25.5)).value_black == 0.0  # never wins
    won = label_one(labeller, pos(moves, to_play, komi=-25.5))                   # always wins
    assert won.value_black == 1.0 and won.extra["playouts"] == 300
    # The same seed and id give the same label; the label is a probability.
    a = label_one(labeller, pos(moves, to_play, komi=0.5)).value_black
    assert a == label_one(labeller, pos(moves, to_play, komi=0.5)).value_black and 0 <= a <= 1


def test_search_label_of_a_finished_game_is_its_result():
    moves = ["B C3", "W pass", "B pass"]
    assert label_one(SearchLabeller(50), pos(moves, "W", komi=0.5)).value_black == 1.0
    assert label_one(SearchLabeller(50), pos(moves, "W", komi=25.5)).value_black == 0.0


def test_candidates_are_the_softmax_policies_candidates():
    p = pos(["B A2", "W C3", "B B1", "W D4", "B pass", "W E2"], "B", komi=0.5)
    b, c = position_board(p)   # Black has an eye at A1
    pol = load_policy("handcrafted", 5)
    probs = np.zeros(b.color.shape[0])
    probabilities(b, c, pol, probs)
    assert candidates(b, c) == sorted(int(q) for q in np.flatnonzero(probs > 0))
    assert parse_vertex("A1", 5) not in candidates(b, c)
    # Black everywhere on 3x3 but its two eyes A1 and C3: neither side has a move but pass.
    full = position_board(pos([f"B {v}" for v in ("A2", "A3", "B1", "B2", "B3", "C1", "C2")],
                              "W", size=3))[0]
    assert candidates(full, 1) == [PASS] and candidates(full, 2) == [PASS]


@pytest.mark.parametrize("komi, value", [(-9.5, 1.0), (9.5, 0.0)])   # Black always / never wins
def test_depth2_tree_covers_every_candidate_move_and_reply(komi, value):
    p = pos(["B B2", "W pass", "B A3"], "W", size=3, komi=komi)
    tree = depth2_tree(LeafSearch(40, seed=2), p)
    b, c = position_board(p)
    children = tree.extra["children"]
    assert [parse_vertex(ch["move"], 3) for ch in children] == candidates(b, c)
    for ch in children:
        b1 = copy_board(b)
        play(b1, parse_vertex(ch["move"], 3), c)
        assert [parse_vertex(g["move"], 3) for g in ch["children"]] == candidates(b1, 3 - c)
        assert ch["value_black"] == value and all(g["value_black"] == value for g in ch["children"])
    assert tree.value_black == value


@pytest.mark.parametrize("last", [[], ["W pass"]])
def test_depth2_tree_ends_the_game_after_two_passes(last):
    # Black owns the 3x3 board with four eyes: no move but pass for either side.  After a
    # White pass, Black's pass ends the game at once; otherwise White's pass, then Black's.
    moves = ["B B2", "W pass", "B A1", "W pass", "B C3", "W pass", "B A3", "W pass", "B C1"]
    p = pos(moves + last, "B" if last else "W", size=3, komi=0.5)
    children = depth2_tree(LeafSearch(40), p).extra["children"]
    assert children == [{"move": "pass", "value_black": 1.0,
                         "children": [{"move": "pass", "value_black": 1.0}]}]


def test_gtp_oracle_with_gnugo_maps_its_score_estimate(gnugo_path):
    oracle = GtpOracle(f"{gnugo_path} --mode gtp --level 1 --chinese-rules")
    try:
        assert oracle.method == "estimate_score"
        easy = oracle.value(pos(["B C3", "W pass", "B C2", "W pass"], "B", komi=-20.5))
        hard = oracle.value(pos(["B C3", "W pass", "B C2", "W pass"], "B", komi=24.5))
        assert easy > 0.99 and hard < easy
    finally:
        oracle.close()


def test_gtp_oracle_reads_win_rates_from_lz_genmove_analyze():
    oracle = GtpOracle(f"{sys.executable} {GTP_MAIN} --playouts 3000 --seed 1")
    try:
        assert oracle.method == "lz-genmove_analyze"
        lost = oracle.value(pos(["B C3", "W D4"], "B", komi=25.5))
        won = oracle.value(pos(["B C3"], "W", komi=-25.5))
        assert lost == 0.0 and won == 1.0   # win rates for the mover, turned to Black's
    finally:
        oracle.close()


def test_expert_moves_from_gnugo(gnugo_path, tmp_path):
    src = tmp_path / "in.jsonl"
    hopeless = Position("wall", 5, 24.5, [("W", f"C{k}") for k in range(1, 6)], "B")
    write_positions(src, [pos(["B C3"], "W", pid="open"), hopeless], {})
    out = tmp_path / "out.jsonl"
    written, failures = experts_file(src, out, f"{gnugo_path} --mode gtp --level 1 "
                                     "--chinese-rules")
    assert failures == [] and [p.id for p in written] == ["open", "wall"]
    p = written[0]
    b, c = position_board(p)
    assert candidates(b, c).count(parse_vertex(p.expert, 5)) == 1
    assert written[1].expert is None                     # GnuGo resigns: no expert move
    counts = read_meta(out)["made_by"]["counts"]
    assert counts == {"positions": 2, "no_expert": 1, "expert_pass": 0}


# -- the commands -------------------------------------------------------------------------------

def test_data_commands_end_to_end(tmp_path):
    run = CliRunner().invoke
    all_ = tmp_path / "all.jsonl"
    r = run(main, ["data", "random", "--games", "30", "--seed", "2", "--out", str(all_)])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games"] == 30
    r = run(main, ["data", "split", "--in", str(all_), "--test", "10", "--train-out",
                   str(tmp_path / "train.jsonl"), "--test-out", str(tmp_path / "test.jsonl")])
    assert r.exit_code == 0, r.output
    labelled = tmp_path / "test-l.jsonl"
    r = run(main, ["data", "label", "--in", str(tmp_path / "test.jsonl"), "--out", str(labelled),
                   "--playouts", "200", "--workers", "2"])   # a real local Dask cluster
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["cluster"]["workers"] == 2
    positions = read_positions(labelled)
    assert len(positions) == 10 and all(0 <= p.value_black <= 1 for p in positions)
    assert read_meta(labelled)["made_by"]["settings"]["playouts"] == 200
    bad = write_lines(tmp_path / "bad.jsonl", [GOOD, "{oops"])
    r = run(main, ["data", "label", "--in", str(bad), "--out", str(tmp_path / "x.jsonl"),
                   "--workers", "0"])
    assert r.exit_code != 0 and "bad.jsonl, line 2" in r.output and "Traceback" not in r.output
