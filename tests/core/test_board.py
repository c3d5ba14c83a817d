"""Differential and property tests of the compiled board (engine/core/board.py).

Random games on 5x5, 9x9 and 19x19 are played side by side on our board and on
sgfmill's reference `sgfmill.boards.Board`.  sgfmill captures and reports the
simple-ko point but allows self-capture and enforces no ko, so for every
candidate point our `is_legal` must be False exactly when the point is the
simple-ko point for that colour or when sgfmill would self-capture there.
After every move the two boards must agree on every point, the ko point (and
the colour it binds), the captures, and our board's own bookkeeping (chains,
liberties, sizes, the empty list and the Zobrist hash) must match a count made
from scratch.  At the end of each game the area scores must agree.

Every game is seeded (`1_000_000 * size + game number`); a failure names size, seed
and move, and `play_random_game(size, seed, Counter())` replays that game alone.

Hypothesis properties then check that `copy_board` and `copy_into` give boards
that are independent of and identical to their source, and that `area_owner` gives every
point the owner a plain flood fill gives it.
"""
import random
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards

from engine.core.board import (BLACK, BORDER, EMPTY, M_CAP, M_HASH, M_KO, M_KO_COLOR, M_LAST,
                               M_MOVES, M_NEMPTY, M_PASSES, M_SIZE, M_STAMP, NEIGHBOURS, PASS,
                               WHITE, area_owner, area_score, copy_board, copy_into, is_legal,
                               new_board, play, zobrist_table)
from engine.core.coords import format_vertex, point, row_col

# Games per board size: 10,000 in all, weighted towards the cheap small boards, played in
# CHUNKS[size] tests of consecutive seeds so that parallel test workers share them evenly.
GAMES = {5: 9500, 9: 470, 19: 30}
CHUNKS = {5: 4, 9: 2, 19: 1}
PASS_PROBABILITY = 0.02     # occasional passes: they must clear the ko point on both boards
KO_FIRST_PROBABILITY = 0.5  # how often the ko point, when there is one, is the first candidate

SGF_COLOUR = {BLACK: "b", WHITE: "w"}
FROM_SGF = {None: EMPTY, "b": BLACK, "w": WHITE}
# Every field of a board but `mark`, which is scratch space (see the copy tests).
STATE_FIELDS = ("color", "head", "nxt", "libs", "csize", "empties", "epos", "meta", "code3", "libsum")


@lru_cache(maxsize=None)
def on_board_points(size):
    """Our point indices in sgfmill's order: row by row from the bottom left."""
    return tuple(point(size, r, c) for r in range(size) for c in range(size))


@lru_cache(maxsize=None)
def border_points(size):
    inside = set(on_board_points(size))
    return tuple(p for p in range((size + 2) ** 2) if p not in inside)


@lru_cache(maxsize=None)
def zobrist_lists(size):
    """The Zobrist keys [colour][point] that boards of this size use, as nested lists (fast to index)."""
    return zobrist_table(size + 2).tolist()


@lru_cache(maxsize=None)
def neighbours(size):
    """neighbours(size)[p]: the four points next to on-board point p."""
    w = size + 2
    return [(p - 1, p + 1, p - w, p + w) for p in range(w * w)]


def opponent(colour):
    return BLACK + WHITE - colour


# ---------------------------------------------------------------------------
# Invariants of our board, recomputed from scratch.

def flood_chain(color, start, nbrs):
    """The chain through `start` and its liberties, by a plain flood fill."""
    colour = color[start]
    chain, liberties, todo = {start}, set(), [start]
    while todo:
        s = todo.pop()
        for q in nbrs[s]:
            if color[q] == EMPTY:
                liberties.add(q)
            elif color[q] == colour and q not in chain:
                chain.add(q)
                todo.append(q)
    return chain, liberties


