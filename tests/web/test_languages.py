"""Which language a page is in: ?lang= first (and remembered), then the switcher's cookie, then the
browser's Accept-Language; English otherwise. The API's messages stay English whatever is chosen.
What depends on the language is addressed by it or varies on what decides it: each language's
script catalogue has a URL of its own, cached for ever; the pages vary on Cookie and
Accept-Language and are not stored."""
import hashlib
import json
import re

import pytest
from django.conf import settings
from django.test import Client
from django.utils.translation.trans_real import DjangoTranslation

from tables.services import round_open

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


def catalogue_src(response) -> str:
    return re.search(r'<script src="(/jsi18n/[^"]+)"', response.content.decode())[1]


def test_each_language_has_its_own_catalogue_url_cached_for_ever():
    """The scripts' words are addressed by their language and their digest: a browser that kept the
    English catalogue asks for the Nepali one by another URL once the page is Nepali."""
    client = Client()
    urls = {lang: catalogue_src(client.get(f"/login/?lang={lang}")) for lang, _name in settings.LANGUAGES}
    assert len(set(urls.values())) == len(urls)
    for lang, url in urls.items():
        assert re.fullmatch(rf"/jsi18n/{lang}/[0-9a-f]{{16}}/", url), url
        response = Client().get(url, HTTP_ACCEPT_LANGUAGE="ja", HTTP_COOKIE=f"{settings.LANGUAGE_COOKIE_NAME}=vi")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/javascript")
        assert response["Cache-Control"] == "public, max-age=31536000, immutable"
        assert response["Content-Language"] == lang
        assert "Vary" not in response and "Last-Modified" not in response  # neither cookie nor header changes it
        assert url.split("/")[3] == hashlib.sha256(response.content).hexdigest()[:16]  # the URL names these bytes
    words = {lang: Client().get(url).content.decode() for lang, url in urls.items()}
    for lang in ("hi", "ne", "vi", "ja"):
        said = json.dumps(DjangoTranslation(lang, domain="djangojs").gettext("Place your bets"))
        assert said != '"Place your bets"' and [other for other in words if said in words[other]] == [lang]
    assert '"THOUSAND_SEPARATOR": "."' in words["vi"] and '"NUMBER_GROUPING": [' in words["hi"]


def test_a_catalogue_url_of_another_release_is_sent_on_and_an_unknown_language_is_not_found():
    client = Client()
    current = catalogue_src(client.get("/login/?lang=hi"))
    response = client.get("/jsi18n/hi/0123456789abcdef/")
    assert response.status_code == 302 and response["Location"] == current
    assert "immutable" not in response.get("Cache-Control", "")
    assert client.get("/jsi18n/xx/0123456789abcdef/").status_code == 404


def test_pages_vary_on_what_chooses_their_language_and_are_not_stored(table, alice, dealer, supervisor):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    pages = [("/login/", None), ("/", alice), ("/", None), ("/console/", dealer), ("/supervisor/", supervisor),
             ("/supervisor/operators/", supervisor), (f"/play/tables/{table.pk}/", None), (f"/play/tables/{table.pk}/", alice),
             (f"/play/tables/{table.pk}/rules/", None), ("/matches/", alice), (f"/rounds/{rnd.pk}/", supervisor),
             ("/console/", alice)]
    for url, user in pages:
        client = Client()
        if user is not None:
            client.force_login(user)
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="hi")
        assert response.status_code in (200, 302, 403), url
        vary = {v.strip().lower() for v in response.get("Vary", "").split(",")}
        assert {"cookie", "accept-language"} <= vary, (url, response.get("Vary"))
        assert "no-store" in response.get("Cache-Control", ""), (url, response.get("Cache-Control"))


def test_api_answers_do_not_vary_by_language(anon_api):
    response = anon_api.post("/api/auth/token/", {}, format="json", HTTP_ACCEPT_LANGUAGE="hi")
    assert response.status_code == 400
    assert "Accept-Language" not in response.get("Vary", "")
    assert all(text.isascii() for errors in response.json()["fields"].values() for text in errors)
