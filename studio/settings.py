"""Settings, read from the environment (12-factor).

DATABASE_URL (postgres://...) and REDIS_URL (redis://... or unix://...) name an operator's PostgreSQL
and Redis. Either unset: the studio's own server of that kind, run from the project's packages with
its data in `.studio/` (embedded/; `make run` and manage.py start them). The processes, the
code and the database engine are the same either way: Celery through Redis for tasks, the Redis
channel layer for the stream, PostgreSQL through psycopg 3.
"""
import ipaddress
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import redis
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

import embedded
from .env import env_bool, env_float, env_int, env_list, env_str
from . import signednote
from .limits import MAX_BODY

BASE_DIR = Path(__file__).resolve().parent.parent

# Embedded: neither DATABASE_URL nor REDIS_URL, the studio of `make run` on its own PostgreSQL and Valkey.
# Anything else is production: DEBUG off unless asked for, and a SECRET_KEY of its own required.
EMBEDDED = not env_str("DATABASE_URL") and not env_str("REDIS_URL")
OWN_SERVICES = embedded.Services(embedded.FOLDER)  # where the studio's own servers live, and their URLs
DEV_SECRET_KEY = "dev-only-insecure-secret-key-do-not-use-in-production"
DEBUG = env_bool("DEBUG", default=EMBEDDED)
SECRET_KEY = env_str("SECRET_KEY")
if SECRET_KEY is None and not EMBEDDED:
    raise ImproperlyConfigured("SECRET_KEY is not set: it is required when DATABASE_URL or REDIS_URL is set")
SECRET_KEY = SECRET_KEY or DEV_SECRET_KEY
if not DEBUG and SECRET_KEY == DEV_SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (the development secret is refused)")
# Demo accounts and tables (manage.py demo_setup): in the embedded mode, elsewhere only with DEMO_DATA=1.
DEMO_DATA = env_bool("DEMO_DATA", default=EMBEDDED)
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
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served as static files: /api/docs/ needs no CDN
    "channels",
    "axes",
    "csp",
    "audit",
    "accounts",
    "tables",
    "bets",
    "incidents",
    "matches",
    "virtual",
    "integrity",
    "reports",
    "web",
]

MIDDLEWARE = [
    "studio.metrics.RequestMetricsMiddleware",  # outermost: counts every answer, by route and status
    "studio.access.AccessLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # /static/: collected, hashed, compressed files (STORAGES)
    "studio.middleware.refuse_large_bodies",  # a JSON 413 for a body over studio.limits.MAX_BODY, before anything reads it
    "studio.middleware.refuse_nul_bytes",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "csp.middleware.CSPMiddleware",
    "web.language.PageLocaleMiddleware",  # the page's language: cookie, then Accept-Language (the API: English)
    "web.language.language_from_query",  # ?lang=hi: that language now, and remembered in the cookie
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "web.middleware.studio_not_found",  # the studio's own 404 page, DEBUG included (Django's debug page never)
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out login page into its 429 answer
    "studio.errors.BusyMiddleware",  # a view that cannot get a connection, a lock or its statement in time: JSON 503
]
# A body (a form's fields included) longer than this is refused: 413 before Django (studio.http), or
# by studio.middleware.refuse_large_bodies where the studio's server is not in front.
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_BODY

ROOT_URLCONF = "web.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = None
ASGI_APPLICATION = "web.asgi.application"

DATABASE_URL = env_str("DATABASE_URL") or OWN_SERVICES.database_url()
if not DATABASE_URL.startswith(("postgres://", "postgresql://")):
    raise ImproperlyConfigured("DATABASE_URL must be a postgres:// URL (or unset: the studio's own PostgreSQL)")
# Each process shares a psycopg pool among its threads (HTTP requests, the consumers' database
# thread, timers); DB_POOL_SIZE=0 turns it off: then one connection per request, closed at its end.
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
# Every session waits at most DB_LOCK_TIMEOUT_MS for a row lock and runs a statement at most
# DB_STATEMENT_TIMEOUT_MS (0: no limit), set once per connection (no statement per request), so
# one held lock cannot hold every request thread; the request gets a 503 `busy` (studio.errors).
# Settlement lifts the statement limit for its own transaction (SETTLE_STATEMENT_TIMEOUT_MS).
DATABASES["default"]["OPTIONS"] = {"options": f"-c lock_timeout={env_int('DB_LOCK_TIMEOUT_MS', 3000)} "
                                              f"-c statement_timeout={env_int('DB_STATEMENT_TIMEOUT_MS', 5000)}"}
_pool = env_int("DB_POOL_SIZE", 10)
if _pool > 0:
    # DB_POOL_TIMEOUT: seconds a request waits for a free connection before its 503 `busy`.
    DATABASES["default"]["OPTIONS"]["pool"] = {"min_size": 1, "max_size": _pool, "timeout": env_float("DB_POOL_TIMEOUT", 3.0)}
