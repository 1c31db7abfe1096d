"""Every page under the Content-Security-Policy: the header is on each answer, scripts come only
from this site's files (no inline code for the policy to allow), and nothing loads from another
host."""
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
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
        ("/supervisor/operators/", users["supervisor"]),
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


IMPORT = re.compile(r"""^(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']\s*;""", re.M)
HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")


def test_collected_modules_import_their_neighbours_by_hashed_names():
    """A page's module is cached for ever under its hashed name: its imports must be hashed names too
    (studio.storage), or a release could pair a cached old module with a new one."""
    manifest = json.loads(Path(settings.STATIC_ROOT, "staticfiles.json").read_text())["paths"]
    modules = [Path(settings.STATIC_ROOT, hashed) for name, hashed in manifest.items()
               if name.startswith("js/") and name.endswith(".js")]
    assert len(modules) > 10, "the session's collectstatic filled STATIC_ROOT"
    for path in modules:
        for target in IMPORT.findall(path.read_text()):
            assert HASHED.search(target), f"{path.name} imports {target} by its plain name"
