"""The campaigns API (/api/v1/campaigns/...): set-up with options, the crew, a guided turn with
rolled and manual steps and undo, stale writes (409), reader and outsider access, table slots,
members, and export/import jobs."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from campaigns.models import Campaign
from tests.factories import UserFactory

pytestmark = pytest.mark.usefixtures("fiveparsecs_tables")

OPTIONS = {"crew_size": 4, "toggles": ["money_is_tight"], "elite_enemies": "roll"}


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def api(player: Any) -> APIClient:
    return client_for(player)


def create(api: APIClient, **extra: Any) -> dict[str, Any]:
    body = {"name": "Drift", "crew_name": "Lucky Few", "ship_name": "Tin Can", "options": OPTIONS, **extra}
    response = api.post("/api/v1/campaigns/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def add_crew(api: APIClient, campaign: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], int]:
    """Krag and Skulker; returns both and the campaign's version after them."""
    url = f"/api/v1/campaigns/{campaign['id']}/characters/"
    krag = api.post(url, {"version": campaign["version"], "name": "Grak", "species": "krag"}, format="json")
    assert krag.status_code == 201, krag.content
    skulker = api.post(url, {"version": krag.json()["campaign_version"], "name": "Sly", "species": "skulker"}, format="json")
    assert skulker.status_code == 201, skulker.content
    return krag.json(), skulker.json(), skulker.json()["campaign_version"]


def test_create_list_and_read_a_campaign_with_its_options(api: APIClient, other: Any) -> None:
    campaign = create(api)
    assert campaign["options"]["crew_size"] == 4
    assert campaign["options"]["toggles"] == ["money_is_tight"]
    assert campaign["options"]["elite_enemies"] == "roll"
    assert campaign["ship"]["name"] == "Tin Can" and campaign["role"] == "owner"
    assert campaign["turn"] == 0 and campaign["version"] >= 1
    assert {s["slot"] for s in campaign["slots"]} >= {"injuries", "loot"}
    assert [m["role"] for m in campaign["members"]] == ["owner"]
    create(client_for(other), name="Someone else's")
    assert [c["id"] for c in api.get("/api/v1/campaigns/?q=luck").json()] == [campaign["id"]]
    assert api.get("/api/v1/campaigns/?q=nomatch").json() == []
    detail = api.get(f"/api/v1/campaigns/{campaign['id']}/").json()
    assert detail["name"] == "Drift" and detail["world"] is None and detail["loan"] == {}
    log = api.get(f"/api/v1/campaigns/{campaign['id']}/log/?kind=setup").json()["results"]
    assert len(log) == 1 and "Money is Tight" in log[0]["text"]


