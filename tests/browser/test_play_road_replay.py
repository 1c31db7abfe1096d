"""The player page's big road and replays, and the round page as a player reads it, in a real
browser against the real ASGI server (tests/servers.py, as for tests/browser/test_play.py).

Rounds are dealt for real: in this process through the services (quick, for a long road) or through
the server's HTTP API (so the server settles and broadcasts). Screenshots land in
test-artifacts/<test name>/.
"""
from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from incidents.services import incident_raise, incident_void
from tables.models import Round
from tables.services import card_deal, round_close_betting, round_open

from tests.browser.studio_api import Api, deal_round

from .conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("patient_waits")]

# Worked example 2 of RULES.md: joker K♠; Andar A♣ 8♦ J♥ K♦, Bahar Q♠ 7♣ 2♥: Andar wins on card 7.
JOKER = "KS"
DEAL = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]
# With the joker K♠ and the first card to Andar: a match on card 1 is Andar's, on card 2 Bahar's.
ANDAR, BAHAR = ["KH"], ["2C", "KD"]


def deal_here(table, dealer, cards):
    """A round dealt in this process, through the services."""
    rnd = round_open(table_id=table.pk, joker=JOKER, dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    for card in cards:
        card_deal(round_id=rnd.pk, card=card, actor=dealer)
    return rnd.pk


def deal_through_the_server(staff: Api, table_id: int, cards=DEAL, bets=()) -> int:
    """A whole round through the server, joker K♠ (studio_api.deal_round)."""
    return deal_round(staff, table_id, JOKER, cards, bets)


def settled(round_id: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not Round.objects.filter(pk=round_id, status=Round.Status.SETTLED).exists():
        assert time.monotonic() < deadline, f"round {round_id} was not settled"
        time.sleep(0.1)


def open_table(page, url: str, table_id: int) -> None:
    page.goto(f"{url}/play/tables/{table_id}/")
    expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
    expect(page.locator("#stats-panel .gi-stats")).to_be_visible()


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_the_big_road_draws_the_streaks_of_real_rounds(studio_url, page, phone_page, table, dealer, supervisor, accessible, shot):
    for _ in range(3):
        deal_here(table, dealer, ANDAR)
    deal_here(table, dealer, BAHAR)
    voided = round_open(table_id=table.pk, joker=JOKER, dealer=dealer)  # voided: not on the road
    incident = incident_raise(round_id=voided.pk, actor=supervisor, kind="equipment", notes="shoe jammed")
    incident_void(incident_id=incident.pk, actor=supervisor, reason="Shoe jammed")
    for _ in range(2):
        deal_here(table, dealer, ANDAR)
    for _ in range(7):  # longer than the road is deep: its tail turns right along the bottom
        deal_here(table, dealer, BAHAR)
    deal_here(table, dealer, ANDAR)

    open_table(page, studio_url, table.pk)  # anyone may watch: no login
    road = page.get_by_test_id("big-road")
    rings = road.locator("circle.ring")
    expect(rings).to_have_count(14)
    expect(page.locator("#stats-panel .gi-beads .bead:not(.empty)")).to_have_count(14)  # the same results as the bead plate
    places = rings.evaluate_all("els => els.map(e => e.classList[1][0] + e.dataset.col + '.' + e.dataset.row)")
    assert places == ["a0.0", "a0.1", "a0.2", "b1.0", "a2.0", "a2.1",
                      "b3.0", "b3.1", "b3.2", "b3.3", "b3.4", "b3.5", "b4.5", "a4.0"]
    expect(road.get_by_test_id("road-streaks").locator("li")).to_have_text(
        ["Andar 3 in a row", "then Bahar 1", "then Andar 2 in a row", "then Bahar 7 in a row", "then Andar 1"])
    expect(road.get_by_test_id("road-now")).to_have_text("Current streak: Andar 1")
    expect(road.locator("circle.newest")).to_have_attribute("data-col", "4")
    expect(page.get_by_role("region", name="Big road a column per streak")).to_be_visible()
    accessible(page, "the big road")
    road.scroll_into_view_if_needed()
    shot(page, "big-road", full_page=False)

    # The next round, dealt by the server while the page watches: the stream brings it onto the road.
    deal_through_the_server(Api(studio_url, dealer), table.pk, cards=ANDAR)
    expect(rings).to_have_count(15)
    expect(road.get_by_test_id("road-now")).to_have_text("Current streak: Andar 2 in a row")
    expect(road.locator("circle.newest")).to_have_attribute("data-row", "1")

    open_table(phone_page, studio_url, table.pk)
    phone_road = phone_page.get_by_test_id("big-road")
    expect(phone_road.locator("circle.ring")).to_have_count(15)
    phone_road.scroll_into_view_if_needed()
    assert no_sideways_scroll(phone_page)
    box = phone_road.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1
    accessible(phone_page, "the big road on a phone")
    shot(phone_page, "big-road-phone", full_page=False)
    assert page.js_errors == [] and phone_page.js_errors == []


def test_a_round_from_my_history_is_replayed_card_by_card(studio_url, page, phone_page, table, dealer, alice, accessible, shot):
    staff, player = Api(studio_url, dealer), Api(studio_url, alice)
    won = deal_through_the_server(staff, table.pk, bets=[(player, "andar", "50"), (player, "count_6_10", "25")])
    settled(won)
    sides = [c["side"] for c in staff("GET", f"rounds/{won}/")["cards"]]  # the server's record of each card's side

    login(page, studio_url, "alice")
    open_table(page, studio_url, table.pk)
    page.locator("#my-history").scroll_into_view_if_needed()  # below the statistics, it comes when neared
    row = page.locator(f'#my-history .gi-round[data-round="{won}"]')
    button = row.get_by_role("button", name=f"Replay round {won}")
    expect(button).to_be_visible()
    page.emulate_media(reduced_motion="no-preference")  # the paced deal
    page.evaluate("""() => {  // each card as it lands in the replay, with its lane and when
        window.dealt = [];
        new MutationObserver((changes) => { for (const c of changes) for (const n of c.addedNodes)
            if (n.classList && n.classList.contains("card")) window.dealt.push(
                {card: n.dataset.card, lane: n.parentElement.dataset.lane || "joker", at: performance.now()}); })
            .observe(document.body, {childList: true, subtree: true});
    }""")
    button.focus()
    page.keyboard.press("Enter")
    replay = page.get_by_test_id("replay")
    expect(replay).to_be_visible()
    expect(replay.get_by_role("heading")).to_have_text(f"Replay of round {won}")
    expect(replay.get_by_test_id("replay-stop")).to_be_focused()
    expect(replay.get_by_test_id("replay-announce")).to_have_text(re.compile(r"Replay of round \d+\. Joker: King of spades\."))
    expect(replay.get_by_test_id("replay-result")).to_be_hidden()  # not before the cards
    expect(replay.get_by_test_id("replay-result")).to_be_visible(timeout=20_000)
    expect(replay.get_by_test_id("replay-result")).to_contain_text("Andar wins on card 7.")
    expect(replay.get_by_test_id("replay-result")).to_contain_text("Staked 75 · came back 195 · net +120")
    expect(replay.get_by_test_id("replay-announce")).to_contain_text("Andar wins on card 7.")
    dealt = page.evaluate("window.dealt")
    assert [d["card"] for d in dealt] == [JOKER, *DEAL]
    assert [d["lane"] for d in dealt] == ["joker", *sides]
    gaps = [b["at"] - a["at"] for a, b in zip(dealt, dealt[1:])]
    assert all(gap > 600 for gap in gaps), gaps  # a readable pace, about 0.8 s a card
    expect(replay.locator('[data-lane="andar"] .card.match')).to_have_attribute("data-card", "KD")
    expect(replay.get_by_test_id("replay-again")).to_be_focused()
    accessible(page, "a replay, ended")
    shot(page, "replay-desktop", full_page=False)

    # Replay again, and Stop it after its first card: the deal stops there and says so.
    page.keyboard.press("Enter")
    expect(replay.get_by_test_id("replay-andar").locator(".card")).to_have_count(1)
    replay.get_by_test_id("replay-stop").click()
    expect(replay.get_by_test_id("replay-announce")).to_have_text("Replay stopped.")
    shown = replay.locator(".cards .card").count()
    page.wait_for_timeout(1_000)  # longer than a step: nothing more is dealt
    expect(replay.locator(".cards .card")).to_have_count(shown)
    expect(replay.get_by_test_id("replay-result")).to_be_hidden()
    page.keyboard.press("Escape")  # closes, and the focus goes back to the round's button
    expect(replay).to_be_hidden()
    expect(button).to_be_focused()

    # Reduced motion: the whole round at once.
    page.emulate_media(reduced_motion="reduce")
    button.click()
    expect(replay.locator(".cards .card")).to_have_count(len(DEAL))
    expect(replay.get_by_test_id("replay-result")).to_contain_text("Andar wins on card 7.")
    # A bet settled meanwhile draws the history again; closing still brings the focus back to the round's button.
    row.evaluate("el => { el.dataset.drawnBefore = 'yes'; }")
    page.evaluate("() => document.dispatchEvent(new CustomEvent('play:personal', {detail: {type: 'bet.settled'}}))")
    expect(page.locator("#my-history [data-drawn-before]")).to_have_count(0)
    expect(row).to_have_count(1)
    replay.get_by_test_id("replay-close").click()
    expect(replay).to_be_hidden()
    expect(button).to_be_focused()

    login(phone_page, studio_url, "alice")
    open_table(phone_page, studio_url, table.pk)
    phone_page.locator("#my-history").scroll_into_view_if_needed()
    phone_page.locator(f'#my-history .gi-round[data-round="{won}"]').get_by_role("button", name=f"Replay round {won}").click()
    phone_replay = phone_page.get_by_test_id("replay")
    expect(phone_replay.get_by_test_id("replay-result")).to_contain_text("net +120")
    box = phone_replay.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1
    accessible(phone_page, "a replay on a phone")
    shot(phone_page, "replay-phone", full_page=False)
    assert page.js_errors == [] and phone_page.js_errors == []
    assert page.csp_violations == [] and phone_page.csp_violations == []  # the module loaded on demand is the studio's


def test_the_round_page_names_the_tables_spots_shows_time_zones_and_puts_my_bets_first_on_a_phone(
    studio_url, page, phone_page, table, dealer, alice, accessible, shot,
):
    staff, player = Api(studio_url, dealer), Api(studio_url, alice)
    won = deal_through_the_server(staff, table.pk, bets=[(player, "andar", "50"), (player, "count_6_10", "25"),
                                                        (player, "first_bahar", "10")])
    settled(won)

    login(page, studio_url, "alice")
    page.goto(f"{studio_url}/rounds/{won}/")
    mine = page.get_by_test_id("my-bets")
    expect(mine.locator("tbody th")).to_have_text(["Andar", "6–10 cards", "1st Bahar"])  # as the table names them
    expect(page.get_by_test_id("winning-spots")).to_contain_text("6–10 cards")
    expect(page.get_by_test_id("my-net")).to_contain_text("net +110")
    instant = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$")
    for what in ("Opened", "Betting closed", "Finished"):
        expect(page.locator(f'dl.settings dt:text-is("{what}") + dd')).to_have_text(instant)
    card_times = page.get_by_test_id("card-times").locator("tbody time")
    expect(card_times).to_have_count(len(DEAL))
    for text in card_times.all_inner_texts():
        assert re.fullmatch(r"\d{4}-\d\d-\d\d\s+\d\d:\d\d:\d\d\.\d{3} UTC", text), text
    assert "Z UTC" not in page.locator("article").inner_text()
    result, bets = page.get_by_test_id("round-result").bounding_box(), mine.bounding_box()
    assert result["y"] < bets["y"]  # on a desktop the result comes first
    accessible(page, "the round page")
    shot(page, "round-page")

    login(phone_page, studio_url, "alice")
    phone_page.goto(f"{studio_url}/rounds/{won}/")
    title = phone_page.get_by_role("heading", level=1).bounding_box()
    mine_box = phone_page.get_by_test_id("mine").bounding_box()
    result_box = phone_page.get_by_test_id("round-result").bounding_box()
    assert title["y"] < mine_box["y"] < result_box["y"]  # on a phone, her bets and net first
    assert mine_box["y"] < 844  # on the first screen
    expect(phone_page.get_by_test_id("my-net")).to_be_in_viewport()
    assert no_sideways_scroll(phone_page)
    accessible(phone_page, "the round page on a phone")
    shot(phone_page, "round-page-phone", full_page=False)
    assert page.js_errors == [] and phone_page.js_errors == []
