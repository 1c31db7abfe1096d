"""What calls the floor supervisor's attention, in a real Chromium against the real server: an
incident the dealer raises through the API while the console is open, and a table that goes quiet,
raise an alarm (the tile flashes with its reason written on it, the tab's title counts it, a live
region says it, a tone is asked of the Web Audio API unless the head's toggle mutes it); what was
already there when the page loaded raises none; acknowledging clears it. axe in each state;
screenshots at 1280x800, 1366x768 and on a phone."""
import re
from datetime import timedelta

import pytest
from django.utils.timezone import now as timezone_now
from playwright.sync_api import expect

from tables.models import DealtCard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
LAPTOP = {"width": 1366, "height": 768}
TITLE = "Supervisor console · Andar Bahar studio"


def betting(staff, table) -> int:
    return staff("POST", f"tables/{table.pk}/rounds/", json={"joker": "KS"})["id"]


def raise_incident(staff, rid: int, kind: str = "equipment") -> int:
    return staff("POST", f"rounds/{rid}/incidents/", json={"kind": kind, "notes": "Called from the floor"})["id"]


def test_new_incidents_and_a_quiet_table_call_for_attention_until_acknowledged(
        studio_url, page, make_table, staff, supervisor, login, shot, accessible):
    expect.set_options(timeout=15_000)
    page.set_viewport_size(DESKTOP)
    old, salon, garden, quiet = (make_table(name=n, betting_seconds=600) for n in ("Old", "Salon", "Garden", "Quiet"))
    before = raise_incident(staff, betting(staff, old))  # already open when the console loads: no alarm
    rounds = {t.pk: betting(staff, t) for t in (salon, garden, quiet)}
    staff("POST", f"rounds/{rounds[quiet.pk]}/close-betting/")
    staff("POST", f"rounds/{rounds[quiet.pk]}/cards/", json={"card": "2C"})
    login(page, studio_url, "supervisor")
    page.goto(studio_url + "/supervisor/")
    tile = lambda t: page.locator(f'.tile[data-table="{t.pk}"]')  # noqa: E731
    mute = page.locator("#alarm-mute")
    expect(tile(old)).to_have_attribute("data-incident", "open")
    expect(page.locator("#ig-live")).to_have_attribute("data-state", "live")
    expect(tile(old)).not_to_have_attribute("data-alarm", "on")
    assert page.title() == TITLE
    expect(mute).to_have_attribute("aria-pressed", "false")

    incident = raise_incident(staff, rounds[salon.pk])  # the dealer calls for the supervisor
    expect(tile(salon)).to_have_attribute("data-alarm", "on")
    expect(tile(salon).locator(".alarm-box")).to_contain_text(f"Incident #{incident} · Equipment")
    expect(page).to_have_title(f"(1) {TITLE}")
    expect(page.locator("#alarm-live")).to_have_text(f"Salon: Incident #{incident} · Equipment")
    expect(mute).to_have_attribute("data-sounds", "1")  # one tone asked for
    expect(tile(old)).not_to_have_attribute("data-alarm", "on")
    # The flash: once a second, ten times (never more than three a second); with reduced motion (the
    # tests' pages ask for it) a steady outline instead.
    anim = "el => { const s = getComputedStyle(el); return [s.animationName, s.animationDuration, s.animationIterationCount, s.outlineStyle]; }"
    assert tile(salon).evaluate(anim)[::3] == ["none", "solid"]
    page.emulate_media(reduced_motion="no-preference")
    assert tile(salon).evaluate(anim) == ["attention", "1s", "10", "solid"]
    page.emulate_media(reduced_motion="reduce")
    accessible(page, "an incident's alarm")
    shot(page, "alarm-1280x800", full_page=False)

    # Muted (and remembered): the next alarm flashes and counts, and asks for no tone.
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("localStorage.getItem('sv-alarm-muted')") == "1"
    other = raise_incident(staff, rounds[garden.pk], kind="stream")
    expect(tile(garden)).to_have_attribute("data-alarm", "on")
    expect(page).to_have_title(f"(2) {TITLE}")
    # A table gone quiet: its card is now 45 s old, longer than a person-dealt table's 20 s.
    DealtCard.objects.filter(round_id=rounds[quiet.pk]).update(dealt_at=timezone_now() - timedelta(seconds=45))
    expect(tile(quiet)).to_have_attribute("data-alarm", "on")
    expect(tile(quiet).locator(".alarm-box")).to_contain_text(f"Quiet table: no card in round #{rounds[quiet.pk]} for longer than expected")
    expect(page).to_have_title(f"(3) {TITLE}")
    expect(mute).to_have_attribute("data-sounds", "1")
    page.set_viewport_size(LAPTOP)
    accessible(page, "three alarms, muted")
    shot(page, "alarms-1366x768", full_page=False)

    # Acknowledged on the tile, or by opening the incident: the flash and the count go.
    tile(salon).get_by_role("button", name="Acknowledge").click()
    expect(tile(salon)).not_to_have_attribute("data-alarm", "on")
    expect(tile(salon).locator(".alarm-box")).to_have_count(0)
    expect(page).to_have_title(f"(2) {TITLE}")
    tile(garden).locator(".tile-inc").click()
    expect(page.locator("#detail-title")).to_contain_text(f"#{other}")
    expect(tile(garden)).not_to_have_attribute("data-alarm", "on")
    tile(quiet).get_by_role("button", name="Acknowledge").click()
    expect(page).to_have_title(TITLE)
    accessible(page, "every alarm acknowledged")

    # A reload: the mute is remembered, and nothing open is new.
    page.reload()
    expect(tile(salon)).to_have_attribute("data-incident", "open")
    expect(mute).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".tile[data-alarm=on]")).to_have_count(0)
    assert page.title() == TITLE and before
    assert page.js_errors == [] and page.csp_violations == []


def test_an_alarm_on_a_phone(studio_url, phone_page, make_table, staff, supervisor, login, shot, accessible):
    page = phone_page
    expect.set_options(timeout=15_000)
    table = make_table(name="Salon", betting_seconds=600)
    rid = betting(staff, table)
    login(page, studio_url, "supervisor")
    page.goto(studio_url + "/supervisor/")
    tile = page.locator(f'.tile[data-table="{table.pk}"]')
    expect(tile).to_have_attribute("data-status", "betting")
    raise_incident(staff, rid, kind="misread")
    expect(tile).to_have_attribute("data-alarm", "on")
    expect(page).to_have_title(re.compile(r"^\(1\) "))
    accessible(page, "an alarm on a phone")
    shot(page, "phone-alarm", full_page=False)
    tile.get_by_role("button", name="Acknowledge").click()
    expect(page).to_have_title(TITLE)
    assert page.js_errors == []
