"""The Go commands of the GTP server: board and komi, play and genmove (with the GNU Go and
KGS variants), undo, handicap, time, scoring, SGF, display, and Simbal's parameter and
policy commands.

A mixin over the protocol base (protocol.py): its `cmd_` methods join the command table by
name, and it needs `self.engine` (engine/play/player.py's Engine), set by server.py.  Every
decision is the engine's and every rule the game's (engine/play/game.py); this module only
turns GTP arguments into their calls and their results into GTP text.  Malformed arguments
answer `? syntax error` and leave the game untouched; rule violations use the spec's words
(`illegal move`, `cannot undo`, ...).
"""
from pathlib import Path

from engine.core.board import BLACK, PASS, WHITE
from engine.core.coords import COLUMNS, format_vertex, parse_colour, parse_vertex, point
from engine.gtp.protocol import (SYNTAX_ERROR, GtpError, expect_args, is_gtp_int, parse_float,
                                 parse_int)
from engine.play.game import RULES, IllegalMove
from engine.play.handicap import free_handicap_points, handicap_points
from engine.play.player import score_text
from engine.play.sgf import SgfError, load_into, to_sgf
from engine.search.params import SWITCHES
from policies import BUILTIN_POLICIES, WEIGHTS_DIR, policy_probabilities, shipped_weights


def variation(colour, moves, size):
    """GoGui's `VAR` line for `moves` played alternately from `colour`."""
    letters = "BW" if colour == BLACK else "WB"
    return "VAR " + " ".join(f"{letters[i % 2]} {format_vertex(m, size)}"
                             for i, m in enumerate(moves))


def colour_arg(text):
    """A GTP colour argument: BLACK or WHITE, or `? syntax error`."""
    try:
        return parse_colour(text)
    except ValueError:
        raise GtpError(SYNTAX_ERROR) from None


