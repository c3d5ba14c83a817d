"""Making position sets: from uniformly random games, from self-play, from SGF records; and
splitting a set into train and test parts disjoint by game.

Silver & Tesauro's protocol: one position per game, at a uniformly random move of a game
played uniformly at random (the playouts' uniform policy: legal moves that do not fill one's
own eye, pass only when there is none).  Every game gets its own seed derived from the run's
seed and its number, so a set is reproducible and does not depend on the number of workers.
Each position records the game it comes from ("game"), which `split` keeps on one side.
"""
import random
from pathlib import Path

import numpy as np

from engine.core.board import M_MOVES, PASS, new_board
from engine.core.rng import make_rng
from engine.parallel.cluster import InProcess
from engine.play.game import Game, IllegalMove
from engine.play.sgf import SgfError, load_into, read
from policies.data.files import LETTER, Position, read_meta, read_positions, vertex, write_positions
from policies.kernel import NO_REPLIES, playout_moves, uniform_policy
from policies.playout import move_cap


def _game_seed(seed, game):
    return (seed * 1_000_003 + game * 7919 + 12345) % (1 << 63)


def _positions(gid, size, komi, moves, picks, source):
    """The positions `t` in `picks` (ascending; moves[:t] played, moves[t][0] to play) of game
    `gid`, replaying the game once.  Positions after the end of the game are left out, and so
    is everything from a move that breaks positional superko on (the playouts only know simple
    ko)."""
    game, out, done = Game(size, komi), [], 0
    for t in picks:
        try:
            for colour, p in moves[done:t]:
                game.play(colour, p)
        except IllegalMove:
            break
        done = t
        if game.last_two_passed():
            break
        out.append(Position(f"{gid}:{t}" if len(picks) > 1 else gid, size, komi,
                            [(LETTER[c], vertex(p, size)) for c, p in moves[:t]],
                            LETTER[moves[t][0]],
                            extra={"game": gid, "move_number": t, "source": source}))
    return out


def random_game(size, seed):
    """The moves [(colour, point)] of one uniformly random game from the empty board."""
    b = new_board(size)
    record = np.zeros(move_cap(b), np.int32)
    playout_moves(b, 1, make_rng(seed), np.zeros(b.color.shape[0], np.int8), uniform_policy(),
                  record, NO_REPLIES)
    n = int(b.meta[M_MOVES])
    return [(1 + t % 2, int(record[t])) for t in range(n)]


def random_positions(size, komi, games, seed, progress=None):
    """One position per uniformly random game, at a uniformly random move (never after the
    end).  Ids "r<seed>-<game>"; a game whose drawn position breaks superko is skipped (counted
    in the returned dict)."""
    out, skipped = [], 0
    if progress:
        progress(0, games)
    for g in range(games):
        s = _game_seed(seed, g)
        moves = random_game(size, s)
        t = random.Random(s).randrange(len(moves))
        pos = _positions(f"r{seed}-{g}", size, komi, moves, [t], "random")
        out.extend(pos)
        skipped += not pos
        if progress:
            progress(g + 1, games)
    return out, {"games": games, "positions": len(out), "skipped_superko": skipped}


def _selfplay_game(g, size, komi, seed, playouts, weights):
    """One work unit: self-play game `g` and its drawn position (none if it breaks superko)."""
    from engine.play.player import Engine, Settings
    s = _game_seed(seed, g)
    engine = Engine(size, komi, Settings(playouts=playouts, seed=s, threads=1, resign=0.0,
                                         max_nodes=8 * playouts + 1024), weights=weights)
    moves, game = [], engine.game
    while not game.last_two_passed() and len(moves) < 3 * size * size:
        colour = game.to_play
        p = engine.genmove(colour)
        p = PASS if p is None else p
        game.play(colour, p)
        moves.append((colour, p))
    t = random.Random(s).randrange(len(moves))
    return _positions(f"s{seed}-{g}", size, komi, moves, [t], "selfplay")


def selfplay_positions(size, komi, games, seed, playouts, weights, cluster=None, progress=None):
    """One position per game of the engine against itself (`playouts` per move, `weights`
    policy), at a uniformly random move.  Games are work units on `cluster` (engine.parallel.cluster;
    default this process); each game's seed depends only on `seed` and its number."""
    results = [None] * games
    if progress:
        progress(0, games)
    for done, (g, pos) in enumerate((cluster or InProcess()).run(
            _selfplay_game, range(games), size, komi, seed, playouts, weights), 1):
        results[g] = pos
        if progress:
            progress(done, games)
    out = [p for pos in results for p in pos]
    return out, {"games": games, "positions": len(out), "skipped": games - len(out)}


def _result_black(record):
    """1.0 if the SGF record's result (RE) is a win for Black, 0.0 for White, None when it
    names no winner (no RE, a draw, a void game)."""
    winner = record.get_winner()
    return None if winner is None else 1.0 if winner == "b" else 0.0


