"""The API docs page works without the internet: Swagger UI comes from the studio's own static files,
and with every request to another host refused the page still shows the API's operations. Served by
the real server (uvicorn and WhiteNoise, hashed names from the manifest), not pytest-django's
live_server, whose own static handler knows only the plain names."""
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.servers import studio_server

pytestmark = pytest.mark.browser
LOCAL = {"127.0.0.1", "localhost", "[::1]", "::1"}


@pytest.mark.django_db(transaction=True)
def test_the_docs_page_shows_the_operations_with_no_network_but_the_studio(page, request, shot):
    refused: list[str] = []

    def only_local(route):
        if urlsplit(route.request.url).hostname in LOCAL:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    folder = Path(request.config.rootpath) / "test-artifacts" / "test_api_docs-server"
    with studio_server(log_dir=folder, name="docs") as url:
        page.route("**/*", only_local)
        page.goto(url + "/api/docs/")
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("Andar Bahar studio API")
        expect(page.locator(".opblock-summary-path").first).to_be_visible()
        assert page.locator(".opblock").count() > 20  # every operation of the schema
        shot(page, "docs")
    assert refused == []
    assert page.js_errors == []
