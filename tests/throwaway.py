"""The run's PostgreSQL and Redis: those DATABASE_URL and REDIS_URL name (CI sets both), or else a
throwaway pair of the studio's own servers (embedded/: PostgreSQL and Valkey from the project's
packages) for whichever is not named.

Loaded with `-p tests.throwaway` (pyproject.toml's addopts), before tests.workers: the process that
runs pytest starts the pair as this module is imported, before pytest-django reads the settings,
and puts their URLs in the environment its pytest-xdist workers inherit (each worker then takes its
own database and Redis database: tests.workers). The pair's commits do not wait for the disk, and
the pair stops, its folder deleted, when the run ends; a run that is killed leaves it to stop by
itself (its keeper stops a few seconds after its last user is gone, and deletes the folder)."""
import os
import tempfile
from pathlib import Path

import embedded

_pair: list[embedded.Services] = []


def _start() -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return  # a worker: the URLs are in the environment it inherited
    postgres, valkey = not os.environ.get("DATABASE_URL"), not os.environ.get("REDIS_URL")
    if not (postgres or valkey):
        return
    folder = Path(tempfile.mkdtemp(prefix="studio-test-"))
    services = embedded.ensure(embedded.Services(folder, postgres=postgres, valkey=valkey), throwaway=True)
    _pair.append(services)
    if postgres:
        os.environ["DATABASE_URL"] = services.database_url()
    if valkey:
        os.environ["REDIS_URL"] = services.redis_url()


def pytest_unconfigure(config):
    for services in _pair:
        embedded.release(services)


_start()
