"""The weight-file format: read, validate, write, provenance (documented in weights/README.md).

A weight file is UTF-8 JSON, one object:

    {"format": "simbal-weights", "format_version": 1,
     "feature_set": {"name": "pattern3x3", "version": 1, "description": "..."},
     "board_sizes": [9],
     "weights": {"<weight name>": <number>, ...},       # every weight of the feature set, named
     "provenance": {"trainer": ..., "hyperparameters": {...}, "data": ..., "training_games": ...,
                    "date": "YYYY-MM-DD", "library_version": "simbal 0.1.0", ...},
     "patterns": {"radius": 3, "codes": [...], "weights": [...]}}   # optional: a tree prior's
                                    # diamond and location codes (policies/patterns.py)

Reading checks everything and refuses a bad file with a `WeightFileError` naming the file
and the problem; nothing is half-loaded, so a caller that catches it keeps what it had.
"""
import json
import math
import warnings
from dataclasses import dataclass, field
from datetime import date as _date
from importlib import metadata
from pathlib import Path

import numpy as np

from policies.features import (N_PAT, PATTERN3X3_VERSION, RULES3X3_VERSION, SHAPE2X2_VERSION,
                               pattern3x3_names, shape2x2_layout)
from policies.patterns import LOCATION_CODES, RADII, location_base

FORMAT = "simbal-weights"
FORMAT_VERSION = 1
FEATURE_SETS = {
    "pattern3x3": (PATTERN3X3_VERSION, "3x3 patterns around the move (mover-relative colours, "
                   "8 symmetries), captures, atari escapes, self-ataris, ataris, edge line, "
                   "distance to the last two moves, pass; any board size"),
    "rules3x3": (RULES3X3_VERSION, "Fuego's playout rules whose random moves are drawn by weight: "
                 "one per 3x3 pattern class around the move (mover-relative colours, 8 "
                 "symmetries; pattern3x3's classes); any board size"),
    "shape2x2": (SHAPE2X2_VERSION, "Silver & Tesauro's 1x1 and 2x2 local shapes after the move, "
                 "location-dependent and location-independent, a shape and its colour inverse "
                 "sharing one weight with opposite signs; one board size"),
}
PROVENANCE_KEYS = ("trainer", "hyperparameters", "data", "training_games", "date",
                   "library_version")
MAX_SIZE = 25


class WeightFileError(ValueError):
    """A weight file that cannot be used; the message names the file and the problem."""


class WeightFileWarning(UserWarning):
    """A weight file used outside what it was made for (another board size)."""


def feature_names(feature_set, size):
    """The weight names of a feature set on an NxN board, in the order of the weight vector."""
    if feature_set == "pattern3x3":
        return pattern3x3_names()
    if feature_set == "rules3x3":
        return pattern3x3_names()[:N_PAT]
    if feature_set == "shape2x2":
        return shape2x2_layout(size)[0]
    raise ValueError(f"unknown feature set {feature_set!r}")


def library_version():
    try:
        return "simbal " + metadata.version("simbal")
    except metadata.PackageNotFoundError:
        return "simbal (not installed)"


@dataclass
class WeightFile:
    path: str
    feature_set: str
    feature_set_version: int
    board_sizes: list
    weights: dict                      # name -> float, in file order
    provenance: dict = field(default_factory=dict)
    patterns: tuple | None = None      # (radius, sorted int64 codes, float64 weights): a prior's

    def theta(self, size, strict=False):
        """The weight vector for an NxN board, in the feature set's order.  For a size the file
        was not made for: a WeightFileWarning, weights matched by name (the rest 0), or with
        `strict` a WeightFileError."""
        names = feature_names(self.feature_set, size)
        if size not in self.board_sizes:
            msg = (f"{self.path}: made for board sizes {self.board_sizes}, "
                   f"not {size}x{size}")
            if strict:
                raise WeightFileError(msg)
            known = sum(1 for n in names if n in self.weights)
            warnings.warn(f"{msg}; using it anyway ({known} of {len(names)} weights matched by "
                          "name, the others 0)", WeightFileWarning, stacklevel=3)
        return np.array([self.weights.get(n, 0.0) for n in names], dtype=np.float64)


def _fail(path, problem):
    raise WeightFileError(f"{path}: {problem}")


