"""Odd input the API refuses with a 400 naming the field, before it reaches a column that
cannot hold it (found by the schema fuzzing in tests/test_api_schemathesis.py)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from campaigns.models import Ship
from live.models import Room
from rules.errors import DropshipError
from rules.payloads import check_json
from tests.world import World, build_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> World:
    return build_world()


@pytest.fixture
def api(world: World) -> APIClient:
    client = APIClient()
    client.force_authenticate(world.users["owner"])
    return client


def test_a_ship_hull_beyond_its_column_is_a_400_naming_the_field(world: World, api: APIClient) -> None:
    url = f"/api/v1/campaigns/{world.campaign.pk}/ship/"
    body = {"version": world.campaign.version, "name": "Tin Can", "hull": 6, "max_hull": 12179496}
    response = api.put(url, body, format="json")
    assert response.status_code == 400 and "max_hull" in response.json()
    assert Ship.objects.get(campaign=world.campaign).max_hull != 12179496


def test_a_nul_character_in_a_tracker_payload_is_a_400_naming_where(world: World, api: APIClient) -> None:
    url = f"/api/v1/rooms/{world.room.pk}/actions/"
    body = {"type": "add_character", "payload": {"name": "Rip\x00ley"}, "version": world.room.version}
    response = api.post(url, body, format="json")
    assert response.status_code == 400 and response.json()["field"] == "payload.name"
    assert Room.objects.get(pk=world.room.pk).version == world.room.version


def test_an_outsider_sending_a_nul_character_still_gets_404(world: World) -> None:
    client = APIClient()
    client.force_authenticate(world.users["outsider"])
    body = {"type": "add_character", "payload": {"name": "\x00"}, "version": 0}
    assert client.post(f"/api/v1/rooms/{world.room.pk}/actions/", body, format="json").status_code == 404


def test_non_finite_numbers_in_a_json_body_are_refused(world: World, api: APIClient) -> None:
    url = f"/api/v1/rooms/{world.room.pk}/actions/"
    body = '{"type": "add_character", "payload": {"name": "Ripley", "speed": NaN}, "version": 0}'
    response = api.post(url, body, content_type="application/json")
    assert response.status_code == 400
    assert Room.objects.get(pk=world.room.pk).version == world.room.version


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"a": [1, {"b": "x\x00"}]}, "a[1].b"),
        ({"ok": "fine", "n": [1.5, None, True]}, None),
        ({"speed": float("inf")}, "speed"),
    ],
)
def test_the_json_check_names_the_first_value_a_column_cannot_hold(data: Any, where: str | None) -> None:
    if where is None:
        check_json(data, field="")
        return
    with pytest.raises(DropshipError) as refused:
        check_json(data, field="")
    assert refused.value.field == where


def test_creation_results_refuse_a_count_no_table_gives(world: World, api: APIClient) -> None:
    url = f"/api/v1/campaigns/{world.campaign.pk}/characters/{world.character.pk}/creation-results/"
    for field, value in (("patrons", 20077), ("rivals", 11), ("credits_results", 500), ("stat_changes", {"speed": 32767})):
        response = api.post(url, {"version": world.campaign.version, field: value}, format="json")
        assert response.status_code == 400 and field in response.json(), (field, response.content)
    assert not world.campaign.patrons.exists() and not world.campaign.rivals.exists()
