"""`simbal bench --breakdown`: what one move of a softmax playout costs, stage by stage.

`simbal bench --profile` names the compiled functions a search spends its time in, but the
playout loop inlines nearly everything into one function.  This module takes it apart by
replay instead: it records seeded pattern3x3 playouts from the empty board (the shipped
weights, no playout rules, so the recorded games are exactly what the policy drew), then
replays the same moves doing a little more each time, and times each replay by CPU time
(best of a few; the machines are shared).  The replays hold their arrays as the playout loop
does (borrowed: policies/nrt.py), so that each stage costs what it costs there.  Differences between replays are the stages:

- `board`: the board's own move (captures, liberties, ko, the 3x3 codes;
  `engine.core.board.play`), with the board copy that starts each playout;
- `marking`: the list of points whose features may have changed
  (`policies.features.play_and_mark`);
- `features`: re-evaluating those points' local weights and the row sums
  (`policies.softmax._refresh_points`), with the per-playout set-up (`new_state`);
- `draw`: the move's context factors (distance to the last moves, ko), the draw and its undo
  (`_begin`, `_draw`, `_end`): the rest of the production loop (`run_playout`, timed whole),
  which replays the same games because it draws from the same seed;
- `nakade`, `fights`: the playout rules' readings (`nakade_reply`, `fight_replies`), timed on
  top of the board replay as the search asks them at every move.

Reported as nanoseconds per playout move and as shares of the sum.

`local_breakdown` does the same for the local playouts (policies/local.py, search parameter
`playout_local`), recorded with the search's playout rules: `board`, `nakade` and `fights` as
above (each rule timed as if asked at every move; the loop asks the fight rule only when the
nakade rule has no answer, nearly always), and `window and draw`, the rest of the production
loop (`run_local_playout`, timed whole): the rule answers' checks, the window's weights
evaluated from scratch and the far draws.  The lab's tool; nothing in the engine imports it.
"""
import time

import numpy as np
from numba import njit

from engine.core.board import BLACK, M_MOVES, M_WIDTH, copy_board, copy_into, new_board, play
from engine.core.rng import make_rng
from engine.tactics.fights import MAX_REPLIES, NAKADE_MAX, fight_replies, nakade_reply
from policies.features import play_and_mark
from policies.kernel import RULE_LOCAL
from policies.local import run_local_playout
from policies.nrt import borrow, borrowed_board
from policies.softmax import (MISC_DSTAMP, MISC_NDIRTY, NO_RULES, _refresh_points, new_state,
                              run_playout)

END = -9            # marks the end of a recorded game
STAGES = ("board", "marking", "features", "draw", "nakade", "fights")
LOCAL_STAGES = ("board", "nakade", "fights", "window and draw")


@njit(cache=True, nogil=True)
def _play_out(b0, work, scratch, pol, rng, games, record):
    """`games` policy playouts from b0 (Black first) on `work` (a board of its size) by the
    production loop itself (policies.softmax.run_playout, no rules or replies), their moves
    into record[i] (END after the last)."""
    owner = np.zeros(b0.color.shape[0], np.int8)
    no_grad = np.zeros((2, 0))
    no_replies = np.zeros((2, 0), np.int32)
    for i in range(games):
        copy_into(work, b0)
        run_playout(work, BLACK, rng, owner, pol, no_grad, record[i], no_replies, NO_RULES,
                    scratch)
        record[i, min(work.meta[M_MOVES] - b0.meta[M_MOVES], record.shape[1] - 1)] = END


@njit(cache=True, nogil=True)
def _play_out_local(b0, work, scratch, pol, rng, games, record, rules):
    """`games` local playouts (the production loop, with `rules`, far weight
    rules[RULE_LOCAL]) from b0 (Black first), recorded as in _play_out."""
    owner = np.zeros(b0.color.shape[0], np.int8)
    no_replies = np.zeros((2, 0), np.int32)
    for i in range(games):
        copy_into(work, b0)
        run_local_playout(work, BLACK, rng, owner, pol, record[i], no_replies, rules,
                          rules[RULE_LOCAL], scratch)
        record[i, min(work.meta[M_MOVES] - b0.meta[M_MOVES], record.shape[1] - 1)] = END


