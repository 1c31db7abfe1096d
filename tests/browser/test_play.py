"""The player page in a real browser, against the real ASGI server (HTTP + WebSockets).

pytest-django's `live_server` is a WSGI server and cannot serve the stream, so these tests start
uvicorn on the test database and deal through that server's HTTP API, so every
broadcast leaves from the process the watchers are connected to (or goes through Redis when
REDIS_URL is set). Settlement runs in that server, in-process after commit.

Screenshots land in test-artifacts/<test name>/; the server's log in test-artifacts/test_play-server/.
"""
from __future__ import annotations

import json
import re

import httpx
import pytest
from playwright.sync_api import expect
from accounts.tokens import token_issue

from bets.models import Bet

from tests import localhttp

from .conftest import wait_until


DESKTOP = {"width": 1366, "height": 768}
WIDE = {"width": 1440, "height": 900}

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("patient_waits")]

# Worked example 2 of RULES.md: joker K♠; Andar A♣ 8♦ J♥ K♦, Bahar Q♠ 7♣ 2♥: Andar wins on card 7.
JOKER = "KS"
DEAL = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]
SPOTS = ("andar", "bahar", "first_andar", "first_bahar", "first_three", "count_1_5", "count_6_10", "count_11_15")



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

    def round(self, round_id: int) -> dict:
        return self.call("GET", f"rounds/{round_id}/")

    def incident(self, round_id: int, kind: str = "misread") -> int:
        return self.call("POST", f"rounds/{round_id}/incidents/", json={"kind": kind, "notes": "from the test"})["id"]


@pytest.fixture
def studio_dealer(studio_url, dealer):
    token = token_issue(user=dealer).key
    with localhttp.Client(base_url=studio_url + "/api/", timeout=30, headers={"Authorization": "Token " + token}) as http:
        yield Dealer(http)


@pytest.fixture
def studio_supervisor(studio_url, supervisor):
    token = token_issue(user=supervisor).key
    with localhttp.Client(base_url=studio_url + "/api/", timeout=30, headers={"Authorization": "Token " + token}) as http:
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


def won_spots(page) -> set[str]:
    return {s for s in SPOTS if "won" in page.get_by_test_id(f"spot-{s}").get_attribute("class").split()}


def record_events(page):
    """What the page dispatches on document (play:event, play:personal), kept in the page for the test."""
    page.evaluate("""() => { window.__seen = [];
      document.addEventListener('play:event', (e) => window.__seen.push(['event', e.detail.type]));
      document.addEventListener('play:personal', (e) => window.__seen.push(['personal', e.detail.type])); }""")


def seen(page) -> list[list[str]]:
    return page.evaluate("window.__seen")


def inside(box, viewport) -> bool:
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= viewport["width"] \
        and box["y"] + box["height"] <= viewport["height"]


