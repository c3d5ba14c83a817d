"""The Engine (engine/play/player.py): whole searches on 5x5 with few playouts, checking
determinism, tree reuse and pondering, superko at the root, passing, resigning, cleanup,
memory over many moves, and the playout policy and tree prior it holds.
"""
import resource
import tracemalloc

import numpy as np
import pytest

from engine.core.board import BLACK, EMPTY, PASS, WHITE
from engine.core.coords import format_vertex
from engine.play.game import Game, setup_board
from engine.play.player import RESIGN_AFTER, Engine, SearchThread, Settings
from engine.search.tree import T_FULL, T_NODES, best_child, find_child
from policies import load_policy, policy_probabilities
from policies.kernel import RULES, move_scores, uniform_policy

from helpers import SIZE, at, board_from_ascii

# -- the engine ----------------------------------------------------------------------------------

def engine(size=SIZE, komi=7.5, **settings):
    settings.setdefault("max_nodes", 20000)
    settings.setdefault("resign", 0.0)
    return Engine(size, komi, Settings(**settings))


def stats_of(e):
    return [(s.move, s.visits, round(s.winrate, 12), s.pv) for s in e.root_stats()]


OPENING = [(BLACK, "C3"), (WHITE, "C4"), (BLACK, "D4")]


def test_root_win_rates_stay_within_0_and_1_when_read_mid_simulation():
    """Analysis reads the tree while the search runs: a simulation's win may be counted before
    its visit (seen as a kata-analyze winrate of 1.003).  A win rate is a probability."""
    e = engine(playouts=300, seed=5)
    e.search(BLACK, total=300)
    t = e._threads[0].tree
    first, count = t.child_start[0], t.n_child[0]
    visited = [k for k in range(first, first + count) if t.visits[k] > 0]
    for k in visited:
        t.wins[k] = t.visits[k] + 1.0     # a torn read: one more win than visits
    stats = e.root_stats()
    assert len(stats) == len(visited)
    assert all(s.winrate == 1.0 for s in stats)


def test_ownership_is_reported_during_a_search_not_only_after_it():
    """lz-/kata-analyze report ownership every interval while the search runs: it must count
    the simulations so far (before, the first search reported none until it ended)."""
    e = engine(playouts=4000, seed=5)
    seen = []
    e.search(BLACK, total=4000, report=lambda: seen.append(e.search_ownership()),
             interval=0.005)
    assert seen, "no report during the search"
    mid = [o for o in seen if o is not None]
    assert mid and all(np.all(np.abs(o) <= 1.0) for o in mid)
    assert any(np.any(o != 0.0) for o in mid)


@pytest.mark.parametrize("threads", [1, 2])
def test_same_seed_and_playouts_give_the_same_decisions(threads):
    runs = []
    for _ in range(2):
        e = engine(playouts=400, seed=11, threads=threads)
        record = []
        for colour, v in OPENING:
            e.game.play(colour, at(v))
        for _ in range(4):
            colour = e.game.to_play
            m = e.genmove(colour)
            record.append((m, stats_of(e)))
            e.game.play(colour, m)
        runs.append(record)
    assert runs[0] == runs[1]
    assert sum(v for _, v, _, _ in runs[0][0][1]) == 400
    other = engine(playouts=400, seed=12, threads=threads)
    for colour, v in OPENING:
        other.game.play(colour, at(v))
    other.genmove(other.game.to_play)
    assert stats_of(other) != runs[0][0][1], "a different seed should give different statistics"


@pytest.mark.parametrize("threads", [1, 2])
def test_a_failing_search_raises_instead_of_passing(threads, monkeypatch):
    """An exception in a search thread reaches genmove's caller (GTP answers `?`); before, the
    thread only printed it and genmove passed as if the search had found nothing."""
    import engine.play.player as player

    def broken(*args):
        raise RuntimeError("kernel failed")

    e = engine(playouts=200, seed=1, threads=threads)
    monkeypatch.setattr(player.search, "run_in", broken)   # what the search threads call
    with pytest.raises(RuntimeError, match="kernel failed"):
        e.genmove(BLACK)
    monkeypatch.undo()
    assert e.genmove(BLACK) != PASS, "the engine searches again once the fault is gone"


