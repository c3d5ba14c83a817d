"""Fuego as the label oracle (`simbal data label|depth2 --oracle fuego`): the settings it is
started with, one seeded search per label converted to Black's view, depth-2 leaves replayed
move by move, a clear one-line error without Fuego.  A fake Fuego (a script found through
$SIMBAL_FUEGO) checks what is sent; one test runs the real Fuego when it is on PATH."""
import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.gtp import fuego
from policies.data.files import DataFileError, Position, read_positions, write_positions
from policies.data.labels import FuegoOracle, depth2_file, label_file

ROOT = Path(__file__).resolve().parents[3]
SHARED_LABELS = ROOT.parent / "shared" / "data" / "fuego-labels" / "5x5-test.jsonl"

# Answers uct_value with 0.01 * (number of moves on its board) + 0.001 * (seed % 100), from the
# side to move's view, so a test can tell which position and which seed a value came from.
FAKE_FUEGO = textwrap.dedent('''\
    #!{python}
    import sys
    log = open({log!r}, "a")
    args = sys.argv[1:]
    if "--config" in args:
        log.write("CONFIG " + open(args[args.index("--config") + 1]).read().replace("\\n", "|")
                  + "\\n")
    moves, seed = 0, 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        log.write(line)
        log.flush()
        name = words[0]
        answer = ""
        if name == "list_commands":
            answer = "genmove\\nuct_value\\nset_random_seed\\nversion"
        elif name == "version":
            answer = "1.1.FAKE"
        elif name == "clear_board":
            moves = 0
        elif name == "play":
            moves += 1
        elif name == "set_random_seed":
            seed = int(words[1])
        elif name == "genmove":
            answer = "pass"
        elif name == "uct_value":
            answer = str(0.01 * moves + 0.001 * (seed % 100))
        elif name == "quit":
            print("=\\n", flush=True)
            break
        print("= " + answer + "\\n", flush=True)
''')


@pytest.fixture
def fake_fuego(tmp_path, monkeypatch):
    log = tmp_path / "fuego.log"
    script = tmp_path / "fuego"
    script.write_text(FAKE_FUEGO.format(python=sys.executable, log=str(log)))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("SIMBAL_FUEGO", str(script))
    return log


def positions(tmp_path):
    path = tmp_path / "in.jsonl"
    write_positions(path, [Position("a", 5, 24.5, [("B", "C3"), ("W", "D4")], "B"),
                           Position("b", 5, 24.5, [("B", "C3")], "W")], {"test": True})
    return path


def test_fuego_labels_are_one_seeded_search_each_from_blacks_view(fake_fuego, tmp_path):
    out = tmp_path / "out.jsonl"
    written, failures = label_file(positions(tmp_path), out, playouts=777, oracle="fuego", seed=5,
                                   report=lambda *a: None)
    assert failures == [] and [p.id for p in written] == ["a", "b"]
    log = fake_fuego.read_text()
    config = log.splitlines()[0].removeprefix("CONFIG ").split("|")
    for line in fuego.ORACLE_SETTINGS:
        assert line in config
    assert "uct_param_player max_games 777" in config
    labelled = {p.id: p for p in read_positions(out)}
    seeds = {pid: labelled[pid].extra["label"]["fuego_seed"] for pid in "ab"}
    assert seeds["a"] != seeds["b"]
    # "a": Black to move after 2 moves, the value is Black's; "b": White to move after 1.
    assert labelled["a"].value_black == pytest.approx(0.02 + 0.001 * (seeds["a"] % 100))
    assert labelled["b"].value_black == pytest.approx(1 - 0.01 - 0.001 * (seeds["b"] % 100))
    assert labelled["a"].extra["label"] == {"oracle": "fuego-1.1.FAKE", "games": 777,
                                            "fuego_seed": seeds["a"]}
    # The seed is sent before each search, after the position.
    lines = [ln.split()[0] for ln in log.splitlines()[1:]]
    assert lines.count("set_random_seed") == 2
    assert lines.index("set_random_seed") < lines.index("genmove")
    assert lines.index("play") < lines.index("set_random_seed")
    meta = json.loads(Path(str(out) + ".meta.json").read_text())
    assert meta["made_by"]["settings"]["labeller"] == "fuego"
    assert "uct_param_globalsearch mercy_rule 0" in meta["made_by"]["settings"]["gtp_settings"]
    # The same run seed gives the same seeds, another run seed others.
    again, _ = label_file(positions(tmp_path), tmp_path / "again.jsonl", playouts=777,
                          oracle="fuego", seed=5, report=lambda *a: None)
    other, _ = label_file(positions(tmp_path), tmp_path / "other.jsonl", playouts=777,
                          oracle="fuego", seed=6, report=lambda *a: None)
    assert [p.extra["label"]["fuego_seed"] for p in again] == [seeds["a"], seeds["b"]]
    assert [p.extra["label"]["fuego_seed"] for p in other] != [seeds["a"], seeds["b"]]


