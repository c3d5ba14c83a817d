"""GTP regression suites (engine/lab/regress.py, `simbal regress`): the GoGui format, verdicts, the
engine's working directory and restarts, run against a scripted fake engine and, once, ours."""
import json
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.lab.cli import main as cli
from engine.lab.regress import Step, SuiteError, matches, parse_suite, run_suite

# A fake GTP engine: `loadsgf F` succeeds only if F exists in its working directory (so the
# test sees the folder it was started in); reg_genmove answers from the last loaded file's
# first line; `die` exits; anything else unknown is an error.
FAKE = textwrap.dedent('''
    import os, sys
    answer = "PASS"
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0].isdigit():
            words = words[1:]
        cmd = words[0]
        if cmd == "quit":
            print("=\\n", flush=True)
            break
        if cmd == "loadsgf":
            if os.path.exists(words[1]):
                answer = open(words[1]).read().split()[0]
                print("= black\\n", flush=True)
            else:
                print("? cannot load file\\n", flush=True)
        elif cmd == "reg_genmove":
            print(f"= {answer}\\n", flush=True)
        elif cmd == "die":
            sys.exit(1)
        elif cmd == "boardsize":
            print("=\\n", flush=True)
        else:
            print("? unknown command\\n", flush=True)
''')


@pytest.fixture
def suite_dir(tmp_path):
    (tmp_path / "engine.py").write_text(FAKE)
    games = tmp_path / "suites" / "games"
    games.mkdir(parents=True)
    (games / "a.sgf").write_text("C3\n")
    (games / "b.sgf").write_text("D4\n")
    return tmp_path


def write_suite(folder, text):
    path = folder / "suites" / "s.tst"
    path.write_text(textwrap.dedent(text))
    return path


SUITE = """
    # a comment
    loadsgf games/a.sgf 3
    1 reg_genmove black
    #? [C3]

    2 reg_genmove black
    #? [c3|E5]*

    3 reg_genmove black
    #? [!C3]

    loadsgf games/b.sgf
    4 reg_genmove white
    #? [!C3]&

    5 reg_genmove white
    #? [D]

    6 owl_attack D4
    #? [1 D4]

    loadsgf games/missing.sgf
    7 die
    #? [.*]

    loadsgf games/a.sgf
    8 reg_genmove black
    #? [C\\d]
"""


def test_parse_suite_reads_commands_tests_and_marks(suite_dir):
    steps = parse_suite(write_suite(suite_dir, SUITE))
    tests = [s for s in steps if s.expected is not None]
    assert [s.id for s in tests] == ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert tests[1].mark == "*" and tests[3].mark == "&" and tests[0].mark == ""
    assert tests[2].negate and tests[2].expected == "C3"
    assert steps[0] == Step(3, "loadsgf games/a.sgf 3")


def test_matching_is_whole_answer_case_insensitive_with_negation():
    step = Step(1, "x", "1", "E5|E6")
    assert matches(step, "e6") and matches(step, " E5 ")
    assert not matches(step, "E55") and not matches(step, "D5")
    assert matches(Step(1, "x", "1", "E5", negate=True), "D5")
    assert not matches(Step(1, "x", "1", "E5", negate=True), "E5")


@pytest.mark.parametrize("text, words", [
    ("1 genmove b\n#? C3\n", "expected '#\\? \\[PATTERN\\]'"),
    ("#? [C3]\n", "without a numbered command"),
    ("1 genmove b\n#? [C3(]\n", "bad pattern"),
])
def test_bad_suites_are_refused_with_file_and_line(suite_dir, text, words):
    path = write_suite(suite_dir, text)
    with pytest.raises(SuiteError, match=words) as e:
        parse_suite(path)
    assert "s.tst, line" in str(e.value)


def test_run_suite_verdicts_working_directory_and_restart(suite_dir):
    path = write_suite(suite_dir, SUITE)
    seen = []
    result = run_suite(path, f"{sys.executable} {suite_dir / 'engine.py'}",
                       lambda done, total: seen.append((done, total)))
    verdicts = {o["id"]: o["solved"] for o in result.outcomes}
    assert verdicts == {"1": True, "2": True, "3": False, "4": True, "5": False, "6": False,
                        "7": False, "8": True}
    assert result.tests == 8 and result.solved == 4
    assert result.genmove_tests == 6 and result.genmove_solved == 4
    assert result.failures == ["3", "5", "6", "7"]
    by_id = {o["id"]: o for o in result.outcomes}
    assert by_id["6"]["error"] == "? unknown command"
    assert "exited" in by_id["7"]["error"]          # died; test 8 ran on a restarted engine
    assert by_id["2"]["mark"] == "*"
    assert any("missing.sgf" in e for e in result.setup_errors)
    assert seen[-1][0] == seen[-1][1] == len(parse_suite(path))


def test_cli_regress_reports_and_writes_json(suite_dir):
    path = write_suite(suite_dir, SUITE)
    out = suite_dir / "r.json"
    result = CliRunner().invoke(cli, ["regress", str(path), "--engine",
                                      f"{sys.executable} {suite_dir / 'engine.py'}", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "| s.tst | 4/8 | 4/6 | 3 5 6 7 |" in result.output
    data = json.loads(out.read_text())
    assert data["suites"][0]["solved"] == 4
    bad = write_suite(suite_dir, "#? [x]\n")
    refused = CliRunner().invoke(cli, ["regress", str(bad)])
    assert refused.exit_code == 1 and "s.tst, line 1" in refused.output


def test_our_engine_on_a_real_suite_file(tmp_path):
    # Our engine, few playouts, on a two-test suite over one of GNU Go's games: it must load the
    # game from the suite's folder and answer every test with a vertex.
    games = tmp_path / "games"
    games.mkdir()
    (games / "g.sgf").write_text("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[ce];B[eg])")
    path = tmp_path / "t.tst"
    path.write_text("loadsgf games/g.sgf\n1 reg_genmove white\n#? [!PASS]\n"
                    "2 reg_genmove white\n#? [E5]\n")
    result = run_suite(path, f"{sys.executable} -m engine.lab.cli gtp --playouts 50")
    assert result.setup_errors == []
    assert result.outcomes[0]["solved"] and result.outcomes[0]["error"] is None
    assert not result.outcomes[1]["solved"]                  # E5 is occupied


def test_the_default_engine_is_this_repositorys_gtp_main():
    """`simbal regress` without --engine runs gtp_main.py of this checkout (a moved module
    once pointed it at a folder with no gtp_main.py)."""
    from engine.lab import regress
    words = regress.default_engine(50).split()
    assert Path(words[1]).resolve() == (Path(__file__).resolve().parents[2] / "gtp_main.py")
    assert Path(words[1]).is_file()
