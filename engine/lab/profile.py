"""`simbal bench --profile`: where the engine's time goes, by compiled function, measured by
Linux `perf` sampling this very process while it searches.

numba's compiled code is invisible to `perf` (it has no symbols), so the process writes
/tmp/perf-PID.map itself: the address of every function numba has loaded, named by its
Python module and name, sized up to the next one.  `perf report` then names the samples.
Functions inlined into their caller (numba's `inline='always'`, LLVM's own inlining) count as
their caller's time.  Needs `perf` (linux-tools) and permission to attach to the process
(perf_event_paranoid <= 2 for one's own processes).
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path


def write_perf_map(pid=None):
    """Name every loaded compiled function for perf; returns how many."""
    from numba.core.registry import cpu_target
    engine = cpu_target.target_context.codegen()._engine
    addresses = {}
    for symbol in list(engine._defined_symbols):
        try:
            address = engine.get_function_address(symbol)
        except Exception:   # a data symbol, or one the engine cannot resolve
            continue
        if address:
            addresses[address] = symbol
    ordered = sorted(addresses)
    with open(f"/tmp/perf-{pid or os.getpid()}.map", "w") as out:
        for i, address in enumerate(ordered):
            size = min(ordered[i + 1] - address, 1 << 20) if i + 1 < len(ordered) else 4096
            out.write(f"{address:x} {size:x} {readable(addresses[address])}\n")
    return len(ordered)


def readable(symbol):
    """numba's mangled name (_ZN<len>part<len>part...) as module.function."""
    start = symbol.find("_ZN")
    rest = symbol[start + 3:] if start >= 0 else symbol
    parts = []
    while rest and rest[0].isdigit():
        digits = len(rest) - len(rest.lstrip("0123456789"))
        length = int(rest[:digits])
        parts.append(rest[digits:digits + length])
        rest = rest[digits + length:]
    parts = [p for p in parts if not p.startswith("NumbaEnv")]
    prefix = "python wrapper of " if symbol.startswith("cpython") else ""
    return prefix + (".".join(parts) if parts else symbol)


def profile(work, top=25):
    """Run `work()` under `perf record` attached to this process; [(share %, function)] of
    the samples taken during it, most first, or None when perf is missing or refused."""
    perf = shutil.which("perf")
    if perf is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "perf.data"
        recorder = subprocess.Popen([perf, "record", "-q", "-p", str(os.getpid()), "-o",
                                     str(data)], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        time.sleep(0.5)        # perf attaches
        try:
            work()
        finally:
            recorder.send_signal(signal.SIGINT)
            recorder.wait(timeout=60)
        write_perf_map()
        report = subprocess.run([perf, "report", "-i", str(data), "--stdio", "--no-children",
                                 "--sort", "sym"], capture_output=True, text=True)
    rows = []
    for line in report.stdout.splitlines():
        words = line.split(None, 2)
        if len(words) == 3 and words[0].endswith("%") and words[1] in ("[.]", "[k]"):
            rows.append((float(words[0][:-1]), words[2].strip()))
    return rows[:top] if rows else None


def search_profiles(seconds=5.0, top=20):
    """{board: [(share %, function)]} of the default engine searching the empty 9x9 and
    19x19 boards (engine.lab.bench.search_rate), or None without perf."""
    from engine.lab.bench import search_rate
    out = {}
    for size in (9, 19):
        rows = profile(lambda: search_rate(size, 1, seconds), top)
        if rows is None:
            return None
        out[f"{size}x{size}"] = rows
    return out