def test_fuego_depth2_leaves_replay_the_line_below_the_position(fake_fuego, tmp_path):
    src = tmp_path / "d.jsonl"
    write_positions(src, [Position("t", 3, 0.5, [("B", "B2"), ("W", "A1")], "B",
                                   value_black=0.5)], {"test": True})
    out = tmp_path / "d2.jsonl"
    written, failures = depth2_file(src, out, playouts=50, oracle="fuego", seed=1,
                                    report=lambda *a: None)
    assert failures == []
    tree = read_positions(out)[0].extra["children"]
    assert tree, "no children"
    for child in tree:
        # After 3 moves White is to move: Black's value is 1 - (0.03 + seed digit).
        assert 1 - child["value_black"] == pytest.approx(0.03, abs=0.1001)
        for reply in child["children"]:
            assert reply["value_black"] == pytest.approx(0.04, abs=0.1001)
    assert "uct_param_player max_games 50" in fake_fuego.read_text()
    meta = json.loads(Path(str(out) + ".meta.json").read_text())
    assert meta["made_by"]["settings"]["labeller"] == "fuego"


def test_depth2_between_expands_only_the_contested_roots(fake_fuego, tmp_path):
    src = tmp_path / "d.jsonl"
    line = [("B", "B2"), ("W", "A1")]
    write_positions(src, [Position(name, 3, 0.5, line, "B", value_black=value)
                          for name, value in (("won", 0.97), ("open", 0.5), ("edge", 0.05),
                                              ("lost", 0.01))], {"test": True})
    out = tmp_path / "d2.jsonl"
    written, failures = depth2_file(src, out, playouts=50, oracle="fuego", seed=1,
                                    report=lambda *a: None, between=(0.05, 0.95))
    assert failures == []
    assert [p.id for p in read_positions(out)] == ["open", "edge"]
    assert all(p.extra["children"] for p in read_positions(out))
    meta = json.loads(Path(str(out) + ".meta.json").read_text())
    assert meta["made_by"]["settings"]["roots_labelled_between"] == [0.05, 0.95]
    # --limit counts the kept positions, not the file's lines.
    one = tmp_path / "one.jsonl"
    depth2_file(src, one, playouts=50, oracle="fuego", seed=1, report=lambda *a: None,
                between=(0.05, 0.95), limit=1)
    assert [p.id for p in read_positions(one)] == ["open"]
    # A root without a label cannot be judged contested: refused by name, nothing written.
    bare = tmp_path / "bare.jsonl"
    write_positions(bare, [Position("nolabel", 3, 0.5, line, "B")], {"test": True})
    with pytest.raises(DataFileError, match="nolabel"):
        depth2_file(bare, tmp_path / "x.jsonl", playouts=50, oracle="fuego", seed=1,
                    report=lambda *a: None, between=(0.1, 0.9))
    assert not (tmp_path / "x.jsonl").exists()
    with pytest.raises(ValueError):
        depth2_file(src, tmp_path / "y.jsonl", playouts=50, oracle="fuego", between=(0.9, 0.1))


