"""Shared fixtures for the GTP tests: an in-process GtpServer, GTP response parsing, and
engines (Simbal's gtp_main.py, GnuGo) run as subprocesses and spoken to in raw GTP."""
import os
import queue
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

# In CI, property tests draw the same examples every run, so a submission cannot fail on a
# lucky draw that the developer never saw; locally they keep exploring new examples.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]
GTP_MAIN = REPO / "gtp_main.py"
GNUGO = "/usr/games/gnugo"
TIMEOUT = 120  # seconds any single subprocess exchange may take before the test fails

# One response: '=' or '?', an optional numeric id, then text up to the blank line.
RESPONSE = re.compile(r"([=?])([0-9]*)(?:(?: ([^\n]*))?((?:\n[^\n]+)*))\n\n")


@dataclass
class Response:
    ok: bool
    id: str
    body: str    # the text after '=id ' with surrounding whitespace stripped


def parse_responses(stdout):
    """Split a GTP output stream into Responses; AssertionError if anything else is in it."""
    out, pos = [], 0
    while pos < len(stdout):
        m = RESPONSE.match(stdout, pos)
        assert m, f"not a GTP response at offset {pos}: {stdout[pos:pos + 200]!r}"
        first, rest = m.group(3) or "", m.group(4) or ""
        out.append(Response(m.group(1) == "=", m.group(2), (first + rest).strip()))
        pos = m.end()
    return out


def parse_one(text):
    """The single Response in `text` (what GtpServer.handle returns)."""
    responses = parse_responses(text)
    assert len(responses) == 1, f"expected one response, got {text!r}"
    return responses[0]


def stones_in(showboard):
    """{vertex: 'X' | 'O'} from a Simbal showboard diagram (header row of column letters, then
    rows `N cells... N`; the last move is marked in lowercase)."""
    lines = showboard.strip("\n").splitlines()
    header = lines[0].split()
    stones = {}
    for line in lines[1:]:
        cells = line.split()
        if cells and cells[0].isdigit():
            for col, ch in zip(header, cells[1:1 + len(header)], strict=False):
                if ch.upper() in "XO":
                    stones[f"{col}{cells[0]}"] = ch.upper()
    return stones


def simbal_command(*args, playouts=30):
    return [sys.executable, str(GTP_MAIN), "--playouts", str(playouts), *args]


def run_transcript(data, *args, playouts=30, env=None, timeout=TIMEOUT):
    """Feed `data` (bytes, written all at once as GoGui and Sabaki do) to gtp_main.py and
    wait for it to exit; returns the CompletedProcess (stdout and stderr as bytes)."""
    return subprocess.run(simbal_command(*args, playouts=playouts), input=data, capture_output=True,
                          timeout=timeout, env=env, cwd=REPO)


class GtpProcess:
    """A GTP engine in a subprocess, one command at a time: `send` returns a Response."""

    def __init__(self, argv, name="engine"):
        self.name = name
        self.stderr_lines = []
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                     errors="replace", cwd=REPO)
        self._lines = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self._lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr_lines.append),
                         daemon=True).start()

    @staticmethod
    def _pump(stream, sink):
        for line in stream:
            sink(line)
        sink(None)

    def _readline(self, timeout):
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"{self.name}: no answer within {timeout} s") from None
        if line is None:
            stderr = "".join(line for line in self.stderr_lines[-20:] if line)
            raise AssertionError(f"{self.name} closed its output; stderr: {stderr}")
        return line

    def send(self, command, timeout=TIMEOUT):
        """Send one command line; return its Response (raw text in `.raw`)."""
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self._readline(timeout)
            if line == "\n" and lines:
                break
            if line == "\n":
                continue  # stray blank line between responses
            lines.append(line)
        raw = "".join(lines) + "\n"
        response = parse_one(raw)
        response.raw = raw
        return response

    def write(self, line):
        """Send a line without waiting (for streams and pipelined commands)."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_line(self, timeout=TIMEOUT):
        """The next raw output line (its newline kept)."""
        return self._readline(timeout)

    def read_until_blank(self, timeout=TIMEOUT):
        """The output lines up to the next blank one (newlines stripped)."""
        lines = []
        while True:
            line = self._readline(timeout)
            if line == "\n":
                return lines
            lines.append(line.rstrip("\n"))

    def ok(self, command, timeout=TIMEOUT):
        """Send a command that must succeed; return its body."""
        r = self.send(command, timeout)
        assert r.ok, f"{self.name}: {command!r} failed: {r.body!r}"
        return r.body

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def parse_gtp():
    """parse_responses: a GTP output stream to a list of Responses (asserting it is pure GTP)."""
    return parse_responses


@pytest.fixture(scope="session")
def read_board():
    """read_board(showboard_text) -> {vertex: 'X' | 'O'}."""
    return stones_in


@pytest.fixture(scope="session")
def ask():
    """ask(server, line) -> the one Response GtpServer.handle gives to `line`."""
    def ask(server, line):
        text = server.handle(line)
        assert text is not None, f"no response to {line!r}"
        return parse_one(text)
    return ask


@pytest.fixture(scope="session")
def run_simbal():
    """run_simbal(data: bytes, *cli_args, playouts=30, env=None) -> CompletedProcess."""
    return run_transcript


@pytest.fixture(scope="session")
def make_server():
    """Factory: a fresh in-process GtpServer over an Engine with few playouts (fast) that
    never resigns unless asked to."""
    from engine.gtp.server import GtpServer
    from engine.play.player import Engine, Settings

    def make(size=9, komi=7.5, playouts=30, seed=0, resign=0.0):
        return GtpServer(Engine(size, komi, Settings(playouts=playouts, seed=seed, resign=resign)))
    return make


@pytest.fixture
def server(make_server):
    return make_server()


@pytest.fixture
def engine_process():
    """Factory starting GTP subprocesses, all closed (quit, then kill) at teardown."""
    started = []

    def start(argv, name="engine"):
        p = GtpProcess(argv, name)
        started.append(p)
        return p
    yield start
    for p in started:
        p.close()


@pytest.fixture
def simbal_process(engine_process):
    """Factory: gtp_main.py as a subprocess (`playouts` per move, extra CLI args)."""
    def start(*args, playouts=30):
        return engine_process(simbal_command(*args, playouts=playouts), "simbal")
    return start


@pytest.fixture
def gnugo_path():
    """GnuGo's path ($SIMBAL_GNUGO, default /usr/games/gnugo); skip when it is not installed,
    unless SIMBAL_REQUIRE_GNUGO=1 (as CI sets), where a missing GnuGo fails the test."""
    path = os.environ.get("SIMBAL_GNUGO", GNUGO)
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    message = f"GnuGo is not installed at {path} (apt-get install gnugo, or set SIMBAL_GNUGO)"
    if os.environ.get("SIMBAL_REQUIRE_GNUGO") == "1":
        pytest.fail(message + ", and SIMBAL_REQUIRE_GNUGO=1 requires it")
    pytest.skip(message)


@pytest.fixture(scope="session")
def dask_cluster():
    """A real local Dask cluster of two worker processes, shared by the tests that check that
    the distributed path gives the in-process results (engine/parallel/cluster.py)."""
    from engine.parallel.cluster import DaskCluster
    cluster = DaskCluster(workers=2)
    yield cluster
    cluster.close()