def test_tree_is_reused_across_moves():
    e = engine(playouts=600, seed=3)
    m = e.genmove(BLACK)
    t = e._threads[0].tree
    node = find_child(t, 0, m)
    carried = int(t.visits[node])
    assert carried > 0
    e.game.play(BLACK, m)
    e.search(WHITE, total=300)
    assert e._threads[0].tree.visits[0] == carried + 300
    # Two moves on (our reply and theirs): the grandchild's visits are carried.
    t = e._threads[0].tree
    reply = e.root_stats()[0].move
    r_node = find_child(t, 0, reply)
    answer = best_child(t, r_node)
    assert answer > 0
    answer_move, carried2 = int(t.move[answer]), int(t.visits[answer])
    e.game.play(WHITE, reply)
    e.game.play(BLACK, answer_move)
    e.search(WHITE, total=100)
    assert e._threads[0].tree.visits[0] == carried2 + 100
    # An unrelated move order (undo and a different move) starts afresh.
    e.game.undo()
    e.game.undo()
    e.game.play(WHITE, at("A1") if reply != at("A1") else at("E5"))
    e.search(BLACK, total=100)
    assert e._threads[0].tree.visits[0] == 100


def test_count_reused_stops_when_the_root_holds_the_playouts():
    # Fuego's max_games counts a reused subtree's games: with count_reused, so do we.
    e = engine(playouts=600, seed=3, count_reused=True)
    m = e.genmove(BLACK)
    assert e.last_search[0] == 600          # nothing to reuse: all 600 are new
    t = e._threads[0].tree
    carried = int(t.visits[find_child(t, 0, m)])
    assert 0 < carried < 600
    e.game.play(BLACK, m)
    e.genmove(WHITE)
    assert e.last_search[0] == 600 - carried
    assert e._threads[0].tree.visits[0] == 600
    # Without it, 600 new simulations go on top of the carried ones.
    e2 = engine(playouts=600, seed=3)
    e2.game.play(BLACK, e2.genmove(BLACK))
    e2.genmove(WHITE)
    assert e2.last_search[0] == 600 and e2._threads[0].tree.visits[0] == 600 + carried


def test_pondering_grows_the_tree_used_after_the_opponents_move():
    e = engine(playouts=200, seed=6)
    m = e.genmove(BLACK)
    e.game.play(BLACK, m)
    polls = []

    def enough():
        polls.append(1)
        return e._threads[0].tree.visits[0] >= 500

    e.ponder(enough)
    t = e._threads[0].tree
    assert polls and t.visits[0] >= 500
    reply = e.root_stats()[0].move
    carried = int(t.visits[find_child(t, 0, reply)])
    assert carried > 0
    e.game.play(WHITE, reply)
    e.genmove(BLACK)
    assert e._threads[0].tree.visits[0] == carried + 200


def test_tree_is_not_reused_for_a_different_position_with_the_same_moves():
    """The tree stands for a position: a set-up position (loadsgf with AB/AW stones, no
    moves) must not inherit the tree of the empty board just because neither has moves.
    Otherwise genmove can answer a point that is occupied."""
    e = engine(playouts=3000, seed=1)
    e.search(BLACK, total=3000)
    best = e.root_stats()[0].move
    e.game.reset(board=setup_board(SIZE, black=[], white=[best]))
    e.settings.playouts = 50
    m = e.genmove(BLACK)
    assert m == PASS or e.game.board.color[m] == EMPTY, \
        f"genmove answered {format_vertex(m, SIZE)}, which is occupied"
    assert e._threads[0].tree.visits[0] == 50


