"""The supervisor console (/supervisor/) in a real Chromium: a round is paused from a table tile, its
incident is opened, noted and voided, and the page shows the refunds; the players' balances are back
where they started. A second run pauses and resumes on a phone; dealers and players are refused.
Then what the floor needs: the incident's Resume and Void in view on a studio monitor and a laptop,
a misread card picked by clicking it (or with the keyboard) and corrected, tiles with players,
stakes, exposure and a flag on a table that has gone quiet, one request per refresh whatever the
number of tables, times with their time zone and an audit without empty keys.

The round and the bets are made through the API (as the dealer and the players would); everything
the supervisor does goes through the page."""
import csv
import io
import re
import time
from datetime import datetime, timedelta
from urllib.parse import urlsplit

import pytest
from django.utils.timezone import now as timezone_now

from tables.models import DealtCard
from tests import localhttp

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MONITOR = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1366, "height": 768}
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
        clients.append(localhttp.Client(base_url=live_server.url, headers={"Authorization": f"Token {key}"}, timeout=15))
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
    login(page, live_server.url, "supervisor")
    page.goto(live_server.url + "/supervisor/")


def raise_incident(page, tile, kind: str, notes: str) -> None:
    tile.get_by_role("button", name="Raise incident").click()
    dialog = page.locator("#raise-dialog")
    expect(dialog).to_be_visible()
    dialog.locator("#raise-kind").select_option(kind)
    dialog.locator("#raise-notes").fill(notes)
    dialog.locator("#raise-submit").click()
    expect(dialog).to_be_hidden()


def zone_name(page) -> str:
    """The browser's short time-zone name ("UTC", "GMT+5:30"), as the page writes it after a time."""
    return page.evaluate("new Intl.DateTimeFormat('en', {timeZoneName: 'short'}).formatToParts(new Date())"
                         ".find(p => p.type === 'timeZoneName').value")


def test_supervisor_pauses_and_voids_a_round_and_sees_the_refunds(page, live_server, login, shot, accessible, live_round, supervisor):
    table, rid, dealer_http, alice_http, bob_http = live_round
    open_console(page, live_server, login)
    page.set_viewport_size(MONITOR)
    tile = page.locator(f'.tile[data-table="{table.id}"]')
    expect(tile).to_have_attribute("data-status", "betting")
    expect(tile.locator("h3")).to_have_text("Salon 1")
    expect(tile.locator("[data-f=round]")).to_have_text(f"#{rid}")
    clock = tile.locator("[data-f=time]")
    expect(clock).to_have_text(re.compile(r"^(9|10):\d\d$"))
    expect(clock).not_to_have_text(clock.inner_text(), timeout=3000)  # the betting clock on the tile ticks
    accessible(page, "the floor")
    shot(page, "overview-1920x1080")

    raise_incident(page, tile, "equipment", "Shoe jammed")
    expect(tile).to_have_attribute("data-status", "paused")
    expect(tile.locator(".pill")).to_have_text("paused")
    expect(tile).to_have_attribute("data-incident", "open")
    glow = "el => getComputedStyle(el, '::after').animationName"
    assert tile.evaluate(glow) == "none"  # the tests' pages ask for reduced motion: a steady red
    page.emulate_media(reduced_motion="no-preference")
    assert tile.evaluate(glow) == "alarm"  # otherwise the tile pulses red
    page.emulate_media(reduced_motion="reduce")
    expect(tile.locator(".tile-inc")).to_be_visible()
    assert round_of(dealer_http, rid)["status"] == "paused"
    accessible(page, "an incident raised from its tile")
    shot(page, "overview-incident-1920x1080")

    page.set_viewport_size(DESKTOP)
    item = page.locator("#open-list .inc-item")
    expect(item).to_have_count(1)
    # By keyboard: Escape closes the incident and Enter opens it again; the list is drawn again each
    # time (the current incident marked) and the focus stays on the incident's entry.
    item.focus()
    page.keyboard.press("Escape")
    expect(item).not_to_have_attribute("aria-current", "true")
    expect(item).to_be_focused()
    page.keyboard.press("Enter")
    detail = page.locator("#detail")
    expect(detail.locator("#detail-title")).to_contain_text("Equipment")
    expect(item).to_have_attribute("aria-current", "true")
    expect(item).to_be_focused()
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
    accessible(page, "the void's confirm step")
    for button in ("#void-btn", "#void-yes", "#resume-btn"):  # a hovered button keeps its contrast
        detail.locator(button).hover()
        accessible(page, f"the void's confirm step, {button} under the pointer")
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
    accessible(page, "the refunds")
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
    # Times carry their time zone; the audit leaves out empty keys (the round's settings name no match).
    zone = zone_name(page)
    expect(audit.locator('li[data-action="voided"] > span').first).to_contain_text(zone)
    expect(row).to_contain_text(zone)
    expect(detail.locator("#detail-sub")).to_contain_text(zone)
    expect(audit.locator('li[data-action="opened"] .data')).to_contain_text("mode=classic")
    expect(audit.locator('li[data-action="opened"] .data')).not_to_contain_text("match=")
    opener = row.get_by_role("button", name=f"Round #{rid}: audit trail")
    expect(opener).to_have_attribute("aria-expanded", "true")
    # "r" reads the history again (as its 10-s reload does): the rows are drawn anew, the focus kept.
    opener.focus()
    row.evaluate("el => { el.dataset.drawnBefore = 'yes'; }")
    page.keyboard.press("r")
    expect(page.locator("#history-table [data-drawn-before]")).to_have_count(0)
    expect(opener).to_be_focused()
    expect(opener).to_have_attribute("aria-expanded", "true")
    accessible(page, "a round's audit trail in the history")
    shot(page, "history-audit-1280x800")

    response = page.request.get(live_server.url + page.locator("#csv-link").get_attribute("href"))
    assert response.status == 200
    lines = list(csv.DictReader(io.StringIO(response.text())))
    assert [(r["id"], r["table"], r["status"], r["bets"], r["staked"]) for r in lines] == [(str(rid), "Salon 1", "voided", "3", "175.00")]
    assert page.js_errors == []


