"""The analysis commands of the GTP server: Leela Zero's and KataGo's streaming analysis
(lz-analyze, kata-analyze, lz-genmove_analyze) with their info lines, and GoGui's views of
the search (gogui-analyze_commands, simbal-gfx, simbal-ownership).

A mixin like commands.py, beside it because these commands show the engine's search rather
than play the game: the streaming ones answer with protocol.py's Stream, which the protocol
runs until the next input line arrives.
"""
import math

from engine.core.board import BLACK, PASS
from engine.core.coords import COLOURS, format_vertex, point
from engine.gtp.commands import colour_arg
from engine.gtp.protocol import SYNTAX_ERROR, GtpError, Stream, expect_args, is_gtp_int, parse_int


class AnalysisCommands:
    """The commands that show the search: streaming info lines and GoGui graphics."""

    def _analysis_args(self, args):
        """`[colour] [interval]` then optional key-value pairs (Leela Zero / KataGo style;
        `interval N` is understood, other keys such as minmoves or avoid are ignored).
        Interval in centiseconds, default 100."""
        colour, interval = self.game.to_play, 100
        words = list(args)
        if words and words[0].lower() in COLOURS:
            colour = colour_arg(words.pop(0))
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
            # In-process there is no next line to wait for: the move gets its full search.
            p = self.engine.genmove(colour, report=self._reporter(emit), interval=interval,
                                    should_stop=interrupted if self.serving else None)
            if p is None:
                return "play resign"
            self.game.play(colour, p)
            return f"play {format_vertex(p, self.game.size)}"
        return Stream(run)

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
            "string/Board/showboard",
        ])

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

    def cmd_simbal__ownership(self, args):
        """Expected ownership, +1 Black to -1 White, one board row per line (top first)."""
        black, white = self.engine.ownership()
        size = self.game.size
        return "\n" + "\n".join(
            " ".join(f"{black[point(size, r, c)] - white[point(size, r, c)]:.2f}" for c in range(size))
            for r in range(size - 1, -1, -1))