def test_loadsgf_of_a_setup_position_after_a_search_through_gtp(tmp_path, run_simbal, parse_gtp,
                                                                read_board):
    """The same through gtp_main.py: search the empty board, load an SGF with a white stone
    on C3 (no moves, Black to play), ask for a move.  The engine must survive (descending into
    the stale child C3 plays on an occupied point inside compiled code) and answer an empty
    point."""
    sgf_path = tmp_path / "setup.sgf"
    sgf_path.write_text("(;GM[1]FF[4]SZ[5]KM[7.5]AW[cc]PL[B])")
    transcript = (f"boardsize 5\nclear_board\nreg_genmove b\nloadsgf {sgf_path}\ngenmove b\n"
                  "showboard\nquit\n").encode()
    proc = run_simbal(transcript, "--size", "5", "--seed", "3", playouts=2000)
    assert proc.returncode == 0, f"engine died with code {proc.returncode}"
    responses = parse_gtp(proc.stdout.decode())
    assert len(responses) == 7 and all(r.ok for r in responses), responses
    move = responses[4].body
    assert read_board(responses[5].body) == {"C3": "O", move.upper(): "X"}


def test_komi_change_drops_the_tree():
    """Win rates depend on komi: a tree searched under another komi must not be reused."""
    e = engine(playouts=200, seed=2)
    e.search(BLACK, total=200)
    e.game.komi = -30.5
    e.search(BLACK, total=100)
    assert e._threads[0].tree.visits[0] == 100


KO = """
. . . . .
. X O . .
X O . O .
. X O . .
. . . . .
"""


def superko_game():
    """Black took the ko at C3, both passed: White's retake at B3 would repeat the start."""
    g = Game(SIZE, 0.5)
    g.reset(board=board_from_ascii(KO))
    g.play(BLACK, at("C3"))
    g.play(WHITE, PASS)
    g.play(BLACK, PASS)
    assert g.illegal_reason(WHITE, at("B3")) == "superko"
    return g


@pytest.mark.parametrize("seed", range(6))
def test_superko_forbidden_root_moves_are_never_chosen(seed):
    e = engine(playouts=300, seed=seed, komi=0.5)
    e.game = superko_game()
    assert at("B3") not in e.candidates(WHITE)
    for threads in (1, 2):
        e.settings.threads = threads
        e.search(WHITE, total=300)
        assert at("B3") not in [s.move for s in e.root_stats()]
        for s in e._threads:
            assert find_child(s.tree, 0, at("B3")) < 0
        m = e.genmove(WHITE)
        assert m != at("B3")
        if m is not None:
            assert e.game.is_legal(WHITE, m)


def test_superko_exclusion_survives_an_earlier_search_of_the_same_position():
    """A tree grown before the repetition became forbidden (e.g. by analysis of the same moves
    but another history) must not bring the forbidden move back."""
    e = engine(playouts=200, seed=4, komi=0.5)
    e.game = superko_game()
    e.search(WHITE, total=200)
    e.search(WHITE, total=200)        # the same position again
    assert find_child(e._threads[0].tree, 0, at("B3")) < 0


FILLED = """
X X X X X
X . X X X
X X X X X
X X X . X
X X X X X
"""

# Black owns three columns, White two; komi 0.5: Black wins by 4.5.
SETTLED = """
. . X O .
. . X O .
. . X O .
. . X O .
. . X O .
"""


@pytest.mark.parametrize("colour", [BLACK, WHITE])
def test_genmove_passes_with_no_useful_move(colour):
    e = engine(playouts=50)
    e.game.reset(board=board_from_ascii(FILLED))
    assert e.genmove(colour) == PASS


@pytest.mark.parametrize("seed", range(3))
def test_genmove_passes_after_the_opponent_passed_when_winning(seed):
    e = engine(playouts=100, seed=seed, komi=0.5)
    e.game.reset(board=board_from_ascii(SETTLED))
    e.game.play(WHITE, PASS)
    assert e.genmove(BLACK) == PASS
    # Losing (komi 10.5): it keeps playing instead.
    e.game.komi = 10.5
    assert e.genmove(BLACK) != PASS


def play_to_move_count(e, n):
    """Play a quiet opening on 5x5 (corners and edges) until `n` moves are on the record."""
    seq = ["A1", "E5", "A5", "E1", "B1", "D5", "A2", "E4", "C1", "C5", "A4", "E2"]
    colour = BLACK
    for v in seq[:n]:
        e.game.play(colour, at(v))
        colour = WHITE if colour == BLACK else BLACK


