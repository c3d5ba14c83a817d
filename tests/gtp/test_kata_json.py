"""`simbal analysis` (engine/gtp/kata_json.py): KataGo's JSON analysis protocol, a subset.
Queries in, one response per analysed turn out, from Black's point of view; bad queries get
an error response naming the problem and the next query is still answered."""
import json
import subprocess
import sys

import pytest

from engine.gtp.kata_json import AnalysisEngine
from engine.play.player import Engine, Settings

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.fixture
def analyser():
    return AnalysisEngine(Engine(9, 7.5, Settings(playouts=100, seed=1, resign=0.0)))


def ask(analyser, **query):
    return [json.loads(r) for r in analyser.answer(json.dumps(query))]


def test_each_analysed_turn_gets_one_response_with_the_fields_of_katago(analyser):
    out = ask(analyser, id="q", boardXSize=9, boardYSize=9, komi=7.5,
              moves=[["B", "E5"], ["W", "C3"]], analyzeTurns=[0, 1, 2], maxVisits=120,
              includeOwnership=True)
    assert [r["turnNumber"] for r in out] == [0, 1, 2] and {r["id"] for r in out} == {"q"}
    assert [r["rootInfo"]["currentPlayer"] for r in out] == ["B", "W", "B"]
    for r in out:
        assert r["rootInfo"]["visits"] >= 120 and 0 <= r["rootInfo"]["winrate"] <= 1
        assert "scoreLead" in r["rootInfo"] and len(r["ownership"]) == 81
        infos = r["moveInfos"]
        assert [i["order"] for i in infos] == list(range(len(infos)))
        for i in infos:
            assert set(i) >= {"move", "visits", "winrate", "scoreLead", "scoreMean",
                              "scoreStdev", "prior", "lcb", "order", "pv"}
            assert i["pv"][0] == i["move"]
    # Turn 1 is White's: its moves cannot be on E5, which Black took at turn 0.
    assert "E5" not in [i["move"] for i in out[1]["moveInfos"]]


def test_values_are_from_blacks_point_of_view_whoever_moves(analyser):
    """5x5, komi -30: Black wins whatever happens (White can own at most 25 points)."""
    for first in ("B", "W"):
        (r,) = ask(analyser, id=first, boardXSize=5, komi=-30, initialPlayer=first,
                   maxVisits=100, includeOwnership=True)
        assert r["rootInfo"]["currentPlayer"] == first
        assert r["rootInfo"]["winrate"] > 0.95 and r["rootInfo"]["scoreLead"] > 10
        assert all(i["winrate"] > 0.9 for i in r["moveInfos"] if i["visits"] >= 5)


def test_allow_and_avoid_moves_restrict_the_search_as_katagos_do(analyser):
    (r,) = ask(analyser, id="a", boardXSize=5, maxVisits=300,
               allowMoves=[{"player": "B", "moves": ["C3", "D4"], "untilDepth": 1}],
               avoidMoves=[{"player": "W", "moves": ["B2", "B4", "D2"], "untilDepth": 2}])
    infos = r["moveInfos"]
    assert infos and {i["move"] for i in infos} <= {"C3", "D4"}
    replies = {i["pv"][1] for i in infos if len(i["pv"]) > 1}
    assert replies and not replies & {"B2", "B4", "D2"}


@pytest.mark.parametrize("query, words", [
    ({"boardXSize": 9}, "'id'"),
    ({"id": "x"}, "'boardXSize'"),
    ({"id": "x", "boardXSize": 9, "boardYSize": 13}, "square"),
    ({"id": "x", "boardXSize": 9, "rules": "japanese"}, "unsupported rules"),
    ({"id": "x", "boardXSize": 9, "moves": [["B", "Z9"]]}, "bad vertex"),
    ({"id": "x", "boardXSize": 9, "moves": [["B", "E5"], ["W", "E5"]]}, "illegal"),
    ({"id": "x", "boardXSize": 9, "analyzeTurns": [3]}, "analyzeTurns"),
    ({"id": "x", "boardXSize": 9, "maxVisits": 0}, "maxVisits"),
    ({"id": "x", "boardXSize": 9, "komi": "lots"}, "komi"),
    ({"id": "x", "boardXSize": 9, "avoidMoves": [{"player": "B", "moves": ["C3"]}]},
     "untilDepth"),
    ({"id": "x", "boardXSize": 9, "allowMoves": [{"player": "X", "moves": [], "untilDepth": 1}]},
     "player"),
    ({"id": "x", "boardXSize": 9, "allowMoves": [{"player": "B", "moves": ["Z1"],
                                                  "untilDepth": 1}]}, "bad vertex"),
    ({"id": "x", "boardXSize": 5, "moves": [["B", "C3"]],
      "allowMoves": [{"player": "W", "moves": ["C3"], "untilDepth": 1}]}, "no move"),
])
def test_a_bad_query_is_answered_with_an_error_naming_it(analyser, query, words):
    (r,) = [json.loads(x) for x in analyser.answer(json.dumps(query))]
    assert words in r["error"] and r.get("id") == query.get("id")


def test_the_command_answers_line_by_line_and_survives_garbage():
    lines = "\n".join([
        json.dumps({"id": "a", "boardXSize": 7, "maxVisits": 50}),
        "this is not json",
        json.dumps({"id": "b", "boardXSize": 7, "maxVisits": 50, "moves": [["B", "D4"]]}),
    ]) + "\n"
    run = subprocess.run([sys.executable, "-m", "engine.lab.cli", "analysis", "--seed", "2"],
                         input=lines, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-500:]
    out = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r.get("id") for r in out] == ["a", None, "b"]
    assert "error" in out[1] and "moveInfos" in out[0] and "moveInfos" in out[2]
