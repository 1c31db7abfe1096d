"""The lobby (/play/, and / for players and visitors) in a real browser against the real ASGI server:
every table the visitor may see, live over the lobby's one stream, while a dealer drives a round
through the server's HTTP API (so the server itself sends every lobby event); one click into a
table, and the player page's table switcher. A friends' match table stays out of a visitor's lobby.

Screenshots land in test-artifacts/<test name>/; the server's log in test-artifacts/test_lobby-server/.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from matches.services import match_create

from .conftest import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("patient_waits")]

JOKER = "KS"
DEAL = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]  # RULES.md's example: Andar wins on card 7
SUPER = {"spots": ["count_1_5", "count_6_10", "count_11_15", "first_three"], "draws": 2, "values": [[2, 60], [3, 30], [5, 10]]}
DESKTOP = {"width": 1366, "height": 768}



@pytest.fixture
def tables(make_table):
    return {
        "lotus": make_table(name="Lotus", min_bet=10, max_bet=500, betting_seconds=120),
        "super": make_table(name="Super Andar Bahar", card_count_paytable="play", chip_unit=1, min_bet=10, max_bet=500,
                            mode="no_commission", multipliers=SUPER, betting_seconds=120),
    }


def lobby_live(page, url: str) -> None:
    page.goto(url)
    expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
    expect(page.locator("#lobby")).to_have_attribute("data-ready", "yes")


def seconds(text: str) -> int:
    return int(re.sub(r"\D", "", text))


def test_an_anonymous_visitor_watches_the_lobby_live(studio_url, staff, page, phone_page, tables, alice, accessible, shot):
    match = match_create(creator=alice)  # a private table: no one else's business
    page.set_viewport_size(DESKTOP)
    lobby_live(page, studio_url + "/")
    expect(page.locator("h1")).to_have_text("Tables")
    expect(page.locator("input[name=password]")).to_have_count(0)  # a lobby, not a login form
    expect(page.get_by_role("link", name="Log in to bet with your player account.")).to_be_visible()
    lotus = page.get_by_test_id(f"lobby-table-{tables['lotus'].pk}")
    superb = page.get_by_test_id(f"lobby-table-{tables['super'].pk}")
    expect(page.get_by_test_id("lobby-tables").locator("li.lt")).to_have_count(2)
    expect(page.get_by_test_id(f"lobby-table-{match.table_id}")).to_have_count(0)
    expect(lotus.get_by_test_id("phase")).to_have_text("Waiting for the first round")
    expect(lotus.get_by_test_id("limits")).to_have_text("10–500 chips")
    expect(lotus.get_by_test_id("game")).to_have_text("Classic · 1st Andar · 1st Bahar · First 3 · Card count")
    expect(lotus.get_by_test_id("players")).to_have_text("0 players")
    expect(lotus.get_by_test_id("road")).to_contain_text("No results yet")
    expect(lotus.get_by_test_id("multipliers")).to_have_count(0)
    expect(superb.get_by_test_id("multipliers")).to_have_text("Multipliers up to ×5")
    expect(superb.get_by_test_id("game")).to_contain_text("No commission")
    accessible(page, "the lobby, no round yet")

    round_id = staff("POST", f"tables/{tables['lotus'].pk}/rounds/", json={"joker": JOKER})["id"]
    expect(lotus.get_by_test_id("phase")).to_have_text("Place your bets")
    countdown = lotus.get_by_test_id("countdown")
    expect(countdown).to_have_text(re.compile(r"^\d+ s$"))
    first = seconds(countdown.inner_text())
    assert 100 < first <= 120
    wait_until(page, lambda: seconds(countdown.inner_text()) < first, "the countdown counts down")
    expect(lotus).to_have_attribute("data-phase", "betting")
    accessible(page, "the lobby, betting open")
    shot(page, "desktop-betting", full_page=False)

    # The phone connects now: the round's time left comes from the lobby the stream sends first.
    lobby_live(phone_page, studio_url + "/play/")
    phone_lotus = phone_page.get_by_test_id(f"lobby-table-{tables['lotus'].pk}")
    expect(phone_lotus.get_by_test_id("countdown")).to_have_text(re.compile(r"^\d+ s$"))
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= phone_page.viewport_size["width"]
    accessible(phone_page, "the lobby on a phone, betting open")
    shot(phone_page, "phone-betting")

    staff("POST", f"rounds/{round_id}/close-betting/")
    expect(lotus.get_by_test_id("phase")).to_have_text("Dealing…")
    expect(lotus.get_by_test_id("countdown")).to_have_count(0)
    for card in DEAL:
        staff("POST", f"rounds/{round_id}/cards/", json={"card": card})
    expect(lotus.get_by_test_id("phase")).to_have_text("Andar wins on card 7")
    beads = lotus.get_by_test_id("road").locator("li.bead")
    expect(beads).to_have_count(1)
    expect(beads.first).to_have_class(re.compile(r"\bandar\b"))
    expect(beads.first).to_contain_text("Andar wins on card 7")
    expect(phone_lotus.get_by_test_id("road").locator("li.bead")).to_have_count(1)

    # The next round: the road keeps the result, the row counts down again.
    staff("POST", f"tables/{tables['lotus'].pk}/rounds/", json={"joker": "2C"})
    expect(lotus.get_by_test_id("phase")).to_have_text("Place your bets")
    expect(beads).to_have_count(1)
    accessible(page, "the lobby, a result on the road")
    shot(page, "desktop-road", full_page=False)
    assert page.js_errors == [] and phone_page.js_errors == []


def test_a_player_goes_into_a_table_from_the_lobby_and_switches_table(
    studio_url, page, phone_page, tables, alice, bob, login, accessible, shot,
):
    match = match_create(creator=alice)
    login(page, studio_url, "alice")
    page.set_viewport_size(DESKTOP)
    lobby_live(page, studio_url + "/")
    expect(page.get_by_test_id(f"lobby-table-{match.table_id}")).to_contain_text("With friends")  # her own match is hers to see
    expect(page.get_by_role("link", name="Log in to bet with your player account.")).to_have_count(0)

    page.get_by_role("link", name="Lotus", exact=True).click()
    expect(page).to_have_url(re.compile(rf"/play/tables/{tables['lotus'].pk}/$"))
    expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
    switcher = page.get_by_test_id("table-switcher")
    switcher.locator("summary").click()
    listed = page.get_by_test_id("switcher-list")
    expect(listed.locator("a")).to_have_count(3)
    expect(page.get_by_test_id(f"switch-{tables['lotus'].pk}")).to_have_attribute("aria-current", "page")
    accessible(page, "the player page, the table switcher open")
    shot(page, "desktop-switcher", full_page=False)
    page.keyboard.press("Escape")
    expect(listed).to_be_hidden()

    # By keyboard: the switcher opens with Enter and its links are next in the tab order.
    switcher.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id(f"switch-{tables['super'].pk}")).to_be_visible()
    page.get_by_test_id(f"switch-{tables['super'].pk}").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"/play/tables/{tables['super'].pk}/$"))
    expect(page.locator("h1")).to_have_text("Super Andar Bahar")

    # On a phone: the lobby, then a table, then the switcher fits the screen.
    login(phone_page, studio_url, "bob")
    lobby_live(phone_page, studio_url + "/play/")
    expect(phone_page.get_by_test_id(f"lobby-table-{match.table_id}")).to_have_count(0)
    phone_page.get_by_test_id(f"lobby-table-{tables['super'].pk}").get_by_test_id("road").click(force=True)  # the whole row is the link
    expect(phone_page).to_have_url(re.compile(rf"/play/tables/{tables['super'].pk}/$"))
    phone_page.get_by_test_id("table-switcher").locator("summary").click()
    expect(phone_page.get_by_test_id(f"switch-{tables['lotus'].pk}")).to_be_visible()
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= phone_page.viewport_size["width"]
    accessible(phone_page, "the player page on a phone, the table switcher open")
    shot(phone_page, "phone-switcher", full_page=False)
    phone_page.get_by_test_id(f"switch-{tables['lotus'].pk}").click()
    expect(phone_page).to_have_url(re.compile(rf"/play/tables/{tables['lotus'].pk}/$"))
    assert page.js_errors == [] and phone_page.js_errors == []
