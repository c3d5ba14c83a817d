"""`simbal book`: the breadth-first walk of the opening, its resumption, game openings, and
the book the engine then plays."""
import json

from click.testing import CliRunner
from sgfmill import sgf

import engine.lab.book as builder
from engine.core.board import BLACK
from engine.core.coords import point
from engine.lab.book import build_book, game_openings
from engine.lab.cli import main
from engine.play.book import read_book
from engine.play.game import Game


def counting(monkeypatch):
    calls = []
    real = builder.search_position

    def search(unit, *args):
        calls.append(unit[0])
        return real(unit, *args)
    monkeypatch.setattr(builder, "search_position", search)
    return calls


def test_the_walk_follows_the_searchs_best_moves_and_resumes(tmp_path, monkeypatch):
    calls = counting(monkeypatch)
    out = tmp_path / "book.json"
    book = build_book(out, size=5, komi=24.5, playouts=100, plies=3, branch=2, share=0.0,
                      max_positions=3)
    assert len(book) == 3 and len(calls) == 3
    assert calls[0] == []                                 # the empty board first
    assert all(len(m) == 1 for m in calls[1:])            # then the best replies, ply by ply
    empty = Game(5).board.color
    first = [p for p, _ in book.alternatives(empty, BLACK)]
    assert len(first) == 2 and book.move(empty, BLACK) == first[0]
    # Resumed with room for more: the positions in the file are not searched again.
    calls.clear()
    again = build_book(out, size=5, komi=24.5, playouts=100, plies=3, branch=2, share=0.0,
                       max_positions=10)
    assert len(again) > 3 and len(calls) == len(again) - 3
    assert all(len(m) >= 1 for m in calls)
    assert read_book(out).entries == again.entries


def test_a_book_of_another_size_is_not_extended(tmp_path):
    out = tmp_path / "book.json"
    build_book(out, size=5, komi=24.5, playouts=50, plies=1, max_positions=1)
    result = CliRunner().invoke(main, ["book", "--size", "5", "--komi", "0.5", "--plies", "1",
                                       "--playouts", "50", "--workers", "0", "--out", str(out)])
    assert result.exit_code == 1 and "a book for 5x5, komi 24.5" in result.output


def write_game(path, moves):
    game = sgf.Sgf_game(size=5)
    for colour, (row, col) in moves:
        game.extend_main_sequence().set_move(colour, (row, col))
    path.write_bytes(game.serialise())


def test_game_openings_add_the_lines_opponents_played(tmp_path, monkeypatch):
    (tmp_path / "games").mkdir()
    line = [("b", (0, 0)), ("w", (4, 4)), ("b", (0, 4)), ("w", (4, 0))]
    write_game(tmp_path / "games" / "g.sgf", line)
    assert [len(m) for m in game_openings(tmp_path / "games", 5, 3)] == [1, 2, 3]
    calls = counting(monkeypatch)
    out = tmp_path / "book.json"
    result = CliRunner().invoke(main, ["book", "--size", "5", "--komi", "24.5", "--plies", "3",
                                       "--branch", "1", "--playouts", "50", "--games",
                                       str(tmp_path / "games"), "--workers", "0",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = result.output[result.output.index("{\"book\""):].splitlines()[0]
    assert json.loads(report)["positions"] == len(read_book(out))
    # The corner moves of the record are searched although no search would choose them.
    assert [(BLACK, point(5, 0, 0))] in calls and len([m for m in calls if len(m) == 2]) >= 2
    assert read_book(out).made_by["playouts"] == 50 and "command" in read_book(out).made_by