def sgf_positions(folder, size=None, per_game=0, seed=0, komi=7.5, report=print, player=None,
                  after=None):
    """Positions with expert moves from every .sgf under `folder`: each move of a game's main
    line is the expert move of the position before it (`per_game` > 0: that many of them, drawn
    at random; `player`: only the moves of the player so named in PB or PW, e.g. an engine's
    moves from match records; `after`: only the positions after that many of the record's moves,
    e.g. (20, 30)).  Set-up stones become moves (Black's, then White's) so that the
    file replays from the empty board.  A record whose result names a winner gives each of its
    positions `result_black` (1.0 or 0.0: `simbal eval mse --target result`).  Broken files,
    other board sizes, unusable set-ups and games without `player` are reported through
    `report` and skipped."""
    files = sorted(Path(folder).rglob("*.sgf"))
    out, skipped = [], []
    rng = random.Random(seed)
    for path in files:
        game = Game(size or 19, komi)
        try:
            load_into(game, str(path))
        except SgfError as e:
            skipped.append(str(path))
            report(f"skipped {e}")
            continue
        if size is not None and game.size != size:
            skipped.append(str(path))
            report(f"skipped {path}: board size {game.size}, not {size}")
            continue
        record = read(str(path))   # its players and result (load_into keeps neither)
        result = _result_black(record)
        colours = (1, 2)
        if player is not None:
            colours = _colours_of(record, player)
            if not colours:
                skipped.append(str(path))
                report(f"skipped {path}: no player named {player}")
                continue
        start = game.initial_board
        setup = [(c, int(p)) for c in (1, 2) for p in np.flatnonzero(start.color == c)]
        moves = setup + list(game.moves)
        gid = str(path.relative_to(folder).with_suffix(""))
        picks = [t for t in range(len(setup), len(moves)) if moves[t][0] in colours
                 and (after is None or t - len(setup) in after)]
        if per_game and len(picks) > per_game:
            picks = sorted(rng.sample(picks, per_game))
        made = _positions(gid, game.size, game.komi, moves, picks, "sgf")
        for pos in made:
            t = pos.extra["move_number"]
            pos.id = f"{gid}:{t - len(setup) + 1}"   # the move's number in the record
            pos.expert = vertex(moves[t][1], game.size)
            if result is not None:
                pos.extra["result_black"] = result
        out.extend(made)
        if not made:
            skipped.append(str(path))
            report(f"skipped {path}: no position before the end of the game")
    return out, {"files": len(files), "skipped_files": len(skipped), "positions": len(out)}


def _colours_of(record, player):
    """The colours (BLACK 1, WHITE 2) that the player named `player` has in an SGF record."""
    root = record.get_root()
    return tuple(c for c, prop in ((1, "PB"), (2, "PW"))
                 if root.has_property(prop) and root.get(prop) == player)


def split(positions, test, seed):
    """(train, test): whole games (the "game" key, else the id) drawn at random into the test
    part until it holds at least `test` positions; the rest is the training part."""
    by_game = {}
    for pos in positions:
        by_game.setdefault(str(pos.extra.get("game", pos.id)), []).append(pos)
    games = sorted(by_game)
    random.Random(seed).shuffle(games)
    test_games, n = set(), 0
    for g in games:
        if n >= test:
            break
        test_games.add(g)
        n += len(by_game[g])
    train_part = [p for p in positions if str(p.extra.get("game", p.id)) not in test_games]
    test_part = [p for p in positions if str(p.extra.get("game", p.id)) in test_games]
    return train_part, test_part


def random_file(out, size, komi, games, seed, source="random", playouts=100, weights="uniform",
                cluster=None, command="", progress=None):
    """`simbal data random`: a position set from random games (or self-play) written to `out`
    with its record; returns the counts."""
    if source == "random":
        positions, counts = random_positions(size, komi, games, seed, progress)
        settings = {"source": "random", "policy": "uniform (no own-eye filling)"}
    else:
        positions, counts = selfplay_positions(size, komi, games, seed, playouts, weights,
                                               cluster, progress)
        settings = {"source": "selfplay", "playouts": playouts, "weights": weights}
    write_positions(out, positions, {
        "command": command, "step": "positions", "size": size, "komi": komi, "seed": seed,
        "settings": dict(settings, protocol="one position per game at a uniformly random move"),
        "counts": counts})
    return counts


def sgf_file(folder, out, size=None, per_game=0, seed=0, komi=7.5, command="", report=print,
             player=None, after=None):
    """`simbal data sgf`: positions and expert moves from a folder of SGF records."""
    positions, counts = sgf_positions(folder, size, per_game, seed, komi, report, player, after)
    write_positions(out, positions, {
        "command": command, "step": "positions", "settings": {
            "source": "sgf", "folder": str(folder), "size": size, "per_game": per_game,
            "player": player, "after": list(after) if after else None},
        "seed": seed, "counts": counts})
    return counts


def split_file(in_path, test, seed, train_out, test_out, command=""):
    """`simbal data split`: train and test files disjoint by game; returns their sizes."""
    positions = read_positions(in_path)
    meta = read_meta(in_path)
    train_part, test_part = split(positions, test, seed)
    for path, part, name in ((train_out, train_part, "train"), (test_out, test_part, "test")):
        write_positions(path, part, {
            "command": command, "step": f"split ({name})", "seed": seed, "test": test,
            "input": {"path": str(in_path), "made_by": meta.get("made_by")}})
    return {"train": len(train_part), "test": len(test_part)}