def test_resigns_only_after_two_low_decisions_past_the_opening():
    e = engine(playouts=60, seed=1, komi=50.0, resign=0.1)   # Black cannot win with komi 50
    assert RESIGN_AFTER * SIZE * SIZE < 8
    play_to_move_count(e, 8)
    first = e.genmove(BLACK)
    assert first is not None, "resigned on the first low decision"
    e.game.play(BLACK, first)
    e.game.play(WHITE, PASS if first == PASS else e.candidates(WHITE)[0])
    assert e.genmove(BLACK) is None


def test_never_resigns_in_the_opening():
    e = engine(playouts=60, seed=1, komi=50.0, resign=0.1)
    for _ in range(3):
        m = e.genmove(BLACK)
        assert m is not None
        assert len(e.game.moves) < RESIGN_AFTER * SIZE * SIZE


def test_never_resigns_with_resign_zero():
    e = engine(playouts=60, seed=1, komi=50.0, resign=0.0)
    play_to_move_count(e, 8)
    for _ in range(4):
        m = e.genmove(BLACK)
        assert m is not None
        e.game.play(BLACK, m)
        e.game.play(WHITE, PASS)


def test_should_resign_needs_two_low_decisions_running():
    e = engine(resign=0.2)
    play_to_move_count(e, 10)
    assert [e._should_resign(w) for w in (0.1, 0.5, 0.1, 0.1, 0.1, 0.3, 0.19)] == \
        [False, False, False, True, True, False, False]
    e.settings.resign = 0.0
    assert [e._should_resign(w) for w in (0.0, 0.0, 0.0)] == [False, False, False]
    opening = engine(resign=0.2)
    assert [opening._should_resign(w) for w in (0.0, 0.0, 0.0)] == [False, False, False]


# A white stone dead inside Black's area; Black wins easily with it removed.
DEAD_STONE = """
. . X O .
O . X O .
. . X O .
. . X O .
. . X O .
"""


def test_cleanup_does_not_pass_while_dead_stones_remain():
    e = engine(playouts=60, seed=2, komi=0.5)
    e.game.reset(board=board_from_ascii(DEAD_STONE))
    stone = at("A4")
    e.game.play(WHITE, PASS)
    assert e.genmove(BLACK) == PASS, "without cleanup, a won game after a pass is passed"
    for _ in range(30):
        if e.game.board.color[stone] != WHITE:
            break
        m = e.genmove(BLACK, cleanup=True)
        assert m is not None and m != PASS, "passed in cleanup with a dead white stone on the board"
        e.game.play(BLACK, m)
        e.game.play(WHITE, PASS)
    assert e.game.board.color[stone] == EMPTY, "cleanup never captured the dead stone"
    assert e.genmove(BLACK, cleanup=True) == PASS


def test_a_full_pool_is_pruned_so_that_the_search_goes_on_deepening(monkeypatch):
    """6,000 simulations in a pool of 1,024 nodes (about 40 expansions on 5x5): pruned when
    full (Fuego's prune_full_tree), the tree keeps growing under the moves the search likes,
    and its principal variation is deeper than when the full pool simply stops expansion."""
    def search(prune):
        if not prune:
            monkeypatch.setattr(SearchThread, "make_room", lambda self: None)
        e = engine(playouts=6000, seed=3, max_nodes=1024)
        e.search(BLACK, total=6000)
        return e._threads[0], e.root_stats()

    pruned, stats = search(True)
    assert pruned.prunes > 0 and pruned.tree.meta[T_NODES] <= 1024
    assert pruned.tree.visits[0] == 6000 >= sum(s.visits for s in stats) > 5900
    capped, capped_stats = search(False)
    assert capped.prunes == 0 and capped.tree.meta[T_FULL] > 1000
    assert len(stats[0].pv) > len(capped_stats[0].pv)