@njit(cache=True, nogil=True)
def _replay(b0, work, pol, record, upto):
    """Replay the recorded games on `work` doing the work up to stage `upto` (0 board,
    1 marking, 2 features); returns the moves replayed."""
    b = borrowed_board(work)   # the caller's board (work), as the search's playouts do
    color, head, libs, csize, nxt, meta, mark = (b.color, b.head, b.libs, b.csize, b.nxt,
                                                 b.meta, b.mark)
    w = meta[M_WIDTH]
    etheta, pclass, theta = borrow(pol.etheta), borrow(pol.pclass), borrow(pol.theta)
    sq_ld, sq_li, pt_ld, eye = borrow(pol.sq_ld), borrow(pol.sq_li), borrow(pol.pt_ld), borrow(pol.eye)
    moves = 0
    p3 = True
    for i in range(record.shape[0]):
        copy_into(b, b0)
        if upto == 0:
            c = BLACK
            t = 0
            while record[i, t] != END:
                play(b, record[i, t], c)
                c = 3 - c
                t += 1
            moves += t
            continue
        st = new_state(b, pol, upto >= 2)
        code, wt, rows, rowmax = borrow(b.code3), borrow(st.wt), borrow(st.rows), borrow(st.rowmax)
        dirty, dmark, dfull = borrow(st.dirty), borrow(st.dmark), borrow(st.dfull)
        wmark, tact, fidx = borrow(st.wmark), borrow(st.tact), borrow(st.fidx)
        fval, done, misc = borrow(st.fval), borrow(st.done), borrow(st.misc)
        rowof, line = borrow(st.rowof), borrow(st.line)
        c = BLACK
        t = 0
        while record[i, t] != END:
            misc[MISC_NDIRTY] = 0
            misc[MISC_DSTAMP] += 1
            play_and_mark(b, color, head, libs, nxt, w, dirty, dmark, dfull, wmark, misc, False,
                          record[i, t], c)
            if upto >= 2:
                _refresh_points(misc[MISC_NDIRTY], dirty, p3, color, head, libs, csize, nxt,
                                mark, meta, line, code, wt, tact, fidx, fval, done, misc, dfull,
                                rows, rowmax, rowof, etheta, pclass, theta, sq_ld, sq_li, pt_ld,
                                eye)
            c = 3 - c
            t += 1
        moves += t
        st.misc[MISC_NDIRTY] = 0   # keeps `st` alive to here: its arrays are borrowed
    return moves


@njit(cache=True, nogil=True)
def _replay_rules(b0, work, record, which):
    """Replay the board moves and, after each, ask the next mover's rule (0 none, 1 nakade,
    2 fights); returns a checksum of the answers (so the work cannot be skipped)."""
    b = borrowed_board(work)   # the caller's board (work), as the search's playouts do
    color, head, libs, nxt, meta, mark = b.color, b.head, b.libs, b.nxt, b.meta, b.mark
    answers = np.empty(max(MAX_REPLIES, NAKADE_MAX + 1), np.int32)
    check = 0
    for i in range(record.shape[0]):
        copy_into(b, b0)
        c = BLACK
        t = 0
        while record[i, t] != END:
            play(b, record[i, t], c)
            c = 3 - c
            if which == 1:
                check += nakade_reply(color, meta, mark, c, answers)
            elif which == 2:
                check += fight_replies(color, head, libs, nxt, mark, meta, c, answers)
            t += 1
    return check


