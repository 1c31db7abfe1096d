"""The pages in each of the studio's languages. The player page and the rules page as a player whose
browser asks for a language: the page says which language it is in, its words are that language's
(its own script, not English), it passes axe, and a screenshot of each is kept. Then every page
with the language switched back and forth, by `?lang=` and by the switcher, in one browser that
keeps what it has cached: each time the words the page's scripts draw are the new language's, and
money is grouped as the server groups it (Hindi and Nepali 12,35,467.50, which Debian's Chromium,
without Nepali locale data, would write 1,235,467.50 through Intl). Against the real ASGI server, so
the pages are live."""
from __future__ import annotations

import re
from functools import cache

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import DjangoTranslation
from playwright.sync_api import expect

from matches.services import match_create, match_join
from tables.models import Round
from tests.conftest import make_user
from virtual import dealer as virtual

from .conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A letter only that language's text has: its words are on the page, not English left untranslated.
SCRIPTS = {
    "hi": re.compile(r"[\u0900-\u097F]"), "ne": re.compile(r"[\u0900-\u097F]"),
    "ja": re.compile(r"[\u3040-\u30FF]"), "vi": re.compile(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.I),
}
ENGLISH = ["Recent results", "Statistics", "Waiting for the dealer", "Rules and paytable", "Log in"]



@pytest.fixture
def table(make_table):
    return make_table(name="Lotus")


@pytest.mark.parametrize("lang", [code for code, _name in settings.LANGUAGES if code != "en"])
def test_player_and_rules_pages_in_the_players_language(browser, studio_url, table, lang, accessible, shot):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale=lang,
                                  extra_http_headers={"Accept-Language": f"{lang};q=1, en;q=0.1"})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.csp_violations = []
    page.on("console", lambda msg: page.csp_violations.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text else None)
    try:
        page.goto(f"{studio_url}/play/tables/{table.pk}/")
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
        main = page.locator("main")
        expect(main).to_contain_text(SCRIPTS[lang])
        text = main.inner_text()
        assert not [word for word in ENGLISH if word in text], f"English left on the {lang} player page"
        accessible(page, f"the player page in {lang}")
        shot(page, f"play-{lang}")

        page.locator("#rules-link").click()
        expect(page).to_have_url(re.compile(rf"/play/tables/{table.pk}/rules/"))
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("h1")).to_contain_text(SCRIPTS[lang])
        text = page.locator("main").inner_text()
        assert not [word for word in ENGLISH if word in text], f"English left on the {lang} rules page"
        accessible(page, f"the rules page in {lang}")
        shot(page, f"rules-{lang}")
        assert errors == []
    finally:
        context.close()


