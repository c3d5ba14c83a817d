"""Tournaments (engine/lab/tournament.py) and their in-process players (engine/lab/players.py): the
schedule's balance, players that speak play_game's GTP, resumption, ratings files and the
`simbal tournament` command."""
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine.core.board import BLACK, PASS, WHITE, is_eye
from engine.core.coords import format_vertex, parse_vertex
from engine.core.rng import make_rng
from engine.lab.cli import main as cli
from engine.lab.match import MatchConfig, play_game, read_results
from engine.lab.players import (EngineClient, MC1Player, PolicyPlayer, check_spec, default_name,
                                draw_point, gtp_command, make_player, split_name)
from engine.lab.tournament import rated_games, report, run_tournament, schedule

from helpers import board_from_ascii

FIVE = MatchConfig(size=5, komi=0.5)


# -- schedule -----------------------------------------------------------------------------------

def test_round_robin_balances_pairings_and_colours():
    names = ["a", "b", "c", "d"]
    plan = schedule(names, 5)                     # rounded up to 6 per pairing
    pairs = Counter(frozenset((a, b)) for _, a, b, _ in plan)
    assert len(pairs) == 6 and set(pairs.values()) == {6}
    black = Counter(a if k % 2 == 0 else b for _, a, b, k in plan)
    assert all(black[n] == 9 for n in names)      # 3 opponents x 3 games with Black each
    assert len({key for key, *_ in plan}) == len(plan)
    # Interleaved: the first six games are one round of every pairing.
    assert len({frozenset((a, b)) for _, a, b, _ in plan[:6]}) == 6


def test_gauntlet_plays_one_against_the_rest():
    plan = schedule(["x", "y", "z"], 4, gauntlet="y")
    assert {(a, b) for _, a, b, _ in plan} == {("y", "x"), ("y", "z")}
    assert len(plan) == 8


# -- specs --------------------------------------------------------------------------------------

def test_spec_names_and_checks(tmp_path):
    assert split_name("mine=policy:uniform") == ("mine", "policy:uniform")
    assert split_name("mc1:weights/5x5-balance.json:50")[0] == "mc1:5x5-balance:50"
    assert split_name("gnugo")[0] == "gnugo:10"
    # An '=' inside a command line is not a name.
    assert split_name("prog --opt=1")[1] == "prog --opt=1"
    assert default_name("/usr/bin/some-engine --gtp") == "some-engine"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for spec, words in ((f"policy:{bad}", "bad.json"), ("mc1:uniform:0", "positive"),
                        ("mcts", "mcts:FILE"), ("gnugo:x", "LEVEL")):
        with pytest.raises(ValueError, match=words):
            check_spec(spec, 5)
    check_spec("mcts:handcrafted:30", 5)


