"""Settings follow the environment: local defaults, and a clean deploy check in production."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


SERVICE_VARIABLES = {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE"}


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=120
    )


def test_deploy_check_is_clean_with_production_variables() -> None:
    done = _manage(
        "check", "--deploy", "--fail-level", "WARNING",
        DEBUG="false", SECRET_KEY="x" * 20 + "a-long-random-production-secret-key", ALLOWED_HOSTS="dropship.example",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_production_without_secret_key_refuses_to_start() -> None:
    done = _manage("check", DEBUG="false")
    assert done.returncode != 0
    assert "Set SECRET_KEY" in done.stderr


def test_defaults_are_sqlite_and_eager_celery() -> None:
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup();"
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, s.CACHES['default']['BACKEND'])"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["django.db.backends.sqlite3", "True", "django.core.cache.backends.locmem.LocMemCache"]