def test_the_switcher_changes_the_language_and_remembers_it(page, studio_url, table):
    page.goto(f"{studio_url}/play/tables/{table.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.get_by_test_id("language").select_option("vi")
    expect(page.locator("html")).to_have_attribute("lang", "vi")
    page.goto(f"{studio_url}/play/tables/{table.pk}/rules/")
    expect(page.locator("html")).to_have_attribute("lang", "vi")
    page.goto(f"{studio_url}/play/tables/{table.pk}/rules/?lang=ja")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    page.goto(f"{studio_url}/play/tables/{table.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", "ja")


@pytest.mark.parametrize("lang", ["en", "hi"])
def test_login_and_refusal_pages_are_accessible(page, live_server, dealer, login_by_form, accessible, shot, lang):
    page.goto(f"{live_server.url}/login/?lang={lang}")
    accessible(page, f"the login page ({lang})")
    page.fill("input[name=username]", "dealer")
    page.fill("input[name=password]", "wrong")
    page.locator("main button[type=submit]").click()
    expect(page.get_by_role("alert")).to_be_visible()
    accessible(page, f"a refused login ({lang})")
    shot(page, f"login-refused-{lang}", full_page=False)
    login_by_form(page, live_server.url, "dealer", "pw-dealer")
    page.goto(f"{live_server.url}/supervisor/")
    expect(page.locator("h1")).to_be_visible()
    accessible(page, f"the refusal page ({lang})")


# ---- every page, the language switched back and forth ----------------------------------------------

BALANCE = "1235467.50"
GROUPED = {"en": "1,235,467.50", "hi": "12,35,467.50", "ne": "12,35,467.50", "vi": "1.235.467,50", "ja": "1,235,467.50"}
THOUSAND = {"en": "1,000", "hi": "1,000", "ne": "1,000", "vi": "1.000", "ja": "1,000"}


@cache
def _scripts_catalogue(lang: str) -> DjangoTranslation:
    return DjangoTranslation(lang, domain="djangojs")


def said(lang: str, text: str, context: str | None = None) -> str:
    """What the pages' scripts write for `text` in `lang` (the djangojs catalogue; English is the text)."""
    if lang == settings.LANGUAGE_CODE:
        return text
    words = _scripts_catalogue(lang)
    return words.pgettext(context, text) if context else words.gettext(text)


def fill(text: str, **values) -> str:
    """static/js/i18n.js's format()."""
    return re.sub(r"%\((\w+)\)s", lambda m: str(values[m[1]]), text)


def switch(page, url: str, lang: str, how: str) -> None:
    """To `lang` by the page's switcher (a POST that remembers it and comes back to the page) or by
    `?lang=` in the page's URL."""
    if how == "switcher":
        with page.expect_navigation():
            page.get_by_test_id("language").select_option(lang)
    else:
        page.goto(f"{url}?lang={lang}")
    expect(page.locator("html")).to_have_attribute("lang", lang)


def in_language(page, lang: str, drawn) -> None:
    """The page is in `lang`: what its scripts drew (`drawn(lang)` waits for it), and the words its
    scripts hold (window.django, the catalogue the page loaded)."""
    drawn(lang)
    assert page.evaluate("() => django.gettext('Place your bets')") == said(lang, "Place your bets")


def visit(page, url: str, steps, drawn, shot, name: str, accessible=None) -> None:
    """Open `url` in the language the browser has, then each (language, how) of `steps`."""
    page.goto(url)
    lang = page.locator("html").get_attribute("lang")
    in_language(page, lang, drawn)
    for lang, how in steps:
        switch(page, url, lang, how)
        in_language(page, lang, drawn)
        shot(page, f"{name}-{lang}", full_page=False)
    if accessible is not None:
        accessible(page, f"the {name} page in {lang}")


def test_a_player_switches_language_back_and_forth_on_each_of_their_pages(page, studio_url, table, accessible, shot):
    alice = make_user("alice", "player", chips=BALANCE)
    match = match_create(creator=alice)
    match_join(code=match.code, user=make_user("bob", "player"))
    login(page, studio_url, "alice")

    def player_page(lang):
        expect(page.locator("#phase")).to_have_text(said(lang, "Waiting for the dealer"))
        expect(page.get_by_test_id("balance")).to_have_text(GROUPED[lang])

    play = f"{studio_url}/play/tables/{table.pk}/"
    visit(page, play, [("hi", "query"), ("ne", "switcher"), ("en", "query"), ("hi", "switcher")], player_page, shot, "play",
          accessible)

    def lobby_page(lang):
        row = page.get_by_test_id(f"lobby-table-{table.pk}")
        expect(row.get_by_test_id("phase")).to_have_text(said(lang, "Waiting for the first round"))
        expect(row.get_by_test_id("limits")).to_have_text(
            fill(said(lang, "%(range)s chips"), range=fill(said(lang, "%(min)s–%(max)s", "a range of stakes"), min=10, max=500)))

    visit(page, f"{studio_url}/play/", [("ja", "query"), ("vi", "switcher")], lobby_page, shot, "lobby", accessible)

    def rules_page(lang):
        with translation.override(lang):
            expect(page.locator("h1")).to_have_text(translation.gettext("Rules of %(name)s") % {"name": table.name})

    visit(page, f"{play}rules/", [("vi", "switcher"), ("ja", "query")], rules_page, shot, "rules")

    def matches_page(lang):
        mine = page.locator(f'#mine li[data-code="{match.code}"]')
        expect(mine.get_by_test_id("match-status")).to_have_text(said(lang, "Lobby"))
        expect(mine.locator("small")).to_have_text(
            fill(said(lang, "%(names)s and %(last)s"), names=said(lang, "you", "the reader"), last="bob"))

    visit(page, f"{studio_url}/matches/", [("ne", "query"), ("en", "switcher")], matches_page, shot, "matches", accessible)

    def match_page(lang):
        expect(page.locator("#lobby-count")).to_have_text(fill(said(lang, "Players (%(n)s of %(max)s)"), n=2, max=6))
        expect(page.locator("#lobby-settings")).to_contain_text(
            fill(said(lang, "Play chips: everyone starts with %(chips)s"), chips=THOUSAND[lang]))

    visit(page, f"{studio_url}/matches/{match.pk}/", [("vi", "switcher"), ("hi", "query")], match_page, shot, "match",
          accessible)
    assert page.js_errors == [] and page.csp_violations == []


def finished_virtual_round(make_table) -> Round:
    """A virtual dealer's round dealt to its end in this process (its proof is on its page)."""
    table = make_table(name="Virtual", virtual_dealer=True, betting_seconds=600, deal_interval_ms=50, round_gap_ms=600_000)
    virtual.tick(table_id=table.pk)
    rnd = Round.objects.get(table=table)
    Round.objects.filter(pk=rnd.pk).update(closes_at=rnd.opened_at)  # the countdown ran out
    while rnd.status not in (Round.Status.FINISHED, Round.Status.SETTLED):
        virtual.tick(table_id=table.pk)
        rnd.refresh_from_db()
    return rnd


def test_staff_switch_language_back_and_forth_on_each_of_their_pages(page, studio_url, table, make_table, supervisor,
                                                                     accessible, shot):
    rnd = finished_virtual_round(make_table)
    login(page, studio_url, "supervisor")

    def console(lang):
        expect(page.locator("#status-pill")).to_have_text(said(lang, "Waiting for joker"))

    page.goto(f"{studio_url}/console/")
    page.select_option("#table-select", label=table.name)  # remembered by the console
    visit(page, f"{studio_url}/console/", [("ja", "query"), ("hi", "switcher")], console, shot, "console", accessible)

    def supervisor_page(lang):
        expect(page.locator("#open-list")).to_contain_text(said(lang, "No open incidents."))

    visit(page, f"{studio_url}/supervisor/", [("vi", "query"), ("ne", "switcher")], supervisor_page, shot, "supervisor",
          accessible)

    def round_page(lang):
        page.get_by_test_id("verify").click()
        expect(page.get_by_test_id("verify-result")).to_contain_text(said(lang, "Verified") + ": ")

    visit(page, f"{studio_url}/rounds/{rnd.pk}/", [("en", "switcher"), ("hi", "query"), ("ja", "switcher")], round_page, shot,
          "round", accessible)
    assert page.js_errors == [] and page.csp_violations == []
