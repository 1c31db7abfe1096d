"""The supervisor console's integrity panel in a real Chromium, against the real ASGI server (the
supervisors' stream is a WebSocket; pytest-django's live_server is WSGI). The dealer plays a stacked
shoe through the server's API (every first card matches the joker); the panel, opened before,
shows the table's and the dealer's alerts as they are raised, without a reload; the supervisor
acknowledges one with a note and it leaves the list; axe finds nothing serious in each state.

Screenshots land in test-artifacts/<test name>/; the server's log in test-artifacts/test_integrity-server/.
"""
from __future__ import annotations

import random

import httpx
import pytest
from playwright.sync_api import expect

from accounts.tokens import token_issue
from integrity.models import Alert

from tests import localhttp
from tests.integrity.conftest import first_card_pack

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MONITOR = {"width": 1920, "height": 1080}



def play_stacked(http: httpx.Client, table_id: int, rng: random.Random) -> None:
    pack = first_card_pack(rng)
    rnd = http.post(f"tables/{table_id}/rounds/", json={"joker": pack[0]})
    assert rnd.status_code == 201, rnd.text
    rid = rnd.json()["id"]
    assert http.post(f"rounds/{rid}/close-betting/").status_code == 200
    assert http.post(f"rounds/{rid}/cards/", json={"card": pack[1]}).status_code == 201


def test_alerts_reach_the_open_console_live_and_are_acknowledged_with_a_note(
        studio_url, page, make_table, dealer, supervisor, login, shot, accessible):
    expect.set_options(timeout=15_000)
    page.set_default_timeout(30_000)
    page.set_viewport_size(MONITOR)
    table = make_table(name="Salon 7")
    login(page, studio_url, "supervisor")
    page.goto(studio_url + "/supervisor/")
    panel = page.locator("#integrity")
    expect(page.locator("#ig-live")).to_have_attribute("data-state", "live")
    expect(panel.locator("#ig-alerts")).to_contain_text("No open alerts.")
    expect(panel.locator("#ig-checks tbody tr")).to_have_count(1)
    expect(panel.locator("#ig-checks tbody tr").first).to_contain_text("Salon 7")
    accessible(page, "the integrity panel, quiet")

    rng = random.Random(15)
    token = token_issue(user=dealer).key
    with localhttp.Client(base_url=studio_url + "/api/", timeout=30, headers={"Authorization": "Token " + token}) as http:
        while not Alert.objects.exists():
            play_stacked(http, table.pk, rng)
    alerts = panel.locator(".ig-alert")
    expect(alerts).to_have_count(2)  # the table's and the dealer's, pushed by the stream
    expect(page.locator("#stat-integrity")).to_have_text("Integrity: 2 open alerts")
    expect(panel.locator("#ig-alerts")).to_contain_text("Table Salon 7: Match on the first card")
    expect(panel.locator("#ig-checks td[data-status=alert]")).to_have_count(2)
    panel.scroll_into_view_if_needed()
    shot(page, "alerts")
    accessible(page, "two open alerts")

    table_alert = alerts.filter(has_text="Table Salon 7")
    note = table_alert.get_by_label("Note (what was found or done)")
    table_alert.get_by_role("button", name="Acknowledge").click()
    assert note.evaluate("el => !el.validity.valid")  # an empty note is not sent
    note.fill("   ")
    table_alert.get_by_role("button", name="Acknowledge").click()
    expect(page.locator("#alert")).to_contain_text("Write a note first")  # nor is a blank one
    expect(alerts).to_have_count(2)
    note.fill("Shoe replaced; shuffler sent for inspection.")
    table_alert.get_by_role("button", name="Acknowledge").click()
    expect(alerts).to_have_count(1)
    expect(page.locator("#alert")).to_contain_text("Alert acknowledged.")
    acknowledged = Alert.objects.get(monitor__kind="table")
    assert acknowledged.note == "Shoe replaced; shuffler sent for inspection." and acknowledged.acknowledged_by == supervisor
    expect(panel.locator("#ig-checks td[data-status=alert]")).to_have_count(1)
    shot(page, "acknowledged")
    accessible(page, "one alert acknowledged")
    assert page.js_errors == [] and page.csp_violations == []
