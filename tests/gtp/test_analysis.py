"""Analysis output as GUIs read it: lz-analyze, kata-analyze and lz-genmove_analyze (the
streaming commands Sabaki and Lizzie use), and the GoGui analyze commands.

Streaming commands are run in-process through `GtpServer.handle` (with no input stream to
watch, a stream stops after its first report) and through a `gtp_main.py` subprocess, where
the stream runs until the next command arrives.  Reports are parsed the way Sabaki does:
the line `=`, then lines made of `info move V visits N winrate W prior P lcb L order O pv
V V ...` segments, then a blank line.
"""
import queue
import re
import time

import numpy as np
import pytest

from engine.core.board import BLACK, EMPTY, PASS, WHITE
from engine.core.coords import format_vertex, parse_vertex
from engine.search.params import PARAMS
from policies import WEIGHTS_DIR, load_policy

VERTEX = re.compile(r"(?i)pass|[A-HJ-Z](?:[1-9]|1[0-9]|2[0-5])")
KEYS = ("move", "visits", "winrate", "prior", "lcb", "order", "pv")
KATA_KEYS = KEYS + ("scoreMean", "scoreStdev", "scoreLead")


def parse_report(line, size, kata=False, ownership=None):
    """One report line to a list of dicts; AssertionError on anything Sabaki would not read.
    A kata report may end with KataGo's `ownership` and size*size values, which go into the
    list `ownership` when one is given."""
    words = line.split()
    assert words and words[0] == "info", f"report does not start with 'info': {line[:80]!r}"
    if "ownership" in words:
        assert kata, "ownership in a Leela Zero report"
        at_ownership = words.index("ownership")
        values = [float(v) for v in words[at_ownership + 1:]]
        assert len(values) == size * size and all(-1.0 <= v <= 1.0 for v in values)
        if ownership is not None:
            ownership.extend(values)
        words = words[:at_ownership]
    segments, current = [], None
    for w in words:
        if w == "info":
            current = []
            segments.append(current)
        else:
            current.append(w)
    infos = []
    for seg in segments:
        info, i = {}, 0
        while i < len(seg):
            key = seg[i]
            if key == "pv":
                info["pv"] = seg[i + 1:]
                break
            assert i + 1 < len(seg), f"key {key!r} without a value in {seg}"
            info[key] = seg[i + 1]
            i += 2
        keys = KATA_KEYS if kata else KEYS
        assert set(info) == set(keys), f"keys {sorted(info)} in segment {' '.join(seg)!r}"
        for vertex in [info["move"]] + info["pv"]:
            assert VERTEX.fullmatch(vertex), f"bad vertex {vertex!r}"
            parse_vertex(vertex, size)      # on this board
        assert info["pv"] and info["pv"][0] == info["move"]
        out = {"move": info["move"], "pv": info["pv"]}
        for key in ("visits", "order"):
            assert re.fullmatch(r"\d+", info[key]), f"{key} {info[key]!r} is not an integer"
            out[key] = int(info[key])
        for key in ("winrate", "prior", "lcb"):
            if kata:
                value = float(info[key])
                assert 0.0 <= value <= 1.0, f"{key} {value} outside 0..1"
            else:
                assert re.fullmatch(r"\d+", info[key]), f"{key} {info[key]!r} is not an integer"
                value = int(info[key])
                assert 0 <= value <= 10000, f"{key} {value} outside 0..10000"
            out[key] = value
        if kata:
            for key in ("scoreMean", "scoreStdev", "scoreLead"):
                out[key] = float(info[key])
            assert out["scoreStdev"] >= 0.0 and out["scoreLead"] == out["scoreMean"]
        assert out["visits"] >= 0       # minmoves may add moves not searched yet
        assert out["lcb"] <= out["winrate"]
        infos.append(out)
    assert [x["order"] for x in infos] == list(range(len(infos)))
    visits = [x["visits"] for x in infos]
    assert visits == sorted(visits, reverse=True), "visits must not increase with order"
    moves = [x["move"].upper() for x in infos]
    assert len(set(moves)) == len(moves), "a move reported twice"
    return infos


