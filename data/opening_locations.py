"""A tree prior with location weights for the opening only (BENCHMARKS.md, session 34).

    python data/opening_locations.py PRIOR LOCATED OUT

PRIOR: a prior without location weights (e.g. weights/19x19-prior.json); LOCATED: one trained
on the same data with `--locations` (`LOCATIONS=1 sh data/train-prior-selfplay.sh 19 DIR`).
OUT is PRIOR plus LOCATED's location weights of the opening (fewer stones than a tenth of the
points): on an empty board its moves are told apart by where they are (corners first), and
from the opening's end on it is PRIOR itself.  Session 17 found a prior with every location
weight weaker: after the opening those weights pushed moves to the second line.
"""
import sys

from policies.patterns import is_opening_location, location_base
from policies.weights import read_weights, write_weights


def merge(prior_path, located_path, out_path):
    prior, located = read_weights(prior_path), read_weights(located_path)
    if prior.patterns is None or located.patterns is None \
            or prior.patterns[0] != located.patterns[0]:
        raise SystemExit(f"{prior_path}, {located_path}: need two priors with patterns of one radius")
    radius, codes, weights = prior.patterns
    base = location_base(radius)
    if any(code >= base for code in codes):
        raise SystemExit(f"{prior_path}: has location weights already")
    opening = [(int(c), float(w)) for c, w in zip(*located.patterns[1:])
               if is_opening_location(int(c), base)]
    merged = sorted(list(zip(map(int, codes), map(float, weights))) + opening)
    provenance = {**prior.provenance, "opening_locations": {
        "from": str(located_path), "codes": len(opening),
        "how": "data/opening_locations.py: the location weights of the opening alone"}}
    write_weights(out_path, prior.feature_set, prior.board_sizes, prior.weights, provenance,
                  patterns=(radius, [c for c, _ in merged], [w for _, w in merged]))
    print(f"{out_path}: {len(codes)} patterns of {prior_path} and {len(opening)} opening "
          f"location weights of {located_path}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    merge(*sys.argv[1:])
