"""The GTP server users construct: `GtpServer(engine)` answers GTP lines (`handle`) or a
whole session (`serve`) for one engine/play/player.py Engine.

It only puts the pieces together.  protocol.py is GTP with no Go in it (lines, ids, the
command table, errors, streaming, the serve loop); commands.py and analysis.py are mixins
of Go commands.  Mixins over a protocol base rather than a registry of command objects:
a command is then just a method with the server's state (engine, game, log) at hand, its
GTP name comes from its own name, and `known_command` / `list_commands` see every mixin's
commands with no table to keep in step.
"""
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version

from engine.gtp.analysis import AnalysisCommands
from engine.gtp.commands import GoCommands
from engine.gtp.protocol import GtpProtocol


def simbal_version():
    try:
        return package_version("simbal")
    except PackageNotFoundError:
        return "0+unknown"


class GtpServer(GoCommands, AnalysisCommands, GtpProtocol):
    """Answers GTP lines for one `Engine`."""

    def __init__(self, engine, name="Simbal", log=None):
        self.engine = engine
        self.live_gfx = None   # (seconds, write): GoGui live graphics while genmove thinks
        super().__init__(name, simbal_version(), log)

    def interrupt(self):
        """GoGui's interrupt: the running search stops and its command answers at once
        (genmove with its best move so far)."""
        self.engine.stop.set()

    def cmd_gogui__interrupt(self, args):
        """Listed so that GoGui sends `# interrupt` lines (protocol.py's `serve`)."""
        return ""