def check_invariants(b, where=""):
    """Assert that the incremental bookkeeping of `b` agrees with a from-scratch recount."""
    size = int(b.meta[M_SIZE])
    color, head, nxt = b.color.tolist(), b.head.tolist(), b.nxt.tolist()
    libs, csize, epos, libsum = b.libs.tolist(), b.csize.tolist(), b.epos.tolist(), b.libsum.tolist()
    points = on_board_points(size)
    assert all(color[p] == BORDER for p in border_points(size)), f"{where}: border damaged"

    # The empty list holds exactly the empty points, and `epos` indexes it.
    listed = b.empties[:int(b.meta[M_NEMPTY])].tolist()
    empty = [p for p in points if color[p] == EMPTY]
    assert sorted(listed) == empty, f"{where}: empty list {sorted(listed)} != empty points {empty}"
    assert all(epos[p] == i for i, p in enumerate(listed)), f"{where}: epos disagrees with the empty list"

    # Every point's 3x3 code is its 8 neighbours' colours, digit k at bits 2k, 2k+1.
    width = size + 2
    code3 = b.code3.tolist()
    for p in points:
        expected = sum(color[p + dr * width + dc] << (2 * k) for k, (dr, dc) in enumerate(NEIGHBOURS))
        assert code3[p] == expected, f"{where}: 3x3 code at {format_vertex(p, size)} is stale"

    stones = [p for p in points if color[p] != EMPTY]
    zob = zobrist_lists(size)
    expected_hash = 0
    for p in stones:
        expected_hash ^= zob[color[p]][p]
    assert int(b.meta[M_HASH]) == expected_hash, f"{where}: Zobrist hash is not the XOR over the stones"

    # Every chain: one head inside it, shared by all its stones, holding its size and
    # liberty count; `nxt` runs through exactly its stones as one cycle.
    seen = set()
    nbrs = neighbours(size)
    for p in stones:
        if p in seen:
            continue
        chain, liberties = flood_chain(color, p, nbrs)
        seen |= chain
        h = head[p]
        name = lambda: f"{where}: chain at {format_vertex(p, size)}"  # noqa: E731 (built on failure only)
        assert all(head[s] == h for s in chain), f"{name()}: stones have heads {sorted({head[s] for s in chain})}"
        assert h in chain, f"{name()}: head {h} is not one of its stones"
        assert csize[h] == len(chain), f"{name()}: size {csize[h]}, actually {len(chain)}"
        assert libs[h] == len(liberties), f"{name()}: {libs[h]} liberties recorded, actually {len(liberties)}"
        assert libsum[h] == sum(liberties), f"{name()}: liberty sum {libsum[h]}, actually {sum(liberties)}"
        # Following nxt from the head must first return to it after visiting the whole chain.
        s = nxt[h]
        for _ in range(len(chain) - 1):
            assert s != h and s in chain, f"{name()}: nxt leaves the chain or cycles too soon"
            s = nxt[s]
        assert s == h, f"{name()}: nxt does not return to the head after {len(chain)} steps"


# ---------------------------------------------------------------------------
# The reference: sgfmill's board plus the ko colour and capture counts it leaves to us.

class Reference:
    def __init__(self, size):
        self.size = size
        self.board = boards.Board(size)
        self.ko = None                      # (point, colour forbidden to play it) or None
        self.captures = {BLACK: 0, WHITE: 0}
        self.colours = [EMPTY] * (size * size)  # our colour codes, in `on_board_points` order

    def empty_points(self):
        return [p for p, x in zip(on_board_points(self.size), self.colours) if x == EMPTY]

    def try_move(self, p, colour):
        """Why `colour` may not play `p` under our rules ("ko" or "suicide"), or None and the
        move to commit: (sgfmill board after it, stones captured, new ko)."""
        if self.ko == (p, colour):
            return "ko", None
        row, col = row_col(self.size, p)
        after = self.board.copy()
        ko_point = after.play(row, col, SGF_COLOUR[colour])
        if after.get(row, col) is None:
            return "suicide", None
        opp = SGF_COLOUR[opponent(colour)]
        captured = sum(r.count(opp) for r in self.board.board) - sum(r.count(opp) for r in after.board)
        ko = None if ko_point is None else (point(self.size, *ko_point), opponent(colour))
        return None, (after, captured, ko)

    def commit(self, colour, move):
        if move is None:                    # a pass
            self.ko = None
            return 0
        self.board, captured, self.ko = move
        self.captures[colour] += captured
        self.colours = [FROM_SGF[x] for row in self.board.board for x in row]
        return captured