def parse_stream(text, size, kata=False, genmove=False):
    """A whole streamed answer: '=' line, report lines, [play line], blank line."""
    assert text.endswith("\n\n"), f"stream not closed by a blank line: {text[-80:]!r}"
    lines = text[:-2].split("\n")
    assert re.fullmatch(r"=\d*", lines[0]), f"first line {lines[0]!r}"
    body = lines[1:]
    play = None
    if genmove:
        assert body, "lz-genmove_analyze gave no play line"
        m = re.fullmatch(r"play (\S+)", body[-1])
        assert m, f"last line {body[-1]!r} is not 'play <vertex>'"
        play = m.group(1)
        body = body[:-1]
    assert all(line for line in body), "blank line inside the stream"
    reports = [parse_report(line, size, kata) for line in body]
    return reports, play


def ok(ask, server, line):
    r = ask(server, line)
    assert r.ok, f"{line!r} failed: {r.body!r}"
    return r.body


def on_board(server, vertex):
    return int(server.game.board.color[parse_vertex(vertex, server.game.size)])


# -- in-process -------------------------------------------------------------------------------

@pytest.mark.parametrize("command, kata", [
    ("lz-analyze b 10", False), ("lz-analyze 10", False), ("lz-analyze black interval 5", False),
    ("lz-analyze w 5 minmoves 2", False), ("kata-analyze b 10", True), ("kata-analyze interval 10", True),
])
def test_analyze_in_process_gives_one_parseable_report(make_server, command, kata):
    server = make_server(size=5, playouts=30)
    for line in ("play b c3", "play w c4"):
        assert server.handle(line) == "=\n\n"
    moves_before = list(server.game.moves)
    text = server.handle(command)
    reports, _ = parse_stream(text, 5, kata)
    # One report per interval while the 30 playouts run (how many depends on the machine's
    # load), and the final one analyze adds; each sees at least the visits of the one before.
    assert reports
    totals = [sum(info["visits"] for info in infos) for infos in reports]
    assert totals == sorted(totals) and totals[-1] > 0
    for infos in reports:
        assert infos
        for info in infos:
            p = parse_vertex(info["move"], 5)
            assert p == PASS or server.game.board.color[p] == EMPTY, f"{info['move']} is occupied"
    assert server.game.moves == moves_before, "analysis must not change the game"


def test_analyze_keeps_the_id(make_server):
    server = make_server(size=5)
    text = server.handle("17 lz-analyze b 10")
    assert text.startswith("=17\n")
    parse_stream(text, 5)


def test_lz_winrates_are_for_the_analysed_colour(make_server):
    """Komi 30 on 5x5: White cannot lose, so White's win rates are 10000 and Black's 0."""
    server = make_server(size=5, komi=30)
    white, _ = parse_stream(server.handle("lz-analyze w 10"), 5)
    black, _ = parse_stream(server.handle("lz-analyze b 10"), 5)
    assert all(info["winrate"] == 10000 for info in white[-1])
    assert all(info["winrate"] == 0 for info in black[-1])


def test_analyze_syntax_errors_answer_with_question_mark(ask, make_server):
    server = make_server(size=5)
    assert not ask(server, "lz-analyze b 10 interval x").ok
    assert not ask(server, "kata-analyze w interval 1.5").ok


@pytest.mark.parametrize("colour", ["b", "w"])
def test_lz_genmove_analyze_in_process_plays_its_move(make_server, colour):
    server = make_server(size=5, playouts=300)
    server.handle("play b a1" if colour == "w" else "play w a1")
    text = server.handle(f"lz-genmove_analyze {colour} 1")
    reports, play = parse_stream(text, 5, genmove=True)
    p = parse_vertex(play, 5)
    assert server.game.moves[-1] == ({"b": BLACK, "w": WHITE}[colour], p)
    if p != PASS:
        assert on_board(server, play) == {"b": BLACK, "w": WHITE}[colour]


# -- through gtp_main.py ------------------------------------------------------------------------

def read_line(proc, timeout=180):
    return proc.read_line(timeout)


def write(proc, line):
    proc.write(line)


def read_until_blank(proc, timeout=180):
    return proc.read_until_blank(timeout)


def quiet(proc, seconds):
    """True if the engine writes nothing for `seconds`."""
    try:
        line = proc._lines.get(timeout=seconds)
    except queue.Empty:
        return True
    proc._lines.put(line)   # keep it for the caller's next read (order kept: queue was empty)
    return False


