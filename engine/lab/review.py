"""Post-mortem of a match folder: where each side ran a chain out of atari into a capture.

`simbal match` leaves `results.jsonl` and one SGF a game (engine/lab/match.py).  This module
replays the games on sgfmill's board (a rules implementation independent of ours) and finds
every move that extended a chain out of atari to exactly two liberties after which that
chain was captured within `horizon` moves: the mark of a misread ladder or net, the way
Simbal's losses to GnuGo began (BENCHMARKS.md, Strength, session 6).  Each escape found is
also put to the tree's own ladder reader (engine/tactics/ladders.py `escape_is_caught`, on our
board): an escape the reader calls caught was played *against* the search's knowledge, a
search fault; one it calls free is a reading fault (a net, a race, a later blunder).
`simbal review` prints the count per game and in all, for one named player against the other;
with `--labels` it also says where the games were won and lost by an oracle's values of their
positions (engine/lab/swings.py).
"""
import json
from pathlib import Path

from sgfmill import boards, sgf

from engine.core.board import BLACK, WHITE, is_legal, new_board, play
from engine.core.coords import point
from engine.lab.swings import game_values, swings
from engine.tactics.ladders import escape_is_caught


def _chain(board, point):
    """The stones and liberties of the chain at `point` (sgfmill (row, col))."""
    colour = board.get(*point)
    stones, libs, todo = {point}, set(), [point]
    while todo:
        r, c = todo.pop()
        for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= q[0] < board.side and 0 <= q[1] < board.side:
                x = board.get(*q)
                if x is None:
                    libs.add(q)
                elif x == colour and q not in stones:
                    stones.add(q)
                    todo.append(q)
    return stones, libs


def _saves_from_atari(board, colour, point):
    r, c = point
    return any(0 <= q[0] < board.side and 0 <= q[1] < board.side and board.get(*q) == colour
               and len(_chain(board, q)[1]) == 1
               for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)))


def collapses(game, horizon=12):
    """[(move index, colour 'b'/'w', stones)] of the escapes into two liberties that were
    captured within `horizon` moves, in an sgfmill game."""
    board = boards.Board(game.get_size())
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    found = []
    for i, (colour, point) in enumerate(moves):
        if colour is None or point is None:
            continue
        escape = _saves_from_atari(board, colour, point)
        board.play(point[0], point[1], colour)
        if not escape:
            continue
        stones, libs = _chain(board, point)
        if len(libs) != 2:
            continue
        later = board.copy()
        for colour2, point2 in moves[i + 1:i + 1 + horizon]:
            if colour2 is not None and point2 is not None:
                later.play(point2[0], point2[1], colour2)
            if later.get(*point) is None:
                found.append((i, colour, len(stones)))
                break
    return found


def read_as_caught(game, found):
    """For each (move index, colour, stones) of `collapses(game)`: does the tree's ladder
    reader call that escape caught in the position before it?"""
    size = game.get_size()
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    wanted = {i for i, _, _ in found}
    board, scratch = new_board(size), new_board(size)
    caught = {}
    for i, (colour, where) in enumerate(moves[:max(wanted, default=-1) + 1]):
        if colour is None or where is None:
            continue
        c = BLACK if colour == "b" else WHITE
        p = point(size, *where)
        if not is_legal(board, p, c):
            raise ValueError(f"move {i + 1} is illegal")
        if i in wanted:
            caught[i] = bool(escape_is_caught(board, p, c, scratch))
        play(board, p, c)
    return [caught[i] for i, _, _ in found]


def review(folder, player, horizon=12, labels=None, blunder=0.2):
    """Per game and in all: `player`'s collapses and its opponent's ([move index, stones,
    read as caught by the tree's ladder reader] each), and the game's result for `player`.
    Games whose SGF cannot be read are listed under "unreadable".  With `labels` (a labelled
    position file of the games' positions) the report's "swings" entry says where the games
    were decided (engine/lab/swings.py)."""
    folder = Path(folder)
    games, unreadable, played = [], [], []
    for line in (folder / "results.jsonl").read_text().splitlines():
        result = json.loads(line)
        path = folder / "games" / f"game-{int(result['game']):04d}.sgf"
        try:
            game = sgf.Sgf_game.from_bytes(path.read_bytes())
            found = collapses(game, horizon)
            read = read_as_caught(game, found)
        except (OSError, ValueError) as err:
            unreadable.append(f"{path}: {err}")
            continue
        if player not in (result["black"], result["white"]):
            raise ValueError(f"{player!r} did not play game {result['game']}")
        mine = "b" if result["black"] == player else "w"
        score = result["a_wins"] if result.get("a_colour") == mine.upper() else 1 - result["a_wins"]
        escapes = [(c == mine, [i, s, r]) for (i, c, s), r in zip(found, read)]
        colours = [node.get_move()[0] for node in game.get_main_sequence()[1:]]
        played.append((path.stem, mine, score, colours))
        games.append({"game": result["game"], "score": score,
                      "own": [e for is_mine, e in escapes if is_mine],
                      "opponent": [e for is_mine, e in escapes if not is_mine]})
    hit = [g for g in games if g["own"]]
    own = [e for g in games for e in g["own"]]
    report = {"folder": str(folder), "player": player, "horizon": horizon, "games": len(games),
              "losses": sum(g["score"] == 0 for g in games),
              "games_with_collapse": len(hit),
              "losses_with_collapse": sum(g["score"] == 0 for g in hit),
              "opponent_games_with_collapse": sum(bool(g["opponent"]) for g in games),
              "own_escapes": len(own), "own_escapes_read_caught": sum(e[2] for e in own),
              "per_game": games, "unreadable": unreadable}
    if labels is not None:
        report["swings"] = swings(played, game_values(labels), blunder)
    return report
