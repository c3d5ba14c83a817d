"""Offline trainers of the playout policy (issue 5): one module per algorithm, one shared loop.

- apprentice: maximum likelihood of expert moves          (apprentice.py)
- reinforce:  REINFORCE by self-play                       (reinforce.py)
- balance:    policy-gradient simulation balancing, Alg. 1 (balance.py)
- twostep:    two-step simulation balancing, Alg. 2        (twostep.py)
- adjust:     simulation adjusting, gap or prob objective  (adjust.py)
- siblings:   balancing of sibling moves' differences      (siblings.py)

kernels.py holds their compiled work units, loop.py the loop (cluster, schedule, checkpoints,
progress, curve, weight file), curves.py the plots, inputs.py the training data as arrays,
reproduce.py the paper's experiment end to end.  `train(...)` is what `simbal train` calls.
"""
from pathlib import Path

import numpy as np

from engine.core.board import BLACK, new_board
from policies.data.files import DataFileError, read_positions
from policies.kernel import NO_RULES
from policies.train.adjust import Adjust
from policies.train.apprentice import Apprentice
from policies.train.balance import Balance
from policies.train.inputs import Item, describe, load_items
from policies.train.loop import Settings, run
from policies.train.reinforce import Reinforce
from policies.train.siblings import Siblings
from policies.train.twostep import TwoStep

TRAINERS = {t.name: t for t in (Apprentice, Reinforce, Balance, TwoStep, Adjust, Siblings)}
# The trainers whose work runs playouts, which can follow the search's playout rules.
PLAYING_OUT = ("reinforce", "balance", "adjust", "siblings")


def default_feature_set(size):
    """shape2x2 on the small boards of the paper, pattern3x3 from 7x7 up."""
    return "shape2x2" if size <= 6 else "pattern3x3"


def make_settings(algo, data, test, size, features, alpha, schedule, decay, iterations, batch,
                  seed, init, eval_every, eval_sims, hyper, optimizer="sgd", l2=0.0, rules=None):
    """Settings from command-line values: the board size from the data (or test) file unless
    given, the feature set by size unless given, the trainer's own options only (None: its
    default).  `rules`: the playouts' rules vector (policies.kernel RULE_*), for the trainers
    that play out (PLAYING_OUT) and the test evaluation; None for the plain policy."""
    if rules is not None and np.any(rules) and algo not in PLAYING_OUT:
        raise ValueError(f"{algo} plays no playouts to apply playout rules to (rules are for "
                         f"{', '.join(PLAYING_OUT)})")
    if size is None:
        source = data or test
        if not source:
            raise DataFileError("give --size, or a --data or --test file to take it from")
        size = read_positions(source)[0].size
    known = TRAINERS[algo].hyper
    hyper = {k: v for k, v in hyper.items() if k in known and v is not None}
    return Settings(algo, size, features or default_feature_set(size), alpha, schedule, decay,
                    iterations, batch, seed, init, eval_every, eval_sims, hyper=hyper,
                    optimizer=optimizer, l2=l2,
                    rules=[] if rules is None or not np.any(rules) else
                    [float(r) for r in rules])


def make_trainer(name, items, hyper, rules=()):
    """Trainer `name` on `items`; `rules` (a RULE_* vector, empty for none) for those that play
    out."""
    cls = TRAINERS[name]
    if name in PLAYING_OUT:
        return cls(items, {**cls.hyper, **hyper}, rules_vector(rules))
    return cls(items, {**cls.hyper, **hyper})


def rules_vector(rules):
    """Settings.rules (a list, empty for none) as the compiled playouts take it."""
    return np.array(rules, dtype=np.float64) if len(rules) else NO_RULES


def train(settings, data=None, test=None, out=None, curve=None, komi=None, resume=False,
          checkpoint_seconds=30.0, progress=True, test_limit=0, report=None, cluster=None):
    """Train `settings.trainer` on the position file `data` (reinforce: optional start
    positions), tracking the MSE on the position file `test`; writes the weight file `out`
    (default weights/<N>x<N>-<trainer>.json), the curve `curve` (.json + .png; default
    runs/train/<out's stem>.curve.json, or runs/train/<N>x<N>-<trainer>.curve.json without
    `out`) and a checkpoint beside the curve.
    Returns (weight file path, curve document)."""
    cls = TRAINERS[settings.trainer]
    size = settings.size
    tag = f"{size}x{size}-{settings.trainer}"
    # Named after the weight file, so that two runs of one trainer side by side do not
    # overwrite each other's curve and checkpoint (a resumed run checks the settings, not
    # the data, so it could continue the other run's).
    default_curve = Path("runs/train") / f"{Path(out).stem if out else tag}.curve.json"
    out = Path(out or Path("weights") / f"{tag}.json")
    curve = Path(curve or default_curve)
    test_positions = None
    if test:
        test_positions = read_positions(test)
        if test_limit:
            test_positions = test_positions[:test_limit]
        if any(p.value_black is None for p in test_positions):
            raise DataFileError(f"{test}: every test position needs a label (value_black)")
        if any(p.size != size for p in test_positions):
            raise DataFileError(f"{test}: positions are not {size}x{size}")
    if data:
        items = load_items(data, cls.need, report)
        if int(items[0].board.meta[0]) != size:
            raise DataFileError(f"{data}: positions are {int(items[0].board.meta[0])}x"
                            f"{int(items[0].board.meta[0])}, not {size}x{size}")
    elif cls.need:
        raise DataFileError(f"{settings.trainer} needs a data file (--data) with "
                        f"{', '.join(cls.need)}")
    else:
        if komi is None:
            if not test_positions:
                raise DataFileError("self-play from the empty board needs --komi (or a --test file "
                                "to take it from)")
            komi = test_positions[0].komi
        items = [Item(new_board(size), BLACK, float(komi), id="empty")]
    settings.hyper = {**cls.hyper, **settings.hyper}
    trainer = make_trainer(settings.trainer, items, settings.hyper, settings.rules)
    evaluator = None
    if test_positions:
        from policies.train.loop import Evaluator
        evaluator = Evaluator(test_positions, settings.eval_sims, settings.eval_seed,
                              rules_vector(settings.rules))
    data_info = describe(data) if data else {"start": f"empty {size}x{size} board, komi {komi}"}
    data_info["test"] = describe(test) if test else None
    result = run(trainer, settings, out, curve, curve.with_suffix(".ckpt.json"), resume,
                 evaluator, data_info, checkpoint_seconds, progress, cluster)
    return out, result
