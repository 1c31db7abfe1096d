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


def test_dealer_runs_a_round_with_the_keyboard_only(screen, live_server, dealer, make_table, login, shot, accessible):
    page = screen
    make_table(name="Practice")
    table = make_table(name="Main studio", betting_seconds=60)
    alert, pill, stage = page.get_by_role("alert"), page.locator("#status-pill"), page.locator("#stage")
    entry = page.locator("#entry-input")

    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    page.select_option("#table-select", label="Main studio")
    expect(pill).to_have_text("Waiting for joker")
    expect(entry).to_be_focused()
    expect(page.get_by_role("heading", level=1)).to_have_text("Dealer console")
    expect(page.locator("#count-andar")).to_have_text("0 cards")
    accessible(page, "waiting for the joker")
    shot(page, "01-joker")

    scan(page, "KS")
    expect(pill).to_have_text("Betting open")
    expect(page.locator("#joker .card")).to_have_attribute("data-card", "KS")
    seconds = int(page.locator("#countdown").inner_text())
    assert 50 < seconds <= 60
    expect(page.locator("#countdown")).not_to_have_text(str(seconds), timeout=3000)  # it ticks
    expect(stage).to_contain_text("First card goes to Andar")
    accessible(page, "betting open")
    shot(page, "02-betting")

    scan(page, "7H")  # too early: the server refuses, the page says why
    expect(alert).to_contain_text("Betting is still open")
    expect(pill).to_have_text("Betting open")
    expect(page.locator("#console")).to_have_attribute("data-beeps", "1")  # and the dealer hears it
    accessible(page, "a refusal")
    shot(page, "03-refused-betting-open")

    page.keyboard.press("Enter")  # Enter on the empty box only says what to do
    expect(page.locator("#info")).to_contain_text("does not close betting")
    expect(pill).to_have_text("Betting open")
    page.keyboard.press("Control+Enter")  # the deliberate way to close betting early
    expect(pill).to_have_text("Dealing")
    expect(alert).to_be_hidden()
    expect(stage).to_contain_text("Next: Andar")
    expect(entry).to_be_focused()
    shot(page, "04-dealing")

    scan(page, "7H")
    expect(page.locator("#count-andar")).to_have_text("1 card")

    for card in ["2C", "td"]:  # "td" as a scanner may send it: the server reads it as 10D
        scan(page, card)
    page.keyboard.type("QS")
    page.keyboard.press("Tab")  # a scanner set to end its codes with Tab
    expect_row(page, "andar", ["7H", "10D"])
    expect_row(page, "bahar", ["2C", "QS"])
    expect(stage).to_contain_text("Next: Andar")
    expect(page.locator("#row-andar")).to_have_class("row next")
    expect(page.locator("#count-andar")).to_have_text("2 cards")
    accessible(page, "dealing")
    shot(page, "05-four-cards")

    scan(page, "7h")
    expect(alert).to_contain_text("7H was already dealt (card 1)")
    scan(page, "ZZ")
    expect(alert).to_contain_text("'ZZ' is not a card")
    expect(page.locator("#console")).to_have_attribute("data-beeps", "3")
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
    accessible(page, "the result")
    shot(page, "08-result")

    rnd = Round.objects.get(table=table)
    assert (rnd.winner, rnd.cards_dealt, rnd.joker) == ("andar", 5, "KS")
    assert list(DealtCard.objects.filter(round=rnd).order_by("position").values_list("side", "card")) == [
        ("andar", "7H"), ("bahar", "2C"), ("andar", "10D"), ("bahar", "QS"), ("andar", "KD")]

    page.keyboard.press("Escape")
    expect(alert).to_be_hidden()
    page.keyboard.press("Enter")  # Enter on the empty box: no new round, a hint
    expect(page.locator("#info")).to_contain_text("Scan the next joker")
    expect(pill).to_have_text(re.compile("Finished|Settled"))
    expect(entry).to_have_attribute("placeholder", "joker, e.g. KS")
    scan(page, "2H")  # the next joker opens the next round: no other key
    expect(pill).to_have_text("Betting open")
    expect(page.locator("#round-label")).to_have_text(f"Round {rnd.pk + 1}")
    expect(page.locator("#joker .card")).to_have_attribute("data-card", "2H")
    expect(page.locator("#scan-log li").first).to_contain_text(f"Joker 2♥: round {rnd.pk + 1} open")
    shot(page, "09-next-joker-opens-the-round")
    assert page.js_errors == []
    assert page.csp_violations == []