def _no_duplicates(path):
    def hook(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                _fail(path, f"name {key!r} appears twice")
            seen[key] = value
        return seen
    return hook


def read_weights(path, feature_set=None):
    """Read and validate a weight file; `feature_set`, if given, is the one the caller needs."""
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        _fail(path, "no such file")
    except (OSError, UnicodeDecodeError) as err:
        _fail(path, f"cannot read it ({err})")
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates(path))
    except json.JSONDecodeError as err:
        _fail(path, f"not valid JSON, truncated or corrupt ({err})")
    if not isinstance(doc, dict):
        _fail(path, "not a weight file (the top level is not a JSON object)")
    if doc.get("format") != FORMAT:
        _fail(path, f"not a weight file (\"format\" is {doc.get('format')!r}, not {FORMAT!r})")
    version = doc.get("format_version")
    if version != FORMAT_VERSION:
        _fail(path, f"unknown format version {version!r} (this simbal reads version "
                    f"{FORMAT_VERSION})")
    fs = doc.get("feature_set")
    if not isinstance(fs, dict) or not isinstance(fs.get("name"), str):
        _fail(path, "\"feature_set\" must be an object with a \"name\"")
    name = fs["name"]
    if name not in FEATURE_SETS:
        _fail(path, f"unknown feature set {name!r} (known: {', '.join(FEATURE_SETS)})")
    if feature_set is not None and name != feature_set:
        _fail(path, f"wrong feature set: the file has {name!r}, {feature_set!r} is needed")
    fs_version = fs.get("version")
    if fs_version != FEATURE_SETS[name][0]:
        _fail(path, f"feature set {name} version {fs_version!r} is unknown (this simbal has "
                    f"version {FEATURE_SETS[name][0]})")
    sizes = doc.get("board_sizes")
    if (not isinstance(sizes, list) or not sizes
            or not all(isinstance(s, int) and not isinstance(s, bool) and 2 <= s <= MAX_SIZE
                       for s in sizes)):
        _fail(path, f"\"board_sizes\" must be a non-empty list of sizes 2..{MAX_SIZE}, "
                    f"not {sizes!r}")
    if name == "shape2x2" and len(sizes) != 1:
        _fail(path, "a shape2x2 file is made for exactly one board size (its location-dependent "
                    "weights are)")
    weights = doc.get("weights")
    if not isinstance(weights, dict):
        _fail(path, "\"weights\" must be an object of name: number")
    bad = [k for k, v in weights.items()
           if not isinstance(v, (int, float)) or isinstance(v, bool)]
    if bad:
        _fail(path, f"weight {bad[0]!r} is not a number ({weights[bad[0]]!r})"
                    + (f", and {len(bad) - 1} more" if len(bad) > 1 else ""))
    bad = [k for k, v in weights.items() if not math.isfinite(v)]
    if bad:
        _fail(path, f"weight {bad[0]!r} is {weights[bad[0]]} (weights must be finite)"
                    + (f", and {len(bad) - 1} more" if len(bad) > 1 else ""))
    expected = feature_names(name, sizes[0])
    if list(weights) != expected:
        missing = [n for n in expected if n not in weights]
        unknown = [n for n in weights if n not in set(expected)]
        if missing or unknown:
            def some(names):
                return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
            detail = ([f"missing {some(missing)}"] if missing else []) + \
                     ([f"unknown {some(unknown)}"] if unknown else [])
            _fail(path, f"wrong length: {len(weights)} weights, feature set {name} has "
                        f"{len(expected)} on {sizes[0]}x{sizes[0]} ({'; '.join(detail)})")
        # Same names in another order: accepted (a person may have edited the file).
    prov = doc.get("provenance")
    if not isinstance(prov, dict):
        _fail(path, "\"provenance\" must be an object")
    missing = [k for k in PROVENANCE_KEYS if k not in prov]
    if missing:
        _fail(path, f"provenance lacks {', '.join(missing)}")
    return WeightFile(path, name, fs_version, list(sizes),
                      {k: float(v) for k, v in weights.items()}, prov,
                      _read_patterns(path, doc.get("patterns")))


def _read_patterns(path, pats):
    """The optional "patterns" object: {"radius": R, "codes": [...], "weights": [...]}, codes
    canonical diamond codes or location codes (policies/patterns.py), strictly increasing,
    one finite weight each."""
    if pats is None:
        return None
    if not isinstance(pats, dict) or set(pats) != {"radius", "codes", "weights"}:
        _fail(path, "\"patterns\" must be an object with radius, codes and weights")
    radius, codes, weights = pats["radius"], pats["codes"], pats["weights"]
    if radius not in RADII or isinstance(radius, bool):
        _fail(path, f"pattern radius {radius!r} is not one of {RADII}")
    if (not isinstance(codes, list) or not isinstance(weights, list)
            or len(codes) != len(weights)):
        _fail(path, "pattern codes and weights must be two lists of the same length")
    limit = location_base(radius) + LOCATION_CODES
    if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < limit for c in codes):
        _fail(path, f"pattern codes must be integers in 0..{limit - 1}")
    if not all(isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w)
               for w in weights):
        _fail(path, "pattern weights must be finite numbers")
    keys = np.array(codes, np.int64)
    if np.any(np.diff(keys) <= 0):
        _fail(path, "pattern codes must be strictly increasing")
    return radius, keys, np.array(weights, np.float64)


def write_weights(path, feature_set, board_sizes, weights, provenance, date=None, patterns=None):
    """Write a weight file.  `weights` is a {name: value} dict or a vector in the feature set's
    order; `provenance` gives trainer, hyperparameters, data, training_games (date and
    library_version are filled in); `patterns` (radius, sorted codes, weights) a prior's large
    patterns.  Written to a temporary file, then renamed into place."""
    board_sizes = [int(s) for s in board_sizes]
    names = feature_names(feature_set, board_sizes[0])
    if not isinstance(weights, dict):
        values = np.asarray(weights, dtype=np.float64)
        if values.shape != (len(names),):
            raise ValueError(f"{len(values)} weights for {len(names)} names")
        weights = dict(zip(names, values.tolist()))
    if list(weights) != names:
        raise ValueError("weights must name exactly the feature set's weights, in its order")
    if not all(math.isfinite(v) for v in weights.values()):
        raise ValueError("weights must be finite")
    prov = {"trainer": None, "hyperparameters": {}, "data": None, "training_games": 0}
    prov.update(provenance)
    prov["date"] = date or prov.get("date") or _date.today().isoformat()
    prov.setdefault("library_version", library_version())
    version, description = FEATURE_SETS[feature_set]
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION,
           "feature_set": {"name": feature_set, "version": version, "description": description},
           "board_sizes": board_sizes,
           "weights": {k: float(v) for k, v in weights.items()},
           "provenance": prov}
    if patterns is not None:
        radius, codes, values = patterns
        doc["patterns"] = {"radius": int(radius), "codes": [int(c) for c in codes],
                           "weights": [float(v) for v in values]}
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path
