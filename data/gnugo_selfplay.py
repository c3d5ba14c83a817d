"""GnuGo self-play records: the expert games the 13x13 and 19x19 tree priors learn from.

One GnuGo process plays both colours of each game (its `--seed` varies the games: GnuGo picks
at random among moves it values alike), and the game is written as an SGF whose players are
named `gnugoLEVEL`, the name `simbal data sgf --player` selects.  Resumable: a game whose file
exists is skipped.  Usage (from the repository):

    .venv/bin/python data/gnugo_selfplay.py --size 19 --games 40 --first-seed 1 --out DIR
"""
import argparse
import os
import subprocess
import sys

from sgfmill import sgf


def gtp(proc, line):
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    answer = []
    while True:
        text = proc.stdout.readline()
        if not text:
            raise RuntimeError(f"gnugo died after {line!r}")
        if text.strip() == "" and answer:
            break
        if text.strip():
            answer.append(text.strip())
    first = answer[0]
    if not first.startswith("="):
        raise RuntimeError(f"gnugo refused {line!r}: {first}")
    return first[1:].strip()


def vertex_to_point(vertex, size):
    if vertex.lower() == "pass":
        return None
    letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    return int(vertex[1:]) - 1, letters.index(vertex[0].upper())


def play_game(size, komi, level, seed, gnugo):
    proc = subprocess.Popen([gnugo, "--mode", "gtp", "--level", str(level), "--chinese-rules",
                             "--seed", str(seed)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        gtp(proc, f"boardsize {size}")
        gtp(proc, "clear_board")
        gtp(proc, f"komi {komi}")
        moves, passes, colour = [], 0, "b"
        while passes < 2 and len(moves) < 3 * size * size:
            vertex = gtp(proc, f"genmove {colour}")
            if vertex.lower() == "resign":
                break
            moves.append((colour, vertex_to_point(vertex, size)))
            passes = passes + 1 if vertex.lower() == "pass" else 0
            colour = "w" if colour == "b" else "b"
        result = gtp(proc, "final_score")
        gtp(proc, "quit")
    finally:
        proc.kill()
        proc.wait()
    game = sgf.Sgf_game(size=size)
    root = game.get_root()
    root.set("KM", komi)
    root.set("PB", f"gnugo{level}")
    root.set("PW", f"gnugo{level}")
    root.set("RU", "Chinese")
    root.set("RE", result)
    root.set("GC", f"GNU Go self-play, --level {level} --seed {seed}")
    for colour, point in moves:
        game.extend_main_sequence().set_move(colour, point)
    return game.serialise()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--level", type=int, default=10)
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--gnugo", default="/usr/games/gnugo")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for seed in range(args.first_seed, args.first_seed + args.games):
        path = os.path.join(args.out, f"gnugo{args.level}-{args.size}x{args.size}-seed{seed}.sgf")
        if os.path.exists(path):
            continue
        data = play_game(args.size, args.komi, args.level, seed, args.gnugo)
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)
        print(path, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