def test_supervisor_pauses_then_resumes_on_a_phone(phone_page, live_server, login, shot, accessible, live_round, supervisor):
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
    accessible(page, "an incident on a phone")
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
    login(page, live_server.url, who)
    response = page.goto(live_server.url + "/supervisor/")
    assert response.status == 403
    expect(page.get_by_role("heading", name="Not for your role")).to_be_visible()
    assert page.locator("#tiles").count() == 0


@pytest.fixture
def dealt_round(make_table, dealer, alice, api_as):
    """A table in dealing with three cards dealt (none matches the joker KS) and Alice's bet."""
    table = make_table(name="Salon 2", betting_seconds=600)
    dealer_http, alice_http = api_as(dealer), api_as(alice)
    rid = dealer_http.post(f"/api/tables/{table.id}/rounds/", json={"joker": "KS"}).json()["id"]
    assert alice_http.post(f"/api/rounds/{rid}/bets/", json={"spot": "andar", "amount": "100"}).status_code == 201
    assert dealer_http.post(f"/api/rounds/{rid}/close-betting/").status_code == 200
    for card in ["2C", "9D", "5H"]:
        assert dealer_http.post(f"/api/rounds/{rid}/cards/", json={"card": card}).status_code == 201
    return table, rid, dealer_http


@pytest.mark.parametrize("size", [MONITOR, LAPTOP], ids=["1920x1080", "1366x768"])
def test_an_incidents_resume_and_void_are_in_view_when_it_opens(page, live_server, login, shot, accessible, live_round,
                                                                supervisor, size):
    table, rid, dealer_http, _, _ = live_round
    page.set_viewport_size(size)
    open_console(page, live_server, login)
    tile = page.locator(f'.tile[data-table="{table.id}"]')
    raise_incident(page, tile, "misread", "Card unreadable on camera 1")
    detail = page.locator("#detail")
    expect(detail.locator("#detail-title")).to_contain_text("Misread card")
    for button in ("Resume round", "Void round…"):
        expect(detail.get_by_role("button", name=button)).to_be_in_viewport()
    name = f"{size['width']}x{size['height']}"
    shot(page, f"incident-open-{name}", full_page=False)
    # Reading down the incident (its notes), the actions stay on screen.
    detail.locator("#note-add").scroll_into_view_if_needed()
    expect(detail.locator("#note-add")).to_be_in_viewport()
    for button in ("Resume round", "Void round…"):
        expect(detail.get_by_role("button", name=button)).to_be_in_viewport()
    accessible(page, f"an open incident at {name}")
    shot(page, f"incident-notes-{name}", full_page=False)
    detail.locator("#resume-text").fill("Card re-read on camera 2")
    detail.get_by_role("button", name="Resume round").click()
    expect(detail.locator("#resolved-note")).to_contain_text("Card re-read on camera 2")
    assert round_of(dealer_http, rid)["status"] == "betting"
    assert page.js_errors == []


