"""The admin's table form edits side bets and random multipliers with checkboxes and fields, saves
through the same service as the API (a change-log row per changed value) and shows the engine's
refusal on the field, changing nothing."""
import pytest
from django.test import Client

from engine.config import SUPER_MULTIPLIERS
from tables.models import Table, TableChange

from ..accounts.test_admin import form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(supervisor):
    client = Client()
    client.force_login(supervisor)
    return client


def url(table) -> str:
    return f"/admin/tables/table/{table.pk}/change/"


def logged(table) -> list[str]:
    return sorted(TableChange.objects.filter(table=table).values_list("field", flat=True))


def with_rows(data: dict, rows: list[tuple]) -> dict:
    """The form's data with the multiplier rows replaced by `rows` (the rest emptied)."""
    count = sum(1 for key in data if key.startswith("multiplier_values_")) // 2
    for i in range(count):
        m, w = rows[i] if i < len(rows) else ("", "")
        data[f"multiplier_values_{2 * i}"], data[f"multiplier_values_{2 * i + 1}"] = str(m), str(w)
    return data


def test_the_form_shows_checkboxes_and_rows_not_json(admin, table):
    html = admin.get(url(table)).content.decode()
    for side_bet in ("first_andar", "first_bahar", "first_three", "card_count"):
        assert f'type="checkbox" name="side_bets" value="{side_bet}"' in html
    assert 'type="checkbox" name="multiplier_spots" value="count_46_49"' in html
    assert 'name="multiplier_values_0"' in html and 'aria-label="Weight 1"' in html
    assert "<textarea" not in html.split('name="side_bets"')[0].rsplit("<div", 1)[-1]
    assert 'name="multipliers"' in html and 'type="checkbox" name="multipliers"' in html


def test_unticking_a_side_bet_saves_and_logs_it(admin, table):
    data = form_data(admin, url(table))
    data["side_bets"] = ["card_count", "first_andar", "first_bahar"]
    response = admin.post(url(table), data)
    assert response.status_code == 302, response.content[:3000]
    assert sorted(Table.objects.get(pk=table.pk).side_bets) == ["card_count", "first_andar", "first_bahar"]
    assert logged(table) == ["side_bets"]


def test_switching_multipliers_on_builds_the_setting(admin, table):
    data = with_rows(form_data(admin, url(table)), [(2, 70), (5, 25), (10, 5)])
    data.update(multipliers="on", multiplier_spots=["count_6_10", "count_1_5", "andar"], multiplier_draws="2")
    response = admin.post(url(table), data)
    assert response.status_code == 302, response.content[:3000]
    # The spots in display order (the draw's order), the filled rows only.
    assert Table.objects.get(pk=table.pk).multipliers == {
        "spots": ["andar", "count_1_5", "count_6_10"], "draws": 2, "values": [[2, 70], [5, 25], [10, 5]]}
    assert logged(table) == ["multipliers"]


def test_an_unchanged_form_changes_nothing_and_keeps_the_spots_order(admin, make_table):
    setting = {**SUPER_MULTIPLIERS, "spots": list(reversed(SUPER_MULTIPLIERS["spots"]))}
    table = make_table(multipliers=setting)
    data = form_data(admin, url(table))
    assert data["multipliers"] == "on" and data["multiplier_draws"] == 1
    assert admin.post(url(table), data).status_code == 302
    assert Table.objects.get(pk=table.pk).multipliers == setting and logged(table) == []
    # A new weight row and one more spot: the configured order kept, the new spot last.
    data = with_rows(form_data(admin, url(table)), [*SUPER_MULTIPLIERS["values"], (20, 1)])
    data["multiplier_spots"] = [*setting["spots"], "andar"]
    assert admin.post(url(table), data).status_code == 302
    saved = Table.objects.get(pk=table.pk).multipliers
    assert saved["spots"] == [*setting["spots"], "andar"] and saved["values"][-1] == [20, 1]
    assert logged(table) == ["multipliers"]


def test_switching_multipliers_off(admin, make_table):
    table = make_table(multipliers=SUPER_MULTIPLIERS)
    data = form_data(admin, url(table))
    del data["multipliers"]
    assert admin.post(url(table), data).status_code == 302
    assert Table.objects.get(pk=table.pk).multipliers is None and logged(table) == ["multipliers"]


@pytest.mark.parametrize("change, field, words", [
    # A spot the table does not offer: the engine's refusal, on the switch.
    ({"side_bets": ["card_count"], "multiplier_spots": ["first_three"]}, "multipliers", "not offered"),
    ({"multiplier_spots": []}, "multipliers", "spots"),
    ({"multiplier_draws": "3", "multiplier_spots": ["andar", "bahar"]}, "multipliers", "draws"),
    ({"multiplier_values_0": "2", "multiplier_values_1": ""}, "multiplier_values", "both"),
    ({"multiplier_values_0": "1", "multiplier_values_1": "5"}, "multipliers", "multiplier"),
    ({"multiplier_values_0": "x"}, "multiplier_values", "whole number"),
    ({"side_bets": ["jackpot"]}, "side_bets", "jackpot"),
])
def test_a_refused_setting_is_shown_on_its_field_and_changes_nothing(admin, table, change, field, words):
    data = with_rows(form_data(admin, url(table)), [(2, 70), (3, 30)])
    data.update(multipliers="on", multiplier_spots=["andar"], multiplier_draws="1")
    data.update(change)
    response = admin.post(url(table), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert field in errors and words in " ".join(errors[field]).lower(), errors
    assert Table.objects.get(pk=table.pk).multipliers is None and logged(table) == []
