"""Sibling moves: the candidates a search weighs at a position, valued by an oracle, and how
well a playout policy ranks them (BENCHMARKS.md, session 21).

    python data/siblings.py children POSITIONS OUT [--top 4] [--playouts 2000] [--workers 2]
    simbal data label --in OUT --out LABELLED --oracle fuego --playouts 3000
    python data/siblings.py measure LABELLED --weights W [--weights W2 ...] [--sims 256]

`children` runs the engine's default search (`--playouts` simulations) on each position of
POSITIONS and writes the positions after its `--top` most visited root moves and after the
game's move (the file's `expert`), one per distinct move: id `<position id>|<move>`, with the
position's id in `parent` and the search's visits and win rate for the move.  `measure` takes
those children labelled by an oracle and, for each playout policy, evaluates every child by
`--sims` playouts (the search's playout rules) and reports, over the families of siblings:

- the MSE of the children's values (what balancing minimises);
- the sibling MSE: the same after taking each family's mean out of both the playouts' values
  and the oracle's (what a search comparing the moves needs);
- the pairwise order: of the sibling pairs whose oracle values differ by at least 0.05, the
  share the playouts put in the same order;
- the regret: the oracle's best child's value minus that of the child the playouts rate
  highest (what choosing among the candidates by the playouts alone gives away).
"""
import argparse
import json
import math
import multiprocessing
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.core.board import PASS  # noqa: E402
from engine.core.coords import format_vertex, parse_colour, parse_vertex  # noqa: E402
from engine.play.player import Engine, Settings  # noqa: E402
from engine.search.params import default_playout_rules  # noqa: E402
from policies.data.evaluate import mc_values  # noqa: E402
from policies.data.files import read_positions  # noqa: E402
from policies.loader import load_policy  # noqa: E402

_engine = None


def _children_of(args):
    pos, top, playouts, seed = args
    global _engine
    if _engine is None or _engine.game.size != pos["size"]:
        _engine = Engine(pos["size"], pos["komi"], Settings(playouts=playouts, seed=seed,
                                                            resign=0.0))
    e = _engine
    e.game.komi = pos["komi"]
    e.game.reset(pos["size"])
    for colour, move in pos["moves"]:
        e.game.play(parse_colour(colour), parse_vertex(move, pos["size"]))
    colour = pos["to_play"]
    e.search(parse_colour(colour), total=playouts)
    stats = [s for s in e.root_stats() if s.move != PASS][:top]
    moves = {format_vertex(s.move, pos["size"]).upper(): (s.visits, s.winrate) for s in stats}
    if pos.get("expert") and pos["expert"].upper() not in ("PASS", "RESIGN"):
        moves.setdefault(pos["expert"].upper(), (0, None))
    out = []
    other = "W" if colour == "B" else "B"
    for move, (visits, winrate) in sorted(moves.items()):
        out.append({"id": f"{pos['id']}|{move}", "parent": pos["id"], "size": pos["size"],
                    "komi": pos["komi"], "moves": pos["moves"] + [[colour, move]],
                    "to_play": other, "search_visits": visits, "search_winrate": winrate,
                    "game_move": move == (pos.get("expert") or "").upper()})
    return out


def children(positions_path, out_path, top, playouts, workers, seed, limit):
    rows = [json.loads(line) for line in open(positions_path)]
    rows = rows[:limit or None]
    jobs = [(r, top, playouts, seed) for r in rows]
    done = 0
    with open(out_path, "w") as out, multiprocessing.Pool(workers) as pool:
        for family in pool.imap(_children_of, jobs, chunksize=4):
            for child in family:
                out.write(json.dumps(child) + "\n")
            done += 1
            if done % 50 == 0:
                print(f"{done}/{len(jobs)} positions", file=sys.stderr, flush=True)


def _families(labelled_path):
    """Children grouped by parent: {parent: [(index, value for the parent's mover)]}."""
    raw = [json.loads(line) for line in open(labelled_path)]
    families = {}
    for i, r in enumerate(raw):
        mover_is_black = r["to_play"] == "W"       # the child's position: the mover just played
        v = r["value_black"] if mover_is_black else 1.0 - r["value_black"]
        families.setdefault(r["id"].split("|")[0], []).append((i, v, mover_is_black))
    return {p: f for p, f in families.items() if len(f) >= 2}


def sibling_measures(families, values):
    """The module docstring's four measures of playout `values` (P(Black wins) per child,
    indexed like the labelled file) over `families`, and the per-family regrets and per-pair
    orders (1 same, 0 not) behind them, for paired comparisons."""
    sq, sib, orders, regrets = [], [], [], []
    for fam in families.values():
        star = np.array([v for _, v, _ in fam])
        mine = np.array([values[i] if black else 1.0 - values[i] for i, _, black in fam])
        sq.extend((mine - star) ** 2)
        sib.extend(((mine - mine.mean()) - (star - star.mean())) ** 2)
        for a in range(len(fam)):
            for b in range(a + 1, len(fam)):
                if abs(star[a] - star[b]) >= 0.05:
                    orders.append(float((mine[a] - mine[b]) * (star[a] - star[b]) > 0))
        regrets.append(star.max() - star[int(np.argmax(mine))])
    summary = {"families": len(families), "children": len(sq), "mse": float(np.mean(sq)),
               "sibling_mse": float(np.mean(sib)), "pairs": len(orders),
               "pair_order": float(np.mean(orders)) if orders else float("nan"),
               "regret": float(np.mean(regrets)), "regret_ci": _half_width(regrets)}
    return summary, np.array(regrets), np.array(orders)


def _half_width(xs):
    return 1.96 * float(np.std(xs, ddof=1)) / math.sqrt(len(xs))


def measure(labelled_path, weights, sims, seed):
    """Print each policy's measures, and its paired differences from the first policy's."""
    families = _families(labelled_path)
    positions = read_positions(labelled_path)
    rules = default_playout_rules()
    first = None
    for spec in weights:
        pol = load_policy(spec, positions[0].size)
        values = mc_values(positions, pol, sims, seed, rules=rules)
        summary, regrets, orders = sibling_measures(families, values)
        if first is None:
            first = (spec, regrets, orders)
        else:
            summary["vs"] = first[0]
            summary["regret_minus_first"] = float(np.mean(regrets - first[1]))
            summary["regret_minus_first_ci"] = _half_width(regrets - first[1])
            summary["pair_order_minus_first"] = float(np.mean(orders - first[2]))
            summary["pair_order_minus_first_ci"] = _half_width(orders - first[2])
        print(json.dumps({"weights": spec, "sims": sims, **summary}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("children")
    c.add_argument("positions")
    c.add_argument("out")
    c.add_argument("--top", type=int, default=4)
    c.add_argument("--playouts", type=int, default=2000)
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--limit", type=int, default=0)
    m = sub.add_parser("measure")
    m.add_argument("labelled")
    m.add_argument("--weights", action="append", required=True)
    m.add_argument("--sims", type=int, default=256)
    m.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.cmd == "children":
        children(a.positions, a.out, a.top, a.playouts, a.workers, a.seed, a.limit)
    else:
        measure(a.labelled, a.weights, a.sims, a.seed)


if __name__ == "__main__":
    main()