def test_depth2_biased_keeps_the_positions_uniform_playouts_misjudge(fake_fuego, tmp_path):
    # Black owns the whole 3x3 board with two eyes (A1, C3): every playout ends in Black's
    # win, so uniform's value is 1 and only a label far from 1 is "biased".
    line = []
    for v in ("B1", "C1", "A2", "B2", "C2", "A3", "B3"):
        line += [("B", v), ("W", "pass")]
    src = tmp_path / "d.jsonl"
    write_positions(src, [Position(name, 3, 0.5, line, "B", value_black=value)
                          for name, value in (("right", 1.0), ("near", 0.85), ("wrong", 0.0),
                                              ("off", 0.7))], {"test": True})
    out = tmp_path / "d2.jsonl"
    written, failures = depth2_file(src, out, playouts=50, oracle="fuego", seed=3,
                                    report=lambda *a: None, biased=0.2)
    assert failures == []
    assert [p.id for p in read_positions(out)] == ["wrong", "off"]
    setting = json.loads(Path(str(out) + ".meta.json").read_text())["made_by"]["settings"]
    assert setting["roots_uniform_error_at_least"]["error"] == 0.2
    # Both filters at once keep what both keep.
    both = tmp_path / "both.jsonl"
    depth2_file(src, both, playouts=50, oracle="fuego", seed=3, report=lambda *a: None,
                biased=0.2, between=(0.5, 1.0))
    assert [p.id for p in read_positions(both)] == ["off"]


def test_fuego_player_settings_fix_playouts_or_time_on_one_thread():
    by_games = fuego.player_settings(games=5000)
    assert "uct_param_search number_threads 1" in by_games
    assert "uct_param_player max_games 5000" in by_games
    by_time = fuego.player_settings(seconds=1.5)
    assert "go_param timelimit 1.5" in by_time
    assert not any("ignore_clock" in line for line in by_time)   # else no limit at all
    for lines in (by_games, by_time, fuego.player_settings()):
        # the referee's ko rule; Fuego's own default (situational superko) forfeits games
        assert "go_param_rules ko_rule pos_superko" in lines
    with pytest.raises(ValueError):
        fuego.player_settings(games=10, seconds=1)
    assert fuego.config_file(by_games) == fuego.config_file(by_games)
    assert fuego.config_file(by_games).read_text().splitlines() == list(by_games)


