"""Playout policies: feature sets, the softmax simulation policy, weight files, baselines.

The policy side of the architecture (features -> policy -> weights -> trainers).  The engine
reaches the compiled code through the seam in policies/kernel.py only; this package's Python
API is:

- load_policy(spec, size, strict=False) -> Policy   ("uniform", "handcrafted" or a weight file)
- with_gain(pol, gain) -> Policy                     (the same weights times gain: colder/hotter)
- default_policy_spec(size) -> str                   (the best shipped playout policy for the size)
- default_softmax_spec(size) -> str                  (the best shipped softmax weights for it)
- default_prior_spec(size) -> str                    (the best shipped tree prior, or "playout")
- policy_probabilities(b, c, pol) -> np.ndarray      (pi per point, for heat maps)
- WeightFileError(ValueError), WeightFileWarning     (a file refused / used off its sizes)
- warm_up() -> seconds                               (compile every policy kernel)

Modules: features (feature sets, codes, symmetries, names, incremental update), softmax (the
compiled softmax policy, sampling, psi), kernel (the engine seam), weights (the file format),
builtin (uniform and handcrafted baselines), loader (the functions above), nrt (a numba
speed helper).
"""
from policies.kernel import with_gain  # noqa: F401
from policies.loader import BUILTIN as BUILTIN_POLICIES  # noqa: F401
from policies.loader import (WEIGHTS_DIR, default_policy_spec, default_softmax_spec,  # noqa: F401
                             default_prior_spec, default_search_params, load_policy,
                             policy_from_theta, policy_probabilities, shipped_weights, warm_up)
from policies.weights import (WeightFileError, WeightFileWarning, read_weights,  # noqa: F401
                              write_weights)
