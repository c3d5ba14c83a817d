"""The match runner (engine/lab/match.py) and `simbal match`: the Wilson interval, the clock,
resumable matches between two Simbal engines on 5x5, forfeits by misbehaving engines (tiny
fake GTP engines written into tmp_path), and a short match against GnuGo from the command
line.
"""
import json
import math
import re
import subprocess
import sys
import textwrap

import pytest
from sgfmill import sgf

from engine.core.board import BLACK, PASS, WHITE
from engine.core.coords import parse_vertex, point
from engine.lab.match import (MatchConfig, _record_search, _send_clock, _spend,
                              parse_search_report, run_match, search_summary, summary,
                              wilson_interval)
from engine.play.game import Game

from conftest import GTP_MAIN, REPO

SIMBAL_5x5 = f"{sys.executable} {GTP_MAIN} --playouts 50 --size 5"


# -- Wilson score interval ----------------------------------------------------------------------

@pytest.mark.parametrize("wins, n, low, high", [
    (5, 10, 0.2366, 0.7634),    # textbook values (z = 1.96)
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (8, 10, 0.4902, 0.9433),
    (1, 2, 0.0945, 0.9055),
    (50, 100, 0.4038, 0.5962),
    (81, 263, 0.2553, 0.3662),
])
def test_wilson_interval_known_values(wins, n, low, high):
    got_low, got_high = wilson_interval(wins, n)
    assert got_low == pytest.approx(low, abs=6e-5)
    assert got_high == pytest.approx(high, abs=6e-5)