def test_memory_stays_flat_over_many_moves():
    """A thousand genmove/play cycles on 5x5 (games restarted when they end): the trees stay
    the same two pools per thread, Python-side allocations do not grow, and neither does the
    peak RSS (which also covers compiled code's own allocations)."""
    e = engine(playouts=20, seed=9, max_nodes=4096)

    def cycles(n):
        for _ in range(n):
            colour = e.game.to_play
            m = e.genmove(colour)
            if m is None or e.game.last_two_passed() or len(e.game.moves) >= 60:
                e.game.reset()
                continue
            e.game.play(colour, m)
            if e.game.last_two_passed():
                e.game.reset()

    cycles(200)
    pools = {id(a) for s in e._threads for a in (s.tree.move, s.spare.move if s.spare else None)}
    e.game.reset()
    tracemalloc.start()
    try:
        cycles(50)
        e.game.reset()
        base, _ = tracemalloc.get_traced_memory()
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        cycles(1000)
        e.game.reset()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert len(e._threads) == 1
    assert {id(a) for s in e._threads for a in (s.tree.move, s.spare.move if s.spare else None)} <= pools
    assert end - base < 256 * 1024, f"Python allocations grew by {(end - base) / 1024:.0f} KiB"
    assert rss_after - rss_before < 20 * 1024, f"peak RSS grew by {(rss_after - rss_before) / 1024:.1f} MiB"


def _root_priors(engine):
    t = engine._threads[0].tree
    first, count = t.child_start[0], t.n_child[0]
    return {int(t.move[k]): float(t.prior[k]) for k in range(first, first + count)}


def test_the_tree_takes_h_from_the_prior_policy_and_the_playouts_from_the_playout_policy():
    """H (the children's order and priors) is the prior policy's, whatever the playouts use;
    "playout" gives back the playout policy's own H; the playouts do not change with the prior."""
    colour = BLACK
    handcrafted = Engine(9, 7.0, Settings(playouts=50, seed=1), weights="handcrafted", prior="uniform")
    handcrafted.search(colour, total=50)
    assert set(_root_priors(handcrafted).values()) - {-1.0} == {0.0}  # uniform H: all equal
    own = Engine(9, 7.0, Settings(playouts=50, seed=1), weights="handcrafted", prior="playout")
    own.search(colour, total=50)
    scores = np.zeros(own.game.board.color.shape[0])
    move_scores(own.game.board, colour, load_policy("handcrafted", 9), scores)
    priors = _root_priors(own)
    top = max(scores[p] for p in priors if p != PASS)
    assert all(priors[p] == pytest.approx(scores[p] - top) for p in priors if p != PASS)
    assert len(set(priors.values())) > 2    # the handcrafted H tells moves apart
    # Ownership is a pure playout statistic: the prior does not enter it.
    np.testing.assert_array_equal(handcrafted.ownership(colour, 50)[0], own.ownership(colour, 50)[0])


def test_a_refused_prior_keeps_the_one_in_use(tmp_path):
    engine = Engine(9, 7.0, Settings(playouts=20), prior="uniform")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        engine.load_prior(str(bad))
    assert engine.prior_weights == "uniform" and engine.prior.kind == uniform_policy().kind
    engine.load_prior("handcrafted")
    engine.game.reset(13)   # a new board size reloads the prior for that size
    assert engine.prior_weights == "handcrafted"
    np.testing.assert_array_equal(engine.prior.theta, load_policy("handcrafted", 13).theta)


def test_playout_gain_sharpens_the_playouts_and_leaves_the_prior_alone():
    """playout_gain multiplies the playout softmax's weights (an inverse temperature): above 1
    the favourite moves get likelier, 0 makes every candidate alike; H keeps the weights as
    loaded, and the gain survives a change of board size."""
    engine = Engine(9, 7.0, Settings(playouts=20, seed=1), weights="handcrafted", prior="playout")
    loaded = load_policy("handcrafted", 9)
    board = engine.game.board
    probs = {}
    for gain in (0.0, 1.0, 2.0):
        engine.set_param("playout_gain", gain)
        np.testing.assert_allclose(engine.policy.theta, gain * loaded.theta)
        np.testing.assert_array_equal(engine.prior.theta, loaded.theta)
        probs[gain] = policy_probabilities(board, BLACK, engine.policy)
    candidates = probs[1.0] > 0
    assert np.allclose(probs[0.0][candidates], 1.0 / candidates.sum())
    assert probs[2.0].max() > probs[1.0].max() > probs[0.0].max()
    engine.game.reset(13)
    np.testing.assert_allclose(engine.policy.theta, 2.0 * load_policy("handcrafted", 13).theta)


