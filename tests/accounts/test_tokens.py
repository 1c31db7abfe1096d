"""Tokens: each login gets its own, each lives TOKEN_TTL seconds (401 `token_expired` after), logout
revokes the one it is called with; every reader (the API, bets included, the WebSocket, the
pages) refuses an expired or revoked token; pages give each browser session its own token, revoked
when it logs out, and are never cached."""
from datetime import timedelta
from importlib import import_module
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Token
from accounts.tokens import token_issue

pytestmark = pytest.mark.django_db


def login(client, username, password, **extra):
    return client.post("/api/auth/token/", {"username": username, "password": password}, format="json", **extra)


def with_token(key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def expire(key):
    Token.objects.filter(key=key).update(expires_at=timezone.now() - timedelta(seconds=1))


def test_each_login_gets_its_own_token_and_both_work(dealer, anon_api):
    first, second = login(anon_api, "dealer", "pw-dealer"), login(anon_api, "dealer", "pw-dealer")
    assert first.status_code == second.status_code == 200
    assert first.json()["token"] != second.json()["token"]
    for response in (first, second):
        assert with_token(response.json()["token"]).get("/api/me/").json()["username"] == "dealer"


def test_a_token_lives_token_ttl_seconds(dealer, anon_api, settings):
    settings.TOKEN_TTL = 90
    before = timezone.now()
    body = login(anon_api, "dealer", "pw-dealer").json()
    token = Token.objects.get(key=body["token"])
    assert before + timedelta(seconds=90) <= token.expires_at <= timezone.now() + timedelta(seconds=90)
    assert body["expires_at"].startswith(token.expires_at.strftime("%Y-%m-%dT%H:%M:%S"))


def test_an_expired_token_is_a_401_token_expired_and_an_unknown_one_stays_invalid(dealer, anon_api):
    key = login(anon_api, "dealer", "pw-dealer").json()["token"]
    expire(key)
    response = with_token(key).get("/api/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "token_expired" and response["WWW-Authenticate"] == "Token"
    unknown = with_token("0" * 40).get("/api/me/")
    assert unknown.status_code == 401 and unknown.json()["code"] == "authentication_failed"
    assert unknown.json()["message"] == "Invalid token."


def test_logout_revokes_the_token_it_is_called_with_and_no_other(dealer, anon_api):
    kept, revoked = (login(anon_api, "dealer", "pw-dealer").json()["token"] for _ in range(2))
    assert with_token(revoked).post("/api/auth/logout/").status_code == 204
    after = with_token(revoked).get("/api/me/")
    assert after.status_code == 401 and after.json()["message"] == "Invalid token."
    assert with_token(revoked).post("/api/auth/logout/").status_code == 401
    assert with_token(kept).get("/api/me/").status_code == 200
    assert anon_api.post("/api/auth/logout/").status_code == 401


def test_a_password_change_revokes_the_users_tokens(dealer, anon_api):
    from accounts.services import COMMAND, user_password_set

    key = login(anon_api, "dealer", "pw-dealer").json()["token"]
    user_password_set(actor=None, source=COMMAND, user=dealer, password="another-pw")
    assert with_token(key).get("/api/me/").status_code == 401


@pytest.mark.parametrize("how", ["expired", "revoked"])
def test_a_bet_with_an_expired_or_revoked_token_is_401(how, dealer, alice, make_table):
    from bets.models import Bet
    from tables.services import round_open

    rnd = round_open(table_id=make_table(betting_seconds=600).pk, joker="KS", dealer=dealer)
    key = token_issue(user=alice).key
    api = with_token(key)
    bet = {"spot": "andar", "amount": "10"}
    assert api.post(f"/api/rounds/{rnd.pk}/bets/", bet, format="json").status_code == 201
    expire(key) if how == "expired" else Token.objects.filter(key=key).delete()
    response = api.post(f"/api/rounds/{rnd.pk}/bets/", bet, format="json")
    assert response.status_code == 401 and Bet.objects.filter(player=alice).count() == 1
    assert response.json()["code"] == ("token_expired" if how == "expired" else "authentication_failed")


def test_the_carried_drf_tokens_keep_working_until_their_fresh_expiry(dealer, settings):
    """The data migration: a database with DRF's authtoken table keeps its clients' keys."""
    carry = import_module("accounts.migrations.0002_carry_drf_tokens").carry
    with connection.cursor() as cur:
        cur.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, user_id integer NOT NULL, created timestamp NULL)")
        cur.execute("INSERT INTO authtoken_token VALUES (%s, %s, %s)", ["a" * 40, dealer.pk, None])
    settings.TOKEN_TTL = 3600
    carry(apps, SimpleNamespace(connection=connection))
    carry(apps, SimpleNamespace(connection=connection))  # a second run adds nothing
    token = Token.objects.get(key="a" * 40)
    assert token.user_id == dealer.pk and timezone.now() + timedelta(minutes=59) < token.expires_at
    assert with_token("a" * 40).get("/api/me/").json()["username"] == "dealer"


# --- pages ----------------------------------------------------------------------------------------

def page_token_of(client, url="/console/") -> str:
    response = client.get(url)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    return response.context["token"]


def test_each_browser_session_has_its_own_page_token_revoked_when_it_logs_out(dealer):
    one, two = Client(), Client()
    one.force_login(dealer)
    two.force_login(dealer)
    key_one, key_two = page_token_of(one), page_token_of(two)
    assert key_one != key_two and page_token_of(one) == key_one  # kept for the session
    assert with_token(key_one).get("/api/me/").status_code == 200
    assert one.post("/logout/").status_code == 302
    assert with_token(key_one).get("/api/me/").status_code == 401
    assert with_token(key_two).get("/api/me/").status_code == 200


def test_logging_a_session_out_through_the_api_revokes_its_page_token(dealer):
    client = Client(enforce_csrf_checks=False)
    client.force_login(dealer)
    key = page_token_of(client)
    assert client.post("/api/auth/logout/").status_code == 204
    assert with_token(key).get("/api/me/").status_code == 401
    assert client.get("/console/").status_code == 302  # the session is gone too


@pytest.mark.parametrize("url", ["/console/", "/supervisor/", "/matches/", "/play/tables/{table}/"])
def test_every_page_that_embeds_a_token_is_not_stored(url, supervisor, table):
    client = Client()
    client.force_login(supervisor)
    response = client.get(url.format(table=table.pk))
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]


