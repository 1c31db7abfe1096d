"""Which language a page is in: ?lang= first (and remembered), then the switcher's cookie, then the
browser's Accept-Language; English otherwise. The API's messages stay English whatever is chosen."""
import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db


def html_lang(response) -> str:
    text = response.content.decode()
    start = text.index("<html lang=\"") + len("<html lang=\"")
    return text[start:text.index('"', start)]


def test_accept_language_chooses_the_page_language():
    assert html_lang(Client().get("/login/", HTTP_ACCEPT_LANGUAGE="hi-IN,hi;q=0.9,en;q=0.5")) == "hi"
    assert html_lang(Client().get("/login/", HTTP_ACCEPT_LANGUAGE="vi")) == "vi"
    assert html_lang(Client().get("/login/", HTTP_ACCEPT_LANGUAGE="fr-FR")) == "en"  # not offered


def test_query_parameter_wins_and_is_remembered():
    client = Client()
    response = client.get("/login/?lang=ja", HTTP_ACCEPT_LANGUAGE="hi")
    assert html_lang(response) == "ja"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ja"
    assert html_lang(client.get("/login/", HTTP_ACCEPT_LANGUAGE="hi")) == "ja"  # the cookie, next time


def test_unknown_language_in_the_query_is_ignored():
    response = Client().get("/login/?lang=xx", HTTP_ACCEPT_LANGUAGE="ne")
    assert html_lang(response) == "ne"
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies


def test_the_switcher_remembers_the_choice():
    client = Client()
    response = client.post("/i18n/setlang/", {"language": "vi", "next": "/login/"})
    assert response.status_code == 302 and response["Location"] == "/login/"
    assert html_lang(client.get("/login/", HTTP_ACCEPT_LANGUAGE="ja")) == "vi"


def test_login_page_is_translated():
    text = Client().get("/login/?lang=hi").content.decode()
    assert "लॉग इन" in text
    assert "Wrong username" not in text


def test_api_messages_stay_english(alice_api):
    response = alice_api.get("/api/rounds/999999/", HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found" and response.json()["message"].isascii()


def test_javascript_catalogue_follows_the_language():
    client = Client()
    assert "django" in client.get("/jsi18n/?lang=ne").content.decode()
    response = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="ja")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/javascript")


def test_api_answers_do_not_vary_by_language(anon_api):
    response = anon_api.post("/api/auth/token/", {}, format="json", HTTP_ACCEPT_LANGUAGE="hi")
    assert response.status_code == 400
    assert "Accept-Language" not in response.get("Vary", "")
    assert all(text.isascii() for errors in response.json()["fields"].values() for text in errors)
