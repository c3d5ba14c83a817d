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


def tree_line(label, seed=0, ident="0"):
    """One empty 3x3 board, Black to move, with every first move and every reply labelled at
    random, as a position-file line; and the uniform policy's two-step value (the mean over
    first moves of the mean over their replies)."""
    rng = np.random.default_rng(seed)
    children, means = [], []
    for a1 in VERTICES:
        values = rng.uniform(0, 1, SIZE * SIZE - 1)
        replies = [v for v in VERTICES if v != a1]
        children.append({"move": a1, "value_black": float(values.mean()),
                         "children": [{"move": m, "value_black": float(v)}
                                      for m, v in zip(replies, values)]})
        means.append(values.mean())
    pos = {"id": ident, "size": SIZE, "komi": 0.5, "moves": [], "to_play": "B",
           "value_black": label, "children": children}
    return json.dumps(pos) + "\n", float(np.mean(means))


def write_tree_file(path, label, seed=0):
    """A file of one tree_line; returns its uniform two-step value."""
    line, v2 = tree_line(label, seed)
    path.write_text(line)
    return v2


def test_uniform_imbalance_is_the_squared_gap_to_the_plain_average(tmp_path):
    path = tmp_path / "trees.jsonl"
    v2 = write_tree_file(path, label=0.9)
    report = imbalance_report(path)
    assert report["n"] == 1
    assert abs(report["mean_bias"] - (0.9 - v2)) < 1e-9
    assert abs(report["imbalance"] - (0.9 - v2) ** 2) < 1e-9


def test_the_report_says_how_many_trees_carry_the_imbalance(tmp_path):
    # Ten trees: nine whose labels equal their uniform two-step values (no bias), one far off.
    v2s = [tree_line(0.5, seed=s)[1] for s in range(10)]   # each tree's uniform value
    fixed = [tree_line(v2s[s], seed=s, ident=str(s))[0] for s in range(9)]
    path = tmp_path / "trees.jsonl"
    path.write_text("".join(fixed) + tree_line(0.95, seed=9, ident="9")[0])
    report = imbalance_report(path)
    assert abs(report["effective_trees"] - 1.0) < 1e-6       # one tree carries it all
    assert abs(report["top_tenth_share"] - 1.0) < 1e-6
    # Ten trees equally far off: all ten carry it, and the worst tenth holds a tenth.
    even = [tree_line(v2s[s] + 0.2, seed=s, ident=str(s))[0] for s in range(10)]
    path.write_text("".join(even))
    report = imbalance_report(path)
    assert abs(report["effective_trees"] - 10.0) < 1e-6
    assert abs(report["top_tenth_share"] - 0.1) < 1e-6


def test_the_command_prints_the_report_and_names_a_missing_weight_file(tmp_path):
    path = tmp_path / "trees.jsonl"
    v2 = write_tree_file(path, label=0.2, seed=3)
    r = CliRunner().invoke(main, ["eval", "twostep", "--trees", str(path)])
    assert r.exit_code == 0, r.output
    assert abs(json.loads(r.output)["mean_bias"] - (0.2 - v2)) < 1e-9
    r = CliRunner().invoke(main, ["eval", "twostep", "--trees", str(path), "--weights",
                                  str(tmp_path / "none.json")])
    assert r.exit_code != 0 and "none.json" in r.output
