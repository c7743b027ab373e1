"""Settings follow the environment: safe local play by default, a clean deploy check in
production, and the security answers that hold on any network."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.test.utils import override_settings

ROOT = Path(__file__).resolve().parent.parent

SERVICE_VARIABLES = {
    "DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "SECRET_KEY_FILE", "ALLOWED_HOSTS", "HTTPS",
    "DROPSHIP_SERVE_HOST", "DJANGO_ALLOW_ASYNC_UNSAFE",
}  # fmt: skip


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=120
    )


def _settings(names: list[str], **env: str) -> dict[str, object]:
    """The values of ``names`` in a fresh process with ``env`` on top of a clean environment."""
    code = (
        "import django, json, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup();"
        "from django.conf import settings as s;"
        f"print(json.dumps({{n: getattr(s, n) for n in {names!r}}}, default=str))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in SERVICE_VARIABLES}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_deploy_check_is_clean_with_production_variables() -> None:
    done = _manage(
        "check", "--deploy", "--fail-level", "WARNING",
        SECRET_KEY="x" * 20 + "a-long-random-production-secret-key", ALLOWED_HOSTS="dropship.example", HTTPS="true",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_defaults_are_sqlite_and_eager_celery_with_debug_off(tmp_path: Path) -> None:
    values = _settings(["DATABASES", "CELERY_TASK_ALWAYS_EAGER", "CACHES", "DEBUG"], SECRET_KEY_FILE=str(tmp_path / "key"))
    db = values["DATABASES"]["default"]  # type: ignore[index]
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    # Concurrent writers wait their turn instead of failing with "database is locked".
    assert db["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]
    assert values["CELERY_TASK_ALWAYS_EAGER"] is True
    assert values["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"  # type: ignore[index]
    assert values["DEBUG"] is False


def test_a_secret_key_is_generated_once_per_install_and_kept(tmp_path: Path) -> None:
    key_file = tmp_path / "var" / "secret_key"
    first = _settings(["SECRET_KEY"], SECRET_KEY_FILE=str(key_file))["SECRET_KEY"]
    second = _settings(["SECRET_KEY"], SECRET_KEY_FILE=str(key_file))["SECRET_KEY"]
    assert first == second == key_file.read_text().strip()
    assert len(str(first)) >= 50
    assert "insecure" not in str(first)
    assert key_file.stat().st_mode & 0o077 == 0  # readable by its owner only
    other = _settings(["SECRET_KEY"], SECRET_KEY_FILE=str(tmp_path / "another"))["SECRET_KEY"]
    assert other != first


def test_a_short_secret_key_is_refused() -> None:
    done = _manage("check", SECRET_KEY="short")
    assert done.returncode != 0
    assert "SECRET_KEY is too short" in done.stderr


def test_allowed_hosts_fit_the_served_address(tmp_path: Path) -> None:
    local = _settings(["ALLOWED_HOSTS"], SECRET_KEY_FILE=str(tmp_path / "k"))["ALLOWED_HOSTS"]
    assert local == ["127.0.0.1", "localhost", "[::1]"]
    lan = _settings(["ALLOWED_HOSTS"], SECRET_KEY_FILE=str(tmp_path / "k"), DROPSHIP_SERVE_HOST="0.0.0.0")["ALLOWED_HOSTS"]
    assert isinstance(lan, list) and isinstance(local, list)
    assert "*" not in lan
    assert set(local) <= set(lan)
    assert socket.gethostname() in lan
    assert _settings(["ALLOWED_HOSTS"], SECRET_KEY_FILE=str(tmp_path / "k"), ALLOWED_HOSTS="a.example")["ALLOWED_HOSTS"] == [
        "a.example"
    ]


def test_tls_hardening_follows_https_not_debug(tmp_path: Path) -> None:
    names = ["SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS"]
    plain = _settings(names, SECRET_KEY_FILE=str(tmp_path / "k"))
    assert plain == {
        "SECURE_SSL_REDIRECT": False,
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "SECURE_HSTS_SECONDS": 0,
    }
    tls = _settings(names, SECRET_KEY_FILE=str(tmp_path / "k"), HTTPS="true")
    assert tls == {
        "SECURE_SSL_REDIRECT": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31536000,
    }


@pytest.mark.django_db
def test_pages_carry_a_content_security_policy_without_inline_script() -> None:
    response = Client().get("/tables/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert "unsafe-eval" not in policy
    html = response.content.decode()
    assert "<script>" not in html and "hx-on" not in html and "onclick=" not in html


def test_no_template_has_inline_script_or_attribute_code() -> None:
    """script-src 'self' refuses inline scripts and handlers; htmx's allowEval is off, so code in
    hx-on, hx-vals="js:" or trigger filters would be refused too."""
    offenders = []
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        for marker in ("hx-on", " onclick=", " onchange=", " onsubmit=", " oninput=", "js:{", "javascript:", "hx-vars"):
            if marker in text:
                offenders.append(f"{path.relative_to(ROOT)}: {marker}")
        for line in text.splitlines():
            if "<script" in line and "src=" not in line:
                offenders.append(f"{path.relative_to(ROOT)}: inline <script>")
    assert offenders == []


@pytest.mark.django_db
def test_template_comments_stay_out_of_the_page() -> None:
    """Django's ``{# #}`` comment ends on its own line; one spread over several lines is printed
    on the page (a base template's once headed every screen). Longer notes use ``{% comment %}``."""
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in (ROOT / "templates").rglob("*.html")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if line.count("{#") != line.count("#}")
    ]
    assert offenders == []
    page = Client().get("/accounts/login/").content.decode()
    assert "{#" not in page and "#}" not in page


@pytest.mark.django_db
@override_settings(DEBUG=False)
def test_a_server_error_shows_the_styled_page_and_json_on_the_api() -> None:
    from django.urls import path

    from config import urls

    def boom(request):  # type: ignore[no-untyped-def]
        raise RuntimeError("secret detail REDIS_URL")

    extra = [path("boom/", boom), path("api/v1/boom/", boom)]
    with override_settings(ROOT_URLCONF=type("U", (), {"urlpatterns": extra + urls.urlpatterns, "handler500": urls.handler500})):
        client = Client(raise_request_exception=False)
        page = client.get("/boom/")
        assert page.status_code == 500
        body = page.content.decode()
        assert "Something went wrong" in body and "Traceback" not in body and "REDIS_URL" not in body
        api = client.get("/api/v1/boom/")
        assert api.status_code == 500
        assert api.json() == {"detail": "Server error: the request was not carried out. Try again."}


@pytest.mark.django_db
def test_an_unknown_api_address_answers_json_404() -> None:
    response = Client().get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


@pytest.mark.django_db
def test_html_pages_are_compressed() -> None:
    response = Client().get("/tables/", HTTP_ACCEPT_ENCODING="gzip")
    assert response["Content-Encoding"] == "gzip"


def test_each_test_process_has_a_redis_database_of_its_own() -> None:
    """pytest-xdist's worker gwN takes the Redis database N below REDIS_URL's, wrapping at 0."""
    from tests.settings import worker_redis_url

    assert worker_redis_url("redis://127.0.0.1:6379/15", 0) == "redis://127.0.0.1:6379/15"
    assert worker_redis_url("redis://127.0.0.1:6379/15", 1) == "redis://127.0.0.1:6379/14"
    assert worker_redis_url("redis://:secret@redis:6379", 1) == "redis://:secret@redis:6379/15"
    assert len({worker_redis_url("redis://127.0.0.1/3", n) for n in range(16)}) == 16
