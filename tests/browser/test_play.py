"""The player page in a real browser, against the real ASGI server (HTTP + WebSockets).

pytest-django's `live_server` is a WSGI server and cannot serve the stream, so these tests start
uvicorn on the test database (a subprocess: hence PostgreSQL, which it can see; SQLite's test
database lives in this process's memory) and deal through that server's HTTP API, so every
broadcast leaves from the process the watchers are connected to (or goes through Redis when
REDIS_URL is set). Settlement runs in that server, in-process after commit.

Screenshots land in test-artifacts/<test name>/; the server's log in test-artifacts/test_play-server/.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect
from accounts.tokens import token_issue

from bets.models import Bet

from tests.servers import studio_server

from .conftest import artifacts_dir

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PORTS = range(8162, 8170)
# Worked example 2 of RULES.md: joker K♠; Andar A♣ 8♦ J♥ K♦, Bahar Q♠ 7♣ 2♥: Andar wins on card 7.
JOKER = "KS"
DEAL = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]






@pytest.fixture(autouse=True)
def _patient_waits(request):
    """Three browser pages, a server and the test share this machine with other suites: give
    Playwright's waits (expect: 5 s, actions and screenshots: 10 s) more room. A page that never
    shows what is expected still fails, later."""
    previous = getattr(expect, "_timeout", None)
    expect.set_options(timeout=15_000)
    for name in ("page", "phone_page"):
        if name in request.fixturenames:
            request.getfixturevalue(name).set_default_timeout(30_000)
    yield
    expect.set_options(timeout=previous)


@pytest.fixture
def _fast_passwords():
    """Overrides the package's cheap test hasher: the users log in on the uvicorn process, which
    has the real settings' hashers and could not check an MD5 hash."""


@pytest.fixture(scope="module")
def studio_url(django_db_setup, request):
    """The studio served by uvicorn on the test database, for the tests of this module. Its
    connections sit idle between requests, so the flush after each test goes through."""
    folder = Path(request.config.rootpath) / "test-artifacts" / "test_play-server"
    with studio_server(ports=PORTS, log_dir=folder, name="play") as url:
        yield url


class Dealer:
    """The dealer, through the server's API (so the server itself broadcasts every event)."""

    def __init__(self, http: httpx.Client):
        self.http = http

    def call(self, method: str, path: str, **kwargs) -> dict:
        response = self.http.request(method, path, **kwargs)
        assert response.status_code in (200, 201), response.text
        return response.json()

    def open(self, table_id: int, joker: str) -> int:
        return self.call("POST", f"tables/{table_id}/rounds/", json={"joker": joker})["id"]

    def close(self, round_id: int):
        self.call("POST", f"rounds/{round_id}/close-betting/")

    def deal(self, round_id: int, card: str) -> dict:
        return self.call("POST", f"rounds/{round_id}/cards/", json={"card": card})


@pytest.fixture
def studio_dealer(studio_url, dealer):
    token = token_issue(user=dealer).key
    with httpx.Client(base_url=studio_url + "/api/", timeout=30, headers={"Authorization": "Token " + token}) as http:
        yield Dealer(http)


@pytest.fixture
def play_table(make_table):
    # The play-chips table of RULES.md (worked example 3): chip unit 1, `play` card count paytable.
    return make_table(name="Play chips", card_count_paytable="play", chip_unit=1, min_bet=10, max_bet=500,
                      betting_seconds=120)


def open_table(page, url: str, table_id: int):
    page.goto(f"{url}/play/tables/{table_id}/")
    expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")


def cards(page, side: str) -> list[str]:
    return page.locator(f"#cards-{side} .card").evaluate_all("els => els.map(e => e.dataset.card)")


def bet(page, chip: str, spot: str):
    page.get_by_test_id(f"chip-{chip}").click()
    page.get_by_test_id(f"spot-{spot}").click()


