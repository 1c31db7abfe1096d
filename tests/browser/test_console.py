"""The dealer console in a real browser: a round from the joker to the result with the keyboard
alone (typing into the always-focused input and pressing Enter, as a barcode scanner does), every
refusal visible on the page, the state restored after a reload, and the console closed to players.

Screenshots of every step land in test-artifacts/<test name>/ (desktop and phone)."""
import re

import pytest
from playwright.sync_api import expect

from tables.models import DealtCard, Round
from tests.conftest import client_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(params=["desktop", "phone"])
def screen(request):
    return request.getfixturevalue("page" if request.param == "desktop" else "phone_page")


def scan(page, text: str) -> None:
    """What a scanner does: type into whatever has the focus, then Enter."""
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def dealt(page, side: str) -> list[str]:
    return page.locator(f"#cards-{side} .card").evaluate_all("cards => cards.map(c => c.dataset.card)")


def expect_row(page, side: str, cards: list[str]) -> None:
    expect(page.locator(f"#cards-{side} .card")).to_have_count(len(cards))
    assert dealt(page, side) == cards


def test_dealer_runs_a_round_with_the_keyboard_only(screen, live_server, dealer, make_table, login, shot):
    page = screen
    make_table(name="Practice")
    table = make_table(name="Main studio", betting_seconds=60)
    alert, pill, stage = page.get_by_role("alert"), page.locator("#status-pill"), page.locator("#stage")
    entry = page.locator("#entry-input")

    login(page, live_server.url, "dealer", "pw-dealer")
    page.goto(live_server.url + "/console/")
    page.select_option("#table-select", label="Main studio")
    expect(pill).to_have_text("Waiting for joker")
    expect(entry).to_be_focused()
    shot(page, "01-joker")

    scan(page, "KS")
    expect(pill).to_have_text("Betting open")
    expect(page.locator("#joker .card")).to_have_attribute("data-card", "KS")
    seconds = int(page.locator("#countdown").inner_text())
    assert 50 < seconds <= 60
    expect(page.locator("#countdown")).not_to_have_text(str(seconds), timeout=3000)  # it ticks
    expect(stage).to_contain_text("First card goes to Andar")
    shot(page, "02-betting")

    scan(page, "7H")  # too early: the server refuses, the page says why
    expect(alert).to_contain_text("Betting is still open")
    expect(pill).to_have_text("Betting open")
    shot(page, "03-refused-betting-open")

    page.keyboard.press("Enter")  # Enter on the empty box only says what to do
    expect(page.locator("#info")).to_contain_text("does not close betting")
    expect(pill).to_have_text("Betting open")
    page.keyboard.press("Control+Enter")  # the deliberate way to close betting early
    expect(pill).to_have_text("Dealing")
    expect(alert).to_be_hidden()
    expect(stage).to_contain_text("Next: Andar")
    shot(page, "04-dealing")

    for card in ["7H", "2C", "td"]:  # "td" as a scanner may send it: the server reads it as 10D
        scan(page, card)
    page.keyboard.type("QS")
    page.keyboard.press("Tab")  # a scanner set to end its codes with Tab
    expect_row(page, "andar", ["7H", "10D"])
    expect_row(page, "bahar", ["2C", "QS"])
    expect(stage).to_contain_text("Next: Andar")
    expect(page.locator("#row-andar")).to_have_class("row next")
    shot(page, "05-four-cards")

    scan(page, "7h")
    expect(alert).to_contain_text("7H was already dealt (card 1)")
    scan(page, "ZZ")
    expect(alert).to_contain_text("'ZZ' is not a card")
    expect_row(page, "andar", ["7H", "10D"])
    shot(page, "06-refused-duplicate-and-unreadable")

    page.reload()
    expect(pill).to_have_text("Dealing")
    expect_row(page, "andar", ["7H", "10D"])
    expect_row(page, "bahar", ["2C", "QS"])
    expect(page.locator("#joker .card")).to_have_attribute("data-card", "KS")
    expect(stage).to_contain_text("Next: Andar")
    expect(entry).to_be_focused()
    shot(page, "07-after-reload")

    scan(page, "KD")  # a king: the match, on Andar's side
    expect(stage).to_contain_text("Andar wins")
    expect(stage).to_contain_text("on card 5: K♦ matches the joker K♠")
    expect_row(page, "andar", ["7H", "10D", "KD"])
    expect(page.locator("#cards-andar .card.match")).to_have_attribute("data-card", "KD")
    expect(pill).to_have_text(re.compile("Finished|Settled"))
    shot(page, "08-result")

    rnd = Round.objects.get(table=table)
    assert (rnd.winner, rnd.cards_dealt, rnd.joker) == ("andar", 5, "KS")
    assert list(DealtCard.objects.filter(round=rnd).order_by("position").values_list("side", "card")) == [
        ("andar", "7H"), ("bahar", "2C"), ("andar", "10D"), ("bahar", "QS"), ("andar", "KD")]

    scan(page, "9C")  # a card after the match is refused too
    expect(alert).to_contain_text("The round is over")
    page.keyboard.press("Escape")
    expect(alert).to_be_hidden()
    page.keyboard.press("Enter")  # Enter on the empty box: no new round, a hint
    expect(page.locator("#info")).to_contain_text("does not start a round")
    expect(pill).to_have_text(re.compile("Finished|Settled"))
    page.keyboard.press("Control+Enter")  # New round: the joker box again
    expect(pill).to_have_text("Waiting for joker")
    expect(stage).to_contain_text(f"Last round {rnd.pk}: Andar won on card 5")
    expect(page.locator("#cards-andar .card")).to_have_count(0)
    shot(page, "09-new-round")
    scan(page, "2H")
    expect(pill).to_have_text("Betting open")
    expect(page.locator("#round-label")).to_have_text(f"Round {rnd.pk + 1}")
    assert page.js_errors == []


