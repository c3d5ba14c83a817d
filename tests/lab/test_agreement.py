"""`simbal agreement` (engine/lab/agreement.py): fake GTP engines (tiny scripts written into
tmp_path) that answer known moves, so every rate of the report is known exactly; the lines of
moves, the genmove + undo fallback, the opening filter, and the command line's table, files
and errors."""
import json
import sys
import textwrap

import pytest
from click.testing import CliRunner

from engine.gtp.client import EngineFailure
from engine.lab.agreement import (line_of, normalise_move, opening_positions, run_agreement,
                                  summarise)
from engine.lab.cli import main
from engine.lab.match import wilson_interval
from policies.data.files import Position, write_positions

# A fake engine: MOVE is its answer, or "parity" for C3 after an even number of stones on the
# board and B2 after an odd one; without REG it knows no reg_genmove (genmove plays, undo
# takes back); CRASH makes it die when asked for a move.  Every command goes to LOG.
FAKE = textwrap.dedent('''
    import sys
    MOVE, REG, CRASH, LOG = {move!r}, {reg!r}, {crash!r}, {log!r}
    stones = 0
    def answer(text="", ok=True):
        print(("= " if ok else "? ") + text + "\\n", flush=True)
    for line in sys.stdin:
        with open(LOG, "a") as f:
            f.write(line)
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "quit":
            answer()
            break
        if cmd == "known_command":
            answer("true" if words[1] != "reg_genmove" or REG else "false")
        elif cmd == "clear_board":
            stones = 0
            answer()
        elif cmd == "play":
            stones += 1
            answer()
        elif cmd == "undo":
            stones -= 1
            answer()
        elif cmd == "genmove" or (cmd == "reg_genmove" and REG):
            if CRASH:
                sys.exit(3)
            move = MOVE if MOVE != "parity" else ("C3" if stones % 2 == 0 else "B2")
            if cmd == "genmove":
                stones += 1
            answer(move)
        elif cmd == "reg_genmove":
            answer("unknown command", ok=False)
        else:
            answer()
''')


def fake_engine(tmp_path, name, move, reg=True, crash=False):
    script = tmp_path / f"fake_{name}.py"
    log = tmp_path / f"{name}.log"
    script.write_text(FAKE.format(move=move, reg=reg, crash=crash, log=str(log)))
    return f"{sys.executable} {script}"


def commands_sent(tmp_path, name):
    return (tmp_path / f"{name}.log").read_text().splitlines()


# Five 9x9 positions: 0, 2, 1, 3 and 4 moves played; four with an expert move.
POSITIONS = [
    ("p0", [], "B", "C3"),
    ("p1", [("B", "E5"), ("W", "C7")], "B", "A1"),
    ("p2", [("B", "E5")], "W", "c3"),
    ("p3", [("B", "E5"), ("W", "D4"), ("B", "F6")], "W", None),
    ("p4", [("B", "E5"), ("W", "D4"), ("B", "F6"), ("W", "G7")], "B", "pass"),
]


@pytest.fixture
def positions_file(tmp_path):
    path = tmp_path / "openings.jsonl"
    write_positions(path, [Position(pid, 9, 7.5, moves, to_play, expert=expert,
                                    extra={"move_number": len(moves) + 1})
                           for pid, moves, to_play, expert in POSITIONS], {"command": "test"})
    return path


@pytest.fixture
def engines(tmp_path):
    return {"c3": fake_engine(tmp_path, "c3", "C3"),
            "a1": fake_engine(tmp_path, "a1", "a1", reg=False),
            "parity": fake_engine(tmp_path, "parity", "parity"),
            "passer": fake_engine(tmp_path, "passer", "pass")}


def test_lines_count_from_the_edge():
    assert line_of("A1", 19) == 1 and line_of("T19", 19) == 1 and line_of("A10", 19) == 1
    assert line_of("B18", 19) == 2 and line_of("D4", 19) == 4 and line_of("Q16", 19) == 4
    assert line_of("K10", 19) == 10 and line_of("E5", 9) == 5 and line_of("C3", 9) == 3
    assert line_of("PASS", 19) is None and line_of("resign", 19) is None


def test_answers_are_normalised_and_nonsense_refused():
    assert normalise_move(" d4 ", 9) == "D4"
    assert normalise_move("pass", 9) == "PASS" and normalise_move("Resign", 9) == "resign"
    for bad in ("Z99", "K10", "hello", ""):
        with pytest.raises(ValueError):
            normalise_move(bad, 9)


def test_opening_positions_keep_the_short_ones_up_to_the_limit(positions_file):
    assert [p.id for p in opening_positions(positions_file)] == ["p0", "p1", "p2", "p3", "p4"]
    assert [p.id for p in opening_positions(positions_file, max_moves=3)] == ["p0", "p1", "p2"]
    assert [p.id for p in opening_positions(positions_file, max_moves=3, limit=2)] == ["p0", "p1"]
    assert opening_positions(positions_file, max_moves=0) == []


