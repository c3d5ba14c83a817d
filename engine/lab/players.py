"""Players for tournaments and tuning, named by a spec string, all speaking GTP to match.play_game.

Specs (`NAME=SPEC` gives a player a name of its own):

- `policy:FILE`  plays by sampling the playout policy directly (FILE: a weight file, or
  `uniform` / `handcrafted`);
- `mc1:FILE[:N]` the one-ply Monte-Carlo player of Silver & Tesauro: N (100) playouts of the
  policy after each candidate move, the move with the most wins (ties drawn at random);
- `mcts:FILE[:PLAYOUTS]` the full engine (engine.play.player.Engine; 1000 playouts per move);
- `gnugo[:LEVEL]` GnuGo 3.8 (level 10) over GTP, Chinese rules;
- `fuego[:GAMES|:SECONDSs]` Fuego 1.1 (on PATH or at $SIMBAL_FUEGO) on one thread with its
  opening book: GAMES playouts a move (`fuego:5000`), or SECONDS a move (`fuego:1s`), or with
  neither its own time management under the match's clock (engine/gtp/fuego.py);
- anything else: the command line of a GTP engine.

The first three run in-process: `InProcessClient` and `EngineClient` answer the GTP subset that
play_game sends (boardsize, clear_board, komi, play, genmove, final_status_list, time
commands) with the same send / ask / close methods as match.GtpClient, so one game loop
serves every kind of player and a 5x5 game costs milliseconds rather than a process start.
`new_game(seed)` makes an in-process player's randomness depend on the game alone, so a
resumed tournament replays nothing differently.

Candidates of the policy players are the policy's own: legal moves that do not fill one's own
single-point eye; they pass only when there is none, so their games end with dead stones
captured and `final_status_list dead` is empty.  Positional superko is checked on real moves
(a superko move drawn is struck out and the draw repeated).
"""
import os
import re
import shlex
import zlib
from pathlib import Path

import numpy as np
from numba import njit

from engine.core.board import BLACK, PASS, WHITE, copy_board, copy_into, play
from engine.core.coords import format_vertex, parse_colour, parse_vertex
from engine.core.rng import make_rng, rand_float
from engine.gtp import fuego
from engine.gtp.client import GNUGO_PROGRAM, EngineFailure, GtpAsker, GtpClient
from engine.gtp.client import gnugo_command as gnugo_line
from engine.play.game import Game, IllegalMove
from policies import load_policy, policy_probabilities
from policies.kernel import playout

GNUGO = os.environ.get("SIMBAL_GNUGO", GNUGO_PROGRAM)
MC1_SIMULATIONS = 100
MCTS_PLAYOUTS = 1000


def gnugo_command(level=10):
    """The `gnugo[:LEVEL]` player's command line ($SIMBAL_GNUGO picks the program)."""
    return gnugo_line(level, GNUGO)


# -- compiled move choice -----------------------------------------------------------------------

@njit(cache=True, nogil=True)
def draw_point(probs, rng):
    """A point drawn with probability proportional to probs[p] (PASS if all are 0)."""
    total = probs.sum()
    if total <= 0.0:
        return PASS
    u = rand_float(rng) * total
    acc = 0.0
    last = PASS
    for p in range(probs.shape[0]):
        if probs[p] > 0.0:
            acc += probs[p]
            last = p
            if u < acc:
                return p
    return last


@njit(cache=True, nogil=True)
def mc1_choice(b, c, moves, sims, komi, rng, pol):
    """Index into `moves` of the move whose `sims` playouts (c plays it, then the policy plays
    both sides) win most often for c; ties broken uniformly."""
    work = copy_board(b)
    owner = np.zeros(b.color.shape[0], np.int8)
    opp = BLACK + WHITE - c
    best, best_wins, ties = 0, -1.0, 0
    for i in range(moves.shape[0]):
        wins = 0.0
        for _ in range(sims):
            copy_into(work, b)
            play(work, moves[i], c)
            margin = playout(work, opp, rng, owner, pol) - komi
            if margin == 0.0:
                wins += 0.5
            elif (margin > 0.0) == (c == BLACK):
                wins += 1.0
        if wins > best_wins:
            best, best_wins, ties = i, wins, 1
        elif wins == best_wins:
            ties += 1
            if rand_float(rng) * ties < 1.0:   # reservoir draw among equal counts
                best = i
    return best


