"""The game information around the player page, in a real browser against the real ASGI server:
the rules page from the "?" link, the statistics panel, "My history" and the round page, and the
fairness check of a virtual dealer's round.

The studio runs under uvicorn on the test database (tests/servers.py), as for tests/browser/test_play.py;
rounds are dealt through its HTTP API (or by the virtual dealer inside it), so settlement and every
broadcast happen in that server. The player page tells the game information what happened through
document events ("play:event" with each table stream event, "play:personal" with the player's own
messages); `page_event` sends the one a test waits on as the page does, once the server has done it.
Screenshots land in test-artifacts/<test name>/.
"""
from __future__ import annotations

import re
import time
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from bets.services import bet_place
from tables.models import Round
from tables.services import card_deal, round_close_betting, round_open

from tests.browser import studio_api
from tests.browser.studio_api import Api
from tests.servers import studio_with_virtual_dealer

from .conftest import artifacts_dir, login, login_by_form

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("patient_waits")]

# Worked example 2 of RULES.md: joker K♠; Andar A♣ 8♦ J♥ K♦, Bahar Q♠ 7♣ 2♥: Andar wins on card 7.
JOKER = "KS"
DEAL = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]




def deal_round(dealer: Api, table_id: int, cards=DEAL, bets=()) -> int:
    """A whole round through the server, joker K♠ (studio_api.deal_round)."""
    return studio_api.deal_round(dealer, table_id, JOKER, cards, bets)


