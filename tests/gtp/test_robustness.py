"""The engine as a long-running GTP process: memory stays flat over thousands of genmoves, and
an analysis cut off mid-stream (by a command, or by killing the process) is taken up again
cleanly.  The protocol's own robustness (garbage lines, ids, errors) is in
test_gtp_protocol.py."""
import re
import signal

import pytest

GENMOVES = 2000
SETTLED = 200          # genmoves after the start-up warm-up, before the first measurement
MAX_GROWTH_KB = 8192   # over the 2,000 genmoves after that; a leak of 4 KB a move exceeds it


def rss_kb(proc):
    with open(f"/proc/{proc.pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"),
                    reason="reads the resident size from /proc")
def test_memory_stays_flat_over_2000_genmoves(simbal_process):
    """Self-play at a few playouts a move, a new game whenever one ends: the resident size
    after 2,000 genmoves is within MAX_GROWTH_KB of its size before them.  The count starts
    once the start-up warm-up (which loads every compiled kernel, ~200 MB, in the background)
    has said it is done, and 200 genmoves later."""
    p = simbal_process("--size", "9", "--verbose", playouts=8)
    colour, passes, played, start, size_before = "b", 0, 0, None, None
    while start is None or played < start + SETTLED + GENMOVES:
        move = p.ok(f"genmove {colour}").strip().lower()
        played += 1
        passes = passes + 1 if move == "pass" else 0
        colour = "w" if colour == "b" else "b"
        if move == "resign" or passes == 2:
            p.ok("clear_board")
            colour, passes = "b", 0
        if start is None and any(line and "warm-up" in line for line in p.stderr_lines):
            start = played
        if start is not None and played == start + SETTLED:
            size_before = rss_kb(p.proc)
    growth = rss_kb(p.proc) - size_before
    print(f"resident size {size_before} kB before {GENMOVES} genmoves, grew {growth} kB")
    assert growth < MAX_GROWTH_KB, f"grew {growth} kB over {GENMOVES} genmoves"


def visits_of(info_line):
    return sum(int(v) for v in re.findall(r"\bvisits (\d+)", info_line))


def analysis_lines(p, count):
    """Start kata-analyze and read `count` info lines of it."""
    p.write("kata-analyze b 5")
    assert p.read_line() == "=\n"
    lines = [p.read_line() for _ in range(count)]
    assert all(line.startswith("info move ") for line in lines), lines
    return lines


OPENING = ["play b e5", "play w c3", "play b g7", "play w c7"]


def test_analysis_cut_off_mid_stream_is_taken_up_again(simbal_process):
    """A command ends the stream cleanly and the next analysis goes on from the same tree;
    a process killed mid-stream leaves nothing behind that a new one trips over."""
    p = simbal_process("--size", "9", playouts=10 ** 9)
    for line in OPENING:
        p.ok(line)
    before = analysis_lines(p, 3)
    p.write("name")
    tail = p.read_until_blank()  # the rest of the stream, then its closing blank line
    assert all(line.startswith("info move ") for line in tail)
    assert p.read_until_blank() == ["= Simbal"]
    last = visits_of((before + tail)[-1])
    again = analysis_lines(p, 1)
    assert visits_of(again[0]) >= last, "the resumed analysis started from a fresh tree"
    p.proc.send_signal(signal.SIGKILL)  # mid-stream
    p.proc.wait(timeout=30)

    q = simbal_process("--size", "9", playouts=10 ** 9)
    for line in OPENING:
        q.ok(line)
    occupied = {"E5", "C3", "G7", "C7"}
    for line in analysis_lines(q, 2):
        assert not set(re.findall(r"info move (\S+)", line)) & occupied, line
    q.write("name")
    assert all(line.startswith("info move ") for line in q.read_until_blank())
    assert q.read_until_blank() == ["= Simbal"]