def test_player_bets_watches_the_deal_and_sees_the_result_and_balance(
    studio_url, studio_dealer, browser, page, phone_page, play_table, alice, bob, login, shot,
):
    dealer_api = studio_dealer
    bet_requests = []
    page.on("request", lambda r: bet_requests.append(r) if r.method == "POST" and r.url.endswith("/bets/") else None)

    login(page, studio_url, "alice", "pw-alice")
    open_table(page, studio_url, play_table.pk)
    login(phone_page, studio_url, "bob", "pw-bob")
    open_table(phone_page, studio_url, play_table.pk)
    watcher = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    watcher.set_default_timeout(30_000)
    open_table(watcher, studio_url, play_table.pk)
    expect(page.get_by_test_id("balance")).to_have_text("1,000")
    expect(page.locator("#phase")).to_have_text("Waiting for the dealer")

    round_id = dealer_api.open(play_table.pk, JOKER)
    for p in (page, phone_page, watcher):
        expect(p.locator("#joker .card")).to_have_attribute("data-card", JOKER)
    expect(page.locator("#phase")).to_have_text("Place your bets")
    countdown = page.get_by_test_id("countdown")
    expect(countdown).to_have_text(re.compile(r"^1[01][0-9]|120$"))  # from closes_at: 120 s
    now = countdown.inner_text()
    expect(countdown).not_to_have_text(now, timeout=3000)  # and it ticks locally
    expect(page.get_by_test_id("spot-count_6_10")).to_contain_text("3.5:1")  # what the spot pays now
    expect(page.get_by_test_id("spot-andar")).to_contain_text("0.9:1")

    # Alice: 50 on Andar and 25 on 6-10 cards (worked example 3), chips then spots.
    bet(page, "50", "andar")
    expect(page.get_by_test_id("chip-50")).to_have_attribute("aria-checked", "true")
    expect(page.get_by_test_id("stake-andar")).to_have_text("50")
    bet(page, "25", "count_6_10")
    expect(page.get_by_test_id("balance")).to_have_text("925")
    # A refused bet shows the server's message: one main side a round at this table.
    page.get_by_test_id("spot-bahar").click()
    expect(page.get_by_test_id("error")).to_contain_text("You already bet on Andar")
    # Take back: 10 on 1st Bahar, then back again.
    bet(page, "10", "first_bahar")
    expect(page.get_by_test_id("balance")).to_have_text("915")
    page.get_by_test_id("my-bets").locator("li", has_text="1st Bahar").get_by_test_id("take-back").click()
    expect(page.get_by_test_id("balance")).to_have_text("925")
    expect(page.get_by_test_id("my-bets")).not_to_contain_text("1st Bahar")
    shot(page, "01-bets-placed")

    # Bob bets from his phone; the anonymous watcher has no betting at all.
    bet(phone_page, "50", "bahar")
    expect(phone_page.get_by_test_id("balance")).to_have_text("950")
    shot(phone_page, "phone-01-bets-placed")
    expect(watcher.locator("#chips")).to_have_count(0)
    expect(watcher.locator("#login-to-bet")).to_be_visible()
    expect(watcher.get_by_test_id("spot-andar")).to_be_disabled()

    bets = {(b.player.username, b.spot): (b.amount, b.status) for b in Bet.objects.filter(round_id=round_id)}
    assert bets == {("alice", "andar"): (50, "open"), ("alice", "count_6_10"): (25, "open"),
                    ("alice", "first_bahar"): (10, "cancelled"), ("bob", "bahar"): (50, "open")}
    keys = [r.headers.get("idempotency-key") for r in bet_requests]
    assert len(keys) == 4 and all(keys) and len(set(keys)) == 4  # one fresh key per click

    dealer_api.close(round_id)
    expect(page.locator("#phase")).to_have_text("No more bets")
    expect(page.get_by_test_id("spot-andar")).to_be_disabled()
    for card in DEAL[:4]:
        dealer_api.deal(round_id, card)
    expect(page.locator("#cards-bahar .card")).to_have_count(2)
    expect(page.locator("#phase-sub")).to_have_text("Next card to Andar")
    shot(page, "02-dealing")
    for card in DEAL[4:]:
        dealer_api.deal(round_id, card)

    # Cards in their rows, the result with Alice's winnings, the new balance: 1000 - 75 + 95 + 112.
    result = page.get_by_test_id("result")
    expect(result).to_contain_text("Andar wins on card 7 — you won 207")
    expect(result).to_contain_text("net +132")
    expect(page.get_by_test_id("balance")).to_have_text("1,132")
    assert cards(page, "andar") == ["AC", "8D", "JH", "KD"]
    assert cards(page, "bahar") == ["QS", "7C", "2H"]
    expect(page.locator("#cards-andar .card.match")).to_have_attribute("data-card", "KD")
    # The board marks what won: Andar, the 6-10 box, and First 3 (K♠ A♣ Q♠ is a straight).
    spots = ("andar", "bahar", "first_andar", "first_bahar", "first_three", "count_1_5", "count_6_10", "count_11_15")
    won = {s for s in spots if "won" in page.get_by_test_id(f"spot-{s}").get_attribute("class").split()}
    assert won == {"andar", "count_6_10", "first_three"}
    expect(page.get_by_test_id("history").locator(".bead").first).to_have_text("A7")
    shot(page, "03-result")

    expect(phone_page.get_by_test_id("result")).to_contain_text("Andar wins on card 7 — you lost 50")
    expect(phone_page.get_by_test_id("balance")).to_have_text("950")
    assert cards(phone_page, "andar") == ["AC", "8D", "JH", "KD"]
    expect(watcher.get_by_test_id("result")).to_contain_text("Andar wins on card 7")
    expect(watcher.get_by_test_id("result")).to_contain_text("matched by K♦")
    expect(watcher.get_by_test_id("result")).not_to_contain_text("you")
    shot(phone_page, "phone-02-result")
    shot(watcher, "watcher-result")
    watcher.context.close()
    assert page.js_errors == [] and phone_page.js_errors == []


