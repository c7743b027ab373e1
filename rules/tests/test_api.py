from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from rules.models import Roll

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def test_list_filters_by_system_and_search(api: APIClient, tables: None) -> None:
    everything = api.get("/api/v1/tables/").json()
    assert {
        "slug": "primary-alien",
        "title": "New Primary Alien table",
        "system": "fiveparsecs",
        "die": "D100",
        "source": "p.16",
    }.items() <= next(t for t in everything if t["slug"] == "primary-alien").items()
    only_threat = api.get("/api/v1/tables/?system=threat-tracker").json()
    assert only_threat and all(t["system"] == "threat-tracker" for t in only_threat)
    found = api.get("/api/v1/tables/?search=Skulker").json()
    assert [t["slug"] for t in found] == ["primary-alien"]


def test_detail_lists_entries(api: APIClient, tables: None) -> None:
    body = api.get("/api/v1/tables/primary-alien/").json()
    assert body["entries"][0] == {
        "low": 1,
        "high": 10,
        "result": "Engineer",
        "effect": "",
        "data": {"species": "engineer"},
        "column": "",
    }
    assert api.get("/api/v1/tables/no-such-table/").status_code == 404


def test_lookup_finds_the_entry(api: APIClient, tables: None) -> None:
    body = api.get("/api/v1/tables/primary-alien/lookup/?roll=45").json()
    assert body["entry"]["result"] == "Krag"
    assert body["roll"]["entered"] is True


def test_lookup_outside_the_die_names_the_allowed_range(api: APIClient, tables: None) -> None:
    response = api.get("/api/v1/tables/primary-alien/lookup/?roll=101")
    assert response.status_code == 400
    assert "from 1 to 100" in response.json()["detail"]
    assert response.json()["field"] == "roll"
    assert api.get("/api/v1/tables/primary-alien/lookup/").status_code == 400


def test_roll_returns_the_record_and_the_entry_and_logs_it(api: APIClient, tables: None, player) -> None:  # type: ignore[no-untyped-def]
    api.force_authenticate(player)
    response = api.post("/api/v1/tables/threat-outcomes/roll/", {"modifier": 20}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["roll"]["notation"] == "2D6" and body["roll"]["modifier"] == 20
    assert body["value"] == 12  # clamped to the top of 2D6
    assert body["entry"]["result"] == body["entry"]["result"] and body["entry"]["low"] == 10
    roll = Roll.objects.get()
    assert roll.user == player and roll.record == body["roll"]


def test_roll_refuses_a_reference_table(api: APIClient, tables: None) -> None:
    response = api.post("/api/v1/tables/threat-levels/roll/", {}, format="json")
    assert response.status_code == 400
    assert "reference table" in response.json()["detail"]


def test_token_auth(api: APIClient, player) -> None:  # type: ignore[no-untyped-def]
    response = api.post("/api/v1/auth/token/", {"username": "ripley", "password": "correct horse battery"}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    bad = api.post("/api/v1/auth/token/", {"username": "ripley", "password": "wrong"}, format="json")
    assert bad.status_code == 400
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/v1/tables/").status_code == 200


def test_schema_and_docs_are_served(api: APIClient) -> None:
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    for path in [
        "/api/v1/tables/",
        "/api/v1/tables/{slug}/",
        "/api/v1/tables/{slug}/lookup/",
        "/api/v1/tables/{slug}/roll/",
        "/api/v1/auth/token/",
    ]:
        assert path in paths
    docs = api.get("/api/docs/")
    assert docs.status_code == 200 and b"swagger-ui" in docs.content and b"cdn" not in docs.content.lower()


def test_openapi_schema_validates_without_warnings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi:")
