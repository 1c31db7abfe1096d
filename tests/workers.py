"""Each pytest-xdist worker its own services (`make test` runs the suite in PYTEST_WORKERS workers).

Loaded with `-p tests.workers` (pyproject.toml's addopts), so that it runs in every worker before
pytest-django reads the settings: xdist names the worker (PYTEST_XDIST_WORKER, "gw0", "gw1", ...)
before the worker's configuration is made. pytest-django already gives each worker its own test
database (test_<name>_gw0, ...). This gives each its own Redis database (the channel layer, the
Celery broker and its queues, readiness keys: the next database numbers after REDIS_URL's), its own
channel prefix, and its own block of ports for the servers the tests start (tests.servers.free_port).
Outside xdist it changes nothing."""
import os
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

PORT_BLOCK = 1000  # worker n starts its servers in the tests' port ranges shifted by n * PORT_BLOCK


def worker_index() -> int:
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def redis_database(url: str, shift: int) -> str:
    """The Redis URL `shift` databases on: redis://host:port/N (or rediss://) and unix:///path?db=N."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = parse_qs(parts.query)
        query["db"] = [str(int(query.get("db", ["0"])[0]) + shift)]
        return f"unix://{parts.path}?{urlencode(query, doseq=True)}"
    return urlunsplit(parts._replace(path=f"/{int(parts.path.strip('/') or 0) + shift}"))


def _isolate() -> None:
    n = worker_index()
    if not n:
        return
    url = os.environ.get("REDIS_URL")
    if url:
        os.environ["REDIS_URL"] = redis_database(url, n)
    os.environ["CHANNELS_PREFIX"] = f"{os.environ.get('CHANNELS_PREFIX', 'studio')}-w{n}"


_isolate()
