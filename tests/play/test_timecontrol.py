"""The clock (engine/play/timecontrol.py): budgets under absolute time and Canadian and
Japanese byo-yomi, and simulated games that never run out of time.
"""

import pytest

from engine.core.board import BLACK, WHITE
from engine.play.timecontrol import (MIDDLE_END, MIDDLE_START, OPENING_SHARE, OPENING_WEIGHT,
                                     SAFETY_SECONDS, TimeControl)

# -- time control ---------------------------------------------------------------------------------

def test_no_time_settings_means_no_budget():
    tc = TimeControl()
    assert tc.budget(BLACK, 0, 81) is None
    tc.set_canadian(300, 30, 0)              # byo-yomi time with no stones: no limit (GTP)
    assert tc.budget(BLACK, 10, 81) is None
    tc.set_canadian(300, 0, 0)
    assert tc.budget(BLACK, 10, 81) is not None
    tc.set_none()
    assert tc.budget(BLACK, 10, 81) is None


@pytest.mark.parametrize("main, points", [(60, 81), (300, 81), (900, 361), (30, 25)])
def test_absolute_time_spends_most_in_the_middle_game(main, points):
    tc = TimeControl()
    tc.set_canadian(main, 0, 0)
    left, spent = float(main), {}
    for k in range(0, points, 2):
        b = tc.budget(BLACK, k, points)
        spent[k] = b
        left -= b
        tc.time_left(BLACK, left, 0)
    filled = {k: k / points for k in spent}
    opening = [b for k, b in spent.items() if filled[k] < MIDDLE_START]
    middle = [b for k, b in spent.items() if MIDDLE_START <= filled[k] <= MIDDLE_END]
    endgame = [b for k, b in spent.items() if filled[k] > MIDDLE_END]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    assert mean(middle) > mean(opening)
    assert mean(middle) > mean(endgame)
    # At the same remaining time, the middle game's move gets more than the opening's.
    tc.time_left(BLACK, main, 0)
    assert tc.budget(BLACK, int(0.3 * points), points) > tc.budget(BLACK, 0, points)


@pytest.mark.parametrize("points, length", [(81, 55), (169, 105), (361, 250)])
def test_a_game_of_usual_length_spends_most_of_the_clock(points, length):
    """Games end, by resignation or after the dame, with about a quarter of the board empty
    (match records, BENCHMARKS session 16): a game of the usual length leaves less than a
    quarter of the main time unused."""
    tc = TimeControl()
    tc.set_canadian(120, 0, 0)
    left = 120.0
    for k in range(0, length, 2):
        left -= tc.budget(BLACK, k, points)
        tc.time_left(BLACK, left, 0)
    assert 0 < left < 0.25 * 120


def test_captures_leave_more_moves_to_plan_for():
    """The same move number with more empty points (stones were captured) means more game
    ahead, so a smaller share of the clock now."""
    tc = TimeControl()
    tc.set_canadian(300, 0, 0)
    assert tc.budget(BLACK, 80, 169, empty_points=120) < tc.budget(BLACK, 80, 169, empty_points=89)


@pytest.mark.parametrize("points", [81, 169, 361])
def test_the_first_moves_get_less_than_the_opening_after_them(points):
    """On a nearly empty board the budget ramps up: move 0 gets about half of what the
    same clock gives once the ramp is over, and the ramp rises without a step back."""
    tc = TimeControl()
    tc.set_canadian(600, 0, 0)
    ramp_end = int(OPENING_SHARE * points) + 1
    budgets = [tc.budget(BLACK, k, points) for k in range(ramp_end + 1)]
    assert budgets == sorted(budgets)
    # About OPENING_WEIGHT of the full share (the safety margin takes a little more off).
    assert 0.6 * OPENING_WEIGHT * budgets[ramp_end] < budgets[0]
    assert budgets[0] < 1.1 * OPENING_WEIGHT * budgets[ramp_end]


@pytest.mark.parametrize("remaining", [0.5, 1.0, 2.0, 5.0, 30.0, 300.0, 3600.0])
@pytest.mark.parametrize("moves", [0, 20, 40, 80, 200, 400])
def test_absolute_budget_never_exceeds_remaining_time_minus_margin(remaining, moves):
    for points in (25, 81, 361):
        tc = TimeControl()
        tc.set_canadian(600, 0, 0)
        tc.time_left(WHITE, remaining, 0)
        b = tc.budget(WHITE, moves, points)
        assert 0 < b <= remaining - SAFETY_SECONDS


@pytest.mark.parametrize("seconds, stones", [(300, 25), (100, 5), (30, 10), (10, 1)])
def test_canadian_byo_yomi_divides_the_period_over_its_stones(seconds, stones):
    tc = TimeControl()
    tc.set_canadian(0, 300, 25)
    tc.time_left(BLACK, seconds, stones)
    b = tc.budget(BLACK, 50, 81)
    per_stone = seconds / stones
    assert b <= per_stone - SAFETY_SECONDS + 1e-9
    assert b >= 0.8 * per_stone - SAFETY_SECONDS


