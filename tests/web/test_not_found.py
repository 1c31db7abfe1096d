"""Players never see Django's debug pages: a path that names no page is the studio's own 404, in the
page's language, with DEBUG on or off; an API path keeps its JSON 404. The favicon is served."""
import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [True, False])
def test_a_missing_page_is_the_studios_own_404_in_every_mode(client, settings, debug):
    settings.DEBUG = debug
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    body = response.content.decode()
    assert "Page not found" in body and 'href="/"' in body
    assert "URLconf" not in body and "Django" not in body  # not the technical page


@pytest.mark.parametrize("debug", [True, False])
def test_a_page_view_404_is_the_studios_too(client, settings, debug, supervisor):
    settings.DEBUG = debug
    client.force_login(supervisor)
    response = client.get("/rounds/999999/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


@pytest.mark.parametrize("debug", [True, False])
def test_the_404_is_in_the_pages_language(client, settings, debug):
    settings.DEBUG = debug
    response = client.get("/no/such/page/?lang=ja")
    assert response.status_code == 404
    assert '<html lang="ja">' in response.content.decode()
    assert "Page not found" not in response.content.decode()


@pytest.mark.parametrize("debug", [True, False])
def test_an_api_path_keeps_its_json_404(client, settings, debug):
    settings.DEBUG = debug
    response = client.get("/api/no-such-endpoint/")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_the_favicon_is_linked_and_served(client):
    page = client.get("/login/").content.decode()
    assert 'rel="icon"' in page and "favicon" in page
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response["Location"].endswith(".svg")
