"""data/siblings.py's measures of how playouts rank a position's candidate moves."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "data" / "siblings.py"


@pytest.fixture(scope="module")
def siblings():
    spec = importlib.util.spec_from_file_location("siblings_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_children(path, rows):
    """rows: (id, to_play of the child, value_black)."""
    with open(path, "w") as f:
        for cid, to_play, value in rows:
            f.write(json.dumps({"id": cid, "size": 9, "komi": 7.5, "moves": [],
                                "to_play": to_play, "value_black": value}) + "\n")


def test_families_take_the_movers_view_and_drop_lone_children(siblings, tmp_path):
    path = tmp_path / "children.jsonl"
    # Parent a: Black moved (children have White to play); parent b: White moved; c: alone.
    write_children(path, [("a|D4", "W", 0.7), ("a|E5", "W", 0.4), ("b|C3", "B", 0.2),
                          ("b|G7", "B", 0.9), ("c|A1", "W", 0.5)])
    fams = siblings._families(path)
    assert sorted(fams) == ["a", "b"]
    assert [v for _, v, _ in fams["a"]] == [0.7, 0.4]
    assert [round(v, 6) for _, v, _ in fams["b"]] == [0.8, 0.1]   # White's view


def test_measures_of_a_perfect_and_a_reversed_ranking(siblings, tmp_path):
    path = tmp_path / "children.jsonl"
    write_children(path, [("a|D4", "W", 0.7), ("a|E5", "W", 0.4), ("a|F6", "W", 0.45),
                          ("b|C3", "W", 0.2), ("b|G7", "W", 0.6)])
    fams = siblings._families(path)
    labels = np.array([0.7, 0.4, 0.45, 0.2, 0.6])
    same, regrets, orders = siblings.sibling_measures(fams, labels)
    assert same["mse"] == 0 and same["sibling_mse"] == 0
    assert same["pair_order"] == 1.0 and same["regret"] == 0.0
    assert same["pairs"] == 3          # (D4, E5), (D4, F6), (C3, G7); E5-F6 differ by < 0.05
    shifted, _, _ = siblings.sibling_measures(fams, labels + 0.1)
    assert shifted["mse"] == pytest.approx(0.01) and shifted["sibling_mse"] == pytest.approx(0)
    reversed_, regrets, orders = siblings.sibling_measures(fams, 1.0 - labels)
    assert reversed_["pair_order"] == 0.0
    assert list(regrets) == pytest.approx([0.7 - 0.4, 0.6 - 0.2])
