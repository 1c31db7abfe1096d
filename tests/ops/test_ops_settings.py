"""The operations settings: bad values stop the start naming the variable, and the database
timeouts reach every PostgreSQL session the studio opens (no statement per request)."""
import os

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from tests.conftest import import_settings_fresh

KEY = "k" * 50  # production settings (DATABASE_URL set) want a secret key


@pytest.mark.parametrize("env, name", [
    ({"DB_POOL_TIMEOUT": "soon", "DATABASE_URL": "postgres://localhost/x", "SECRET_KEY": KEY}, "DB_POOL_TIMEOUT"),
    ({"DB_LOCK_TIMEOUT_MS": "3s", "DATABASE_URL": "postgres://localhost/x", "SECRET_KEY": KEY}, "DB_LOCK_TIMEOUT_MS"),
    ({"REDIS_TIMEOUT": "never"}, "REDIS_TIMEOUT"),
    ({"METRICS_ALLOWED_IPS": "10.0.0.0/8,office"}, "METRICS_ALLOWED_IPS"),
    ({"PROMETHEUS_MULTIPROC_DIR": "/nonexistent/prometheus"}, "PROMETHEUS_MULTIPROC_DIR"),
])
def test_a_bad_operations_setting_fails_loudly_naming_it(monkeypatch, env, name):
    with pytest.raises(ImproperlyConfigured, match=name):
        import_settings_fresh(monkeypatch, **env)


def test_the_database_bounds_come_from_the_environment(monkeypatch):
    bounds = import_settings_fresh(monkeypatch, DATABASE_URL="postgres://u@db/x", SECRET_KEY=KEY, DB_LOCK_TIMEOUT_MS="1500",
                                   DB_STATEMENT_TIMEOUT_MS="0", DB_POOL_TIMEOUT="0.5")
    options = bounds.DATABASES["default"]["OPTIONS"]
    assert options["options"] == "-c lock_timeout=1500 -c statement_timeout=0"
    assert options["pool"]["timeout"] == 0.5


@pytest.mark.django_db
def test_every_session_has_the_lock_and_statement_timeouts():
    expected = [int(os.environ.get("DB_LOCK_TIMEOUT_MS") or 3000), int(os.environ.get("DB_STATEMENT_TIMEOUT_MS") or 5000)]
    with connection.cursor() as cur:  # milliseconds, as PostgreSQL keeps them
        cur.execute("SELECT setting::int FROM pg_settings WHERE name IN ('lock_timeout', 'statement_timeout') ORDER BY name")
        assert [row[0] for row in cur.fetchall()] == expected