# -- GTP-speaking players -------------------------------------------------------------------------

class InProcessClient(GtpAsker):
    """Base of the in-process players: keeps the game, answers play_game's GTP commands;
    subclasses choose moves in `choose(colour)`."""

    def __init__(self, size=9, komi=7.5):
        self.game = Game(size, komi)
        self.rng = make_rng(0)

    def new_game(self, seed):
        self.rng = make_rng(seed)

    def ask(self, command, timeout=None):
        words = command.split()
        name, args = words[0].lower(), words[1:]
        g = self.game
        try:
            if name == "boardsize":
                g.reset(int(args[0]))
            elif name == "clear_board":
                g.reset()
            elif name == "komi":
                g.komi = float(args[0])
            elif name == "play":
                g.play(parse_colour(args[0]), parse_vertex(args[1], g.size))
            elif name == "genmove":
                colour = parse_colour(args[0])
                p = self.choose(colour)
                g.play(colour, p)
                return True, format_vertex(p, g.size)
            elif name == "final_status_list":
                return True, ""     # games are played out: nothing dead is left on the board
            elif name not in ("time_settings", "time_left", "quit"):
                return False, "unknown command"
        except (IndexError, ValueError, IllegalMove) as e:
            return False, str(e) or "syntax error"
        return True, ""

    def close(self):
        pass

    def candidates(self, colour):
        return self.game.candidates(colour)


class PolicyPlayer(InProcessClient):
    """Plays the playout policy's own move distribution."""

    def __init__(self, spec, size=9, komi=7.5):
        super().__init__(size, komi)
        self.spec = spec
        self._policy = {}

    def policy(self):
        size = self.game.size
        if size not in self._policy:
            self._policy[size] = load_policy(self.spec, size)
        return self._policy[size]

    def choose(self, colour):
        g = self.game
        probs = policy_probabilities(g.board, colour, self.policy())
        while True:
            p = int(draw_point(probs, self.rng))
            if p == PASS or g.is_legal(colour, p):
                return p
            probs[p] = 0.0   # superko: strike it out and draw again


class MC1Player(PolicyPlayer):
    """One-ply Monte-Carlo search with the policy (Silver & Tesauro's evaluation player)."""

    def __init__(self, spec, simulations=MC1_SIMULATIONS, size=9, komi=7.5):
        super().__init__(spec, size, komi)
        self.simulations = simulations

    def choose(self, colour):
        moves = self.candidates(colour)
        if not moves:
            return PASS
        g = self.game
        i = mc1_choice(g.board, colour, np.array(moves, np.int64), self.simulations, g.komi,
                       self.rng, self.policy())
        return moves[int(i)]


class EngineClient(GtpAsker):
    """The full engine (engine.play.player.Engine behind engine.gtp.server.GtpServer) in-process; every
    game starts from a fresh Engine seeded by `new_game`, with the given search parameters."""

    def __init__(self, weights, playouts=MCTS_PLAYOUTS, size=9, komi=7.5, params=None,
                 resign=0.1, max_nodes=None):
        self.weights, self.playouts, self.size, self.komi = weights, playouts, size, komi
        self.params = dict(params or {})
        self.resign = resign
        # Enough nodes for one move's tree with room for reuse, not the GTP engine's million.
        self.max_nodes = max_nodes or max(20_000, 4 * playouts)
        self.server = None
        self.new_game(0)

    def new_game(self, seed):
        from engine.gtp.server import GtpServer
        from engine.play.player import Engine, Settings

        size = self.server.game.size if self.server else self.size
        komi = self.server.game.komi if self.server else self.komi
        engine = Engine(size, komi, Settings(playouts=self.playouts, seed=seed, resign=self.resign,
                                             max_nodes=self.max_nodes),
                        weights=None if self.weights in (None, "default") else self.weights)
        for name, value in self.params.items():
            engine.set_param(name, value)
        self.server = GtpServer(engine)

    def ask(self, command, timeout=None):
        text = self.server.handle(command) or "= \n\n"
        ok = text.startswith("=")
        return ok, text[1:].strip()

    def close(self):
        pass