def _best_cpu(work, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def playout_breakdown(size=9, games=None, repeats=3, seed=1):
    """{'size', 'games', 'moves_per_playout', 'ns_per_move': {stage: ns}, 'share': {stage: %},
    'replay_matches': bool} for `games` recorded playouts on an empty `size` board (default:
    about a million moves' worth of work on 9x9, proportionally fewer games on larger
    boards)."""
    from policies import default_softmax_spec, load_policy

    games = games or max(20, int(8e5 / (1.2 * size * size)))
    pol = load_policy(default_softmax_spec(size), size)
    b0 = new_board(size)
    record = np.zeros((games, int(3 * size * size) + 2), np.int32)
    small = np.zeros((2, record.shape[1]), np.int32)
    work = copy_board(b0)
    scratch = copy_board(b0)
    _play_out(b0, work, scratch, pol, make_rng(seed), 2, small)          # compile outside the timing
    _replay(b0, work, pol, small, 0)
    _replay_rules(b0, work, small, 0)
    _play_out(b0, work, scratch, pol, make_rng(seed), games, record)
    again = np.zeros_like(record)
    loop = _best_cpu(lambda: _play_out(b0, work, scratch, pol, make_rng(seed), games, again), repeats)
    moves = _replay(b0, work, pol, record, 0)
    cpu = [_best_cpu(lambda k=k: _replay(b0, work, pol, record, k), repeats) for k in range(3)]
    rules = [_best_cpu(lambda k=k: _replay_rules(b0, work, record, k), repeats)
             for k in range(3)]
    seconds = {"board": cpu[0], "marking": cpu[1] - cpu[0], "features": cpu[2] - cpu[1],
               "draw": loop - cpu[2], "nakade": rules[1] - rules[0],
               "fights": rules[2] - rules[0]}
    return _report(size, games, moves, seconds, np.array_equal(record, again))


def local_breakdown(size=9, far=0.41, games=None, repeats=3, seed=1):
    """playout_breakdown's report (stages LOCAL_STAGES) for local playouts with far weight
    `far` and the search's default playout rules (module docstring)."""
    from engine.search.params import default_params, playout_rules, with_params
    from policies import default_softmax_spec, load_policy

    games = games or max(20, int(8e5 / (1.2 * size * size)))
    pol = load_policy(default_softmax_spec(size), size)
    rules = playout_rules(with_params(default_params(), playout_local=far))
    b0 = new_board(size)
    record = np.zeros((games, int(3 * size * size) + 2), np.int32)
    small = np.zeros((2, record.shape[1]), np.int32)
    work = copy_board(b0)
    scratch = copy_board(b0)
    _play_out_local(b0, work, scratch, pol, make_rng(seed), 2, small, rules)   # compile
    _replay(b0, work, pol, small, 0)
    _replay_rules(b0, work, small, 0)
    _play_out_local(b0, work, scratch, pol, make_rng(seed), games, record, rules)
    again = np.zeros_like(record)
    loop = _best_cpu(lambda: _play_out_local(b0, work, scratch, pol, make_rng(seed), games,
                                             again, rules), repeats)
    moves = _replay(b0, work, pol, record, 0)
    board = _best_cpu(lambda: _replay(b0, work, pol, record, 0), repeats)
    rule = [_best_cpu(lambda k=k: _replay_rules(b0, work, record, k), repeats) for k in range(3)]
    seconds = {"board": board, "nakade": rule[1] - rule[0], "fights": rule[2] - rule[0]}
    seconds["window and draw"] = loop - sum(seconds.values())
    return {**_report(size, games, moves, seconds, np.array_equal(record, again)), "far": far}


def _report(size, games, moves, seconds, replay_matches):
    """The breakdown's report from each stage's CPU seconds over `moves` replayed moves."""
    total = sum(max(s, 0.0) for s in seconds.values())
    return {
        "size": size,
        "games": games,
        "moves_per_playout": round(moves / games, 1),
        "ns_per_move": {k: round(1e9 * s / moves, 1) for k, s in seconds.items()},
        "share": {k: round(100 * max(s, 0.0) / total, 1) for k, s in seconds.items()},
        "replay_matches": bool(replay_matches),
    }
