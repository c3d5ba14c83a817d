"""From a policy spec to a compiled `Policy`: built-in names or weight files; the default per
board size; probabilities for display; compiling every kernel ahead of use (`warm_up`)."""
import json
import time
from pathlib import Path

import numpy as np

from policies.builtin import handcrafted_weights, mogo_code_bits
from policies.features import (PATTERN3X3, RULES, SHAPE2X2, pattern_tables, playable_classes,
                               shape2x2_layout)
from policies.kernel import make_policy, uniform_policy
from policies.softmax import probabilities
from policies.weights import WeightFileError, feature_names, read_weights

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS_DIR = ROOT / "weights"
BUILTIN = ("uniform", "handcrafted", "rules")
# Which shipped file is the default for each board size: chosen by strength checks, not by
# the trainer's name (a trained file can lose to the handcrafted weights).
DEFAULTS_FILE = WEIGHTS_DIR / "defaults.json"


def policy_from_theta(feature_set, theta, size, patterns=None):
    """The Policy over `feature_set` (a softmax, or for rules3x3 the rule-based playouts' random
    step) with weight vector `theta` (in the order of
    weights.feature_names(feature_set, size)) for NxN boards; `patterns` (radius, codes,
    weights) adds large patterns to its move scores (a tree prior's)."""
    theta = np.asarray(theta, dtype=np.float64)
    expected = len(feature_names(feature_set, size))
    if theta.shape != (expected,):
        raise ValueError(f"{feature_set} on {size}x{size} has {expected} weights, "
                         f"not {theta.shape}")
    _, eye, _ = pattern_tables()
    if feature_set == "pattern3x3":
        return make_policy(PATTERN3X3, 0, theta, playable_classes(), eye, patterns=patterns)
    if feature_set == "rules3x3":
        return rules_policy(theta)
    if feature_set == "shape2x2":
        _, sq_ld, sq_li, pt_ld = shape2x2_layout(size)
        return make_policy(SHAPE2X2, size, theta, pattern_tables()[0], eye, sq_ld, sq_li, pt_ld,
                           patterns)
    raise ValueError(f"unknown feature set {feature_set!r}")


def rules_policy(theta=None):
    """The rule-based playouts (policies/rulebased.py): Fuego's uniform random step, or with
    `theta` (rules3x3 weights, one per 3x3 pattern class) a random step drawn by them."""
    if theta is None or len(theta) == 0:
        return make_policy(RULES, 0, np.zeros(0), mogo=mogo_code_bits())
    return make_policy(RULES, 0, theta, pattern_tables()[0], mogo=mogo_code_bits())


def builtin_theta(spec, feature_set, size):
    """A built-in policy as weights of `feature_set` on `size` boards (a trainer's starting
    point): "uniform" is all zeros in any feature set (every candidate alike; over rules3x3,
    Fuego's uniform random step); "handcrafted" exists only over pattern3x3; "rules" has no
    weights."""
    names = feature_names(feature_set, size)
    if spec == "uniform":
        return np.zeros(len(names))
    if spec != "handcrafted" or feature_set != "pattern3x3":
        raise WeightFileError(f"{spec}: not a built-in {feature_set} policy (the built-in "
                              f"policies are {', '.join(BUILTIN)}; handcrafted is pattern3x3, "
                              f"rules has no weights)")
    weights = handcrafted_weights()
    return np.array([weights[n] for n in names])


def load_policy(spec, size, strict=False):
    """The Policy for `spec` on a `size` board: "uniform", "handcrafted", "rules" (Fuego's playout
    rules, policies/rulebased.py), or the path of a weight file.  A file made for other board
    sizes is used with a WeightFileWarning, or refused with `strict`; any unusable file raises
    WeightFileError (nothing else changes).  A bare file name that is not a path from here
    names a shipped file in weights/ (`--weights 9x9-reinforce.json`)."""
    if isinstance(spec, str) and spec in BUILTIN:
        if spec == "uniform":
            return uniform_policy()
        if spec == "rules":
            return rules_policy()
        return policy_from_theta("pattern3x3", builtin_theta(spec, "pattern3x3", size), size)
    path = Path(spec)
    if not path.exists() and path.name == str(spec) and (WEIGHTS_DIR / path).exists():
        path = WEIGHTS_DIR / path
    if not path.exists():
        raise WeightFileError(f"{spec}: no such file (the built-in policies are "
                              f"{', '.join(BUILTIN)})")
    wf = read_weights(path)
    return policy_from_theta(wf.feature_set, wf.theta(size, strict), size, wf.patterns)


