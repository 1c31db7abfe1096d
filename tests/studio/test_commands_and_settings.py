"""The studio_user command, settings that fail loudly (production refuses the development secret),
the OpenAPI schema and the health check."""
import io
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings as dj_settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command

from bets.models import Account, LedgerEntry
from studio.roles import roles_of
from tests.servers import db_url_of_tests
from tests.conftest import import_settings_fresh

ROOT = Path(dj_settings.BASE_DIR)
SECRET = "Hunter2-s3cret-pass"


def studio_user(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("studio_user", *args, stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def fresh(name):
    user = get_user_model().objects.get(username=name)
    user._studio_roles = None
    return user


def balance(user):
    return Account.objects.get(user=user, kind=Account.Kind.PLAYER).balance


# --- studio_user ---------------------------------------------------------------------------------

@pytest.mark.django_db
def test_studio_user_creates_then_updates_an_account():
    output = studio_user("priya", "--role", "player", "--password", SECRET, "--chips", "1000")
    assert "created" in output and "priya" in output
    user = fresh("priya")
    assert user.check_password(SECRET)
    assert roles_of(user) == {"player"}
    assert balance(user) == Decimal("1000")

    output = studio_user("priya", "--role", "player", "--password", SECRET + "-new", "--chips", "250.50")
    assert "updated" in output
    user = fresh("priya")
    assert user.check_password(SECRET + "-new") and not user.check_password(SECRET)
    assert balance(user) == Decimal("250.50")
    entries = list(LedgerEntry.objects.filter(account__user=user).order_by("id").values_list("kind", "amount"))
    assert entries == [("issue", Decimal("1000")), ("issue", Decimal("-749.50"))]  # the balance moves by entries
    assert get_user_model().objects.filter(username="priya").count() == 1


@pytest.mark.django_db
def test_studio_user_switches_roles_and_staff_access():
    studio_user("sam", "--role", "dealer", "--password", SECRET)
    assert roles_of(fresh("sam")) == {"dealer"} and not fresh("sam").is_staff
    studio_user("sam", "--role", "supervisor", "--password", SECRET)
    assert roles_of(fresh("sam")) == {"supervisor"} and fresh("sam").is_staff
    studio_user("sam", "--role", "player", "--password", SECRET)
    assert roles_of(fresh("sam")) == {"player"} and not fresh("sam").is_staff


@pytest.mark.django_db
def test_studio_user_without_chips_keeps_the_balance():
    studio_user("kim", "--role", "player", "--password", SECRET, "--chips", "40")
    studio_user("kim", "--role", "player", "--password", SECRET)
    assert balance(fresh("kim")) == Decimal("40")
    assert LedgerEntry.objects.filter(account__user__username="kim").count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("args", [
    ["--role", "wizard", "--password", SECRET],
    ["--role", "player"],
    ["--role", "player", "--password", SECRET, "--chips", "-5"],
    ["--role", "player", "--password", SECRET, "--chips", "1.005"],
    ["--role", "player", "--password", SECRET, "--chips", "lots"],
])
def test_studio_user_refuses_bad_arguments_and_creates_nothing(args):
    with pytest.raises(CommandError) as error:
        studio_user("zed", *args)
    assert SECRET not in str(error.value)
    assert not get_user_model().objects.filter(username="zed").exists()


@pytest.mark.django_db
def test_studio_user_output_holds_no_secret():
    output = studio_user("lee", "--role", "supervisor", "--password", SECRET)
    output += studio_user("lee", "--role", "player", "--password", SECRET, "--chips", "5")
    assert SECRET not in output
    assert fresh("lee").password not in output


def manage(*args, env=None):
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


@pytest.mark.django_db(transaction=True)
def test_studio_user_from_the_command_line(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]  # what the command used
    env = {"DATABASE_URL": db_url_of_tests(), "REDIS_URL": settings.REDIS_URL, "DJANGO_SETTINGS_MODULE": "studio.settings"}  # as deployed
    first = manage("studio_user", "nia", "--role", "player", "--password", SECRET, "--chips", "75", env=env)
    assert first.returncode == 0, first.stderr
    again = manage("studio_user", "nia", "--role", "dealer", "--password", SECRET, env=env)
    assert again.returncode == 0, again.stderr
    refused = manage("studio_user", "nia", "--role", "croupier", "--password", SECRET, env=env)
    assert refused.returncode != 0 and "croupier" in refused.stderr
    assert "created" in first.stdout and "updated" in again.stdout
    outputs = [first, again, refused]
    assert not [r for r in outputs if SECRET in r.stdout + r.stderr]
    user = fresh("nia")
    assert roles_of(user) == {"dealer"} and user.check_password(SECRET)
    assert balance(user) == Decimal("75")


# --- settings from the environment ---------------------------------------------------------------

def load_settings(**env):
    base = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG", "DATABASE_URL", "REDIS_URL"}}
    code = "import django; django.setup(); from django.conf import settings; print('DEBUG', settings.DEBUG)"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**base, "DJANGO_SETTINGS_MODULE": "studio.settings", **env})