@pytest.mark.parametrize("command, kata", [("lz-analyze b 10", False), ("kata-analyze w 10", True)])
def test_analysis_streams_until_the_next_command(simbal_process, read_board, command, kata):
    p = simbal_process("--size", "5", playouts=30)
    p.ok("play b c3")
    write(p, command)
    assert read_line(p) == "=\n"
    first = read_line(p)           # a report arrives without any new input
    assert first.startswith("info ")
    time.sleep(0.3)
    write(p, "name")
    rest = read_until_blank(p)
    reports = [first.rstrip("\n")] + rest
    assert len(reports) >= 2, "the stream should keep reporting every 0.1 s until interrupted"
    for line in reports:
        parse_report(line, 5, kata)
    assert read_until_blank(p) == ["= Simbal"], "the interrupting command was not answered next"
    assert quiet(p, 0.5), "the stream went on after it was interrupted"
    assert read_board(p.ok("showboard")) == {"C3": "X"}, "the game changed"
    p.ok("play w d4")


def test_lz_genmove_analyze_through_gtp_main(simbal_process, read_board):
    p = simbal_process("--size", "5", playouts=4000)
    write(p, "5 lz-genmove_analyze b 5")
    lines = read_until_blank(p)
    assert lines[0] == "=5"
    m = re.fullmatch(r"play (\S+)", lines[-1])
    assert m, lines[-1]
    for line in lines[1:-1]:
        parse_report(line, 5)
    board = p.ok("showboard")
    assert read_board(board) == {m.group(1).upper(): "X"}, f"{m.group(1)} is not on the board:\n{board}"
    assert not p.send(f"play w {m.group(1)}").ok, "the played point should be occupied"


def test_lz_genmove_analyze_is_cut_short_by_a_new_command(simbal_process, read_board):
    """With a huge playout count the search only ends because a command arrives: it must
    then play its best move so far and answer the new command."""
    p = simbal_process("--size", "5", playouts=10 ** 9)
    write(p, "lz-genmove_analyze b 10")
    assert read_line(p) == "=\n"
    first = read_line(p)
    assert first.startswith("info ")
    write(p, "name")
    lines = read_until_blank(p)
    assert lines and re.fullmatch(r"play [A-HJ-Z]\d+", lines[-1]), lines[-1:]
    for line in lines[:-1]:
        parse_report(line, 5)
    assert read_until_blank(p) == ["= Simbal"]
    vertex = lines[-1].split()[1]
    assert read_board(p.ok("showboard")) == {vertex: "X"}
    assert not p.send(f"play w {vertex}").ok


# -- GoGui analyze commands -----------------------------------------------------------------------

GFX_KEYWORDS = {"INFLUENCE", "LABEL", "VAR", "TEXT", "COLOR", "SQUARE", "MARK", "CIRCLE", "TRIANGLE",
                "BLACK", "WHITE", "SELECT"}


def check_gfx(body, size):
    assert body.strip(), "empty gfx answer"
    for line in body.splitlines():
        words = line.split()
        assert words[0] in GFX_KEYWORDS, f"unknown gfx line {line!r}"
        rest = words[1:]
        if words[0] == "INFLUENCE":
            assert rest and len(rest) % 2 == 0
            for v, x in zip(rest[::2], rest[1::2]):
                parse_vertex(v, size)
                assert -1.0 <= float(x) <= 1.0
        elif words[0] == "LABEL":
            assert rest and len(rest) % 2 == 0
            for v in rest[::2]:
                parse_vertex(v, size)
        elif words[0] == "VAR":
            assert rest and len(rest) % 2 == 0
            colours = rest[::2]
            assert all(c in ("B", "W") for c in colours)
            assert all(a != b for a, b in zip(colours, colours[1:])), "VAR colours must alternate"
            for v in rest[1::2]:
                parse_vertex(v, size)


def check_dboard(body, size):
    rows = [line.split() for line in body.strip().splitlines()]
    assert len(rows) == size, f"{len(rows)} rows on a {size}x{size} board"
    for row in rows:
        assert len(row) == size
        for x in row:
            assert -1.0 <= float(x) <= 1.0


def check_plist(body, size):
    for v in body.split():
        assert VERTEX.fullmatch(v)
        parse_vertex(v, size)


