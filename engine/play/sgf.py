"""SGF game records through sgfmill: load a position into a `Game`, write a game out.

Used by GTP `loadsgf` / `printsgf`, by the match runner to keep each game, and
later by the data tools.  Anything wrong with a file (unreadable, not SGF,
illegal moves, unsupported size) is reported as `SgfError` with the file's
name and the reason, never as a traceback.
"""
from sgfmill import sgf

from engine.core.board import BLACK, MAX_SIZE, PASS, WHITE
from engine.core.coords import point, row_col
from engine.play.game import Game, IllegalMove, setup_board

_COLOUR = {"b": BLACK, "w": WHITE}
_LETTER = {BLACK: "b", WHITE: "w"}


class SgfError(ValueError):
    pass


def read(path):
    """Parse an SGF file; SgfError if it cannot be read or parsed."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SgfError(f"{path}: {e.strerror or e}") from None
    try:
        return sgf.Sgf_game.from_bytes(data)
    except ValueError as e:
        raise SgfError(f"{path}: not a valid SGF file ({e})") from None


def load_into(game, path, move_number=None):
    """Replace `game` by the game in the SGF file at `path`, up to (not including) move
    `move_number` (1-based; None: all moves).  Returns the colour to play next."""
    record = read(path)
    size = record.get_size()
    if not 2 <= size <= MAX_SIZE:
        raise SgfError(f"{path}: board size {size} is not supported")
    root = record.get_root()
    try:
        komi = record.get_komi()
    except ValueError:
        komi = game.komi
    try:
        black, white, empty = root.get_setup_stones()
        moves = []
        for node in record.get_main_sequence():
            colour, move = node.get_move()
            if colour is not None:
                moves.append((_COLOUR[colour], PASS if move is None else point(size, *move)))
    except ValueError as e:
        raise SgfError(f"{path}: {e}") from None
    try:
        board = setup_board(size, [point(size, *m) for m in black], [point(size, *m) for m in white])
    except ValueError as e:
        raise SgfError(f"{path}: bad setup stones ({e})") from None
    fresh = Game(size, komi, game.rules)   # the rules stay the controller's
    fresh.reset(board=board)
    if black and not white and root.has_property("HA"):
        fresh.handicap = [point(size, *m) for m in black]
        fresh.to_play = WHITE
    if root.has_property("PL"):
        fresh.to_play = _COLOUR.get(root.get("PL"), fresh.to_play)
    limit = len(moves) if move_number is None else max(0, min(len(moves), move_number - 1))
    for i, (colour, p) in enumerate(moves[:limit]):
        try:
            fresh.play(colour, p)
        except IllegalMove as e:
            raise SgfError(f"{path}: move {i + 1} is illegal ({e})") from None
    game.__dict__.update(fresh.__dict__)
    if limit < len(moves):
        game.to_play = moves[limit][0]
    return game.to_play


def to_sgf(game, result=None, black_name=None, white_name=None, comment=None):
    """The game so far as SGF bytes (setup stones, moves, komi, result, players)."""
    size = game.size
    record = sgf.Sgf_game(size=size)
    root = record.get_root()
    root.set("KM", game.komi)
    root.set("RU", "Chinese")
    if result is not None:
        root.set("RE", result)
    if black_name:
        root.set("PB", black_name)
    if white_name:
        root.set("PW", white_name)
    if comment:
        root.set("C", comment)
    start = game.initial_board
    setup = {c: [row_col(size, p) for p in range(start.color.shape[0]) if start.color[p] == c]
             for c in (BLACK, WHITE)}
    if setup[BLACK] or setup[WHITE]:
        root.set_setup_stones(setup[BLACK], setup[WHITE])
    if game.handicap:
        root.set("HA", len(game.handicap))
    first = game.moves[0][0] if game.moves else game.to_play
    root.set("PL", _LETTER[first])
    for colour, p in game.moves:
        record.extend_main_sequence().set_move(_LETTER[colour], None if p == PASS else row_col(size, p))
    return record.serialise()