def test_fuego_specs_fix_games_or_seconds_on_one_thread(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "fuego"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    book = tmp_path / "share" / "fuego" / "book.dat"
    book.parent.mkdir(parents=True)
    book.write_text("")
    monkeypatch.setenv("SIMBAL_FUEGO", str(fake))
    assert split_name("fuego:5000")[0] == "fuego:5000"
    assert split_name("fuego")[0] == "fuego"
    for spec in ("fuego", "fuego:5000", "fuego:1.5s"):
        check_spec(spec, 9)
    for spec in ("fuego:x", "fuego:0", "fuego:-1s", "fuego:5000:1"):
        with pytest.raises(ValueError, match="fuego:GAMES"):
            check_spec(spec, 9)
    config = Path(gtp_command("fuego:5000").split("--config ")[1]).read_text().splitlines()
    assert "uct_param_search number_threads 1" in config
    assert "uct_param_player max_games 5000" in config
    config = Path(gtp_command("fuego:1.5s").split("--config ")[1]).read_text().splitlines()
    assert "go_param timelimit 1.5" in config
    config = Path(gtp_command("fuego").split("--config ")[1]).read_text().splitlines()
    assert config == ["uct_param_search number_threads 1", "go_param_rules ko_rule pos_superko",
                      f"book_load {book}"]
    assert gtp_command("gnugo:3").endswith("--level 3 --chinese-rules")
    monkeypatch.setenv("SIMBAL_FUEGO", str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="fuego: not found on PATH"):
        check_spec("fuego:100", 9)


# -- players ------------------------------------------------------------------------------------

def test_draw_point_follows_the_weights():
    probs = np.zeros(10)
    probs[[2, 5, 7]] = [1.0, 3.0, 0.0]
    rng = make_rng(3)
    counts = Counter(int(draw_point(probs, rng)) for _ in range(4000))
    assert set(counts) == {2, 5}
    assert counts[5] / 4000 == pytest.approx(0.75, abs=0.03)
    assert draw_point(np.zeros(4), rng) == PASS


def test_policy_player_plays_legal_moves_and_never_fills_its_eyes():
    player = PolicyPlayer("uniform", 5, 0.5)
    player.new_game(1)
    player.send("boardsize 5")
    player.send("clear_board")
    # Black owns the left with two eyes (A5 and A3); every other point is playable.
    for colour, v in (("b", "b5"), ("b", "a4"), ("b", "b4"), ("b", "b3"), ("b", "a2"),
                      ("b", "b2"), ("b", "b1"), ("b", "a1")):
        player.send(f"play {colour} {v}")
    eyes = {parse_vertex(v, 5) for v in ("a5", "a3")}
    for _ in range(30):
        answer = player.send("genmove b")
        p = parse_vertex(answer, 5)
        assert p not in eyes
        if p == PASS:
            break
    b = player.game.board
    assert all(is_eye(b, q, BLACK) for q in eyes)
    assert player.send("final_status_list dead") == ""
    ok, text = player.ask("frobnicate")
    assert not ok and "unknown" in text


def test_policy_player_passes_only_without_candidates():
    player = PolicyPlayer("handcrafted", 5, 0.5)
    player.game.reset(board=board_from_ascii("""
        . X . X .
        X X X X X
        X X . X X
        X X X X X
        . X X X .
    """))
    assert player.choose(BLACK) == PASS               # only its own eyes are left
    player.game.reset(size=5)
    assert player.choose(WHITE) != PASS


def test_mc1_plays_its_only_candidate_or_passes():
    player = MC1Player("uniform", 10, 5, 0.5)
    player.new_game(5)
    player.game.reset(board=board_from_ascii("""
        X X X X X
        X X X X X
        X X X X X
        X X X X X
        X X X X .
    """))
    assert player.choose(BLACK) == PASS                    # its own eye, its last liberty
    assert format_vertex(player.choose(WHITE), 5) == "E1"  # the capture of everything


def test_engine_client_speaks_gtp_and_restarts_per_game():
    client = EngineClient("uniform", playouts=20, size=5, komi=0.5, params={"uct_c": 1.5})
    client.new_game(7)
    client.send("boardsize 5")
    client.send("clear_board")
    first = client.send("genmove b")
    assert parse_vertex(first, 5) != PASS
    assert client.server.engine.params()["uct_c"] == 1.5
    client.new_game(7)
    client.send("boardsize 5")
    client.send("clear_board")
    assert client.send("genmove b") == first          # same seed, same move
    assert not client.ask("play b Z9")[0]


def test_a_game_between_in_process_players_is_played_out():
    players = {BLACK: make_player("policy:uniform", 5, 0.5), WHITE: make_player("mc1:uniform:10", 5, 0.5)}
    for c, p in players.items():
        p.new_game(c)
    result, game = play_game(players, {BLACK: "u", WHITE: "m"}, FIVE)
    assert result["end"] == "passes" and result["winner"] in "BW"
    assert game.last_two_passed()
    assert result["score"] == game.score()             # nothing left to remove


# -- tournaments ------------------------------------------------------------------------------------

SPECS = {"u": "policy:uniform", "h": "policy:handcrafted", "m": "mc1:uniform:8"}


def test_tournament_resumes_to_the_same_results(tmp_path):
    whole = run_tournament(SPECS, tmp_path / "whole", FIVE, 4, referee_cmd=None, seed=3)
    assert len(whole) == 12 and len(list((tmp_path / "whole" / "games").glob("*.sgf"))) == 12
    # Interrupted after a few games: keep only those lines, then run again.
    part = tmp_path / "part"
    part.mkdir()
    lines = (tmp_path / "whole" / "results.jsonl").read_text().splitlines()
    (part / "results.jsonl").write_text("\n".join(lines[:5]) + "\n" + lines[5][:20])  # torn line
    (part / "tournament.json").write_text((tmp_path / "whole" / "tournament.json").read_text())
    resumed = run_tournament(SPECS, part, FIVE, 4, referee_cmd=None, seed=3)
    strip = [{k: r[k] for k in ("game", "black", "white", "winner", "score", "moves")} for r in whole]
    assert [{k: r[k] for k in strip[0]} for r in resumed] == strip
    # Nothing is left to play: a third run adds no line.
    before = (part / "results.jsonl").read_text()
    run_tournament(SPECS, part, FIVE, 4, referee_cmd=None, seed=3)
    assert (part / "results.jsonl").read_text() == before


def test_a_stopped_tournament_has_saved_all_but_a_few_games(tmp_path):
    # A long schedule stopped (the progress callback raising, as Ctrl-C would) as soon as
    # anything is saved: the games are saved a few at a time, not 50 (an hour at 1 s a move).
    def progress(done, total):
        if done > 0:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_tournament(SPECS, tmp_path, FIVE, 100, referee_cmd=None, seed=3, progress=progress)
    assert 0 < len(read_results(tmp_path / "results.jsonl")) <= 4


def test_failed_games_are_played_again_on_resume(tmp_path):
    # First run with a GTP engine that cannot be started: every game fails, nobody wins.
    specs = {"u": "policy:uniform", "x": str(tmp_path / "no-such-engine")}
    failed = run_tournament(specs, tmp_path, FIVE, 2, referee_cmd=None)
    assert [r["end"] for r in failed] == ["failed", "failed"]
    assert all(r["winner"] is None and "no-such-engine" in r["error"] for r in failed)
    # The engine installed (the same name now a player that works): the games are played.
    doc = json.loads((tmp_path / "tournament.json").read_text())
    doc["players"]["x"] = "policy:handcrafted"
    (tmp_path / "tournament.json").write_text(json.dumps(doc))
    played = run_tournament({"u": "policy:uniform", "x": "policy:handcrafted"}, tmp_path, FIVE,
                            2, referee_cmd=None)
    assert [r["game"] for r in played] == [r["game"] for r in failed]
    assert all(r["winner"] in ("B", "W", "0") for r in played)
    assert len(read_results(tmp_path / "results.jsonl")) == 4      # the failures kept as history


def test_tournament_on_dask_workers_matches_in_process(tmp_path, dask_cluster):
    specs = {"u": "policy:uniform", "h": "policy:handcrafted"}
    one = run_tournament(specs, tmp_path / "one", FIVE, 40, seed=1)
    two = run_tournament(specs, tmp_path / "two", FIVE, 40, cluster=dask_cluster, seed=1)
    assert [(r["game"], r["winner"], r["moves"]) for r in one] == \
           [(r["game"], r["winner"], r["moves"]) for r in two]


def test_tournament_report_rates_the_stronger_player_higher(tmp_path):
    results = run_tournament(SPECS, tmp_path, FIVE, 10, seed=2)
    text = report(results, list(SPECS), tmp_path, anchor="u")
    ratings = {x["name"]: x for x in json.loads((tmp_path / "ratings.json").read_text())["ratings"]}
    assert ratings["u"]["elo"] == 0
    assert ratings["m"]["elo"] > ratings["u"]["elo"] + 100
    assert ratings["m"]["games"] == 20 and "| m vs u |" in text
    assert len(rated_games(results)) == 30
    assert (tmp_path / "ratings.png").exists() and (tmp_path / "pairs.json").exists()
    assert "Simulations a searched move" not in text, "the policy players report no searches"
    # Players that report their searches get a line each under the table.
    for r in results:
        if r["black"] == "m":
            r["search"] = {"B": {"moves": 4, "simulations": 32, "seconds": 0.5}}
    text = report(results, list(SPECS), tmp_path, anchor="u")
    assert "- m: 8 simulations a searched move (40 moves), 64 a second" in text


def test_tournament_refuses_a_renamed_spec_and_corrupt_results(tmp_path):
    specs = {"u": "policy:uniform", "h": "policy:handcrafted"}
    run_tournament(specs, tmp_path, FIVE, 2)
    with pytest.raises(ValueError, match="'h' was"):
        run_tournament({"u": "policy:uniform", "h": "mc1:uniform"}, tmp_path, FIVE, 2)
    (tmp_path / "results.jsonl").write_text('{"game": "x"}\nnot json\n{"game": "y"}\n')
    with pytest.raises(ValueError, match="results.jsonl, line 2"):
        read_results(tmp_path / "results.jsonl")


def test_a_folder_of_several_schedules_is_rated_whole(tmp_path):
    # A cheap round robin at many games, a gauntlet at few: each run returns its own schedule's
    # games first, then the folder's other games between the players it names.
    direct = {"u": "policy:uniform", "h": "policy:handcrafted"}
    first = run_tournament(direct, tmp_path, FIVE, 6, seed=1)
    gauntlet = run_tournament({"m": "mc1:uniform:4", **direct}, tmp_path, FIVE, 2, gauntlet="m",
                              seed=1)
    assert len(first) == 6 and len(gauntlet) == 4 + 6
    assert [r["game"] for r in gauntlet[4:]] == [r["game"] for r in first]
    # Games 0: nothing played, everything between the named players rated.
    before = (tmp_path / "results.jsonl").read_text()
    every = run_tournament({**direct, "m": "mc1:uniform:4"}, tmp_path, FIVE, 0)
    assert (tmp_path / "results.jsonl").read_text() == before
    assert sorted(r["game"] for r in every) == sorted(r["game"] for r in gauntlet)
    assert len(run_tournament(direct, tmp_path, FIVE, 0)) == 6
    text = report(every, ["u", "h", "m"], tmp_path)
    assert "| h vs u | " in text and "| h vs m | " in text


def test_cli_tournament(tmp_path):
    out = tmp_path / "t"
    args = ["tournament", "policy:uniform", "mc=mc1:uniform:5", "--games", "4", "--size", "5",
            "--out", str(out), "--workers", "0", "--anchor", "policy:uniform", "--referee", "none"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "| mc vs policy:uniform |" in result.output
    assert len(read_results(out / "results.jsonl")) == 4
    rated = CliRunner().invoke(cli, [*args[:3], "--games", "0", *args[5:]])
    assert rated.exit_code == 0 and "| mc vs policy:uniform | " in rated.output
    assert len(read_results(out / "results.jsonl")) == 4
    bad = CliRunner().invoke(cli, ["tournament", "policy:uniform", "policy:nowhere.json"])
    assert bad.exit_code != 0 and "nowhere.json" in bad.output
    (out / "results.jsonl").write_text("garbage\n{}\n")
    broken = CliRunner().invoke(cli, args)
    assert broken.exit_code == 1 and "results.jsonl, line 1" in broken.output


@pytest.mark.skipif(not __import__("engine.gtp.fuego").gtp.fuego.available(),
                    reason="Fuego is not installed (fuego on PATH)")
@pytest.mark.parametrize("spec", ["fuego:200", "fuego:0.3s"])
def test_real_fuego_player_answers_genmove_within_its_budget(spec):
    import time

    from engine.gtp.client import GtpClient
    from engine.lab.match import _record_search
    client = GtpClient(gtp_command(spec))
    try:
        client.send("boardsize 9")
        client.send("clear_board")
        client.send("play b J9")   # out of Fuego's opening book, so that it searches
        start = time.monotonic()
        move = client.send("genmove w", timeout=20)
        assert parse_vertex(move, 9) >= 0
        assert time.monotonic() - start < 5
        search_params = client.send("uct_param_search").splitlines()
        assert "[string] number_threads 1" in [line.strip() for line in search_params]
        # Its search is read the way match results record it.
        tally = [0, 0, 0.0]
        _record_search(client, tally, None)
        assert tally[0] == 1 and tally[1] > 0 and 0 < tally[2] < 5
        if spec == "fuego:200":
            assert tally[1] <= 201   # Fuego counts the game that reaches its limit as well
    finally:
        client.close()
