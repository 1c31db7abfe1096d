"""Settings, read from the environment (12-factor).

DATABASE_URL unset -> embedded SQLite file; postgres://... -> PostgreSQL via psycopg 3.
REDIS_URL unset -> in-memory channel layer and in-process timer; set -> channels-redis and Celery.
"""
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEV_SECRET_KEY = "dev-only-insecure-secret-key-do-not-use-in-production"
DEBUG = env_bool("DEBUG", default=True)
SECRET_KEY = env_str("SECRET_KEY", DEV_SECRET_KEY)
if not DEBUG and SECRET_KEY == DEV_SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (the development secret is refused)")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "channels",
    "tables",
    "bets",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "studio.middleware.refuse_nul_bytes",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "studio.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = None
ASGI_APPLICATION = "studio.asgi.application"

DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    if not DATABASE_URL.startswith(("postgres://", "postgresql://")):
        raise ImproperlyConfigured("DATABASE_URL must be a postgres:// URL (or unset for embedded SQLite)")
    # Each process shares a psycopg pool among its threads (HTTP requests, the consumers' database
    # thread, timers); DB_POOL_SIZE=0 turns it off: then one connection per request, closed at its end.
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
    _pool = env_int("DB_POOL_SIZE", 10)
    if _pool > 0:
        DATABASES["default"]["OPTIONS"] = {"pool": {"min_size": 1, "max_size": _pool, "timeout": 10}}
    if env_bool("DB_SERVER_BINDING", default=True):
        # Parameters travel apart from the statement, and a statement a connection has run 5 times
        # is prepared once on the server: about half of PostgreSQL's CPU per bet (docs/PERFORMANCE.md).
        # DB_SERVER_BINDING=0 for a transaction-pooling proxy (PgBouncer) that cannot keep them.
        DATABASES["default"].setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=5)
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "studio.sqlite3",
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"},
        }
    }
IS_POSTGRES = DATABASES["default"]["ENGINE"].endswith("postgresql")

REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # The pub/sub layer: one group_send is one Redis PUBLISH, whatever the number of watchers.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": env_str("CHANNELS_PREFIX", "studio")},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Celery: with REDIS_URL a real broker and worker; without it tasks are run by the in-process timer
# (studio.scheduling), never eagerly inside a request.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"

AUTH_PASSWORD_VALIDATORS = [] if DEBUG else [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "studio.auth.TokenAuthentication",  # DRF's, with the roles in the same query
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "studio.errors.exception_handler",
    # DRF's parsers, JSON's refusing a body nested too deeply for Python's decoder (a 400, not a 500).
    "DEFAULT_PARSER_CLASSES": ["studio.parsers.JSONParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "COERCE_DECIMAL_TO_STRING": True,
    # JSON only in production: the browsable API's renderer costs every API call a content negotiation.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]
    + (["rest_framework.renderers.BrowsableAPIRenderer"] if DEBUG else []),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Andar Bahar studio API",
    "DESCRIPTION": "Tables, rounds, cards, bets and settlement of a live-dealer Andar Bahar studio.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "studio.schema.add_error_responses"],
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 999999999999999999}},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}

# "celery" sends tasks to the broker; "inprocess" runs them in this process (embedded mode).
TASK_RUNNER = env_str("TASK_RUNNER", "celery" if REDIS_URL else "inprocess")
# In-process mode: run immediate tasks (settlement) on a thread instead of inline after commit.
INPROCESS_ASYNC = env_bool("INPROCESS_ASYNC", default=False)
# In-process mode: run timed tasks (close betting at closes_at) on timer threads. Tests turn it off.
INPROCESS_TIMERS = env_bool("INPROCESS_TIMERS", default=True)