def default_policy_spec(size):
    """The best shipped playout policy for an NxN board, as weights/defaults.json names it: a
    file in weights/, or a built-in policy by name (e.g. "rules"); the built-in "handcrafted"
    for sizes it does not list."""
    try:
        defaults = json.loads(DEFAULTS_FILE.read_text())["defaults"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise WeightFileError(f"{DEFAULTS_FILE}: unreadable ({e})") from None
    name = defaults.get(str(size))
    if not name:
        return "handcrafted"
    return name if name in BUILTIN else str(WEIGHTS_DIR / name)


def default_softmax_spec(size):
    """The best shipped softmax playout weights for an NxN board: the default policy when it has
    weights, else the file defaults.json names under "softmax" (9x9: the weights the rule-based
    default replaced), else "handcrafted".  For the tools that time or replay softmax
    playouts, whatever the engine's default."""
    spec = default_policy_spec(size)
    if spec not in BUILTIN or spec == "handcrafted":
        return spec
    try:
        name = json.loads(DEFAULTS_FILE.read_text()).get("softmax", {}).get(str(size))
    except (OSError, ValueError, AttributeError) as e:
        raise WeightFileError(f"{DEFAULTS_FILE}: unreadable ({e})") from None
    return str(WEIGHTS_DIR / name) if name else "handcrafted"


def default_search_params(size):
    """The search parameters weights/defaults.json sets for an NxN board ("params"), over
    engine/search/params.py's defaults: those whose best value was measured with that size's
    shipped weights (e.g. the far weight of local playouts, which is on their scale)."""
    try:
        params = json.loads(DEFAULTS_FILE.read_text()).get("params", {}).get(str(size), {})
        return {str(name): float(value) for name, value in params.items()}
    except (OSError, ValueError, AttributeError, TypeError) as e:
        raise WeightFileError(f"{DEFAULTS_FILE}: unreadable params ({e})") from None


def default_prior_spec(size):
    """The best shipped tree prior for an NxN board, as weights/defaults.json names it under
    "priors"; "playout" (the playout policy's own move scores) for sizes it does not list."""
    try:
        priors = json.loads(DEFAULTS_FILE.read_text()).get("priors", {})
        name = priors.get(str(size))
    except (OSError, ValueError, AttributeError) as e:
        raise WeightFileError(f"{DEFAULTS_FILE}: unreadable ({e})") from None
    return str(WEIGHTS_DIR / name) if name else "playout"


def shipped_weights(size, priors=False):
    """The names of the weight files in weights/ made for an NxN board: its tree priors with
    `priors`, else its playout weights."""
    files = sorted(p.name for p in WEIGHTS_DIR.glob(f"{size}x{size}-*.json"))
    return [f for f in files if f.endswith("-prior.json") == priors]


def policy_probabilities(b, c, pol):
    """pi(s, a) for colour `c` to move at every point of board `b` (0 for illegal moves and for
    filling one's own eye, which playouts never play), as a float64 array of board length."""
    out = np.zeros(b.color.shape[0])
    probabilities(b, c, pol, out)
    return out


def warm_up():
    """Compile (or load from numba's cache) every policy kernel by running it once on a small
    board, for each kind of policy; returns the seconds it took."""
    from engine.core.board import BLACK, new_board, play
    from engine.core.rng import make_rng
    from policies.kernel import NO_RULES, move_scores, playout, playout_with_grad, run_playouts
    from policies.softmax import psi, sample_moves

    start = time.perf_counter()
    size = 5
    board = new_board(size)
    play(board, 2 * (size + 2) + 2, BLACK)
    rng = make_rng(1)
    owner = np.zeros(board.color.shape[0], np.int8)
    scores = np.zeros(board.color.shape[0])
    counts = np.zeros(board.color.shape[0], np.int64)
    shape = policy_from_theta("shape2x2", np.zeros(len(feature_names("shape2x2", size))), size)
    for pol in (uniform_policy(), load_policy("handcrafted", size), shape,
                load_policy("rules", size)):
        run_playouts(board, 2, 2, rng, 0.5, pol, NO_RULES)
        move_scores(board, 2, pol, scores)
        policy_probabilities(board, 2, pol)
        work = new_board(size)
        playout(work, BLACK, rng, owner, pol)
        if pol.kind in (PATTERN3X3, SHAPE2X2):
            grad = np.zeros((2, pol.theta.shape[0]))
            work = new_board(size)
            playout_with_grad(work, BLACK, rng, owner, pol, grad, NO_RULES, work)
            psi(board, 2, pol, board.empties[0], grad, 1)
            sample_moves(board, 2, pol, rng, counts, 2)
    return time.perf_counter() - start
