"""The `simbal` command line against what the project tells people to type: every command and
option in README.md's examples, the data/*.sh scripts and the Makefile exists under that name,
and README's list of commands is the group's.  (Help texts were diffed by hand when cli.py
became a package; this keeps the documentation and the scripts from drifting afterwards.)"""
import re
import shlex
from pathlib import Path

import click
import pytest

from engine.lab.cli import main

ROOT = Path(__file__).resolve().parents[2]
# How the documents start the command line: the console script, its variable, the module.
SIMBAL = {"simbal", ".venv/bin/simbal", "$S", "engine.lab.cli"}
SHELL_BREAKS = {";", "|", "||", "&&", "&", ">", "2>", "<"}


def command_lines(text):
    """The token lists after each `simbal` in `text` (shell lines, continuations joined)."""
    text = text.replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        line = line.split(" #")[0]
        try:
            tokens = shlex.split(line)
        except ValueError:       # prose with an apostrophe: not a shell line
            continue
        for i, token in enumerate(tokens):
            if token in SIMBAL:
                rest = []
                for t in tokens[i + 1:]:
                    if t in SHELL_BREAKS or t.startswith((">", "2>")) or t == "`":
                        break
                    rest.append(t.rstrip(";"))
                    if t.endswith(";"):
                        break
                found.append(rest)
    return found


def documented_lines():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    spans = re.findall(r"`(simbal [^`]*)`", readme)
    scripts = [p.read_text() for p in sorted((ROOT / "data").glob("*.sh"))]
    makefile = (ROOT / "Makefile").read_text()
    lines = []
    for text in blocks + spans + scripts + [makefile]:
        lines += command_lines(text)
    return lines


def resolve(tokens):
    """(command, its path, the words after it) for the tokens after `simbal`."""
    command, path = main, []
    words = list(tokens)
    while isinstance(command, click.Group) and words and not words[0].startswith("-"):
        name = words.pop(0)
        assert name in command.commands, f"`simbal {' '.join(path + [name])}`: no such command"
        command, path = command.commands[name], path + [name]
    return command, path, words


def option_names(command):
    names = {"--help"}
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(param.opts + param.secondary_opts)
    return names


def test_the_documents_name_commands_at_all():
    paths = {" ".join(resolve(t)[1]) for t in documented_lines()}
    assert {"gtp", "match", "tournament", "regress", "tune", "train", "data label", "eval mse",
            "train-prior", "reproduce", "bench"} <= paths


@pytest.mark.parametrize("tokens", documented_lines(), ids=" ".join)
def test_every_documented_command_and_option_exists(tokens):
    command, path, words = resolve(tokens)
    known = option_names(command)
    for word in words:
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            assert name in known, f"`simbal {' '.join(path)}` has no option {name}"


def test_readme_lists_every_command_of_the_group():
    readme = (ROOT / "README.md").read_text()
    listed = re.search(r"the `simbal` command line \(([^)]*)\)", readme)
    assert listed, "README.md's layout names the commands in parentheses"
    names = {n.strip() for n in listed.group(1).replace("\n", " ").split(",")}
    assert names == set(main.commands)


def test_bench_finds_the_engine_and_its_data():
    """`simbal bench` starts this checkout's gtp_main.py and reads the shipped 5x5 data."""
    from engine.lab import bench
    assert (bench.ROOT / "gtp_main.py").is_file()
    assert (bench.CLUSTER_DATA / "test.jsonl").is_file()
    assert bench.MIDGAME.is_file()


@pytest.mark.parametrize("setting", ["uct_c=fast", "no_such_param=1", "uct_c"])
def test_gtp_refuses_a_bad_param_by_its_text_before_serving(setting):
    import subprocess
    import sys
    run = subprocess.run([sys.executable, str(ROOT / "gtp_main.py"), "--param", setting],
                         input="", capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert f"{setting!r}: expected NAME=VALUE" in run.stderr
    assert run.stdout == ""


FAKE_FUEGO_STATS = """#!{python}
import sys
games = {{"9": "12345.0", "19": "3210.5"}}
size = "9"
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "boardsize":
        size = words[1]
    answer = ""
    if words[0] == "genmove":
        answer = "E5"
    elif words[0] == "uct_stat_search":
        answer = "SearchStatistics:\\nCount 100\\nGames/s        " + games[size]
    elif words[0] == "quit":
        print("=\\n", flush=True)
        break
    print("= " + answer + "\\n", flush=True)
"""


def test_bench_puts_fuegos_rate_beside_the_engines(tmp_path, monkeypatch):
    import stat
    import sys

    from engine.lab import bench
    fake = tmp_path / "fuego"
    fake.write_text(FAKE_FUEGO_STATS.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("SIMBAL_FUEGO", str(fake))
    assert bench.fuego_rate(9, 0.1) == 12345.0
    figures = bench.fuego_figures(0.1, 6000, 1605)
    assert figures == {"fuego_9x9_games_per_s": 12345, "search_over_fuego_9x9": 0.486,
                       "fuego_19x19_games_per_s": 3210, "search_over_fuego_19x19": 0.5}
    monkeypatch.setenv("SIMBAL_FUEGO", str(tmp_path / "missing"))
    assert bench.fuego_figures(0.1, 6000, 1605) == {}


def test_bench_measures_both_engines_on_middle_game_positions(tmp_path, monkeypatch):
    """The middle-game figures replay each position's moves into both engines (a fake Fuego
    here) and average their rates; without Fuego only the engine's is measured."""
    import stat
    import sys

    from engine.lab import bench
    from policies.data.files import read_positions, write_positions
    positions = tmp_path / "two.jsonl"
    write_positions(positions, read_positions(bench.MIDGAME)[:2], {"test": "two positions"})
    assert bench.midgame_rate(0.05, positions) > 0
    fake = tmp_path / "fuego"
    fake.write_text(FAKE_FUEGO_STATS.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("SIMBAL_FUEGO", str(fake))
    assert bench.fuego_midgame_rate(0.05, positions) == 12345.0
    monkeypatch.setenv("SIMBAL_FUEGO", str(tmp_path / "missing"))
    assert bench.fuego_midgame_rate(0.05, positions) is None


def _gtp(*args, stdin="quit\n"):
    import subprocess
    import sys
    return subprocess.run([sys.executable, str(ROOT / "gtp_main.py"), *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_gtp_reads_its_options_from_a_toml_config_and_the_command_line_wins(tmp_path):
    config = tmp_path / "simbal.toml"
    config.write_text('size = 7\nkomi = 5.5\nmax-move-time = 5.0\nparam = ["uct_c=0.25"]\n')
    run = _gtp("--config", str(config), stdin="showboard\nsimbal-param\nquit\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[1].split()[-1] == "G" and "komi 5.5" in run.stdout
    assert "[string] uct_c 0.25" in run.stdout
    run = _gtp("--config", str(config), "--size", "5", stdin="showboard\nquit\n")
    assert run.stdout.split("\n")[1].split()[-1] == "E"          # 5x5: the command line won


@pytest.mark.parametrize("text, words", [("sise = 3\n", "unknown option 'sise'"),
                                         ("size = \n", "simbal.toml"),
                                         ("size = 1\n", "size")])
def test_gtp_refuses_a_bad_config_by_name(tmp_path, text, words):
    config = tmp_path / "simbal.toml"
    config.write_text(text)
    run = _gtp("--config", str(config))
    assert run.returncode == 2 and words in run.stderr and run.stdout == ""
