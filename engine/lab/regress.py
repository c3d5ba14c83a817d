"""GTP regression suites in GoGui's format: the runner behind `simbal regress`.

A suite (`.tst`) is a list of GTP commands, run in order by one engine started with the suite's
folder as its working directory (so `loadsgf games/x.sgf 12` finds its file):

- `# text` is a comment, blank lines are skipped;
- `ID command` (a leading number) is a numbered command; when the next non-blank line is
  `#? [PATTERN]` it is a test, and the answer must match PATTERN as a whole (a Python regular
  expression, case-insensitive, so `E5|E6` takes either; `[!PATTERN]` inverts the test);
- a `*` after the bracket marks a test the suite's author expected to fail (GNU Go's own known
  failures: recorded, meaningless for another engine), `&` one expected to pass;
- unnumbered commands (`loadsgf`, `play`, `undo`, ...) set the position; their errors are
  reported but are not tests.

A test whose command fails (`? unknown command` for GNU Go's private commands such as owl_attack;
Simbal answers restricted_genmove) is unsolved and flagged as an error.  If the engine dies it is restarted
and the suite goes on from the next command.  Results per file: solved / tests, the same for the
`reg_genmove` tests alone (the portable ones), the failures, and timings.
"""
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.gtp.client import EngineFailure, GtpClient

REPO = Path(__file__).resolve().parents[2]   # the repository (engine/lab/regress.py)
COMMAND_TIMEOUT = 900.0
_EXPECT = re.compile(r"^#\?\s*\[(!?)(.*)\]\s*([*&]?)\s*$")


class SuiteError(ValueError):
    """A suite file that cannot be read."""


@dataclass
class Step:
    line: int
    command: str
    id: str | None = None
    expected: str | None = None     # None: not a test
    negate: bool = False
    mark: str = ""                  # '*' expected to fail, '&' expected to pass


@dataclass
class Outcome:
    id: str
    line: int
    command: str
    expected: str
    answer: str
    solved: bool
    mark: str = ""
    error: str | None = None


@dataclass
class SuiteResult:
    file: str
    tests: int = 0
    solved: int = 0
    genmove_tests: int = 0
    genmove_solved: int = 0
    seconds: float = 0.0
    failures: list = field(default_factory=list)
    setup_errors: list = field(default_factory=list)
    outcomes: list = field(default_factory=list)


def parse_suite(path):
    """The Steps of a suite file; SuiteError naming the file and line when it is unreadable."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise SuiteError(f"{path}: cannot read ({e.strerror})") from None
    steps = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#?"):
            m = _EXPECT.match(line)
            if not m:
                raise SuiteError(f"{path}, line {n}: expected '#? [PATTERN]', got {line!r}")
            if not steps or steps[-1].id is None or steps[-1].expected is not None:
                raise SuiteError(f"{path}, line {n}: '#?' without a numbered command before it")
            step = steps[-1]
            step.negate, step.expected, step.mark = m.group(1) == "!", m.group(2), m.group(3)
            try:
                re.compile(step.expected)
            except re.error as e:
                raise SuiteError(f"{path}, line {n}: bad pattern {step.expected!r} ({e})") from None
            continue
        if line.startswith("#"):
            continue
        words = line.split(None, 1)
        if words[0].isdigit():
            if len(words) < 2:
                raise SuiteError(f"{path}, line {n}: a number without a command")
            steps.append(Step(n, words[1], id=words[0]))
        else:
            steps.append(Step(n, line))
    return steps


def matches(step, answer):
    hit = re.fullmatch(step.expected, answer.strip(), re.IGNORECASE) is not None
    return hit != step.negate


def default_engine(playouts, seed=0):
    """Our engine's command line (default settings but the playout count)."""
    return f"{sys.executable} {REPO / 'gtp_main.py'} --playouts {playouts} --seed {seed}"


def run_suite(path, engine_cmd, progress=None):
    """Run one suite; a SuiteResult.  `progress(done, total)` after each step."""
    path = Path(path).resolve()
    steps = parse_suite(path)
    result = SuiteResult(str(path))
    start = time.monotonic()
    client = None
    try:
        for k, step in enumerate(steps, 1):
            error = None
            try:
                if client is None:
                    client = GtpClient(engine_cmd, cwd=path.parent)
                ok, answer = client.ask(step.command, timeout=COMMAND_TIMEOUT)
                if not ok:
                    error = f"? {answer}"
            except EngineFailure as e:      # died or hung: restart for the next command
                error, answer = str(e), ""
                if client is not None:
                    client.close()
                client = None
            if step.expected is None:
                if error:
                    result.setup_errors.append(f"line {step.line}: {step.command}: {error}")
            else:
                solved = error is None and matches(step, answer)
                outcome = Outcome(step.id, step.line, step.command,
                                  ("!" if step.negate else "") + step.expected, answer, solved,
                                  step.mark, error)
                result.outcomes.append(asdict(outcome))
                result.tests += 1
                result.solved += solved
                if step.command.split()[0].lower() == "reg_genmove":
                    result.genmove_tests += 1
                    result.genmove_solved += solved
                if not solved:
                    result.failures.append(step.id)
            if progress:
                progress(k, len(steps))
    finally:
        if client is not None:
            client.close()
    result.seconds = round(time.monotonic() - start, 1)
    return result


def to_markdown(results, engine_cmd):
    lines = [f"Engine: `{engine_cmd}`", "",
             "| suite | solved | reg_genmove solved | failures | seconds |",
             "|---|---:|---:|---|---:|"]
    for r in results:
        fails = " ".join(r.failures[:30]) + (" ..." if len(r.failures) > 30 else "")
        lines.append(f"| {Path(r.file).name} | {r.solved}/{r.tests} | "
                     f"{r.genmove_solved}/{r.genmove_tests} | {fails} | {r.seconds:g} |")
    return "\n".join(lines) + "\n"
