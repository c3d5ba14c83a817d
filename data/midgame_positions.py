"""Middle-game positions from a match's game records, for `make bench`'s game-position rates
(engine/lab/bench.py `midgame_rate`): the position before ply k of each of the first N games,
for each k given.

usage: python data/midgame_positions.py MATCH_FOLDER GAMES PLY... --out FILE
(made data/9x9-midgame/positions.jsonl from session 40's match of Simbal against Fuego 1.1 at
1 s a move, runs/s39/time-s40: 15 games, plies 20 and 30; BENCHMARKS.md, session 41)
"""
import sys
from pathlib import Path

from sgfmill import sgf

from policies.data.files import Position, write_positions

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def vertex(move, size):
    return "pass" if move is None else f"{COLUMNS[move[1]]}{move[0] + 1}"


def main(argv):
    out = Path(argv[argv.index("--out") + 1])
    args = argv[:argv.index("--out")]
    folder, games, plies = Path(args[0]), int(args[1]), [int(k) for k in args[2:]]
    positions = []
    for path in sorted((folder / "games").glob("*.sgf"))[:games]:
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
        size = game.get_size()
        moves = [node.get_move() for node in game.get_main_sequence()[1:]]
        for ply in plies:
            if ply < len(moves):
                played = [(c.upper(), vertex(m, size)) for c, m in moves[:ply]]
                positions.append(Position(f"{path.stem}-{ply}", size, game.get_komi(), played,
                                          moves[ply][0].upper()))
    write_positions(out, positions, {"command": "python data/midgame_positions.py "
                                     + " ".join(argv), "source": str(folder)})
    print(f"{len(positions)} positions -> {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