def test_console_remembers_the_chosen_table(page, live_server, dealer, make_table, login):
    make_table(name="Practice")
    make_table(name="Main studio")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    expect(page.locator("#table-select option:checked")).to_have_text("Practice")
    page.select_option("#table-select", label="Main studio")
    page.reload()
    expect(page.locator("#table-select option:checked")).to_have_text("Main studio")


def test_supervisor_may_run_the_console(page, live_server, supervisor, table, login):
    login(page, live_server.url, "supervisor")
    page.goto(live_server.url + "/console/")
    scan(page, "QH")
    expect(page.locator("#status-pill")).to_have_text("Betting open")


def test_when_the_countdown_ends_the_first_card_closes_betting(page, live_server, dealer, make_table, login):
    make_table(name="Fast", betting_seconds=1)
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    scan(page, "AS")
    expect(page.locator("#stage")).to_contain_text("Betting time is up")  # timers are off in tests: still "betting"
    scan(page, "4C")
    expect(page.locator("#status-pill")).to_have_text("Dealing")
    expect_row(page, "andar", ["4C"])
    assert Round.objects.get().closed_at is not None


def test_the_page_follows_what_another_console_does(page, live_server, dealer, supervisor, table, login):
    """Polling: betting closed and a card dealt elsewhere show up without touching this page."""
    login(page, live_server.url, "dealer")
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
    login(page, live_server.url, "alice")
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
        login(screen, live_server.url, "dealer")
        screen.goto(live_server.url + "/console/")
        expect_row(screen, "andar", cards[0::2])
        expect_row(screen, "bahar", cards[1::2])
        expect(screen.locator("#stage")).to_contain_text("Next: Andar")
        expect(screen.locator("#entry-label")).to_have_text("Scan card 31 → Andar")
        expect(screen.locator("#entry-input")).to_be_in_viewport()  # the phone keeps it in sight
        shot(screen, f"{name}-30-cards")
    shot(phone_page, "phone-30-cards-screen", full_page=False)


def test_choosing_a_table_by_keyboard_gives_the_focus_back_to_the_scan_box(page, live_server, dealer, make_table, login,
                                                                          shot, accessible):
    """The Keys panel's way: Shift+Tab to the table list, an arrow picks the next table; the focus is
    then in the scan box again, so the scans that follow are dealt, not typed into the list."""
    make_table(name="Practice")
    main = make_table(name="Main studio")
    entry = page.locator("#entry-input")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    expect(page.locator("#status-pill")).to_have_text("Waiting for joker")
    expect(entry).to_be_focused()

    page.keyboard.press("Shift+Tab")
    expect(page.locator("#table-select")).to_be_focused()
    accessible(page, "the table list focused")
    shot(page, "01-table-list-focused")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#table-select option:checked")).to_have_text("Main studio")
    expect(entry).to_be_focused()

    scan(page, "KS")
    expect(page.locator("#status-pill")).to_have_text("Betting open")
    expect(page.locator("#table-select option:checked")).to_have_text("Main studio")
    assert Round.objects.get().table_id == main.pk
    shot(page, "02-round-on-the-chosen-table")


def test_a_scan_on_another_control_reaches_the_scan_box(page, live_server, dealer, make_table, login, shot, accessible):
    """Whatever has the focus (the table list, the language list, a button), a scanner's characters
    go into the scan box: no list jumps to a table or a language by type-ahead, no scan is lost."""
    make_table(name="Practice")
    make_table(name="Kitchen table")  # what type-ahead on "K" would pick
    entry, alert = page.locator("#entry-input"), page.get_by_role("alert")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    expect(page.locator("#status-pill")).to_have_text("Waiting for joker")

    page.focus("#table-select")
    scan(page, "KS")
    expect(page.locator("#status-pill")).to_have_text("Betting open")
    expect(page.locator("#table-select option:checked")).to_have_text("Practice")
    expect(page.locator("#joker .card")).to_have_attribute("data-card", "KS")
    expect(entry).to_be_focused()

    page.focus("#lang-select")
    scan(page, "7H")  # reaches the box: the server's refusal shows
    expect(alert).to_contain_text("Betting is still open")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page).to_have_url(live_server.url + "/console/")

    page.focus("#btn-enter")
    scan(page, "8D")
    expect(page.locator("#console")).to_have_attribute("data-beeps", "2")
    expect(entry).to_be_focused()
    accessible(page, "after scans on other controls")
    shot(page, "scans-from-other-controls")


