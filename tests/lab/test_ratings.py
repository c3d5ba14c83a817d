"""Rating maths (engine/lab/ratings.py): the Bradley-Terry fit on cases whose answer is known."""
import json
import math

import pytest

from engine.lab.ratings import ELO, RatingError, fit, save


def games(a, b, wins, losses, draws=0):
    return [(a, b, 1.0)] * wins + [(a, b, 0.0)] * losses + [(a, b, 0.5)] * draws


def by_name(ratings):
    return {x.name: x for x in ratings}


def test_elo_scale_is_400_over_ln10():
    assert ELO == pytest.approx(173.7178, abs=1e-4)


def test_two_players_75_percent_is_191_elo():
    r = by_name(fit(games("A", "B", 300, 100), anchor="B"))
    assert r["B"].elo == 0.0
    # Exact MLE 190.8; one virtual draw moves it by under 1 Elo.
    assert r["A"].elo == pytest.approx(190.8, abs=1.5)
    assert r["A"].low < 190.8 < r["A"].high
    assert r["B"].low == r["B"].high == 0.0


def test_symmetric_results_give_equal_ratings():
    field = games("A", "B", 10, 10) + games("B", "C", 7, 7) + games("A", "C", 3, 3, draws=4)
    r = by_name(fit(field, anchor="C"))
    for name in "ABC":
        assert r[name].elo == pytest.approx(0.0, abs=1e-6)


def test_transitivity_of_consistent_results():
    # A over B 75%, B over C 75%, and A over C at the rate the model predicts for 381 Elo.
    p_ac = 1 / (1 + 10 ** (-2 * 190.85 / 400))
    n = 1000
    field = (games("A", "B", 750, 250) + games("B", "C", 750, 250)
             + games("A", "C", round(p_ac * n), n - round(p_ac * n)))
    r = by_name(fit(field, anchor="C"))
    assert r["B"].elo == pytest.approx(190.8, abs=3)
    assert r["A"].elo == pytest.approx(381.7, abs=5)
    assert [x.name for x in fit(field, anchor="C")] == ["A", "B", "C"]


def test_draws_count_as_half_wins():
    with_draws = by_name(fit(games("A", "B", 50, 10, draws=40), anchor="B"))
    as_halves = by_name(fit(games("A", "B", 70, 30), anchor="B"))
    assert with_draws["A"].elo == pytest.approx(as_halves["A"].elo, abs=1e-6)
    assert with_draws["A"].score == 70


def test_interval_shrinks_with_games():
    widths = []
    for k in (1, 4, 16):
        r = by_name(fit(games("A", "B", 30 * k, 10 * k), anchor="B"))
        widths.append(r["A"].high - r["A"].low)
    assert widths[0] > widths[1] > widths[2]
    # Standard error goes as 1/sqrt(n): four times the games, about half the width.
    assert widths[1] / widths[2] == pytest.approx(2.0, rel=0.1)


def test_interval_matches_binomial_standard_error():
    # For two players the MLE's standard error is 1/sqrt(n p (1-p)) in log-odds units.
    n, p = 400, 0.75
    r = by_name(fit(games("A", "B", 300, 100), anchor="B", prior=0))
    half = ELO * 1.959964 / math.sqrt(n * p * (1 - p))
    assert (r["A"].high - r["A"].low) / 2 == pytest.approx(half, rel=1e-3)


def test_perfect_record_stays_finite_thanks_to_the_prior():
    r = by_name(fit(games("A", "B", 20, 0) + games("B", "C", 10, 10), anchor="C"))
    assert math.isfinite(r["A"].elo) and r["A"].elo > 300
    assert math.isfinite(r["A"].high)
    # More games without a loss: higher still.
    more = by_name(fit(games("A", "B", 80, 0) + games("B", "C", 10, 10), anchor="C"))
    assert more["A"].elo > r["A"].elo


def test_anchor_shifts_all_ratings_by_a_constant():
    field = games("A", "B", 12, 8) + games("B", "C", 15, 5) + games("A", "C", 9, 1)
    on_c, on_a = by_name(fit(field, anchor="C")), by_name(fit(field, anchor="A"))
    shift = on_c["A"].elo
    for name in "ABC":
        assert on_a[name].elo == pytest.approx(on_c[name].elo - shift, abs=1e-6)
    assert on_a["A"].elo == 0.0


def test_bad_anchor_and_disconnected_field_are_refused():
    with pytest.raises(RatingError, match="anchor"):
        fit(games("A", "B", 3, 1), anchor="Z")
    with pytest.raises(RatingError, match="never met"):
        fit(games("A", "B", 3, 1) + games("C", "D", 2, 2))


def test_players_without_games_are_left_out():
    r = fit(games("A", "B", 3, 1), players=["Z", "A", "B"], anchor="A")
    assert sorted(x.name for x in r) == ["A", "B"]


def test_save_writes_markdown_json_and_png(tmp_path):
    r = fit(games("A", "B", 30, 10) + games("B", "C", 25, 15), anchor="C")
    text = save(r, tmp_path, anchor="C")
    assert "| 1 | A |" in text
    data = json.loads((tmp_path / "ratings.json").read_text())
    assert [x["name"] for x in data["ratings"]] == ["A", "B", "C"]
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"
