"""Dropship settings: one module, read from the environment.

With nothing set you get local play, safe to serve on a local network: SQLite in ``var/`` (WAL,
transactions started IMMEDIATE so concurrent writers wait their turn), no Redis, Celery tasks run
eagerly, live events fan out in process, DEBUG off, a secret key generated once into
``var/secret_key`` and kept, ALLOWED_HOSTS fitting the address ``make run`` serves
(``DROPSHIP_SERVE_HOST``). ``DEBUG=true`` is for development only.

Production sets ``SECRET_KEY``, ``ALLOWED_HOSTS``, ``DATABASE_URL``, ``REDIS_URL`` and, when it is
served over TLS (directly or behind a proxy), ``HTTPS=true``, which turns on the TLS hardening
(SSL redirect, secure cookies, HSTS); each switch can still be overridden on its own.
"""

from __future__ import annotations

import os
import secrets
import socket
from pathlib import Path
from urllib.parse import urlparse

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from live.network import lan_addresses

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)


def _local_secret_key(path: Path) -> str:
    """The install's own secret key: read from ``path``, or generated there (mode 0600) on the
    first start. Two processes starting together both end up with the one written first."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    # Written whole to a private temporary file, then linked into place: a reader never sees a
    # half-written key, and the link fails if another process got there first.
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    try:
        os.link(temporary, path)
    except FileExistsError:
        key = path.read_text().strip()
    finally:
        temporary.unlink()
    return key


SECRET_KEY_FILE = Path(env.str("SECRET_KEY_FILE", default=str(VAR_DIR / "secret_key")))
SECRET_KEY = env.str("SECRET_KEY", default="") or _local_secret_key(SECRET_KEY_FILE)
if len(SECRET_KEY) < 32:
    raise ImproperlyConfigured(f"SECRET_KEY is too short ({len(SECRET_KEY)} characters): use at least 50 random characters.")


# The address make run serves (HOST): on 0.0.0.0 phones reach this computer by its network
# address or name, so those are allowed; on 127.0.0.1 only this computer is.
SERVE_HOST = env.str("DROPSHIP_SERVE_HOST", default="127.0.0.1")
_local_hosts = ["127.0.0.1", "localhost", "[::1]"]
if SERVE_HOST in {"0.0.0.0", "::"}:
    _local_hosts += [*lan_addresses(), socket.gethostname(), f"{socket.gethostname()}.local"]
elif SERVE_HOST not in _local_hosts:
    _local_hosts.append(SERVE_HOST)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=_local_hosts)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_filters",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_eventstream",
    "axes",
    "rules",
    "campaigns",
    "battles",
    "tabletools",
    "bughunt",
    "live",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.PageGZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.request_guards.RefuseNulMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

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

# -- data ------------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'dropship.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and a busy timeout let the one local process serve the stream and writes together.
    # IMMEDIATE transactions take the write lock when they start, so a second writer waits
    # (up to the timeout) instead of failing at once with "database is locked" when a read lock
    # cannot be upgraded.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", "timeout": 20, "transaction_mode": "IMMEDIATE"}
    )
    # A file, not memory, so that a test can share it with a real ASGI server process; one per
    # test process, so that two test runs at once do not collide.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-dropship-{os.getpid()}.sqlite3")}
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A pool of connections per process (psycopg_pool, Django's advice under ASGI): a request
    # borrows a connection and gives it back when it ends, instead of starting a PostgreSQL
    # backend of its own (that start cost PostgreSQL more CPU than a tracker action's
    # statements). DATABASE_POOL_MAX bounds what one process holds, whatever the number of
    # phones; a request that waits DATABASE_POOL_TIMEOUT seconds for one answers 503.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": env.int("DATABASE_POOL_MAX", default=20),
        "timeout": env.float("DATABASE_POOL_TIMEOUT", default=5.0),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # django-redis so that a Redis outage degrades instead of failing requests: reads miss,
    # writes are dropped (join and API throttles stop counting until Redis is back), each
    # ignored error is logged. One immediate retry covers a pooled connection that a Redis
    # restart closed; redis-py's default ten retries with backoff would stall every request.
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": 2,
                "SOCKET_TIMEOUT": 2,
                "CONNECTION_POOL_KWARGS": {"retry": Retry(NoBackoff(), 1)},
            },
        }
    }
    DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# -- Celery: eager without a broker, Redis with one ------------------------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=REDIS_URL or "cache+memory://")
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
# Jobs acknowledge when done (acks_late): a worker takes one at a time, so a lost worker loses one.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

# -- live events (django-eventstream): Redis fan-out when configured -------------------
if REDIS_URL:
    _redis_url = urlparse(REDIS_URL)
    EVENTSTREAM_REDIS = {
        "host": _redis_url.hostname or "localhost",
        "port": _redis_url.port or 6379,
        "db": int(_redis_url.path.lstrip("/") or 0),
        "password": _redis_url.password,
        "socket_connect_timeout": 2,
    }
EVENTSTREAM_STORAGE_CLASS = "live.events.RoomEventStorage"
EVENTSTREAM_CHANNELMANAGER_CLASS = "live.events.RoomChannelManager"

# -- auth -------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Tests only (the root conftest.py sets DROPSHIP_FAST_PASSWORD_HASHER): a PBKDF2 hash takes
# most of a second; MD5 makes test users cheap, and PBKDF2 stays listed so any hash still checks.
FAST_PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
if env.bool("DROPSHIP_FAST_PASSWORD_HASHER", default=False):
    PASSWORD_HASHERS = FAST_PASSWORD_HASHERS
# Wrong passwords are counted (django-axes) per user name and address, on the login page and the
# API token endpoint alike; after AXES_FAILURE_LIMIT failures that pair is locked out for an hour.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = 1  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# New accounts per address (django-ratelimit, counted in the cache).
SIGNUP_RATE = env.str("SIGNUP_RATE", default="10/h")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "rules:table_list"
LOGOUT_REDIRECT_URL = "rules:table_list"

# -- API --------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header makes an unauthenticated call a 401, not a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "config.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "config.schema.DropshipAutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_PAGINATION_CLASS": None,
    # Only views that name a throttle scope are throttled: the token endpoint.
    "DEFAULT_THROTTLE_RATES": {"token": env.str("TOKEN_RATE", default="20/min")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Dropship API",
    "DESCRIPTION": "Rule tables, rolls, campaigns and live trackers for Five Parsecs from Home and Bug Hunt.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Say what the URL converters accept, so that a client (or the schema fuzzing) knows which
    # values reach the API at all; anything else is the router's HTML 404.
    "PATH_CONVERTER_OVERRIDES": {
        "int": {"type": "integer", "minimum": 0},
        "slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
    },
    # Several models have a "status" field with different choices; name each set.
    "ENUM_NAME_OVERRIDES": {
        "CharacterStatusEnum": "campaigns.models.Character.STATUSES",
        "FpBattleStatusEnum": "battles.models.Battle.STATUSES",
        "FpBattleJobStatusEnum": "battles.models.BattleJob.STATUSES",
        # The elite enemy categories (pp.48-65): a three-way battle's third party, a co-op battle's forces.
        "EnemyCategoryEnum": "battles.engine.fp_pvp.third.CATEGORIES",
    },
}

# -- i18n, static -----------------------------------------------------------------------
LANGUAGE_CODE = "en-gb"
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(VAR_DIR / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns on every request without it.
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed files (collectstatic, run by make run) are served by WhiteNoise with a
    # year-long cache; before collectstatic has run, pages name the plain files and WhiteNoise
    # finds them in static/ (a fresh clone with DEBUG off still shows styled pages).
    "staticfiles": {"BACKEND": "config.staticfiles.StaticStorage"},
}
WHITENOISE_USE_FINDERS = True

# -- Content-Security-Policy (Django's own middleware): scripts only from this site --------
# htmx may not evaluate code from attributes (allowEval is off in _base.html), so no inline
# script, ``hx-on`` or ``onclick`` is needed; inline style attributes stay allowed.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# -- TLS hardening: on when the site is served over HTTPS (HTTPS=true) -------------------
# Local play serves plain HTTP on the local network, where secure cookies and an SSL redirect
# would lock every phone out; production behind TLS sets HTTPS=true.
HTTPS = env.bool("HTTPS", default=False)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=HTTPS)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=HTTPS)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=HTTPS)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=HTTPS)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=HTTPS)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_TLS_PROXY", default=False) else None
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
}

# Test runs can demand that nothing is skipped for a missing service (set by .ci/run).
DROPSHIP_REQUIRE_SERVICES = env.bool("DROPSHIP_REQUIRE_SERVICES", default=False)