def test_enter_on_the_empty_box_never_closes_betting(page, live_server, dealer, table, login, shot, accessible):
    """A scanner that sends Enter twice: the round opens, betting stays open and the dealer reads
    what closes it. Closing early is a deliberate act: the button, reached with Tab, or Ctrl+Enter."""
    entry, pill, info = page.locator("#entry-input"), page.locator("#status-pill"), page.locator("#info")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    expect(pill).to_have_text("Waiting for joker")
    page.keyboard.type("QS")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # the double send
    expect(pill).to_have_text("Betting open")
    expect(info).to_have_text("Enter on an empty box does not close betting: use Close betting or Ctrl+Enter.")
    page.keyboard.press("Enter")
    expect(pill).to_have_text("Betting open")
    assert Round.objects.get().closed_at is None

    page.keyboard.press("Tab")  # the empty box: Tab moves on, to the Enter button, then Close betting
    page.keyboard.press("Tab")
    close = page.locator("#btn-close")
    expect(close).to_be_focused()
    assert close.evaluate("b => getComputedStyle(b).outlineStyle") == "solid"  # the focus ring shows
    accessible(page, "close betting focused")
    shot(page, "close-betting-focused")
    page.keyboard.press("Enter")
    expect(pill).to_have_text("Dealing")
    expect(entry).to_be_focused()
    assert Round.objects.get().closed_at is not None


def test_a_scan_while_the_console_loads_waits_for_it(page, live_server, dealer, table, login):
    """The table's round is slow to come: a joker scanned meanwhile is dealt once it has come."""
    held = []
    page.route("**/current-round/", lambda route: held.append(route))
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    expect(page.locator("#status-pill")).to_have_text("Loading…")
    scan(page, "9C")
    page.wait_for_function("() => document.getElementById('entry-input').value === ''")
    assert held and Round.objects.count() == 0
    held[0].continue_()
    page.unroute("**/current-round/")  # and lets any later request through
    expect(page.locator("#status-pill")).to_have_text("Betting open")
    expect(page.locator("#joker .card")).to_have_attribute("data-card", "9C")


def test_a_scan_with_no_table_is_shown(page, live_server, dealer, login, accessible):
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    expect(page.locator("#status-pill")).to_have_text("No table")
    scan(page, "KS")
    expect(page.get_by_role("alert")).to_contain_text("Not dealt: there is no table to deal at. KS went nowhere.")
    expect(page.locator("#console")).to_have_attribute("data-beeps", "1")
    accessible(page, "no table")


@pytest.mark.parametrize("width,height", [(1920, 1080), (1366, 768)])
def test_the_console_on_a_studio_monitor(page, live_server, dealer, table, login, shot, accessible, width, height):
    """A deal in progress and its result at the two monitor sizes the studio uses."""
    page.set_viewport_size({"width": width, "height": height})
    api = client_for(dealer)
    rnd = api.post(f"/api/tables/{table.pk}/rounds/", {"joker": "QH"}, format="json").json()
    api.post(f"/api/rounds/{rnd['id']}/close-betting/")
    for card in ["3S", "10D", "AC", "7H", "2D", "JS", "9C"]:
        assert api.post(f"/api/rounds/{rnd['id']}/cards/", {"card": card}, format="json").status_code == 201
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    expect(page.locator("#stage")).to_contain_text("Next: Bahar")
    expect(page.locator("#entry-input")).to_be_in_viewport()
    accessible(page, f"dealing at {width}x{height}")
    shot(page, f"{width}x{height}-dealing", full_page=False)
    scan(page, "QS")
    expect(page.locator("#stage")).to_contain_text("Bahar wins")
    accessible(page, f"the result at {width}x{height}")
    shot(page, f"{width}x{height}-result", full_page=False)


def test_the_console_is_light_and_asks_no_other_host(page, live_server, dealer, table, login):
    """A cold load (no cache) stays under 150 KB even uncompressed, every request to the studio."""
    login(page, live_server.url, "dealer")
    page.route("**/*", lambda route: route.continue_())  # with routing on, Playwright uses no HTTP cache
    sizes: dict[str, int] = {}
    page.on("response", lambda r: sizes.__setitem__(r.url, len(r.body())) if r.ok else None)
    page.goto(live_server.url + "/console/")
    expect(page.locator("#status-pill")).to_have_text("Waiting for joker")
    page.wait_for_load_state("networkidle")
    assert all(url.startswith(live_server.url) for url in sizes), list(sizes)
    assert any(url.endswith("/static/css/base.css") for url in sizes), list(sizes)  # cold: shared files came too
    assert sum(sizes.values()) < 150_000, sizes


