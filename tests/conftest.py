"""Shared fixtures: personas (a dealer, a supervisor, players Alice and Bob, an outsider), API
clients, tables, tasks through the broker. Every test runs on PostgreSQL and Redis (tests/throwaway.py
starts a pair where none is configured). Hypothesis is derandomized under CI (CI=true): the same
examples every run."""
import fcntl
import importlib.util
import os
import threading
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings as dj_settings
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# No per-example deadline anywhere (a loaded machine is not a failure); under CI no random seed and
# no example database either, so a run is the run before it.
hypothesis_settings.register_profile("studio", deadline=None)
hypothesis_settings.register_profile("studio-ci", deadline=None, derandomize=True, database=None, print_blob=True)
hypothesis_settings.load_profile("studio-ci" if IN_CI else "studio")


def pytest_configure(config):
    # WhiteNoise looks at STATIC_ROOT when a handler is built, which test modules do on import (the
    # ASGI app): the folder exists before any, and the session's collectstatic below fills it.
    Path(dj_settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
    # Every test client builds its own middleware, and WhiteNoise indexes STATIC_ROOT (some 870
    # files, their headers made ahead) when its middleware is built: 50 ms of CPU a client, and the
    # suite makes over a thousand. In this process WhiteNoise looks a file up when it is asked for
    # instead (its development mode); the servers the tests start index once, as production does.
    dj_settings.WHITENOISE_AUTOREFRESH = True


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The tests marked `long` first, the rest in their order: `make test` shares the files out among
    pytest-xdist workers one file at a time, in this order, and a file of minutes handed out last
    would run alone at the end while the other workers wait. After pytest-django's own ordering
    (trylast), which puts the transactional tests, the long ones among them, after the others, as
    Django does so that a flush leaves no test without the data its migrations made: here a flushed
    database is a new one (the migrations make no rows; the flush keeps the content types and the
    permissions, tests/test_postgresql_backend.py)."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


_collecting: dict = {}


def _static_lock_path():
    root = dj_settings.STATIC_ROOT
    return root.parent / (root.name + ".lock")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """The admin's, the browsable API's and Swagger UI's files, collected into the tests' STATIC_ROOT
    ([tool.pytest_env]) as a server collects them (pages name the hashed files of that manifest), once,
    by the process that starts the run, while the pytest-xdist workers start: the collector holds an
    exclusive lock on a file beside the folder from before any worker starts until it is done, and
    every test waits for it (`_static_files_collected`), so that no worker reads the files while
    they are written. The same lock keeps two test runs in one checkout from collecting into it at
    once."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    from django.core.management import call_command

    dj_settings.STATIC_ROOT.mkdir(parents=True, exist_ok=True)
    lock = open(_static_lock_path(), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)

    def collect():
        try:
            call_command("collectstatic", "--noinput", verbosity=0)
        except BaseException as exc:  # said by every test (below), not lost in a thread
            _collecting["error"] = exc
        finally:
            lock.close()  # releases the lock

    _collecting["thread"] = threading.Thread(target=collect, name="collectstatic")
    _collecting["thread"].start()


def pytest_sessionfinish(session):
    if "thread" in _collecting:
        _collecting["thread"].join()


@pytest.fixture(scope="session", autouse=True)
def _static_files_collected():
    """Wait until the session's collectstatic (above) is done: a shared lock is granted once the
    collector's is released."""
    with open(_static_lock_path(), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)
    if "error" in _collecting:
        raise RuntimeError("collectstatic failed") from _collecting["error"]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, with commits that do not wait for the disk (PostgreSQL's
    `synchronous_commit = off`, for every connection to it, the servers the tests start included):
    a crash could lose the last commits of a database that is thrown away anyway, and each commit
    saves the WAL flush (0.2-0.3 ms here; the 1,000-round test commits about 25,000 times)."""
    from django.db import connection

    with django_db_blocker.unblock():
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER DATABASE {connection.ops.quote_name(connection.settings_dict['NAME'])} SET synchronous_commit TO off")
        connection.close()  # the next connection takes the database's setting


@pytest.fixture
def held_tasks(monkeypatch):
    """Tasks sent after commit (settlement, the betting timer, wallet attempts) are collected as
    (task, args), neither applied nor sent: the test runs them itself (`task.apply(args=...)`), e.g.
    a settlement racing a void, or asserts what was sent."""
    from studio import scheduling

    held: list[tuple[object, tuple]] = []
    monkeypatch.setattr(scheduling, "_send", lambda task, args, eta: held.append((task, args)))
    return held


@pytest.fixture
def broker_tasks():
    """Tasks this test's process sends go to the broker (its Redis database), for a real Celery
    worker to run (tests.servers.celery_process), instead of being applied at once (tests/settings.py)."""
    from studio.celery import app

    eager = app.conf.task_always_eager  # read first: the app takes its configuration from the settings then
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = eager


def make_user(name, role, chips=None):
    from django.core.management import call_command

    args = [name, "--role", role, "--password", "pw-" + name]
    if chips is not None:
        args += ["--chips", str(chips)]
    call_command("studio_user", *args, stdout=open(os.devnull, "w"))
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


def import_settings_fresh(monkeypatch, **env):
    """Run studio/settings.py again as a new module with this environment (django.conf is untouched)."""
    for key in ("SECRET_KEY", "DEBUG", "DATABASE_URL", "REDIS_URL", "DB_POOL_SIZE", "HTTPS", "DEMO_DATA"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    spec = importlib.util.spec_from_file_location("studio._settings_probe", Path(dj_settings.BASE_DIR) / "studio" / "settings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        from accounts.tokens import token_issue

        client.credentials(HTTP_AUTHORIZATION="Token " + token_issue(user=user).key)
    return client


@pytest.fixture
def dealer(db):
    return make_user("dealer", "dealer")


@pytest.fixture
def supervisor(db):
    return make_user("supervisor", "supervisor")


@pytest.fixture
def alice(db):
    return make_user("alice", "player", chips=1000)


@pytest.fixture
def bob(db):
    return make_user("bob", "player", chips=1000)


@pytest.fixture
def outsider(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("outsider", password="pw-outsider")


@pytest.fixture
def dealer_api(dealer):
    return client_for(dealer)


@pytest.fixture
def supervisor_api(supervisor):
    return client_for(supervisor)


@pytest.fixture
def alice_api(alice):
    return client_for(alice)


@pytest.fixture
def bob_api(bob):
    return client_for(bob)


@pytest.fixture
def anon_api():
    return client_for(None)


@pytest.fixture
def make_table(db):
    from tables.models import Table

    counter = {"n": 0}

    def make(**overrides):
        counter["n"] += 1
        fields = {"name": f"Table {counter['n']}", "betting_seconds": 15}
        fields.update(overrides)
        return Table.objects.create(**fields)

    return make


@pytest.fixture
def table(make_table):
    return make_table()


D = Decimal