if env_bool("DB_SERVER_BINDING", default=True):
    # Parameters travel apart from the statement, and a statement a connection has run 5 times
    # is prepared once on the server: about half of PostgreSQL's CPU per bet (docs/PERFORMANCE.md).
    # DB_SERVER_BINDING=0 for a transaction-pooling proxy (PgBouncer) that cannot keep them.
    DATABASES["default"]["OPTIONS"].update(server_side_binding=True, prepare_threshold=5)
SETTLE_STATEMENT_TIMEOUT_MS = env_int("SETTLE_STATEMENT_TIMEOUT_MS", 0)

# The public round log (docs/PUBLIC_LOG.md): its origin (the checkpoints' first line and the
# signing key's name), the key its checkpoints are signed with (a signed-note private key: `manage.py
# log_key` makes one), required in production like SECRET_KEY and kept in the embedded studio's data
# folder otherwise; how often the log takes in new rounds and signs a grown tree; the witnesses
# whose cosignatures it keeps and serves (their verifier keys, comma-separated).
LOG_ORIGIN = env_str("LOG_ORIGIN", "andar-bahar.studio/log")
LOG_SIGNING_KEY = env_str("LOG_SIGNING_KEY") or (signednote.embedded_key(embedded.FOLDER, LOG_ORIGIN) if EMBEDDED else None)
if LOG_SIGNING_KEY is None:
    raise ImproperlyConfigured("LOG_SIGNING_KEY is not set: it is required when DATABASE_URL or REDIS_URL is set "
                               "(python manage.py log_key makes one)")
LOG_PUBLISH_SECONDS = env_float("LOG_PUBLISH_SECONDS", 5.0)
CROWD_SECONDS = env_float("CROWD_SECONDS", 1.0)  # how often a betting round's crowd goes to its watchers (bets.crowd)
LOG_WITNESSES = env_list("LOG_WITNESSES", [])  # 0: a round's settlement is never cut short

REDIS_URL = env_str("REDIS_URL") or OWN_SERVICES.redis_url()
REDIS_PREFIX = env_str("CHANNELS_PREFIX", "studio")  # the channel layer's prefix, and the heartbeats' (studio.health)
# Seconds any Redis command (a publish, a task sent to the broker, a readiness ping) may wait: an
# unanswering Redis fails the call instead of holding its thread.
REDIS_TIMEOUT = env_float("REDIS_TIMEOUT", 2.0)
# Seconds a send to a stream watcher's socket may wait (its buffers full: it does not read) before
# the watcher is closed with 4408 (tables/consumers.py).
STREAM_SEND_TIMEOUT = env_float("STREAM_SEND_TIMEOUT", 10.0)
# A broadcast from outside the web server's loop (a Celery task, the virtual dealer, manage.py) goes
# through async_to_sync: a new event loop, and so a new Redis connection, each time. Given its version
# here, redis-py names itself to Redis (CLIENT SETINFO) without reading its package metadata for each
# of those connections, which took about a third of such a broadcast (scripts/bench_publish.py).
REDIS_DRIVER = redis.DriverInfo(lib_version=redis.__version__)
CHANNEL_LAYERS = {
    "default": {
        # The pub/sub layer: one group_send is one Redis PUBLISH, whatever the number of watchers.
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": REDIS_TIMEOUT, "socket_connect_timeout": REDIS_TIMEOUT,
                              "driver_info": REDIS_DRIVER}],
                   "prefix": REDIS_PREFIX},
    }
}

# Celery: Redis is the broker; tasks leave a transaction after it commits (studio.scheduling).
CELERY_BROKER_URL = embedded.broker_url(REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600, "socket_timeout": REDIS_TIMEOUT, "socket_connect_timeout": REDIS_TIMEOUT}
# A task sent from a request (after its commit) tries the broker for about a second, then gives up
# (logged): the deadline is in the database and beat's sweeps catch what was not sent.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_TIMEOUT
# Beat sends studio.heartbeat every HEARTBEAT_SECONDS; /readyz wants the worker and beat seen within
# READY_MAX_AGE seconds (studio.health).
HEARTBEAT_SECONDS = env_float("HEARTBEAT_SECONDS", 5.0)
READY_MAX_AGE = env_float("READY_MAX_AGE", 30.0)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"

