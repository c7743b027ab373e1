"""Fuzz every operation of the OpenAPI schema that drf-spectacular generates, in process through
the WSGI app, as a signed-in owner (token auth) whose campaign, character, battle, squad,
mission, room and table fill the path parameters. A response fails the test when it is a 5xx or
does not match the schema: its status code, its content type or its body's shape.

Bounded for CI: a few derandomized examples per operation (positive and negative data), no
shrinking, a time budget for the whole run, each request rolled back so every example starts
from the same objects. It runs on
SQLite too, but NUL bytes and integer overflow only surface on PostgreSQL (CI sets
``DATABASE_URL``)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from tests.world import World, build_world

pytestmark = pytest.mark.django_db

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Every operation below has the same test id; pytest-xdist would run one and drop the rest.
    raise RuntimeError("the schema fuzzing runs in one process: pytest without -n (make test does)")

EXAMPLES_PER_OPERATION = 10
# The whole fuzzing run's cap: operations still waiting when it is spent skip, each saying so (the
# summary lists them), rather than stretching CI without end. Every operation took 504 s on 2
# shared cores (2026-11-27); at 200 s, 53 of the 89 skipped in CI.
BUDGET_SECONDS = 900.0
_started: list[float] = []

schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
schema.app = application
schema.config.generation.update(max_examples=EXAMPLES_PER_OPERATION, deterministic=True, no_shrink=True, database="none")

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def world() -> Iterator[World]:
    """The owner's objects, with the request signals that would close the test's connection
    (and so its transaction) disconnected, as Django's own test client does."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield build_world()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _path_value(path: str, name: str, world: World) -> Any:
    if name == "slug" and path.startswith("/api/v1/tables/"):
        return world.system_table.slug
    if name == "job_id":
        if "bughunt" in path:
            return world.extra["squad_job"].pk
        return world.battle_job.pk if "battle" in path else world.campaign_job.pk
    if name == "slot":
        return None  # the generated slot names, valid or not, are the interesting part
    return world.kwargs().get(name)


def _current_version(path: str, world: World) -> int | None:
    """The version of the object the path writes to, so that writes get past the stale check."""
    for prefix, obj in (
        ("/api/v1/campaigns/{campaign_id}", world.campaign),
        ("/api/v1/fp-battles/{battle_id}", world.battle),
        ("/api/v1/bughunt/squads/{squad_id}", world.squad),
        ("/api/v1/bughunt/missions/{mission_id}", world.squad),
        ("/api/v1/rooms/{room_id}", world.room),
    ):
        if path.startswith(prefix):
            obj.refresh_from_db()
            return int(obj.version)
    return None


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, print_blob=True)
def test_the_api_answers_every_operation_as_its_schema_says(case: Any, world: World) -> None:
    if not _started:
        _started.append(time.monotonic())
    if time.monotonic() - _started[0] > BUDGET_SECONDS:
        pytest.skip(f"the schema fuzzing budget ({BUDGET_SECONDS:.0f}s) is spent before {case.method} {case.path}")
    for name in list(case.path_parameters or {}):
        value = _path_value(case.path, name, world)
        if value is not None:
            case.path_parameters[name] = value
    if isinstance(case.body, dict) and isinstance(case.body.get("version"), int):
        version = _current_version(case.path, world)
        if version is not None:
            case.body["version"] = version
    token, _ = Token.objects.get_or_create(user=world.users["owner"])
    with transaction.atomic():
        # identity: the in-process transport hands the body over as sent, and pages and API answers
        # are gzip-compressed for clients that ask (config.middleware.PageGZipMiddleware).
        response = case.call(headers={"Authorization": f"Token {token.key}", "Accept-Encoding": "identity"})
        transaction.set_rollback(True)
    case.validate_response(response, checks=CHECKS)


def _spec() -> dict[str, Any]:
    return dict(SchemaGenerator().get_schema(request=None, public=True))


def test_the_schema_says_a_bughunt_log_entry_may_have_no_mission() -> None:
    mission = _spec()["components"]["schemas"]["CampaignLogEntry"]["properties"]["mission"]
    assert mission.get("nullable") is True or "null" in str(mission.get("type"))


def test_every_operation_documents_its_refusals() -> None:
    for path, item in _spec()["paths"].items():
        for method, operation in item.items():
            codes = set(operation["responses"])
            assert {"400", "401", "403"} <= codes, f"{method.upper()} {path} documents {sorted(codes)}"
            if "{" in path or method not in ("get", "head"):
                assert "404" in codes, f"{method.upper()} {path} documents {sorted(codes)}"
            if method not in ("get", "head"):
                assert {"409", "415"} <= codes, f"{method.upper()} {path} documents {sorted(codes)}"
            assert operation["responses"]["403"]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ApiError"
            }


def test_path_parameters_say_what_the_url_converters_accept() -> None:
    parameters = _spec()["paths"]["/api/v1/my-tables/{slug}/"]["get"]["parameters"]
    slug = next(p for p in parameters if p["name"] == "slug")
    assert slug["schema"]["pattern"] == "^[-a-zA-Z0-9_]+$"
    parameters = _spec()["paths"]["/api/v1/rooms/{room_id}/"]["get"]["parameters"]
    room_id = next(p for p in parameters if p["name"] == "room_id")
    assert room_id["schema"]["minimum"] == 0


def test_the_join_endpoint_documents_its_throttle() -> None:
    assert "429" in _spec()["paths"]["/api/v1/rooms/join/"]["post"]["responses"]


def test_an_unmatched_api_path_gets_a_json_404(client: Any) -> None:
    response = client.get("/api/v1/campaigns/1/slots/%C2%84/")
    assert response.status_code == 404 and response.json() == {"detail": "Not found."}
    page = client.get("/campaigns/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
