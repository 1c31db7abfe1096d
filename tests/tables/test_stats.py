"""GET /api/tables/{id}/stats/: the last N rounds of a table beside what the exact odds expect."""
from datetime import timedelta
from fractions import Fraction

import pytest
from django.utils import timezone

from engine import MAX_CARDS, match_probability
from tables.models import Round

pytestmark = pytest.mark.django_db

P_FIRST = sum(match_probability(n) for n in range(1, MAX_CARDS + 1, 2))  # the match on an odd card: the first side's


def test_the_first_sides_share_is_rules_md_reference_figure():
    assert P_FIRST == Fraction(429, 833)


def _ended(table, rounds):
    """Rounds as (winner, first_side, cards_dealt, joker, status), in playing order."""
    now = timezone.now()
    for winner, first, cards, joker, status in rounds:
        Round.objects.create(table=table, settings=table.snapshot(), joker=joker, first_side=first, status=status,
                             opened_at=now, closes_at=now + timedelta(seconds=15), finished_at=now,
                             settled_at=now if status == "settled" else None, winner=winner, cards_dealt=cards)


def test_counts_streaks_boxes_and_jokers_of_the_rounds_played(make_table, anon_api):
    table = make_table()
    _ended(table, [
        ("andar", "andar", 1, "KS", "settled"),
        ("andar", "andar", 3, "QH", "settled"),
        ("bahar", "andar", 2, "KD", "finished"),
        ("andar", "bahar", 12, "2C", "settled"),
        ("andar", "andar", 7, "KH", "voided"),  # left out
        ("andar", "andar", 41, "AS", "settled"),
        ("andar", "bahar", 6, "10H", "settled"),
    ])
    body = anon_api.get(f"/api/tables/{table.pk}/stats/").json()
    assert body["rounds"] == 6
    assert body["wins"] == {"andar": 5, "bahar": 1}
    assert body["first_side_wins"] == 3  # andar-first won by andar 3 times; bahar-first never won by bahar
    assert body["longest_streaks"] == {"andar": 3, "bahar": 1}
    assert [r["winner"] for r in body["results"]] == ["andar", "andar", "bahar", "andar", "andar", "andar"]
    boxes = {b["box"]: b["observed"] for b in body["card_count"]}
    assert (boxes["1-5"], boxes["6-10"], boxes["11-15"], boxes["41-45"], sum(boxes.values())) == (3, 1, 1, 1, 6)
    ranks = {r["rank"]: r["count"] for r in body["joker_ranks"]}
    assert (ranks["K"], ranks["Q"], ranks["2"], ranks["A"], ranks["10"], sum(ranks.values())) == (2, 1, 1, 1, 1, 6)
    assert body["joker_colours"] == {"red": 3, "black": 3}
    # Expected: four rounds with Andar first, two with Bahar first.
    andar = 4 * P_FIRST + 2 * (1 - P_FIRST)
    assert body["expected_wins"] == {"andar": f"{float(andar):.2f}", "bahar": f"{float(6 - andar):.2f}"}
    assert body["expected_first_side_wins"] == f"{float(6 * P_FIRST):.2f}"
    one_to_five = sum(match_probability(n) for n in range(1, 6))
    assert next(b for b in body["card_count"] if b["box"] == "1-5")["expected"] == f"{float(6 * one_to_five):.2f}"
    assert all(r["expected"] == f"{6 / 13:.2f}" for r in body["joker_ranks"])


def test_last_takes_the_newest_rounds(make_table, anon_api):
    table = make_table()
    _ended(table, [("bahar", "andar", 2, "KS", "settled")] * 5 + [("andar", "andar", 1, "KS", "settled")] * 10)
    body = anon_api.get(f"/api/tables/{table.pk}/stats/?last=10").json()
    assert (body["rounds"], body["wins"]) == (10, {"andar": 10, "bahar": 0})
    body = anon_api.get(f"/api/tables/{table.pk}/stats/").json()  # 100 by default: all 15
    assert (body["rounds"], body["wins"], body["longest_streaks"]) == (15, {"andar": 10, "bahar": 5}, {"andar": 10, "bahar": 5})


def test_a_table_without_rounds_has_zero_counts(make_table, anon_api):
    body = anon_api.get(f"/api/tables/{make_table().pk}/stats/").json()
    assert body["rounds"] == 0 and body["results"] == [] and body["expected_first_side_wins"] == "0.00"
    assert body["longest_streaks"] == {"andar": 0, "bahar": 0}


@pytest.mark.parametrize("last", ["9", "501", "abc", "1e3", "-10"])
def test_a_bad_last_is_a_400_with_the_field_named(make_table, anon_api, last):
    response = anon_api.get(f"/api/tables/{make_table().pk}/stats/?last={last}")
    assert response.status_code == 400, response.content
    assert "last" in response.json()["fields"]


def test_an_empty_last_is_a_field_error(make_table, anon_api):  # not the default: an empty value is not an absent one
    response = anon_api.get(f"/api/tables/{make_table().pk}/stats/?last=")
    assert response.status_code == 400 and list(response.json()["fields"]) == ["last"]
    assert anon_api.get(f"/api/tables/{make_table().pk}/stats/").status_code == 200  # absent: the default


def test_an_unknown_table_is_404(anon_api):
    assert anon_api.get("/api/tables/999999/stats/").status_code == 404
