"""Production is safe by default: outside the embedded mode DEBUG is off unless asked for, a SECRET_KEY
is required, HTTPS=1 passes Django's deployment checks, a 500 shows no debug page, and demo accounts
are created only where they belong."""
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as dj_settings

from studio import signednote
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from tests import localhttp
from tests.servers import studio_server
from tests.conftest import import_settings_fresh

ROOT = Path(dj_settings.BASE_DIR)
STRONG_KEY = secrets.token_urlsafe(50)
PRODUCTION = {"DATABASE_URL": "postgres://studio@db.example.invalid:5432/studio", "REDIS_URL": "redis://redis.example.invalid:6379/0"}


@pytest.mark.parametrize("services", [
    {"DATABASE_URL": PRODUCTION["DATABASE_URL"]}, {"REDIS_URL": PRODUCTION["REDIS_URL"]}, PRODUCTION,
    {**PRODUCTION, "SECRET_KEY": ""},  # an environment file's empty line
])
def test_production_without_a_secret_key_does_not_start(monkeypatch, services):
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY"):
        import_settings_fresh(monkeypatch, **services)


def test_production_runs_without_debug_and_demo_data_unless_asked(monkeypatch):
    production = import_settings_fresh(monkeypatch, SECRET_KEY=STRONG_KEY, **PRODUCTION)
    assert (production.DEBUG, production.DEMO_DATA, production.SECRET_KEY) == (False, False, STRONG_KEY)
    assert production.AUTH_PASSWORD_VALIDATORS
    asked = import_settings_fresh(monkeypatch, SECRET_KEY=STRONG_KEY, DEBUG="1", DEMO_DATA="1", **PRODUCTION)
    assert (asked.DEBUG, asked.DEMO_DATA) == (True, True)


def test_the_embedded_mode_keeps_its_development_defaults(monkeypatch):
    embedded = import_settings_fresh(monkeypatch)
    assert (embedded.EMBEDDED, embedded.DEBUG, embedded.DEMO_DATA) == (True, True, True)
    assert embedded.SECRET_KEY == embedded.DEV_SECRET_KEY


def test_https_settings_follow_one_variable(monkeypatch):
    plain = import_settings_fresh(monkeypatch, SECRET_KEY=STRONG_KEY, **PRODUCTION)
    assert not hasattr(plain, "SECURE_PROXY_SSL_HEADER") and not hasattr(plain, "SESSION_COOKIE_SECURE")
    https = import_settings_fresh(monkeypatch, SECRET_KEY=STRONG_KEY, HTTPS="1", **PRODUCTION)
    assert https.SECURE_PROXY_SSL_HEADER == ("HTTP_X_FORWARDED_PROTO", "https")
    assert https.SECURE_SSL_REDIRECT and https.SESSION_COOKIE_SECURE and https.CSRF_COOKIE_SECURE
    assert https.SECURE_HSTS_SECONDS >= 31536000


def test_the_tests_run_without_https_redirects():
    assert not dj_settings.SECURE_SSL_REDIRECT and not dj_settings.SESSION_COOKIE_SECURE


def deploy_check(**env):
    base = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG", "HTTPS", "DATABASE_URL", "REDIS_URL"}}
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**base, "DJANGO_SETTINGS_MODULE": "studio.settings", "ALLOWED_HOSTS": "studio.example.com", **env})


def issues(result) -> list[str]:
    return [line for line in (result.stdout + result.stderr).splitlines() if line.startswith("?: (")]


def test_check_deploy_passes_with_https_on():
    result = deploy_check(SECRET_KEY=STRONG_KEY, HTTPS="1", **PRODUCTION)
    assert result.returncode == 0 and not issues(result), result.stdout + result.stderr
    without = deploy_check(SECRET_KEY=STRONG_KEY, **PRODUCTION)  # the check is not a formality
    assert without.returncode != 0 and "SECURE_SSL_REDIRECT" in without.stdout + without.stderr


@pytest.mark.django_db(transaction=True)
def test_a_server_error_in_production_shows_no_debug_page(tmp_path):
    """The server as deployed (DATABASE_URL, no DEBUG) with one URL that raises (tests/ops/boom_urls.py)."""
    assert "DEBUG" not in os.environ, "this test checks the default: run it without DEBUG exported"
    with studio_server(log_dir=tmp_path, name="boom",
                       DJANGO_SETTINGS_MODULE="tests.ops.boom_settings") as url:
        for accept in ("text/html", "application/json"):
            response = localhttp.get(url + "/boom/", headers={"Accept": accept}, timeout=20)
            assert response.status_code == 500
            body = response.text
            assert "Traceback" not in body and "RuntimeError" not in body and "boom_urls" not in body
            assert dj_settings.SECRET_KEY not in body and "SECRET_KEY" not in body and len(body) < 1000
    assert "RuntimeError" in (tmp_path / "server.log").read_text()  # the operator still gets the traceback, in the log


@pytest.mark.django_db
def test_demo_setup_outside_the_embedded_mode_creates_nothing(settings):
    settings.DEMO_DATA = False
    call_command("demo_setup", stdout=open(os.devnull, "w"))
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("demo_data, args", [(True, []), (False, ["--force"])])
def test_demo_setup_when_embedded_or_asked_for(settings, demo_data, args):
    settings.DEMO_DATA = demo_data
    call_command("demo_setup", *args, stdout=open(os.devnull, "w"))
    assert get_user_model().objects.get(username="supervisor").check_password("demo-pass")


def test_production_without_a_log_signing_key_does_not_start(monkeypatch):
    monkeypatch.delenv("LOG_SIGNING_KEY", raising=False)
    with pytest.raises(ImproperlyConfigured, match="LOG_SIGNING_KEY"):
        import_settings_fresh(monkeypatch, SECRET_KEY=STRONG_KEY, **PRODUCTION)


def test_the_embedded_studio_makes_its_log_key_once(tmp_path):
    key = signednote.embedded_key(tmp_path, "studio.test/log")
    assert signednote.embedded_key(tmp_path, "studio.test/log") == key  # kept, not made again
    assert signednote.SigningKey.parse(key).name == "studio.test/log"
    assert (tmp_path / "log-signing-key").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["log-signing-key"]
