"""The studio's own 404 page in a real browser: in the site's look, in the page's language, with a
way back, the favicon linked, and axe-clean at desktop and phone sizes."""
import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_missing_page_is_the_studios_own(request, size, live_server, settings, shot, accessible):
    settings.DEBUG = True  # Django's debug page would show here: the studio's own does instead
    page = request.getfixturevalue("page" if size == "desktop" else "phone_page")
    response = page.goto(live_server.url + "/no/such/table/")
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    expect(page.get_by_role("link", name="Back to the studio")).to_have_attribute("href", "/")
    assert page.locator("link[rel=icon]").get_attribute("href").endswith(".svg")
    accessible(page, "the 404 page")
    shot(page, "404")

    page.goto(live_server.url + "/no/such/table/?lang=ja")
    expect(page.get_by_role("heading", level=1)).to_have_text("ページが見つかりません")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    accessible(page, "the 404 page in Japanese")
    shot(page, "404-ja")
    assert page.js_errors == []
