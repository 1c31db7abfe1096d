"""The supervisor console (/supervisor/) in a real Chromium: a round is paused from a table tile, its
incident is opened, noted and voided, and the page shows the refunds; the players' balances are back
where they started. A second run pauses and resumes on a phone; dealers and players are refused.

The round and the bets are made through the API (as the dealer and the players would); everything
the supervisor does goes through the page."""
import csv
import io
import re
import time
from datetime import datetime

import httpx
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MONITOR = {"width": 1920, "height": 1080}
DESKTOP = {"width": 1280, "height": 800}


def expect(locator):
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


@pytest.fixture
def api_as(live_server):
    """`api_as(user)`: an HTTP client of the live server with the user's token. The dealer and the
    players use the API over HTTP, as they would (and so the server, not the test thread that hosts
    Playwright's event loop, publishes to the stream)."""
    from accounts.tokens import token_issue

    clients = []

    def make(user):
        key = token_issue(user=user).key
        clients.append(httpx.Client(base_url=live_server.url, headers={"Authorization": f"Token {key}"}, timeout=15))
        return clients[-1]

    yield make
    for client in clients:
        client.close()


def balance(client) -> str:
    return client.get("/api/me/").json()["balance"]


def round_of(client, rid) -> dict:
    return client.get(f"/api/rounds/{rid}/").json()


@pytest.fixture
def live_round(make_table, dealer, alice, bob, api_as):
    """A table in betting (long clock: nothing closes it during the test), with Alice's and Bob's bets."""
    table = make_table(name="Salon 1", betting_seconds=600)
    dealer_http, alice_http, bob_http = api_as(dealer), api_as(alice), api_as(bob)
    res = dealer_http.post(f"/api/tables/{table.id}/rounds/", json={"joker": "KS"})
    assert res.status_code == 201, res.text
    rid = res.json()["id"]
    for client, spot, amount in [(alice_http, "andar", "100"), (bob_http, "bahar", "50"), (bob_http, "count_6_10", "25")]:
        placed = client.post(f"/api/rounds/{rid}/bets/", json={"spot": spot, "amount": amount})
        assert placed.status_code == 201, placed.text
    assert (balance(alice_http), balance(bob_http)) == ("900.00", "925.00")
    return table, rid, dealer_http, alice_http, bob_http


def open_console(page, live_server, login):
    login(page, live_server.url, "supervisor", "pw-supervisor")
    page.goto(live_server.url + "/supervisor/")


