"""The player page and the rules page in each of the studio's languages, as a player whose browser
asks for it: the page says which language it is in, its words are that language's (its own script,
not English), it passes axe, and a screenshot of each is kept. Against the real ASGI server, so the
player page is live."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests.servers import studio_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A letter only that language's text has: its words are on the page, not English left untranslated.
SCRIPTS = {
    "hi": re.compile(r"[\u0900-\u097F]"), "ne": re.compile(r"[\u0900-\u097F]"),
    "ja": re.compile(r"[\u3040-\u30FF]"), "vi": re.compile(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.I),
}
ENGLISH = ["Recent results", "Statistics", "Waiting for the dealer", "Rules and paytable", "Log in"]


@pytest.fixture(scope="module")
def studio_url(django_db_setup, request):
    folder = Path(request.config.rootpath) / "test-artifacts" / "test_languages-server"
    with studio_server(log_dir=folder, name="languages") as url:
        yield url


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
