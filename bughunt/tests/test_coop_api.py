"""Co-op Bug Hunt over the API and the screens: the same role checks as campaigns (404 for a
stranger whatever they send, 403 for a reader writing, owner-only member and marine changes),
the member-marine rule at the table, and the squad log's filters."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from bughunt import member_services, services
from bughunt.models import Squad
from bughunt.tests.versions import mission_version, squad_version
from live.models import Membership, Room
from tests.factories import UserFactory
from tests.html_forms import forms_of

pytestmark = pytest.mark.usefixtures("bughunt_tables")


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def people(player: Any, other: Any) -> dict[str, Any]:
    return {
        "owner": player,
        "editor": UserFactory.create(username="vasquez-player"),
        "reader": UserFactory.create(username="gorman"),
        "stranger": other,
    }


@pytest.fixture
def squad(people: dict[str, Any]) -> Squad:
    owner = client_for(people["owner"])
    made = owner.post(
        "/api/v1/bughunt/squads/", {"name": "Kilo", "character_names": ["Vasquez", "Hicks", "Hudson"]}, format="json"
    )
    assert made.status_code == 201 and made.json()["role"] == "owner"
    squad_id = made.json()["id"]
    for username, role in (("vasquez-player", "editor"), ("gorman", "reader")):
        response = owner.post(
            f"/api/v1/bughunt/squads/{squad_id}/members/",
            {"version": squad_version(squad_id), "username": username, "role": role},
            format="json",
        )
        assert response.status_code == 201, response.content
    return Squad.objects.get(pk=squad_id)


@pytest.mark.parametrize(
    ("who", "status", "role"),
    [("owner", 200, "owner"), ("editor", 200, "editor"), ("reader", 200, "reader"), ("stranger", 404, None)],
)
def test_reading_a_squad_by_role(squad: Squad, people, who: str, status: int, role: str | None) -> None:  # type: ignore[no-untyped-def]
    response = client_for(people[who]).get(f"/api/v1/bughunt/squads/{squad.pk}/")
    assert response.status_code == status
    if role:
        body = response.json()
        assert body["role"] == role
        assert [(m["username"], m["role"]) for m in body["members"]] == [
            ("hicks", "owner"),
            ("vasquez-player", "editor"),
            ("gorman", "reader"),
        ]
    listed = client_for(people[who]).get("/api/v1/bughunt/squads/").json()
    assert [s["id"] for s in listed] == ([squad.pk] if role else [])


@pytest.mark.parametrize(("who", "status"), [("owner", 201), ("editor", 403), ("reader", 403), ("stranger", 404)])
def test_inviting_by_role(squad: Squad, people, who: str, status: int) -> None:  # type: ignore[no-untyped-def]
    response = client_for(people[who]).post(
        f"/api/v1/bughunt/squads/{squad.pk}/members/",
        {"version": squad_version(squad.pk), "username": "burke", "role": "reader"},
        format="json",
    )
    assert response.status_code == status, response.content
    assert Membership.objects.filter(room=squad.room, user__username="burke").exists() == (status == 201)


def test_a_stranger_or_reader_sending_bad_input_learns_nothing_from_it(squad: Squad, people) -> None:  # type: ignore[no-untyped-def]
    bad = {"version": "x", "role": 5}
    assert (
        client_for(people["stranger"]).post(f"/api/v1/bughunt/squads/{squad.pk}/members/", bad, format="json").status_code == 404
    )
    assert client_for(people["reader"]).post(f"/api/v1/bughunt/squads/{squad.pk}/marines/", bad, format="json").status_code == 403
    owner = client_for(people["owner"]).post(
        f"/api/v1/bughunt/squads/{squad.pk}/members/",
        {"version": squad_version(squad.pk), "username": "burke", "role": "boss"},
        format="json",
    )
    assert owner.status_code == 400 and owner.json()["field"] == "role" and "editor or reader" in owner.json()["detail"]


def test_removing_and_leaving_by_role(squad: Squad, people) -> None:  # type: ignore[no-untyped-def]
    seat = Membership.objects.get(room=squad.room, user=people["reader"])
    url = f"/api/v1/bughunt/squads/{squad.pk}/members/{seat.pk}/"
    assert client_for(people["stranger"]).delete(url, {"version": squad_version(squad.pk)}, format="json").status_code == 404
    assert client_for(people["editor"]).delete(url, {}, format="json").status_code == 403  # before the missing version
    assert client_for(people["reader"]).delete(url, {"version": squad_version(squad.pk)}, format="json").status_code == 204
    assert client_for(people["reader"]).get(f"/api/v1/bughunt/squads/{squad.pk}/").status_code == 404


@pytest.mark.parametrize(("who", "status"), [("owner", 200), ("editor", 403), ("reader", 403), ("stranger", 404)])
def test_giving_a_marine_by_role(squad: Squad, people, who: str, status: int) -> None:  # type: ignore[no-untyped-def]
    vasquez = squad.troopers.get(name="Vasquez")
    response = client_for(people[who]).post(
        f"/api/v1/bughunt/squads/{squad.pk}/marines/",
        {"version": squad_version(squad.pk), "trooper": vasquez.pk, "player": "vasquez-player"},
        format="json",
    )
    assert response.status_code == status
    if status == 200:
        given = next(t for t in response.json()["troopers"] if t["name"] == "Vasquez")
        assert given["player_name"] == "vasquez-player"
        assert next(m for m in response.json()["members"] if m["role"] == "editor")["marines"] == ["Vasquez"]


def test_a_marine_for_a_reader_is_a_400_naming_why(squad: Squad, people) -> None:  # type: ignore[no-untyped-def]
    response = client_for(people["owner"]).post(
        f"/api/v1/bughunt/squads/{squad.pk}/marines/",
        {"version": squad_version(squad.pk), "trooper": squad.troopers.get(name="Hicks").pk, "player": "gorman"},
        format="json",
    )
    assert response.status_code == 400 and response.json()["field"] == "player"
    assert "gorman is a reader" in response.json()["detail"] and "vasquez-player" in response.json()["detail"]


@pytest.mark.parametrize(("who", "status"), [("owner", 201), ("editor", 201), ("reader", 403), ("stranger", 404)])
def test_campaign_writes_by_role(squad: Squad, people, who: str, status: int) -> None:  # type: ignore[no-untyped-def]
    response = client_for(people[who]).post(
        f"/api/v1/bughunt/squads/{squad.pk}/missions/", {"version": squad_version(squad.pk)}, format="json"
    )
    assert response.status_code == status
    if status == 201:
        mission = client_for(people["reader"]).get(f"/api/v1/bughunt/missions/{response.json()['id']}/")
        assert mission.status_code == 200  # readers watch the missions too
        assert client_for(people["stranger"]).get(f"/api/v1/bughunt/missions/{response.json()['id']}/").status_code == 404


def _started(squad: Squad, people: dict[str, Any]) -> Room:
    owner = people["owner"]
    member_services.marine_give(
        user=owner,
        squad_id=squad.pk,
        version=squad_version(squad.pk),
        trooper_id=squad.troopers.get(name="Vasquez").pk,
        player="vasquez-player",
    )
    mission = services.mission_create(user=owner, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    loadout = {str(t.pk): "Combat rifle" for t in services.available_troopers(squad)}
    services.mission_loadout(user=owner, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    mission = services.mission_start(user=owner, mission_id=mission.pk, version=mission_version(mission.pk))
    assert mission.room is not None
    return mission.room


def _act(user: Any, room: Room, type: str, **payload: Any) -> Any:
    room.refresh_from_db()
    return client_for(user).post(
        f"/api/v1/rooms/{room.pk}/actions/", {"type": type, "payload": payload, "version": room.version}, format="json"
    )


def test_at_the_table_over_the_api_each_player_commands_their_own_marines(squad: Squad, people) -> None:  # type: ignore[no-untyped-def]
    room = _started(squad, people)
    units = {u["name"]: u["id"] for u in room.state["units"]}
    assert _act(people["owner"], room, "roll_reactions", faces=[1, 2, 3, 4]).status_code == 200
    assert _act(people["editor"], room, "assign_reaction", unit=units["Vasquez"], die=1).status_code == 200
    refused = _act(people["editor"], room, "assign_reaction", unit=units["Hicks"], die=2)
    assert refused.status_code == 400 and refused.json()["field"] == "unit"
    assert "Hicks is not one of your figures: the referee commands them" in refused.json()["detail"]
    assert _act(people["reader"], room, "assign_reaction", unit=units["Hicks"], die=2).status_code == 403
    assert _act(people["stranger"], room, "assign_reaction", unit=units["Hicks"], die=2).status_code == 404


def test_the_squad_log_api_filters_the_trackers_lines_by_mission_and_step(squad: Squad, people) -> None:  # type: ignore[no-untyped-def]
    room = _started(squad, people)
    _act(people["owner"], room, "roll_reactions", faces=[6, 5, 4, 3])
    reader = client_for(people["reader"])
    url = f"/api/v1/bughunt/squads/{squad.pk}/log/"
    lines = reader.get(url, {"step": "tracker", "mission": "1"}).json()
    assert [e["step"] for e in lines["results"]] == ["tracker: roll reactions"]
    assert lines["results"][0]["mission"] == 1 and lines["results"][0]["rolls"][0]["faces"] == [6, 5, 4, 3]
    assert reader.get(url, {"step": "tracker", "mission": "2"}).json()["results"] == []
    assert all(e["step"].startswith("co-op") for e in reader.get(url, {"step": "co-op"}).json()["results"])
    assert client_for(people["stranger"]).get(url).status_code == 404
    for die, unit in enumerate(room.state["units"][:3], start=1):  # a long mission's log comes a page at a time
        assert _act(people["owner"], room, "assign_reaction", unit=unit["id"], die=die).status_code == 200
    page = reader.get(url, {"step": "tracker", "page_size": "2"}).json()
    assert len(page["results"]) == 2 and page["next"]
    rest = reader.get(page["next"]).json()
    assert len(rest["results"]) == 2 and rest["next"] is None
    assert {e["id"] for e in page["results"]}.isdisjoint(e["id"] for e in rest["results"])
    room.refresh_from_db()  # the table's undo marks the line it took back, for the API and the screen
    undo = client_for(people["owner"]).post(f"/api/v1/rooms/{room.pk}/undo/", {"version": room.version}, format="json")
    assert undo.status_code == 200
    marks = [e["undone"] for e in reader.get(url, {"step": "tracker: assign"}).json()["results"]]
    assert marks == [False, False, True]
    browser = Client()
    browser.force_login(people["reader"])
    assert browser.get(f"/bughunt/{squad.pk}/log/", {"step": "tracker: assign reaction"}).content.decode().count("<s>") == 1


def test_the_squad_page_by_role(squad: Squad, people) -> None:  # type: ignore[no-untyped-def]
    pages = {}
    for who in ("owner", "editor", "reader", "stranger"):
        client = Client()
        client.force_login(people[who])
        pages[who] = client.get(f"/bughunt/{squad.pk}/")
    assert pages["stranger"].status_code == 404
    owner, editor, reader = (pages[w].content.decode() for w in ("owner", "editor", "reader"))
    assert 'data-testid="invite"' in owner and "Squad options" in owner and 'name="player"' in owner
    assert 'data-testid="invite"' not in editor and "Generate mission" in editor and "editor" in editor
    assert "Generate mission" not in reader and "You watch this squad" in reader and "Leave" in reader


def test_the_squad_page_refuses_a_reader_and_the_owner_invites_from_it(squad: Squad, people) -> None:  # type: ignore[no-untyped-def]
    reader = Client()
    reader.force_login(people["reader"])
    refused = reader.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad_version(squad.pk)})
    assert refused.status_code == 403 and not squad.missions.exists()
    owner = Client()
    owner.force_login(people["owner"])
    response = owner.post(
        f"/bughunt/{squad.pk}/members/", {"version": squad_version(squad.pk), "username": "burke", "role": "reader"}
    )
    assert response.status_code == 302
    assert Membership.objects.get(room=squad.room, user__username="burke").role == "viewer"
    bad = owner.post(
        f"/bughunt/{squad.pk}/members/", {"version": squad_version(squad.pk), "username": "nobody", "role": "reader"}
    )
    assert bad.status_code == 400 and "No user called" in bad.content.decode()
    kept = forms_of(bad.content.decode())[f"/bughunt/{squad.pk}/members/"]  # to correct, not type again
    assert kept["username"] == ["nobody"] and kept["role"] == ["reader"]
    vasquez = squad.troopers.get(name="Vasquez")
    given = owner.post(
        f"/bughunt/{squad.pk}/marines/", {"version": squad_version(squad.pk), "trooper": vasquez.pk, "player": "vasquez-player"}
    )
    assert given.status_code == 302
    vasquez.refresh_from_db()
    assert vasquez.player == people["editor"]


def test_the_log_screen_filters_by_tracker_step_and_mission(squad: Squad, people) -> None:  # type: ignore[no-untyped-def]
    room = _started(squad, people)
    _act(people["owner"], room, "roll_reactions", faces=[6, 5, 4, 3])
    client = Client()
    client.force_login(people["reader"])
    page = client.get(f"/bughunt/{squad.pk}/log/", {"step": "tracker: roll reactions", "mission": "1"}).content.decode()
    assert "Round 1 (hicks)" in page and "[6, 5, 4, 3]" in page and "joins the squad" not in page
    assert '<option value="tracker: roll reactions" selected>' in page
    other = client.get(f"/bughunt/{squad.pk}/log/", {"step": "tracker", "mission": "2"}).content.decode()
    assert "Round 1 (hicks)" not in other
