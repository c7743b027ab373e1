"""Bad input gets a clear 400 naming the field and writes nothing; unauthenticated API calls get
401 with a challenge. Cross-app checks of the shared request layer (parsers, middleware)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from live import services
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner() -> Any:
    return UserFactory(username="owner")


def test_an_unauthenticated_api_call_gets_401_with_a_token_challenge() -> None:
    response = APIClient().get("/api/v1/campaigns/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_a_non_finite_number_in_a_json_body_is_refused_naming_the_field(owner: Any) -> None:
    room = services.room_create(user=owner, kind="threat", title="Hadley's Hope")
    client = APIClient()
    client.force_authenticate(owner)
    response = client.post(
        f"/api/v1/rooms/{room.pk}/actions/",
        data='{"type": "end_phase", "payload": {}, "version": 1e999}',
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["field"] == "version" and "finite" in response.json()["detail"]
    room.refresh_from_db()
    assert room.version == 0


def test_a_nul_character_in_a_json_body_is_refused_naming_the_field(owner: Any) -> None:
    client = APIClient()
    client.force_authenticate(owner)
    response = client.post("/api/v1/rooms/", data='{"kind": "threat", "title": "Sul\\u0000aco"}', content_type="application/json")
    assert response.status_code == 400 and response.json()["field"] == "title"
    assert not owner.owned_rooms.exists()


def test_a_nul_character_in_a_json_key_is_refused(owner: Any) -> None:
    client = APIClient()
    client.force_authenticate(owner)
    response = client.post(
        "/api/v1/rooms/",
        data='{"kind": "threat", "title": "Sulaco", "options": {"thr\\u0000eat": 2}}',
        content_type="application/json",
    )
    assert response.status_code == 400 and "options" in response.json()["field"]
    assert not owner.owned_rooms.exists()


def test_a_nul_character_in_a_search_parameter_is_refused_naming_it() -> None:
    response = Client().get("/tables/?q=%00")
    assert response.status_code == 400
    assert b"q must not contain NUL" in response.content


def test_a_nul_character_in_an_api_filter_is_refused_naming_it(owner: Any) -> None:
    client = APIClient()
    client.force_authenticate(owner)
    response = client.get("/api/v1/campaigns/?q=Sul%00aco")
    assert response.status_code == 400
    assert response.json()["field"] == "q"


def test_a_nul_character_in_a_form_field_is_refused_and_nothing_is_written(owner: Any) -> None:
    client = Client()
    client.force_login(owner)
    response = client.post("/rooms/", {"kind": "threat", "title": "Sul\x00aco", "threat": "2"})
    assert response.status_code == 400
    assert b"title must not contain NUL" in response.content
    assert not owner.owned_rooms.exists()


@pytest.mark.parametrize(
    ("url", "field", "allowed"),
    [
        ("/api/v1/tables/?kind=randm", "kind", "Must be one of random, reference; got 'randm'"),
        ("/api/v1/fp-battles/?status=won", "status", "Must be one of setup, tracking, nominis, finished"),
        ("/api/v1/fp-battles/?campaign=abc", "campaign", "campaign:"),
        ("/api/v1/fp-battles/?campaign=99999999999999999999", "campaign", "from 1 to"),
        ("/api/v1/campaigns/?q=" + "x" * 201, "q", "200 characters"),
        ("/api/v1/bughunt/squads/?q=" + "x" * 201, "q", "200 characters"),
    ],
)
def test_an_invalid_list_filter_is_refused_naming_it_and_the_allowed_values(
    owner: Any, url: str, field: str, allowed: str
) -> None:
    client = APIClient()
    client.force_authenticate(owner)
    response = client.get(url)
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field and allowed in response.json()["detail"]


def test_an_unknown_rule_system_filter_names_the_systems(owner: Any) -> None:
    from tests.tables import load_system_tables

    load_system_tables("bughunt")
    response = APIClient().get("/api/v1/tables/?system=warhammer")
    assert response.status_code == 400
    assert response.json()["field"] == "system" and "bughunt" in response.json()["detail"]
    assert APIClient().get("/api/v1/tables/?system=bughunt").status_code == 200


def test_a_superscript_digit_in_a_list_filter_is_ignored_not_a_server_error(owner: Any) -> None:
    from bughunt import services as bughunt_services
    from tests.tables import load_system_tables

    load_system_tables("bughunt")
    squad = bughunt_services.squad_create(user=owner, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=1)
    client = Client()
    client.force_login(owner)
    assert client.get("/battles/fp/?campaign=%C2%B2").status_code == 200
    assert client.get(f"/bughunt/{squad.pk}/log/?mission=%C2%B2").status_code == 200


@pytest.mark.parametrize("room_id", ["99999999999999999999", "9223372036854775808"])
def test_a_room_id_beyond_any_row_is_not_found_not_a_server_error(owner: Any, room_id: str) -> None:
    """A room id past PostgreSQL's bigint is refused as no such room (the room's read is a
    statement compiled once and given the id: the number must fit a column first)."""
    client = APIClient()
    client.force_authenticate(owner)
    assert client.get(f"/api/v1/rooms/{room_id}/").status_code == 404
    acted = client.post(f"/api/v1/rooms/{room_id}/actions/", {"type": "end_phase", "version": 0}, format="json")
    assert acted.status_code == 404
    page = Client()
    page.force_login(owner)
    assert page.get(f"/rooms/{room_id}/").status_code == 404