def test_canadian_byo_yomi_from_the_settings_alone():
    tc = TimeControl()
    tc.set_canadian(0, 60, 20)          # no time_left yet: a fresh period
    b = tc.budget(WHITE, 0, 81)
    assert 0.8 * 3 - SAFETY_SECONDS <= b <= 3 - SAFETY_SECONDS


@pytest.mark.parametrize("period", [10, 30, 60])
def test_japanese_byo_yomi_uses_the_period(period):
    tc = TimeControl()
    tc.set_japanese(0, period, 5)
    tc.time_left(BLACK, period, 5)
    b = tc.budget(BLACK, 60, 81)
    assert 0.8 * period - SAFETY_SECONDS <= b <= period - SAFETY_SECONDS
    tc.time_left(BLACK, period, 1)      # last period: still the whole period
    assert tc.budget(BLACK, 60, 81) <= period - SAFETY_SECONDS


def test_main_time_with_byo_yomi_behind_it_uses_the_byo_yomi_as_a_floor():
    tc = TimeControl()
    tc.set_canadian(10, 60, 10)
    tc.time_left(BLACK, 10, 0)
    b = tc.budget(BLACK, 30, 81)
    assert b >= 6 * 0.9 - SAFETY_SECONDS - 1e-9


@pytest.mark.parametrize("main, points", [(10, 25), (60, 81), (300, 81), (30, 81), (900, 361), (5, 81),
                                          (10, 361)])
def test_simulated_game_with_absolute_time_never_runs_out(main, points):
    """Spend exactly what `budget` says, move after move, up to the match runner's move cap
    (3 * points moves in all, half of them ours)."""
    tc = TimeControl()
    tc.set_canadian(main, 0, 0)
    left = float(main)
    for k in range(0, 3 * points, 2):
        b = tc.budget(BLACK, k, points)
        assert b < left, f"move {k}: budget {b:.3f} s with {left:.3f} s left"
        left -= b
        tc.time_left(BLACK, left, 0)


@pytest.mark.parametrize("main, byo, stones", [(0, 30, 10), (60, 30, 5), (10, 5, 1), (0, 300, 25)])
def test_simulated_game_with_canadian_byo_yomi_never_runs_out(main, byo, stones):
    tc = TimeControl()
    tc.set_canadian(main, byo, stones)
    left, in_byo, period, stones_left = float(main), main == 0, float(byo), stones
    for k in range(0, 400, 2):
        if in_byo:
            tc.time_left(BLACK, period, stones_left)
        else:
            tc.time_left(BLACK, left, 0)
        b = tc.budget(BLACK, k, 81)
        if not in_byo:
            left -= b
            if left < 0:                      # overran main time into the first period
                in_byo, period = True, byo + left
                assert period > 0
                stones_left = stones - 1
                if stones_left == 0:
                    period, stones_left = float(byo), stones
            continue
        assert b < period, f"move {k}: budget {b:.2f} s, {period:.2f} s left for {stones_left} stones"
        period -= b
        stones_left -= 1
        if stones_left == 0:
            period, stones_left = float(byo), stones


def test_simulated_game_with_japanese_byo_yomi_never_loses_a_period():
    tc = TimeControl()
    tc.set_japanese(20, 10, 3)
    left, periods = 20.0, 3
    for k in range(0, 300, 2):
        if left > 0:
            tc.time_left(BLACK, left, 0)
        else:
            tc.time_left(BLACK, 10, periods)
        b = tc.budget(BLACK, k, 81)
        if left > 0:
            left -= b
            over = -left if left < 0 else 0
            assert over < 10
        else:
            assert b < 10, f"move {k} would use up a period"


@pytest.mark.parametrize("main, increment, points", [(60, 1, 81), (5, 2, 81), (300, 5, 361),
                                                     (0.5, 0.5, 25)])
def test_simulated_game_with_fischer_time_never_runs_out(main, increment, points):
    """Spend what `budget` says, then the increment comes in, move after move."""
    tc = TimeControl()
    tc.set_fischer(main, increment)
    left = float(main)
    spent = 0.0
    for k in range(0, 3 * points, 2):
        b = tc.budget(BLACK, k, points)
        assert 0 < b < left, f"move {k}: budget {b:.3f} s with {left:.3f} s left"
        left += increment - b
        spent += b
        tc.time_left(BLACK, left, 0)
    # The increments are used, not hoarded: most of what came in was spent.
    moves = len(range(0, 3 * points, 2))
    assert spent > 0.5 * (main + increment * moves) - 1


def test_every_setting_resets_a_per_move_cap():
    tc = TimeControl()
    tc.set_fischer(60, 5)
    tc.move_cap = 3.0
    tc.set_canadian(60, 0, 0)
    assert tc.move_cap is None