def check_param(body, size):
    lines = body.strip().splitlines()
    assert lines
    for line in lines:
        assert re.fullmatch(r"\[(string|bool|list/[^\]]*)\] \S+ \S+", line), f"bad param line {line!r}"


CHECKS = {"gfx": check_gfx, "dboard": check_dboard, "plist": check_plist, "param": check_param,
          "string": lambda body, size: None, "none": lambda body, size: None}


def analyze_commands(ask, server):
    body = ok(ask, server, "gogui-analyze_commands")
    entries = [line.split("/", 2) for line in body.splitlines()]
    assert entries and all(len(e) == 3 and all(e) for e in entries), body
    return entries


@pytest.mark.parametrize("moves", [[], ["b c3", "w c4", "b d4", "w b3"]], ids=["empty", "four moves"])
def test_gogui_analyze_commands_run_and_answer_in_their_format(ask, make_server, moves):
    server = make_server(size=5, playouts=60)
    for m in moves:
        ok(ask, server, f"play {m}")
    entries = analyze_commands(ask, server)
    kinds = {kind for kind, _, _ in entries}
    assert {"gfx", "dboard", "param"} <= kinds
    for kind, label, command in entries:
        assert kind in CHECKS, f"unknown GoGui type {kind!r} ({label})"
        assert "%" not in command, "commands needing arguments are not tested here"
        body = ok(ask, server, command)
        CHECKS[kind](body, 5)
    assert len(server.game.moves) == len(moves), "an analyze command changed the game"


def test_gfx_after_a_search_of_another_position_searches_afresh(ask, make_server):
    server = make_server(size=5, playouts=60)
    ok(ask, server, "simbal-gfx visits")
    ok(ask, server, "play b c3")
    body = ok(ask, server, "simbal-gfx visits")
    labels = body.splitlines()[1].split()[1:]
    assert "C3" not in labels[::2], "gfx shows an occupied point (stale search)"
    var = ok(ask, server, "simbal-gfx pv").split()
    assert var[1] == "W", "the principal variation must start with the side to move"


def last_search(ask, server):
    fields = dict(line.split() for line in ok(ask, server, "simbal-last_search").splitlines())
    assert set(fields) == {"simulations", "seconds"}
    return int(fields["simulations"]), float(fields["seconds"])


def test_simbal_last_search_reports_the_last_genmove(ask, make_server):
    server = make_server(size=5, playouts=60)
    assert last_search(ask, server) == (0, 0.0), "no genmove yet"
    ok(ask, server, "genmove b")
    sims, seconds = last_search(ask, server)
    # 60 playouts a move, some perhaps already in the tree from before: at most 60 new ones.
    assert 0 < sims <= 60 and seconds > 0
    assert last_search(ask, server) == (sims, seconds), "asking again changes nothing"
    # A move chosen without a search reports none: Black fills the board but for two eyes,
    # so that nothing useful is left and genmove passes at once.
    ok(ask, server, "clear_board")
    eyes = {"A1", "C1"}
    for v in (f"{c}{r}" for c in "ABCDE" for r in range(1, 6)):
        if v not in eyes:
            ok(ask, server, f"play b {v}")
    assert ok(ask, server, "genmove b").lower() == "pass"
    assert last_search(ask, server)[0] == 0


def test_simbal_param_lists_and_sets(ask, make_server):
    server = make_server(size=5)
    listed = dict(line.split()[1:] for line in ok(ask, server, "simbal-param").splitlines())
    assert set(listed) == {name for name, _, _ in PARAMS}
    assert float(listed["uct_c"]) == dict((n, d) for n, d, _ in PARAMS)["uct_c"]
    assert ok(ask, server, "simbal-param uct_c 0.85") == ""
    assert ok(ask, server, "simbal-param rave 1") == ""
    listed = dict(line.split()[1:] for line in ok(ask, server, "simbal-param").splitlines())
    assert float(listed["uct_c"]) == 0.85 and float(listed["rave"]) == 1.0
    assert server.engine.params()["uct_c"] == 0.85
    before = server.engine.params()
    for bad in ("simbal-param no_such_param 1", "simbal-param uct_c", "simbal-param uct_c abc",
                "simbal-param uct_c nan", "simbal-param a b c"):
        r = ask(server, bad)
        assert not r.ok, bad
    assert server.engine.params() == before
    # The changed parameters are used: the search still runs and reports.
    reports, _ = parse_stream(server.handle("lz-analyze b 10"), 5)
    assert reports[0]