def test_phone_layout_fits_the_screen(studio_url, studio_dealer, phone_page, play_table, bob, login, shot, request):
    dealer_api = studio_dealer
    login(phone_page, studio_url, "bob", "pw-bob")
    round_id = dealer_api.open(play_table.pk, JOKER)
    open_table(phone_page, studio_url, play_table.pk)
    expect(phone_page.locator("#phase")).to_have_text("Place your bets")

    width = phone_page.viewport_size["width"]
    height = phone_page.viewport_size["height"]
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scrolling
    for test_id in ("spot-andar", "spot-bahar", "spot-first_three", "spot-count_41_49", "chip-500", "repeat", "balance"):
        box = phone_page.get_by_test_id(test_id).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, test_id
    # On the first screen without scrolling: the joker, both main spots, and the chips (the rack sticks to the bottom).
    for selector in ("#joker .card", "[data-testid=spot-andar]", "[data-testid=spot-bahar]", "#rack"):
        box = phone_page.locator(selector).bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, selector
    spot = phone_page.get_by_test_id("spot-andar").bounding_box()
    assert spot["height"] >= 44 and spot["width"] >= 150  # a thumb-sized target

    phone_page.screenshot(path=str(artifacts_dir(request) / "phone-first-screen.png"))  # what the thumb sees

    phone_page.get_by_test_id("chip-100").tap()
    phone_page.get_by_test_id("spot-andar").tap()
    expect(phone_page.get_by_test_id("balance")).to_have_text("900")
    dealer_api.close(round_id)
    for card in DEAL:
        dealer_api.deal(round_id, card)
    expect(phone_page.get_by_test_id("result")).to_contain_text("you won 190")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= width  # 7 cards still fit
    shot(phone_page, "phone-result")
    assert phone_page.js_errors == []


def test_page_recovers_a_missed_event_and_a_lost_connection(studio_url, studio_dealer, page, play_table, shot):
    """The stream passes through Playwright: it loses one event on the way (the page must notice the
    gap in seq and fetch the snapshot), then the connection drops and the studio stays unreachable
    for a while (the page must say so, keep trying, and catch up when the network comes back)."""
    dealer_api = studio_dealer
    connections, dropped, snapshots, away = [], [], [], {"on": False}

    def route(ws):
        if away["on"]:
            ws.close()  # the studio cannot be reached
            return
        server = ws.connect_to_server()
        connections.append(ws)

        def to_page(message):
            event = json.loads(message)
            if event.get("type") == "card.dealt" and event.get("position") == 2 and not dropped:
                dropped.append(event)  # lost on the way
                return
            ws.send(message)

        server.on_message(to_page)

    page.route_web_socket(lambda url: "/ws/tables/" in url, route)
    page.on("request", lambda r: snapshots.append(r.url) if "/stream-snapshot/" in r.url else None)
    open_table(page, studio_url, play_table.pk)
    round_id = dealer_api.open(play_table.pk, JOKER)
    dealer_api.close(round_id)
    for card in DEAL[:3]:
        dealer_api.deal(round_id, card)
    expect(page.locator("#cards-bahar .card")).to_have_count(1)  # QS, the card that was lost, came with the snapshot
    assert cards(page, "andar") == ["AC", "8D"] and cards(page, "bahar") == ["QS"]
    assert len(dropped) == 1 and len(snapshots) == 1

    away["on"] = True
    connections[-1].close()
    connection = page.get_by_test_id("connection")
    expect(connection).to_have_attribute("data-state", "offline")
    expect(connection).to_contain_text("Reconnecting")
    for card in DEAL[3:5]:  # dealt while the page cannot reach the studio
        dealer_api.deal(round_id, card)
    page.wait_for_timeout(1500)  # a retry or two fails meanwhile
    expect(connection).not_to_have_attribute("data-state", "live")
    shot(page, "01-reconnecting")
    away["on"] = False
    page.evaluate("window.dispatchEvent(new Event('online'))")  # the network is back: retry now, not at the next backoff
    expect(connection).to_have_attribute("data-state", "live")
    expect(page.locator("#cards-andar .card")).to_have_count(3)
    assert cards(page, "bahar") == ["QS", "7C"] and len(connections) == 2
    for card in DEAL[5:]:
        dealer_api.deal(round_id, card)
    expect(page.get_by_test_id("result")).to_contain_text("Andar wins on card 7")
    assert cards(page, "andar") == ["AC", "8D", "JH", "KD"] and cards(page, "bahar") == ["QS", "7C", "2H"]
    shot(page, "02-result-after-recovery")
    assert page.js_errors == []