# -- specs ------------------------------------------------------------------------------------------

_NAME = re.compile(r"^([A-Za-z0-9_.+-]+)=(.+)$")


def split_name(text):
    """(name, spec) of `NAME=SPEC`, or (a default name, spec)."""
    m = _NAME.match(text)
    if m and " " not in m.group(1):
        return m.group(1), m.group(2)
    return default_name(text), text


def default_name(spec):
    kind, _, rest = spec.partition(":")
    if kind in ("policy", "mc1", "mcts") and rest:
        parts = rest.split(":")
        parts[0] = Path(parts[0]).stem if parts[0] not in ("uniform", "handcrafted") else parts[0]
        return ":".join([kind] + parts)
    if kind == "gnugo":
        return f"gnugo:{rest or 10}"
    if kind == "fuego":
        return f"fuego:{rest}" if rest else "fuego"
    return Path(shlex.split(spec)[0]).name if spec.strip() else spec


def _file_and_number(rest, default):
    head, _, tail = rest.rpartition(":")
    if head and tail.isdigit():
        return head, int(tail)
    return rest, default


def check_spec(spec, size):
    """Raise ValueError (naming the spec and the problem) for a spec that cannot make a player:
    a missing or corrupt weight file, a bad number; GTP commands are checked when started."""
    kind, _, rest = spec.partition(":")
    if kind in ("policy", "mc1", "mcts"):
        if not rest:
            raise ValueError(f"{spec!r}: expected {kind}:FILE")
        path, number = _file_and_number(rest, 1) if kind != "policy" else (rest, 1)
        if number < 1:
            raise ValueError(f"{spec!r}: the number must be positive")
        if not (kind == "mcts" and path == "default"):
            try:
                load_policy(path, size)
            except ValueError as e:
                raise ValueError(f"{spec!r}: {e}") from None
    elif kind == "gnugo" and rest and not rest.isdigit():
        raise ValueError(f"{spec!r}: expected gnugo or gnugo:LEVEL")
    elif kind == "fuego":
        fuego_budget(spec)
        try:
            fuego.find_program()
        except EngineFailure as e:
            raise ValueError(f"{spec!r}: {e}") from None


def fuego_budget(spec):
    """{"games": N} or {"seconds": S} or {} of a `fuego[:GAMES|:SECONDSs]` spec."""
    rest = spec.partition(":")[2]
    try:
        if not rest:
            return {}
        if rest.endswith("s"):
            seconds = float(rest[:-1])
            if seconds > 0:
                return {"seconds": seconds}
        elif int(rest) > 0:
            return {"games": int(rest)}
    except ValueError:
        pass
    raise ValueError(f"{spec!r}: expected fuego, fuego:GAMES or fuego:SECONDSs")


def make_player(spec, size=9, komi=7.5):
    """A GTP-speaking player (see the module docstring) for `spec`."""
    kind, _, rest = spec.partition(":")
    if kind == "policy":
        return PolicyPlayer(rest, size, komi)
    if kind == "mc1":
        path, sims = _file_and_number(rest, MC1_SIMULATIONS)
        return MC1Player(path, sims, size, komi)
    if kind == "mcts":
        path, playouts = _file_and_number(rest, MCTS_PLAYOUTS)
        return EngineClient(path, playouts, size, komi)
    return GtpClient(gtp_command(spec))


def gtp_command(spec):
    """The command line of a player run as a GTP subprocess: `gnugo[:LEVEL]`, `fuego[...]`,
    or the spec itself (any GTP command line)."""
    kind, _, rest = spec.partition(":")
    if kind == "gnugo":
        return gnugo_command(int(rest) if rest else 10)
    if kind == "fuego":
        return fuego.player_command(**fuego_budget(spec))
    return spec


def game_seed(base, *keys):
    """A seed determined by `base` and the game's identity (stable across runs and processes)."""
    return (base * 1_000_003 + zlib.crc32(repr(keys).encode())) % (1 << 62)