# -- time safety --------------------------------------------------------------------------------

class FakeClock:
    """A clock that moves `step` seconds each time it is read."""

    def __init__(self, step, start=1000.0):
        self.t, self.step = start, step

    def __call__(self):
        self.t += self.step
        return self.t


def test_a_huge_main_time_gives_a_move_the_cap_at_most():
    e = engine(9, max_move_seconds=2.5)
    e.now = lambda: 1000.0
    e.clock.set_canadian(1e9, 1, 1)          # the settings that once hung genmove
    assert e.think_budget(BLACK) == (1002.5, None)
    e.clock.set_canadian(8.0, 0, 0)          # a small clock is not raised to the cap
    deadline, _ = e.think_budget(BLACK)
    assert 1000.0 < deadline < 1002.0


def test_the_search_ends_at_the_deadline_of_its_clock():
    e = engine(9, max_move_seconds=5.0)
    e.now = FakeClock(step=1.0)             # every read of the clock: one second later
    e.clock.set_canadian(1e9, 1, 1)
    move = e.genmove(BLACK)
    assert move is not None
    sims = sum(s.visits for s in e.root_stats())
    assert 0 < sims <= 64 * 8                # a few batches, not 5 s of real searching


CAPTURE = """
. . . . .
. X X X .
X O O O .
. X X X .
. . . . .
"""


def test_a_decided_search_stops_before_its_deadline():
    """White's three stones are in atari: capturing at E3 wins everything, so once the
    runner-up cannot catch up in the time left, the search stops early."""
    e = engine(5, komi=0.5, max_move_seconds=100.0)
    e.game.reset(board=board_from_ascii(CAPTURE))
    e.now = FakeClock(step=0.002)          # 100 s of budget would be 50,000 reads
    e.clock.set_canadian(100.0, 0, 0)
    move = e.genmove(BLACK)
    assert e.stopped_early
    assert move == at("E3", 5)
    assert e.now.t - 1000.0 < 50.0


def test_a_fixed_time_a_move_is_searched_to_its_deadline():
    """With `--time` and no clock the time a move leaves unused is lost, so the same decided
    search goes on to its deadline: its visits start the next search."""
    e = engine(5, komi=0.5, seconds=1.0)
    e.game.reset(board=board_from_ascii(CAPTURE))
    e.now = FakeClock(step=0.002)          # 1 s of budget is 500 reads
    move = e.genmove(BLACK)
    assert not e.stopped_early
    assert move == at("E3", 5)
    assert e.now.t - 1000.0 >= 1.0


# -- the board size's parameters (weights/defaults.json "params") -------------------------------

@pytest.fixture
def size_params(tmp_path, monkeypatch):
    """A defaults file whose 9x9 entry sets uct_c and playout_local (and nothing for 7x7)."""
    import json

    import policies.loader as loader
    body = json.loads(loader.DEFAULTS_FILE.read_text())
    body["params"] = {"9": {"uct_c": 0.3, "playout_local": 0.5}}
    path = tmp_path / "defaults.json"
    path.write_text(json.dumps(body))
    monkeypatch.setattr(loader, "DEFAULTS_FILE", path)


def test_a_board_size_takes_its_default_parameters_and_leaves_them_on_another(size_params):
    from engine.search.params import default_params
    base = default_params()
    e = engine(9)
    assert e.params()["uct_c"] == 0.3 and e.params()["playout_local"] == 0.5
    e.game.reset(7)
    assert e.params()["uct_c"] == base.uct_c and e.params()["playout_local"] == base.playout_local
    e.game.reset(9)
    assert e.params()["uct_c"] == 0.3


