"""A player's socket lives as long as the credential it connected with: revoked (a logout, a password
set, a deactivation, a change of role), logged out or expired, the socket is closed with 4401 and
hears no personal message published after the revocation; the same player's sockets of other,
still valid, credentials and everyone else's stay open. On the real ASGI app (web.asgi), the
revocations sent as production sends them (after commit, through Redis)."""
from decimal import Decimal

import pytest
from channels.routing import URLRouter
from channels.sessions import CookieMiddleware
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.asgi_auth import authenticate
from accounts.services import COMMAND, role_group, user_password_set, user_update
from accounts.tokens import token_issue, token_revoke
from tables.routing import websocket_urlpatterns

from .conftest import ORIGIN, TIMEOUT, Watcher, WebsocketCommunicator, api_post, in_thread

pytestmark = pytest.mark.django_db(transaction=True)

UNAUTHORIZED = 4401


def _keys(user, n: int) -> list[str]:
    return [token_issue(user=user).key for _ in range(n)]


def _with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token " + key)
    return client


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _cookie(client: Client) -> str:
    return f"sessionid={client.cookies['sessionid'].value}"


def _page_token(client: Client, table_id: int) -> str:
    response = client.get(f"/play/tables/{table_id}/")
    assert response.status_code == 200
    return response.context["token"]


def _open_round(dealer_api, table_id: int) -> int:
    return api_post(dealer_api, f"/api/tables/{table_id}/rounds/", {"joker": "KS"})["id"]


def _bet(api, round_id: int, amount: str = "50") -> dict:
    return api_post(api, f"/api/rounds/{round_id}/bets/", {"spot": "andar", "amount": amount})


async def _connected(*watchers: Watcher) -> None:
    for w in watchers:
        await w.connect()


async def _close_all(*watchers: Watcher) -> None:
    for w in watchers:
        await w.close()


def _personal(watcher: Watcher) -> list[str]:
    return [m["type"] for m in watcher.messages if "seq" not in m and m["type"] != "snapshot"]


async def test_logout_closes_the_sockets_of_that_token_and_a_bet_right_after_never_reaches_them(dealer_api, alice, table):
    revoked, kept = await in_thread(_keys)(alice, 2)
    gone, gone_too, stays, anyone = (Watcher(table.pk, token=revoked), Watcher(table.pk, token=revoked),
                                     Watcher(table.pk, token=kept), Watcher(table.pk))
    await _connected(gone, gone_too, stays, anyone)
    try:
        def logout_then_bet():
            round_id = _open_round(dealer_api, table.pk)
            assert _with_token(revoked).post("/api/auth/logout/").status_code == 204
            assert _with_token(revoked).get("/api/me/").status_code == 401
            return round_id, _bet(_with_token(kept), round_id)  # at once: no waiting for the close

        round_id, bet = await in_thread(logout_then_bet)()
        assert await gone.until_closed() == UNAUTHORIZED
        assert await gone_too.until_closed() == UNAUTHORIZED
        placed = (await stays.until("bet.placed"))[-1]
        await in_thread(api_post)(dealer_api, f"/api/rounds/{round_id}/close-betting/", None, 200)
        await stays.until("betting.closed")
        await anyone.until("betting.closed")
    finally:
        await _close_all(gone, gone_too, stays, anyone)
    assert _personal(gone) == _personal(gone_too) == []
    assert (placed["bet"], Decimal(placed["balance"])) == (bet["id"], 950)
    assert _personal(anyone) == []


