"""Simbal against GnuGo 3.8 over GTP: a short 9x9 game, every move checked by the other
engine, and both engines' final_score compared at the end.

GnuGo plays at level 1 with Chinese (area) rules, the rules Simbal scores by, and the same
komi, so a finished game must get the same result from both.  Simbal runs with few
playouts and resignation off so the game is played out.  Skipped if GnuGo is missing,
unless SIMBAL_REQUIRE_GNUGO=1 (CI), where a missing GnuGo fails instead.
"""
import re

import pytest

KOMI = 7.5
MOVE_CAP = 250   # 9x9 games end well before; past it both sides simply pass
RESULT = re.compile(r"0|[BW]\+\d+(?:\.\d+)?")


def margin(result):
    """'B+3.5' -> 3.5, 'W+2' -> -2.0, '0' -> 0.0 (Black's point of view)."""
    assert RESULT.fullmatch(result), result
    if result == "0":
        return 0.0
    return float(result[2:]) * (1 if result[0] == "B" else -1)


def play_game(black, white, cap=MOVE_CAP):
    """Alternate genmove / play until two passes in a row or `cap` moves; if the cap is hit,
    finish the game by passing for both.  Returns the moves as (colour, vertex)."""
    engines = {"b": black, "w": white}
    moves, passes, colour = [], 0, "b"
    while passes < 2:
        mover, other = engines[colour], engines["w" if colour == "b" else "b"]
        if len(moves) >= cap:
            move = "PASS"
            mover.ok(f"play {colour} pass")
        else:
            move = mover.ok(f"genmove {colour}").upper()
        assert move != "RESIGN", f"{mover.name} resigned at move {len(moves) + 1}"
        answer = other.send(f"play {colour} {move}")
        assert answer.ok, (f"{other.name} rejected {mover.name}'s move {len(moves) + 1} "
                           f"({colour} {move}): {answer.body!r}")
        moves.append((colour, move))
        passes = passes + 1 if move == "PASS" else 0
        colour = "w" if colour == "b" else "b"
    return moves


@pytest.mark.parametrize("simbal_colour", ["b", "w"])
def test_game_against_gnugo_agrees_on_the_score(gnugo_path, engine_process, simbal_process,
                                                 read_board, simbal_colour):
    simbal = simbal_process("--seed", "3", "--resign", "0", playouts=300)
    gnugo = engine_process([gnugo_path, "--mode", "gtp", "--level", "1", "--chinese-rules",
                            "--never-resign", "--seed", "1"], "gnugo")
    for engine in (simbal, gnugo):
        engine.ok("boardsize 9")
        engine.ok("clear_board")
        engine.ok(f"komi {KOMI}")
    black, white = (simbal, gnugo) if simbal_colour == "b" else (gnugo, simbal)

    moves = play_game(black, white)

    simbal_moves = [m for c, m in moves if c == simbal_colour]
    assert len(simbal_moves) >= 5, moves
    assert all(re.fullmatch(r"PASS|[A-HJ][1-9]", m) for m in simbal_moves), simbal_moves
    # Both engines saw the same game: the same stones on the board.
    stones = read_board(simbal.ok("showboard"))
    for colour, stone in (("black", "X"), ("white", "O")):
        assert set(gnugo.ok(f"list_stones {colour}").split()) == {v for v, s in stones.items() if s == stone}
    simbal_score, gnugo_score = simbal.ok("final_score"), gnugo.ok("final_score")
    context = (f"Simbal says {simbal_score}, GnuGo says {gnugo_score} after {len(moves)} moves\n"
               f"{simbal.ok('showboard')}\nSimbal dead: {simbal.ok('final_status_list dead')!r}\n"
               f"GnuGo dead: {gnugo.ok('final_status_list dead')!r}\nmoves: {moves}")
    assert (margin(simbal_score) > 0) == (margin(gnugo_score) > 0), context
    assert margin(simbal_score) == margin(gnugo_score), context