def overlaps(a, b) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def test_player_bets_watches_the_deal_and_sees_the_result_and_balance(
    studio_url, studio_dealer, browser, page, phone_page, play_table, alice, bob, login, shot, accessible,
):
    dealer_api = studio_dealer
    bet_requests = []
    page.set_viewport_size(DESKTOP)
    page.on("request", lambda r: bet_requests.append(r) if r.method == "POST" and r.url.endswith("/bets/") else None)

    login(page, studio_url, "alice")
    open_table(page, studio_url, play_table.pk)
    record_events(page)
    login(phone_page, studio_url, "bob")
    open_table(phone_page, studio_url, play_table.pk)
    watcher = browser.new_context(viewport=DESKTOP).new_page()
    watcher.set_default_timeout(30_000)
    watcher.csp_violations = []  # what accessible() checks, as on the fixtures' pages
    watcher.on("console", lambda m: watcher.csp_violations.append(m.text)
               if m.type == "error" and "Content Security Policy" in m.text else None)
    open_table(watcher, studio_url, play_table.pk)
    expect(page.get_by_test_id("balance")).to_have_text("1,000")
    expect(page.locator("#phase")).to_have_text("Waiting for the dealer")
    expect(page.get_by_test_id("spot-first_three")).to_contain_text("First 3")  # the table's rules before any round
    expect(page.locator("#rules-link")).to_have_attribute("href", f"/play/tables/{play_table.pk}/rules/")
    expect(page.locator("#stats-panel")).to_be_attached()
    expect(page.locator("#my-history")).to_be_attached()
    expect(watcher.locator("#my-history")).to_have_count(0)
    accessible(page, "idle table (player)")

    round_id = dealer_api.open(play_table.pk, JOKER)
    for p in (page, phone_page, watcher):
        expect(p.locator("#joker .card")).to_have_attribute("data-card", JOKER)
    expect(page.locator("#joker .card")).to_have_attribute("aria-label", "Joker: King of spades")
    expect(page.locator("#phase")).to_have_text("Place your bets")
    expect(page.get_by_test_id("announce")).to_have_text("New round, joker King of spades. Place your bets.")
    countdown = page.get_by_test_id("countdown")
    expect(countdown).to_have_text(re.compile(r"^1[01][0-9]|120$"))  # from closes_at: 120 s
    now = countdown.inner_text()
    expect(countdown).not_to_have_text(now, timeout=3000)  # and it ticks locally
    expect(page.get_by_test_id("spot-count_6_10")).to_contain_text("3.5:1")  # what the spot pays this round: the server's
    expect(page.get_by_test_id("spot-andar")).to_contain_text("0.9:1")
    expect(page.get_by_test_id("limits")).to_have_text("Table limits: 10 to 500 a round, all your bets counted.")
    expect(page.get_by_test_id("spot-andar")).to_contain_text("10–500")

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
    accessible(page, "betting (desktop, with an error)")
    shot(page, "01-bets-placed")

    # Bob bets from his phone; the anonymous watcher has no betting at all.
    bet(phone_page, "50", "bahar")
    expect(phone_page.get_by_test_id("balance")).to_have_text("950")
    accessible(phone_page, "betting (phone)")
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
    expect(page.get_by_test_id("announce")).to_have_text("No more bets.")
    expect(page.get_by_test_id("spot-andar")).to_be_disabled()
    for card in DEAL[:4]:
        dealer_api.deal(round_id, card)
    expect(page.locator("#cards-bahar .card")).to_have_count(2)
    expect(page.locator("#phase-sub")).to_have_text("Next card to Andar")
    expect(page.get_by_test_id("announce")).to_have_text("Card 4: 7 of clubs to Bahar.")
    expect(page.locator("#cards-andar .card").first).to_have_attribute("aria-label", "Ace of clubs, position 1")
    shot(page, "02-dealing")
    for card in DEAL[4:]:
        dealer_api.deal(round_id, card)

    # The result: the net first, staked and returned beneath; the new balance: 1000 - 75 + 95 + 112.
    result = page.get_by_test_id("result")
    expect(result).to_contain_text("Andar wins on card 7")
    expect(page.get_by_test_id("net")).to_have_text("Your result: +132")
    expect(result).to_contain_text("Staked 75 · returned 207")
    expect(page.get_by_test_id("balance")).to_have_text("1,132")
    assert cards(page, "andar") == ["AC", "8D", "JH", "KD"]
    assert cards(page, "bahar") == ["QS", "7C", "2H"]
    expect(page.locator("#cards-andar .card.match")).to_have_attribute("data-card", "KD")
    # The board marks what the server says won: Andar, the 6-10 box, and First 3 (K♠ A♣ Q♠ is a straight).
    assert won_spots(page) == set(dealer_api.round(round_id)["winning_spots"]) & set(SPOTS) == {"andar", "count_6_10", "first_three"}
    expect(page.get_by_test_id("history").locator(".bead").first).to_have_text("A7")
    expect(page.locator("#stats-panel")).to_contain_text("1 round counted")  # the statistics heard play:event
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]  # nothing wider than the screen
    accessible(page, "result (desktop)")
    shot(page, "03-result")

    expect(phone_page.get_by_test_id("net")).to_have_text(re.compile(r"^Your result: [-−]50$"))
    expect(phone_page.get_by_test_id("result")).to_contain_text("Staked 50 · returned 0")
    expect(phone_page.get_by_test_id("balance")).to_have_text("950")
    assert cards(phone_page, "andar") == ["AC", "8D", "JH", "KD"]
    accessible(phone_page, "result (phone)")
    expect(watcher.get_by_test_id("result")).to_contain_text("Andar wins on card 7")
    expect(watcher.get_by_test_id("result")).to_contain_text("Joker King of spades, matched by King of diamonds")
    expect(watcher.get_by_test_id("net")).to_have_count(0)
    accessible(watcher, "result (watcher)")
    shot(phone_page, "phone-02-result")
    shot(watcher, "watcher-result")
    watcher.context.close()

    # Every table event the page applied went out as play:event, the personal ones as play:personal.
    events = seen(page)
    tables = [name for kind, name in events if kind == "event"]
    assert tables[:3] == ["round.opened", "betting.closed", "card.dealt"] and tables.count("card.dealt") == 7
    assert tables[-2:] == ["round.finished", "round.settled"]
    assert ["personal", "bet.settled"] in events and ["personal", "bet.placed"] in events
    assert page.js_errors == [] and phone_page.js_errors == []