def test_wilson_interval_edges_and_shape():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for n in (1, 7, 40, 1000):
        for wins in range(0, n + 1, max(1, n // 7)):
            low, high = wilson_interval(wins, n)
            assert 0.0 <= low <= wins / n <= high <= 1.0
            # Symmetric under swapping wins and losses.
            other_low, other_high = wilson_interval(n - wins, n)
            assert low == pytest.approx(1 - other_high) and high == pytest.approx(1 - other_low)
    # Narrower with more games.
    assert wilson_interval(50, 100)[1] - wilson_interval(50, 100)[0] < \
        wilson_interval(5, 10)[1] - wilson_interval(5, 10)[0]


def test_summary_counts_decided_games_only():
    results = [{"a_wins": 1.0}, {"a_wins": 0.0}, {"a_wins": 0.5}, {"a_wins": None, "error": "boom"}]
    s = summary(results, ("X", "Y"))
    assert s["games"] == 3 and s["a_wins"] == 1.5
    assert s["a_winrate"] == pytest.approx(0.5)
    assert s["a_winrate_95"] == list(wilson_interval(1.5, 3))
    assert s["errors"] == ["boom"] and s["a"] == "X" and s["b"] == "Y"
    assert summary([])["a_winrate"] is None


# -- the clock ------------------------------------------------------------------------------------

FUEGO_REPORT = """SearchStatistics:
Count          3120
GamesPlayed    3000
Nodes          41231
Time           0.85
GameLen        82.1 dev=5.1 min=71 max=96
Aborted        0%
Games/s        3529.4
TreeStatistics:
NuNodes        41231"""


def test_parse_search_report_reads_ours_and_fuegos():
    assert parse_search_report("simbal-last_search", "simulations 812\nseconds 0.250") == (812, 0.25)
    assert parse_search_report("uct_stat_search", FUEGO_REPORT) == (3000, 0.85)
    assert parse_search_report("uct_stat_search", "SearchStatistics:\nCount 0") is None
    assert parse_search_report("simbal-last_search", "simulations many\nseconds 1") is None


class ReportingEngine:
    """Answers known_command for Fuego's report only, then the reports it is given in turn."""

    def __init__(self, reports):
        self.reports = list(reports)
        self.asked = []

    def ask(self, command, timeout=None):
        self.asked.append(command)
        if command.startswith("known_command"):
            return True, "true" if command.endswith("uct_stat_search") else "false"
        return True, self.reports.pop(0)


def test_record_search_counts_searched_moves_once():
    report = "GamesPlayed {}\nTime {}"
    engine = ReportingEngine([report.format(0, 0), report.format(3000, 0.9),
                              report.format(3000, 0.9), report.format(2500, 1.0)])
    tally, last = [0, 0, 0.0], None
    for _ in range(4):
        last = _record_search(engine, tally, last)
    # The book move (0 games) and the repeat of the search before it are not counted.
    assert tally == [2, 5500, pytest.approx(1.9)]
    assert sum(c.startswith("known_command") for c in engine.asked) == 2, "asked once"


def test_record_search_leaves_silent_engines_alone():
    class Silent:
        def ask(self, command, timeout=None):
            return False, "unknown command"
    tally = [0, 0, 0.0]
    assert _record_search(Silent(), tally, None) is None and tally == [0, 0, 0.0]


def test_search_summary_per_player():
    results = [{"black": "x", "white": "y", "search": {"B": {"moves": 10, "simulations": 5000,
                                                             "seconds": 2.0}}},
               {"black": "y", "white": "x", "search": {"W": {"moves": 30, "simulations": 3000,
                                                             "seconds": 2.0}}},
               {"black": "x", "white": "y"}]
    assert search_summary(results) == {"x": {"moves": 40, "simulations_per_move": 200.0,
                                             "simulations_per_second": 2000.0}}


def test_spend_main_time_then_canadian_periods_then_out():
    config = MatchConfig(main_time=10, byo_time=5, byo_stones=2)
    clock = [10.0, 5.0, 2, False]
    assert not _spend(clock, 4, config) and clock == [6.0, 5.0, 2, False]
    assert not _spend(clock, 6, config) and clock == [0.0, 5.0, 2, False]   # exactly used up
    # Over main time by 1 s: the overrun comes out of the first period, one stone played.
    clock = [6.0, 5.0, 2, False]
    assert not _spend(clock, 7, config)
    assert clock[0] == 0.0 and clock[3] is True
    assert clock[1] == pytest.approx(4.0) and clock[2] == 1
    # The period's last stone: a fresh period.
    assert not _spend(clock, 3.5, config)
    assert clock[1:] == [5.0, 2, True]
    assert not _spend(clock, 2, config) and clock[1] == pytest.approx(3.0) and clock[2] == 1
    # More than the period has left: lost.
    assert _spend(clock, 3.5, config)


def test_spend_japanese_periods_are_used_up_by_overruns_only():
    config = MatchConfig(main_time=10, byo_time=5, byo_periods=3)
    clock = [10.0, 5.0, 3, False]
    assert not _spend(clock, 12, config)  # 2 s into byo-yomi: within the first period
    assert clock == [0.0, 5.0, 3, True]
    for _ in range(10):                   # any number of moves within a period costs nothing
        assert not _spend(clock, 4.9, config) and clock[2] == 3
    assert not _spend(clock, 7, config) and clock[2] == 2    # one period overrun
    assert not _spend(clock, 5, config) and clock[2] == 2    # exactly a period: still within
    assert _spend(clock, 10.5, config)                       # past the last two: lost


def test_spend_japanese_main_time_overrun_can_lose_at_once():
    config = MatchConfig(main_time=1, byo_time=2, byo_periods=2)
    assert _spend([1.0, 2.0, 2, False], 5.5, config)      # 4.5 s into byo-yomi > 2 periods
    clock = [1.0, 2.0, 2, False]
    assert not _spend(clock, 4.5, config) and clock[2] == 1  # 3.5 s: one period left


class FakeClient:
    def __init__(self, commands):
        self.commands, self.sent = commands, []

    def send(self, line, timeout=None):
        self.sent.append(line)
        if line.startswith("known_command"):
            return "true" if line.split()[1] in self.commands else "false"
        return ""


def test_japanese_byo_yomi_is_sent_as_kgs_time_settings_or_one_stone_canadian():
    config = MatchConfig(main_time=300, byo_time=10, byo_periods=5)
    kgs, plain = FakeClient({"kgs-time_settings"}), FakeClient(set())
    _send_clock(kgs, config)
    _send_clock(plain, config)
    assert kgs.sent[-1] == "kgs-time_settings byoyomi 300 10 5"
    assert plain.sent[-1] == "time_settings 300 10 1"
    canadian = FakeClient({"kgs-time_settings"})
    _send_clock(canadian, MatchConfig(main_time=60, byo_time=30, byo_stones=5))
    assert canadian.sent == ["time_settings 60 30 5"]


def test_spend_absolute_time_runs_out():
    config = MatchConfig(main_time=5)
    clock = [5.0, 0.0, 0, False]
    assert not _spend(clock, 4.9, config)
    assert _spend(clock, 0.2, config)


def test_spend_overrun_larger_than_a_period_loses_at_once():
    config = MatchConfig(main_time=2, byo_time=3, byo_stones=5)
    clock = [2.0, 3.0, 5, False]
    assert _spend(clock, 5.5, config)


def test_spend_byo_yomi_only():
    config = MatchConfig(main_time=0, byo_time=10, byo_stones=3)
    clock = [0.0, 10.0, 3, True]
    for used in (3, 3, 3):
        assert not _spend(clock, used, config)
    assert clock[1:] == [10.0, 3, True]      # three stones in 9 s: a new period
    assert not _spend(clock, 9.9, config)
    assert _spend(clock, 0.2, config)


# -- fake engines --------------------------------------------------------------------------------

FAKE = textwrap.dedent('''
    import os, sys
    import time
    MODE = {mode!r}
    MARK = {mark!r}
    LOG = {log!r}
    played = 0
    for line in sys.stdin:
        if LOG:
            with open(LOG, "a") as f:
                f.write(line)
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "quit":
            print("=\\n", flush=True)
            break
        if cmd == "genmove":
            played += 1
            if MODE == "occupied":
                answer = "C3"                   # legal once, then occupied
            elif MODE == "crash" or (MODE == "crash-once" and not os.path.exists(MARK)):
                if MARK:
                    open(MARK, "w").close()
                sys.exit(3)
            elif MODE == "error":
                print("? internal error\\n", flush=True)
                continue
            elif MODE == "garbage":
                answer = "Z99"
            elif MODE == "slow":
                time.sleep(1.5)
                answer = "pass"
            else:
                answer = "pass"
            print("= " + answer + "\\n", flush=True)
        elif cmd == "name":
            print("= fake\\n", flush=True)
        else:
            print("=\\n", flush=True)
''')


def fake_engine(tmp_path, mode, name=None, log=""):
    name = name or mode
    script = tmp_path / f"fake_{name}.py"
    mark = str(tmp_path / f"{name}.mark") if mode == "crash-once" else ""
    script.write_text(FAKE.format(mode=mode, mark=mark, log=str(log)))
    return f"{sys.executable} {script}"


def read_results(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("mode, error", [
    ("occupied", r"played 'c3': occupied"),
    ("crash", r"exited"),
    ("error", r"answered \?"),
    ("garbage", r"played 'z99'"),
])
def test_a_misbehaving_engine_forfeits(tmp_path, mode, error):
    """A plays Black in game 0 and White in game 1; the passer B is well-behaved."""
    out = tmp_path / "out"
    results = run_match(fake_engine(tmp_path, mode), fake_engine(tmp_path, "pass"), 1, out,
                        MatchConfig(size=5, komi=7.5), names=("bad", "passer"))
    assert len(results) == 1
    r = results[0]
    assert r["end"] == "forfeit", r
    assert r["winner"] == "W" and r["a_colour"] == "B" and r["a_wins"] == 0.0
    assert re.search(error, r["error"]), r["error"]
    assert r["error"].startswith("bad")
    assert read_results(out) == results
    record = sgf.Sgf_game.from_bytes((out / "games" / "game-0000.sgf").read_bytes())
    assert record.get_root().get("RE") == "W+F"


def test_a_crashed_engine_is_restarted_for_the_next_game(tmp_path):
    """The engine crashes during game 0 only (a crash-once script): it forfeits that game,
    and game 1 must be played with a fresh process, not recorded as a failure."""
    out = tmp_path / "out"
    results = run_match(fake_engine(tmp_path, "crash-once"), fake_engine(tmp_path, "pass"), 2, out,
                        MatchConfig(size=5, komi=7.5))
    assert results[0]["end"] == "forfeit" and results[0]["a_wins"] == 0.0
    assert results[1].get("end") != "failed", results[1]
    assert results[1]["a_wins"] is not None


def test_seed_placeholder_is_the_first_game_of_each_engine_process(tmp_path):
    """`{seed}` in a command line: each process gets the number of the game it starts with;
    after game 0's crash both engines restart for game 1 with seed 1, and game 2 is played by
    the same processes."""
    out = tmp_path / "out"
    seeds = tmp_path / "seeds.txt"
    starter = tmp_path / "starter.py"
    starter.write_text(f"import sys, runpy\nopen({str(seeds)!r}, 'a').write(sys.argv[1] + '\\n')\n"
                       "sys.argv = sys.argv[2:]\n"
                       "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    crasher = fake_engine(tmp_path, "crash-once").split()[-1]
    passer = fake_engine(tmp_path, "pass").split()[-1]
    run_match(f"{sys.executable} {starter} a{{seed}} {crasher}",
              f"{sys.executable} {starter} b{{seed}} {passer}", 3, out,
              MatchConfig(size=5, komi=7.5))
    assert sorted(seeds.read_text().split()) == ["a0", "a1", "b0", "b1"]


def test_the_opponent_of_a_forfeiting_engine_scores_the_win(tmp_path):
    out = tmp_path / "out"
    results = run_match(fake_engine(tmp_path, "pass"), fake_engine(tmp_path, "occupied"), 2, out,
                        MatchConfig(size=5, komi=7.5))
    # Game 0: the passer A is Black, the occupied-player B is White: B forfeits its 2nd move.
    assert results[0]["end"] == "forfeit" and results[0]["winner"] == "B" and results[0]["a_wins"] == 1.0
    assert results[0]["moves"] == 3  # before the forfeit: A passes, B plays C3, A passes
    assert summary(results)["a_wins"] == 2.0


def test_two_passers_end_by_passes_and_are_scored(tmp_path):
    out = tmp_path / "out"
    results = run_match(fake_engine(tmp_path, "pass", "p1"), fake_engine(tmp_path, "pass", "p2"), 2, out,
                        MatchConfig(size=5, komi=7.5))
    for r in results:
        assert r["end"] == "passes" and r["moves"] == 2
        assert r["score"] == -7.5 and r["winner"] == "W" and r["disputed"] is False
    assert [r["a_wins"] for r in results] == [0.0, 1.0]


def test_move_cap_ends_the_game(tmp_path):
    out = tmp_path / "out"
    results = run_match(SIMBAL_5x5 + " --resign 0", SIMBAL_5x5 + " --resign 0", 1, out,
                        MatchConfig(size=5, komi=7.5, max_moves=6))
    assert results[0]["end"] == "move cap" and results[0]["moves"] == 6


# -- Simbal against Simbal -----------------------------------------------------------------------

def check_game_files(out, results):
    for r in results:
        path = out / "games" / f"game-{r['game']:04d}.sgf"
        record = sgf.Sgf_game.from_bytes(path.read_bytes())
        assert record.get_size() == 5
        root = record.get_root()
        assert root.get("KM") == 7.5
        assert root.get("PB") == r["black"] and root.get("PW") == r["white"]
        moves = [node.get_move() for node in record.get_main_sequence()[1:]]
        assert len(moves) == r["moves"]
        # Replaying the SGF gives a legal game ending as recorded.
        game = Game(5, 7.5)
        for colour, move in moves:
            c = BLACK if colour == "b" else WHITE
            game.play(c, PASS if move is None else point(5, *move))
        if r["end"] == "passes":
            assert game.last_two_passed()
            assert root.get("RE") == ("0" if r["score"] == 0 else
                                      f"{'B' if r['score'] > 0 else 'W'}+{abs(r['score']):g}")
            assert game.score([parse_vertex(v, 5) for v in r["dead"]]) == r["score"]
        elif r["end"] == "resign":
            assert root.get("RE") == f"{r['winner']}+R"


def test_run_match_is_resumable(tmp_path):
    out = tmp_path / "match"
    config = MatchConfig(size=5, komi=7.5)
    calls = []
    first = run_match(SIMBAL_5x5, SIMBAL_5x5 + " --seed 1", 2, out, config,
                      progress=lambda done, total: calls.append((done, total)), names=("S0", "S1"))
    assert [r["game"] for r in first] == [0, 1]
    lines_before = (out / "results.jsonl").read_text().splitlines()
    assert len(lines_before) == 2
    assert calls[0] == (0, 2) and calls[-1] == (2, 2)
    calls.clear()
    second = run_match(SIMBAL_5x5, SIMBAL_5x5 + " --seed 1", 4, out, config,
                       progress=lambda done, total: calls.append((done, total)), names=("S0", "S1"))
    lines_after = (out / "results.jsonl").read_text().splitlines()
    assert len(lines_after) == 4, "only the two missing games should have been played"
    assert lines_after[:2] == lines_before
    assert calls[0] == (2, 4) and calls[-1] == (4, 4)
    assert [r["game"] for r in second] == [0, 1, 2, 3]
    assert second[:2] == first
    results = read_results(out)
    assert sorted(r["game"] for r in results) == [0, 1, 2, 3]
    for r in results:
        assert {"game", "black", "white", "moves", "end", "winner", "a_colour", "a_wins"} <= set(r)
        assert r["end"] in ("passes", "resign", "move cap"), r
        assert r["winner"] in ("B", "W", "0")
        assert "error" not in r, r
        black_is_a = r["game"] % 2 == 0
        assert r["a_colour"] == ("B" if black_is_a else "W")
        assert (r["black"], r["white"]) == (("S0", "S1") if black_is_a else ("S1", "S0"))
        assert r["a_wins"] == (0.5 if r["winner"] == "0" else float(r["winner"] == r["a_colour"]))
        if r["end"] == "passes":
            assert {"score", "dead", "disputed"} <= set(r)
            assert r["winner"] == ("B" if r["score"] > 0 else "W" if r["score"] < 0 else "0")
        # Both engines report their searches: at most 50 new simulations a move (--playouts
        # 50), on at most the moves each side played (a resignation is a searched move too).
        for side, played in (("B", (r["moves"] + 1) // 2), ("W", r["moves"] // 2)):
            played += r["end"] == "resign" and r["winner"] != side
            s = r["search"][side]
            assert 1 <= s["moves"] <= played
            assert s["moves"] <= s["simulations"] <= 50 * s["moves"] and s["seconds"] > 0
    by_name = search_summary(results)
    assert set(by_name) == {"S0", "S1"}
    for name, s in by_name.items():
        assert s["moves"] == sum(r["search"][side]["moves"] for r in results
                                 for side, key in (("B", "black"), ("W", "white")) if r[key] == name)
        assert 1 <= s["simulations_per_move"] <= 50 and s["simulations_per_second"] > 0
    check_game_files(out, results)
    assert sorted(p.name for p in (out / "games").iterdir()) == [f"game-{i:04d}.sgf" for i in range(4)]
    # Asking for what is already there plays nothing.
    third = run_match("no-such-engine-binary", "no-such-engine-binary", 4, out, config)
    assert third == second and len((out / "results.jsonl").read_text().splitlines()) == 4


def test_a_timed_match_tells_the_engines_their_clocks(tmp_path):
    log = tmp_path / "commands.log"
    config = MatchConfig(size=5, komi=7.5, main_time=30, byo_time=5, byo_stones=3)
    results = run_match(fake_engine(tmp_path, "pass", "logger", log=log), fake_engine(tmp_path, "pass"), 1,
                        tmp_path / "out", config)
    assert results[0]["end"] == "passes" and "error" not in results[0]
    commands = log.read_text().splitlines()
    assert "time_settings 30 5 3" in commands
    i = commands.index("genmove b")
    assert re.fullmatch(r"time_left b (29|30) 0", commands[i - 1]), commands[i - 1]
    left = results[0]["clock_left"]
    assert set(left) == {"B", "W"} and all(v.endswith("s main time") for v in left.values())


def test_an_engine_that_overruns_its_clock_forfeits(tmp_path):
    """Main time 0.5 s, no byo-yomi; the engine takes 1.5 s for its first move."""
    config = MatchConfig(size=5, komi=7.5, main_time=0.5)
    results = run_match(fake_engine(tmp_path, "slow"), fake_engine(tmp_path, "pass"), 1, tmp_path / "out",
                        config)
    r = results[0]
    assert r["end"] == "forfeit" and r["winner"] == "W" and "lost on time" in r["error"], r


# -- against GnuGo, from the command line --------------------------------------------------------

SUMMARY = re.compile(r"^(\w+) vs (\w+): (\d+(?:\.5)?)/(\d+) = (\d+\.\d)% "
                     r"\(95% interval (\d+\.\d)-(\d+\.\d)%\)$")


def test_simbal_match_against_gnugo(tmp_path, gnugo_path):
    out = tmp_path / "gnugo"
    simbal = str(REPO / ".venv" / "bin" / "simbal")
    gnugo = f"{gnugo_path} --mode gtp --level 1 --chinese-rules"
    proc = subprocess.run([simbal, "match", SIMBAL_5x5, gnugo, "--games", "2", "--size", "5",
                           "--out", str(out), "--names", "simbal,gnugo"],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    # The result, then the simulations of the one engine that reports them (GnuGo does not).
    assert len(lines) == 2, proc.stdout
    assert re.fullmatch(r"simbal: \d+ simulations a searched move \(\d+ moves\), \d+ a second",
                        lines[1]), lines[1]
    m = SUMMARY.match(lines[0])
    assert m, lines[0]
    a, b, wins, games, pct, low, high = m.groups()
    assert (a, b, games) == ("simbal", "gnugo", "2")
    wins = float(wins)
    assert 0 <= wins <= 2
    assert float(pct) == pytest.approx(100 * wins / 2, abs=0.05)
    exp_low, exp_high = wilson_interval(wins, 2)
    assert float(low) == pytest.approx(100 * exp_low, abs=0.05)
    assert float(high) == pytest.approx(100 * exp_high, abs=0.05)
    assert "error:" not in proc.stderr
    results = read_results(out)
    assert sorted(r["game"] for r in results) == [0, 1]
    assert all(r["a_wins"] is not None and "error" not in r for r in results), results
    assert sum(r["a_wins"] for r in results) == wins
    report = json.loads((out / "summary.json").read_text())
    assert report["games"] == 2 and report["a_wins"] == wins
    check_game_files(out, results)
    assert {r["black"] for r in results} == {"simbal", "gnugo"}
    assert math.isclose(report["a_winrate_95"][0], exp_low)
