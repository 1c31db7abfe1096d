"""accounts.asgi_auth, the WebSocket's authentication, driven directly as ASGI middleware: the
token rules of HTTP (expiry, revocation, inactive users), the session cookie, anyone else anonymous."""
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from accounts.asgi_auth import AuthMiddlewareStack
from accounts.models import Token
from accounts.tokens import token_issue, token_revoke

pytestmark = pytest.mark.django_db(transaction=True)


async def _user(query: bytes = b"", headers=()):
    seen = {}

    async def inner(scope, receive, send):
        seen["user"] = scope["user"]

    await AuthMiddlewareStack(inner)({"type": "websocket", "path": "/ws/", "query_string": query, "headers": list(headers)}, None, None)
    return seen["user"]


async def test_a_valid_token_in_the_query_or_the_header_is_its_user(alice):
    key = (await sync_to_async(token_issue)(user=alice)).key
    assert (await _user(b"token=" + key.encode())).pk == alice.pk
    assert (await _user(headers=[(b"authorization", b"Token " + key.encode())])).pk == alice.pk


async def test_expired_revoked_unknown_malformed_tokens_and_inactive_users_watch_anonymously(alice, bob):
    expired = await sync_to_async(token_issue)(user=alice)
    await sync_to_async(Token.objects.filter(pk=expired.pk).update)(expires_at=timezone.now() - timedelta(seconds=1))
    revoked = (await sync_to_async(token_issue)(user=alice)).key
    await sync_to_async(token_revoke)(key=revoked)
    inactive = (await sync_to_async(token_issue)(user=bob)).key
    bob.is_active = False
    await sync_to_async(bob.save)()
    for key in [expired.key, revoked, inactive, "nope", "a" * 65, "x'; --"]:
        assert not (await _user(b"token=" + key.encode())).is_authenticated, key


async def test_the_session_cookie_of_a_logged_in_page_is_its_user_and_no_cookie_is_anonymous(alice):
    client = Client()
    await sync_to_async(client.force_login)(alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    assert (await _user(headers=[(b"cookie", cookie)])).pk == alice.pk
    assert not (await _user()).is_authenticated
