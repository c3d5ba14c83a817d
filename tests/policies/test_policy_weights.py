"""Weight files: round trip, every refusal with a message naming the file, board-size warnings,
the shipped defaults."""
import json
import warnings

import numpy as np
import pytest

from engine.core.board import new_board
from policies import (WeightFileError, WeightFileWarning, default_policy_spec, default_prior_spec,
                      default_softmax_spec, load_policy, policy_probabilities, read_weights,
                      write_weights)
from policies.builtin import handcrafted_weights
from policies.loader import BUILTIN as BUILTIN_POLICIES, WEIGHTS_DIR
from policies.weights import PROVENANCE_KEYS, feature_names

PROV = {"trainer": "test", "hyperparameters": {"alpha": 0.1, "M": 100}, "data": "none",
        "training_games": 12}


@pytest.mark.parametrize("feature_set, size", [("pattern3x3", 9), ("shape2x2", 5)])
def test_round_trip(tmp_path, feature_set, size):
    names = feature_names(feature_set, size)
    theta = np.random.default_rng(1).normal(0, 1, len(names))
    path = write_weights(tmp_path / "w.json", feature_set, [size], theta, PROV)
    wf = read_weights(path)
    assert (wf.feature_set, wf.board_sizes) == (feature_set, [size])
    assert list(wf.weights) == names
    np.testing.assert_array_equal(wf.theta(size), theta)  # exact: JSON keeps every digit
    assert all(k in wf.provenance for k in PROVENANCE_KEYS)
    assert wf.provenance["hyperparameters"] == PROV["hyperparameters"]
    pol = load_policy(str(path), size)
    np.testing.assert_array_equal(pol.theta, theta)
    # A person can read which weight is which.
    doc = json.loads(path.read_text())
    assert doc["weights"][names[7]] == theta[7]


def _good(tmp_path):
    path = write_weights(tmp_path / "good.json", "pattern3x3", [9], handcrafted_weights(), PROV)
    return path, json.loads(path.read_text())


def _refused(path, *words):
    with pytest.raises(WeightFileError) as err:
        load_policy(str(path), 9)
    msg = str(err.value)
    assert str(path) in msg, msg
    for word in words:
        assert word in msg, msg
    return msg