def test_chips_are_a_radio_group_and_double_clear_undo_repeat_sit_with_them(
    studio_url, studio_dealer, page, play_table, alice, login, shot, accessible,
):
    dealer_api = studio_dealer
    login(page, studio_url, "alice")
    round_id = dealer_api.open(play_table.pk, JOKER)
    for viewport in (DESKTOP, WIDE):
        page.set_viewport_size(viewport)
        open_table(page, studio_url, play_table.pk)
        expect(page.locator("#phase")).to_have_text("Place your bets")
        # The whole rack is on the first screen, its four buttons beside the chips.
        for test_id in ("chip-10", "chip-500", "undo", "clear", "double", "repeat"):
            assert inside(page.get_by_test_id(test_id).bounding_box(), viewport), (viewport, test_id)
        shot(page, f"01-rack-{viewport['width']}x{viewport['height']}", full_page=False)

    # The chips are one tab stop before the spots; the arrow keys move the choice.
    page.locator("#rules-link").focus()
    page.keyboard.press("Tab")
    chosen = page.get_by_test_id("chip-25")
    expect(chosen).to_be_focused()
    expect(chosen).to_have_attribute("aria-checked", "true")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("chip-50")).to_be_focused()
    expect(page.get_by_test_id("chip-50")).to_have_attribute("aria-checked", "true")
    expect(chosen).to_have_attribute("aria-checked", "false")
    expect(chosen).to_have_attribute("tabindex", "-1")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("chip-10")).to_be_focused()
    expect(page.get_by_test_id("undo")).to_be_disabled()  # no bet yet: Undo, Clear and Double are skipped
    expect(page.get_by_test_id("repeat")).to_be_disabled()  # no earlier round of Alice's here: nothing to repeat
    page.keyboard.press("Tab")  # out of the group: the rack's enabled buttons (none yet), then the spots
    expect(page.get_by_test_id("spot-andar")).to_be_focused()
    shot(page, "02-focus-on-a-spot", full_page=False)
    page.keyboard.press("Enter")  # 10 on Andar
    expect(page.get_by_test_id("stake-andar")).to_have_text("10")
    bet(page, "25", "count_6_10")
    expect(page.get_by_test_id("balance")).to_have_text("965")

    # Double: the same bets once more.
    page.get_by_test_id("double").click()
    expect(page.get_by_test_id("stake-andar")).to_have_text("20")
    expect(page.get_by_test_id("stake-count_6_10")).to_have_text("50")
    expect(page.get_by_test_id("balance")).to_have_text("930")
    # Over the table's limit (500 a round): the server refuses, and its message covers no bet button.
    bet(page, "250", "count_1_5")
    expect(page.get_by_test_id("balance")).to_have_text("680")
    before = {t: page.get_by_test_id(t).bounding_box() for t in ("spot-andar", "spot-count_11_15", "chip-10", "repeat")}
    bet(page, "250", "count_11_15")
    toast = page.get_by_test_id("error")
    expect(toast).to_be_visible()
    # Nothing moves under a finger: the refusal takes no room from the board, the chips or the buttons.
    assert {t: page.get_by_test_id(t).bounding_box() for t in before} == before
    toast_box = toast.bounding_box()
    for test_id in ("chip-10", "chip-250", "undo", "clear", "double", "repeat", "spot-andar", "spot-bahar", "spot-count_11_15"):
        assert not overlaps(toast_box, page.get_by_test_id(test_id).bounding_box()), test_id
    accessible(page, "a refused bet (desktop)")
    shot(page, "03-refused-over-the-limit", full_page=False)

    # Undo takes back the last bet; Clear all of this round's own bets.
    page.get_by_test_id("undo").click()
    expect(page.get_by_test_id("stake-count_1_5")).to_have_count(0)
    page.get_by_test_id("clear").click()
    expect(page.get_by_test_id("balance")).to_have_text("1,000")
    expect(page.get_by_test_id("my-bets")).to_have_text("No bets this round.")
    assert not Bet.objects.filter(round_id=round_id, status="open").exists()
    assert page.js_errors == []