def test_a_page_token_is_renewed_once_half_its_life_is_gone(dealer):
    client = Client()
    client.force_login(dealer)
    key = page_token_of(client)
    Token.objects.filter(key=key).update(expires_at=timezone.now() + timedelta(seconds=60))
    renewed = page_token_of(client)
    assert renewed != key and Token.objects.get(key=renewed).expires_at > timezone.now() + timedelta(hours=1)


# --- the WebSocket ------------------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("how", ["expired", "revoked", "valid"])
async def test_an_expired_or_revoked_token_watches_the_stream_as_anyone_and_a_valid_one_as_its_user(how, dealer, dealer_api, alice, alice_api, table):
    from tests.stream.conftest import Watcher, api_post, in_thread

    def spoiled_token():
        key = token_issue(user=alice).key
        if how == "expired":
            expire(key)
        elif how == "revoked":
            Token.objects.filter(key=key).delete()
        return key

    watcher = Watcher(table.pk, token=await in_thread(spoiled_token)())
    await watcher.connect()
    try:
        def round_with_a_bet():
            round_id = api_post(dealer_api, f"/api/tables/{table.pk}/rounds/", {"joker": "KS"})["id"]
            api_post(alice_api, f"/api/rounds/{round_id}/bets/", {"spot": "andar", "amount": "50"})
            api_post(dealer_api, f"/api/rounds/{round_id}/close-betting/", status=200)

        await in_thread(round_with_a_bet)()
        received = await watcher.until("betting.closed")
    finally:
        await watcher.close()
    personal = ["bet.placed"] if how == "valid" else []  # alice's own event only with her valid token
    assert [m["type"] for m in received] == ["round.opened", *personal, "betting.closed"]


def test_deactivating_a_user_revokes_their_tokens_for_good(dealer, anon_api):
    from accounts.services import COMMAND, user_update

    key = login(anon_api, "dealer", "pw-dealer").json()["token"]
    user_update(actor=None, source=COMMAND, user=dealer, is_active=False)
    user_update(actor=None, source=COMMAND, user=dealer, is_active=True)
    assert with_token(key).get("/api/me/").status_code == 401


def test_a_change_of_role_revokes_the_users_tokens_and_no_change_keeps_them(dealer, anon_api):
    from accounts.services import COMMAND, role_group, user_update

    key = login(anon_api, "dealer", "pw-dealer").json()["token"]
    assert user_update(actor=None, source=COMMAND, user=dealer, is_staff=False, groups=[role_group("dealer")]) == []
    assert with_token(key).get("/api/me/").status_code == 200
    user_update(actor=None, source=COMMAND, user=dealer, groups=[role_group("supervisor")])
    assert with_token(key).get("/api/me/").status_code == 401
