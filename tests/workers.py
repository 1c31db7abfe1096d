"""Each pytest-xdist worker its own services (`make test` runs the suite in PYTEST_WORKERS workers).

Loaded with `-p tests.workers` (pyproject.toml's addopts), so that it runs in every worker before
pytest-django reads the settings: xdist names the worker (PYTEST_XDIST_WORKER, "gw0", "gw1", ...)
before the worker's configuration is made. pytest-django already gives each worker its own test
database (test_<name>_gw0, ...). This gives each its own Redis database (the channel layer, the
Celery broker and its queues, readiness keys: the next database numbers after REDIS_URL's), its own
channel prefix, and its own block of ports for the servers the tests start (tests.servers.free_port).
Outside xdist it changes nothing."""
import os
import re

PORT_BLOCK = 1000  # worker n starts its servers in the tests' port ranges shifted by n * PORT_BLOCK


def worker_index() -> int:
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def _isolate() -> None:
    n = worker_index()
    if not n:
        return
    url = os.environ.get("REDIS_URL")
    if url:
        found = re.match(r"^(rediss?://[^/]*)(?:/(\d+))?(.*)$", url)
        if found:
            base, db, rest = found.groups()
            os.environ["REDIS_URL"] = f"{base}/{int(db or 0) + n}{rest}"
    os.environ["CHANNELS_PREFIX"] = f"{os.environ.get('CHANNELS_PREFIX', 'studio')}-w{n}"


_isolate()
