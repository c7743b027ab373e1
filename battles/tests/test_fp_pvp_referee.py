"""The three-way battle with a referee through the API (Compendium p.37; issue #21 items 3 and
5): the set-up builds the third party's force; a third user joins by the battle's code (or the
host seats them by name), reads the meeting, sits at the live tracker and alone runs the third
party there; the referee cannot act for either crew (400 naming ``figure``), a player of either
campaign cannot referee, a second referee is refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from battles.models import Meeting
from battles.tests.test_fp_pvp_api import client_for, crew, ids, meet
from battles.tests.test_fp_pvp_game import meeting_version, room_act
from campaigns.models import LogEntry
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def set_up(player: Any, other: Any) -> tuple[dict[str, Any], Any, Any]:
    host = crew(player, "Drift", 4, [("Ace", 0, ["Hand gun"]), ("Bo", 0, ["Hand gun"])])
    guest = crew(other, "Vex", 4, [("Gil", 0, ["Hand gun"]), ("Hal", 0, ["Hand gun"])])
    meeting = meet(player, other, host, guest)
    url = f"/api/v1/fp-pvp/{meeting['id']}/"
    assert (
        client_for(player).post(url + "field/", {"version": 2, "figures": ids(host, "Ace", "Bo")}, format="json").status_code
        == 200
    )
    assert (
        client_for(other).post(url + "field/", {"version": 3, "figures": ids(guest, "Gil", "Hal")}, format="json").status_code
        == 200
    )
    body = {"version": 4, "reason": "same_prize", "third_party": True, "faces": {"third_party": 10, "first_player": 1}, "seed": 5}
    missing = client_for(player).post(url + "setup/", body, format="json")
    assert missing.status_code == 400 and missing.json()["field"] == "third_party_category"
    body.update(third_party_category="Hired Muscle", third_party_numbers=3)
    done = client_for(player).post(url + "setup/", body, format="json")
    assert done.status_code == 200, done.content
    return done.json(), host, guest


def test_a_third_user_referees_by_code_and_alone_runs_the_third_party(player: Any, other: Any) -> None:
    meeting, _, _ = set_up(player, other)
    third = meeting["setup"]["third_party"]
    ranks = [f["rank"] for f in third["figures"]]
    assert third["category"] == "Hired Muscle" and "unique" in ranks and ranks.count("specialist") >= 1
    referee: Any = UserFactory()
    url = f"/api/v1/fp-pvp/{meeting['id']}/"
    assert client_for(referee).get(url).status_code == 404  # not yet seated: sees nothing
    mine = client_for(other).post("/api/v1/fp-pvp/referee/", {"code": meeting["code"]}, format="json")
    assert mine.status_code == 400 and mine.json()["field"] == "code"  # a player cannot referee
    joined = client_for(referee).post("/api/v1/fp-pvp/referee/", {"code": meeting["code"].lower()}, format="json")
    assert joined.status_code == 200 and joined.json()["refereeing"] is True and joined.json()["sides"] == []
    again = client_for(UserFactory()).post("/api/v1/fp-pvp/referee/", {"code": meeting["code"]}, format="json")
    assert again.status_code == 400 and again.json()["field"] == "code"
    assert client_for(referee).get(url).json()["referee_name"] == referee.username
    assert client_for(referee).post(url + "track/", {"version": joined.json()["version"]}, format="json").status_code == 403
    tracked = client_for(player).post(
        url + "track/", {"version": meeting_version(client_for(player), meeting["id"])}, format="json"
    )
    room = tracked.json()["room"]
    state = client_for(referee).get(f"/api/v1/rooms/{room}/").json()["state"]
    assert state["referee"] == str(referee.pk) and any(f["side"] == "third" and f["status"] == "active" for f in state["figures"])
    p, o, r = client_for(player), client_for(other), client_for(referee)
    state = (
        room_act(p, room, "deploy", figures="h1 h2") if state["turn"] == "host" else room_act(o, room, "deploy", figures="g1 g2")
    )
    state = (
        room_act(o, room, "deploy", figures="g1 g2") if state["turn"] == "guest" else room_act(p, room, "deploy", figures="h1 h2")
    )
    first, second = (p, o) if state["first_player"] == "host" else (o, p)
    room_act(first, room, "roll_reactions", faces="1, 1")
    room_act(second, room, "roll_reactions", faces="1, 1")
    for who, fid in ((p, "h1"), (p, "h2"), (o, "g1"), (o, "g2")):
        room_act(who, room, "assign_reaction", figure=fid, die=int(fid[1]))
    state = room_act(p, room, "next_phase")
    version = r.get(f"/api/v1/rooms/{room}/").json()["version"]
    refused = r.post(
        f"/api/v1/rooms/{room}/actions/", {"type": "retreat", "payload": {"figure": "h1"}, "version": version}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["field"] == "figure"  # the referee never acts for a crew
    while state["turn"]:
        who = p if state["turn"] == "host" else o
        fid = next(f["id"] for f in state["figures"] if f["side"] == state["turn"] and f["slot"] == "quick" and not f["acted"])
        state = room_act(who, room, "activate", figures=fid)
    state = room_act(p, room, "next_phase")
    assert state["phase"] == "enemy"
    version = p.get(f"/api/v1/rooms/{room}/").json()["version"]
    theirs = p.post(
        f"/api/v1/rooms/{room}/actions/", {"type": "activate", "payload": {"figures": "t1"}, "version": version}, format="json"
    )
    assert theirs.status_code == 403  # with a referee seated, the players do not run it
    state = room_act(r, room, "activate", figures="t1")
    state = room_act(r, room, "resolve", attacker="t1", target="g1", mode="brawl")
    assert state["last"]["type"] in ("resolve", "over")
    assert Meeting.objects.get(pk=meeting["id"]).referee_id == referee.pk


def test_the_host_seats_a_referee_by_name_at_an_open_tracker(player: Any, other: Any) -> None:
    meeting, _, _ = set_up(player, other)
    url = f"/api/v1/fp-pvp/{meeting['id']}/"
    tracked = client_for(player).post(url + "track/", {"version": meeting["version"]}, format="json").json()
    referee: Any = UserFactory()
    guest_tries = client_for(other).post(
        url + "referee/", {"version": tracked["version"], "username": referee.username}, format="json"
    )
    assert guest_tries.status_code == 403
    nobody = client_for(player).post(url + "referee/", {"version": tracked["version"], "username": "no-such-user"}, format="json")
    assert nobody.status_code == 400 and nobody.json()["field"] == "username"
    seated = client_for(player).post(
        url + "referee/", {"version": tracked["version"], "username": referee.username}, format="json"
    )
    assert seated.status_code == 200 and seated.json()["referee"] == referee.pk
    state = client_for(referee).get(f"/api/v1/rooms/{tracked['room']}/").json()["state"]
    assert state["referee"] == str(referee.pk)
    assert any(m["refereeing"] for m in client_for(referee).get("/api/v1/fp-pvp/").json())


def screens(*users: Any) -> list[Client]:
    """A signed-in browser client for each of ``users``."""
    clients = []
    for user in users:
        client = Client()
        client.force_login(user)
        clients.append(client)
    return clients


def test_the_screens_seat_a_referee_by_name_and_the_referee_reads_the_meeting(player: Any, other: Any) -> None:
    meeting, _, _ = set_up(player, other)
    referee: Any = UserFactory()
    host, guest, outsider = screens(player, other, referee)
    page = f"/battles/pvp/{meeting['id']}/"
    assert outsider.get(page).status_code == 404
    assert 'data-testid="referee-invite"' in host.get(page).content.decode()
    assert 'data-testid="referee-invite"' not in guest.get(page).content.decode()  # the host's players seat one
    nobody = host.post(page + "referee/", {"version": meeting["version"], "username": "nobody-here"})
    assert nobody.status_code == 400 and "no user by that name" in nobody.content.decode()
    assert 'data-testid="referee-invite"' in nobody.content.decode()  # the page stays whole
    seated = host.post(page + "referee/", {"version": meeting["version"], "username": referee.username})
    assert seated.status_code == 302
    mine = outsider.get(page).content.decode()
    assert "(you)" in mine and 'data-testid="setup-form"' not in mine and 'data-testid="track-form"' not in mine
    assert outsider.post(page + "track/", {"version": meeting["version"] + 1}).status_code == 403
    assert "you referee" in outsider.get("/battles/pvp/").content.decode()


def test_the_referee_seat_is_freed_by_the_host_or_the_referee_and_the_players_run_the_third_party_again(
    player: Any, other: Any
) -> None:
    meeting, host, guest = set_up(player, other)
    url = f"/api/v1/fp-pvp/{meeting['id']}/"
    p, o = client_for(player), client_for(other)
    room = p.post(url + "track/", {"version": meeting["version"]}, format="json").json()["room"]
    referee: Any = UserFactory()
    r = client_for(referee)
    r.post("/api/v1/fp-pvp/referee/", {"code": meeting["code"]}, format="json")
    version = meeting_version(p, meeting["id"])
    assert client_for(UserFactory()).post(url + "referee/leave/", {"version": version}, format="json").status_code == 404
    guest_tries = o.post(url + "referee/leave/", {"version": "not a number"}, format="json")
    assert guest_tries.status_code == 403 and guest_tries.json()["field"] == "referee"  # who may, before the input
    stale = p.post(url + "referee/leave/", {"version": version - 1}, format="json")
    assert stale.status_code == 409 and Meeting.objects.get(pk=meeting["id"]).referee_id == referee.pk
    freed = p.post(url + "referee/leave/", {"version": version}, format="json")
    assert freed.status_code == 200 and freed.json()["referee"] is None, freed.content
    assert p.get(f"/api/v1/rooms/{room}/").json()["state"]["referee"] is None
    room_version = p.get(f"/api/v1/rooms/{room}/").json()["version"]
    undo = p.post(f"/api/v1/rooms/{room}/undo/", {"version": room_version}, format="json")
    assert undo.status_code == 400 and "Undo goes back no further" in undo.json()["detail"]  # the meeting's seat stays free
    assert p.get(f"/api/v1/rooms/{room}/").json()["state"]["referee"] is None
    assert r.get(url).status_code == 404 and r.get(f"/api/v1/rooms/{room}/").status_code in (403, 404)
    for campaign in (host, guest):
        assert LogEntry.objects.filter(campaign=campaign, text__contains=f"the referee {referee.username} is unseated").exists()
    again = p.post(url + "referee/leave/", {"version": freed.json()["version"]}, format="json")
    assert again.status_code == 400 and again.json()["field"] == "referee"
    # a new referee, who leaves on their own: the seat is free for the next one
    other_ref: Any = UserFactory()
    s = client_for(other_ref)
    assert s.post("/api/v1/fp-pvp/referee/", {"code": meeting["code"]}, format="json").status_code == 200
    room_act(p, room, "unseat_referee")  # freed at the tracker through the rooms API: the meeting still names them
    left = s.post(url + "referee/leave/", {"version": meeting_version(p, meeting["id"])}, format="json")
    assert left.status_code == 200 and left.json()["refereeing"] is False
    assert p.get(f"/api/v1/rooms/{room}/").json()["state"]["referee"] is None
    assert client_for(UserFactory()).post("/api/v1/fp-pvp/referee/", {"code": meeting["code"]}, format="json").status_code == 200


def test_the_screens_let_the_referee_leave_and_the_host_free_the_seat(player: Any, other: Any) -> None:
    meeting, _, _ = set_up(player, other)
    referee: Any = UserFactory()
    host, guest, seat = screens(player, other, referee)
    page = f"/battles/pvp/{meeting['id']}/"
    assert seat.post("/battles/pvp/start/", {"do": "referee", "code": meeting["code"]}).status_code == 302
    assert "Leave the referee's seat" in seat.get(page).content.decode()
    assert "Free the referee's seat" in host.get(page).content.decode()
    assert 'data-testid="referee-leave"' not in guest.get(page).content.decode()
    assert guest.post(page + "referee_leave/", {"version": "x"}).status_code == 403
    version = Meeting.objects.get(pk=meeting["id"]).version
    stale = seat.post(page + "referee_leave/", {"version": version - 1})
    assert stale.status_code == 409 and 'data-testid="referee-leave"' in stale.content.decode()  # the page stays whole
    left = seat.post(page + "referee_leave/", {"version": version})
    assert left.status_code == 302 and left["Location"] == "/battles/pvp/"
    assert seat.get(page).status_code == 404
    shown = host.get(page).content.decode()
    assert 'data-testid="referee-invite"' in shown and 'data-testid="referee-leave"' not in shown