def test_production_refuses_the_development_secret():
    result = load_settings(DEBUG="0")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "SECRET_KEY" in result.stderr


def test_production_starts_with_its_own_secret():
    result = load_settings(DEBUG="0", SECRET_KEY="a-real-production-secret-" + "x" * 30)
    assert result.returncode == 0, result.stderr
    assert "DEBUG False" in result.stdout


@pytest.mark.parametrize("env, name", [
    ({"DEBUG": "0"}, "SECRET_KEY"),
    ({"DEBUG": "maybe"}, "DEBUG"),
    ({"DATABASE_URL": "mysql://localhost/db"}, "DATABASE_URL"),
    ({"DB_POOL_SIZE": "forever", "DATABASE_URL": "postgres://localhost/x", "SECRET_KEY": "s" * 50}, "DB_POOL_SIZE"),
])
def test_a_bad_setting_fails_loudly_naming_it(monkeypatch, env, name):
    with pytest.raises(ImproperlyConfigured, match=name):
        import_settings_fresh(monkeypatch, **env)


def test_settings_read_services_from_the_environment(monkeypatch):
    """The same engine, broker and channel layer either way: the operator's servers by URL, or the
    studio's own (embedded/), reached through the Unix sockets in their folder."""
    own = import_settings_fresh(monkeypatch)
    folder = str(own.OWN_SERVICES.folder)
    assert own.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    assert own.DATABASES["default"]["HOST"].startswith(folder) and own.DATABASES["default"]["NAME"] == "studio"
    assert own.REDIS_URL == f"unix://{folder}/valkey.sock?db=0"
    assert own.CELERY_BROKER_URL == f"redis+socket://{folder}/valkey.sock?virtual_host=0"
    assert own.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["address"] == own.REDIS_URL
    operator = import_settings_fresh(monkeypatch, DATABASE_URL="postgres://u@db:5433/x", REDIS_URL="redis://r:6379/2",
                                     SECRET_KEY="s" * 50)
    assert operator.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    assert (operator.DATABASES["default"]["HOST"], operator.DATABASES["default"]["NAME"]) == ("db", "x")
    assert operator.CELERY_BROKER_URL == "redis://r:6379/2"
    layer = operator.CHANNEL_LAYERS["default"]
    assert layer["BACKEND"] == own.CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert layer["CONFIG"]["hosts"][0]["address"] == "redis://r:6379/2"


# --- schema, docs and health ---------------------------------------------------------------------

ENDPOINTS = [
    "/api/auth/token/", "/api/tables/", "/api/tables/{id}/", "/api/tables/{id}/odds/", "/api/tables/{id}/rounds/",
    "/api/tables/{id}/current-round/", "/api/rounds/{id}/", "/api/rounds/{id}/close-betting/",
    "/api/rounds/{id}/cards/", "/api/rounds/{id}/audit/", "/api/me/", "/api/me/ledger/", "/api/rounds/{id}/bets/",
    "/api/rounds/{id}/bets/repeat/", "/api/bets/{id}/",
]


@pytest.mark.django_db
def test_the_schema_is_a_valid_openapi_3_document_of_every_endpoint(client):
    from drf_spectacular.validation import validate_schema

    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    validate_schema(schema)
    missing = [path for path in ENDPOINTS if path not in schema["paths"]]
    assert not missing
    assert "post" in schema["paths"]["/api/rounds/{id}/cards/"]
    assert "patch" in schema["paths"]["/api/tables/{id}/"]


@pytest.mark.django_db
def test_the_api_docs_page_is_served(client):
    assert client.get("/api/docs/").status_code == 200


@pytest.mark.django_db
def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True}
