"""The Five Parsecs battles API (/api/v1/fp-battles/...): set-up, refusals by field, versions
(409), roles (reader 403, outsider 404), no-minis play with undo, the tracker, finish and odds
jobs, and the OpenAPI schema."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from battles.models import Battle
from battles.tests.fp_data import CREW, PUNKS
from campaigns import services as campaign_services
from campaigns.models import Character
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def api(player: Any) -> APIClient:
    return client_for(player)


def create(api: APIClient, **extra: Any) -> dict[str, Any]:
    body = {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}, "seed": 4, **extra}
    response = api.post("/api/v1/fp-battles/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_set_up_list_read_rename_and_delete(api: APIClient, other: Any) -> None:
    battle = create(api, title="Dock fight", theme="wilderness")
    assert battle["title"] == "Dock fight" and battle["status"] == "setup" and battle["version"] == 1
    assert battle["setup"]["battle"]["terrain"]["theme"] == "wilderness" and battle["choices"] == []
    create(client_for(other))
    assert [b["id"] for b in api.get("/api/v1/fp-battles/").json()] == [battle["id"]]
    assert api.get("/api/v1/fp-battles/?status=finished").json() == []
    url = f"/api/v1/fp-battles/{battle['id']}/"
    renamed = api.patch(url, {"version": 1, "title": "Dockside"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["title"] == "Dockside"
    stale = api.delete(url, {"version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["version"] == 2
    assert api.delete(url, {"version": 2}, format="json").status_code == 204
    assert not Battle.objects.filter(pk=battle["id"]).exists()


def test_a_bad_set_up_names_the_field(api: APIClient) -> None:
    response = api.post("/api/v1/fp-battles/", {"enemy": PUNKS, "crew": CREW, "seed": 1}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "hit_numbers"
    response = api.post("/api/v1/fp-battles/", {"enemy": PUNKS, "hit_numbers": {"open": 5, "cover": 6}}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "crew"
    assert not Battle.objects.exists()


def test_readers_get_403_on_writes_and_outsiders_404(api: APIClient, player: Any, other: Any) -> None:
    campaign = campaign_services.campaign_create(user=player, name="Drift", options={"crew_size": 4, "dramatic_combat": True})
    Character.objects.create(campaign=campaign, name="Ria", reactions=2, speed=5, toughness=4, sheet={"equipment": ["Hand gun"]})
    reader = UserFactory(username="reader")
    campaign_services.member_invite(user=player, campaign_id=campaign.pk, username="reader", role="reader")
    battle = create(
        api,
        campaign_id=campaign.pk,
        crew=None,
        hit_numbers=None,
        enemy={"elite": True, "category": "Hired Muscle", "base_numbers": 3},
    )
    assert battle["campaign"] == campaign.pk and battle["setup"]["crew"][0]["name"] == "Ria"
    url = f"/api/v1/fp-battles/{battle['id']}/"
    assert client_for(reader).get(url).status_code == 200
    assert client_for(reader).post(f"{url}track/", {"version": 1}, format="json").status_code == 403
    assert client_for(other).get(url).status_code == 404
    assert client_for(other).post(f"{url}nominis/", {"version": 1, "mode": "assisted"}, format="json").status_code == 404
    assert [b["id"] for b in client_for(reader).get(f"/api/v1/fp-battles/?campaign={campaign.pk}").json()] == [battle["id"]]
    assert APIClient().get(url).status_code == 401


def test_no_minis_play_undo_and_finish(api: APIClient) -> None:
    battle = create(api)
    url = f"/api/v1/fp-battles/{battle['id']}/"
    bad = api.post(f"{url}nominis/", {"version": 1, "mode": "lazy"}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "mode"
    started = api.post(f"{url}nominis/", {"version": 1, "mode": "assisted"}, format="json").json()
    assert started["status"] == "nominis" and started["choices"][0]["type"] == "roll_initiative"
    acted = api.post(
        f"{url}nominis/act/", {"version": started["version"], "action": started["choices"][0], "seed": 3}, format="json"
    )
    assert acted.status_code == 200, acted.content
    assert acted.json()["nominis"]["actions"] == [{"action": {"type": "roll_initiative"}, "seed": 3}]
    undone = api.post(f"{url}nominis/undo/", {"version": acted.json()["version"]}, format="json").json()
    assert undone["nominis"]["actions"] == [] and undone["nominis"]["state"] == started["nominis"]["state"]
    played = api.post(f"{url}nominis/auto/", {"version": undone["version"], "seed": 9}, format="json").json()
    assert played["nominis"]["state"]["finished"] and played["choices"] == []
    done = api.post(f"{url}finish/", {"version": played["version"]}, format="json").json()
    assert done["status"] == "finished" and done["result"]["source"] == "nominis"


def test_track_then_finish_by_hand_and_odds_job(api: APIClient, django_capture_on_commit_callbacks: Any, settings: Any) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the job runs in this process, as without Redis
    battle = create(api)
    url = f"/api/v1/fp-battles/{battle['id']}/"
    tracked = api.post(f"{url}track/", {"version": 1}, format="json").json()
    assert tracked["url"] == f"/rooms/{tracked['room']}/" and tracked["battle"]["status"] == "tracking"
    undecided = api.post(f"{url}finish/", {"version": tracked["battle"]["version"]}, format="json")
    assert undecided.status_code == 400 and undecided.json()["field"] == "held_field"
    done = api.post(f"{url}finish/", {"version": tracked["battle"]["version"], "held_field": False}, format="json").json()
    assert done["result"]["source"] == "tracker" and done["result"]["held_field"] is False
    assert api.post(f"{url}odds/", {"runs": 3}, format="json").json()["field"] == "runs"
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(f"{url}odds/", {"runs": 10}, format="json")
    assert started.status_code == 202
    job = api.get(f"/api/v1/fp-battle-jobs/{started.json()['id']}/").json()
    assert job["status"] == "done" and job["progress"] == 100 and "chance_hold" in job["result"]


def test_the_schema_lists_the_battle_endpoints(api: APIClient) -> None:
    schema = api.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    for tail in ("", "{battle_id}/", "{battle_id}/nominis/act/", "{battle_id}/finish/", "{battle_id}/odds/"):
        assert f"/api/v1/fp-battles/{tail}" in paths
    assert "/api/v1/fp-battle-jobs/{job_id}/" in paths


def test_an_elite_battle_finished_by_hand_takes_the_reward_answers(api: APIClient) -> None:
    elite = {"elite": True, "category": "Interested Parties", "base_numbers": 3, "basic_weapon": "Hand gun"}
    battle = create(api, enemy=elite, seed=6)
    url = f"/api/v1/fp-battles/{battle['id']}/"
    answers = {"held_field": True, "killed_any": True, "killed_leader": True, "quest_finished": True, "rival_roll": "maybe"}
    bad = api.post(f"{url}finish/", {"version": battle["version"], **answers}, format="json")
    assert bad.status_code == 400 and "rival_roll" in bad.content.decode()
    done = api.post(f"{url}finish/", {"version": battle["version"], **answers, "rival_roll": True}, format="json").json()
    rewards = done["result"]["elite_rewards"]
    assert any(line.startswith("Better Loot") for line in rewards["lines"]) and rewards["loot_items"] == 1  # Quest Rewards
    if battle["setup"]["enemy"]["profile"]["data"].get("intrigue_dice"):  # an Intrigue type rolls, +1 for the leader
        assert rewards["rolls"] and rewards["rolls"][0]["modifier"] >= 1


def _battle_routes() -> list[str]:
    from battles.apis import urlpatterns

    return [str(p.pattern) for p in urlpatterns if "<int:battle_id>" in str(p.pattern)]


@pytest.mark.parametrize("route", _battle_routes())
def test_an_outsider_sending_bad_input_to_a_battle_gets_404_not_400(api: APIClient, other: Any, route: str) -> None:
    battle = create(api)
    url = "/api/v1/" + route.replace("<int:battle_id>", str(battle["id"]))
    bad = {"version": "not a number", "mode": 3, "runs": "many", "title": "", "action": "x"}
    for method in ("post", "put", "patch", "delete"):
        response = getattr(client_for(other), method)(url, bad, format="json")
        assert response.status_code in (404, 405), (method, url, response.status_code, response.content)
    assert Battle.objects.get(pk=battle["id"]).version == battle["version"]


def test_a_campaign_reader_sending_bad_input_to_a_battle_gets_403_not_400(api: APIClient, player: Any) -> None:
    campaign = campaign_services.campaign_create(user=player, name="Drift", options={"crew_size": 4})
    Character.objects.create(campaign=campaign, name="Ria", reactions=2, speed=5, toughness=4, sheet={"equipment": ["Hand gun"]})
    reader = UserFactory(username="reader")
    campaign_services.member_invite(user=player, campaign_id=campaign.pk, username="reader", role="reader")
    battle = create(api, campaign_id=campaign.pk, crew=None)
    url = f"/api/v1/fp-battles/{battle['id']}/nominis/"
    response = client_for(reader).post(url, {"version": "x", "mode": 3}, format="json")
    assert response.status_code == 403


def test_an_out_of_range_seed_or_version_is_refused_naming_the_field(api: APIClient) -> None:
    response = api.post(
        "/api/v1/fp-battles/",
        {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}, "seed": 2**70},
        format="json",
    )
    assert response.status_code == 400 and "from 0 to" in str(response.json()["seed"])
    assert not Battle.objects.exists()
    battle = create(api)
    response = api.patch(f"/api/v1/fp-battles/{battle['id']}/", {"version": 2**40, "title": "Dockside"}, format="json")
    assert response.status_code == 400 and "from 1 to 2147483647" in str(response.json()["version"])