def test_console_remembers_the_chosen_table(page, live_server, dealer, make_table, login):
    make_table(name="Practice")
    make_table(name="Main studio")
    login(page, live_server.url, "dealer", "pw-dealer")
    page.goto(live_server.url + "/console/")
    expect(page.locator("#table-select option:checked")).to_have_text("Practice")
    page.select_option("#table-select", label="Main studio")
    page.reload()
    expect(page.locator("#table-select option:checked")).to_have_text("Main studio")


def test_supervisor_may_run_the_console(page, live_server, supervisor, table, login):
    login(page, live_server.url, "supervisor", "pw-supervisor")
    page.goto(live_server.url + "/console/")
    scan(page, "QH")
    expect(page.locator("#status-pill")).to_have_text("Betting open")


def test_when_the_countdown_ends_the_first_card_closes_betting(page, live_server, dealer, make_table, login):
    make_table(name="Fast", betting_seconds=1)
    login(page, live_server.url, "dealer", "pw-dealer")
    page.goto(live_server.url + "/console/")
    scan(page, "AS")
    expect(page.locator("#stage")).to_contain_text("Betting time is up")  # timers are off in tests: still "betting"
    scan(page, "4C")
    expect(page.locator("#status-pill")).to_have_text("Dealing")
    expect_row(page, "andar", ["4C"])
    assert Round.objects.get().closed_at is not None


def test_the_page_follows_what_another_console_does(page, live_server, dealer, supervisor, table, login):
    """Polling: betting closed and a card dealt elsewhere show up without touching this page."""
    login(page, live_server.url, "dealer", "pw-dealer")
    page.goto(live_server.url + "/console/")
    scan(page, "JD")
    expect(page.locator("#status-pill")).to_have_text("Betting open")
    other = client_for(supervisor)
    rnd = Round.objects.get()
    assert other.post(f"/api/rounds/{rnd.pk}/close-betting/").status_code == 200
    assert other.post(f"/api/rounds/{rnd.pk}/cards/", {"card": "5S"}, format="json").status_code == 201
    expect(page.locator("#status-pill")).to_have_text("Dealing", timeout=6000)
    expect_row(page, "andar", ["5S"])
    expect(page.locator("#stage")).to_contain_text("Next: Bahar")


def test_player_gets_the_forbidden_page(page, live_server, alice, table, login, shot):
    login(page, live_server.url, "alice", "pw-alice")
    response = page.goto(live_server.url + "/console/")
    assert response.status == 403
    expect(page.get_by_role("heading")).to_have_text("Not for your role")
    expect(page.locator("#entry-input")).to_have_count(0)
    shot(page, "forbidden")


def test_anonymous_visitor_is_sent_to_login(page, live_server):
    page.goto(live_server.url + "/console/")
    expect(page).to_have_url(live_server.url + "/login/?next=/console/")


def test_a_long_deal_stays_on_two_rows_after_a_reload(page, phone_page, live_server, dealer, table, login, shot):
    """30 cards dealt (through the API, as another console would) before the page opens: the page
    draws them from the server's state on the right rows, on a monitor and on a phone."""
    api = client_for(dealer)
    rnd = api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "KS"}, format="json").json()
    api.post(f"/api/rounds/{rnd['id']}/close-betting/")
    cards = [rank + suit for suit in "HDC" for rank in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]][:30]
    for card in cards:
        assert api.post(f"/api/rounds/{rnd['id']}/cards/", {"card": card}, format="json").status_code == 201
    for name, screen in [("desktop", page), ("phone", phone_page)]:
        login(screen, live_server.url, "dealer", "pw-dealer")
        screen.goto(live_server.url + "/console/")
        expect_row(screen, "andar", cards[0::2])
        expect_row(screen, "bahar", cards[1::2])
        expect(screen.locator("#stage")).to_contain_text("Next: Andar")
        expect(screen.locator("#entry-label")).to_have_text("Scan card 31 → Andar")
        expect(screen.locator("#entry-input")).to_be_in_viewport()  # the phone keeps it in sight
        shot(screen, f"{name}-30-cards")
    shot(phone_page, "phone-30-cards-screen", full_page=False)