# -- KataGo's fields and options ------------------------------------------------------------------

BLACK_WALL = ["play b c1", "play w a5", "play b c2", "play w b5", "play b c3", "play w a4",
              "play b c4", "play w b4", "play b c5"]


@pytest.mark.parametrize("colour", ["b", "w"])
def test_kata_ownership_and_score_are_for_the_player_to_move(make_server, colour):
    """5x5, komi 0.5: Black's wall on the C column holds the right side (15 points and
    more); White's two stones in the corner are dead.  For the side analysed, ownership
    and scoreLead come out with its sign."""
    server = make_server(size=5, komi=0.5, playouts=400)
    for line in BLACK_WALL:
        assert server.handle(line) == "=\n\n"
    owned = []
    text = server.handle(f"kata-analyze {colour} 20 ownership true")
    body = text[:-2].split("\n")[1:]
    reports = [parse_report(line, 5, kata=True, ownership=owned) for line in body]
    assert len(owned) == 25 * len(reports)
    last = owned[-25:]
    sign = 1 if colour == "b" else -1
    # Row-major from the top left: E5 is index 4, E1 index 24 (Black's side for sure).
    assert sign * last[4] > 0.5 and sign * last[24] > 0.5
    best = reports[-1][0]
    assert sign * best["scoreLead"] > 5


def test_allow_and_avoid_restrict_the_root_moves(make_server):
    server = make_server(size=5, playouts=200)
    allowed = parse_stream(server.handle("kata-analyze b 10 allow b c3,d4 1"), 5, kata=True)[0]
    assert {info["move"] for infos in allowed for info in infos} <= {"C3", "D4"}
    avoided = parse_stream(server.handle("lz-analyze b 10 avoid b c3,b2 1"), 5)[0]
    assert not {info["move"] for infos in avoided for info in infos} & {"C3", "B2"}
    # allow/avoid of the other colour, or of depth 0, leave the root alone.
    other = parse_stream(server.handle("lz-analyze b 10 avoid w c3 1 maxmoves 3"), 5)[0]
    assert other and all(len(infos) <= 3 for infos in other)
    text = server.handle("kata-genmove_analyze b 10 allow b b2 1")
    reports, play = parse_stream(text, 5, kata=True, genmove=True)
    assert play == "B2" and server.game.moves[-1] == (BLACK, parse_vertex("B2", 5))


def test_untildepth_restricts_the_moves_below_the_root_too(make_server):
    """`allow w e5,pass 2`: White's reply (ply 1) is E5 or a pass in every variation;
    `avoid b c3,b2 3`: Black plays neither at ply 0 nor at ply 2."""
    server = make_server(size=5, playouts=600)
    reports = parse_stream(server.handle("kata-analyze b 10 allow w e5,pass 2"), 5,
                           kata=True)[0]
    # GTP vertices are case-insensitive; the engine writes a pass as "PASS".
    replies = {info["pv"][1].upper() for infos in reports for info in infos
               if len(info["pv"]) > 1}
    assert replies and replies <= {"E5", "PASS"}
    reports = parse_stream(server.handle("lz-analyze b 10 avoid b c3,b2 3"), 5)[0]
    pvs = [info["pv"] for infos in reports for info in infos]
    assert any(len(pv) > 2 for pv in pvs)
    assert not {pv[i] for pv in pvs for i in (0, 2) if i < len(pv)} & {"C3", "B2"}
    # A depth of 1 restricts the root alone.
    reports = parse_stream(server.handle("lz-analyze b 10 avoid b c3 1"), 5)[0]
    assert not {info["pv"][0] for infos in reports for info in infos} & {"C3"}


@pytest.mark.parametrize("line", ["lz-analyze b 10 allow b", "kata-analyze b 10 avoid b c3",
                                  "kata-analyze b 10 ownership maybe",
                                  "kata-analyze b 10 allow b z9 1",
                                  "kata-analyze b 10 allow b c3 x"])
def test_bad_analysis_options_answer_with_question_mark(ask, make_server, line):
    server = make_server(size=5)
    before = list(server.game.moves)
    assert not ask(server, line).ok
    assert server.game.moves == before


