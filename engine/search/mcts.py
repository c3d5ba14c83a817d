"""Compiled Monte-Carlo tree search: UCT with progressive bias and progressive unpruning.

One simulation descends from the root choosing children, expands a leaf whose
visits reached `expand_visits`, plays the rest of the game with the playout
policy, and backs the result up the path.  The selection rule is Chaslot et
al.'s ("Progressive strategies for MCTS"; ../shared/ALGORITHMS.md):

- below `prune_visits` (T) visits a node follows the prior policy: a child is
  sampled with probability proportional to exp(H) (the soft start);
- from T on, only the `k_init` children best by H are eligible, one more each
  time the node's visits pass A·B^(k − k_init) (progressive unpruning; a k_init
  of at least the node's children, the 9x9 default, keeps every child eligible,
  as in Fuego), and the child maximising  v + C·sqrt(ln n_p / n_k) + W·H/(n_k + 1)  is taken
  (UCT plus progressive bias); unvisited eligible children come first, in
  order of H;
- with RAVE on, v blends the child's own mean with its all-moves-as-first mean,
  β = ñ / (n + ñ + n·ñ/equiv); with `rave_decay` a simulation's AMAF update counts more for
  a move played soon after the node than for one played near the simulation's end; with
  `rave_skip` s, a selection ignores RAVE with probability s (Fuego's randomized RAVE).

With `score_weight` w > 0 a simulation's result is (1 − w)·win + w·(1 + m)/2, m its margin
over `score_scale` clipped to [−1, 1] (Pachi's val_scale), so that the search prefers safer
wins to the narrowest one.

With `lgr` on, the playouts answer the previous move with its last good reply
(LGRF-1, Baier & Drake 2010): after each simulation, every move of the
winner (tree part and playout) becomes its colour's stored reply to the move
before it, and the loser's moves are forgotten as replies.

With `playout_ladders` on, the playouts too set aside escapes into working ladders; with
`playout_fights` p, a playout move answers the last move's atari or two-liberty fight with
probability p, and with `playout_nakade` q takes the vital point of a small space the last
move was played in with probability q (engine/tactics/fights.py).

H comes from the prior policy (policies/kernel.move_scores) once per node, when it is
expanded, corrected by the tree's own ladder reading (engine/tactics/ladders.py), which the playouts
lack; with `ladder_nets` that reading also tries loose net moves (geta).  The prior may be
the playout policy itself or another one (a softmax trained to predict a strong player's
moves, `--prior`): the playouts want balance, the tree wants the best move first.  With
`crit_weight`, H also rises with each point's criticality in this move's simulations so far
(Coulom 2009; the ownership counts, tree.py), once `crit_min` simulations have counted it:
nodes expanded from then on sort by it, and the root's children are sorted again then.  Every
constant is a named field of `params` (params.py: `PARAMS`), settable from the command line
and GTP.  The loop runs in batches called from Python (engine/play/player.py), which watches
the clock between them.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from engine.core.board import (BLACK, M_MOVES, M_NEMPTY, M_PASSES, PASS, WHITE, area_score,
                               copy_board, copy_into, is_eye, is_legal, play)
from engine.core.jit import no_refcount
from engine.core.rng import rand_float
from engine.search.params import playout_rules
from engine.search.tree import T_OWN_BLACK, T_OWN_SIMS, allocate, borrowed_tree, reset_node
from engine.tactics.ladders import ladder_adjust, ladder_scratch
from policies.kernel import borrowed_policy, move_scores, playout_moves, playout_moves_reading
from policies.nrt import borrowed_board

# What a search starts from: the position, the colour to move, komi, and the moves the caller
# forbids, by depth: `exclude[d, p]` = 1 keeps move p out of the nodes d plies below the root
# (row 0: superko, or outside a restricted genmove's set; deeper rows: KataGo's allow/avoid
# with `untildepth`).  Depths past the last row are unrestricted.
Root = namedtuple("Root", "board to_play komi exclude")


def unrestricted(points, depths=1):
    """An `exclude` that forbids nothing: `depths` rows of zeros."""
    return np.zeros((depths, points), np.int8)


@njit(cache=True)
def unpruned_count(visits, n_child, params, known=0):
    """How many of a node's children (sorted by H) are eligible at `visits` visits; `known`, a
    count the node had at fewer visits, is where the schedule's walk starts (visits only grow,
    so the count does too, and each selection pays for one threshold, not all of them)."""
    k = max(min(int(params.unprune_k_init), n_child), known)
    if k < 1:
        k = 1
    while k < n_child and visits >= params.unprune_a * params.unprune_b ** (k - params.unprune_k_init):
        k += 1
    return k


@njit(cache=True)
def expand(tree, node, b, c, prior, params, scores, exclude, depth=0):
    """`expand_into` with buffers of its own (for callers outside the search loop)."""
    points = scores.shape[0]
    return expand_into(tree, node, depth, b, c, prior, params, scores, exclude,
                       np.empty(points + 1, np.int32), np.empty(points), np.empty(points, np.int64),
                       np.empty(points, np.int64), ladder_scratch(b))


@njit(cache=True, nogil=True)
def sort_by_score(h, n, order, tmp):
    """order[:n] = the indices of h[:n] by decreasing value, equal values in index order (as
    np.argsort(-h, kind="mergesort")), by a bottom-up merge sort in `order` and `tmp`: no
    allocation, which an expansion per simulation or two would otherwise pay for."""
    for i in range(n):
        order[i] = i
    src, dst = order, tmp
    in_order = True
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                # The right run's element goes first only when strictly greater: stable.
                if j < hi and (i >= mid or h[src[j]] > h[src[i]]):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
        src, dst = dst, src
        in_order = not in_order
        width *= 2
    if not in_order:
        order[:n] = tmp[:n]


@njit(cache=True)
def expand_into(tree, node, depth, b, c, prior, params, scores, exclude, moves, h, order, tmp,
                ls):
    """Create the children of `node` (position `b`, `c` to move, `depth` plies below the
    root): every legal move that does not fill c's own eye, sorted by H (the `prior` policy's
    move scores, corrected by the ladder reading when `depth` < `ladder_depth` or that is 0),
    plus PASS last.
    False if the pool is full.

    A child's prior is its H minus the best child's (H is a log-preference, defined up to a
    constant; so normalised, progressive bias only ever holds worse moves back).  With RAVE
    and `prior_visits`, a child also starts with that many virtual AMAF games won at the rate
    sigmoid(prior_gain * (H - centre)): the policy's opinion, relative to an average move
    (centre = log mean exp H, or the fixed `prior_center`), until real statistics outweigh it;
    with `rave_inherit`, up to that many more at the rate the same move has two plies up.
    With `crit_weight`, H rises by that times each point's criticality once `crit_min`
    simulations have counted it.
    `moves` (points + 1), `h`, `order` and `tmp` (points each) are scratch, and `ls` the ladder
    reading's (engine/tactics/ladders.py's LadderScratch)."""
    # Borrowed views: the loops below read the records' fields once a point or child, which
    # numba would reference-count each time (policies/nrt.py).
    b = borrowed_board(b)
    tree = borrowed_tree(tree)
    n = b.meta[M_NEMPTY]
    count = 0
    for i in range(n):
        p = b.empties[i]
        if exclude[p] == 0 and not is_eye(b, p, c) and is_legal(b, p, c):
            moves[count] = p
            count += 1
    start = allocate(tree, count + 1)
    if start < 0:
        return False
    move_scores(b, c, prior, scores)
    for i in range(count):
        h[i] = scores[moves[i]]
    if params.ladder_depth <= 0.0 or depth < params.ladder_depth:
        ladder_adjust(b, c, moves, count, h, params.ladder_escape, params.ladder_capture,
                      int(params.ladder_nets), ls)
    if params.crit_weight != 0.0 and tree.meta[T_OWN_SIMS] >= max(params.crit_min, 1.0):
        for i in range(count):
            h[i] += params.crit_weight * criticality(tree, moves[i])
    sort_by_score(h, count, order, tmp)  # stable: equal H keeps board order
    top = h[order[0]] if count > 0 else 0.0
    low = h[order[count - 1]] if count > 0 else 0.0
    prior_n = params.prior_visits if params.rave > 0.0 else 0.0
    # The centre of the RAVE priors, relative to the top: log mean exp of the candidates' H,
    # or a fixed H, so that one overwhelming move (a capture) does not make the rest look lost.
    mean = 0.0
    if params.prior_center >= 0.0:
        mean = params.prior_center - top
    elif prior_n > 0.0 and count > 0:
        for i in range(count):
            mean += np.exp(h[i] - top)
        mean = np.log(mean / count)
    for i in range(count + 1):
        j = start + i
        move = moves[order[i]] if i < count else PASS
        prior = h[order[i]] - top if i < count else low - top - 1.0
        reset_node(tree, j, move, node, prior)
        if prior_n > 0.0:
            tree.rave_n[j] = prior_n
            tree.rave_w[j] = prior_n / (1.0 + np.exp(-params.prior_gain * (prior - mean)))
    if params.rave > 0.0 and params.rave_inherit > 0.0:
        _inherit_rave(tree, node, start, count, prior_n, params.rave_inherit, tmp)
    tree.child_start[node] = start
    tree.n_child[node] = count + 1
    # A heuristic that cannot tell the moves apart (the uniform policy) must not prune them:
    # `allowed` = all children marks such a node; 0 leaves it to the unpruning schedule
    # (select_child keeps the count reached there).
    flat = count == 0 or top == low
    tree.allowed[node] = count + 1 if flat else 0
    return True


@njit(cache=True, nogil=True)
def _inherit_rave(tree, node, start, count, prior_n, cap, where):
    """Give the `count` new children of `node` (from `start`, PASS after them) up to `cap`
    AMAF games each of the same move at the node's grandparent, where the same colour was to
    move, at the rate seen there (its virtual prior games not counted in the number, the
    rate taken whole).  The grandparent's AMAF value is global knowledge the local pattern
    prior lacks: which points mattered two plies ago, from many more simulations than the new
    node will see for a while.  `where` (points) is scratch: each point's child index at the
    grandparent."""
    parent = tree.parent[node]
    if parent < 0:
        return
    grand = tree.parent[parent]
    if grand < 0 or tree.n_child[grand] == 0:
        return
    where[:] = -1
    first = tree.child_start[grand]
    for k in range(first, first + tree.n_child[grand] - 1):   # PASS is last
        where[tree.move[k]] = k
    for j in range(start, start + count):
        k = where[tree.move[j]]
        if k < 0:
            continue
        real = tree.rave_n[k] - prior_n
        if real < 1.0:
            continue
        n = min(real, cap)
        tree.rave_n[j] += n
        tree.rave_w[j] += n * tree.rave_w[k] / tree.rave_n[k]


@njit(cache=True, nogil=True)
def criticality(tree, p):
    """Point p's criticality over the simulations `tree.owned` counts (Coulom 2009): the
    covariance of owning p with winning, P(p is the winner's) - (P(p is Black's) P(Black wins)
    + P(p is White's) P(White wins)); 0 for a point whose owner does not bear on the result
    (settled, or won and lost alike), up to 1/2 for one whose owner decides a game that
    either side wins half the time.  Drawn simulations are not counted."""
    n = tree.meta[T_OWN_SIMS]
    if n == 0:
        return 0.0
    black = tree.meta[T_OWN_BLACK] / n
    owned = tree.owned
    return (owned[2, p] - owned[0, p] * black - owned[1, p] * (1.0 - black)) / n


@njit(cache=True)
def resort_children(tree, node, params, key, order, tmp):
    """Sort `node`'s children (PASS stays last) again by their prior plus `crit_weight` times
    their criticality, as `expand_into` sorts a node expanded once criticality is known, so
    that progressive unpruning reaches the critical points of a node made before (the root).
    Statistics move with their child; the grandchildren's parent links follow.  The priors
    are renormalised to the new best (0); `allowed` stays a count.  `key`, `order` and `tmp`
    (points each) are scratch."""
    first = tree.child_start[node]
    count = tree.n_child[node] - 1
    if count < 2:
        return
    for i in range(count):
        key[i] = tree.prior[first + i] + params.crit_weight * criticality(tree, tree.move[first + i])
    sort_by_score(key, count, order, tmp)
    top = key[order[0]]
    move = tree.move[first:first + count].copy()
    child_start = tree.child_start[first:first + count].copy()
    n_child = tree.n_child[first:first + count].copy()
    allowed = tree.allowed[first:first + count].copy()
    visits = tree.visits[first:first + count].copy()
    wins = tree.wins[first:first + count].copy()
    rave_n = tree.rave_n[first:first + count].copy()
    rave_w = tree.rave_w[first:first + count].copy()
    score = tree.score[first:first + count].copy()
    score2 = tree.score2[first:first + count].copy()
    for i in range(count):
        o = order[i]
        j = first + i
        tree.move[j] = move[o]
        tree.child_start[j] = child_start[o]
        tree.n_child[j] = n_child[o]
        tree.allowed[j] = allowed[o]
        tree.visits[j] = visits[o]
        tree.wins[j] = wins[o]
        tree.prior[j] = key[o] - top
        tree.rave_n[j] = rave_n[o]
        tree.rave_w[j] = rave_w[o]
        tree.score[j] = score[o]
        tree.score2[j] = score2[o]
        for g in range(child_start[o], child_start[o] + n_child[o]):
            tree.parent[g] = j
    tree.prior[first + count] = tree.prior[first + count - 1] - 1.0   # PASS, as expand_into


@njit(cache=True)
def _sample_by_prior(tree, node, rng):
    """A child drawn with probability ∝ exp(H) (the playout policy's choice); PASS only if alone."""
    first = tree.child_start[node]
    count = tree.n_child[node] - 1  # PASS is last
    if count <= 0:
        return first
    top = tree.prior[first]  # children are sorted by H, so the first is the largest
    total = 0.0
    for k in range(first, first + count):
        total += np.exp(tree.prior[k] - top)
    x = rand_float(rng) * total
    for k in range(first, first + count):
        x -= np.exp(tree.prior[k] - top)
        if x < 0.0:
            return k
    return first + count - 1


@no_refcount
def select_child(tree, node, params, rng):
    """The child to descend into (see the module docstring for the rule)."""
    visits, wins, prior = tree.visits, tree.wins, tree.prior   # bound once (policies/nrt.py)
    rave_n, rave_w = tree.rave_n, tree.rave_w
    n_p = visits[node]
    if n_p < params.prune_visits:
        return _sample_by_prior(tree, node, rng)
    first = tree.child_start[node]
    n_child = tree.n_child[node]
    allowed = tree.allowed[node]
    if allowed != n_child:
        allowed = unpruned_count(n_p, n_child - 1, params, allowed)  # PASS is never pruned
        tree.allowed[node] = allowed
    rave = params.rave > 0.0
    if rave and params.rave_skip > 0.0 and rand_float(rng) < params.rave_skip:
        rave = False
    # The terms a zero constant turns off are skipped, not added as zeros: the same sums (x +
    # 0.0 is x), without a square root and a division per child (the 9x9 default has uct_c 0).
    explore = params.uct_c != 0.0
    bias = params.bias_weight != 0.0
    log_np = np.log(max(n_p, 1)) if explore else 0.0  # a fresh node (T = 0) selects too
    best = -1
    best_score = -1e300
    eligible = min(allowed, n_child)
    # The eligible children, then PASS (last, never pruned) when it is not among them.
    for j in range(eligible + (1 if eligible < n_child else 0)):
        k = first + (j if j < eligible else n_child - 1)
        n = visits[k]
        rn = rave_n[k]
        if n == 0:
            if rave and rn > 0:
                score = rave_w[k] / rn
                if explore:
                    score += params.uct_c * np.sqrt(log_np)
            else:
                score = params.first_play
            if bias:
                score += params.bias_weight * prior[k]
        else:
            v = wins[k] / n
            if rave and rn > 0:
                beta = rn / (n + rn + n * rn / params.rave_equiv)
                v = (1.0 - beta) * v + beta * rave_w[k] / rn
            score = v
            if explore:
                score += params.uct_c * np.sqrt(log_np / n)
            if bias:
                score += params.bias_weight * prior[k] / (n + 1)
        if score > best_score:
            best_score = score
            best = k
    return best


# What a run of simulations works in: boards, scratch and buffers for one size of board.  A search
# thread keeps one (`workspace`) for all its calls of `run_in`: made afresh for every call of 64
# simulations they cost a 19x19 search about 2% (BENCHMARKS.md, session 45).  Nothing in it
# carries over from one simulation to the next.
Workspace = namedtuple("Workspace", "work scratch owner scores no_exclusion path first_play "
                                    "rave_shares child_moves child_h child_order sort_tmp ladders "
                                    "moves_played")


@njit(cache=True)
def workspace(board):
    """A Workspace for boards of `board`'s size."""
    points = board.color.shape[0]
    max_depth = 4 * points + 64
    return Workspace(copy_board(board), copy_board(board), np.zeros(points, np.int8),
                     np.zeros(points), np.zeros(points, np.int8),
                     np.empty(max_depth + 1, np.int32),
                     np.zeros(points, np.int32),   # RAVE: index + 1 of each point's first play
                     np.zeros((2, points)),        # RAVE: which first plays share, by parity
                     np.empty(points + 1, np.int32), np.empty(points), np.empty(points, np.int64),
                     np.empty(points, np.int64), ladder_scratch(board),
                     # the simulation's moves, tree part then playout part (move_cap bounds it)
                     np.empty(max_depth + 3 * points + 64, np.int32))


@njit(cache=True, nogil=True)
def run(tree, root, pol, prior, params, count, rng):
    """Run `count` simulations from `root` (a Root; its board unchanged), playing out with
    policy `pol` and taking H from policy `prior`.  Returns simulations done."""
    return run_in(tree, root, pol, prior, params, count, rng, workspace(root.board))


@njit(cache=True, nogil=True)
def run_in(tree, root, pol, prior, params, count, rng, space):
    """`run` in the Workspace `space` (made by `workspace` for a board of the root's size)."""
    root_board, to_play, komi, exclude = root
    # Borrowed records: every call below that takes one would otherwise reference-count each
    # of its arrays, atomically, per tree level (policies/nrt.py).  The caller keeps them alive.
    tree = borrowed_tree(tree)
    pol = borrowed_policy(pol)
    prior = borrowed_policy(prior)
    root_board = borrowed_board(root_board)
    board_points = root_board.color.shape[0]
    work = borrowed_board(space.work)
    scratch = borrowed_board(space.scratch)  # the playouts' ladder readings' board
    owner, scores, no_exclusion, path = space.owner, space.scores, space.no_exclusion, space.path
    first_play, moves_played, ladders = space.first_play, space.moves_played, space.ladders
    rave_shares = space.rave_shares
    child_moves, child_h = space.child_moves, space.child_h
    child_order, sort_tmp = space.child_order, space.sort_tmp
    max_depth = path.shape[0] - 1
    lgr = params.lgr > 0.0
    rules = playout_rules(params)
    reading = rules.max() > 0.0
    replies = tree.replies if lgr else np.zeros((2, 0), np.int32)
    criticality_on = params.crit_weight != 0.0
    crit_min = max(int(params.crit_min), 1)
    if tree.n_child[0] == 0:
        expand_into(tree, 0, 0, root_board, to_play, prior, params, scores, exclude[0],
                    child_moves, child_h, child_order, sort_tmp, ladders)
    restricted = exclude.shape[0]
    # The tree's arrays the loop reads and writes, bound once: numba reference-counts a
    # record's field at every read (policies/nrt.py).  The pool never moves (tree.py).
    visits, wins, score_sum, score2_sum = tree.visits, tree.wins, tree.score, tree.score2
    owned, n_child, tree_move = tree.owned, tree.n_child, tree.move
    for _ in range(count):
        copy_into(work, root_board)
        work.meta[M_PASSES] = 0  # a finished game is searched afresh
        node = 0
        depth = 0
        path[0] = 0
        c = to_play
        terminal = False
        while True:
            if n_child[node] == 0 or depth == max_depth:
                if work.meta[M_PASSES] >= 2:
                    terminal = True
                    break
                if depth == max_depth or visits[node] < params.expand_visits or not expand_into(
                        tree, node, depth, work, c, prior, params, scores,
                        exclude[depth] if depth < restricted else no_exclusion,
                        child_moves, child_h, child_order, sort_tmp, ladders):
                    break
            node = select_child(tree, node, params, rng)
            move = tree_move[node]
            play(work, move, c)
            moves_played[depth] = move
            c = 3 - c
            depth += 1
            path[depth] = node
        n_moves = depth
        if terminal:
            score = area_score(work, owner)
        else:
            before = work.meta[M_MOVES]
            if reading:
                score = playout_moves_reading(work, c, rng, owner, pol, moves_played[depth:],
                                              replies, rules, scratch)
            else:
                score = playout_moves(work, c, rng, owner, pol, moves_played[depth:], replies)
            n_moves = min(depth + work.meta[M_MOVES] - before, moves_played.shape[0])
        margin = score - komi
        black_win = 0.5 if margin == 0 else (1.0 if margin > 0 else 0.0)
        black_result = black_win
        if params.score_weight > 0.0:  # Pachi's val_scale: a bigger win counts a little more
            share = min(max(margin / params.score_scale, -1.0), 1.0)
            black_result = (1.0 - params.score_weight) * black_win + params.score_weight * 0.5 * (1.0 + share)
        # Backpropagate: node i was reached by a move of the colour opposite to who moves there.
        mover = 3 - to_play  # the root "was reached" by the opponent's last move
        for i in range(depth + 1):
            k = path[i]
            visits[k] += 1
            wins[k] += black_result if mover == BLACK else 1.0 - black_result
            score_sum[k] += margin if mover == BLACK else -margin
            score2_sum[k] += margin * margin
            mover = 3 - mover
        for p in range(board_points):   # without branches: contested points are random
            owned[0, p] += owner[p] == BLACK
            owned[1, p] += owner[p] == WHITE
        if criticality_on and black_win != 0.5:
            winner = BLACK if black_win > 0.5 else WHITE
            for p in range(board_points):
                owned[2, p] += owner[p] == winner
            tree.meta[T_OWN_SIMS] += 1
            tree.meta[T_OWN_BLACK] += winner == BLACK
            if tree.meta[T_OWN_SIMS] == crit_min:
                resort_children(tree, 0, params, child_h, child_order, sort_tmp)
        if params.rave > 0.0:
            _update_rave(tree, path, depth, moves_played, n_moves, to_play, black_result,
                         first_play, rave_shares, params.rave_decay)
        if lgr and black_win != 0.5:
            _update_replies(replies, moves_played, n_moves, to_play, black_win)
    space.work.meta[M_PASSES] = 0   # keeps the borrowed boards' owners alive to here
    space.scratch.meta[M_PASSES] = 0
    return count


@njit(cache=True)
def _update_replies(replies, moves_played, n_moves, to_play, black_result):
    """LGRF-1: the winner's moves become its replies to the moves before them; a loser's move
    stored as its reply there is forgotten.  Colours alternate along moves_played."""
    winner = BLACK if black_result > 0.5 else WHITE
    for j in range(1, n_moves):
        prev = moves_played[j - 1]
        m = moves_played[j]
        if prev == PASS or m == PASS:
            continue
        c = to_play if j % 2 == 0 else 3 - to_play
        if c == winner:
            replies[c - 1, prev] = m
        elif replies[c - 1, prev] == m:
            replies[c - 1, prev] = PASS


@no_refcount
def _update_rave(tree, path, depth, moves_played, n_moves, to_play, black_result, first_play,
                 shares, decay):
    """All-moves-as-first: each child of a path node whose move was played first (on its
    point, after that node, in the tree or in the playout) by the player to move there shares
    in the result.  Walking the moves backwards and overwriting leaves, at each node, the
    earliest later play per point (`first_play`: its index + 1, 0 for none; colours alternate
    along moves_played, passes included).  With `decay` d an update weighs 1 + d at the node's
    own move and falls linearly to 1 - d at the simulation's last (Fuego 1.1's weighted RAVE
    updates run from 2 down to 1: 1.5 times d = 1/3): a move played soon after the node says
    more about it than one played when the board has changed.  `shares` (2 rows of the
    board's points) is scratch: row q holds 1.0 at the points whose first play has an index
    of parity q, so that without decay an update is one load a child."""
    child_start, n_child, move = tree.child_start, tree.n_child, tree.move
    rave_n, rave_w = tree.rave_n, tree.rave_w   # bound once (policies/nrt.py)
    first_play[:] = 0
    shares[:, :] = 0.0
    for j in range(n_moves - 1, depth - 1, -1):  # the playout: no tree nodes, only plays
        m = moves_played[j]
        if m != PASS:
            _note_first_play(first_play, shares, m, j + 1)
    for i in range(depth - 1, -1, -1):
        c = to_play if i % 2 == 0 else 3 - to_play  # colour to move at path[i]
        m = moves_played[i]
        if m != PASS:
            _note_first_play(first_play, shares, m, i + 1)
        node = path[i]
        result = black_result if c == BLACK else 1.0 - black_result
        slope = 2.0 * decay / max(n_moves - 1 - i, 1)  # weight lost per ply after the node
        first = child_start[node]
        if decay == 0.0:
            # A child shares when its point's first play is later than the node's move by an
            # even distance, so its index + 1 has the parity of i + 1; each weight is 1.0 or
            # 0.0, the general loop's with d = 0 to the last bit.
            sharing = shares[(i + 1) & 1]
            for k in range(first, first + n_child[node]):
                m = move[k]
                w = sharing[m] if m != PASS else 0.0
                rave_n[k] += w
                rave_w[k] += w * result
            continue
        # Without branches: whether a child shares is as good as random (half the moves are
        # the wrong colour's), so each child is updated, by 0 when it does not share (x + 0.0
        # is x: the same sums as skipping it).
        for k in range(first, first + n_child[node]):
            m = move[k]
            f = first_play[m] if m != PASS else 0
            later = f - 1 - i  # plies from the node's move to the point's first play
            # Played after the node (f > 0, so later >= 0), at an even distance: by c.
            share = (1 - (later & 1)) * (f > 0)   # 1 or 0
            w = share * (1.0 + decay - slope * later)
            rave_n[k] += w
            rave_w[k] += w * result


@njit(cache=True, nogil=True, inline='always')
def _note_first_play(first_play, shares, m, index):
    """Point m's first play is now the simulation's move `index` - 1 (_update_rave)."""
    first_play[m] = index
    shares[index & 1, m] = 1.0
    shares[1 - (index & 1), m] = 0.0
