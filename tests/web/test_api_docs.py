"""/api/docs/ is Swagger UI from drf-spectacular-sidecar's files, served as the studio's own static
files (hashed names, WhiteNoise): the page names no other host, and every file it names is served."""
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from tests import localhttp
from tests.servers import studio_server

ATTRIBUTE = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']""")
ABSOLUTE = re.compile(r"""["'](?:https?:)?//[^"'\s]+""")


@pytest.fixture
def docs_page(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_docs_page_names_no_other_host(client, docs_page):
    assert ABSOLUTE.findall(docs_page) == []
    # Its one script of its own is a file of the view's (SpectacularSwaggerSplitView), not inline: the CSP.
    own = [url for url in ATTRIBUTE.findall(docs_page) if url.startswith("/api/docs/")]
    assert len(own) == 1
    script = client.get(own[0].replace("&amp;", "&")).content.decode()
    assert ABSOLUTE.findall(script) == []
    assert '"validatorUrl": null' in script  # Swagger UI would fetch a badge from the online validator


def test_every_file_the_docs_page_names_is_served_under_its_hashed_name(client, docs_page):
    files = [url for url in ATTRIBUTE.findall(docs_page) if url.startswith("/static/")]
    names = {urlsplit(url).path.rsplit("/", 1)[1] for url in files}
    assert {name.split(".")[0] for name in names} >= {"swagger-ui", "swagger-ui-bundle", "swagger-ui-standalone-preset"}
    for url in files:
        assert re.search(r"\.[0-9a-f]{12}\.(js|css|png)$", url), url  # the manifest's name: cacheable for ever
        response = client.get(url)
        assert response.status_code == 200, url
        assert "immutable" in response["Cache-Control"]
        b"".join(response.streaming_content)


@pytest.mark.django_db(transaction=True)
def test_a_fresh_server_answers_concurrent_schema_requests(tmp_path):
    """The first schema generations of a process, side by side (drf-spectacular#1122's race): every
    one is the schema, none a 500."""
    with studio_server(log_dir=tmp_path, name="schema") as url:
        start = threading.Barrier(8)

        def fetch(_):
            start.wait()
            return localhttp.get(url + "/api/schema/?format=json", timeout=60).status_code

        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(fetch, range(8)))
    assert codes == [200] * 8
