"""The GTP v2 front end: line handling, the command table, and error answers.

This module knows the protocol (draft 2 of GTP version 2, plus the KGS, GoGui
and Simbal extensions) and Go only as far as vertex and colour syntax; every
decision is the player's (engine/player.py) and every rule the game's
(engine/game.py).  A command either answers `= ...` or `? ...`: malformed
arguments answer `? syntax error` and leave the game untouched, rule
violations use the spec's strings (`illegal move`, `cannot undo`, ...), and an
unexpected exception answers `? internal error` without stopping the engine.
Only protocol text is written to the output stream.
"""
import math
import queue
import re
import threading
import traceback
from importlib.metadata import PackageNotFoundError, version as package_version

import numpy as np

from policies import policy_probabilities

from engine.core.board import BLACK, PASS, WHITE
from engine.core.coords import COLUMNS, format_vertex, parse_vertex, point
from engine.play.game import IllegalMove
from engine.play.player import score_text
from engine.play.sgf import SgfError, load_into, to_sgf


class GtpError(Exception):
    """Answer `? <message>` to the current command."""


class Stream:
    """A command whose answer streams (analysis): `run(emit, interrupted)` emits report lines
    until `interrupted()` and returns the closing line ('' for none)."""

    def __init__(self, run):
        self.run = run


def _version():
    try:
        return package_version("simbal")
    except PackageNotFoundError:
        return "0+unknown"


def parse_colour(text):
    try:
        return {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}[text.lower()]
    except KeyError:
        raise GtpError("syntax error") from None


_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def is_gtp_int(text):
    """GTP integers are plain ASCII decimals (Python's int() also takes '1_3' and other scripts)."""
    return _INT.fullmatch(text) is not None


def parse_int(text, low=None):
    if not is_gtp_int(text):
        raise GtpError("syntax error")
    n = int(text)
    if low is not None and n < low:
        raise GtpError("syntax error")
    return n


def parse_float(text):
    if _FLOAT.fullmatch(text) is None:
        raise GtpError("syntax error")
    x = float(text)
    if not np.isfinite(x):
        raise GtpError("syntax error")
    return x


def expect_args(args, low, high=None):
    high = low if high is None else high
    if not low <= len(args) <= high:
        raise GtpError("syntax error")


def handicap_points(size, n):
    """The GTP spec's fixed handicap placement for `n` stones, or None if it has none."""
    if size < 7 or n < 2 or n > (4 if size == 7 or size % 2 == 0 else 9):
        return None
    low = 3 if size >= 13 else 2
    high, mid = size - 1 - low, size // 2
    layout = [(low, low), (high, high), (high, low), (low, high)]  # (row, col)
    if n >= 6:
        layout += [(mid, low), (mid, high)]
    if n >= 8:
        layout += [(low, mid), (high, mid)]
    if n % 2 == 1 and n >= 5:
        layout.append((mid, mid))
    return [point(size, r, c) for r, c in layout[:n]]