def test_a_paused_round_refuses_cards_and_a_void_asks_for_a_new_round(page, live_server, dealer, supervisor, table,
                                                                      login, shot, accessible):
    """The supervisor pauses the round (an incident) and voids it, from another screen: the console
    follows, a card scanned while paused is refused aloud, and after the void only a deliberate new
    round takes a joker."""
    pill, alert, stage = page.locator("#status-pill"), page.get_by_role("alert"), page.locator("#stage")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    scan(page, "JD")
    page.keyboard.press("Control+Enter")
    scan(page, "4C")
    expect(page.locator("#count-andar")).to_have_text("1 card")

    other = client_for(supervisor)
    rnd = Round.objects.get()
    incident = other.post(f"/api/rounds/{rnd.pk}/incidents/", {"kind": "misread"}, format="json").json()
    expect(pill).to_have_text("Paused", timeout=6000)
    expect(stage).to_contain_text("A supervisor must resume it")
    scan(page, "5S")
    expect(alert).to_be_visible()
    expect(page.locator("#console")).to_have_attribute("data-beeps", "1")
    assert DealtCard.objects.filter(round=rnd).count() == 1
    accessible(page, "a paused round")
    shot(page, "01-paused")

    assert other.post(f"/api/incidents/{incident['id']}/void/", {"reason": "card misread"}, format="json").status_code == 200
    expect(pill).to_have_text("Voided", timeout=6000)
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    expect(page.locator("#info")).to_contain_text("Scan the next joker")
    accessible(page, "a voided round")
    shot(page, "02-voided")
    page.keyboard.press("Control+Enter")
    expect(pill).to_have_text("Waiting for joker")
    scan(page, "2S")
    expect(pill).to_have_text("Betting open")
    assert Round.objects.count() == 2


def test_the_console_shows_who_is_on_shift_and_signs_in_and_out(page, live_server, dealer, make_table, login, shot, accessible):
    from tests.conftest import make_user
    from tables.models import Shift
    from tables.services import table_state_set

    table = make_table(name="Main studio")
    other = make_user("dealer2", "dealer")
    line, button, alert = page.locator("#shift-line"), page.locator("#btn-shift"), page.get_by_role("alert")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    expect(line).to_contain_text("No one on shift")
    expect(button).to_have_text("Sign in")
    button.click()
    expect(line).to_have_text("On shift: dealer")
    expect(page.locator("#shift-clock")).to_contain_text(re.compile(r"^0:0\d of 30:00$"))
    expect(button).to_have_text("Sign out")
    expect(page.locator("#entry-input")).to_be_focused()  # scans still reach the box
    accessible(page, "on shift")
    shot(page, "01-on-shift")

    client_for(other).post(f"/api/tables/{table.pk}/shifts/")  # another dealer takes the table over
    page.reload()
    expect(line).to_have_text("On shift: dealer2")
    expect(button).to_have_text("Sign in")
    scan(page, "KS")
    expect(alert).to_contain_text("dealer2 is on shift at this table")
    assert alert.get_attribute("data-code") == "dealer_on_shift"
    shot(page, "02-someone-else-on-shift")

    button.click()  # take over, then sign out
    expect(line).to_have_text("On shift: dealer")
    button.click()
    expect(line).to_contain_text("No one on shift")
    assert Shift.objects.filter(ended_at=None).count() == 0

    table_state_set(table_id=table.pk, state="maintenance", reason="Shoe reader replaced", actor=None, source="command")
    scan(page, "QS")
    expect(alert).to_contain_text("Shoe reader replaced")
    assert alert.get_attribute("data-code") == "table_closed"
    assert not Round.objects.exists()
    assert page.js_errors == []
    assert page.csp_violations == []


def test_the_console_lists_only_the_tables_a_person_deals(page, live_server, dealer, make_table, login, accessible):
    from tables.models import Match
    make_table(name="Robot", virtual_dealer=True)
    Match.objects.create(table=make_table(name="Friends", is_private=True), code="ABC123", created_by=dealer)
    make_table(name="Main studio")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    options = page.locator("#table-select option")
    expect(options).to_have_text(["Main studio"])
    expect(page.locator("#status-pill")).to_have_text("Waiting for joker")


