"""The Bug Hunt API: squads, main characters, the campaign log and the mission set-up."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.usefixtures("bughunt_tables")


@pytest.fixture
def api(player) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.force_authenticate(player)
    return client


def create(api: APIClient) -> dict:  # type: ignore[type-arg]
    response = api.post(
        "/api/v1/bughunt/squads/", {"name": "Kilo", "character_names": ["Vasquez", "Hicks", "Hudson"]}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_create_list_and_read_a_squad(api: APIClient) -> None:
    squad = create(api)
    assert [t["name"] for t in squad["troopers"]] == ["Vasquez", "Hicks", "Hudson"]
    assert squad["regiment"] and squad["version"] >= 1
    listed = api.get("/api/v1/bughunt/squads/?q=kil").json()
    assert [s["id"] for s in listed] == [squad["id"]]
    assert api.get("/api/v1/bughunt/squads/?q=zulu").json() == []
    log = api.get(f"/api/v1/bughunt/squads/{squad['id']}/log/?step=creation").json()["results"]
    assert len(log) == 4 and all(entry["rolls"] for entry in log)


def test_bad_input_names_the_field(api: APIClient) -> None:
    response = api.post("/api/v1/bughunt/squads/", {"name": "Kilo", "character_names": ["A", "B"]}, format="json")
    assert response.status_code == 400 and "character_names" in response.json()
    response = api.post(
        "/api/v1/bughunt/squads/", {"name": "Kilo", "character_names": ["A", "B", "C"], "difficulty": "Easy"}, format="json"
    )
    assert response.status_code == 400 and "difficulty" in response.json()


def test_mission_set_up_over_the_api_and_a_stale_write_gets_409(api: APIClient) -> None:
    squad = create(api)
    response = api.post(
        f"/api/v1/bughunt/squads/{squad['id']}/missions/",
        {"version": squad["version"], "objective_faces": [1, 1, 4], "priority_faces": [2, 5]},
        format="json",
    )
    assert response.status_code == 201, response.content
    mission = response.json()
    assert mission["setup"]["priority"] == 3  # lower of 2 and 5, +1 Vital
    stale = api.post(
        f"/api/v1/bughunt/missions/{mission['id']}/support/", {"version": squad["version"], "option": "Sarge"}, format="json"
    )
    assert stale.status_code == 409 and stale.json()["field"] == "version"
    current = api.get(f"/api/v1/bughunt/squads/{squad['id']}/").json()["version"]
    bad = api.post(f"/api/v1/bughunt/missions/{mission['id']}/support/", {"version": current, "option": "Tanks"}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "option" and "Sarge" in bad.json()["detail"]


def test_other_users_cannot_see_a_squad(api: APIClient, other) -> None:  # type: ignore[no-untyped-def]
    squad = create(api)
    outsider = APIClient()
    outsider.force_authenticate(other)
    assert outsider.get(f"/api/v1/bughunt/squads/{squad['id']}/").status_code == 404
    assert APIClient().get(f"/api/v1/bughunt/squads/{squad['id']}/").status_code == 401


def test_the_schema_lists_the_bughunt_endpoints(api: APIClient) -> None:
    schema = api.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    for route in (
        "/api/v1/bughunt/squads/",
        "/api/v1/bughunt/squads/{squad_id}/missions/",
        "/api/v1/bughunt/missions/{mission_id}/finish/",
    ):
        assert route in paths


def test_an_outsider_sending_bad_input_to_a_squad_or_mission_gets_404_not_400(api: APIClient, other) -> None:  # type: ignore[no-untyped-def]
    squad = create(api)
    mission = api.post(f"/api/v1/bughunt/squads/{squad['id']}/missions/", {"version": squad["version"]}, format="json")
    assert mission.status_code == 201, mission.content
    outsider = APIClient()
    outsider.force_authenticate(other)
    bad = {"version": "x", "trooper": "y", "index": -1, "loadout": 3}
    for path in ("assignments", "advance", "offers", "missions"):
        response = outsider.post(f"/api/v1/bughunt/squads/{squad['id']}/{path}/", bad, format="json")
        assert response.status_code == 404, (path, response.content)
    for path in ("support", "loadout", "start", "finish"):
        response = outsider.post(f"/api/v1/bughunt/missions/{mission.json()['id']}/{path}/", bad, format="json")
        assert response.status_code == 404, (path, response.content)


def test_an_out_of_range_trooper_or_face_is_refused_naming_the_field(api: APIClient) -> None:
    squad = create(api)
    url = f"/api/v1/bughunt/squads/{squad['id']}/assignments/"
    body = {"version": squad["version"], "assignment": "Training", "trooper": 2**70}
    response = api.post(url, body, format="json")
    assert response.status_code == 400 and "from 1 to" in str(response.json()["trooper"])
    body = {**body, "trooper": squad["troopers"][0]["id"], "faces": [40000]}
    response = api.post(url, body, format="json")
    assert response.status_code == 400 and "from 0 to 100" in str(response.json()["faces"])
    assert api.get(f"/api/v1/bughunt/squads/{squad['id']}/").json()["version"] == squad["version"]
