"""Test-wide rules: tests that need Chromium, PostgreSQL or Redis skip with a reason when those
are absent, unless DROPSHIP_REQUIRE_SERVICES is set (as .ci/run does), which turns every such
skip into a failure."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")

# Cheap password hashes for test users, here and in the ASGI servers the browser tests start
# (they inherit the environment); see config/settings.py.
os.environ.setdefault("DROPSHIP_FAST_PASSWORD_HASHER", "1")
# Static files come from static/ itself, never from a collectstatic of an older checkout in
# var/static (whose manifest would name stale copies); the ASGI servers inherit this.
os.environ["STATIC_ROOT"] = tempfile.mkdtemp(prefix="dropship-static-")


def _require(reason: str) -> None:
    from django.conf import settings

    if settings.DROPSHIP_REQUIRE_SERVICES:
        pytest.fail(f"DROPSHIP_REQUIRE_SERVICES is set, but {reason}", pytrace=False)
    pytest.skip(reason)


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    settings.PASSWORD_HASHERS = settings.FAST_PASSWORD_HASHERS  # settings may load before this file
    settings.STATIC_ROOT = os.environ["STATIC_ROOT"]


def chromium_path() -> str | None:
    return CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("browser") and not chromium_path():
        _require(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    if item.get_closest_marker("postgres"):
        from django.db import connection

        if connection.vendor != "postgresql":
            _require("the database is not PostgreSQL (set DATABASE_URL=postgres://...)")
    if item.get_closest_marker("redis"):
        from django.conf import settings

        if not settings.REDIS_URL:
            _require("REDIS_URL is not set")
        else:
            import redis

            try:
                redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2).ping()
            except redis.RedisError as exc:
                _require(f"Redis at REDIS_URL does not answer ({exc})")


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Each test starts with an empty cache (join throttling counts live there) and no rule
    tables in memory (a test's rollback removes its tables without a version change)."""
    from django.core.cache import cache

    from rules.selectors import forget_cached_tables

    cache.clear()
    forget_cached_tables()


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(os.environ.get("STATIC_ROOT", ""), ignore_errors=True)
