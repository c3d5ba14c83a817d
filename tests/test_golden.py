"""The engine's and the trainers' seeded answers are the ones recorded before the restructuring
of issue 20 (tests/golden_answers.py says what they are and how the file was made)."""
import json

from golden_answers import GOLDEN, eval_mse, genmoves, trainers


def _golden():
    return json.loads(GOLDEN.read_text())


def test_genmove_answers_and_visit_counts_are_the_recorded_ones():
    want = _golden()["genmove"]
    got = genmoves()
    assert len(want) >= 50
    assert {k: v for k, v in got.items() if v != want.get(k)} == {}
    assert got.keys() == want.keys()


def test_eval_mse_is_the_recorded_one():
    assert eval_mse() == _golden()["eval_mse"]


def test_each_trainer_writes_the_recorded_weights():
    want = _golden()["train"]
    got = trainers()
    assert got.keys() == want.keys()
    for algo in want:
        assert got[algo] == want[algo], algo
