"""A supervisor sets a table's random multipliers in the admin by ticking boxes and filling rows,
and sees the engine's refusal on the field when the setting would not make a table."""
import pytest
from playwright.sync_api import expect

from tables.models import Table, TableChange

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_supervisor_sets_multipliers_with_checkboxes_and_rows(page, live_server, supervisor, table, login, shot):
    login(page, live_server.url, "supervisor")
    page.goto(f"{live_server.url}/admin/tables/table/{table.pk}/change/")
    expect(page.get_by_role("checkbox", name="Card count")).to_be_checked()
    page.get_by_role("checkbox", name="Random multipliers").check()
    # A spot the table would not offer once First 3 is unticked: refused on the switch, nothing saved.
    page.get_by_role("checkbox", name="First 3 (poker hand)").uncheck()
    page.get_by_role("checkbox", name="First 3", exact=True).check()
    page.get_by_label("Multiplier 1", exact=True).fill("2")
    page.get_by_label("Weight 1", exact=True).fill("90")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".errorlist")).to_contain_text("not offered")
    assert Table.objects.get(pk=table.pk).multipliers is None
    shot(page, "refused")
    page.get_by_role("checkbox", name="First 3", exact=True).uncheck()
    page.get_by_role("checkbox", name="36–40 cards").check()
    page.get_by_role("checkbox", name="41–45 cards").check()
    page.get_by_label("Multiplier 2", exact=True).fill("10")
    page.get_by_label("Weight 2", exact=True).fill("10")
    page.get_by_role("button", name="Save and continue editing").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    saved = Table.objects.get(pk=table.pk)
    assert saved.multipliers == {"spots": ["count_36_40", "count_41_45"], "draws": 1, "values": [[2, 90], [10, 10]]}
    assert sorted(saved.side_bets) == ["card_count", "first_andar", "first_bahar"]
    assert set(TableChange.objects.filter(table=table).values_list("field", flat=True)) == {"multipliers", "side_bets"}
    expect(page.get_by_label("Multiplier 2", exact=True)).to_have_value("10")
    shot(page, "saved")
