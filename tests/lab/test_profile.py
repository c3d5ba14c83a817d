"""`simbal bench --profile` (engine/lab/profile.py): the perf map names numba's compiled
functions by module and name, and a profile attributes samples to them when perf is there."""
import os
import shutil

import pytest
from click.testing import CliRunner

from engine.core.board import BLACK, new_board, play
from engine.lab import profile as profile_mod
from engine.lab.cli import main


def test_readable_names_of_mangled_numba_symbols():
    assert profile_mod.readable("_ZN6engine4core5board4playB2v1E5Board") == "engine.core.board.play"
    assert profile_mod.readable("cpython._ZN8policies6kernel12run_playoutsE").startswith(
        "python wrapper of policies.kernel.run_playouts")
    assert profile_mod.readable("plain_c_symbol") == "plain_c_symbol"


def test_the_perf_map_names_every_loaded_compiled_function():
    b = new_board(5)
    play(b, 12, BLACK)                       # make sure board.play is compiled and loaded
    count = profile_mod.write_perf_map()
    path = f"/tmp/perf-{os.getpid()}.map"
    try:
        lines = open(path).read().splitlines()
        assert len(lines) == count > 0
        names = {line.split(" ", 2)[2] for line in lines}
        assert "engine.core.board.play" in names
        starts = [int(line.split()[0], 16) for line in lines]
        assert starts == sorted(starts)
    finally:
        os.remove(path)


def test_without_perf_the_command_says_so(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    result = CliRunner().invoke(main, ["bench", "--profile", "1"])
    assert result.exit_code == 1 and "perf is not installed" in result.output


@pytest.mark.skipif(shutil.which("perf") is None, reason="perf is not installed")
def test_a_profile_finds_the_playouts():
    from engine.lab.bench import playout_rate
    rows = profile_mod.profile(lambda: playout_rate(9, 1.0, repeats=1))
    if rows is None:
        pytest.skip("perf may not attach to this process here")
    shares = [share for share, _ in rows]
    assert shares == sorted(shares, reverse=True)
    assert any("policies" in name or "engine.core" in name for _, name in rows[:10])