@pytest.mark.parametrize("step", ["label", "depth2"])
def test_without_fuego_the_command_says_how_to_get_it(tmp_path, step):
    env = dict(os.environ, SIMBAL_FUEGO=str(tmp_path / "no-such-fuego"))
    run = subprocess.run([sys.executable, "-m", "engine.lab.cli", "data", step, "--in",
                          str(positions(tmp_path)), "--out", str(tmp_path / "o.jsonl"),
                          "--oracle", "fuego", "--workers", "0"],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert run.returncode == 1
    assert "fuego: not found on PATH" in run.stderr and "install.sh" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.skipif(not fuego.available(), reason="Fuego is not installed (fuego on PATH)")
@pytest.mark.skipif(not SHARED_LABELS.exists(), reason="the shared Fuego-labelled set is absent")
def test_real_fuego_relabels_the_shared_positions_close_to_their_labels(tmp_path):
    shared = read_positions(SHARED_LABELS)[:6]
    src = tmp_path / "shared.jsonl"
    write_positions(src, shared, {"test": True})
    oracle = FuegoOracle(games=3000, seed=1)
    try:
        for pos in shared:
            assert oracle.value(pos) == pytest.approx(pos.value_black, abs=0.1)
    finally:
        oracle.close()


def test_fuego_search_settings_are_sent_again_after_each_change_of_size(fake_fuego, tmp_path):
    # Fuego 1.1 resets uct_param_search to its defaults when the board size changes, so the
    # start-up file's search lines must follow every boardsize that changes the size.
    src = tmp_path / "sizes.jsonl"
    write_positions(src, [Position("a", 5, 24.5, [("B", "C3")], "W"),
                          Position("b", 5, 24.5, [], "B"),
                          Position("c", 7, 9.5, [("B", "D4")], "W")], {"test": True})
    written, failures = label_file(src, tmp_path / "o.jsonl", playouts=50, oracle="fuego",
                                   report=lambda *a: None)
    assert failures == [] and len(written) == 3
    lines = [ln.strip() for ln in fake_fuego.read_text().splitlines()[1:]]
    search = fuego.search_settings(fuego.ORACLE_SETTINGS)
    assert "uct_param_search move_select value" in search
    genmoves = [i for i, ln in enumerate(lines) if ln.startswith("genmove")]
    sizes = [i for i, ln in enumerate(lines) if ln.startswith("boardsize")]
    assert len(genmoves) == 3 and len(sizes) == 3
    for first, (size_at, genmove_at) in enumerate(zip(sizes, genmoves)):
        between = lines[size_at:genmove_at]
        resent = all(line in between for line in search)
        assert resent == (first in (0, 2)), (first, between)   # "b" has "a"'s size


def test_fuego_playouts_oracle_is_the_mean_of_playouts_without_a_tree(fake_fuego, tmp_path):
    out = tmp_path / "p.jsonl"
    written, failures = label_file(positions(tmp_path), out, playouts=256,
                                   oracle="fuego-playouts", seed=5, report=lambda *a: None)
    assert failures == [] and len(written) == 2
    log = fake_fuego.read_text()
    config = log.splitlines()[0].removeprefix("CONFIG ").split("|")
    assert fuego.PLAYOUTS_ONLY[0] in config and "uct_param_player max_games 256" in config
    # The expansion threshold is a search setting: sent again after the first boardsize.
    lines = [ln.strip() for ln in log.splitlines()[1:]]
    assert lines.index(fuego.PLAYOUTS_ONLY[0]) > lines.index("boardsize 5")
    assert lines.index(fuego.PLAYOUTS_ONLY[0]) < next(
        i for i, ln in enumerate(lines) if ln.startswith("genmove"))
    labelled = read_positions(out)
    assert all(p.extra["label"]["tree"] is False for p in labelled)
    meta = json.loads(Path(str(out) + ".meta.json").read_text())
    assert meta["made_by"]["settings"]["labeller"] == "fuego-playouts"
    oracle = FuegoOracle(games=256, seed=5, tree=False)
    try:
        assert oracle.settings() == meta["made_by"]["settings"]
    finally:
        oracle.close()
    # The full-search oracle has neither the line nor the mark.
    assert fuego.PLAYOUTS_ONLY[0] not in fuego.oracle_settings(256)


@pytest.mark.skipif(not fuego.available(), reason="Fuego is not installed (fuego on PATH)")
@pytest.mark.parametrize("tree", [True, False])
def test_real_fuego_keeps_the_oracle_search_settings_on_a_new_board_size(tree):
    oracle = FuegoOracle(games=200, seed=1, tree=tree)
    try:
        oracle.value(Position("a", 6, 2.5, [("B", "C3"), ("W", "D4")], "B"))
        params = oracle.client.send("uct_param_search")
        assert "move_select value" in params
        assert ("expand_threshold 1e+09" in params) == (not tree)
        stats = oracle.client.send("uct_stat_search")
        nodes = int(next(ln.split()[1] for ln in stats.splitlines() if ln.startswith("Nodes")))
        assert (nodes == 1) == (not tree)   # playouts only: the root is the whole tree
    finally:
        oracle.close()