def test_the_scan_log_keeps_a_refusal_in_a_burst_and_the_banner_moves_nothing(screen, live_server, dealer, make_table, login,
                                                                              shot, accessible):
    page = screen
    make_table(name="Main studio", betting_seconds=60)
    alert, log = page.get_by_role("alert"), page.locator("#scan-log li")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    scan(page, "KS")
    expect(page.locator("#status-pill")).to_have_text("Betting open")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#status-pill")).to_have_text("Dealing")
    top = lambda: {k: v for k, v in page.locator(".board").bounding_box().items() if k in ("x", "y")}  # noqa: E731
    board = top()

    for card in ["7H", "7H", "2C"]:  # a burst: the second is a duplicate, the third is accepted
        scan(page, card)
    expect(log).to_have_count(4)
    expect(log.nth(0)).to_contain_text("Card 2: 2♣ to Bahar.")
    expect(log.nth(1)).to_have_class("bad")
    expect(log.nth(1)).to_contain_text("✗")
    expect(log.nth(1)).to_contain_text("7H was already dealt (card 1)")  # the API's reason, kept
    expect(log.nth(2)).to_contain_text("Card 1: 7♥ to Andar.")
    expect(log.nth(3)).to_contain_text("Joker K♠: round")
    expect(alert).to_be_hidden()  # the accepted card cleared the banner; the log still says it
    assert top() == board

    scan(page, "ZZ")
    expect(alert).to_contain_text("'ZZ' is not a card")
    assert top() == board  # the banner lies in its own kept place
    expect(log.first).to_contain_text("'ZZ' is not a card")
    accessible(page, "the scan log with refusals")
    shot(page, "scan-log")
    assert page.js_errors == []


def test_the_rotation_timer_warns_when_rotation_is_due(screen, live_server, dealer, make_table, login, shot, accessible):
    from datetime import timedelta
    from django.utils import timezone
    from tables.models import Shift
    page = screen
    table = make_table(name="Main studio", shift_minutes=20)
    shift = Shift.objects.create(table=table, dealer=dealer, started_at=timezone.now() - timedelta(minutes=12, seconds=4))
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    block = page.locator("#shift")
    expect(page.locator("#shift-clock")).to_contain_text(re.compile(r"^12:0\d of 20:00$"))
    expect(block).to_have_attribute("data-due", "0")
    expect(page.locator("#shift-due")).to_be_hidden()
    shot(page, "01-on-shift")

    Shift.objects.filter(pk=shift.pk).update(started_at=timezone.now() - timedelta(minutes=21))
    page.reload()
    expect(block).to_have_attribute("data-due", "1")
    expect(page.locator("#shift-due")).to_have_text("Rotation due: hand the table over")
    expect(page.locator("#shift-clock")).to_contain_text(re.compile(r"^21:0\d of 20:00$"))
    accessible(page, "rotation due")
    shot(page, "02-rotation-due")


def test_a_new_shoe_is_recorded_in_the_change_log(page, live_server, dealer, make_table, login, shot, accessible):
    from tables.models import TableChange
    table = make_table(name="Main studio")
    login(page, live_server.url, "dealer")
    page.goto(live_server.url + "/console/")
    shoe = page.locator("#btn-shoe")
    page.locator("#btn-shift").click()
    expect(page.locator("#shift-line")).to_have_text("On shift: dealer")
    shoe.click()
    expect(page.locator("#info")).to_have_text("New shoe recorded: shoe 1.")
    expect(page.locator("#shoe-line")).to_contain_text(re.compile(r"^Shoe 1 since \d\d:\d\d:\d\d .+ \(dealer\)$"))
    expect(page.locator("#entry-input")).to_be_focused()
    row = TableChange.objects.get(table=table, field="shoe")
    assert (row.actor_name, row.old, row.new) == ("dealer", "", "1")
    accessible(page, "a new shoe")
    shot(page, "new-shoe")

    page.locator("#btn-shift").click()  # signed out: the server refuses, the alert says why
    expect(page.locator("#shift-line")).to_contain_text("No one on shift")
    shoe.click()
    expect(page.get_by_role("alert")).to_contain_text("sign in to it before you change its shoe")
    assert TableChange.objects.filter(table=table, field="shoe").count() == 1