def raise_incident(page, tile, kind: str, notes: str) -> None:
    tile.get_by_role("button", name="Raise incident").click()
    dialog = page.locator("#raise-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("#raise-kind").select_option(kind)
    dialog.locator("#raise-notes").fill(notes)
    dialog.locator("#raise-submit").click()
    expect(dialog).to_be_hidden()


def test_supervisor_pauses_and_voids_a_round_and_sees_the_refunds(page, live_server, login, shot, live_round, supervisor):
    table, rid, dealer_http, alice_http, bob_http = live_round
    open_console(page, live_server, login)
    page.set_viewport_size(MONITOR)
    tile = page.locator(f'.tile[data-table="{table.id}"]')
    expect(tile).to_have_attribute("data-status", "betting")
    expect(tile.locator("h3")).to_have_text("Salon 1")
    expect(tile.locator("[data-f=round]")).to_have_text(f"#{rid}")
    clock = tile.locator("[data-f=time]")
    expect(clock).to_have_text(re.compile(r"^(9|10):\d\d$"))
    first = clock.inner_text()
    page.wait_for_timeout(1300)
    assert clock.inner_text() != first, "the betting clock on the tile does not tick"
    shot(page, "overview-1920x1080")

    raise_incident(page, tile, "equipment", "Shoe jammed")
    expect(tile).to_have_attribute("data-status", "paused")
    expect(tile.locator(".pill")).to_have_text("paused")
    expect(tile).to_have_attribute("data-incident", "open")
    assert tile.evaluate("el => getComputedStyle(el).animationName") == "alarm"  # the tile pulses red
    expect(tile.locator(".tile-inc")).to_be_visible()
    assert round_of(dealer_http, rid)["status"] == "paused"
    shot(page, "overview-incident-1920x1080")

    page.set_viewport_size(DESKTOP)
    item = page.locator("#open-list .inc-item")
    expect(item).to_have_count(1)
    item.click()
    detail = page.locator("#detail")
    expect(detail.locator("#detail-title")).to_contain_text("Equipment")
    expect(detail.locator("#detail-round-pill")).to_have_text("round paused")
    expect(detail.locator("#board-joker .card")).to_have_attribute("data-card", "KS")
    expect(detail.locator('#spots-table tr[data-spot="andar"]')).to_contain_text("100.00")
    expect(detail.locator('#spots-table tr[data-spot="bahar"]')).to_contain_text("50.00")
    expect(detail.locator("#spots-table tfoot")).to_contain_text("175.00")
    expect(detail.locator('#players-table tr[data-player="alice"]')).to_contain_text("100.00")
    expect(detail.locator('#players-table tr[data-player="bob"]')).to_contain_text("75.00")

    # A refusal is shown as the API words it: no card has been dealt yet.
    detail.get_by_role("button", name="Remove last card").click()
    alert = page.get_by_role("alert").filter(has_text="No card has been dealt")
    expect(alert).to_be_visible()
    page.locator("#alert-close").click()

    detail.locator("#note-text").fill("Pit boss called, shoe replaced")
    detail.get_by_role("button", name="Add note").click()
    expect(detail.locator("#notes li")).to_have_count(2)
    expect(detail.locator("#notes")).to_contain_text("Pit boss called, shoe replaced")

    # Void: a reason is required, then a confirm step names what will be refunded.
    detail.locator("#void-btn").click()
    expect(page.get_by_role("alert").filter(has_text="reason")).to_be_visible()
    expect(detail.locator("#void-confirm")).to_be_hidden()
    assert round_of(dealer_http, rid)["status"] == "paused"
    detail.locator("#void-reason").fill("Shoe fault: round cannot be completed")
    detail.locator("#void-btn").click()
    expect(detail.locator("#void-confirm")).to_contain_text("3 bets (175.00 CHIPS) of 2 players")
    shot(page, "void-confirm-1280x800")
    detail.get_by_role("button", name="Yes, void and refund").click()

    refunds = detail.locator("#refunds")
    expect(refunds).to_be_visible()
    expect(refunds.locator("[data-f=count]")).to_have_text("3")
    expect(refunds.locator("[data-f=total]")).to_have_text("175.00")
    rows = refunds.locator("tbody tr[data-bet]")
    expect(rows).to_have_count(3)
    expect(rows.filter(has_text="alice")).to_contain_text("+100.00")  # the ledger's refund entry
    expect(rows.filter(has_text="Bahar")).to_contain_text("+50.00")
    expect(rows.filter(has_text="Card count 6–10")).to_contain_text("+25.00")
    expect(detail.locator("#detail-inc-pill")).to_have_text("incident voided")
    expect(tile).to_have_attribute("data-status", "voided")
    expect(tile).to_have_attribute("data-incident", "none")
    expect(page.locator("#open-list")).to_contain_text("No open incidents")
    shot(page, "refunds-1280x800")

    assert (balance(alice_http), balance(bob_http)) == ("1000.00", "1000.00")
    assert round_of(dealer_http, rid)["status"] == "voided"

    # History: search the round, open its audit trail, export it as CSV.
    page.locator("#q").fill(str(rid))
    row = page.locator(f'#history-table tr.row[data-round="{rid}"]')
    expect(row).to_contain_text("voided")
    row.click()
    audit = page.locator(f'tr[data-audit="{rid}"]')
    expect(audit.locator('li[data-action="voided"]')).to_contain_text("paused → voided")
    expect(audit.locator('li[data-action="voided"]')).to_contain_text("supervisor")
    expect(audit.locator('li[data-action="paused"]')).to_contain_text("betting → paused")
    expect(audit.locator('li[data-action="opened"]')).to_contain_text("dealer")
    shot(page, "history-audit-1280x800")

    response = page.request.get(live_server.url + page.locator("#csv-link").get_attribute("href"))
    assert response.status == 200
    lines = list(csv.DictReader(io.StringIO(response.text())))
    assert [(r["id"], r["table"], r["status"], r["bets"], r["staked"]) for r in lines] == [(str(rid), "Salon 1", "voided", "3", "175.00")]
    assert page.js_errors == []


def test_supervisor_pauses_then_resumes_on_a_phone(phone_page, live_server, login, shot, live_round, supervisor):
    page = phone_page
    table, rid, dealer_http, _, _ = live_round
    open_console(page, live_server, login)
    tile = page.locator(f'.tile[data-table="{table.id}"]')
    expect(tile).to_have_attribute("data-status", "betting")
    shot(page, "phone-overview")

    raise_incident(page, tile, "stream", "Stream frozen on camera 2")
    expect(tile).to_have_attribute("data-status", "paused")
    paused = round_of(dealer_http, rid)
    paused_seen = time.monotonic()
    assert paused["status"] == "paused"
    detail = page.locator("#detail")
    expect(detail.locator("#detail-title")).to_contain_text("Stream outage")  # opened by raising it
    expect(detail.locator("#notes")).to_contain_text("Stream frozen on camera 2")
    shot(page, "phone-incident")

    detail.locator("#resume-text").fill("Stream back")
    page.wait_for_timeout(max(0, 1500 - 1000 * (time.monotonic() - paused_seen)))  # a pause long enough to measure
    held_for = time.monotonic() - paused_seen  # the round was paused at least this long
    detail.get_by_role("button", name="Resume round").click()
    expect(detail.locator("#resolved-note")).to_contain_text("Resolved by supervisor")
    expect(detail.locator("#resolved-note")).to_contain_text("Stream back")
    expect(tile).to_have_attribute("data-status", "betting")
    expect(tile).to_have_attribute("data-incident", "none")
    resumed = round_of(dealer_http, rid)
    assert resumed["status"] == "betting"
    # The clock stopped while paused: the deadline moved by the pause, and no more time was given back than was left.
    moved = datetime.fromisoformat(resumed["closes_at"]) - datetime.fromisoformat(paused["closes_at"])
    assert moved.total_seconds() >= held_for >= 1.5
    assert resumed["betting_left_ms"] <= paused["betting_left_ms"]
    shot(page, "phone-resumed")
    assert page.js_errors == []


@pytest.mark.parametrize("who", ["dealer", "alice"])
def test_supervisor_console_is_forbidden_to_dealers_and_players(page, live_server, login, request, who):
    request.getfixturevalue(who)
    login(page, live_server.url, who, f"pw-{who}")
    response = page.goto(live_server.url + "/supervisor/")
    assert response.status == 403
    expect(page.get_by_role("heading", name="Not for your role")).to_be_visible()
    assert page.locator("#tiles").count() == 0