def test_a_bad_option_names_the_field(api: APIClient) -> None:
    response = api.post("/api/v1/campaigns/", {"name": "Drift", "options": {"crew_size": 9}}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "crew_size"
    response = api.post("/api/v1/campaigns/", {"name": "Drift", "options": {"warp_drive": True}}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "warp_drive"
    response = api.post("/api/v1/campaigns/", {"name": "Drift", "options": {"toggles": ["easy_mode"]}}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "toggles"
    assert "money_is_tight" in response.json()["detail"]
    assert not Campaign.objects.exists()
    campaign = create(api)
    url = f"/api/v1/campaigns/{campaign['id']}/"
    response = api.patch(url, {"version": campaign["version"], "options": {"psionics": "everyone"}}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "psionics"
    changed = api.patch(
        url, {"version": campaign["version"], "name": "Drift II", "options": {"story_track": True}}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["name"] == "Drift II" and changed.json()["options"]["crew_size"] == 4
    assert changed.json()["options"]["story_track"] is True
    assert changed.json()["version"] == campaign["version"] + 1


def test_crew_krag_and_skulker_with_their_actions(api: APIClient) -> None:
    campaign = create(api)
    krag, skulker, version = add_crew(api, campaign)
    assert (krag["species"], skulker["species"]) == ("krag", "skulker")
    assert skulker["speed"] > krag["speed"]  # Skulkers are fast, p.14
    base = f"/api/v1/campaigns/{campaign['id']}/characters/"
    assert [c["name"] for c in api.get(base).json()] == ["Grak", "Sly"]
    # A Krag with a Patron gains a Rival as well (p.12).
    response = api.post(f"{base}{krag['id']}/creation-results/", {"version": version, "patrons": 1}, format="json")
    assert response.status_code == 200, response.content
    version = response.json()["campaign_version"]
    detail = api.get(f"/api/v1/campaigns/{campaign['id']}/").json()
    assert len(detail["patrons"]) == 1 and len(detail["rivals"]) == 1
    again = api.post(f"{base}{krag['id']}/creation-results/", {"version": version}, format="json")
    assert again.status_code == 400 and again.json()["field"] == "character"
    edited = api.patch(f"{base}{skulker['id']}/", {"version": version, "values": {"xp": 9}, "captain": True}, format="json")
    assert edited.status_code == 200 and edited.json()["xp"] == 9 and edited.json()["is_captain"]
    version = edited.json()["campaign_version"]
    bad = api.patch(f"{base}{skulker['id']}/", {"version": version, "values": {"hp": 3}}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "hp"
    hurt = api.post(f"{base}{skulker['id']}/injury/", {"version": version, "injury": "Broken arm", "sick_bay": 2}, format="json")
    assert hurt.status_code == 200, hurt.content
    assert hurt.json()["status"] == "sick_bay" and hurt.json()["sick_bay"] == 2
    assert "Broken arm" in hurt.json()["sheet"]["injuries"]
    version = hurt.json()["campaign_version"]
    armed = api.post(f"{base}{krag['id']}/equip/", {"version": version, "item": "Shotgun"}, format="json")
    assert armed.status_code == 200, armed.content
    assert "Shotgun" in str(armed.json()["sheet"]["equipment"])
    version = armed.json()["campaign_version"]
    power = api.post(f"{base}{krag['id']}/power/", {"version": version, "action": "teleport"}, format="json")
    assert power.status_code == 400 and power.json()["field"] == "action"
    assert api.get(f"{base}999/").status_code == 404


def test_ship_update_and_component(api: APIClient) -> None:
    campaign = create(api)
    url = f"/api/v1/campaigns/{campaign['id']}/ship/"
    assert api.get(url).json()["name"] == "Tin Can"
    body = {"version": campaign["version"], "name": "Rust Bucket", "hull": 20, "max_hull": 30, "debt": 5}
    ship = api.put(url, body, format="json")
    assert ship.status_code == 200, ship.content
    assert ship.json()["hull"] == 20 and ship.json()["debt"] == 5
    assert ship.json()["campaign_version"] == campaign["version"] + 1
    broke = api.post(
        f"{url}components/", {"version": ship.json()["campaign_version"], "name": "Extra Cargo", "core_cost": 5}, format="json"
    )
    assert broke.status_code == 400 and broke.json()["field"] == "credits"  # the crew has no credits yet


def test_a_turn_rolled_and_manual_steps_undo_and_stale_version(api: APIClient) -> None:
    campaign = create(api)
    _krag, _skulker, version = add_crew(api, campaign)
    turns = f"/api/v1/campaigns/{campaign['id']}/turns/"
    assert api.get(f"{turns}current/").status_code == 404
    started = api.post(turns, {"version": version}, format="json")
    assert started.status_code == 201, started.content
    state = started.json()
    assert state["turn"]["number"] == 1 and state["step"]["spec"]["key"] == "travel.decide"
    assert ["travel", "choice", ["yes", "no"]] in state["step"]["inputs"]
    assert [s["mode"] for s in state["turn"]["steps"]] == ["skipped"]  # not invaded: no fleeing
    assert api.get(f"{turns}current/").json()["step"]["index"] == state["step"]["index"]

    missing = api.post(f"{turns}current/step/", {"version": state["version"], "mode": "roll"}, format="json")
    assert missing.status_code == 400 and missing.json()["field"] == "travel"
    rolled = api.post(
        f"{turns}current/step/", {"version": state["version"], "mode": "roll", "inputs": {"travel": "yes"}}, format="json"
    )
    assert rolled.status_code == 200, rolled.content
    state = rolled.json()
    assert state["resolved"]["key"] == "travel.decide" and state["turn"]["facts"]["traveled"] is True
    assert state["step"]["spec"]["key"] == "travel.event"

    # No travel events table is mapped: the app cannot roll it, the result goes in by hand.
    cannot = api.post(f"{turns}current/step/", {"version": state["version"], "mode": "roll"}, format="json")
    assert cannot.status_code == 400 and cannot.json()["field"] == "mode"
    manual = api.post(
        f"{turns}current/step/",
        {"version": state["version"], "mode": "manual", "text": "Found a drifting pod.", "credits": 3},
        format="json",
    )
    assert manual.status_code == 200, manual.content
    state = manual.json()
    assert state["resolved"]["mode"] == "manual" and state["step"]["spec"]["key"] == "arrival.world"
    assert api.get(f"/api/v1/campaigns/{campaign['id']}/").json()["credits"] == 3

    world = api.post(f"{turns}current/step/", {"version": state["version"], "mode": "roll"}, format="json")
    assert world.status_code == 200, world.content
    assert world.json()["resolved"]["mode"] == "rolled" and world.json()["resolved"]["rolls"][0]["reason"]
    assert world.json()["version"] == state["version"] + 1
    undone = api.post(f"{turns}current/undo/", {"version": world.json()["version"]}, format="json")
    assert undone.status_code == 200 and undone.json()["step"]["spec"]["key"] == "arrival.world"
    state = undone.json()

    stale = api.post(f"{turns}current/undo/", {"version": state["version"] - 1}, format="json")
    assert stale.status_code == 409 and stale.json() == {
        "detail": stale.json()["detail"],
        "field": "version",
        "version": state["version"],
    }
    undone = api.post(f"{turns}current/undo/", {"version": state["version"]}, format="json")
    assert undone.status_code == 200, undone.content
    assert undone.json()["step"]["spec"]["key"] == "travel.event"
    assert api.get(f"/api/v1/campaigns/{campaign['id']}/").json()["credits"] == 0

    log = api.get(f"/api/v1/campaigns/{campaign['id']}/log/?turn=1").json()["results"]
    assert any(e["undone"] and "drifting pod" in e["text"] for e in log)
    undos = api.get(f"/api/v1/campaigns/{campaign['id']}/log/?kind=undo").json()["results"]
    assert [e["kind"] for e in undos] == ["undo", "undo"]
    pods = api.get(f"/api/v1/campaigns/{campaign['id']}/log/?q=pod").json()["results"]
    assert [e["kind"] for e in pods] == ["step", "undo"]
    assert api.get(f"/api/v1/campaigns/{campaign['id']}/log/?turn=one").json()["field"] == "turn"
    listed = api.get(turns).json()
    assert [t["number"] for t in listed] == [1]
    assert [s["key"] for s in listed[0]["steps"]] == ["travel.flee_invasion", "travel.decide"]


def test_stale_writes_get_409_with_the_current_version(api: APIClient) -> None:
    campaign = create(api)
    krag, _skulker, version = add_crew(api, campaign)
    old = campaign["version"]
    for method, url, body in [
        ("patch", f"/api/v1/campaigns/{campaign['id']}/", {"name": "X"}),
        ("post", f"/api/v1/campaigns/{campaign['id']}/turns/", {}),
        ("patch", f"/api/v1/campaigns/{campaign['id']}/characters/{krag['id']}/", {"notes": "x"}),
        ("post", f"/api/v1/campaigns/{campaign['id']}/characters/{krag['id']}/advance/", {"stat": "savvy"}),
        ("put", f"/api/v1/campaigns/{campaign['id']}/slots/loot/", {"table": ""}),
        ("post", f"/api/v1/campaigns/{campaign['id']}/members/", {"username": "stranger", "role": "reader"}),
        ("delete", f"/api/v1/campaigns/{campaign['id']}/", {}),
    ]:
        response = getattr(api, method)(url, {"version": old, **body}, format="json")
        assert response.status_code == 409, (url, response.content)
        assert response.json()["version"] == version and response.json()["field"] == "version"
    missing = api.patch(f"/api/v1/campaigns/{campaign['id']}/", {"name": "X"}, format="json")
    assert missing.status_code == 400 and "version" in missing.json()
    assert Campaign.objects.get().name == "Drift"


def test_a_reader_reads_but_cannot_write_and_an_outsider_sees_nothing(api: APIClient, other: Any) -> None:
    campaign = create(api)
    krag, _skulker, version = add_crew(api, campaign)
    reader = UserFactory(username="watcher")
    invited = api.post(
        f"/api/v1/campaigns/{campaign['id']}/members/",
        {"version": version, "username": "watcher", "role": "reader"},
        format="json",
    )
    assert invited.status_code == 201, invited.content
    assert {m["username"]: m["role"] for m in invited.json()["members"]} == {"captain": "owner", "watcher": "reader"}
    version = invited.json()["version"]
    base = f"/api/v1/campaigns/{campaign['id']}"
    watcher = client_for(reader)
    assert [c["id"] for c in watcher.get("/api/v1/campaigns/").json()] == [campaign["id"]]
    assert watcher.get(f"{base}/").json()["role"] == "reader"
    for url in (
        f"{base}/",
        f"{base}/characters/",
        f"{base}/characters/{krag['id']}/",
        f"{base}/ship/",
        f"{base}/turns/",
        f"{base}/log/",
    ):
        assert watcher.get(url).status_code == 200, url
    writes: list[tuple[str, str, dict[str, Any]]] = [
        ("patch", f"{base}/", {"name": "Mine now"}),
        ("post", f"{base}/characters/", {"name": "Mole", "species": "skulker"}),
        ("patch", f"{base}/characters/{krag['id']}/", {"notes": "hi"}),
        ("post", f"{base}/characters/{krag['id']}/injury/", {"injury": "Cut"}),
        ("put", f"{base}/ship/", {"name": "S", "hull": 1, "max_hull": 1}),
        ("post", f"{base}/turns/", {}),
        ("put", f"{base}/slots/loot/", {"table": ""}),
        ("delete", f"{base}/", {}),
    ]
    for method, url, body in writes:
        response = getattr(watcher, method)(url, {"version": version, **body}, format="json")
        assert response.status_code == 403, (url, response.content)
    stranger = client_for(other)
    assert stranger.get("/api/v1/campaigns/").json() == []
    for url in (f"{base}/", f"{base}/characters/", f"{base}/turns/current/", f"{base}/log/"):
        assert stranger.get(url).status_code == 404, url
    assert stranger.patch(f"{base}/", {"version": version, "name": "X"}, format="json").status_code == 404
    assert stranger.post(f"{base}/export/", format="json").status_code == 404
    # The reader leaves; now they see nothing either.
    member_id = next(m["id"] for m in invited.json()["members"] if m["username"] == "watcher")
    left = watcher.delete(f"{base}/members/{member_id}/", {"version": version}, format="json")
    assert left.status_code == 204, left.content
    assert watcher.get(f"{base}/").status_code == 404


def test_slots_map_a_table_and_name_a_bad_slot(api: APIClient) -> None:
    campaign = create(api)
    url = f"/api/v1/campaigns/{campaign['id']}/slots/"
    bad = api.put(f"{url}warp/", {"version": campaign["version"], "table": ""}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "slot"
    unknown = api.put(f"{url}loot/", {"version": campaign["version"], "table": "no-such-table"}, format="json")
    assert unknown.status_code == 400 and unknown.json()["field"] == "table"
    cleared = api.put(f"{url}loot/", {"version": campaign["version"], "table": ""}, format="json")
    assert cleared.status_code == 200 and cleared.json()["version"] == campaign["version"] + 1
    assert next(s for s in cleared.json()["slots"] if s["slot"] == "loot")["table"] is None


def test_export_and_import_jobs(api: APIClient, other: Any, settings: Any, django_capture_on_commit_callbacks: Any) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    campaign = create(api)
    add_crew(api, campaign)
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post(f"/api/v1/campaigns/{campaign['id']}/export/", format="json")
    assert started.status_code == 202, started.content
    assert started.json()["kind"] == "export"
    job = api.get(f"/api/v1/campaign-jobs/{started.json()['id']}/").json()
    assert job["state"] == "done" and job["progress"] == 100, job
    assert job["campaign"] == campaign["id"]
    document = job["document"]
    assert [c["name"] for c in document["characters"]] == ["Grak", "Sly"]
    assert client_for(other).get(f"/api/v1/campaign-jobs/{job['id']}/").status_code == 404

    with django_capture_on_commit_callbacks(execute=True):
        imported = api.post("/api/v1/campaigns/import/", document, format="json")
    assert imported.status_code == 202, imported.content
    job = api.get(f"/api/v1/campaign-jobs/{imported.json()['id']}/").json()
    assert job["state"] == "done" and job["document"] is None, job
    assert job["campaign"] and job["campaign"] != campaign["id"]
    copy = api.get(f"/api/v1/campaigns/{job['campaign']}/").json()
    assert copy["name"] == "Drift" and copy["options"] == campaign["options"]
    assert [c["name"] for c in copy["characters"]] == ["Grak", "Sly"]

    with django_capture_on_commit_callbacks(execute=True):
        broken = api.post("/api/v1/campaigns/import/", {"format": "something else"}, format="json")
    job = api.get(f"/api/v1/campaign-jobs/{broken.json()['id']}/").json()
    assert job["state"] == "failed" and "format" in job["message"] and job["campaign"] is None
    not_an_object = api.post("/api/v1/campaigns/import/", [1, 2], format="json")
    assert not_an_object.status_code == 400 and not_an_object.json()["field"] == "file"


def test_the_owner_deletes_a_campaign(api: APIClient) -> None:
    campaign = create(api)
    response = api.delete(f"/api/v1/campaigns/{campaign['id']}/", {"version": campaign["version"]}, format="json")
    assert response.status_code == 204
    assert api.get(f"/api/v1/campaigns/{campaign['id']}/").status_code == 404


def test_signed_out_requests_are_refused(player: Any) -> None:
    assert APIClient().get("/api/v1/campaigns/").status_code == 401


def test_name_roll_species_roll_fight_pick_and_undo(api: APIClient) -> None:
    campaign = create(api)
    _krag, _skulker, version = add_crew(api, campaign)
    base = f"/api/v1/campaigns/{campaign['id']}"
    named = api.post(f"{base}/name-roll/", {"version": version, "recipe": "ship", "use": "ship"}, format="json")
    assert named.status_code == 200, named.content
    assert api.get(f"{base}/").json()["ship"]["name"] == named.json()["result"]
    wrong = api.post(f"{base}/name-roll/", {"version": named.json()["version"], "recipe": "world", "use": "ship"}, format="json")
    assert wrong.status_code == 400 and "recipe" in wrong.content.decode()
    species = api.post(f"{base}/species-roll/", {"version": named.json()["version"], "value": 5}, format="json")
    assert species.json()["result"] == "engineer"
    fight = api.post(f"{base}/fight-pick/", {"version": species.json()["version"]}, format="json")
    assert fight.json()["result"] == "Grak"  # the Krag (p.12)
    undone = api.post(f"{base}/undo/", {"version": fight.json()["version"]}, format="json")
    assert undone.status_code == 200 and "Grak" in undone.json()["undone"]
    stale = api.post(f"{base}/undo/", {"version": fight.json()["version"]}, format="json")
    assert stale.status_code == 409


def _campaign_write_routes() -> list[str]:
    from campaigns.apis import urlpatterns
    from campaigns.crew_apis import urlpatterns as crew_urlpatterns

    return [str(p.pattern) for p in [*urlpatterns, *crew_urlpatterns] if "<int:campaign_id>" in str(p.pattern)]


BAD_BODY = {"version": "not a number", "hull": 2147483648, "name": "", "stat": 7, "table": 3, "username": ""}


@pytest.mark.parametrize("route", _campaign_write_routes())
def test_an_outsider_sending_bad_input_to_a_campaign_gets_404_not_400(api: APIClient, other: Any, route: str) -> None:
    campaign = create(api)
    url = "/api/v1/" + route.replace("<int:campaign_id>", str(campaign["id"]))
    url = url.replace("<int:character_id>", "1").replace("<int:member_id>", "1").replace("<slug:slot>", "loot")
    stranger = client_for(other)
    for method in ("post", "put", "patch", "delete"):
        response = getattr(stranger, method)(url, BAD_BODY, format="json")
        assert response.status_code in (404, 405), (method, url, response.status_code, response.content)
    assert Campaign.objects.get(pk=campaign["id"]).version == campaign["version"]


@pytest.mark.parametrize("route", _campaign_write_routes())
def test_a_reader_sending_bad_input_to_a_campaign_write_gets_403_not_400(api: APIClient, other: Any, route: str) -> None:
    campaign = create(api)
    invited = api.post(
        f"/api/v1/campaigns/{campaign['id']}/members/",
        {"version": campaign["version"], "username": other.username, "role": "reader"},
        format="json",
    )
    assert invited.status_code == 201
    url = "/api/v1/" + route.replace("<int:campaign_id>", str(campaign["id"]))
    url = url.replace("<int:character_id>", "1").replace("<int:member_id>", "1").replace("<slug:slot>", "loot")
    reader = client_for(other)
    for method in ("post", "put", "patch", "delete"):
        response = getattr(reader, method)(url, BAD_BODY, format="json")
        if route.endswith("export/"):  # any member may export
            assert response.status_code in (400, 404, 405, 202), (method, url, response.status_code)
        else:
            assert response.status_code in (403, 405), (method, url, response.status_code, response.content)


@pytest.mark.parametrize(
    ("path", "body", "field", "allowed"),
    [
        ("characters/{krag}/", {"values": {"xp": 2147483648}}, "values", "xp must be a whole number from 0 to 1000000"),
        ("characters/{krag}/injury/", {"injury": "Cut", "sick_bay": 40000}, "sick_bay", "from 0 to 32767"),
        ("ship/", {"name": "Tin Can", "hull": 2147483648, "max_hull": 10}, "hull", "from 0 to 32767"),
        (
            "turns/current/step/",
            {"mode": "manual", "text": "x", "credits": 99999999999999999999},
            "credits",
            "from -1000000 to 1000000",
        ),
        ("characters/{krag}/training/", {"course": "Pilot", "credits": 99999999999999999999}, "credits", "from 0 to 1000000"),
    ],
)
def test_an_out_of_range_number_is_refused_naming_the_field_and_range(
    api: APIClient, path: str, body: dict[str, Any], field: str, allowed: str
) -> None:
    campaign = create(api)
    krag, _skulker, version = add_crew(api, campaign)
    url = f"/api/v1/campaigns/{campaign['id']}/" + path.format(krag=krag["id"])
    method = (
        api.put if path == "ship/" else api.patch if path.startswith("characters/{krag}/") and path.count("/") == 2 else api.post
    )
    response = method(url, {"version": version, **body}, format="json")
    assert response.status_code == 400, response.content
    assert allowed in str(response.json()[field])
    assert Campaign.objects.get(pk=campaign["id"]).version == version


def test_an_unknown_log_kind_filter_is_refused_naming_the_kinds(api: APIClient) -> None:
    campaign = create(api)
    response = api.get(f"/api/v1/campaigns/{campaign['id']}/log/?kind=chat")
    assert response.status_code == 400
    assert response.json()["field"] == "kind" and "setup, step, crew" in response.json()["detail"]
