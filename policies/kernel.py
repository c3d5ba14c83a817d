"""The compiled seam between the engine and the playout policies.

A policy is one `Policy` namedtuple of arrays whatever its kind, so every
compiled caller (playouts, tree search, trainers) has a single signature and
a single on-disk cache entry; `kind` selects the move generator inside:

- UNIFORM: uniform over the legal moves that do not fill one's own eye
  (policies/playout.py; its arrays are placeholders);
- PATTERN3X3, SHAPE2X2: the softmax policy pi(s,a) ∝ exp(phi(s,a)·theta) over
  that feature set (policies/softmax.py, policies/features.py);
- RULES: Fuego's playout rules (policies/rulebased.py): `mogo` flags the 3x3 codes of MoGo's
  patterns; no weights (the `rules` spec), or, over the `rules3x3` feature set, one weight per
  3x3 pattern class (`pclass`) by which its random step draws; its move scores and
  probabilities are the uniform policy's.

Fields: `kind`, `size` (the board size the tables were built for; 0 = any),
`theta` (the weights, in the feature set's order), `etheta` (exp(theta), kept in
step by `softmax.sync_theta`), `pclass`/`eye` (per mover colour and 3x3 code: the
pattern class, -1 for filling one's own eye; own-eye flags), `mogo` (per mover colour, bit k
of the packed row: 1 where one of MoGo's patterns matches 3x3 code k; the rule-based
playouts', policies/builtin.mogo_code_bits), `sq_ld`/`sq_li`/`pt_ld`
(shape2x2 tables, see features.shape2x2_layout), `pat_offs`/`pat_perm`/`pat_keys`/`pat_vals`/
`pat_hkeys`/`pat_hvals` (large patterns, see `move_scores` and policies/patterns.py), `balance`
(the rule-based playouts' one piece of state, their mutual-atari balancer: policies/rulebased.py's
`balancer_refuses`; it lives as long as the policy, as Fuego's lives as long as its thread).  Build
policies with policies.load_policy; `with_gain` makes a colder or hotter copy.

Three functions form the interface the engine uses (and `playout_with_grad`, the same playout
accumulating psi = grad log pi for the trainers):
- `playout(b, c, rng, owner, pol)` plays the board out from `c` to move and
  returns the area score (Black minus White), leaving final owners in `owner`;
- `playout_moves(b, c, rng, owner, pol, moves, replies)` the same, recording the moves played
  (PASS included, colours alternating from `c`) for the tree's all-moves-as-first statistics,
  and answering with the search's last good replies (`replies`, policies/playout.py;
  NO_REPLIES for none); `playout_moves_reading` also applies the search's playout rules (set
  escapes into ladders aside, answer the last move's fight, take a nakade's vital point) and,
  for pattern3x3 with a positive RULE_LOCAL entry, plays local softmax playouts instead
  (policies/local.py: the search's `playout_local`);
- `move_scores(b, c, pol, out)` writes the policy's log-preference H(s, a) for
  every empty point into `out` (the tree's progressive bias / unpruning order):
  the softmax's, plus the weight of the move's large pattern if the policy has
  them (`pat_*` fields, policies/patterns.py: a tree prior's, which the playouts
  ignore); moves the policy never plays (illegal, simple ko, filling one's own
  eye) get EXCLUDED_SCORE, a large finite negative number.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from engine.core.board import copy_board, copy_into
from policies.features import PATTERN3X3, RULES, SHAPE2X2, UNIFORM  # noqa: F401  (re-exported)
from policies.nrt import borrow, borrowed_board
from policies.patterns import NO_CODE, pattern_hash
from policies.patterns import add_scores as add_pattern_scores
from policies.patterns import layout as pattern_layout
from policies.playout import finish_uniform
from policies.local import run_local_playout
from policies.rulebased import run_rules_playout
from policies.softmax import (EXCLUDED_SCORE, LOG_CLAMP, NO_RULES, RULE_CAPTURES,  # noqa: F401
                              RULE_CAPTURE_NAKADE, RULE_FIGHTS, RULE_LADDERS, RULE_LOCAL,
                              RULE_MERCY, RULE_NAKADE, run_playout, scores)

Policy = namedtuple("Policy", "kind size theta etheta pclass eye mogo sq_ld sq_li pt_ld "
                               "pat_offs pat_perm pat_keys pat_vals pat_hkeys pat_hvals balance")


def make_policy(kind, size, theta, pclass=None, eye=None, sq_ld=None, sq_li=None, pt_ld=None,
                patterns=None, mogo=None):
    """A Policy with every field of the one compiled type (unused tables get placeholders).
    `patterns`: (radius, sorted codes, weights) of large patterns (policies/patterns.py)."""
    def table(a, placeholder, dtype):
        return np.ascontiguousarray(placeholder if a is None else a, dtype)
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    offs, perm = np.zeros((0, 2)), np.zeros((8, 0))
    keys, vals = np.zeros(0), np.zeros(0)
    hkeys, hvals = np.full(1, NO_CODE), np.zeros(1)
    if patterns is not None:
        radius, keys, vals = patterns
        offs, perm = pattern_layout(radius)
        hkeys, hvals = pattern_hash(radius, keys, vals)
    return Policy(np.int64(kind), np.int64(size), theta,
                  np.exp(np.clip(theta, -LOG_CLAMP, LOG_CLAMP)),
                  table(pclass, np.zeros((2, 1)), np.int16), table(eye, np.zeros((2, 1)), np.int8),
                  table(mogo, np.zeros((2, 1)), np.uint8),
                  table(sq_ld, np.zeros((1, 81)), np.int32), table(sq_li, np.zeros(81), np.int32),
                  table(pt_ld, np.zeros(1), np.int32), np.ascontiguousarray(offs, np.int64),
                  np.ascontiguousarray(perm, np.int64), np.ascontiguousarray(keys, np.int64),
                  np.ascontiguousarray(vals, np.float64), np.ascontiguousarray(hkeys, np.int64),
                  np.ascontiguousarray(hvals, np.float64), np.zeros(1, np.int64))


def with_gain(pol, gain):
    """`pol` with every softmax weight multiplied by `gain`: an inverse temperature, >1 plays
    the policy's favourite moves more often (the search's `playout_gain`).  The tables are
    shared, not copied; the uniform policy has no weights and stays as it is."""
    theta = pol.theta * gain
    return pol._replace(theta=theta, etheta=np.exp(np.clip(theta, -LOG_CLAMP, LOG_CLAMP)))


def uniform_policy():
    return make_policy(UNIFORM, 0, np.zeros(0))


NO_REPLIES = np.zeros((2, 0), np.int32)


@njit(cache=True, nogil=True)
def playout_moves(b, c, rng, owner, pol, moves, replies):
    """`playout`, recording its first len(moves) moves in `moves`; the number played is
    b.meta[M_MOVES] after minus before.  The same rng state gives the same game either way."""
    if pol.kind == UNIFORM:
        return finish_uniform(borrowed_board(b), c, rng, borrow(owner), borrow(moves),
                              borrow(replies))
    if pol.kind == RULES:
        return run_rules_playout(b, c, rng, owner, pol, moves, replies, 0.0, np.zeros((2, 0)))
    return run_playout(b, c, rng, owner, pol, np.zeros((2, 0)), moves, replies, NO_RULES, b)


@njit(cache=True, nogil=True, inline='always')
def playout_moves_reading(b, c, rng, owner, pol, moves, replies, rules, scratch):
    """`playout_moves` whose softmax playouts follow `rules` (softmax.RULE_*: set escapes into
    working ladders aside, read on `scratch`, a board of b's size; answer the last move's fight;
    take a nakade's vital point).  The search's `playout_ladders`, `playout_fights` and
    `playout_nakade`; the rule-based playouts read `playout_mercy` alone (RULE_MERCY)."""
    if pol.kind == RULES:   # of the search's playout rules, the mercy rule alone
        mercy = rules[RULE_MERCY] if rules.shape[0] > RULE_MERCY else 0.0
        return run_rules_playout(b, c, rng, owner, pol, moves, replies, mercy, np.zeros((2, 0)))
    if pol.kind == UNIFORM:   # no playout rules
        return playout_moves(b, c, rng, owner, pol, moves, replies)
    if pol.kind == PATTERN3X3 and rules.shape[0] > RULE_LOCAL and rules[RULE_LOCAL] > 0.0:
        return run_local_playout(b, c, rng, owner, pol, moves, replies, rules, rules[RULE_LOCAL],
                                 scratch)
    return run_playout(b, c, rng, owner, pol, np.zeros((2, 0)), moves, replies, rules, scratch)


@njit(cache=True, nogil=True)
def playout(b, c, rng, owner, pol):
    return playout_moves(b, c, rng, owner, pol, np.zeros(0, np.int32), np.zeros((2, 0), np.int32))


@njit(cache=True, nogil=True)
def playout_with_grad(b, c, rng, owner, pol, grad, rules, scratch):
    """`playout` for the trainers (softmax kinds and `rules3x3`): the same moves for the same
    `rng` state, and grad[k-1] += sum of psi(s_t, a_t) = grad log pi(s_t, a_t) over the moves
    of colour k (grad: float64 [2, number of weights]).  Returns the score like `playout`.
    `rules` and `scratch` as in `playout_moves_reading` (NO_RULES: the plain softmax); psi is
    summed over the drawn moves only (softmax.run_playout says when that is the exact
    gradient; the rule-based playouts' psi is their weighted random draws')."""
    if pol.kind == RULES:
        mercy = rules[RULE_MERCY] if rules.shape[0] > RULE_MERCY else 0.0
        return run_rules_playout(b, c, rng, owner, pol, np.zeros(0, np.int32),
                                 np.zeros((2, 0), np.int32), mercy, grad)
    return run_playout(b, c, rng, owner, pol, grad, np.zeros(0, np.int32), np.zeros((2, 0), np.int32),
                       rules, scratch)


@njit(cache=True, nogil=True, inline='always')
def borrowed_policy(pol):
    """`pol` with borrowed arrays (policies/nrt.py); valid while `pol` lives."""
    return Policy(pol.kind, pol.size, borrow(pol.theta), borrow(pol.etheta), borrow(pol.pclass),
                  borrow(pol.eye), borrow(pol.mogo), borrow(pol.sq_ld), borrow(pol.sq_li),
                  borrow(pol.pt_ld),
                  borrow(pol.pat_offs), borrow(pol.pat_perm), borrow(pol.pat_keys),
                  borrow(pol.pat_vals), borrow(pol.pat_hkeys), borrow(pol.pat_hvals),
                  borrow(pol.balance))


@njit(cache=True, nogil=True)
def move_scores(b, c, pol, out):
    """out[p] = H(s, p), the `pol` softmax's score plus its large patterns' (softmax.scores)."""
    b = borrowed_board(b)
    pol = borrowed_policy(pol)
    scores(b, c, pol, out)
    add_pattern_scores(b, c, pol.pat_offs, pol.pat_keys, pol.pat_hkeys, pol.pat_hvals, out)


@njit(cache=True, nogil=True)
def run_playouts(b, c, n, rng, komi, pol, rules):
    """Run `n` playouts through the seam from `b` (unchanged), `c` to move, following the
    playout `rules` (softmax.RULE_*, as the search does; NO_RULES for none); returns Black's
    wins (score > komi).  The benchmark's loop (for every kind, uniform included), and a
    convenience for scripts.  `rules` has no default on purpose: numba keys an omitted array
    default by its id(), so every new process would miss the on-disk cache and recompile."""
    work = copy_board(b)
    scratch = copy_board(b)
    owner = np.zeros(b.color.shape[0], dtype=np.int8)
    no_moves = np.zeros(0, np.int32)
    no_replies = np.zeros((2, 0), np.int32)
    wins = 0
    for _ in range(n):
        copy_into(work, b)
        if playout_moves_reading(work, c, rng, owner, pol, no_moves, no_replies, rules,
                                 scratch) > komi:
            wins += 1
    return wins
