"""Random multipliers on the pages, in a real browser against the real ASGI server: the player page
shows the round's drawn multipliers from the close of betting (the event, and the snapshot on
connect) until the next round opens, says them, and shows a multiplied win; the rules page gives the
multiplier table and both returns of each spot; the supervisor edits the setting in the settings
dialog's fields (a refusal at them, the switch off saving none) and sees the returns of 100% or more
flagged; the round page checks the seed against its commitment. The rounds are driven through the
server's HTTP API, so the server itself sends every event.

Screenshots land in test-artifacts/<test name>/; the server's log in test-artifacts/test_multipliers-server/.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect


pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("patient_waits")]

JOKER = "KS"
DEAL = ["AC", "QS", "8D", "7C", "JH", "2H", "KD"]  # RULES.md's example: Andar wins on card 7
# Every spot of the setting drawn each round, always x7: what the page shows is known in advance.
ALWAYS_SEVEN = {"spots": ["andar", "count_6_10", "first_three"], "draws": 3, "values": [[7, 1]]}
# A table as it would be set: two of four side bets drawn a round, x2, x3 or x5.
SUPER = {"spots": ["count_1_5", "count_6_10", "count_11_15", "first_three"], "draws": 2, "values": [[2, 60], [3, 30], [5, 10]]}
DESKTOP = {"width": 1366, "height": 768}



@pytest.fixture
def super_table(make_table):
    return make_table(name="Super Andar Bahar", card_count_paytable="play", chip_unit=1, min_bet=10, max_bet=500,
                      betting_seconds=120, multipliers=ALWAYS_SEVEN)


def open_table(page, url: str, table_id: int, lang: str = "en"):
    page.goto(f"{url}/play/tables/{table_id}/?lang={lang}")
    expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")


def settled(api, round_id: int) -> bool:
    return api("GET", f"rounds/{round_id}/")["status"] == "settled"


def test_the_player_sees_the_drawn_multipliers_and_a_multiplied_win(
    studio_url, staff, player, page, phone_page, super_table, alice, bob, login, shot, accessible,
):
    page.set_viewport_size(DESKTOP)
    login(page, studio_url, "alice")
    login(phone_page, studio_url, "bob")
    open_table(page, studio_url, super_table.pk)
    round_id = staff("POST", f"tables/{super_table.pk}/rounds/", json={"joker": JOKER})["id"]
    expect(page.locator("#phase")).to_have_text("Place your bets")
    expect(page.get_by_test_id("multipliers")).to_be_hidden()  # drawn only when betting closes
    assert staff("GET", f"rounds/{round_id}/")["multipliers"] is None
    page.get_by_test_id("chip-100").click()
    page.get_by_test_id("spot-andar").click()
    page.get_by_test_id("chip-10").click()
    page.get_by_test_id("spot-count_6_10").click()
    page.get_by_test_id("spot-count_6_10").click()
    expect(page.get_by_test_id("balance")).to_have_text("880")

    staff("POST", f"rounds/{round_id}/close-betting/")
    drawn = staff("GET", f"rounds/{round_id}/")["multipliers"]
    assert sorted((m["spot"], m["multiplier"]) for m in drawn) == [("andar", 7), ("count_6_10", 7), ("first_three", 7)]
    strip = page.get_by_test_id("multipliers")
    expect(strip).to_be_visible()
    for m in drawn:  # in the server's order, as it sent them
        expect(strip.get_by_test_id(f"mult-{m['spot']}")).to_contain_text("×7")
    assert strip.locator("li").evaluate_all("els => els.map(e => e.dataset.spot)") == [m["spot"] for m in drawn]
    expect(page.get_by_test_id("spot-andar")).to_have_class(re.compile(r"\bmultiplied\b"))
    expect(page.get_by_test_id("spot-andar").locator(".mult-mark")).to_have_text("×7")
    expect(page.get_by_test_id("spot-bahar")).not_to_have_class(re.compile(r"\bmultiplied\b"))
    expect(page.get_by_test_id("spot-andar")).to_have_accessible_name("Andar 0.9:1 your stake 100, multiplied ×7 this round")
    expect(page.get_by_test_id("announce")).to_contain_text("No more bets. Multipliers this round:")
    expect(page.get_by_test_id("announce")).to_contain_text("Andar ×7")
    # A page that connects now gets them from the snapshot.
    open_table(phone_page, studio_url, super_table.pk)
    expect(phone_page.get_by_test_id("multipliers").get_by_test_id("mult-count_6_10")).to_contain_text("×7")
    accessible(page, "player page, multipliers drawn")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "desktop-multipliers", full_page=False)
    shot(phone_page, "phone-multipliers", full_page=False)
    phone_page.get_by_test_id("spot-count_6_10").scroll_into_view_if_needed()
    shot(phone_page, "phone-multipliers-board", full_page=False)

    for card in DEAL:
        staff("POST", f"rounds/{round_id}/cards/", json={"card": card})
    wins = page.get_by_test_id("multiplied-wins")
    expect(wins).to_contain_text("Andar won ×7")
    expect(wins).to_contain_text("6–10 cards won ×7")
    mine = player("GET", "me/rounds/?page_size=1")["results"][0]
    assert mine["round"] == round_id and {b["spot"]: b.get("multiplier") for b in mine["bets"]} == {"andar": 7, "count_6_10": 7}
    expect(page.get_by_test_id("net")).to_contain_text("+" + f"{int(float(mine['net'])):,}")
    expect(page.get_by_test_id("my-bets")).to_contain_text("won ×7")
    accessible(page, "player page, a multiplied win")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "desktop-multiplied-win", full_page=False)

    # The next round clears them.
    staff("POST", f"tables/{super_table.pk}/rounds/", json={"joker": "2C"})
    expect(page.get_by_test_id("multipliers")).to_be_hidden()
    expect(page.locator("#board .spot.multiplied")).to_have_count(0)
    assert page.js_errors == [] and phone_page.js_errors == []


def test_the_drawn_multipliers_and_a_refusal_in_japanese(studio_url, staff, page, super_table, alice, login, accessible, shot):
    login(page, studio_url, "alice")
    open_table(page, studio_url, super_table.pk, lang="ja")
    round_id = staff("POST", f"tables/{super_table.pk}/rounds/", json={"joker": JOKER})["id"]
    expect(page.locator("#joker .card")).to_have_attribute("data-card", JOKER)
    # A refusal in the page's language, its figures in the page's number format (not the API's "500.00").
    page.get_by_test_id("chip-500").click()
    page.get_by_test_id("spot-andar").click()
    expect(page.get_by_test_id("stake-andar")).to_have_text("500")
    page.get_by_test_id("spot-andar").click()
    expect(page.get_by_test_id("error")).to_contain_text("このテーブルの1ラウンドの上限は500です（賭け額が1,000になります）。")
    expect(page.get_by_test_id("error")).not_to_contain_text("At most")
    staff("POST", f"rounds/{round_id}/close-betting/")
    strip = page.get_by_test_id("multipliers")
    expect(strip).to_be_visible()
    expect(strip.locator(".mults-label")).to_have_text("今回のマルチプライヤー")
    expect(strip.get_by_test_id("mult-andar")).to_contain_text("×7")
    expect(page.get_by_test_id("announce")).to_contain_text("今回のマルチプライヤー")
    expect(page.get_by_test_id("announce")).to_contain_text("×7")
    accessible(page, "player page in Japanese, multipliers drawn")
    shot(page, "ja-multipliers", full_page=False)
    assert page.js_errors == []


def test_the_rules_page_gives_the_multipliers_and_both_returns(studio_url, page, phone_page, make_table, alice, login, accessible, shot):
    table = make_table(name="Super", card_count_paytable="play", chip_unit=1, min_bet=10, max_bet=500, multipliers=SUPER)
    plain = make_table(name="Plain")
    for p in (page, phone_page):
        login(p, studio_url, "alice")
    page.goto(f"{studio_url}/play/tables/{table.pk}/rules/")
    section = page.get_by_test_id("multipliers")
    expect(section).to_contain_text("When betting closes, 2 of these 4 spots are drawn at random")
    expect(section.get_by_test_id("multiplied-spots")).to_contain_text("Card count 1-5, Card count 6-10, Card count 11-15, First 3")
    rows = section.get_by_test_id("multiplier-table").locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("×2")
    expect(rows.nth(0)).to_contain_text("60.00%")
    expect(rows.nth(0)).to_contain_text("3/5")
    expect(rows.nth(2)).to_contain_text("1/10")
    expect(section).to_contain_text("2.6 on average")  # (2x60 + 3x30 + 5x10) / 100
    expect(page.get_by_test_id("settings-multipliers")).to_contain_text("2 spots a round")
    rules = page.request.get(f"{studio_url}/api/tables/{table.pk}/rules/").json()
    by_spot = {s["spot"]: s for s in rules["spots"]}
    expect(page.get_by_test_id("rtp-andar")).to_contain_text(by_spot["andar"]["rtp"])
    expect(page.get_by_test_id("rtp-without-andar")).to_contain_text("—")
    expect(page.get_by_test_id("rtp-count_6_10")).to_contain_text(by_spot["count_6_10"]["rtp"])
    expect(page.get_by_test_id("rtp-without-count_6_10")).to_contain_text(by_spot["count_6_10"]["rtp_without_multipliers"])
    accessible(page, "rules page with multipliers")
    shot(page, "rules-desktop")
    phone_page.goto(f"{studio_url}/play/tables/{table.pk}/rules/?lang=hi")
    expect(phone_page.get_by_test_id("multiplier-table").locator("tbody tr")).to_have_count(3)
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= phone_page.viewport_size["width"]
    accessible(phone_page, "rules page with multipliers, phone, Hindi")
    shot(phone_page, "rules-phone-hi")
    phone_page.get_by_test_id("multipliers").scroll_into_view_if_needed()
    shot(phone_page, "rules-phone-hi-multipliers", full_page=False)
    page.goto(f"{studio_url}/play/tables/{plain.pk}/rules/")
    expect(page.get_by_test_id("multipliers")).to_have_count(0)
    expect(page.get_by_test_id("settings-multipliers")).to_have_text("none")
    assert page.js_errors == [] and phone_page.js_errors == []


def test_the_supervisor_edits_the_multipliers_and_sees_high_returns_flagged(
    studio_url, page, phone_page, make_table, supervisor, login, accessible, shot,
):
    table = make_table(name="Play chips", card_count_paytable="play", chip_unit=1)
    page.set_viewport_size(DESKTOP)
    login(page, studio_url, "supervisor")
    page.goto(f"{studio_url}/supervisor/")
    page.get_by_test_id(f"settings-{table.pk}").click()
    dialog = page.get_by_test_id("settings-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("settings-rtp").locator("tbody tr").first).to_be_visible()
    switch, fieldset = dialog.get_by_role("checkbox", name="Random multipliers"), dialog.get_by_test_id("settings-mult")
    expect(switch).not_to_be_checked()
    expect(fieldset).to_have_js_property("disabled", True)
    expect(dialog.get_by_label("Spots drawn each round")).to_be_hidden()
    expect(dialog.get_by_test_id("settings-rtp-warning")).to_be_hidden()

    # Switched on: a checkbox per spot offered, named as the player page names it.
    switch.check()
    expect(fieldset).to_have_js_property("disabled", False)
    spots = dialog.get_by_role("group", name="Spots that can be multiplied")
    expect(spots.get_by_role("checkbox", name="Andar", exact=True)).to_be_visible()
    spots.get_by_role("checkbox", name="Andar", exact=True).check()
    dialog.get_by_label("Spots drawn each round").fill("2")
    dialog.get_by_label("Multiplier 1").fill("7")
    dialog.get_by_label("Weight 1").fill("1")

    # Refused by the server (two drawn of one spot): its words at the fieldset, nothing saved.
    dialog.get_by_test_id("settings-save").click()
    error = dialog.get_by_test_id("settings-mult-error")
    expect(error).to_contain_text("draws")
    expect(fieldset).to_have_attribute("aria-invalid", "true")
    expect(fieldset).to_have_attribute("aria-describedby", re.compile(r"\bsettings-mult-error\b"))
    expect(dialog.locator("#settings-alert")).to_be_hidden()
    accessible(page, "settings dialog, a refusal")
    shot(page, "settings-refused", full_page=False)
    table.refresh_from_db()
    assert table.multipliers is None

    # A row with one of its numbers is the only thing the page checks itself; rows are added and
    # removed with the keyboard.
    dialog.get_by_test_id("settings-add").press("Enter")
    expect(dialog.get_by_label("Multiplier 2")).to_be_focused()
    page.keyboard.type("3")
    dialog.get_by_test_id("settings-save").click()
    expect(error).to_have_text("Row 2 needs both a multiplier and a weight (or neither).")
    expect(dialog.get_by_label("Weight 2")).to_have_attribute("aria-invalid", "true")
    expect(dialog.get_by_label("Weight 2")).to_be_focused()
    dialog.get_by_role("button", name="Remove row 2").press("Enter")
    expect(dialog.get_by_label("Multiplier 2")).to_have_count(0)
    expect(dialog.get_by_role("button", name="Remove row 1")).to_be_focused()

    # Saved: Andar always x7 returns far more than is staked: flagged.
    spots.get_by_role("checkbox", name="6–10 cards", exact=True).check()
    dialog.get_by_test_id("settings-save").click()
    expect(error).to_be_hidden()
    expect(fieldset).not_to_have_attribute("aria-invalid", "true")
    warning = dialog.get_by_test_id("settings-rtp-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Andar")
    table.refresh_from_db()
    assert table.multipliers == {"spots": ["andar", "count_6_10"], "draws": 2, "values": [[7, 1]]}
    expect(dialog.get_by_test_id("settings-rtp-andar")).to_contain_text("100 or more per 100 staked")
    expect(dialog.get_by_test_id("settings-rtp-bahar")).not_to_contain_text("100 or more")
    accessible(page, "settings dialog, returns flagged")
    warning.scroll_into_view_if_needed()
    shot(page, "settings-flagged", full_page=False)

    # Opened again: the fields hold the saved setting. Switched off: null saved, the flags gone.
    dialog.get_by_role("button", name="Close").click()
    page.get_by_test_id(f"settings-{table.pk}").click()
    expect(spots.get_by_role("checkbox", name="6–10 cards", exact=True)).to_be_checked()
    expect(dialog.get_by_label("Spots drawn each round")).to_have_value("2")
    expect(dialog.get_by_label("Multiplier 1")).to_have_value("7")
    switch.uncheck()
    expect(fieldset).to_have_js_property("disabled", True)
    dialog.get_by_test_id("settings-save").click()
    expect(warning).to_be_hidden()
    table.refresh_from_db()
    assert table.multipliers is None
    assert page.js_errors == []

    # On a phone: the example (the card count boxes, one a round, x2 to x10), saved.
    login(phone_page, studio_url, "supervisor")
    phone_page.goto(f"{studio_url}/supervisor/")
    phone_page.get_by_test_id(f"settings-{table.pk}").click()
    dialog = phone_page.get_by_test_id("settings-dialog")
    expect(dialog.get_by_test_id("settings-rtp").locator("tbody tr").first).to_be_visible()
    dialog.get_by_test_id("settings-preset").click()
    expect(dialog.get_by_role("checkbox", name="Random multipliers")).to_be_checked()
    expect(dialog.get_by_label("Weight 4")).to_have_value("2")
    accessible(phone_page, "settings dialog on a phone, the example")
    shot(phone_page, "settings-phone-example", full_page=False)
    dialog.get_by_test_id("settings-save").click()
    expect(dialog.get_by_test_id("settings-rtp-count_6_10")).to_contain_text("%")
    expect(phone_page.get_by_text(f"Settings of {table.name} saved.")).to_be_visible()
    table.refresh_from_db()
    assert table.multipliers["draws"] == 1 and table.multipliers["values"] == [[2, 70], [3, 20], [5, 8], [10, 2]]
    assert table.multipliers["spots"] and all(s.startswith("count_") for s in table.multipliers["spots"])
    dialog.get_by_role("button", name="Save").scroll_into_view_if_needed()
    shot(phone_page, "settings-phone-saved", full_page=False)
    assert phone_page.js_errors == []


def test_the_round_page_shows_the_draw_and_checks_the_seed(studio_url, staff, player, page, super_table, alice, login, accessible, shot):
    round_id = staff("POST", f"tables/{super_table.pk}/rounds/", json={"joker": JOKER})["id"]
    player("POST", f"rounds/{round_id}/bets/", json={"spot": "andar", "amount": "100"}, headers={"Idempotency-Key": "mult-round"})
    login(page, studio_url, "alice")
    page.goto(f"{studio_url}/rounds/{round_id}/")
    section = page.get_by_test_id("round-multipliers")
    expect(section.get_by_test_id("multipliers-commit")).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    expect(section).to_contain_text("The seed and the draw are revealed when betting closes.")
    expect(section.get_by_test_id("verify-seed")).to_have_count(0)

    staff("POST", f"rounds/{round_id}/close-betting/")
    for card in DEAL:
        staff("POST", f"rounds/{round_id}/cards/", json={"card": card})
    page.reload()
    detail = staff("GET", f"rounds/{round_id}/")
    expect(section.get_by_test_id("multipliers-seed")).to_have_text(detail["multipliers_seed"])
    expect(section.get_by_test_id("drawn-multipliers").locator("li")).to_have_count(3)
    expect(section.get_by_test_id("drawn-multipliers")).to_contain_text("×7 Andar")
    section.get_by_test_id("verify-seed").click()
    result = section.get_by_test_id("verify-seed-result")
    expect(result).to_have_attribute("data-ok", "true")
    expect(result).to_contain_text("Checked")
    expect(page.get_by_test_id("my-bets")).to_contain_text("×7")
    expect(page.get_by_test_id("settings-multipliers")).to_contain_text("3 spots a round")
    accessible(page, "round page with multipliers")
    shot(page, "round-page")
    assert page.js_errors == []
