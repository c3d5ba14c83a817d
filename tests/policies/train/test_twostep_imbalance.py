"""`simbal eval twostep` (policies/train/twostep.imbalance_report): the two-step imbalance of a
policy on a file of depth-2 trees, checked against the plain average a uniform policy gives on
a tree holding every move, and refused by name for a missing weight file."""
import json

import numpy as np
from click.testing import CliRunner

from engine.lab.cli import main
from policies.train.twostep import imbalance_report

SIZE = 3
VERTICES = [f"{col}{row}" for col in "ABC" for row in range(1, SIZE + 1)]


def write_tree_file(path, label, seed=0):
    """One empty 3x3 board, Black to move, with every first move and every reply labelled at
    random; returns the uniform policy's two-step value (the mean over first moves of the
    mean over their replies)."""
    rng = np.random.default_rng(seed)
    children, means = [], []
    for a1 in VERTICES:
        values = rng.uniform(0, 1, SIZE * SIZE - 1)
        replies = [v for v in VERTICES if v != a1]
        children.append({"move": a1, "value_black": float(values.mean()),
                         "children": [{"move": m, "value_black": float(v)}
                                      for m, v in zip(replies, values)]})
        means.append(values.mean())
    pos = {"id": "0", "size": SIZE, "komi": 0.5, "moves": [], "to_play": "B",
           "value_black": label, "children": children}
    path.write_text(json.dumps(pos) + "\n")
    return float(np.mean(means))


def test_uniform_imbalance_is_the_squared_gap_to_the_plain_average(tmp_path):
    path = tmp_path / "trees.jsonl"
    v2 = write_tree_file(path, label=0.9)
    report = imbalance_report(path)
    assert report["n"] == 1
    assert abs(report["mean_bias"] - (0.9 - v2)) < 1e-9
    assert abs(report["imbalance"] - (0.9 - v2) ** 2) < 1e-9


def test_the_command_prints_the_report_and_names_a_missing_weight_file(tmp_path):
    path = tmp_path / "trees.jsonl"
    v2 = write_tree_file(path, label=0.2, seed=3)
    r = CliRunner().invoke(main, ["eval", "twostep", "--trees", str(path)])
    assert r.exit_code == 0, r.output
    assert abs(json.loads(r.output)["mean_bias"] - (0.2 - v2)) < 1e-9
    r = CliRunner().invoke(main, ["eval", "twostep", "--trees", str(path), "--weights",
                                  str(tmp_path / "none.json")])
    assert r.exit_code != 0 and "none.json" in r.output
