"""Every page under the Content-Security-Policy: the header is on each answer, scripts come only
from this site's files (no inline code for the policy to allow), and nothing loads from another
host."""
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLResolver, get_resolver

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


API_POLICY = {"default-src": ["'none'"], "frame-ancestors": ["'none'"]}


def routes(patterns=None, prefix=""):
    """Every URL pattern as (a concrete path, its name): each converter's place filled with a 1."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern).lstrip("^").rstrip("$")
        if isinstance(entry, URLResolver):
            yield from routes(entry.url_patterns, route)
        else:
            yield re.sub(r"<[^>]+>", "1", route), entry.name


def test_every_answer_to_programs_carries_the_strict_api_policy(alice_api):
    """Each route of the API (and /healthz, /readyz, /metrics) whatever its answer (a bet, a 401, a
    404, a 405): a route declared without studio.routes.api_route would carry the pages' policy."""
    answered = set()
    for path, name in routes():
        if not (path.startswith("api/") or path in ("healthz", "readyz", "metrics")) or name == "docs":
            continue
        for client in (Client(), alice_api):
            response = client.get("/" + path.replace("\\", ""))
            assert directives(response) == API_POLICY, (path, response.status_code, response["Content-Security-Policy"])
        answered.add(name)
    assert {"round-bets", "me", "schema", "healthz", "metrics", "api-not-found"} <= answered
    assert directives(alice_api.post("/api/rounds/999999/bets/", {"spot": "andar", "amount": "1"}, format="json")) == API_POLICY


# Every form a module can name another in: `import ... from "x"`, `export ... from "x"`, `import "x"`, `import("x")`.
IMPORT = re.compile(r"""^\s*(?:import|export)\b(?:[^;"']*?\bfrom)?\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']""", re.M)
HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")


def test_collected_modules_import_their_neighbours_by_hashed_names():
    """A page's module is cached for ever under its hashed name: its imports must be hashed names too
    (studio.storage), or a release could pair a cached old module with a new one."""
    manifest = json.loads(Path(settings.STATIC_ROOT, "staticfiles.json").read_text())["paths"]
    modules = [Path(settings.STATIC_ROOT, hashed) for name, hashed in manifest.items()
               if name.startswith("js/") and name.endswith(".js")]
    assert len(modules) > 10, "the session's collectstatic filled STATIC_ROOT"
    for path in modules:
        for target in ("".join(found) for found in IMPORT.findall(path.read_text())):
            assert HASHED.search(target), f"{path.name} imports {target} by its plain name"
