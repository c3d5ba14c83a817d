"""The opening book: symmetric lookup, refusal of bad files by name, and the engine playing
book moves only in the games a book is for."""
import json

import numpy as np
import pytest

from engine.core.board import BLACK, WHITE
from engine.core.coords import format_vertex, parse_vertex, point, row_col
from engine.play.book import (Book, BookFileError, board_string, canonical, read_book,
                              transform, untransform, write_book)
from engine.play.game import Game
from engine.play.player import Engine, Settings


def game_after(moves, size=9, komi=7.5):
    g = Game(size, komi)
    for colour, vertex in moves:
        g.play(colour, parse_vertex(vertex, size))
    return g


def symmetric(moves, s, size=9):
    out = []
    for colour, vertex in moves:
        r, c = row_col(size, parse_vertex(vertex, size))
        out.append((colour, format_vertex(point(size, *transform(s, r, c, size)), size)))
    return out


@pytest.mark.parametrize("n", [2, 5, 9])
def test_untransform_inverts_transform(n):
    for s in range(8):
        images = {transform(s, r, c, n) for r in range(n) for c in range(n)}
        assert len(images) == n * n   # a permutation of the board
        for r in range(n):
            for c in range(n):
                assert untransform(s, *transform(s, r, c, n), n) == (r, c)


def test_a_book_move_is_found_in_all_eight_orientations():
    moves = [(BLACK, "E5"), (WHITE, "C4"), (BLACK, "G3")]
    book = Book(9, 7.5)
    g = game_after(moves)
    book.add(g.board.color, WHITE, parse_vertex("C6", 9), 1000, 0.45)
    keys = set()
    for s in range(8):
        h = game_after(symmetric(moves, s))
        keys.add(book.key(h.board.color, WHITE)[0])
        expected = symmetric([(WHITE, "C6")], s)[0][1]
        assert format_vertex(book.move(h.board.color, WHITE), 9) == expected
        assert book.move(h.board.color, BLACK) is None   # the other side to move: not in it
    assert len(keys) == 1


def test_files_round_trip_and_hold_canonical_positions(tmp_path):
    book = Book(9, 7.5, made_by={"command": "test"})
    g = game_after([(BLACK, "C3")])
    book.add(g.board.color, WHITE, parse_vertex("E5", 9), 900, 0.52,
             [(parse_vertex("E5", 9), 900), (parse_vertex("C5", 9), 300)])
    write_book(tmp_path / "b.json", book)
    again = read_book(tmp_path / "b.json")
    assert again.entries == book.entries and again.made_by == {"command": "test"}
    (entry,) = json.loads((tmp_path / "b.json").read_text())["entries"]
    assert canonical(entry["position"], 9)[0] == entry["position"]
    assert [format_vertex(p, 9) for p, _ in again.alternatives(g.board.color, WHITE)] == \
        ["E5", "C5"]


def bad_book(tmp_path, change):
    book = Book(9, 7.5)
    book.add(Game(9).board.color, BLACK, parse_vertex("E5", 9), 10, 0.5)
    write_book(tmp_path / "b.json", book)
    data = json.loads((tmp_path / "b.json").read_text())
    change(data)
    (tmp_path / "b.json").write_text(json.dumps(data))
    return tmp_path / "b.json"


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="simbal-weights"), "not a simbal-book file"),
    (lambda d: d.update(version=2), "book version 2"),
    (lambda d: d.update(size=1), "is not a board size"),
    (lambda d: d.update(komi="7.5"), "is not a number"),
    (lambda d: d["entries"][0].pop("move"), "entry 0: missing or bad field"),
    (lambda d: d["entries"][0].update(move="Z9"), "entry 0: move"),
    (lambda d: d["entries"][0].update(position="." * 80 + "X", move="J9"), "not an empty point"),
    (lambda d: d["entries"][0].update(position="X" + "." * 80), "canonical orientation"),
    (lambda d: d["entries"][0].update(position="." * 80), "is not 81 of '.XO'"),
    (lambda d: d["entries"][0].update(to_play="black"), "is not B or W"),
    (lambda d: d["entries"].append(dict(d["entries"][0])), "entry 1: position listed twice"),
])
def test_bad_book_files_are_refused_by_name(tmp_path, change, message):
    path = bad_book(tmp_path, change)
    with pytest.raises(BookFileError, match=message) as err:
        read_book(path)
    assert str(path) in str(err.value)


def test_unreadable_book_is_refused_by_name(tmp_path):
    (tmp_path / "b.json").write_text("{not json")
    with pytest.raises(BookFileError, match="b.json: not a readable book"):
        read_book(tmp_path / "b.json")
    with pytest.raises(BookFileError, match="missing.json"):
        Engine(9, 7.5, book=str(tmp_path / "missing.json"))


@pytest.fixture
def book_file(tmp_path):
    """A 9x9, komi 7.5 book: Black opens at C3 (a move no search would choose on 9x9), White
    answers D4 at C7."""
    book = Book(9, 7.5)
    book.add(Game(9).board.color, BLACK, parse_vertex("C3", 9), 10, 0.5)
    g = game_after([(BLACK, "D4")])
    book.add(g.board.color, WHITE, parse_vertex("C7", 9), 10, 0.5)
    write_book(tmp_path / "book.json", book)
    return str(tmp_path / "book.json")


def engine(book, komi=7.5):
    return Engine(9, komi, Settings(playouts=50, max_nodes=20000, resign=0.0), book=book)


def test_the_engine_plays_book_moves_without_searching(book_file):
    e = engine(book_file)
    assert format_vertex(e.genmove(BLACK), 9) == "C3"
    assert not e.has_search(BLACK)      # no tree was searched for it
    e.game.play(BLACK, parse_vertex("F6", 9))   # D4 under a symmetry: C7 becomes G3's image
    answer = format_vertex(e.genmove(WHITE), 9)
    assert answer == "G3"
    e.game.play(WHITE, parse_vertex(answer, 9))
    assert e.book_move(BLACK) is None   # out of the book: the engine searches
    assert e.genmove(BLACK) is not None and e.has_search(BLACK)


def test_the_book_is_left_out_of_other_games(book_file):
    assert engine(book_file, komi=6.5).book_move(BLACK) is None       # another komi
    assert engine("none").book_move(BLACK) is None                    # no book
    e = engine(book_file)
    e.game.place_handicap([parse_vertex("C3", 9), parse_vertex("G7", 9)])
    assert e.book_move(WHITE) is None                                 # a handicap game
    e = engine(book_file)
    e.game.reset(9)
    e.game.komi = 7.5
    e.game.play(BLACK, parse_vertex("D4", 9))
    assert format_vertex(e.book_move(WHITE), 9) == "C7"
    e.game.reset(13)
    assert e.book_move(BLACK) is None                                 # another size
    e.load_book("none")
    e.game.reset(9)
    assert e.book_move(BLACK) is None
    assert board_string(np.zeros(121, np.int8), 9) == "." * 81