def test_phone_layout_fits_the_screen(studio_url, studio_dealer, phone_page, play_table, bob, login, shot):
    dealer_api = studio_dealer
    login(phone_page, studio_url, "bob")
    round_id = dealer_api.open(play_table.pk, JOKER)
    open_table(phone_page, studio_url, play_table.pk)
    expect(phone_page.locator("#phase")).to_have_text("Place your bets")

    width = phone_page.viewport_size["width"]
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scrolling
    for test_id in ("spot-andar", "spot-bahar", "spot-first_three", "spot-count_41_49", "chip-500", "repeat", "double", "balance"):
        box = phone_page.get_by_test_id(test_id).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, test_id
    # On the first screen without scrolling: the joker, both main spots, and the chips.
    phone_page.locator("#joker .card").evaluate("el => Promise.all(el.getAnimations().map((a) => a.finished))")  # dealt in
    for selector in ("#joker .card", "[data-testid=spot-andar]", "[data-testid=spot-bahar]", "#rack"):
        assert inside(phone_page.locator(selector).bounding_box(), phone_page.viewport_size), selector
    spot = phone_page.get_by_test_id("spot-andar").bounding_box()
    assert spot["height"] >= 44 and spot["width"] >= 150  # a thumb-sized target
    # Scrolled down to the count boxes, the rack stays on screen (it sticks to the top).
    phone_page.get_by_test_id("spot-count_41_49").scroll_into_view_if_needed()
    assert inside(phone_page.locator("#chips").bounding_box(), phone_page.viewport_size)
    shot(phone_page, "phone-scrolled", full_page=False)
    phone_page.evaluate("window.scrollTo(0, 0)")
    # The side labels read on the phone: white on the side's colour at 4.5:1 or more.
    for side in ("andar", "bahar"):
        ratio = phone_page.evaluate("""(side) => {
          const el = document.querySelector(`#lane-${side} .lane-label b`), cs = getComputedStyle(el);
          const lum = (c) => { const [r, g, b] = c.match(/\\d+/g).slice(0, 3).map(Number).map((v) => { v /= 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
          const a = lum(cs.color), b = lum(cs.backgroundColor);
          return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); }""", side)
        assert ratio >= 4.5, (side, ratio)

    shot(phone_page, "phone-first-screen", full_page=False)  # what the thumb sees

    phone_page.get_by_test_id("chip-100").tap()
    phone_page.get_by_test_id("spot-andar").tap()
    expect(phone_page.get_by_test_id("balance")).to_have_text("900")
    dealer_api.close(round_id)
    for card in DEAL:
        dealer_api.deal(round_id, card)
    expect(phone_page.get_by_test_id("net")).to_have_text("Your result: +90")
    expect(phone_page.get_by_test_id("result")).to_contain_text("Staked 100 · returned 190")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= width  # 7 cards still fit
    shot(phone_page, "phone-result")
    assert phone_page.js_errors == []