def _edited(tmp_path, edit):
    path, doc = _good(tmp_path)
    edit(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    return bad


def test_refusals_name_the_file_and_the_problem(tmp_path):
    def set_(key, value):
        return lambda d: d.__setitem__(key, value)
    _refused(_edited(tmp_path, set_("format_version", 2)), "unknown format version 2")
    _refused(_edited(tmp_path, set_("format", "other")), "not a weight file")
    _refused(_edited(tmp_path, lambda d: d["feature_set"].__setitem__("name", "pattern5x5")),
             "unknown feature set")
    _refused(_edited(tmp_path, lambda d: d["feature_set"].__setitem__("version", 9)),
             "version 9")
    _refused(_edited(tmp_path, lambda d: d["weights"].popitem()), "wrong length", "missing")
    _refused(_edited(tmp_path, lambda d: d["weights"].__setitem__("pat:bogus", 1.0)),
             "wrong length", "unknown")
    _refused(_edited(tmp_path, lambda d: d["weights"].__setitem__("atari", "high")),
             "'atari'", "not a number")
    _refused(_edited(tmp_path, lambda d: d["weights"].__setitem__("atari", float("nan"))),
             "'atari'", "finite")
    _refused(_edited(tmp_path, lambda d: d["weights"].__setitem__("line:1", float("inf"))),
             "'line:1'", "finite")
    _refused(_edited(tmp_path, set_("board_sizes", [])), "board_sizes")
    _refused(_edited(tmp_path, lambda d: d["provenance"].pop("date")), "provenance", "date")
    path, _ = _good(tmp_path)
    with pytest.raises(WeightFileError, match="wrong feature set"):
        read_weights(path, feature_set="shape2x2")


def test_truncated_corrupt_or_missing_files_are_refused(tmp_path):
    path, _ = _good(tmp_path)
    text = path.read_bytes()
    for name, data in (("truncated.json", text[:len(text) // 2]), ("empty.json", b""),
                       ("binary.json", bytes(range(256)) * 4), ("list.json", b"[1, 2]"),
                       ("dupe.json", text.replace(b'"atari"', b'"pass"'))):
        bad = tmp_path / name
        bad.write_bytes(data)
        _refused(bad)
    _refused(tmp_path / "absent.json", "no such file")


def test_a_bare_name_loads_the_shipped_file_and_a_path_wins(tmp_path, monkeypatch):
    by_path = load_policy(str(WEIGHTS_DIR / "9x9-reinforce.json"), 9)
    monkeypatch.chdir(tmp_path)
    by_name = load_policy("9x9-reinforce.json", 9)
    assert np.array_equal(by_name.theta, by_path.theta)
    # A file of that name in the working directory is the one meant.
    path, _ = _good(tmp_path)
    (tmp_path / "9x9-reinforce.json").write_bytes(path.read_bytes())
    assert not np.array_equal(load_policy("9x9-reinforce.json", 9).theta, by_path.theta)
    with pytest.raises(WeightFileError, match="no such file"):
        load_policy("9x9-absent.json", 9)
    with pytest.raises(WeightFileError, match="no such file"):
        load_policy("sub/9x9-reinforce.json", 9)   # only bare names look in weights/


def test_the_previous_policy_survives_a_refused_file(tmp_path):
    pol = load_policy("handcrafted", 9)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "simbal-weights", "format_version": 1, "feature')
    with pytest.raises(WeightFileError):
        pol = load_policy(str(bad), 9)
    assert policy_probabilities(new_board(9), 1, pol).sum() == pytest.approx(1.0)


def test_other_board_size_warns_or_is_refused_with_strict(tmp_path):
    path, _ = _good(tmp_path)
    with pytest.warns(WeightFileWarning, match=str(path)):
        pol = load_policy(str(path), 13)
    assert pol.theta.shape[0] == len(feature_names("pattern3x3", 13))
    with pytest.raises(WeightFileError, match="not 13x13"):
        load_policy(str(path), 13, strict=True)
    # shape2x2 weights are per size: names that exist on both boards carry over.
    shape = write_weights(tmp_path / "s.json", "shape2x2", [5],
                          np.arange(len(feature_names("shape2x2", 5)), dtype=float), PROV)
    with pytest.warns(WeightFileWarning, match="matched by name"):
        pol = load_policy(str(shape), 6)
    assert pol.theta[0] == 0.0 and pol.theta[1] == 1.0  # li1x1 and the first li2x2 weight
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_policy(str(shape), 5)


def test_shipped_defaults():
    # The rule-based playouts won the 9x9 strength check against Fuego (BENCHMARKS.md, session
    # 32) and the 13x13 and 19x19 ones against the local playouts (session 33); the softmax
    # weights they replaced are still shipped, and are the tools' softmax.
    for n, name in ((9, "9x9-reinforce.json"), (13, "13x13-handcrafted.json"),
                    (19, "19x19-handcrafted.json")):
        assert default_policy_spec(n) == "rules"
        assert default_softmax_spec(n) == str(WEIGHTS_DIR / name)
    assert read_weights(default_softmax_spec(9)).provenance["trainer"] == "reinforce"
    assert default_softmax_spec(7) == default_policy_spec(7) == "handcrafted"
    assert default_policy_spec(5) == "handcrafted"  # 5x5 files are shipped, none is the default
    assert (WEIGHTS_DIR / "5x5-twostep.json").exists()
    for n in range(2, 26):  # every default names a built-in policy or a file for its size
        spec = default_policy_spec(n)
        if spec not in BUILTIN_POLICIES:
            assert n in read_weights(spec).board_sizes
    for n in (9, 13, 19):
        wf = read_weights(WEIGHTS_DIR / f"{n}x{n}-handcrafted.json")
        assert wf.board_sizes == [n] and wf.provenance["trainer"] == "handcrafted"
        assert wf.weights == handcrafted_weights()  # the file says what the built-in policy is
        shipped = load_policy(str(WEIGHTS_DIR / f"{n}x{n}-handcrafted.json"), n)
        np.testing.assert_array_equal(shipped.theta, load_policy("handcrafted", n).theta)


def test_a_default_may_be_a_built_in_policy(tmp_path, monkeypatch):
    from policies import loader
    listed = tmp_path / "defaults.json"
    listed.write_text('{"defaults": {"9": "rules", "13": "13x13-handcrafted.json"}}')
    monkeypatch.setattr(loader, "DEFAULTS_FILE", listed)
    assert default_policy_spec(9) == "rules"
    assert load_policy(default_policy_spec(9), 9).kind == load_policy("rules", 9).kind
    assert default_policy_spec(13) == str(WEIGHTS_DIR / "13x13-handcrafted.json")
    assert default_policy_spec(19) == "handcrafted"
    assert default_softmax_spec(9) == "handcrafted"   # no "softmax" entry for it
    listed.write_text('{"defaults": {"9": "rules"}, "softmax": {"9": "9x9-apprentice.json"}}')
    assert default_softmax_spec(9) == str(WEIGHTS_DIR / "9x9-apprentice.json")


def test_unreadable_defaults_file_is_named(tmp_path, monkeypatch):
    from policies import loader
    broken = tmp_path / "defaults.json"
    broken.write_text('{"defaults": ')
    monkeypatch.setattr(loader, "DEFAULTS_FILE", broken)
    with pytest.raises(WeightFileError, match="defaults.json: unreadable"):
        default_policy_spec(9)


def test_prior_defaults_name_a_shipped_file_or_the_playout_policy(tmp_path, monkeypatch):
    from policies import loader
    for n in range(2, 26):  # every shipped prior is a readable file made for its size
        spec = default_prior_spec(n)
        assert spec == "playout" or n in read_weights(spec).board_sizes
    # The 9x9 prior, from GnuGo's moves, won its strength check (BENCHMARKS.md, session 8).
    prior = read_weights(default_prior_spec(9))
    assert prior.provenance["trainer"] == "patterns" and prior.patterns[0] == 3
    assert default_prior_spec(5) == "playout"
    listed = tmp_path / "defaults.json"
    listed.write_text('{"defaults": {}, "priors": {"9": "9x9-prior.json"}}')
    monkeypatch.setattr(loader, "DEFAULTS_FILE", listed)
    assert default_prior_spec(9) == str(WEIGHTS_DIR / "9x9-prior.json")
    assert default_prior_spec(5) == "playout"
    listed.write_text('{"defaults": {}, "priors": ["9x9-prior.json"]}')
    with pytest.raises(WeightFileError, match="defaults.json: unreadable"):
        default_prior_spec(9)