def test_rates_lines_and_pairs_are_exact(tmp_path, positions_file, engines):
    out = tmp_path / "out"
    seen = []
    report = run_agreement(opening_positions(positions_file), engines, out,
                           lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 20) and seen[-1] == (20, 20) and len(seen) == 21
    assert report["positions"] == 5 and report["with_expert"] == 4
    e = report["engines"]
    # Experts C3, A1, C3, pass on p0, p1, p2, p4; parity answers C3, C3, B2, B2, C3.
    assert {n: (e[n]["expert"]["hits"], e[n]["expert"]["n"]) for n in e} == \
        {"c3": (2, 4), "a1": (1, 4), "parity": (1, 4), "passer": (1, 4)}
    assert e["c3"]["expert"]["rate"] == 0.5
    assert e["c3"]["expert"]["rate_95"] == list(wilson_interval(2, 4))
    assert e["c3"]["lines"] == {"3": 5}
    assert e["a1"]["lines"] == {"1": 5}
    assert e["parity"]["lines"] == {"2": 2, "3": 3}
    assert e["passer"]["lines"] == {"pass": 5}
    assert {n: e[n]["lines_1_2"]["hits"] for n in e} == {"c3": 0, "a1": 5, "parity": 2, "passer": 0}
    assert e["parity"]["lines_1_2"]["rate"] == pytest.approx(0.4)
    pairs = {(p["a"], p["b"]): p["hits"] for p in report["pairs"]}
    assert pairs == {("c3", "a1"): 0, ("c3", "parity"): 3, ("c3", "passer"): 0,
                     ("a1", "parity"): 0, ("a1", "passer"): 0, ("parity", "passer"): 0}
    assert all(p["n"] == 5 for p in report["pairs"])
    assert json.loads((out / "summary.json").read_text()) == json.loads(json.dumps(report))
    answers = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert [a["id"] for a in answers] == ["p0", "p1", "p2", "p3", "p4"]
    assert answers[2] == {"id": "p2", "move_number": 2, "size": 9, "expert": "C3",
                          "answers": {"c3": "C3", "a1": "A1", "parity": "B2", "passer": "PASS"}}
    assert answers[3]["expert"] is None and answers[4]["expert"] == "PASS"


def test_the_position_is_set_up_and_asked_without_playing(tmp_path, positions_file, engines):
    """reg_genmove where the engine has it; genmove then undo where it has not."""
    run_agreement(opening_positions(positions_file, max_moves=3), engines, tmp_path / "out")
    c3 = commands_sent(tmp_path, "c3")
    i = c3.index("play w C7")
    assert c3[i - 5:i + 2] == ["reg_genmove b", "boardsize 9", "clear_board", "komi 7.5",
                               "play b E5", "play w C7", "reg_genmove b"]
    assert not any(c.startswith(("genmove", "undo")) for c in c3)
    a1 = commands_sent(tmp_path, "a1")
    assert not any(c.startswith("reg_genmove") for c in a1)
    asked = [k for k, c in enumerate(a1) if c.startswith("genmove")]
    assert [a1[k] for k in asked] == ["genmove b", "genmove b", "genmove w"]
    assert all(a1[k + 1] == "undo" for k in asked)


def test_summary_without_experts_or_pairs():
    records = [{"id": "x", "size": 19, "expert": None, "answers": {"solo": "resign"}}]
    report = summarise(records, ["solo"])
    assert report["with_expert"] == 0 and report["pairs"] == []
    assert report["engines"]["solo"]["expert"]["rate"] is None
    assert report["engines"]["solo"]["lines"] == {"resign": 1}


def test_a_crashing_engine_is_named(tmp_path, positions_file):
    engines = {"good": fake_engine(tmp_path, "good", "C3"),
               "bad": fake_engine(tmp_path, "bad", "C3", crash=True)}
    with pytest.raises(EngineFailure, match=r"^bad .*position p0"):
        run_agreement(opening_positions(positions_file), engines, tmp_path / "out")


def test_the_command_prints_the_table_and_writes_the_summary(tmp_path, positions_file, engines):
    out = tmp_path / "cli"
    result = CliRunner().invoke(main, ["agreement", str(positions_file), engines["c3"],
                                       engines["parity"], "--names", "X,Y", "--max-moves", "3",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("3 positions (3 with an expert move)")
    # p0..p2: experts C3, A1, C3; X answers C3 always, Y C3, C3, B2.
    assert [line.split()[:2] for line in lines[2:4]] == [["X", "66.7%"], ["Y", "33.3%"]]
    assert "3:3" in lines[2] and "2:1 3:2" in lines[3]
    assert "X = Y: 2/3 66.7%" in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["positions"] == 3 and summary["engines"]["Y"]["lines_1_2"]["hits"] == 1
    assert len((out / "answers.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize("extra, words", [
    (["gnugo:strong"], "expected gnugo or gnugo:LEVEL"),
    (["mcts:default"], "give a GTP command line"),
    (["--names", "X"], "expected 2 different names"),
])
def test_the_command_refuses_bad_engines_by_name(tmp_path, positions_file, engines, extra, words):
    args = ["agreement", str(positions_file), engines["c3"]]
    args += extra if extra[0] != "--names" else [engines["a1"]] + extra
    result = CliRunner().invoke(main, args + ["--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and words in result.output, result.output


def test_the_command_names_a_failing_engine_and_a_bad_file(tmp_path, positions_file):
    bad = fake_engine(tmp_path, "bad", "C3", crash=True)
    result = CliRunner().invoke(main, ["agreement", str(positions_file), bad, "--names", "boom",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 1 and "engine failed: boom" in result.output, result.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "x"}\n')
    result = CliRunner().invoke(main, ["agreement", str(broken), bad])
    assert result.exit_code == 1 and "broken.jsonl, line 1: missing" in result.output
