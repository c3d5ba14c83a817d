"""The analysis commands of the GTP server: Leela Zero's and KataGo's streaming analysis
(lz-analyze, kata-analyze, lz-genmove_analyze) with their info lines, and GoGui's views of
the search (gogui-analyze_commands, simbal-gfx, simbal-ownership).

A mixin like commands.py, beside it because these commands show the engine's search rather
than play the game: the streaming ones answer with protocol.py's Stream, which the protocol
runs until the next input line arrives.
"""
import math
from dataclasses import dataclass, field

from engine.core.board import BLACK, PASS
from engine.core.coords import COLOURS, format_vertex, point
from engine.gtp.commands import colour_arg, variation
from engine.gtp.protocol import SYNTAX_ERROR, GtpError, Stream, expect_args, is_gtp_int, parse_int
from engine.play.player import MoveStats
from engine.play.restrictions import Restriction, search_limits


GFX_MIN_VISITS = 10      # GoGui's win-rate map leaves out moves searched fewer times,
GFX_VISITS_SHARE = 50    # or fewer than 1/50 of the most searched move's visits


@dataclass
class AnalysisRequest:
    """What an analysis command asked for (Leela Zero's and KataGo's arguments)."""
    colour: int
    interval: float                 # seconds between reports
    ownership: bool = False         # kata: append the expected ownership of every point
    allowed: set | None = None      # root moves the search may consider (allow/avoid)
    deeper: list = field(default_factory=list)  # [d - 1]: points kept out d plies down
    min_moves: int = 0              # report at least this many moves (unvisited ones too)
    max_moves: int = 0              # report at most this many (0: all)


