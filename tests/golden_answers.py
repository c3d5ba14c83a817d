"""Seeded answers of the engine and the trainers, recorded once and checked by test_golden.py.

The golden file (tests/golden/answers.json) was written before the package restructuring of
issue 20 by `PYTHONPATH=. python -P tests/golden_answers.py --write` (-P: not the tests
folder's `policies` package) and must not change when code only moves: every answer here goes
through the product's stable faces (the `gtp_main.py` GTP engine and the `simbal` command
line), never through module paths.

- `reg_genmove`, its root's visit counts and `genmove` on 9x9 and 19x19 positions (positions of the shipped 9x9 test set; seeded random
  19x19 openings), under several playout policies, tree priors and search parameters, all set
  over GTP (`simbal-load_weights`, `simbal-load_prior`, `simbal-param`) in one engine process;
- `simbal eval mse` on the first positions of the 5x5 test set, for two playout policies;
- one short seeded run of each trainer (`simbal train ALGO`, `simbal train-prior`): the
  written weights, rounded to 10 significant digits.

Answers that changed on purpose were re-recorded for their case alone: the `rules-greedy-rave`
case in session 53, when the rule-based playouts' mutual-atari filter began to refuse
nakade-shaped throw-ins beside a chain with an eye (policies/rulebased.py), and again in
session 62, when it let through those the self-atari correction turns into a connection, and
in session 63, when its refusals of mutual ataris began to go through Fuego's balancer.
The `rules-greedy-rave-unpruned` case was added in session 69, when the 9x9 defaults stopped
narrowing the tree's children (`unprune_k_init` 1000); the other cases pin `unprune_k_init` 5.

Uniform playouts are recorded with the playout rules off: issue 20 gives every policy the
same playout rules, so uniform playouts with the default rules changed on purpose.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "answers.json"

PLAYOUTS = 300
RULES_OFF = {"playout_fights": 0, "playout_nakade": 0}
DEFAULT_PARAMS = {"playout_fights": 1, "playout_nakade": 1}   # the shipped defaults, restored

# (label, playout weights, tree prior, search parameters) on 9x9; parameters not named keep
# their defaults, and every case restores the previous case's changes first.
CASES_9 = [
    ("default", "weights/9x9-reinforce.json", "weights/9x9-prior.json", {}),
    ("handcrafted-playout-prior", "handcrafted", "playout", {}),
    ("uniform-rules-off", "uniform", "playout", RULES_OFF),
    ("uniform-lgr", "uniform", "handcrafted", dict(RULES_OFF, lgr=1)),
    ("balance-uct-bias", "weights/9x9-balance.json", "playout",
     {"rave": 0, "bias_weight": 1, "uct_c": 0.5}),
    ("reinforce-ladders-nets", "weights/9x9-reinforce.json", "weights/9x9-prior.json",
     {"playout_ladders": 1, "ladder_nets": 1}),
    ("apprentice-score-decay", "weights/9x9-apprentice.json", "weights/9x9-prior.json",
     {"score_weight": 0.1, "rave_decay": 1, "lgr": 1}),
    ("twostep-no-rules", "weights/9x9-twostep.json", "uniform", RULES_OFF),
    ("rules-greedy-rave", "rules", "weights/9x9-prior.json", {"prune_visits": 0, "uct_c": 0}),
    ("rules-greedy-rave-unpruned", "rules", "weights/9x9-prior.json",
     {"prune_visits": 0, "uct_c": 0, "unprune_k_init": 1000}),
]
CASES_19 = [
    ("19-default", "weights/19x19-handcrafted.json", "playout", {}),
    ("19-uniform-rules-off", "uniform", "playout", RULES_OFF),
]
POSITIONS_9 = 6
POSITIONS_19 = 4


def positions_9x9():
    """The first positions of the shipped 9x9 test set: (move list, colour to play)."""
    out = []
    with open(ROOT / "data" / "9x9" / "test.jsonl") as f:
        for line in f:
            pos = json.loads(line)
            if len(pos["moves"]) >= 4:
                out.append(([f"{c} {v}" for c, v in pos["moves"]], pos["to_play"]))
            if len(out) == POSITIONS_9:
                return out
    return out


def _gtp(commands, size=9):
    """Run commands through one seeded engine process; returns the answers (text after '=')."""
    text = "".join(c + "\n" for c in commands) + "quit\n"
    # The answers were recorded with full softmax playouts on every size, and with the tree's
    # global defaults (T = 100, C = 0.1), every playout played to its end: the local playouts,
    # tree settings and mercy rule a size's defaults may choose (weights/defaults.json) are
    # tested by cases of their own.
    run = subprocess.run([sys.executable, str(ROOT / "gtp_main.py"), "--size", str(size),
                          "--playouts", str(PLAYOUTS), "--seed", "7", "--resign", "0",
                          "--param", "playout_local=0", "--param", "prune_visits=100",
                          "--param", "uct_c=0.1", "--param", "playout_mercy=0",
                          "--param", "unprune_k_init=5"],
                         input=text, capture_output=True, text=True, cwd=ROOT, timeout=900)
    answers = [a for a in run.stdout.split("\n\n") if a.strip()]
    assert len(answers) == len(commands) + 1, run.stderr[-2000:]
    return [a.strip() for a in answers[:-1]]


def openings_19x19():
    """Seeded random 19x19 openings: vertices a one-engine run accepted (legal moves)."""
    rng = random.Random(19)
    cols = "ABCDEFGHJKLMNOPQRST"
    out = []
    for k in range(POSITIONS_19):
        tries = [f"{'BW'[i % 2]} {rng.choice(cols)}{rng.randint(1, 19)}" for i in range(20 + 10 * k)]
        out.append(tries)
    # Keep only moves the engine accepts, as the game goes (a repeated point is refused).
    flat = ["boardsize 19"]
    for moves in out:
        flat.append("clear_board")
        flat += ["play " + m for m in moves]
    answers = _gtp(flat, 19)
    kept, i = [], 1
    for moves in out:
        i += 1
        good = [m for m, a in zip(moves, answers[i:i + len(moves)]) if a.startswith("=")]
        i += len(moves)
        # Colours must alternate for a natural position: drop a move that breaks it.
        seq, nxt = [], "B"
        for m in good:
            if m[0] == nxt:
                seq.append(m)
                nxt = "W" if nxt == "B" else "B"
        kept.append((seq, nxt))
    return kept


def _case_commands(cases, positions, komi):
    cmds, index = [], []
    changed = {}
    for label, weights, prior, params in cases:
        for name in changed:
            cmds.append(f"simbal-param {name} {changed[name]}")
        changed = {}
        cmds.append(f"simbal-load_weights {weights}")
        cmds.append(f"simbal-load_prior {prior}")
        for name, value in params.items():
            cmds.append(f"simbal-param {name} {value}")
            changed[name] = _default(name)
        for k, (moves, to_play) in enumerate(positions):
            cmds += ["clear_board", f"komi {komi}"] + ["play " + m for m in moves]
            # reg_genmove's search leaves its root statistics for simbal-gfx (visit counts: a
            # finer fingerprint of the search than its move), then genmove searches again.
            cmds += [f"reg_genmove {to_play}", "simbal-gfx visits", f"genmove {to_play}"]
            index.append((f"{label}/{k}", len(cmds) - 3))
    return cmds, index


def _default(name):
    defaults = {"lgr": 0, "bias_weight": 0.0, "uct_c": 0.1, "rave": 1, "playout_ladders": 0,
                "ladder_nets": 0, "score_weight": 0.0, "rave_decay": 0, "prune_visits": 100,
                "unprune_k_init": 5}
    defaults.update(DEFAULT_PARAMS)
    return defaults[name]


def genmoves():
    out = {}
    for size, cases, positions, komi in ((9, CASES_9, positions_9x9(), 7),
                                         (19, CASES_19, openings_19x19(), 7.5)):
        cmds, index = _case_commands(cases, positions, komi)
        cmds = [f"boardsize {size}"] + cmds
        answers = _gtp(cmds, size)
        for key, i in index:
            # The LABEL line only: GoGui views also carry a TEXT line since session 13.
            labels = answers[i + 2].split("LABEL")[-1].split("\n")[0].strip()
            out[key] = [answers[i + 1], labels, answers[i + 3]]
    return out


def _simbal(*args):
    """stdout of `simbal ARGS` run from the repository's root.  The command group is the one
    the `simbal` console script names (pyproject.toml), called in this process: the same
    stable face as the script, without a process start and a compiled-code load per call."""
    from importlib.metadata import entry_points

    from click.testing import CliRunner
    (script,) = entry_points(group="console_scripts", name="simbal")
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(script.load(), list(args), catch_exceptions=False)
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.stderr[-2000:]
    return result.stdout


def _rounded(values):
    return [float(f"{v:.10g}") for v in values]


def _round_all(obj):
    if isinstance(obj, float):
        return float(f"{obj:.10g}")
    if isinstance(obj, dict):
        return {k: _round_all(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_round_all(v) for v in obj]
    return obj


def _weights(body):
    """A weight file's weights by name, rounded (the file's provenance names temporary paths)."""
    return dict(zip(body["weights"], _rounded(body["weights"].values())))


def eval_mse():
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "test.jsonl"
        lines = (ROOT / "data" / "5x5" / "test.jsonl").read_text().splitlines()[:60]
        small.write_text("\n".join(lines) + "\n")
        for weights in ("uniform", "weights/5x5-balance.json"):
            result = json.loads(_simbal("eval", "mse", "--positions", str(small), "--weights",
                                        weights, "--sims", "20", "--seed", "3", "--workers", "0"))
            result.pop("positions", None)     # a temporary path
            out[weights] = _round_all(result)
    return out


TRAINERS = [
    ("apprentice", ["--data", "data/5x5/train.jsonl"]),
    ("reinforce", ["--size", "5", "--komi", "24.5"]),
    ("balance", ["--data", "data/5x5/train.jsonl", "--m", "4", "--n", "4"]),
    ("twostep", ["--data", "data/5x5/train-depth2.jsonl"]),
    ("adjust", ["--data", "data/5x5/train.jsonl", "--n", "4"]),
]


def trainers():
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for algo, args in TRAINERS:
            weights = Path(tmp) / f"{algo}.json"
            _simbal("train", algo, *args, "--iterations", "4", "--batch", "2", "--seed", "5",
                    "--workers", "0", "--out", str(weights), "--curve",
                    str(Path(tmp) / f"{algo}.curve.json"))
            out[algo] = _weights(json.loads(weights.read_text()))
        prior = Path(tmp) / "prior.json"
        _simbal("train-prior", "--data", "data/9x9/train.jsonl", "--out", str(prior),
                *TRAIN_PRIOR_ARGS)
        body = json.loads(prior.read_text())
        out["train-prior"] = {"weights": _weights(body), "patterns": body.get("patterns")}
    return out


TRAIN_PRIOR_ARGS = ["--base", "handcrafted", "--epochs", "1", "--min-count", "1", "--seed", "5"]


def collect():
    return {"genmove": genmoves(), "eval_mse": eval_mse(), "train": trainers()}


if __name__ == "__main__":
    answers = collect()
    if "--write" in sys.argv:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")
    else:
        print(json.dumps(answers, indent=1, sort_keys=True))