class GtpServer:
    """Answers GTP lines for one `Engine`."""

    def __init__(self, engine, name="Simbal", log=None):
        self.engine = engine
        self.name = name
        self.log = log or (lambda *a: None)
        self.quitting = False
        self.write = None                 # set by `serve`: streaming commands write through it
        self.interrupted = None           # set by `serve`: is there new input?
        self.pondering_after = False      # ponder once the current answer is out
        self.commands = {}
        for attr in dir(self):
            if attr.startswith("cmd_"):
                self.commands[attr[4:].replace("__", "-")] = getattr(self, attr)

    @property
    def game(self):
        return self.engine.game

    # -- protocol --------------------------------------------------------------------------

    @staticmethod
    def preprocess(line):
        """The spec's line clean-up: drop control characters (keeping tabs, as spaces) and
        comments; returns the stripped text ('' for a line that gets no answer)."""
        line = line.replace("\t", " ")
        line = "".join(ch for ch in line if ch >= " " or ch == "\n")
        return line.split("#", 1)[0].strip()

    def handle(self, line):
        """One input line to its full response text ('=...' or '?...' and the blank line),
        or None when the line gets no response."""
        text = self.preprocess(line)
        if not text:
            return None
        words = text.split()
        ident = ""
        if is_gtp_int(words[0]):
            ident = words.pop(0)
            if not words:
                return f"?{ident} syntax error\n\n"
        name, args = words[0].lower(), words[1:]
        handler = self.commands.get(name)
        try:
            if handler is None:
                raise GtpError("unknown command")
            result = handler(args)
            if isinstance(result, Stream):
                return self._stream(ident, result)
            ok = True
        except GtpError as e:
            result, ok = str(e), False
        except Exception:  # the engine must survive anything a command throws
            self.log(traceback.format_exc())
            result, ok = "internal error", False
        result = result or ""
        # An empty line would end the response early; a leading newline (boards) is kept.
        body = "\n".join(line for line in result.splitlines() if line.strip())
        if result.startswith("\n"):
            body = "\n" + body
        return f"{'=' if ok else '?'}{ident} {body}".rstrip(" ") + "\n\n"

    def _stream(self, ident, stream):
        """Run a streaming command (analysis): `=` at once, report lines as they come, until
        new input arrives (or, with no input to watch, one report), then the closing line."""
        lines, reports = [], []
        emit = self.write or lines.append
        emit(f"={ident}\n")

        def report(text):
            reports.append(text)
            emit(text + "\n")

        # With no input stream to watch (in-process use), stop after the first report.
        interrupted = self.interrupted or (lambda: bool(reports))
        try:
            tail = stream.run(report, interrupted)
        except Exception:
            self.log(traceback.format_exc())
            tail = ""
        lines.append((tail + "\n" if tail else "") + "\n")
        return "".join(lines)

    def serve(self, instream, outstream):
        """Answer commands until `quit` or end of input.  A reader thread queues the input so
        that analysis and pondering can stop the moment a new command arrives."""
        pending = queue.Queue()

        def read():
            try:
                for line in instream:
                    pending.put(line)
            finally:
                pending.put(None)  # end of input, or an unreadable stream: stop either way

        threading.Thread(target=read, daemon=True).start()

        def write(text):
            outstream.write(text)
            outstream.flush()

        self.write = write
        self.interrupted = lambda: not pending.empty()
        while not self.quitting:
            line = pending.get()
            if line is None:
                break
            response = self.handle(line)
            if response is not None:
                write(response)
            if self.pondering_after and not self.quitting:
                self.pondering_after = False
                self.engine.ponder(self.interrupted)

    # -- administrative --------------------------------------------------------------------

    def cmd_protocol_version(self, args):
        return "2"

    def cmd_name(self, args):
        return self.name

    def cmd_version(self, args):
        return _version()

    def cmd_known_command(self, args):
        expect_args(args, 1)
        return "true" if args[0].lower() in self.commands else "false"

    def cmd_list_commands(self, args):
        return "\n".join(sorted(self.commands))

    def cmd_quit(self, args):
        self.quitting = True
        return ""

    # -- setup -----------------------------------------------------------------------------

    def cmd_boardsize(self, args):
        expect_args(args, 1)
        size = parse_int(args[0])
        if not 2 <= size <= 25:
            raise GtpError("unacceptable size")
        self.game.reset(size)
        return ""

    def cmd_clear_board(self, args):
        self.game.reset()
        return ""

    def cmd_komi(self, args):
        expect_args(args, 1)
        self.game.komi = parse_float(args[0])
        return ""

    def _vertex(self, text):
        """A vertex of this board; syntax error if malformed, illegal move if off the board."""
        t = text.upper()
        if t != "PASS" and (len(t) < 2 or t[0] not in COLUMNS or not is_gtp_int(t[1:])):
            raise GtpError("syntax error")
        try:
            return parse_vertex(text, self.game.size)
        except ValueError:
            raise GtpError("illegal move") from None

    def _handicap(self, points):
        try:
            self.game.place_handicap(points)
        except IllegalMove as e:
            raise GtpError(str(e)) from None
        return " ".join(format_vertex(p, self.game.size) for p in points)

    def cmd_fixed_handicap(self, args):
        expect_args(args, 1)
        points = handicap_points(self.game.size, parse_int(args[0]))
        if points is None:
            raise GtpError("invalid number of stones")
        return self._handicap(points)

    def cmd_place_free_handicap(self, args):
        expect_args(args, 1)
        n = parse_int(args[0])
        size = self.game.size
        if n < 2 or n >= size * size:
            raise GtpError("invalid number of stones")
        points = handicap_points(size, n)
        if points is None:
            # Beyond the fixed layouts: spread stones by taking every other point of the board.
            order = [point(size, r, c) for r in range(size) for c in range(size) if (r + c) % 2 == 0]
            order += [point(size, r, c) for r in range(size) for c in range(size) if (r + c) % 2 == 1]
            fixed = handicap_points(size, 9) or handicap_points(size, 4) or []
            points = (fixed + [p for p in order if p not in fixed])[:n]
        return self._handicap(points)

    def cmd_set_free_handicap(self, args):
        if len(args) < 2:
            raise GtpError("bad vertex list")
        try:
            points = [parse_vertex(a, self.game.size) for a in args]
        except ValueError:
            raise GtpError("bad vertex list") from None
        if PASS in points or len(set(points)) != len(points) or len(points) >= self.game.size ** 2:
            raise GtpError("bad vertex list")
        self._handicap(points)
        return ""

    def cmd_loadsgf(self, args):
        expect_args(args, 1, 2)
        move_number = parse_int(args[1], low=1) if len(args) == 2 else None
        try:
            colour = load_into(self.game, args[0], move_number)
        except SgfError as e:
            self.log(str(e))
            raise GtpError("cannot load file") from None
        return "black" if colour == BLACK else "white"

    def cmd_printsgf(self, args):
        expect_args(args, 0, 1)
        data = to_sgf(self.game, comment=f"{self.name} {_version()}").decode()
        if not args:
            return data
        try:
            with open(args[0], "w") as f:
                f.write(data)
        except OSError:
            raise GtpError("cannot save file") from None
        return ""

    # -- play ------------------------------------------------------------------------------

    def cmd_play(self, args):
        expect_args(args, 2)
        colour = parse_colour(args[0])
        p = self._vertex(args[1])
        try:
            self.game.play(colour, p)
        except IllegalMove:
            raise GtpError("illegal move") from None
        return ""

    def _genmove(self, args, commit=True, cleanup=False):
        expect_args(args, 1)
        colour = parse_colour(args[0])
        p = self.engine.genmove(colour, cleanup=cleanup)
        if p is None:
            return "resign"
        if commit:
            self.game.play(colour, p)
            self.pondering_after = self.engine.settings.ponder
        return format_vertex(p, self.game.size)

    def cmd_genmove(self, args):
        return self._genmove(args)

    def cmd_reg_genmove(self, args):
        return self._genmove(args, commit=False)

    def cmd_restricted_genmove(self, args):
        """GNU Go's extension used by its regression suites: the best of the listed moves
        for a colour, not played."""
        if len(args) < 2:
            raise GtpError("syntax error")
        colour = parse_colour(args[0])
        try:
            points = {parse_vertex(a, self.game.size) for a in args[1:]}
        except ValueError:
            raise GtpError("invalid vertex") from None
        legal = {p for p in points if self.game.illegal_reason(colour, p) is None}
        if not legal:
            raise GtpError("no legal allowed vertex")
        return format_vertex(self.engine.genmove(colour, allowed=legal), self.game.size)

    def cmd_kgs__genmove_cleanup(self, args):
        return self._genmove(args, cleanup=True)

    def cmd_undo(self, args):
        try:
            self.game.undo()
        except IndexError:
            raise GtpError("cannot undo") from None
        return ""

    # -- time ------------------------------------------------------------------------------

    def cmd_time_settings(self, args):
        expect_args(args, 3)
        main, byo = parse_float(args[0]), parse_float(args[1])
        stones = parse_int(args[2])
        try:
            self.engine.clock.set_canadian(main, byo, stones)
        except ValueError:
            raise GtpError("syntax error") from None
        return ""

    def cmd_kgs__time_settings(self, args):
        if not args:
            raise GtpError("syntax error")
        kind, rest = args[0].lower(), args[1:]
        clock = self.engine.clock
        try:
            if kind == "none":
                expect_args(rest, 0)
                clock.set_none()
            elif kind == "absolute":
                expect_args(rest, 1)
                clock.set_canadian(parse_float(rest[0]), 0, 0)
            elif kind == "byoyomi":
                expect_args(rest, 3)
                clock.set_japanese(parse_float(rest[0]), parse_float(rest[1]), parse_int(rest[2]))
            elif kind == "canadian":
                expect_args(rest, 3)
                clock.set_canadian(parse_float(rest[0]), parse_float(rest[1]), parse_int(rest[2]))
            else:
                raise GtpError("syntax error")
        except ValueError:
            raise GtpError("syntax error") from None
        return ""

    def cmd_time_left(self, args):
        expect_args(args, 3)
        colour = parse_colour(args[0])
        seconds, stones = parse_float(args[1]), parse_int(args[2], low=0)
        self.engine.clock.time_left(colour, seconds, stones)
        return ""

    # -- the end of the game ---------------------------------------------------------------

    def cmd_final_score(self, args):
        return score_text(self.engine.final_score())

    def cmd_final_status_list(self, args):
        expect_args(args, 1)
        kind = args[0].lower()
        if kind not in ("dead", "alive", "seki"):
            raise GtpError("syntax error")
        chains = self.engine.final_status()[kind]
        size = self.game.size
        return "\n".join(" ".join(format_vertex(p, size) for p in sorted(chain)) for chain in chains)

    # -- display ---------------------------------------------------------------------------

    def cmd_showboard(self, args):
        g = self.game
        size, b = g.size, g.board
        letters = "   " + " ".join(COLUMNS[:size])
        rows = [letters]
        last = g.moves[-1][1] if g.moves else PASS
        for r in range(size - 1, -1, -1):
            cells = []
            for c in range(size):
                p = point(size, r, c)
                ch = ".XO"[int(b.color[p])]
                cells.append(ch.lower() if p == last else ch)
            rows.append(f"{r + 1:2d} {' '.join(cells)} {r + 1}")
        rows.append(letters)
        rows.append(f"Black (X) captures {g.captures(BLACK)}, White (O) captures {g.captures(WHITE)}, "
                    f"komi {g.komi:g}, {'Black' if g.to_play == BLACK else 'White'} to play")
        return "\n" + "\n".join(rows)

    # -- analysis --------------------------------------------------------------------------

    def _analysis_args(self, args):
        """`[colour] [interval]` then optional key-value pairs (Leela Zero / KataGo style;
        `interval N` is understood, other keys such as minmoves or avoid are ignored).
        Interval in centiseconds, default 100."""
        colour, interval = self.game.to_play, 100
        words = list(args)
        if words and words[0].lower() in ("b", "black", "w", "white"):
            colour = parse_colour(words.pop(0))
        if words and is_gtp_int(words[0]):
            interval = parse_int(words.pop(0))
        while len(words) >= 2:
            key, value = words.pop(0).lower(), words.pop(0)
            if key == "interval":
                interval = parse_int(value, low=0)
        return colour, max(interval, 1) / 100.0

    def _info_line(self, kata=False):
        """One report of the root's moves, in Leela Zero's format (KataGo's with `kata`)."""
        size = self.game.size
        parts = []
        for order, s in enumerate(self.engine.root_stats()):
            wr, n = s.winrate, s.visits
            lcb = max(0.0, wr - 1.96 * math.sqrt(max(wr * (1 - wr), 0.01) / n))
            pv = " ".join(format_vertex(m, size) for m in s.pv)
            if kata:
                parts.append(f"info move {format_vertex(s.move, size)} visits {n} winrate {wr:.4f} "
                             f"prior {s.prior:.4f} lcb {lcb:.4f} order {order} pv {pv}")
            else:
                parts.append(f"info move {format_vertex(s.move, size)} visits {n} "
                             f"winrate {round(wr * 10000)} prior {round(s.prior * 10000)} "
                             f"lcb {round(lcb * 10000)} order {order} pv {pv}")
        return " ".join(parts)

    def _reporter(self, emit, kata=False):
        """A callback that emits one info line of the current search (if it has any move)."""
        def report():
            line = self._info_line(kata)
            if line:
                emit(line)
        return report

    def _analyze(self, args, kata=False):
        colour, interval = self._analysis_args(args)

        def run(emit, interrupted):
            self.engine.analyze(colour, self._reporter(emit, kata), interval, interrupted)
            return ""
        return Stream(run)

    def cmd_lz__analyze(self, args):
        return self._analyze(args)

    def cmd_kata__analyze(self, args):
        return self._analyze(args, kata=True)

    def cmd_lz__genmove_analyze(self, args):
        colour, interval = self._analysis_args(args)

        def run(emit, interrupted):
            p = self.engine.genmove(colour, report=self._reporter(emit), interval=interval,
                                    should_stop=interrupted if self.write else None)
            if p is None:
                return "play resign"
            self.game.play(colour, p)
            return f"play {format_vertex(p, self.game.size)}"
        return Stream(run)

    def cmd_simbal__param(self, args):
        """Without arguments, every search parameter (GoGui `param` format); with
        `name value`, set one."""
        if not args:
            return "\n".join(f"[string] {k} {v:g}" for k, v in self.engine.params().items())
        expect_args(args, 2)
        value = parse_float(args[1])
        try:
            self.engine.set_param(args[0], value)
        except KeyError:
            raise GtpError(f"unknown parameter {args[0]}") from None
        return ""

    def cmd_simbal__load_weights(self, args):
        """Switch the playout policy: a weight file, uniform or handcrafted.  A bad file
        answers `? cannot load weights: <why>` and the policy in use stays."""
        return self._load("weights", self.engine.load_weights, args)

    def cmd_simbal__load_prior(self, args):
        """Switch the tree prior: a weight file, uniform, handcrafted or playout.  A bad file
        answers `? cannot load prior: <why>` and the prior in use stays."""
        return self._load("prior", self.engine.load_prior, args)

    def _load(self, what, load, args):
        expect_args(args, 1)
        try:
            load(args[0])
        except (ValueError, OSError) as e:
            self.log(str(e))
            raise GtpError(f"cannot load {what}: {e}".replace("\n", " ")) from None
        return ""

    def cmd_simbal__policy(self, args):
        """GoGui heat map of the playout policy's move probabilities for the side to move."""
        colour = self.game.to_play
        probs = policy_probabilities(self.game.board, colour, self.engine.policy)
        size = self.game.size
        moves = [p for p in range(probs.shape[0]) if probs[p] > 0]
        if not moves:
            return ""
        top = max(probs[p] for p in moves)
        influence = " ".join(f"{format_vertex(p, size)} {probs[p] / top:.3f}" for p in moves)
        labels = " ".join(f"{format_vertex(p, size)} {100 * probs[p]:.0f}" for p in moves
                          if probs[p] >= 0.005)
        return f"INFLUENCE {influence}\nLABEL {labels}"

    def cmd_simbal__gfx(self, args):
        """GoGui graphics of the last search: `visits`, `winrate`, `prior` or `pv`
        (searching the current position first if the last search was of another)."""
        expect_args(args, 1)
        kind = args[0].lower()
        if kind not in ("visits", "winrate", "prior", "pv"):
            raise GtpError("syntax error")
        colour = self.game.to_play
        if not self.engine.has_search(colour):
            self.engine.stop.clear()
            self.engine.search(colour, *self.engine.think_budget(colour))
        stats = [s for s in self.engine.root_stats() if s.move != PASS]
        size = self.game.size
        if not stats:
            return ""
        if kind == "pv":
            letters = "BW" if colour == BLACK else "WB"
            return "VAR " + " ".join(f"{letters[i % 2]} {format_vertex(m, size)}"
                                     for i, m in enumerate(stats[0].pv))
        value = {"visits": lambda s: s.visits, "winrate": lambda s: s.winrate,
                 "prior": lambda s: s.prior}[kind]
        top = max(value(s) for s in stats) or 1
        influence = " ".join(f"{format_vertex(s.move, size)} {value(s) / top:.3f}" for s in stats)
        label = {"visits": lambda s: str(s.visits), "winrate": lambda s: f"{100 * s.winrate:.0f}",
                 "prior": lambda s: f"{100 * s.prior:.0f}"}[kind]
        labels = " ".join(f"{format_vertex(s.move, size)} {label(s)}" for s in stats[:30])
        return f"INFLUENCE {influence}\nLABEL {labels}"

    def cmd_gogui__analyze_commands(self, args):
        return "\n".join([
            "gfx/Visits/simbal-gfx visits",
            "gfx/Win rates/simbal-gfx winrate",
            "gfx/Policy prior/simbal-gfx prior",
            "gfx/Principal variation/simbal-gfx pv",
            "gfx/Playout policy/simbal-policy",
            "dboard/Ownership/simbal-ownership",
            "plist/Dead stones/final_status_list dead",
            "plist/Seki stones/final_status_list seki",
            "string/Final score/final_score",
            "param/Search parameters/simbal-param",
            "string/Board/showboard",
        ])

    def cmd_simbal__ownership(self, args):
        """Expected ownership, +1 Black to -1 White, one board row per line (top first)."""
        black, white = self.engine.ownership()
        size = self.game.size
        return "\n" + "\n".join(
            " ".join(f"{black[point(size, r, c)] - white[point(size, r, c)]:.2f}" for c in range(size))
            for r in range(size - 1, -1, -1))