def test_parameters_set_by_name_or_in_the_settings_win_over_the_sizes(size_params):
    from engine.search.params import default_params, with_params
    e = engine(9)
    e.set_param("uct_c", 0.7)
    e.game.reset(7)
    e.game.reset(9)
    assert e.params()["uct_c"] == 0.7 and e.params()["playout_local"] == 0.5
    given = Engine(9, 7.5, Settings(params=with_params(default_params(), playout_local=0.0,
                                                       uct_c=0.2)))
    # playout_local=0 is the global default, so only uct_c (away from it) counts as given.
    assert given.params()["uct_c"] == 0.2 and given.params()["playout_local"] == 0.5


def test_the_shipped_size_parameters_are_known_search_parameters():
    from engine.search.params import default_params, with_params
    from policies import default_search_params
    for size in range(2, 26):
        with_params(default_params(), **default_search_params(size))  # KeyError if unknown


def test_the_mercy_rule_changes_play_but_not_analysis_or_ownership(monkeypatch):
    """`playout_mercy` ends the rule-based playouts of a search early, so the statistics of a
    seeded search change; a search for analysis (`full_playouts`) plays every playout to its
    end, as with the rule off, and so does the ownership behind final_status (its playouts are
    the status_policy's softmax, which the rule does not touch)."""
    def rules_engine(mercy):
        e = Engine(9, 7.5, Settings(seed=3, resign=0.0), weights="rules")
        e.set_param("playout_mercy", mercy)   # 8 stones: often reached from the empty board
        return e

    def stats(mercy, **kw):
        e = rules_engine(mercy)
        e.search(BLACK, total=300, **kw)
        return stats_of(e)

    off = stats(0.0)
    assert stats(0.1) != off
    assert stats(0.1, full_playouts=True) == off
    np.testing.assert_array_equal(rules_engine(0.1).ownership(BLACK, 100)[0],
                                  rules_engine(0.0).ownership(BLACK, 100)[0])
    asked = {}
    e = rules_engine(0.1)
    monkeypatch.setattr(e, "search", lambda *a, **kw: asked.update(kw))
    e.analyze(BLACK, report=lambda: None, interval=1.0, should_stop=lambda: True)
    assert asked.get("full_playouts") is True


# A 9x9 game against GnuGo (tests/lab/test_gnugo.py, session 34) ending with White's group on
# the top edge dead: Black's A9 (a self-atari) puts it in atari, and White's capture of D9
# leaves it one liberty, D9, where Black takes it all.
DEAD_GROUP_GAME = (
    "E5 C5 D7 G3 G7 D4 E4 E3 B6 F4 B5 B4 A4 B3 A3 B2 H6 C6 C7 D6 E6 A2 J3 H2 D5 C4 H4 G4 J2 "
    "G5 H3 G2 H5 G6 F7 H7 H8 J8 B7 A5 A6 A4 H1 J6 G1 F1 F6 J1 H9 H1 F5 J7 J9 G8 J5 F8 PASS E8 "
    "E7 D8 PASS C8 PASS B8 A8 H7 J7 B9 G9 F9 D9 C9 PASS PASS").split()


def test_final_status_sees_a_group_killed_through_a_self_atari():
    """The rule-based playouts never play a self-atari, so they never kill this group; the
    status playouts (Engine.status_policy) do, and final_status and the score agree with
    GnuGo's (B+1.5)."""
    e = Engine(9, 7.5, Settings(seed=3))
    assert int(e.policy.kind) == RULES            # the 9x9 default: the rule-based playouts
    colour = BLACK
    for v in DEAD_GROUP_GAME:
        e.game.play(colour, PASS if v == "PASS" else at(v, 9))
        colour = WHITE if colour == BLACK else BLACK
    dead = {format_vertex(p, 9) for chain in e.final_status()["dead"] for p in chain}
    assert dead == {"B9", "C9", "F9", "B8", "C8", "D8", "E8", "F8", "G8"}
    assert e.final_score() == pytest.approx(1.5)