class GoCommands:
    """The commands that set up, play and score a game, and show or tune the engine."""

    @property
    def game(self):
        return self.engine.game

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
            raise GtpError(SYNTAX_ERROR)
        try:
            return parse_vertex(text, self.game.size)
        except ValueError:
            raise GtpError("illegal move") from None

    def _handicap(self, points):
        """Place the stones and answer their vertices; None is a number of stones that has
        no placement."""
        if points is None:
            raise GtpError("invalid number of stones")
        try:
            self.game.place_handicap(points)
        except IllegalMove as e:
            raise GtpError(str(e)) from None
        return " ".join(format_vertex(p, self.game.size) for p in points)

    def cmd_fixed_handicap(self, args):
        expect_args(args, 1)
        return self._handicap(handicap_points(self.game.size, parse_int(args[0])))

    def cmd_place_free_handicap(self, args):
        expect_args(args, 1)
        return self._handicap(free_handicap_points(self.game.size, parse_int(args[0])))

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
        data = to_sgf(self.game, comment=f"{self.name} {self.version}").decode()
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
        colour = colour_arg(args[0])
        p = self._vertex(args[1])
        try:
            # The controller referees: a move only our positional superko forbids is its
            # rules' call (kgsGtp drops an engine that refuses a move), genmove still obeys it.
            self.game.play(colour, p, allow_superko=True)
        except IllegalMove:
            raise GtpError("illegal move") from None
        return ""

    def _genmove(self, args, commit=True, cleanup=False):
        expect_args(args, 1)
        colour = colour_arg(args[0])
        live = self.live_gfx
        report = (lambda: self._live_gfx(colour, live[1])) if live else None
        p = self.engine.genmove(colour, cleanup=cleanup, report=report,
                                interval=live[0] if live else 1.0)
        if p is None:
            return "resign"
        if commit:
            self.game.play(colour, p)
            # Think on the opponent's time once the move is out, until their answer comes.
            self.after_answer = self.engine.ponder if self.engine.settings.ponder else None
        return format_vertex(p, self.game.size)

    def _live_gfx(self, colour, write):
        """GoGui's live graphics while genmove thinks: a `gogui-gfx:` block on stderr with
        the root's visits as influence, the best move's variation and a status text."""
        stats = [s for s in self.engine.root_stats() if s.move != PASS]
        if not stats:
            return
        size = self.game.size
        top = stats[0].visits
        influence = " ".join(f"{format_vertex(s.move, size)} {s.visits / top:.3f}"
                             for s in stats)
        total = sum(s.visits for s in stats)
        write(f"gogui-gfx:\nINFLUENCE {influence}\n{variation(colour, stats[0].pv, size)}\n"
              f"TEXT {total} simulations, best {format_vertex(stats[0].move, size)} "
              f"{100 * stats[0].winrate:.1f}%\n\n")

    def cmd_genmove(self, args):
        return self._genmove(args, cleanup=self.game.cleanup_before_passing)

    def cmd_reg_genmove(self, args):
        return self._genmove(args, commit=False)

    def cmd_restricted_genmove(self, args):
        """GNU Go's extension used by its regression suites: the best of the listed moves
        for a colour, not played."""
        if len(args) < 2:
            raise GtpError(SYNTAX_ERROR)
        colour = colour_arg(args[0])
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

    # -- rules -----------------------------------------------------------------------------

    # Other names of the rule sets engine/play/game.py plays (RULES).
    RULE_ALIASES = {"chinese-kgs": "chinese", "chinese-ogs": "chinese", "area": "chinese",
                    "tromp_taylor": "tromp-taylor"}

    def _set_rules(self, name):
        name = self.RULE_ALIASES.get(name.lower(), name.lower())
        if name not in RULES:
            raise GtpError(f"unsupported rules {name} (chinese or tromp-taylor)")
        self.game.rules = name
        return ""

    def cmd_kgs__rules(self, args):
        """kgsGtp's rules: only `chinese` is played (the others answer an error, and kgsGtp
        then does not offer the engine such games)."""
        expect_args(args, 1)
        return self._set_rules(args[0])

    def cmd_kata__set__rules(self, args):
        """KataGo's shorthand names for the rule sets played (`chinese`, `tromp-taylor`);
        other names and JSON rule dictionaries are refused."""
        expect_args(args, 1)
        return self._set_rules(args[0])

    def cmd_kata__get__rules(self, args):
        bonus = "N" if RULES[self.game.rules][0] else "0"
        return ('{"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":false,'
                f'"tax":"NONE","whiteHandicapBonus":"{bonus}"}}')

    def cmd_kgs__game_over(self, args):
        """kgsGtp says the game has ended: stop anything running in the background."""
        self.engine.stop.set()
        self.after_answer = None
        return ""

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
            raise GtpError(SYNTAX_ERROR) from None
        return ""

    def cmd_kgs__time_settings(self, args):
        if not args:
            raise GtpError(SYNTAX_ERROR)
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
                raise GtpError(SYNTAX_ERROR)
        except ValueError:
            raise GtpError(SYNTAX_ERROR) from None
        return ""

    def cmd_kata__time_settings(self, args):
        """KataGo's extension: kgs-time_settings' systems, and `fischer MAIN INCREMENT` and
        `fischer-capped MAIN INCREMENT MAIN_CAP MOVE_CAP` (caps -1 for none; the clock's own
        cap is the server's business, the per-move one is kept)."""
        if not args:
            raise GtpError(SYNTAX_ERROR)
        kind, rest = args[0].lower(), args[1:]
        if kind not in ("fischer", "fischer-capped"):
            return self.cmd_kgs__time_settings(args)
        expect_args(rest, 2 if kind == "fischer" else 4)
        main, increment = parse_float(rest[0]), parse_float(rest[1])
        move_cap = parse_float(rest[3]) if kind == "fischer-capped" else -1.0
        try:
            self.engine.clock.set_fischer(main, increment)
        except ValueError:
            raise GtpError(SYNTAX_ERROR) from None
        self.engine.clock.move_cap = move_cap if move_cap >= 0 else None
        return ""

    def cmd_kata__list_time_settings(self, args):
        return "\n".join(("none", "absolute MAIN", "byoyomi MAIN PERIOD PERIODS",
                          "canadian MAIN PERIOD STONES", "fischer MAIN INCREMENT",
                          "fischer-capped MAIN INCREMENT MAIN_CAP MOVE_CAP"))

    def cmd_time_left(self, args):
        expect_args(args, 3)
        colour = colour_arg(args[0])
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
            raise GtpError(SYNTAX_ERROR)
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

    # -- engine settings -------------------------------------------------------------------

    def cmd_simbal__param(self, args):
        """Without arguments, every search parameter (GoGui `param` format); with
        `name value`, set one."""
        if not args:
            return "\n".join(f"[bool] {k} {int(v != 0)}" if k in SWITCHES else
                             f"[string] {k} {v:g}" for k, v in self.engine.params().items())
        expect_args(args, 2)
        value = parse_float(args[1])
        if args[0] in SWITCHES and value not in (0.0, 1.0):
            raise GtpError(f"{args[0]} is a switch: 0 or 1")
        try:
            self.engine.set_param(args[0], value)
        except KeyError:
            raise GtpError(f"unknown parameter {args[0]}") from None
        return ""

    def cmd_simbal__settings(self, args):
        """Without arguments, the engine's settings in GoGui's `param` format: the rule set,
        the playout weights and the tree prior (lists of the shipped choices for the board
        size), pondering, the resign threshold and the per-move time cap; with `name value`,
        set one (a weight file outside weights/ by its path)."""
        weights, prior = self._weight_choices()
        if not args:
            return "\n".join([
                f"[list/{'/'.join(RULES)}] rules {self.game.rules}",
                f"[list/{'/'.join(weights[0])}] weights {weights[1]}",
                f"[list/{'/'.join(prior[0])}] prior {prior[1]}",
                f"[bool] ponder {int(self.engine.settings.ponder)}",
                f"[string] resign {self.engine.settings.resign:g}",
                f"[string] max_move_time {self.engine.settings.max_move_seconds:g}"])
        expect_args(args, 2)
        name, value = args[0].lower(), args[1]
        settings = self.engine.settings
        if name == "rules":
            return self._set_rules(value)
        if name in ("weights", "prior"):
            spec = None if value == "default" else value   # a shipped file by its name, or a path
            load = self.engine.load_weights if name == "weights" else self.engine.load_prior
            return self._load(name, load, [spec])
        if name == "ponder":
            if value not in ("0", "1"):
                raise GtpError("ponder is a switch: 0 or 1")
            settings.ponder = value == "1"
        elif name == "resign":
            threshold = parse_float(value)
            if not 0.0 <= threshold < 1.0:
                raise GtpError("resign is a win rate from 0 (never) to below 1")
            settings.resign = threshold
        elif name == "max_move_time":
            seconds = parse_float(value)
            if not seconds > 0:
                raise GtpError("max_move_time must be a positive number of seconds")
            settings.max_move_seconds = seconds
        else:
            raise GtpError(f"unknown setting {name}")
        return ""

    def _weight_choices(self):
        """((choices, current) for the playout weights, the same for the prior): the shipped
        files for the board size by name, the built-in policies, and the one in use."""
        size = self.game.size
        out = []
        for spec, extra, priors in ((self.engine.weights, [], False),
                                    (self.engine.prior_weights, ["playout"], True)):
            choices = ["default", *extra, *BUILTIN_POLICIES, *shipped_weights(size, priors)]
            current = "default" if spec is None else (
                Path(spec).name if Path(spec).parent == WEIGHTS_DIR else spec)
            if current not in choices:
                choices.append(current)
            out.append((choices, current))
        return out

    def cmd_simbal__load_weights(self, args):
        """Switch the playout policy: a weight file, uniform, handcrafted or rules.  A bad file
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