def wait_for(predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out waiting for the server"
        time.sleep(0.1)
    return value


def settled(round_id: int) -> bool:
    return Round.objects.filter(pk=round_id, status__in=[Round.Status.SETTLED, Round.Status.VOIDED]).exists()


def page_event(page, name: str, detail: dict) -> None:
    """What the player page dispatches for a stream event ("play:event") or a personal message ("play:personal")."""
    page.evaluate("([name, detail]) => document.dispatchEvent(new CustomEvent(name, {detail}))", [name, detail])


def open_play(page, url: str, table_id: int) -> None:
    page.goto(f"{url}/play/tables/{table_id}/")
    expect(page.locator("#stats-panel .gi-stats")).to_be_visible()


def test_rules_page_from_the_question_mark_link(studio_url, page, phone_page, make_table, alice, accessible, shot):
    table = make_table(name="Play chips", card_count_paytable="play", chip_unit=1, min_bet=10, max_bet=500)
    login(page, studio_url, "alice")
    open_play(page, studio_url, table.pk)
    page.locator("#rules-link").click()
    expect(page).to_have_url(re.compile(rf"/play/tables/{table.pk}/rules/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Rules of Play chips")
    andar = page.get_by_test_id("paytable").locator('tr[data-spot="andar"]')
    expect(andar).to_contain_text("0.9:1")
    expect(andar).to_contain_text("97.8511%")
    expect(page.get_by_test_id("count-paytable").locator('tr[data-spot="count_41_49"]')).to_contain_text("119:1")
    example = page.get_by_test_id("example-4")
    expect(example).to_contain_text("it wins 87 and comes back as 112")
    expect(example).to_contain_text("87.5 rounded down")
    expect(example).to_contain_text("win 132 chips")
    expect(example.locator(".card.match")).to_have_attribute("data-card", "KD")
    accessible(page, "the rules page")
    shot(page, "rules")
    phone_page.goto(f"{studio_url}/play/tables/{table.pk}/rules/")
    assert phone_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    accessible(phone_page, "the rules page on a phone")
    shot(phone_page, "rules-phone")
    assert page.js_errors == [] and phone_page.js_errors == []


def test_statistics_after_some_finished_rounds(studio_url, page, table, dealer, accessible, shot):
    staff = Api(studio_url, dealer)
    deal_round(staff, table.pk)                                  # Andar, 7 cards
    deal_round(staff, table.pk, cards=["2C", "KD"])              # Bahar, 2 cards
    deal_round(staff, table.pk, cards=["KH"])                    # Andar, 1 card
    open_play(page, studio_url, table.pk)                        # anyone may watch: no login
    stats = page.locator("#stats-panel")
    expect(stats.get_by_test_id("stats-rounds")).to_have_text("3 rounds counted")
    beads = stats.locator(".bead:not(.empty)")
    expect(beads).to_have_count(3)
    assert beads.evaluate_all("els => els.map(e => e.className)") == ["bead andar", "bead bahar", "bead andar"]
    expect(stats.get_by_test_id("wins-andar")).to_contain_text("2 wins")
    expect(stats.get_by_test_id("streaks")).to_have_text("Andar 1, Bahar 1")
    counts = stats.get_by_test_id("count-table")
    expect(counts.locator("tbody tr").first).to_contain_text("1-5")
    expect(counts.locator("tbody tr").first.locator("td").first).to_have_text("2")
    # The chart is drawn at the panel's width: its text shows at its 12 px, every bar inside it.
    chart = stats.locator("svg.gi-chart")
    box = chart.bounding_box()
    assert abs(box["width"] - float(chart.get_attribute("width"))) < 1, box
    sizes = chart.locator("text").evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
    assert sizes and min(sizes) >= 11, sizes  # a 12 px glyph box, not the 6 px of a chart shrunk to fit
    for bar in chart.locator("rect.obs").all():
        b = bar.bounding_box()
        assert b["x"] >= box["x"] and b["x"] + b["width"] <= box["x"] + box["width"] + 0.5, (b, box)
    accessible(page, "the statistics")
    shot(page, "stats-3-rounds")

    round_id = deal_round(staff, table.pk)
    page_event(page, "play:event", {"type": "round.finished", "round": round_id, "table": table.pk, "winner": "andar"})
    expect(stats.get_by_test_id("stats-rounds")).to_have_text("4 rounds counted")
    expect(beads).to_have_count(4)
    expect(stats.get_by_test_id("streaks")).to_have_text("Andar 2, Bahar 1")
    choice = stats.get_by_test_id("stats-last")
    choice.focus()  # a keyboard user's choice, drawn again with the panel, keeps the focus, and so does a round's end
    choice.select_option("50")
    expect(choice).to_have_value("50")
    expect(choice).to_be_focused()
    shot(page, "stats-4-rounds")
    round_id = deal_round(staff, table.pk, cards=["2C", "KD"])
    page_event(page, "play:event", {"type": "round.finished", "round": round_id, "table": table.pk, "winner": "bahar"})
    expect(stats.get_by_test_id("stats-rounds")).to_have_text("5 rounds counted")
    expect(choice).to_be_focused()
    assert page.js_errors == []


def test_my_history_after_a_settled_and_a_voided_round_and_the_round_page(
    studio_url, page, table, dealer, supervisor, alice, accessible, shot,
):
    # Ten older rounds of Alice's (a match on the first card, 10 on Andar each), dealt in this
    # process: the history's first read holds ten, "More" brings the rest.
    for n in range(10):
        rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
        bet_place(round_id=rnd.pk, player=alice, spot="andar", amount=Decimal(10), idempotency_key=f"old-{n}")
        round_close_betting(round_id=rnd.pk, actor=dealer)
        card_deal(round_id=rnd.pk, card="KD", actor=dealer)
    staff, boss, player = Api(studio_url, dealer), Api(studio_url, supervisor), Api(studio_url, alice)
    won = deal_round(staff, table.pk, bets=[(player, "andar", "50"), (player, "count_6_10", "25")])
    wait_for(lambda: settled(won))
    voided = staff("POST", f"tables/{table.pk}/rounds/", json={"joker": "QH"})["id"]
    player("POST", f"rounds/{voided}/bets/", json={"spot": "bahar", "amount": "20"}, headers={"Idempotency-Key": "gi-void"})
    incident = boss("POST", f"rounds/{voided}/incidents/", json={"kind": "equipment", "notes": "the shoe jammed"})
    boss("POST", f"incidents/{incident['id']}/void/", json={"reason": "Shoe jammed: cards unreadable"})

    login(page, studio_url, "alice")
    open_play(page, studio_url, table.pk)
    history = page.locator("#my-history")
    rounds = history.locator(".gi-round")
    history.scroll_into_view_if_needed()  # below the statistics, it comes when neared
    expect(rounds).to_have_count(10)
    first, second = rounds.nth(0), rounds.nth(1)
    expect(first).to_have_attribute("data-round", str(voided))
    expect(first.get_by_test_id("history-void-reason")).to_contain_text("Shoe jammed: cards unreadable")
    expect(second).to_have_attribute("data-round", str(won))
    assert second.locator(".card").evaluate_all("els => els.map(e => e.dataset.card)") == [JOKER, *DEAL]
    expect(second.get_by_test_id("history-net")).to_have_text("net +120")  # 45 on Andar, 75 on 6-10 (3:1)
    accessible(page, "my history")
    shot(page, "history")

    history.get_by_test_id("history-more").click()
    expect(rounds).to_have_count(12)
    expect(history.get_by_test_id("history-more")).to_be_hidden()

    # A new settlement refreshes the list (the page forwards the player's bet.settled).
    latest = deal_round(staff, table.pk, cards=["KC"], bets=[(player, "andar", "10")])
    wait_for(lambda: settled(latest))
    page_event(page, "play:personal", {"type": "bet.settled", "round": latest})
    expect(rounds.first).to_have_attribute("data-round", str(latest))

    with page.expect_navigation():
        history.locator(f'.gi-round[data-round="{won}"] a').click()
    expect(page).to_have_url(f"{studio_url}/rounds/{won}/")
    expect(page.get_by_test_id("round-result")).to_have_text("Andar wins on card 7.")
    assert page.get_by_test_id("round-cards").locator(".card").evaluate_all("els => els.map(e => e.dataset.card)") == DEAL
    expect(page.get_by_test_id("my-bets")).to_contain_text("6–10 cards")
    expect(page.get_by_test_id("verified")).to_have_attribute("data-ok", "true")  # her round's record checks out
    expect(page.get_by_test_id("card-times").locator("tbody tr")).to_have_count(len(DEAL))
    accessible(page, "the round page")
    shot(page, "round-page")
    page.goto(f"{studio_url}/rounds/{voided}/")
    expect(page.get_by_test_id("round-result")).to_contain_text("Shoe jammed: cards unreadable")
    shot(page, "round-page-voided")
    assert page.js_errors == []


def test_a_corrected_rounds_record_on_its_page_for_a_supervisor_and_for_the_player(
    studio_url, page, phone_page, table, dealer, supervisor, alice, accessible, shot,
):
    """The round page renders the round's record: the settings it opened with, dealer and shift,
    each card's time, the incident with its notes, the correction and its re-settlement, every bet
    per spot, and the audit chain verified on the server by the offline script's own check."""
    staff, boss, player = Api(studio_url, dealer), Api(studio_url, supervisor), Api(studio_url, alice)
    won = deal_round(staff, table.pk, bets=[(player, "andar", "50"), (player, "count_6_10", "25")])
    wait_for(lambda: settled(won))
    # Between the deal and its correction, the table's change log moves on: a bare link in the record.
    boss("PATCH", f"tables/{table.pk}/", json={"max_bet": "800"})
    incident = boss("POST", f"rounds/{won}/incidents/", json={"kind": "misread", "notes": "card 3 looked like a 9D"})
    boss("POST", f"incidents/{incident['id']}/notes/", json={"text": "camera 2 shows the 9D"})
    boss("POST", f"rounds/{won}/corrections/replace/", json={"position": 3, "card": "9D"})
    boss("POST", f"incidents/{incident['id']}/resume/", json={"resolution": "corrected from camera 2"})
    record = boss("GET", f"rounds/{won}/record/")
    assert record["settlement"]["version"] == 2 and [c["card"] for c in record["cards"]][2] == "9D"

    login_by_form(page, studio_url, "supervisor", "pw-supervisor", then=f"/rounds/{won}/")  # the form, to where it was asked
    expect(page).to_have_url(f"{studio_url}/rounds/{won}/")
    expect(page.get_by_test_id("verified")).to_have_attribute("data-ok", "true")
    expect(page.get_by_test_id("verified")).to_contain_text("Verified")
    expect(page.get_by_test_id("round-dealer")).to_have_text("dealer")
    expect(page.get_by_test_id("round-shift")).to_contain_text(f"Shift {record['shift']['id']}, from ")
    times = page.get_by_test_id("card-times").locator("tbody tr")
    expect(times).to_have_count(len(DEAL))
    dealt_at = record["cards"][2]["dealt_at"]  # 2026-12-01T18:43:44.123Z, shown with its zone named
    expect(times.nth(2).locator(f'time[datetime="{dealt_at}"]')).to_have_text(dealt_at[:10] + " " + dealt_at[11:23] + " UTC")
    expect(times.nth(2).locator(".card-text")).to_have_attribute("data-card", "9D")
    expect(page.get_by_test_id("settings")).to_contain_text("from 10 to 500 CHIPS")  # the settings it opened with, not 800
    incidents = page.get_by_test_id("incidents")
    expect(incidents).to_contain_text("Misread card")
    expect(incidents.locator(".notes li")).to_have_count(2)
    expect(incidents).to_contain_text("camera 2 shows the 9D")
    expect(incidents).to_contain_text("corrected from camera 2")
    expect(page.get_by_test_id("corrections").locator("tbody tr")).to_have_count(1)
    expect(page.get_by_test_id("spot-totals")).to_contain_text("6–10 cards")
    expect(page.get_by_test_id("settlement")).to_contain_text("Settlement version 2.")
    chain = page.get_by_test_id("audit")
    expect(chain.locator("tr.own")).to_have_count(len(record["chain"]["events"]))
    expect(chain.locator("tr.other")).to_have_count(1)
    expect(chain.locator('tr.own[data-action="resettled"]')).to_have_count(1)
    chain.locator('tr.own[data-action="corrected"] summary').click()  # a form, opened with the keyboard's and the mouse's same control
    expect(chain.locator('tr.own[data-action="corrected"] code.form')).to_contain_text('"after":"9D"')
    expect(page.get_by_test_id("record-download")).to_have_attribute("href", f"/api/rounds/{won}/record/")
    accessible(page, "a corrected round's record, for a supervisor")
    shot(page, "round-record-supervisor")
    page.get_by_test_id("incidents").scroll_into_view_if_needed()
    shot(page, "round-record-supervisor-incidents", full_page=False)
    chain.locator('tr.own[data-action="resettled"]').scroll_into_view_if_needed()
    shot(page, "round-record-supervisor-chain", full_page=False)

    login(phone_page, studio_url, "alice")
    phone_page.goto(f"{studio_url}/rounds/{won}/")
    expect(phone_page).to_have_url(f"{studio_url}/rounds/{won}/")
    expect(phone_page.get_by_test_id("verified")).to_have_attribute("data-ok", "true")
    expect(phone_page.get_by_test_id("my-bets")).to_contain_text("6–10 cards")
    expect(phone_page.get_by_test_id("card-times").locator("tbody tr")).to_have_count(len(DEAL))
    expect(phone_page.get_by_test_id("spot-totals")).to_have_count(0)  # the all-players figures are the supervisors'
    assert phone_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # only the chain's table scrolls
    shot(phone_page, "round-record-player-phone")
    phone_page.get_by_test_id("card-times").scroll_into_view_if_needed()
    shot(phone_page, "round-record-player-phone-cards", full_page=False)
    accessible(phone_page, "a corrected round's record, for the player, on a phone")
    phone_page.get_by_test_id("audit").scroll_into_view_if_needed()
    shot(phone_page, "round-record-player-phone-chain", full_page=False)
    assert page.js_errors == [] and phone_page.js_errors == []
    assert page.csp_violations == [] and phone_page.csp_violations == []


@pytest.fixture
def virtual_table(make_table):
    """A virtual table made before its server starts, so that the dealer finds it at once (it looks
    for new tables every few seconds): a long countdown, which the test ends when it has seen the
    betting, a brisk deal, and no second round."""
    return make_table(name="Virtual table", virtual_dealer=True, betting_seconds=600, deal_interval_ms=50,
                      round_gap_ms=600_000)


@pytest.fixture
def virtual_url(transactional_db, virtual_table, request):
    """A server of its own with a virtual dealer beside it."""
    with studio_with_virtual_dealer(artifacts_dir(request), "gameinfo-virtual") as url:
        yield url


def test_verify_a_virtual_dealers_round(virtual_url, virtual_table, page, phone_page, supervisor, accessible, shot):
    table = virtual_table
    rnd = wait_for(lambda: Round.objects.filter(table=table, status=Round.Status.BETTING).first())
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    open_play(page, virtual_url, table.pk)
    fairness = page.locator("#fairness")
    # Far below the fold, the proof's module and data come when the reader nears it, not with the page.
    page.wait_for_load_state("networkidle")
    assert not [url for url in asked if "fairness" in url or "rounds/?last=" in url], asked
    fairness.scroll_into_view_if_needed()
    expect(fairness.get_by_test_id("fair-commitment")).to_have_text(rnd.commitment)  # before the deal
    expect(fairness.get_by_test_id("fair-revealed")).to_have_count(0)
    accessible(page, "the fairness panel while betting")
    shot(page, "fairness-betting")

    # Each event for the round's end (from the stream and the two sent here) reads the round. The reads
    # are held so that an early one answers last, after the player has verified what a later one showed.
    detail = f"**/api/rounds/{rnd.pk}/"
    held = []
    page.route(detail, lambda route: held.append(route) if len(held) < 2 else route.continue_())
    Round.objects.filter(pk=rnd.pk).update(closes_at=rnd.opened_at)  # the countdown ran out: the dealer deals
    wait_for(lambda: settled(rnd.pk))
    page_event(page, "play:event", {"type": "round.finished", "round": rnd.pk, "table": table.pk})
    page_event(page, "play:event", {"type": "round.settled", "round": rnd.pk, "table": table.pk})
    deadline = time.monotonic() + 30
    while len(held) < 2:  # each call into the page lets Playwright hand over the reads it has caught
        assert time.monotonic() < deadline, "the panel did not read the round"
        page.evaluate("0")
    held[1].continue_()
    revealed = fairness.get_by_test_id("fair-revealed")
    expect(revealed).to_have_attribute("data-round", str(rnd.pk))
    rnd.refresh_from_db()
    expect(revealed).to_contain_text(rnd.salt)
    fairness.get_by_test_id("fair-verify").click()
    result = fairness.get_by_test_id("fair-result")
    expect(result).to_contain_text("Verified")
    # The late read of the same round, and the next round opening, leave the verdict on screen.
    with page.expect_response(lambda r: r.url.endswith(f"/api/rounds/{rnd.pk}/")) as late:
        held[0].continue_()
    late.value.finished()
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))")  # and the page has read it
    page_event(page, "play:event", {"type": "round.opened", "round": rnd.pk + 1, "table": table.pk, "commitment": "c0ffee"})
    expect(fairness.get_by_test_id("fair-commitment")).to_have_count(1)
    expect(result).to_contain_text("Verified")
    expect(revealed).to_have_attribute("data-round", str(rnd.pk))
    accessible(page, "the fairness panel, verified")
    shot(page, "fairness-verified")

    # The round's own page has the proof too (a supervisor's, on a phone).
    login(phone_page, virtual_url, "supervisor")
    phone_page.goto(f"{virtual_url}/rounds/{rnd.pk}/")
    expect(phone_page).to_have_url(f"{virtual_url}/rounds/{rnd.pk}/")
    expect(phone_page.get_by_test_id("commitment")).to_have_text(rnd.commitment)
    phone_page.get_by_test_id("verify").click()
    expect(phone_page.get_by_test_id("verify-result")).to_have_attribute("data-ok", "true")
    expect(phone_page.get_by_test_id("verify-result")).to_contain_text("Verified")
    assert phone_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    accessible(phone_page, "a virtual round's page, verified")
    shot(phone_page, "round-page-verified-phone")

    # A pack that is not the one committed to: two cards the deal never reached change places.
    codes = rnd.pack.split(",")
    codes[50], codes[51] = codes[51], codes[50]
    Round.objects.filter(pk=rnd.pk).update(pack=",".join(codes))
    page.reload()
    fairness.scroll_into_view_if_needed()
    fairness.get_by_test_id("fair-verify").click()
    expect(fairness.get_by_test_id("fair-result")).to_contain_text("Does not match")
    expect(fairness.get_by_test_id("fair-result")).to_contain_text("do not give the published commitment")
    shot(page, "fairness-does-not-match")
    assert page.js_errors == [] and phone_page.js_errors == []
