"""The GTP client: other engines (GnuGo, Fuego, Simbal itself) in subprocesses, spoken to in
GTP.  The match loop (engine.lab.match), the players (engine.lab.players) and the labellers
(policies.data.labels) drive engines through it; it knows the protocol, not the game."""
import shlex
import subprocess
import threading
import time

GNUGO_PROGRAM = "/usr/games/gnugo"   # Debian's gnugo package


def gnugo_command(level=10, program=GNUGO_PROGRAM):
    """GnuGo 3.8's GTP command line at `level`, under Chinese (area) rules like ours: the
    default expert, referee and opponent of the data commands and the tools."""
    return f"{program} --mode gtp --level {level} --chinese-rules"


class EngineFailure(Exception):
    """The engine crashed, timed out or answered with an error."""


class GtpAsker:
    """What the game loop needs of any engine it drives: `ask` (subclasses) and `send`."""

    def ask(self, command, timeout=None):
        """(success, text) of one command."""
        raise NotImplementedError

    def send(self, command, timeout=None):
        """Send one command; the answer's text, or EngineFailure for `?` / a dead engine."""
        ok, text = self.ask(command, timeout)
        if not ok:
            raise EngineFailure(f"{command!r} answered ?{text}")
        return text


class GtpClient(GtpAsker):
    """A GTP engine in a subprocess."""

    def __init__(self, command, cwd=None, stderr=None):
        self.command = command
        try:
            self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=stderr or subprocess.DEVNULL,
                                         text=True, bufsize=1, cwd=cwd)
        except OSError as e:
            raise EngineFailure(f"cannot start {command!r}: {e}") from None
        self.lock = threading.Lock()

    def ask(self, command, timeout=None):
        with self.lock:
            try:
                self.proc.stdin.write(command + "\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise EngineFailure(f"engine died before {command!r}") from None
            lines = []
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                if deadline is not None and time.monotonic() > deadline:
                    raise EngineFailure(f"no answer to {command!r} within {timeout} s")
                line = self.proc.stdout.readline()
                if not line:
                    raise EngineFailure(f"engine exited during {command!r}")
                line = line.rstrip("\r\n")
                if not lines and not line:
                    continue
                if not line:
                    break
                lines.append(line)
        first = lines[0]
        ok = first.startswith("=")
        text = "\n".join([first[1:].lstrip("0123456789").strip()] + lines[1:]).strip()
        return ok, text

    def close(self):
        try:
            if self.proc.poll() is None:
                self.ask("quit", timeout=5)
        except EngineFailure:
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