class AnalysisCommands:
    """The commands that show the search: streaming info lines and GoGui graphics."""

    def _analysis_args(self, args):
        """`[colour] [interval]` then key-value pairs as Leela Zero and KataGo take them:
        `interval N` (centiseconds, default 100), `ownership true|false`, `minmoves N`,
        `maxmoves N`, and `allow|avoid COLOUR VERTICES UNTILDEPTH` (vertices comma-separated;
        repeatable): COLOUR's moves in the first UNTILDEPTH plies of the search are
        restricted (1: the root's moves only, when COLOUR is the side analysed)."""
        colour, interval = self.game.to_play, 100
        words = list(args)
        if words and words[0].lower() in COLOURS:
            colour = colour_arg(words.pop(0))
        if words and is_gtp_int(words[0]):
            interval = parse_int(words.pop(0))
        request = AnalysisRequest(colour, 0.0)
        restrictions = []
        while words:
            key = words.pop(0).lower()
            if key in ("allow", "avoid"):
                if len(words) < 3:
                    raise GtpError(SYNTAX_ERROR)
                who, vertices, until = colour_arg(words[0]), words[1], parse_int(words[2], low=0)
                del words[:3]
                points = frozenset(self._vertex(v) for v in vertices.split(",") if v)
                restrictions.append(Restriction(key == "allow", who, points, until))
                continue
            if not words:
                raise GtpError(SYNTAX_ERROR)
            value = words.pop(0)
            if key == "interval":
                interval = parse_int(value, low=0)
            elif key == "ownership":
                if value.lower() not in ("true", "false"):
                    raise GtpError(SYNTAX_ERROR)
                request.ownership = value.lower() == "true"
            elif key == "minmoves":
                request.min_moves = parse_int(value, low=0)
            elif key == "maxmoves":
                request.max_moves = parse_int(value, low=0)
            # other keys (KataGo's rootInfo, pvVisits, ...) are accepted and ignored
        if restrictions:
            legal = set(self.game.legal_moves(colour)) | {PASS}
            try:
                request.allowed, request.deeper = search_limits(restrictions, colour,
                                                                self.game.size, legal)
            except ValueError as err:
                raise GtpError(str(err)) from None
        request.interval = max(interval, 1) / 100.0
        return request

    def _moves(self, request):
        """The root's moves to report: the visited ones, best first, then (for minmoves)
        unvisited candidates, at most maxmoves."""
        stats = self.engine.root_stats()
        if request.allowed is not None:
            stats = [s for s in stats if s.move in request.allowed]
        if len(stats) < request.min_moves:
            seen = {s.move for s in stats}
            extra = [m for m in self.engine.candidates(request.colour)
                     if m not in seen and (request.allowed is None or m in request.allowed)]
            stats += [MoveStats(m, 0, 0.0, 0.0, [m])
                      for m in extra[:request.min_moves - len(stats)]]
        if request.max_moves:
            stats = stats[:request.max_moves]
        return stats

    def _info_line(self, request, kata=False):
        """One report of the root's moves, in Leela Zero's format (KataGo's with `kata`)."""
        size = self.game.size
        parts = []
        for order, s in enumerate(self._moves(request)):
            wr, n = s.winrate, s.visits
            lcb = max(0.0, wr - 1.96 * math.sqrt(max(wr * (1 - wr), 0.01) / max(n, 1)))
            pv = " ".join(format_vertex(m, size) for m in s.pv)
            if kata:
                parts.append(f"info move {format_vertex(s.move, size)} visits {n} winrate {wr:.4f} "
                             f"scoreMean {s.score_mean:.2f} scoreStdev {s.score_stdev:.2f} "
                             f"scoreLead {s.score_mean:.2f} prior {s.prior:.4f} lcb {lcb:.4f} "
                             f"order {order} pv {pv}")
            else:
                parts.append(f"info move {format_vertex(s.move, size)} visits {n} "
                             f"winrate {round(wr * 10000)} prior {round(s.prior * 10000)} "
                             f"lcb {round(lcb * 10000)} order {order} pv {pv}")
        if kata and request.ownership and parts:
            parts.append(self._ownership_field(request.colour))
        return " ".join(parts)

    def _ownership_field(self, colour):
        """KataGo's `ownership`: every point's expected owner for the player to move (+1 theirs,
        -1 the opponent's), row by row from the top left."""
        owned = self.engine.search_ownership()
        size = self.game.size
        sign = 1.0 if colour == BLACK else -1.0
        values = []
        for r in range(size - 1, -1, -1):
            for c in range(size):
                v = 0.0 if owned is None else sign * float(owned[point(size, r, c)])
                values.append(f"{v:.3f}")
        return "ownership " + " ".join(values)

    def _reporter(self, emit, request, kata=False):
        """A callback that emits one info line of the current search (if it has any move)."""
        def report():
            line = self._info_line(request, kata)
            if line:
                emit(line)
        return report

    def _analyze(self, args, kata=False):
        request = self._analysis_args(args)

        def run(emit, interrupted):
            self.engine.analyze(request.colour, self._reporter(emit, request, kata),
                                request.interval, interrupted, allowed=request.allowed,
                                deeper=request.deeper)
            return ""
        return Stream(run)

    def cmd_lz__analyze(self, args):
        return self._analyze(args)

    def cmd_kata__analyze(self, args):
        return self._analyze(args, kata=True)

    def _genmove_analyze(self, args, kata=False):
        request = self._analysis_args(args)
        colour = request.colour

        def run(emit, interrupted):
            # In-process there is no next line to wait for: the move gets its full search.
            p = self.engine.genmove(colour, report=self._reporter(emit, request, kata),
                                    interval=request.interval,
                                    should_stop=interrupted if self.serving else None,
                                    allowed=request.allowed, deeper=request.deeper)
            if p is None:
                return "play resign"
            self.game.play(colour, p)
            return f"play {format_vertex(p, self.game.size)}"
        return Stream(run)

    def cmd_lz__genmove_analyze(self, args):
        return self._genmove_analyze(args)

    def cmd_kata__genmove_analyze(self, args):
        return self._genmove_analyze(args, kata=True)

    def cmd_stop(self, args):
        """KataGo's `stop`: end any search running in the background (analysis and pondering
        already end when a command arrives; this one just says so)."""
        self.engine.stop.set()
        return ""

    # -- GoGui -----------------------------------------------------------------------------

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
            "param/Engine settings/simbal-settings",
            "string/Board/showboard",
            "string/Last search/simbal-last_search",
        ])

    def cmd_simbal__last_search(self, args):
        """The last genmove's search: `simulations N` and `seconds T` on two lines (0
        simulations for a move chosen without one: a book move, a pass with nothing useful
        left, restricted_genmove).  Match
        tools read it to show each engine's simulations a move beside its results."""
        sims, seconds = self.engine.last_search
        return f"simulations {sims}\nseconds {seconds:.3f}"

    def cmd_simbal__gfx(self, args):
        """GoGui graphics of the last search: `visits`, `winrate`, `prior` or `pv`
        (searching the current position first if the last search was of another)."""
        expect_args(args, 1)
        kind = args[0].lower()
        if kind not in ("visits", "winrate", "prior", "pv"):
            raise GtpError(SYNTAX_ERROR)
        colour = self.game.to_play
        if not self.engine.has_search(colour):
            self.engine.stop.clear()
            self.engine.search(colour, *self.engine.think_budget(colour))
        stats = [s for s in self.engine.root_stats() if s.move != PASS]
        size = self.game.size
        if not stats:
            return ""
        side = "Black" if colour == BLACK else "White"
        if kind == "pv":
            return variation(colour, stats[0].pv, size)
        text = {"visits": f"visits of {side}'s moves",
                "prior": f"{side}'s moves: the tree prior's probability (%)"}.get(kind)
        if kind == "winrate":
            # A win rate from a few visits says little (one lucky playout shows 100): only
            # moves searched at least `floor` times are drawn.
            floor = min(max(GFX_MIN_VISITS, stats[0].visits // GFX_VISITS_SHARE),
                        stats[0].visits)     # the most searched move is always drawn
            stats = [s for s in stats if s.visits >= floor]
            text = f"{side}'s win rate (%) of each move searched at least {floor} times"
        value = {"visits": lambda s: s.visits, "winrate": lambda s: s.winrate,
                 "prior": lambda s: s.prior}[kind]
        top = max(value(s) for s in stats) or 1
        influence = " ".join(f"{format_vertex(s.move, size)} {value(s) / top:.3f}" for s in stats)
        label = {"visits": lambda s: str(s.visits), "winrate": lambda s: f"{100 * s.winrate:.0f}",
                 "prior": lambda s: f"{100 * s.prior:.1f}"}[kind]
        labels = " ".join(f"{format_vertex(s.move, size)} {label(s)}" for s in stats[:30])
        return f"INFLUENCE {influence}\nLABEL {labels}\nTEXT {text}"

    def cmd_simbal__ownership(self, args):
        """Expected ownership, +1 Black to -1 White, one board row per line (top first)."""
        black, white = self.engine.ownership()
        size = self.game.size
        return "\n" + "\n".join(
            " ".join(f"{black[point(size, r, c)] - white[point(size, r, c)]:.2f}" for c in range(size))
            for r in range(size - 1, -1, -1))