def check_against_reference(b, ref, where):
    """Our board shows the same stones, ko and captures as the reference, and is self-consistent."""
    size = ref.size
    color = b.color.tolist()
    ours = [color[p] for p in on_board_points(size)]
    theirs = ref.colours
    if ours != theirs:
        diff = [format_vertex(p, size) for p, x, y in zip(on_board_points(size), ours, theirs) if x != y]
        raise AssertionError(f"{where}: stones differ from sgfmill at {diff}")
    ko = None if b.meta[M_KO] < 0 else (int(b.meta[M_KO]), int(b.meta[M_KO_COLOR]))
    assert ko == ref.ko, f"{where}: ko (point, colour) {ko}, sgfmill {ref.ko}"
    for colour in (BLACK, WHITE):
        assert b.meta[M_CAP + colour - 1] == ref.captures[colour], f"{where}: captures by {colour}"
    check_invariants(b, where)


def play_random_game(size, seed, stats):
    """One random game on both boards, checking every candidate and every move; `stats` counts
    what happened so the caller can check that the games reached the interesting cases."""
    rng = random.Random(seed)
    b, ref = new_board(size), Reference(size)
    colour, passes = BLACK, 0
    for move_number in range(1, 2 * size * size + 1):
        where = f"size {size}, seed {seed}, move {move_number}"
        p, move = PASS, None
        if rng.random() >= PASS_PROBABILITY:
            candidates = ref.empty_points()
            # Random empty points in turn; the ko point first, often, so that it gets tried.
            ko_first = ref.ko is not None and ref.ko[1] == colour and rng.random() < KO_FIRST_PROBABILITY
            while candidates:
                i = candidates.index(ref.ko[0]) if ko_first else rng.randrange(len(candidates))
                ko_first = False
                q = candidates.pop(i)
                reason, move = ref.try_move(q, colour)
                legal = is_legal(b, q, colour)
                assert legal == (reason is None), (
                    f"{where}: is_legal({format_vertex(q, size)}, colour {colour}) is {legal}, "
                    f"sgfmill says {reason or 'legal'}")
                stats[reason or "legal"] += 1
                if reason is None:
                    p = q
                    break
        expected = ref.commit(colour, move)
        captured = play(b, p, colour)
        assert captured == expected, f"{where}: play returned {captured} captures, sgfmill {expected}"
        assert b.meta[M_LAST] == p and b.meta[M_MOVES] == move_number, f"{where}: last move / move count"
        passes = passes + 1 if p == PASS else 0
        assert b.meta[M_PASSES] == passes, f"{where}: consecutive passes"
        check_against_reference(b, ref, where)
        stats["pass" if p == PASS else "move"] += 1
        stats["ko point set"] += ref.ko is not None
        stats["capture of 2+ stones"] += captured >= 2
        if passes == 2:
            break
        colour = opponent(colour)
    owner = np.zeros(b.color.shape[0], dtype=np.int8)
    assert area_score(b, owner) == ref.board.area_score(), f"size {size}, seed {seed}: area score"
    stats["games"] += 1


@pytest.mark.parametrize("size, chunk", [(size, chunk) for size in sorted(GAMES)
                                          for chunk in range(CHUNKS[size])])
