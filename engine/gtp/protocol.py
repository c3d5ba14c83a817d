"""GTP itself, with no Go in it: line clean-up, ids, the command table, error answers,
argument syntax, streaming answers and the serve loop (draft 2 of GTP version 2).

The Go lives above this module (commands.py, analysis.py; server.py puts them together),
as in gomill, where the protocol engine knows commands only as names and handlers.  Here a
command is a method `cmd_NAME(self, args)` of the server: `__` in NAME stands for `-`, so
`cmd_kgs__genmove_cleanup` answers `kgs-genmove_cleanup`.  A handler returns its answer text,
raises GtpError for a `?` answer, or returns a Stream for an answer that streams.  An
unexpected exception answers `? internal error` without stopping the server.  Only protocol
text is written to the output stream.
"""
import math
import queue
import re
import threading
import time
import traceback

# The spec's error words that belong to the protocol rather than to any one command:
# controllers match on them.
SYNTAX_ERROR = "syntax error"
UNKNOWN_COMMAND = "unknown command"
INTERNAL_ERROR = "internal error"
INTERRUPT_LINE = "# interrupt"   # GoGui's interrupt (for engines listing gogui-interrupt)


class GtpError(Exception):
    """Answer `? <message>` to the current command."""


class Stream:
    """A command whose answer streams (analysis): `run(emit, interrupted)` emits report lines
    until `interrupted()` and returns the closing line ('' for none)."""

    def __init__(self, run):
        self.run = run


_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def is_gtp_int(text):
    """GTP integers are plain ASCII decimals (Python's int() also takes '1_3' and other scripts)."""
    return _INT.fullmatch(text) is not None


def parse_int(text, low=None):
    if not is_gtp_int(text):
        raise GtpError(SYNTAX_ERROR)
    n = int(text)
    if low is not None and n < low:
        raise GtpError(SYNTAX_ERROR)
    return n


def parse_float(text):
    # A GTP float is decimal text: float() alone would also take 'nan', 'inf' and '1_0'.
    if _FLOAT.fullmatch(text) is None:
        raise GtpError(SYNTAX_ERROR)
    x = float(text)
    if not math.isfinite(x):    # overflow, e.g. 1e999
        raise GtpError(SYNTAX_ERROR)
    return x


def expect_args(args, low, high=None):
    high = low if high is None else high
    if not low <= len(args) <= high:
        raise GtpError(SYNTAX_ERROR)


def preprocess(line):
    """The spec's line clean-up: drop control characters (keeping tabs, as spaces) and
    comments; returns the stripped text ('' for a line that gets no answer)."""
    line = line.replace("\t", " ")
    line = "".join(ch for ch in line if ch >= " " or ch == "\n")
    return line.split("#", 1)[0].strip()


class GtpProtocol:
    """The protocol half of a GTP server: subclasses (or mixins) add `cmd_` methods."""

    def __init__(self, name, version, log=None):
        self.name = name
        self.version = version
        self.log = log or (lambda *a: None)
        self.quitting = False
        self.write = None                 # set by `serve`: streaming commands write through it
        self.interrupted = None           # set by `serve`: is there new input?
        # Work to do once the current answer is out (pondering), as `task(interrupted)`:
        # `serve` runs it until the next line arrives.
        self.after_answer = None
        self.commands = {}
        for attr in dir(self):
            if attr.startswith("cmd_"):
                self.commands[attr[4:].replace("__", "-")] = getattr(self, attr)

    @property
    def serving(self):
        """True inside `serve`, where `interrupted` watches real input; in-process `handle`
        has none to watch."""
        return self.write is not None

    def handle(self, line):
        """One input line to its full response text ('=...' or '?...' and the blank line),
        or None when the line gets no response."""
        text = preprocess(line)
        if not text:
            return None
        words = text.split()
        ident = ""
        if is_gtp_int(words[0]):
            ident = words.pop(0)
            if not words:
                return f"?{ident} {SYNTAX_ERROR}\n\n"
        name, args = words[0].lower(), words[1:]
        handler = self.commands.get(name)
        try:
            if handler is None:
                raise GtpError(UNKNOWN_COMMAND)
            result = handler(args)
            if isinstance(result, Stream):
                return self._stream(ident, result)
            ok = True
        except GtpError as e:
            result, ok = str(e), False
        except Exception:  # the engine must survive anything a command throws
            self.log(traceback.format_exc())
            result, ok = INTERNAL_ERROR, False
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

    def serve(self, instream, outstream, transcript=None):
        """Answer commands until `quit` or end of input.  A reader thread queues the input so
        that streaming answers and after-answer work stop the moment a new command arrives.
        `transcript` (a text file) gets every line in and out, with its time."""
        pending = queue.Queue()
        start = time.monotonic()
        transcript_lock = threading.Lock()

        def record(direction, text):
            if transcript is not None:
                with transcript_lock:
                    for line in text.rstrip("\n").split("\n"):
                        transcript.write(f"{time.monotonic() - start:10.3f} {direction} {line}\n")
                    transcript.flush()

        def read():
            try:
                for line in instream:
                    record("<", line)
                    # GoGui's interrupt: a comment line sent while a command runs, for engines
                    # that list gogui-interrupt.  It is acted on at once, never queued.
                    if line.strip() == INTERRUPT_LINE:
                        self.interrupt()
                        continue
                    pending.put(line)
            finally:
                pending.put(None)  # end of input, or an unreadable stream: stop either way

        threading.Thread(target=read, daemon=True).start()

        def write(text):
            outstream.write(text)
            outstream.flush()
            record(">", text)

        self.write = write
        self.interrupted = lambda: not pending.empty()
        while not self.quitting:
            line = pending.get()
            if line is None:
                break
            response = self.handle(line)
            if response is not None:
                write(response)
            if self.after_answer is not None and not self.quitting:
                task, self.after_answer = self.after_answer, None
                task(self.interrupted)

    def interrupt(self):
        """End the running command with its best answer so far.  A subclass that can do so
        overrides this and lists `gogui-interrupt`, so that GoGui sends the line."""

    # -- administrative --------------------------------------------------------------------

    def cmd_protocol_version(self, args):
        return "2"

    def cmd_name(self, args):
        return self.name

    def cmd_version(self, args):
        return self.version

    def cmd_known_command(self, args):
        expect_args(args, 1)
        return "true" if args[0].lower() in self.commands else "false"

    def cmd_list_commands(self, args):
        return "\n".join(sorted(self.commands))

    def cmd_quit(self, args):
        self.quitting = True
        return ""
