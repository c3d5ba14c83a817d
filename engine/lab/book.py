"""Building an opening book (engine/play/book.py) from the engine's own deep searches.

`simbal book` walks the opening breadth first from the empty board.  Every position met is
searched once with `playouts` simulations (fresh tree, the shipped policies, no book); its
most visited move becomes the book move, and its `branch` most visited moves with at least
`share` of the best one's visits lead to the positions of the next ply.  Those moves are the
replies a strong opponent is likely to choose as well, so the same walk covers the book's
own side and the other: the book serves both colours.  `games` adds the openings of game
records (a match folder's SGFs, say): every position of their first `plies` moves is
searched too, so the lines opponents actually played are in the book.

Positions are deduplicated up to symmetry.  Each result is written to the book file as it
arrives (atomically), and a run on an existing file skips the positions already in it, so an
interrupted build resumes where it stopped.  The searches run as work units on a cluster
(engine/parallel/cluster.py), one engine per worker process.
"""
from pathlib import Path

from sgfmill import sgf

from engine.core.board import BLACK, PASS, WHITE
from engine.core.coords import point
from engine.parallel.cluster import InProcess, worker_cache
from engine.play.book import Book, BookFileError, read_book, write_book
from engine.play.game import Game
from engine.play.player import Engine, Settings


def _engine(size, komi, playouts, params):
    engine = Engine(size, komi, Settings(playouts=playouts), book="none")
    for name, value in params:
        engine.set_param(name, value)
    return engine


def search_position(unit, size, komi, playouts, params=()):
    """One work unit: the root statistics [(point, visits, win rate)] of a `playouts` search
    of the position after `moves` (unit = (moves, seed)), most visited first."""
    moves, seed = unit
    engine = worker_cache(("book", size, komi, playouts, tuple(params)),
                          lambda: _engine(size, komi, playouts, params))
    engine.game.reset(size)
    for colour, p in moves:
        engine.game.play(colour, p)
    engine.settings.seed = seed
    engine.search(_to_play(moves), None, playouts)
    return [(int(s.move), int(s.visits), float(s.winrate)) for s in engine.root_stats()]


def game_openings(folder, size, plies):
    """The move sequences of the first `plies` moves of every SGF game of `size` under
    `folder` (every prefix of each, the empty one excluded), as (colour, point) lists."""
    lines = []
    for path in sorted(Path(folder).rglob("*.sgf")):
        try:
            game = sgf.Sgf_game.from_bytes(path.read_bytes())
        except (OSError, ValueError):
            continue
        if game.get_size() != size or game.root.has_setup_stones():
            continue
        moves = []
        for node in game.get_main_sequence()[1:plies + 1]:
            colour, where = node.get_move()
            if colour is None or where is None:
                break
            moves.append((BLACK if colour == "b" else WHITE, point(size, *where)))
            lines.append(list(moves))
    return lines


def _to_play(moves):
    """The colour to move after `moves` (Black first, then alternating as recorded)."""
    return WHITE if moves and moves[-1][0] == BLACK else BLACK


def _position_after(size, komi, moves):
    game = Game(size, komi)
    for colour, p in moves:
        game.play(colour, p)
    return game, _to_play(moves)


def build_book(out, size=9, komi=7.5, playouts=50000, plies=10, branch=3, share=0.25,
               max_positions=500, games=None, params=(), seed=0, cluster=None, made_by=None,
               progress=None):
    """Build (or extend) the book file `out`; returns the Book.  `progress(done, total)` is
    called as positions are searched."""
    out = Path(out)
    cluster = cluster or InProcess()
    if out.exists():
        book = read_book(out)
        if book.size != size or book.komi != komi:
            raise BookFileError(f"{out}: a book for {book.size}x{book.size}, komi {book.komi:g}; "
                                f"asked for {size}x{size}, komi {komi:g}")
    else:
        book = Book(size, komi)
    book.made_by = dict(made_by or {}, playouts=playouts, plies=plies, branch=branch,
                        share=share, params=dict(params), games=str(games) if games else None)
    extra = game_openings(games, size, plies - 1) if games else []
    level, seen = [[]], set()
    for depth in range(plies):
        level = level + [m for m in extra if len(m) == depth]
        found = []      # this ply's new positions: (moves, board colours, colour to move)
        for moves in level:
            game, colour = _position_after(size, komi, moves)
            key, _ = book.key(game.board.color, colour)
            if key not in seen:
                seen.add(key)
                found.append((moves, game.board.color.copy(), colour))
        room = max(0, max_positions - len(book))
        todo = [i for i, (_, color, colour) in enumerate(found)
                if book.alternatives(color, colour) is None][:room]
        units = [(found[i][0], seed * 1_000_003 + len(book) + j) for j, i in enumerate(todo)]
        for j, stats in cluster.run(search_position, units, size, komi, playouts, tuple(params)):
            moves, color, colour = found[todo[j]]
            stats = [s for s in stats if s[0] != PASS]
            if stats:
                book.add(color, colour, stats[0][0], stats[0][1], stats[0][2],
                         [(q, n) for q, n, _ in stats[:branch] if n >= share * stats[0][1]])
                write_book(out, book)
            if progress is not None:
                progress(len(book), max_positions)
        # The next ply, in this ply's order (not the order results came back in).
        level = []
        for moves, color, colour in found:
            for q, _ in book.alternatives(color, colour) or ():
                level.append(moves + [(colour, q)])
    return book