def test_random_games_match_sgfmill(size, chunk):
    stats = Counter()
    games = range(GAMES[size] * chunk // CHUNKS[size], GAMES[size] * (chunk + 1) // CHUNKS[size])
    for game in games:
        play_random_game(size, seed=1_000_000 * size + game, stats=stats)
    assert stats["games"] == len(games)
    # The games must have exercised both answers of is_legal and every kind of event.
    for event in ("legal", "suicide", "ko", "ko point set", "capture of 2+ stones", "pass"):
        assert stats[event] > 0, f"no '{event}' in {len(games)} games of {size}x{size}: {stats}"


# ---------------------------------------------------------------------------
# Copies.

def play_random_moves(b, rng, n, colour=BLACK):
    """Play `n` uniformly random legal moves (a pass when there is none); returns them."""
    moves = []
    for _ in range(n):
        legal = [p for p in b.empties[:int(b.meta[M_NEMPTY])].tolist() if is_legal(b, p, colour)]
        p = rng.choice(legal) if legal else PASS
        play(b, p, colour)
        moves.append((p, colour))
        colour = opponent(colour)
    return moves


def state(b):
    """Copies of every field of `b` that carries position or bookkeeping.  The scratch stamp
    (meta[M_STAMP], paired with `mark`) is left out: `copy_into` keeps the larger stamp on
    purpose, so that stale marks in the reused board can never match a new stamp."""
    fields = {name: getattr(b, name).copy() for name in STATE_FIELDS}
    if "meta" in fields:
        fields["meta"][M_STAMP] = 0
    return fields


def assert_same_state(b, expected, what):
    actual = state(b)
    for name in STATE_FIELDS:
        assert np.array_equal(actual[name], expected[name]), f"{what}: field {name} differs"


def random_position(size, seed, moves):
    b = new_board(size)
    play_random_moves(b, random.Random(seed), moves)
    return b


boards_and_moves = dict(size=st.integers(2, 9), seed=st.integers(0, 2 ** 32),
                        before=st.integers(0, 60), detour=st.integers(1, 40), after=st.integers(1, 40))


@settings(max_examples=150, deadline=None)
@given(**boards_and_moves)
def test_copy_board_is_independent(size, seed, before, detour, after):
    original = random_position(size, seed, before)
    frozen = state(original)
    copy = copy_board(original)
    assert_same_state(copy, frozen, "fresh copy")
    play_random_moves(copy, random.Random(seed + 1), detour)
    check_invariants(copy, "copy after moves")
    assert_same_state(original, frozen, "original after moves on its copy")
    # ... and the other way round: moves on the original leave an earlier copy alone.
    copied = state(copy)
    play_random_moves(original, random.Random(seed + 2), after)
    assert_same_state(copy, copied, "copy after moves on the original")


@settings(max_examples=150, deadline=None)
@given(**boards_and_moves)
def test_copy_into_restores_exactly(size, seed, before, detour, after):
    """After `copy_into` the reused board must be indistinguishable from a fresh copy of the
    source, now and for every move played on both afterwards."""
    source = random_position(size, seed, before)
    reused = copy_board(source)
    play_random_moves(reused, random.Random(seed + 1), detour)
    copy_into(reused, source)
    assert_same_state(reused, state(source), "after copy_into")
    fresh = copy_board(source)
    rng, colour = random.Random(seed + 2), BLACK
    for i in range(1, after + 1):
        [(p, _)] = play_random_moves(fresh, rng, 1, colour)
        play(reused, p, colour)
        check_invariants(reused, f"reused board, move {i} after copy_into")
        assert_same_state(reused, state(fresh), f"move {i} after copy_into")
        colour = opponent(colour)


def test_copy_into_then_play_counts_liberties():
    """Minimal case of the property above: reuse a board once, then play next to a stone."""
    source = new_board(5)
    centre = point(5, 2, 2)
    play(source, centre, BLACK)
    reused = copy_board(source)
    play(reused, point(5, 2, 1), WHITE)       # the detour touches the black stone
    copy_into(reused, source)
    play(reused, point(5, 2, 3), WHITE)       # so does the first move after the reset
    assert reused.libs[reused.head[centre]] == 3


# ---------------------------------------------------------------------------
# Owners.

def flood_owners(b, size):
    """Tromp-Taylor owner of every point, by a flood fill of each empty region from scratch."""
    nbrs = neighbours(size)
    color = b.color.tolist()
    owner = [EMPTY] * len(color)
    seen = set()
    for p in on_board_points(size):
        if color[p] in (BLACK, WHITE):
            owner[p] = color[p]
        elif p not in seen:
            region, reach, todo = [], set(), [p]
            seen.add(p)
            while todo:
                s = todo.pop()
                region.append(s)
                for q in nbrs[s]:
                    if color[q] == EMPTY and q not in seen:
                        seen.add(q)
                        todo.append(q)
                    elif color[q] in (BLACK, WHITE):
                        reach.add(color[q])
            colour = reach.pop() if len(reach) == 1 else EMPTY
            for s in region:
                owner[s] = colour
    return owner


@settings(max_examples=300, deadline=None)
@given(size=st.integers(2, 9), seed=st.integers(0, 2 ** 32), moves=st.integers(0, 250))
def test_area_owner_matches_a_flood_fill(size, seed, moves):
    """Long random games leave many lone empty points (settled without the flood fill) beside
    open regions, dame and seki points reaching both colours."""
    b = random_position(size, seed, moves)
    owner = np.full(b.color.shape[0], 7, dtype=np.int8)   # stale values must be overwritten
    area_owner(b, owner)
    assert owner.tolist() == flood_owners(b, size)
