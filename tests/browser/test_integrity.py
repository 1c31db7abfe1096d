"""The supervisor console's integrity panel in a real Chromium, against the real ASGI server (the
supervisors' stream is a WebSocket; pytest-django's live_server is WSGI). The dealer plays a stacked
shoe through the server's API (every first card matches the joker); the panel, opened before,
shows the table's and the dealer's alerts as they are raised, without a reload, and their traffic
lights turn red with a sentence in a floor supervisor's words (the figures behind a disclosure); the
supervisor acknowledges one with a note and it leaves the list; axe finds nothing serious in each state.

Screenshots land in test-artifacts/<test name>/; the server's log in test-artifacts/test_integrity-server/.
"""
from __future__ import annotations

import random
import re

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


def http_get_integrity(studio_url: str, supervisor) -> dict:
    with localhttp.Client(base_url=studio_url + "/api/", timeout=30,
                          headers={"Authorization": "Token " + token_issue(user=supervisor).key}) as http:
        return http.get("integrity/").json()


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
    salon = panel.locator("#ig-tables .ig-subject")
    expect(salon).to_have_count(1)
    expect(salon.locator(".ig-name")).to_have_text("Salon 7")  # the name once: no "TABLE TABLE"
    expect(salon).to_have_attribute("data-status", "ok")
    expect(salon.locator(".ig-light")).to_have_text("ok")  # a word and a shape, not colour alone
    expect(salon.locator(".ig-say")).to_have_text("Nothing unusual so far.")
    expect(panel.locator("#ig-dealers")).to_contain_text("None yet.")
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
    expect(panel.locator(".ig-subject[data-status=alert]")).to_have_count(2)
    # Each new alert calls for attention: the table's on its tile, the dealer's on the tile of the table
    # they are dealing at (or above the tiles when they deal at none).
    tile = page.locator(f'.tile[data-table="{table.pk}"]')
    expect(tile).to_have_attribute("data-alarm", "on")
    expect(tile.locator(".alarm-box")).to_contain_text("Table Salon 7: Match on the first card")
    expect(page.locator(".alarm-box", has_text="Dealer dealer: Match on the first card")).to_have_count(1)
    expect(page).to_have_title(re.compile(r"^\(2\) "))
    expect(salon.locator(".ig-say")).to_have_text(
        "The first card matches the joker more often than a fair shoe would: the alert threshold is reached.")
    dealer_row = panel.locator("#ig-dealers .ig-subject")
    expect(dealer_row.locator(".ig-name")).to_have_text("dealer")  # not "dealer dealer"
    # The figures, on demand: the server's statistic, threshold and how far on the way.
    figures = salon.locator("details")
    expect(figures.locator("table")).to_be_hidden()
    figures.locator("summary").click()
    row = figures.locator("tr", has_text="Match on the first card")
    expect(row).to_be_visible()
    overview = http_get_integrity(studio_url, supervisor)
    check = next(c for c in overview["tables"][0]["checks"] if c["check"] == "first_card_match")
    expect(row).to_contain_text(f"{check['statistic']}{check['threshold']}{check['progress']}%")
    panel.scroll_into_view_if_needed()
    shot(page, "alerts")
    page.set_viewport_size({"width": 1366, "height": 768})
    panel.locator("#ig-tables").scroll_into_view_if_needed()
    shot(page, "alerts-1366x768", full_page=False)
    accessible(page, "two open alerts at 1366x768, the figures open")
    page.set_viewport_size(MONITOR)
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
    dealer_note = alerts.filter(has_text="Dealer dealer").get_by_label("Note (what was found or done)")
    dealer_note.fill("Watching the next shoe")  # half written when the other alert goes: it stays
    table_alert.get_by_role("button", name="Acknowledge").click()
    expect(alerts).to_have_count(1)
    expect(dealer_note).to_have_value("Watching the next shoe")
    expect(page.locator("#alert")).to_contain_text("Alert acknowledged.")
    acknowledged = Alert.objects.get(monitor__kind="table")
    assert acknowledged.note == "Shoe replaced; shuffler sent for inspection." and acknowledged.acknowledged_by == supervisor
    expect(panel.locator(".ig-subject[data-status=alert]")).to_have_count(1)
    expect(page.locator(".alarm-box", has_text="Table Salon 7")).to_have_count(0)  # acknowledging the alert acknowledges its alarm
    expect(page).to_have_title(re.compile(r"^\(1\) "))
    expect(figures).to_have_attribute("open", "")  # read again, the open disclosure stays open
    shot(page, "acknowledged")
    accessible(page, "one alert acknowledged")
    assert page.js_errors == [] and page.csp_violations == []