def test_a_player_offline_during_a_round_sees_its_result_on_coming_back(
    studio_url, studio_dealer, page, play_table, alice, login, shot, accessible,
):
    """The browser goes offline mid-round (its offline event, and no network): the page says
    "Reconnecting"; the round ends and the next one opens meanwhile; back online, the page
    reconnects at once, catches up from the snapshot and shows the result it missed."""
    dealer_api = studio_dealer
    page.set_viewport_size(DESKTOP)
    login(page, studio_url, "alice")
    round_id = dealer_api.open(play_table.pk, JOKER)
    open_table(page, studio_url, play_table.pk)
    bet(page, "50", "andar")
    expect(page.get_by_test_id("balance")).to_have_text("950")

    page.context.set_offline(True)
    connection = page.get_by_test_id("connection")
    expect(connection).to_have_attribute("data-state", "offline")
    expect(connection).to_contain_text("Reconnecting")
    expect(page.locator(".felt-offline")).to_be_visible()
    expect(page.get_by_test_id("spot-andar")).to_be_disabled()  # a bet could not reach the studio now
    expect(page.get_by_test_id("take-back")).to_have_count(0)
    dealer_api.close(round_id)
    for card in DEAL:
        dealer_api.deal(round_id, card)
    # settlement follows the commit in the server
    wait_until(page, lambda: dealer_api.round(round_id)["status"] == "settled", "the round was not settled")
    dealer_api.open(play_table.pk, "7H")
    expect(connection).not_to_have_attribute("data-state", "live")
    accessible(page, "offline")
    shot(page, "01-offline")

    page.context.set_offline(False)
    expect(connection).to_have_attribute("data-state", "live")
    expect(page.locator("#joker .card")).to_have_attribute("data-card", "7H")
    away = page.get_by_test_id("away")
    expect(away).to_contain_text(f"While you were away: round #{round_id}")
    expect(away).to_contain_text("+45")
    expect(away).to_contain_text("Staked 50 · returned 95")
    expect(page.get_by_test_id("balance")).to_have_text("1,045")
    accessible(page, "back online")
    shot(page, "02-back-with-the-result")
    assert page.js_errors == []


def test_a_corrected_card_and_a_void_are_said_on_the_felt(
    studio_url, studio_dealer, studio_supervisor, page, play_table, alice, login, shot, accessible,
):
    dealer_api, supervisor_api = studio_dealer, studio_supervisor
    page.set_viewport_size(DESKTOP)
    login(page, studio_url, "alice")
    open_table(page, studio_url, play_table.pk)
    round_id = dealer_api.open(play_table.pk, JOKER)
    bet(page, "10", "first_three")
    expect(page.get_by_test_id("balance")).to_have_text("990")  # the bet is in before betting closes
    dealer_api.close(round_id)
    for card in DEAL:
        dealer_api.deal(round_id, card)
    expect(page.get_by_test_id("net")).to_have_text("Your result: +80")  # a straight: 10 wins 80
    expect(page.get_by_test_id("balance")).to_have_text("1,080")
    assert "first_three" in won_spots(page)

    # A supervisor corrects the second card (Q♠ was a 9♠): the felt says so, and the marks follow the server.
    supervisor_api.incident(round_id)
    supervisor_api.call("POST", f"rounds/{round_id}/corrections/replace/", json={"position": 2, "card": "9S"})
    notice = page.get_by_test_id("notice")
    expect(notice).to_have_text("Card 2 was corrected: Queen of spades is now 9 of spades.")
    expect(page.get_by_test_id("announce")).to_have_text("Card 2 was corrected: Queen of spades is now 9 of spades.")
    assert cards(page, "bahar")[0] == "9S"
    expected = set(dealer_api.round(round_id)["winning_spots"]) & set(SPOTS)
    expect(page.get_by_test_id("spot-first_three")).not_to_have_class(re.compile(r"\bwon\b"))
    assert won_spots(page) == expected
    expect(page.get_by_test_id("net")).to_have_text(re.compile(r"^Your result: [-−]10$"))  # settled again
    expect(page.get_by_test_id("balance")).to_have_text("990")
    accessible(page, "a corrected card")
    shot(page, "01-corrected")

    # The next round is voided: its reason is on the felt and the stake is back.
    second = dealer_api.open(play_table.pk, "7H")
    expect(notice).to_be_hidden()
    bet(page, "50", "bahar")
    expect(page.get_by_test_id("balance")).to_have_text("940")
    incident = supervisor_api.incident(second, "equipment")
    supervisor_api.call("POST", f"incidents/{incident}/void/", json={"reason": "the shoe jammed"})
    expect(page.get_by_test_id("result")).to_contain_text("Round voided")
    expect(page.get_by_test_id("void-reason")).to_have_text("Reason: the shoe jammed")
    expect(page.get_by_test_id("result")).to_contain_text("Your 50 is back in your balance.")
    expect(notice).to_have_text("Round voided: the shoe jammed. Every bet was refunded.")
    expect(page.get_by_test_id("balance")).to_have_text("990")
    accessible(page, "a voided round")
    shot(page, "02-voided")
    # Coming to the page afterwards, the reason is still there (the snapshot carries it).
    page.reload()
    expect(page.get_by_test_id("void-reason")).to_have_text("Reason: the shoe jammed")
    assert page.js_errors == []