AUTH_PASSWORD_VALIDATORS = [] if DEBUG else [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

# Pages in the players' languages (the API's messages stay English, with stable codes). The
# choice: ?lang= (web.language), the switcher's cookie (Django's set_language), Accept-Language.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("hi", "हिन्दी"), ("ne", "नेपाली"), ("vi", "Tiếng Việt"), ("ja", "日本語")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
FORMAT_MODULE_PATH = ["studio.formats"]  # the digit grouping Django leaves out for vi, hi and ne
USE_TZ = True
# Static files (the admin's, Swagger UI's, the browsable API's) are served by WhiteNoise from
# STATIC_ROOT, filled by `manage.py collectstatic` (scripts/serve.py and the web unit run it): each
# file under a name with its content's hash, cached for a year, gzip beside it. In DEBUG WhiteNoise
# also serves straight from the apps' folders and pages link the plain names.
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / env_str("STATIC_ROOT", "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]  # the pages' ES modules (static/events.js)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "studio.storage.StaticStorage"},
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Content-Security-Policy on every answer (django-csp): scripts only from this site's files (no
# inline script, no eval), sockets and fetches only to this site, nothing framed. Styles allow
# inline attributes (the pages set a few sizes from data); no style sheet comes from elsewhere.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
# What answers programs (the API, /healthz, /readyz, /metrics: studio.routes.api_route) is never a
# document to run: nothing may load from it, nothing may frame it.
API_CONTENT_SECURITY_POLICY = {"default-src": [NONE], "frame-ancestors": [NONE]}
# Accounts: tokens expire (accounts.tokens); failed logins are throttled per username and address
# by django-axes (accounts.lockouts), which checks every login before the model backend.
TOKEN_TTL = env_int("TOKEN_TTL", 12 * 3600)  # seconds an API or page token lives
if TOKEN_TTL <= 0:
    raise ImproperlyConfigured("TOKEN_TTL must be a positive number of seconds")
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(seconds=env_int("LOGIN_COOLOFF", 15 * 60))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # the pair: nobody locks a dealer out from elsewhere
AXES_RESET_ON_SUCCESS = True  # a successful login forgets that pair's failures
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = True  # a try during a lockout starts its cool-off again
AXES_LOCKOUT_CALLABLE = "accounts.lockouts.lockout_response"
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)  # reverse proxies that append the client to X-Forwarded-For
AXES_CLIENT_IP_CALLABLE = "accounts.lockouts.client_ip"
AXES_ENABLE_ADMIN = False  # lockouts are read and cleared through /api/lockouts/ (supervisors)
AXES_VERBOSE = False
if AXES_FAILURE_LIMIT < 1:
    raise ImproperlyConfigured("LOGIN_FAILURE_LIMIT must be at least 1")
if AXES_COOLOFF_TIME.total_seconds() < 1:
    raise ImproperlyConfigured("LOGIN_COOLOFF must be a positive number of seconds")
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.TokenAuthentication",  # DRF's, with the expiry and the roles in the same query
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "studio.errors.exception_handler",
    # Bodies are JSON only (any other media type: 415), a body nested too deeply for Python's decoder
    # refused as a parse error (a 400, not a 500).
    "DEFAULT_PARSER_CLASSES": ["studio.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "studio.pagination.Pages",  # ?page= and ?page_size= by the one whole-number parser
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
    # An integrity check's status, also a table's and a dealer's (their worst check's): one enum, named.
    "ENUM_NAME_OVERRIDES": {"IntegrityStatusEnum": ["ok", "watch", "alert"]},
    # Swagger UI from drf-spectacular-sidecar's static files, not a CDN, and without the badge it would
    # fetch from the online validator: /api/docs/ asks nothing of any other host.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# HTTPS=1: served over TLS, usually behind a proxy that terminates it and sets X-Forwarded-Proto
# (which it must overwrite, never pass on from the client). Secure cookies, HSTS, redirects to https.
HTTPS = env_bool("HTTPS", default=False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]  # a load balancer's checks and a scraper may come over plain HTTP
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", default=True)

# Every process logs to stdout (the launcher, systemd or the container runtime collects it). The access
# log (studio/access.py) is the one record of requests: uvicorn's own is off, and uvicorn's messages
# lose their query strings (a WebSocket URL carries ?token=).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {
        "no_query_strings": {"()": "studio.access.DropQueryStrings"},
        "no_beat_ticks": {"()": "django.utils.log.CallbackFilter",
                          "callback": lambda record: not str(record.msg).startswith("Scheduler: Sending due task")},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.request": {"level": "ERROR"},
        "studio.access": {"level": "INFO" if env_bool("ACCESS_LOG", default=True) else "WARNING"},
        "uvicorn": {"handlers": ["console"], "propagate": False},
        "uvicorn.error": {"filters": ["no_query_strings"]},
        "uvicorn.access": {"handlers": [], "propagate": False},
        # A line per task sent and run (the sweeps run every second) is noise; failures are still logged.
        "celery.app.trace": {"level": "WARNING"},
        "celery.worker.strategy": {"level": "WARNING"},
        "celery.beat": {"filters": ["no_beat_ticks"]},
    },
}

