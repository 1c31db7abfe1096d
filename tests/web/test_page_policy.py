"""Every page under the Content-Security-Policy: the header is on each answer, scripts come only
from this site's files (no inline code for the policy to allow), and nothing loads from another
host."""
import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>\s*\S", re.I)
EXTERNAL = re.compile(r"""(?:src|href)=["'](?:https?:)?//""", re.I)
HANDLER = re.compile(r"""<[^>]+\son[a-z]+=""", re.I)


def directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def pages(table, users):
    return [
        ("/login/", None),
        ("/", users["alice"]),
        ("/console/", users["dealer"]),
        ("/supervisor/", users["supervisor"]),
        (f"/play/tables/{table.pk}/", None),
        (f"/play/tables/{table.pk}/", users["alice"]),
        ("/matches/", users["alice"]),
        ("/api/docs/", None),
        ("/admin/login/", None),
    ]


@pytest.fixture
def users(alice, dealer, supervisor):
    return {"alice": alice, "dealer": dealer, "supervisor": supervisor}


def test_every_page_has_the_policy_and_no_inline_script(table, users):
    for url, user in pages(table, users):
        client = Client()
        if user is not None:
            client.force_login(user)
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        policy = directives(response)
        assert policy["script-src"] == ["'self'"], (url, policy)
        assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"], url
        html = response.content.decode()
        assert not INLINE_SCRIPT.search(html), f"{url}: inline script: {INLINE_SCRIPT.search(html).group(0)[:200]}"
        assert not HANDLER.search(html), f"{url}: inline event handler: {HANDLER.search(html).group(0)[:200]}"
        assert not EXTERNAL.search(html), f"{url}: a file from another host: {EXTERNAL.search(html).group(0)}"


def test_api_answers_carry_the_policy_too(alice_api):
    assert "script-src 'self'" in alice_api.get("/api/me/")["Content-Security-Policy"]