def test_a_card_to_correct_is_picked_by_clicking_it(page, live_server, login, shot, accessible, dealt_round, supervisor):
    table, rid, dealer_http = dealt_round
    page.set_viewport_size(LAPTOP)
    open_console(page, live_server, login)
    tile = page.locator(f'.tile[data-table="{table.id}"]')
    expect(tile).to_have_attribute("data-status", "dealing")
    raise_incident(page, tile, "misread", "Card 2 read as 9D, is 7D")
    detail = page.locator("#detail")
    card = detail.get_by_role("button", name="9 of diamonds, position 2")
    expect(card).to_have_attribute("aria-pressed", "false")
    expect(card).to_have_accessible_description("Click a card (or focus it and press Enter) to correct it.")
    card.click()
    expect(card).to_have_attribute("aria-pressed", "true")
    expect(detail.locator("#replace-pos")).to_have_value("2")
    expect(detail.locator("#replace-card")).to_be_focused()
    expect(detail.locator("#picked")).to_contain_text("Correcting card 2 (9 of diamonds)")
    accessible(page, "a card picked for correction")
    shot(page, "card-picked-1366x768", full_page=False)
    page.keyboard.type("7D")
    page.keyboard.press("Enter")
    expect(page.get_by_role("alert").filter(has_text="Card 2 is now 7D")).to_be_visible()
    expect(detail.locator('#cards-bahar .card[data-card="7D"]')).to_be_visible()
    assert [c["card"] for c in round_of(dealer_http, rid)["cards"]] == ["2C", "7D", "5H"]

    # The keyboard picks a card too: Tab to it, Enter.
    third = detail.get_by_role("button", name="5 of hearts, position 3")
    third.focus()
    page.keyboard.press("Enter")
    expect(detail.locator("#replace-pos")).to_have_value("3")
    expect(detail.locator("#replace-card")).to_be_focused()
    page.keyboard.type("4S")
    page.keyboard.press("Enter")
    expect(detail.locator('#cards-andar .card[data-card="4S"]')).to_be_visible()
    assert [c["card"] for c in round_of(dealer_http, rid)["cards"]] == ["2C", "7D", "4S"]
    assert page.js_errors == []


def test_tiles_show_players_stakes_exposure_and_a_quiet_table_with_one_request_per_refresh(
        page, live_server, login, shot, accessible, settings, live_round, dealt_round, make_table, supervisor):
    settings.FLOOR_SILENCE_SECONDS = 20
    betting, _, _, _, _ = live_round
    dealing, quiet_rid, _ = dealt_round
    empty = make_table(name="Salon 3")
    DealtCard.objects.filter(round_id=quiet_rid).update(dealt_at=timezone_now() - timedelta(seconds=45))
    api_calls, refused = [], []
    page.on("request", lambda r: api_calls.append(urlsplit(r.url).path) if "/api/" in r.url else None)
    page.on("response", lambda r: refused.append((r.status, r.url)) if "/api/" in r.url and r.status >= 400 else None)
    page.set_viewport_size(MONITOR)
    open_console(page, live_server, login)

    tile = page.locator(f'.tile[data-table="{betting.id}"]')
    expect(tile.locator("[data-f=players]")).to_have_text("2")
    expect(tile.locator("[data-f=staked]")).to_have_text("175.00")
    expect(tile.locator("[data-f=exposure]")).to_have_text("115.00")  # Andar wins with 6-10 cards: 290 back for 175
    expect(tile.locator("[data-f=limits]")).to_have_text("10–500 CHIPS")
    expect(tile).to_have_attribute("data-stalled", "false")
    quiet = page.locator(f'.tile[data-table="{dealing.id}"]')
    expect(quiet).to_have_attribute("data-stalled", "true")
    # 45 s and counting when the page reads it (more on a loaded machine).
    expect(quiet.locator("[data-f=stalled]")).to_have_text(re.compile(r"No card for (0:[45]\d|[1-9]\d*:\d\d) \(expected within 0:20\)$"))
    expect(quiet.locator("[data-f=exposure]")).to_have_text("90.00")
    idle = page.locator(f'.tile[data-table="{empty.id}"]')
    expect(idle.locator(".pill")).to_have_text("no round")
    expect(idle.get_by_role("button", name="Raise incident")).to_be_disabled()
    accessible(page, "the floor with a quiet table")
    shot(page, "floor-1920x1080", full_page=False)
    page.set_viewport_size(LAPTOP)
    shot(page, "floor-1366x768", full_page=False)

    # Two more refreshes: each is one request for every table, and nothing is refused.
    seen = api_calls.count("/api/floor/")
    with page.expect_request("**/api/floor/"):
        pass
    with page.expect_request("**/api/floor/"):
        pass
    assert api_calls.count("/api/floor/") >= seen + 2
    assert {p for p in api_calls} <= {"/api/floor/", "/api/rounds/", "/api/incidents/", "/api/integrity/"}, api_calls
    assert refused == []
    assert page.js_errors == []


