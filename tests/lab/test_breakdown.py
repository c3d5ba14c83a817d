"""The playout-move breakdown (engine/lab/breakdown.py, `simbal bench --breakdown`): its
replays are the recorded games, and every stage is measured (slow: compiles its kernels)."""
import pytest

from engine.lab.breakdown import LOCAL_STAGES, STAGES, local_breakdown, playout_breakdown


@pytest.mark.slow
def test_the_breakdown_replays_the_recorded_games_and_times_every_stage():
    report = playout_breakdown(9, games=30, repeats=1)
    # The timed full loop drew the same games from the same seed as the recording.
    assert report["replay_matches"]
    assert 40 < report["moves_per_playout"] < 3 * 81
    assert set(report["ns_per_move"]) == set(STAGES) == set(report["share"])
    # The board's own moves and the re-evaluation of the marked points are real work.
    assert report["ns_per_move"]["board"] > 0
    assert report["ns_per_move"]["features"] > 0
    assert sum(report["share"].values()) == pytest.approx(100, abs=0.5)


@pytest.mark.slow
def test_the_local_breakdown_replays_the_recorded_games_and_times_every_stage():
    report = local_breakdown(9, 0.41, games=30, repeats=1)
    assert report["replay_matches"]
    assert 40 < report["moves_per_playout"] < 3 * 81
    assert set(report["ns_per_move"]) == set(LOCAL_STAGES) == set(report["share"])
    # The board's moves and the fight rule's readings are real work at every move.
    assert report["ns_per_move"]["board"] > 0
    assert report["ns_per_move"]["fights"] > 0
    assert sum(report["share"].values()) == pytest.approx(100, abs=0.5)