# Unfinished (lobby or running) matches one user may have created at once (matches.services).
MATCHES_PER_PLAYER = env_int("MATCHES_PER_PLAYER", 3)
# Seconds a dealer may go without dealing a card (betting closed) before the supervisor console
# flags the table (incidents.selectors.floor); virtual and match tables use their own pace.
FLOOR_SILENCE_SECONDS = env_int("FLOOR_SILENCE_SECONDS", 20)

# Seconds the virtual dealer waits before it looks again at a finished round for its settlement.
VIRTUAL_DEALER_SETTLE_POLL = 0.05

# /metrics (Prometheus, studio.metrics): readable with `Authorization: Bearer METRICS_TOKEN` or from
# an address in METRICS_ALLOWED_IPS (addresses or networks, e.g. 10.0.0.0/8); neither set: 404.
METRICS_TOKEN = env_str("METRICS_TOKEN")
METRICS_ALLOWED_IPS = env_list("METRICS_ALLOWED_IPS", [])
for _network in METRICS_ALLOWED_IPS:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(f"METRICS_ALLOWED_IPS: {_network!r} is not an address or a network") from None
_multiproc = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _multiproc and not os.path.isdir(_multiproc):
    raise ImproperlyConfigured(f"PROMETHEUS_MULTIPROC_DIR={_multiproc!r} is not a folder (create it, empty, before the studio starts)")

# Operators and the seamless wallet (docs/OPERATORS.md). Seconds a call to an operator's wallet may
# take before its outcome counts as unknown; the retry schedule of credits and rollbacks (from
# SEAMLESS_RETRY_FIRST seconds, doubling, at most SEAMLESS_RETRY_MAX apart); how often beat sweeps
# the outbox; seconds a transaction may stay unacknowledged before it is alerted; how far a launch's
# timestamp may be from the studio's clock.
SEAMLESS_TIMEOUT = env_float("SEAMLESS_TIMEOUT", 3.0)
# The request threads of a web process (studio/http.py), and the bulkhead of the operators' wallets
# (studio.bulkhead): at most SEAMLESS_SHARE of them wait on one operator's wallet at once, and at
# most SEAMLESS_SHARE_ALL on all operators together; a call beyond is refused at once (503
# `operator_busy`), so the other threads stay free for everyone else's requests.
HTTP_THREADS = env_int("HTTP_THREADS", 8)
SEAMLESS_SHARE = env_int("SEAMLESS_SHARE", max(1, HTTP_THREADS // 2))
SEAMLESS_SHARE_ALL = env_int("SEAMLESS_SHARE_ALL", max(1, HTTP_THREADS - 2))
# The bulkhead of the rounds' locks (studio.bulkhead.round_share): at most ROUND_SHARE request threads
# of a process write to one round (or table) with the full lock wait (DB_LOCK_TIMEOUT_MS), at most
# ROUND_SHARE_ALL to all rounds together; a write beyond waits for a row lock at most
# ROUND_SHARE_OVER_WAIT_MS, then answers 503 `busy`. A round's row held for long thus holds at most
# its share of the threads, and the others keep answering everyone else.
ROUND_SHARE = env_int("ROUND_SHARE", max(1, HTTP_THREADS // 2))
ROUND_SHARE_ALL = env_int("ROUND_SHARE_ALL", max(1, HTTP_THREADS - 2))
ROUND_SHARE_OVER_WAIT_MS = env_int("ROUND_SHARE_OVER_WAIT_MS", 10)
for _name in ("HTTP_THREADS", "SEAMLESS_SHARE", "SEAMLESS_SHARE_ALL", "ROUND_SHARE", "ROUND_SHARE_ALL", "ROUND_SHARE_OVER_WAIT_MS"):
    if globals()[_name] < 1:
        raise ImproperlyConfigured(f"{_name} must be at least 1")
SEAMLESS_RETRY_FIRST = env_float("SEAMLESS_RETRY_FIRST", 1.0)
SEAMLESS_RETRY_MAX = env_float("SEAMLESS_RETRY_MAX", 60.0)
SEAMLESS_SWEEP_SECONDS = env_float("SEAMLESS_SWEEP_SECONDS", 5.0)
SEAMLESS_ALERT_AFTER = env_int("SEAMLESS_ALERT_AFTER", 300)
OPERATOR_LAUNCH_SKEW = env_int("OPERATOR_LAUNCH_SKEW", 300)
for _name in ("SEAMLESS_TIMEOUT", "SEAMLESS_RETRY_FIRST", "SEAMLESS_RETRY_MAX", "SEAMLESS_SWEEP_SECONDS"):
    if globals()[_name] <= 0:
        raise ImproperlyConfigured(f"{_name} must be a positive number of seconds")