def test_the_console_is_light_and_asks_no_other_host(page, live_server, login, live_round, supervisor):
    """A cold load (no cache) stays under 150 KB even uncompressed, every request to the studio."""
    table = live_round[0]
    login(page, live_server.url, "supervisor")
    page.set_viewport_size({"width": 1280, "height": 600})  # a laptop's screen below its browser's bars
    page.route("**/*", lambda route: route.continue_())  # with routing on, Playwright uses no HTTP cache
    sizes: dict[str, int] = {}
    page.on("response", lambda r: sizes.__setitem__(r.url, len(r.body())) if r.ok else None)
    page.goto(live_server.url + "/supervisor/")
    expect(page.locator(f'.tile[data-table="{table.id}"]')).to_have_attribute("data-status", "betting")
    page.wait_for_load_state("networkidle")
    assert all(url.startswith(live_server.url) for url in sizes), list(sizes)
    assert any(url.endswith("/static/css/base.css") for url in sizes), list(sizes)  # cold: shared files came too
    assert sum(sizes.values()) < 150_000, sizes
    # The history, below the fold, comes when the supervisor nears it: its module, then its rounds.
    assert not [url for url in sizes if "/supervisor/history" in url or "/api/rounds/?" in url], list(sizes)
    page.locator(".panel.history").scroll_into_view_if_needed()
    expect(page.locator(f'#history-table tr.row[data-round="{live_round[1]}"]')).to_be_visible()
    assert any("/supervisor/history" in url for url in sizes), list(sizes)


def test_tiles_show_the_dealer_on_shift_a_rotation_due_and_a_table_under_maintenance(
        page, live_server, login, shot, accessible, make_table, dealer, supervisor):
    from tables.models import Shift
    from tables.services import round_open, table_state_set
    from tests.conftest import make_user

    dealt, due, closed = make_table(name="Salon 1"), make_table(name="Salon 2", shift_minutes=20), make_table(name="Salon 3")
    round_open(table_id=dealt.pk, joker="KS", dealer=dealer)  # the dealer's shift starts with the round
    Shift.objects.create(table=due, dealer=make_user("dealer2", "dealer"), started_at=timezone_now() - timedelta(minutes=25))
    table_state_set(table_id=closed.pk, state="maintenance", reason="Camera fault", actor=supervisor)
    page.set_viewport_size(LAPTOP)
    open_console(page, live_server, login)

    tile = page.locator(f'.tile[data-table="{dealt.id}"]')
    expect(tile.locator("[data-f=shift]")).to_have_text("Dealer dealer · on shift 0 of 30 min")
    expect(tile.locator("[data-f=rotation]")).to_be_hidden()
    late = page.locator(f'.tile[data-table="{due.id}"]')
    expect(late.locator("[data-f=shift]")).to_have_text("Dealer dealer2 · on shift 25 of 20 min")
    expect(late.locator("[data-f=rotation]")).to_have_text("⟳ Rotation due")
    expect(late).to_have_attribute("data-rotation", "due")
    shut = page.locator(f'.tile[data-table="{closed.id}"]')
    expect(shut.locator("[data-f=state]")).to_have_text("Maintenance: Camera fault")
    expect(shut.locator("[data-f=shift]")).to_have_text("No dealer on shift")
    accessible(page, "shifts, a rotation due and a table under maintenance")
    shot(page, "floor-shifts", full_page=False)
    assert page.js_errors == []