def test_minmoves_reports_unvisited_moves_too(make_server):
    server = make_server(size=5, playouts=30)
    text = server.handle("lz-analyze b 5 minmoves 20")
    last = text[:-2].split("\n")[-1]
    assert last.count("info move") >= 20


def test_stop_is_a_command(ask, make_server):
    server = make_server(size=5)
    assert ask(server, "stop").ok


def test_gogui_winrate_map_names_the_side_and_leaves_out_barely_searched_moves(ask, make_server):
    server = make_server(size=9, playouts=2000)
    assert server.handle("play b e5") == "=\n\n"
    ok(ask, server, "reg_genmove w")
    body = ok(ask, server, "simbal-gfx winrate")
    lines = dict(line.split(" ", 1) for line in body.split("\n"))
    assert lines["TEXT"].startswith("White's win rate (%)")
    floor = int(re.search(r"at least (\d+) times", lines["TEXT"]).group(1))
    assert floor >= 10
    visits = {format_vertex(s.move, 9): s.visits for s in server.engine.root_stats()}
    drawn = lines["INFLUENCE"].split()[0::2]
    assert drawn and all(visits[v] >= floor for v in drawn)
    assert any(v < floor for v in visits.values()), "every move was searched enough anyway"
    values = [float(x) for x in lines["INFLUENCE"].split()[1::2]]
    assert max(values) == 1.0 and min(values) > 0


def test_gogui_parameter_dialog_shows_switches_as_check_boxes(ask, make_server):
    server = make_server()
    listed = ok(ask, server, "simbal-param").split("\n")
    assert "[bool] rave 1" in listed and "[bool] lgr 0" in listed
    assert any(line.startswith("[string] uct_c ") for line in listed)
    ok(ask, server, "simbal-param lgr 1")
    assert "[bool] lgr 1" in ok(ask, server, "simbal-param").split("\n")
    assert not ask(server, "simbal-param rave 0.5").ok


def settings_dialog(ask, server):
    """simbal-settings as {name: (type, value)}, each list's value one of its choices."""
    out = {}
    for line in ok(ask, server, "simbal-settings").split("\n"):
        m = re.fullmatch(r"\[(list/\S+|bool|string)\] (\w+) (\S+)", line)
        assert m, f"not GoGui's param format: {line!r}"
        kind, name, value = m.groups()
        if kind.startswith("list/"):
            assert value in kind.split("/")[1:], line
        out[name] = (kind, value)
    return out


def test_gogui_engine_settings_offer_the_shipped_choices_and_set_them(ask, make_server):
    server = make_server(size=9)
    shown = settings_dialog(ask, server)
    assert shown["rules"] == ("list/chinese/tromp-taylor", "chinese")
    assert "9x9-reinforce.json" in shown["weights"][0] and "9x9-prior.json" in shown["prior"][0]
    assert "9x9-prior.json" not in shown["weights"][0]
    assert shown["ponder"] == ("bool", "0")
    for line in ("simbal-settings weights 9x9-apprentice.json", "simbal-settings prior playout",
                 "simbal-settings rules tromp-taylor", "simbal-settings ponder 1",
                 "simbal-settings resign 0.25", "simbal-settings max_move_time 4"):
        ok(ask, server, line)
    shown = settings_dialog(ask, server)
    assert shown["weights"][1] == "9x9-apprentice.json" and shown["prior"][1] == "playout"
    shipped = load_policy(str(WEIGHTS_DIR / "9x9-apprentice.json"), 9)
    assert np.array_equal(server.engine.policy.theta, shipped.theta)   # the file in weights/
    assert server.game.rules == "tromp-taylor" and server.engine.settings.ponder
    assert server.engine.settings.resign == 0.25
    assert server.engine.settings.max_move_seconds == 4
    for bad in ("simbal-settings weights nosuch.json", "simbal-settings resign 1.5",
                "simbal-settings ponder 2", "simbal-settings max_move_time 0",
                "simbal-settings colour red", "simbal-settings rules japanese"):
        assert not ask(server, bad).ok, bad
    assert settings_dialog(ask, server) == shown  # the refused lines changed nothing
    ok(ask, server, "simbal-settings weights default")
    assert server.engine.weights is None