@pytest.mark.parametrize("change", ["password", "deactivation", "role"])
async def test_a_password_set_a_deactivation_or_a_role_change_closes_every_socket_of_the_user(change, dealer_api, alice, bob, bob_api, table):
    keys = await in_thread(_keys)(alice, 2)
    session = await in_thread(_logged_in)(alice)
    alices = [Watcher(table.pk, token=keys[0]), Watcher(table.pk, token=keys[1]), Watcher(table.pk, cookie=_cookie(session))]
    bobs, anyone = Watcher(table.pk, token=(await in_thread(_keys)(bob, 1))[0]), Watcher(table.pk)
    await _connected(*alices, bobs, anyone)
    try:
        def change_then_bets():
            if change == "password":
                user_password_set(actor=None, source=COMMAND, user=alice, password="another-pw")
            elif change == "deactivation":
                user_update(actor=None, source=COMMAND, user=alice, is_active=False)
            else:
                user_update(actor=None, source=COMMAND, user=alice, is_staff=True, groups=[role_group("dealer")])
            round_id = _open_round(dealer_api, table.pk)
            return _bet(bob_api, round_id)

        await in_thread(change_then_bets)()
        codes = [await w.until_closed() for w in alices]
        await bobs.until("bet.placed")
        await anyone.until("round.opened")
    finally:
        await _close_all(*alices, bobs, anyone)
    assert codes == [UNAUTHORIZED] * 3
    assert _personal(anyone) == []


async def test_logging_a_session_out_closes_its_sockets_and_not_another_sessions(dealer_api, alice, alice_api, table):
    one, two = await in_thread(_logged_in)(alice), await in_thread(_logged_in)(alice)
    page_key = await in_thread(_page_token)(one, table.pk)
    by_cookie, by_page_token, other_session = (Watcher(table.pk, cookie=_cookie(one)), Watcher(table.pk, token=page_key),
                                               Watcher(table.pk, cookie=_cookie(two)))
    await _connected(by_cookie, by_page_token, other_session)
    try:
        def logout_then_bet():
            assert one.post("/logout/").status_code == 302
            return _bet(alice_api, _open_round(dealer_api, table.pk))

        bet = await in_thread(logout_then_bet)()
        assert await by_cookie.until_closed() == UNAUTHORIZED
        assert await by_page_token.until_closed() == UNAUTHORIZED
        placed = (await other_session.until("bet.placed"))[-1]
    finally:
        await _close_all(by_cookie, by_page_token, other_session)
    assert _personal(by_cookie) == _personal(by_page_token) == []
    assert placed["bet"] == bet["id"]


async def test_a_socket_closes_when_its_token_expires_and_another_tokens_stays(settings, dealer_api, alice, table):
    lasting = (await in_thread(_keys)(alice, 1))[0]
    settings.TOKEN_TTL = 3
    expiring = await in_thread(token_issue)(user=alice)
    ends, stays = Watcher(table.pk, token=expiring.key), Watcher(table.pk, token=lasting)
    await _connected(ends, stays)
    try:
        assert await ends.until_closed() == UNAUTHORIZED
        closed_at = timezone.now()
        bet = await in_thread(lambda: _bet(_with_token(lasting), _open_round(dealer_api, table.pk)))()
        placed = (await stays.until("bet.placed"))[-1]
    finally:
        await _close_all(ends, stays)
    assert closed_at >= expiring.expires_at
    assert placed["bet"] == bet["id"] and _personal(ends) == []


async def test_a_token_revoked_while_its_socket_connects_closes_it(alice, table):
    """The socket was authenticated (its user and credential in its scope), then its token was revoked
    before the consumer subscribed to the close orders: the consumer's second look closes it."""
    key = (await in_thread(_keys)(alice, 1))[0]
    user, credential = await authenticate({"type": "websocket", "query_string": f"token={key}".encode(), "headers": []})
    assert user.pk == alice.pk and credential is not None
    await in_thread(token_revoke)(key=key)

    def as_authenticated_before(inner):
        async def app(scope, receive, send):
            return await inner({**scope, "user": user, "credential": credential}, receive, send)
        return app

    app = CookieMiddleware(as_authenticated_before(URLRouter(websocket_urlpatterns)))
    comm = WebsocketCommunicator(app, f"/ws/tables/{table.pk}/?token={key}", headers=ORIGIN)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    try:
        assert connected
        assert await comm.receive_output(TIMEOUT) == {"type": "websocket.close", "code": UNAUTHORIZED}
    finally:
        await comm.disconnect()
