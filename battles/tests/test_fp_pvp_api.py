"""PvP battles between two users' campaigns through the API (/api/v1/fp-pvp/..., pp.35-37):
invite with a code, accept with your own campaign, field each side's figures (the smaller crew
size unless both agree), roll the set-up; roles (outsider 404, reader 403), versions (409),
refusals naming the field and writing nothing, both campaign logs."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from battles.models import Meeting
from campaigns import services as campaign_services
from campaigns.models import Campaign, Character, LogEntry, World
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

PROFILE = {"reactions": 1, "speed": 4, "toughness": 3}


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def crew(user: Any, name: str, size: int, members: list[tuple[str, int, list[str]]]) -> Campaign:
    campaign = campaign_services.campaign_create(user=user, name=name, options={"crew_size": size, "dramatic_combat": True})
    for who, cs, kit in members:
        Character.objects.create(campaign=campaign, name=who, combat_skill=cs, sheet={"equipment": kit}, **PROFILE)
    return campaign


def ids(campaign: Campaign, *names: str) -> list[int]:
    return [campaign.characters.get(name=n).pk for n in names]


@pytest.fixture
def two(player: Any, other: Any) -> tuple[Campaign, Campaign]:
    host = crew(
        player, "Drift", 4, [("Ace", 2, ["Rattle gun"]), ("Bo", 0, ["Hand gun"]), ("Cy", 0, []), ("Di", 1, []), ("Ed", 0, [])]
    )
    guest = crew(other, "Vex", 6, [("Gil", 0, ["Hand gun"]), ("Hal", 0, []), ("Ivo", 0, [])])
    return host, guest


def meet(player: Any, other: Any, host: Campaign, guest: Campaign) -> dict[str, Any]:
    made = client_for(player).post("/api/v1/fp-pvp/", {"campaign": host.pk}, format="json")
    assert made.status_code == 201, made.content
    code = made.json()["code"]
    assert len(code) == 8 and made.json()["status"] == "invited"
    accepted = client_for(other).post("/api/v1/fp-pvp/accept/", {"code": code.lower(), "campaign": guest.pk}, format="json")
    assert accepted.status_code == 200, accepted.content
    return accepted.json()


def test_two_users_meet_field_and_set_up_a_pvp_battle(player: Any, other: Any, two: tuple[Campaign, Campaign]) -> None:
    host, guest = two
    meeting = meet(player, other, host, guest)
    assert (meeting["host_name"], meeting["guest_name"], meeting["host_turn"], meeting["guest_turn"]) == (
        "Drift",
        "Vex",
        host.turn,
        guest.turn,
    )
    assert meeting["crew_limit"] == 4 and meeting["sides"] == ["guest"]  # the smaller crew size (p.35)
    url = f"/api/v1/fp-pvp/{meeting['id']}/"
    too_many = client_for(player).post(
        url + "field/", {"version": 2, "figures": ids(host, "Ace", "Bo", "Cy", "Di", "Ed")}, format="json"
    )
    assert too_many.status_code == 400 and too_many.json()["field"] == "figures"
    theirs = client_for(player).post(url + "field/", {"version": 2, "figures": ids(guest, "Gil")}, format="json")
    assert theirs.status_code == 400 and theirs.json()["field"] == "figures"  # another campaign's crew is not yours to field
    fielded = client_for(player).post(url + "field/", {"version": 2, "figures": ids(host, "Ace", "Bo", "Cy")}, format="json")
    assert fielded.status_code == 200 and fielded.json()["fielded"]["host"] == ids(host, "Ace", "Bo", "Cy")
    stale = client_for(other).post(url + "field/", {"version": 2, "figures": ids(guest, "Gil")}, format="json")
    assert stale.status_code == 409 and stale.json()["version"] == 3
    client_for(other).post(url + "field/", {"version": 3, "figures": ids(guest, "Gil", "Hal")}, format="json")
    body = {
        "version": 4,
        "reason_face": 30,
        "seize": {"host": {"dice": "2D6", "target": 10, "faces": [6, 6]}},
        "faces": {"first_player": 2},
    }
    done = client_for(other).post(url + "setup/", body, format="json")
    assert done.status_code == 200, done.content
    card = done.json()["setup"]
    assert done.json()["status"] == "set_up" and card["reason"]["reason"] == "opposing_employers"
    # Host: Ace 3 (Combat Skill +2, Rattle gun), Bo 1, Cy 1 = 5; guest 2: outgunned by 3, 2 points (p.36).
    assert (card["power_rating"]["host"]["total"], card["power_rating"]["guest"]["total"]) == (5, 2)
    assert (
        card["initiative_points"] == {"host": 1, "guest": 2}
        and card["deploys_first"] == "guest"
        and card["first_player"] == "host"
    )
    assert [f["name"] for f in card["figures"]["guest"]] == ["Gil", "Hal"]
    for campaign in (host, guest):
        line = LogEntry.objects.filter(campaign=campaign, text__contains=" set up: ").get()
        assert "Power Rating host 5, guest 2" in line.text and len(line.rolls) == 3
    again = client_for(player).post(url + "setup/", {**body, "version": 5}, format="json")
    assert again.status_code == 400 and again.json()["field"] == "meeting"


def test_both_must_agree_to_field_more_than_the_smaller_crew(player: Any, other: Any, two: tuple[Campaign, Campaign]) -> None:
    host, guest = two
    meeting = meet(player, other, host, guest)
    url = f"/api/v1/fp-pvp/{meeting['id']}/field/"
    five = ids(host, "Ace", "Bo", "Cy", "Di", "Ed")
    one = client_for(player).post(url, {"version": 2, "figures": five, "agreed_crew": 5}, format="json")
    assert one.status_code == 400 and Meeting.objects.get().agreed_crew == {}  # refused: nothing written
    client_for(player).post(url, {"version": 2, "figures": five[:1], "agreed_crew": 5}, format="json")
    assert client_for(player).get(url.replace("field/", "")).json()["crew_limit"] == 4
    client_for(other).post(url, {"version": 3, "figures": ids(guest, "Gil"), "agreed_crew": 5}, format="json")
    now = client_for(player).post(url, {"version": 4, "figures": five}, format="json")
    assert now.status_code == 200 and now.json()["crew_limit"] == 5


def test_who_may_see_and_change_a_meeting(player: Any, other: Any, two: tuple[Campaign, Campaign]) -> None:
    host, guest = two
    meeting = meet(player, other, host, guest)
    url = f"/api/v1/fp-pvp/{meeting['id']}/"
    stranger = client_for(UserFactory(username="nosy"))
    assert stranger.get(url).status_code == 404
    assert stranger.post(url + "field/", {"version": "junk"}, format="json").status_code == 404  # authorization before validation
    assert stranger.get("/api/v1/fp-pvp/").json() == []
    reader = UserFactory(username="watcher")
    campaign_services.member_invite(user=player, campaign_id=host.pk, username="watcher", role="reader")
    assert client_for(reader).get(url).status_code == 200
    assert client_for(reader).post(url + "field/", {"version": 2, "figures": [1]}, format="json").status_code == 403
    assert [m["id"] for m in client_for(other).get("/api/v1/fp-pvp/").json()] == [meeting["id"]]


def test_codes_are_single_use_and_a_campaign_cannot_fight_itself(player: Any, other: Any, two: tuple[Campaign, Campaign]) -> None:
    host, guest = two
    made = client_for(player).post("/api/v1/fp-pvp/", {"campaign": host.pk}, format="json").json()
    itself = client_for(player).post("/api/v1/fp-pvp/accept/", {"code": made["code"], "campaign": host.pk}, format="json")
    assert itself.status_code == 400 and itself.json()["field"] == "campaign"
    not_mine = client_for(player).post("/api/v1/fp-pvp/accept/", {"code": made["code"], "campaign": guest.pk}, format="json")
    assert not_mine.status_code == 404  # the guest campaign is not the player's
    client_for(other).post("/api/v1/fp-pvp/accept/", {"code": made["code"], "campaign": guest.pk}, format="json")
    twice = client_for(other).post("/api/v1/fp-pvp/accept/", {"code": made["code"], "campaign": guest.pk}, format="json")
    assert twice.status_code == 404 and twice.json()["field"] == "code"
    early = client_for(other).post(f"/api/v1/fp-pvp/{made['id']}/setup/", {"version": 2}, format="json")
    assert early.status_code == 400 and early.json()["field"] == "figures"
    assert not Meeting.objects.get().setup


def test_the_schema_documents_the_pvp_endpoints(player: Any) -> None:
    api_schema = client_for(player).get("/api/schema/?format=json").json()
    for path in (
        "/api/v1/fp-pvp/",
        "/api/v1/fp-pvp/accept/",
        "/api/v1/fp-pvp/{meeting_id}/field/",
        "/api/v1/fp-pvp/{meeting_id}/setup/",
    ):
        assert path in api_schema["paths"]


def test_p35_the_battle_is_on_neutral_ground_or_one_campaigns_world(
    player: Any, other: Any, two: tuple[Campaign, Campaign]
) -> None:
    host, guest = two
    World.objects.create(campaign=host, name="Kestrel IV", traits=["Busy markets", "Heavily enforced"])
    meeting = meet(player, other, host, guest)
    url = f"/api/v1/fp-pvp/{meeting['id']}/"
    client_for(player).post(url + "field/", {"version": 2, "figures": ids(host, "Ace")}, format="json")
    client_for(other).post(url + "field/", {"version": 3, "figures": ids(guest, "Gil")}, format="json")
    nowhere = client_for(other).post(url + "setup/", {"version": 4, "location": "guest", "seed": 1}, format="json")
    assert nowhere.status_code == 400 and nowhere.json()["field"] == "location"  # Vex has no world yet
    done = client_for(other).post(url + "setup/", {"version": 4, "location": "host", "seed": 1}, format="json")
    assert done.json()["setup"]["location"] == {
        "where": "host",
        "world": "Kestrel IV",
        "traits": ["Busy markets", "Heavily enforced"],
    }
    room = client_for(player).post(url + "track/", {"version": 5}, format="json").json()["room"]
    state = client_for(other).get(f"/api/v1/rooms/{room}/").json()["state"]
    assert state["location"]["world"] == "Kestrel IV"


def test_the_list_of_meetings_filters_by_kind_and_state(player: Any, other: Any, two: tuple[Campaign, Campaign]) -> None:
    host, guest = two
    accepted = meet(player, other, host, guest)  # a PvP battle, accepted
    coop = client_for(player).post("/api/v1/fp-pvp/", {"campaign": host.pk, "kind": "coop"}, format="json").json()  # invited
    api = client_for(player)

    def listed(query: str) -> list[int]:
        answer = api.get(f"/api/v1/fp-pvp/{query}")
        assert answer.status_code == 200, answer.content
        return [m["id"] for m in answer.json()]

    assert listed("") == [coop["id"], accepted["id"]]
    assert listed("?kind=coop") == [coop["id"]] and listed("?kind=pvp") == [accepted["id"]]
    assert listed("?status=accepted") == [accepted["id"]] and listed("?kind=pvp&status=invited") == []
    bad = api.get("/api/v1/fp-pvp/?status=won")
    assert bad.status_code == 400 and "status" in bad.json()["field"] and "finished" in bad.json()["detail"]
    page = Client()
    page.force_login(player)
    shown = page.get("/battles/pvp/?kind=coop").content.decode()
    assert 'data-testid="meeting-filters"' in shown and f"/battles/pvp/{coop['id']}/" in shown
    assert f"/battles/pvp/{accepted['id']}/" not in shown
    none = page.get("/battles/pvp/?kind=pvp&status=finished").content.decode()
    assert "None of those" in none and f"/battles/pvp/{accepted['id']}/" not in none
    assert f"/battles/pvp/{accepted['id']}/" in page.get("/battles/pvp/?status=nonsense").content.decode()  # shows them all