def test_page_recovers_a_missed_event_and_a_lost_connection(studio_url, studio_dealer, page, play_table, shot):
    """The stream passes through Playwright: it loses one event on the way (the page must notice the
    gap in seq and fetch the snapshot), then the connection drops and the studio stays unreachable
    for a while (the page must say so, keep trying, and catch up when the network comes back)."""
    dealer_api = studio_dealer
    connections, dropped, snapshots, refused, greeted, away = [], [], [], [], [], {"on": False}

    def route(ws):
        if away["on"]:
            refused.append(ws.url)
            ws.close()  # the studio cannot be reached
            return
        server = ws.connect_to_server()
        connections.append(ws)

        def to_page(message):
            event = json.loads(message)
            if event.get("type") == "snapshot":
                greeted.append(event["seq"])
            if event.get("type") == "card.dealt" and event.get("position") == 2 and not dropped:
                dropped.append(event)  # lost on the way
                return
            ws.send(message)

        server.on_message(to_page)

    page.route_web_socket(lambda url: "/ws/tables/" in url, route)
    page.on("request", lambda r: snapshots.append(r.url) if "/stream-snapshot/" in r.url else None)
    open_table(page, studio_url, play_table.pk)
    # the socket is open before the server has joined the table: wait for the snapshot
    wait_until(page, lambda: greeted, "no snapshot came")
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
    wait_until(page, lambda: refused, "the page did not retry")  # at least once, and was refused
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


def test_the_page_is_light_and_asks_no_other_host(studio_url, studio_dealer, page, play_table, alice, login):
    """A cold load (no cache) of a player's page stays under 150 KB even uncompressed, every request to the studio."""
    login(page, studio_url, "alice")
    studio_dealer.open(play_table.pk, JOKER)
    page.route("**/*", lambda route: route.continue_())  # with routing on, Playwright uses no HTTP cache
    sizes: dict[str, int] = {}
    page.on("response", lambda r: sizes.__setitem__(r.url, len(r.body())) if r.ok and r.request.resource_type != "websocket" else None)
    open_table(page, studio_url, play_table.pk)
    expect(page.get_by_test_id("balance")).to_have_text("1,000")
    page.wait_for_load_state("networkidle")
    assert all(url.startswith(studio_url) for url in sizes), list(sizes)
    assert any("/static/js/pages/play/main" in url for url in sizes), list(sizes)  # cold: the modules came
    assert sum(sizes.values()) < 150_000, sorted(sizes.items(), key=lambda kv: -kv[1])[:8]


def test_a_closed_table_says_why_and_the_line_goes_when_it_reopens(studio_url, studio_supervisor, page, play_table, shot, accessible):
    state = page.get_by_test_id("table-state")
    studio_supervisor.call("POST", f"tables/{play_table.pk}/state/", json={"state": "maintenance", "reason": "Camera fault"})
    open_table(page, studio_url, play_table.pk)
    expect(state).to_have_text("This table is under maintenance: no new round opens until it reopens. Reason: Camera fault")
    expect(page.locator("#phase-sub")).to_have_text("")
    accessible(page, "a table under maintenance")
    shot(page, "maintenance")
    studio_supervisor.call("POST", f"tables/{play_table.pk}/state/", json={"state": "closed", "reason": ""})
    expect(state).to_have_text("This table is closed: no new round opens until it reopens.")  # table.state, live
    studio_supervisor.call("POST", f"tables/{play_table.pk}/state/", json={"state": "open"})
    expect(state).to_be_hidden()
    assert page.js_errors == []
    assert page.csp_violations == []
