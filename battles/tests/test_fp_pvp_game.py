"""One PvP battle between two users' campaigns, from invitation to each campaign's post-battle
steps (Compendium pp.35-37): the set-up, the live tracker played through the rooms API by each
player from their own seat, the finish, and the result in each campaign's own turn (the host's
turn at Record the battle records it at once; the guest's takes it when it gets there), with no
Rivals, no Battlefield Finds and the bonus Loot roll against a Power Rating of 5+."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from battles import services
from battles.models import Battle, Meeting
from battles.tests.test_fp_services import ELITE, play_to_record
from battles.tests.test_fp_turn_record import advance_to_record
from campaigns import services as campaign_services
from campaigns import turn_services
from campaigns.models import Campaign, Character, LogEntry
from campaigns.selectors import current_turn
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

GUN = ["Hand gun"]


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def crew(user: Any, name: str, members: list[tuple[str, int, list[str]]]) -> Campaign:
    campaign = campaign_services.campaign_create(user=user, name=name, options={"crew_size": 4, "dramatic_combat": True})
    for who, cs, kit in members:
        Character.objects.create(
            campaign=campaign, name=who, combat_skill=cs, reactions=2, speed=4, toughness=3, sheet={"equipment": kit}
        )
    return campaign


def room_act(client: APIClient, room: int, kind: str, **payload: Any) -> dict[str, Any]:
    version = client.get(f"/api/v1/rooms/{room}/").json()["version"]
    done = client.post(f"/api/v1/rooms/{room}/actions/", {"type": kind, "payload": payload, "version": version}, format="json")
    assert done.status_code == 200, done.content
    return done.json()["state"]


def meeting_version(client: APIClient, meeting: int) -> int:
    return int(client.get(f"/api/v1/fp-pvp/{meeting}/").json()["version"])


def test_a_pvp_battle_from_invitation_to_both_campaigns_post_battle(player: Any, other: Any) -> None:
    host = crew(player, "Drift", [("Ace", 2, ["Rattle gun"]), ("Bo", 2, GUN), ("Cy", 0, GUN)])
    guest = crew(other, "Vex", [("Gil", 0, GUN), ("Hal", 0, GUN)])
    play_to_record(player, host)  # the host's turn waits at Record the battle
    guest.refresh_from_db()
    turn_services.turn_start(user=other, campaign_id=guest.pk, version=guest.version)  # the guest's turn has just begun
    me, them = client_for(player), client_for(other)
    made = me.post("/api/v1/fp-pvp/", {"campaign": host.pk}, format="json").json()
    them.post("/api/v1/fp-pvp/accept/", {"code": made["code"], "campaign": guest.pk}, format="json")
    mid = made["id"]
    ids = {c.name: c.pk for c in Character.objects.all()}
    me.post(f"/api/v1/fp-pvp/{mid}/field/", {"version": 2, "figures": [ids["Ace"], ids["Bo"], ids["Cy"]]}, format="json")
    them.post(f"/api/v1/fp-pvp/{mid}/field/", {"version": 3, "figures": [ids["Gil"], ids["Hal"]]}, format="json")
    set_up = them.post(
        f"/api/v1/fp-pvp/{mid}/setup/",
        {"version": 4, "reason": "same_prize", "seed": 3, "faces": {"first_player": 1}},
        format="json",
    )
    card = set_up.json()["setup"]
    # Host: Ace 3 (Combat Skill +2, Rattle gun), Bo 2, Cy 1 = 6; guest 2: outgunned by 4, 2 points (p.36).
    assert (card["power_rating"]["host"]["total"], card["power_rating"]["guest"]["total"]) == (6, 2)
    assert card["initiative_points"] == {"host": 0, "guest": 2} and card["deploys_first"] == "guest"

    early = me.post(f"/api/v1/fp-pvp/{mid}/finish/", {"version": 5}, format="json")
    assert early.status_code == 400 and early.json()["field"] == "meeting"
    tracked = me.post(f"/api/v1/fp-pvp/{mid}/track/", {"version": 5}, format="json").json()
    assert tracked["status"] == "tracking" and tracked["room"]
    room = tracked["room"]

    # The guest deploys first; the host cannot act for the guest even as the room's owner.
    version = me.get(f"/api/v1/rooms/{room}/").json()["version"]
    body = {"type": "deploy", "payload": {"figures": ["g1", "g2"]}, "version": version}
    refused = me.post(f"/api/v1/rooms/{room}/actions/", body, format="json")
    assert refused.status_code == 403, refused.content
    room_act(them, room, "deploy", figures=["g1", "g2"])
    room_act(me, room, "deploy", figures=["h1", "h2"])
    state = room_act(me, room, "deploy", figures=["h3"])
    assert state["round"] == 1 and state["sides"]["guest"]["points"] == 3  # 2 + 1 for the round
    room_act(me, room, "roll_reactions", faces="1, 1, 6")
    room_act(them, room, "roll_reactions", faces="1, 6")
    for who, client in (("h1", me), ("h2", me), ("h3", me), ("g1", them), ("g2", them)):
        room_act(client, room, "assign_reaction", figure=who, die=int(who[1]))
    room_act(me, room, "next_phase")
    room_act(me, room, "activate", figures=["h1"])
    room_act(me, room, "objective_done", side="host")
    room_act(them, room, "activate", figures=["g1"])
    room_act(them, room, "retreat", figure="g1")
    # The host owns the room but is no referee: only the guest takes back the guest's move.
    version = me.get(f"/api/v1/rooms/{room}/").json()["version"]
    assert me.post(f"/api/v1/rooms/{room}/undo/", {"version": version}, format="json").status_code == 403
    undone = them.post(f"/api/v1/rooms/{room}/undo/", {"version": version}, format="json")
    assert undone.status_code == 200 and undone.json()["state"]["figures"][3]["status"] == "active"
    room_act(them, room, "retreat", figure="g1")
    state = room_act(them, room, "retreat", figure="g2")
    assert state["phase"] == "over" and state["held_field"] == "host"

    done = me.post(f"/api/v1/fp-pvp/{mid}/finish/", {"version": meeting_version(me, mid)}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["status"] == "finished" and done.json()["result"]["host"]["won"]
    mine, theirs = Battle.objects.get(campaign=host), Battle.objects.get(campaign=guest)
    assert mine.result is not None and theirs.result is not None
    assert mine.result["record"]["mission_type"] == "pvp" and mine.result["record"]["won"] and mine.result["record"]["held_field"]
    assert "bonus_loot" not in mine.result["record"] and theirs.result["record"]["bonus_loot"] == 1  # the host's rating 6 is 5+
    assert not theirs.result["record"]["won"] and not theirs.result["record"]["held_field"]
    # The host's turn recorded it at once and skips Rival status and Battlefield Finds (p.37).
    assert mine.reported and not theirs.reported
    turn = current_turn(host)
    assert turn is not None and turn.facts["pvp"] and turn.facts["battle_source"]["id"] == mine.pk
    skipped = {s.key: s.mode for s in turn.steps.all()}
    steps = [p["key"] for p in turn.plan]
    for _ in range(40):
        turn.refresh_from_db()
        if turn.finished or turn.position >= len(turn.plan):
            break
        host.refresh_from_db()
        turn_services.step_resolve(user=player, campaign_id=host.pk, version=host.version, mode="manual", text="Done.")
    skipped = {s.key: s.mode for s in turn.steps.all()}
    assert skipped["post.rivals"] == "skipped" and skipped["post.finds"] == "skipped" and skipped["post.pvp_loot"] == "skipped"
    assert "post.pvp_loot" in steps
    # The guest's turn takes its side when it reaches Record the battle: lost, bonus Loot roll applies.
    play_turn = advance_to_record(other, guest)
    guide = turn_services.step_guide(guest, play_turn)
    assert guide is not None and guide["battle"] is not None and guide["battle"].battle_id == theirs.pk
    for _ in range(40):
        play_turn.refresh_from_db()
        if play_turn.finished:
            break
        guest.refresh_from_db()
        turn_services.step_resolve(
            user=other,
            campaign_id=guest.pk,
            version=guest.version,
            mode="manual" if play_turn.plan[play_turn.position]["key"] != "battle.record" else "roll",
            text="Done.",
        )
    modes = {s.key: s.mode for s in play_turn.steps.all()}
    assert modes["post.rivals"] == "skipped" and modes["post.finds"] == "skipped" and modes["post.pvp_loot"] == "manual"
    for campaign in (host, guest):
        assert LogEntry.objects.filter(campaign=campaign, text__contains="finished after 1 round(s)").exists()
    # Each campaign's battle page shows its side.
    page = Client()
    page.force_login(other)
    assert page.get(f"/battles/fp/{theirs.pk}/").status_code == 200
    assert Meeting.objects.get().status == "finished"


def test_a_turn_that_plans_a_pvp_battle_skips_the_enemy_and_deployment_and_points_to_the_pvp_page(player: Any) -> None:
    campaign = crew(player, "Drift", [("Ace", 0, GUN)])
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=campaign.version)
    for _ in range(40):
        turn.refresh_from_db()
        key = turn.plan[turn.position]["key"]
        if key == "battle.objective":
            break
        campaign.refresh_from_db()
        inputs = {"mission": "pvp"} if key == "battle.type" else {}
        mode = "roll" if key == "battle.type" else "manual"
        turn_services.step_resolve(
            user=player, campaign_id=campaign.pk, version=campaign.version, mode=mode, inputs=inputs, text="Done."
        )
    modes = {s.key: (s.mode, s.text) for s in turn.steps.all()}
    assert "PvP battle" in modes["battle.type"][1] and modes["battle.deployment"][0] == "skipped"
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE)
    assert refused.value.field == "mission_source" and "/battles/pvp/" in refused.value.message
    page = Client()
    page.force_login(player)
    assert 'data-testid="pvp-handoff"' in page.get(f"/campaigns/{campaign.pk}/turn/").content.decode()
    campaign.refresh_from_db()
    turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="manual", text="Done.")
    turn.refresh_from_db()
    assert {s.key: s.mode for s in turn.steps.all()}.get("battle.enemy") == "skipped"


def test_a_pvp_battle_fought_between_turns_goes_to_the_next_turn(player: Any, other: Any) -> None:
    host = crew(player, "Drift", [("Ace", 0, GUN)])
    guest = crew(other, "Vex", [("Gil", 0, GUN)])
    me, them = client_for(player), client_for(other)
    made = me.post("/api/v1/fp-pvp/", {"campaign": host.pk}, format="json").json()
    them.post("/api/v1/fp-pvp/accept/", {"code": made["code"], "campaign": guest.pk}, format="json")
    mid = made["id"]
    me.post(f"/api/v1/fp-pvp/{mid}/field/", {"version": 2, "figures": [Character.objects.get(name="Ace").pk]}, format="json")
    them.post(f"/api/v1/fp-pvp/{mid}/field/", {"version": 3, "figures": [Character.objects.get(name="Gil").pk]}, format="json")
    them.post(f"/api/v1/fp-pvp/{mid}/setup/", {"version": 4, "reason": "same_prize", "seed": 1}, format="json")
    room = me.post(f"/api/v1/fp-pvp/{mid}/track/", {"version": 5}, format="json").json()["room"]
    seat = {"host": me, "guest": them}
    state = me.get(f"/api/v1/rooms/{room}/").json()["state"]
    while state["phase"] == "deploy":  # one figure each, the lower rating (or the D6) first
        state = room_act(seat[state["turn"]], room, "deploy", figures=[f"{state['turn'][0]}1"])
    while state["turn"] is not None:  # the First Player rolls Reactions first
        state = room_act(seat[state["turn"]], room, "roll_reactions", faces="1")
    room_act(me, room, "assign_reaction", figure="h1", die=1)
    room_act(them, room, "assign_reaction", figure="g1", die=1)
    room_act(me, room, "next_phase")
    state = room_act(them, room, "retreat", figure="g1")  # the guest's only figure leaves the table
    assert state["held_field"] == "host"
    me.post(f"/api/v1/fp-pvp/{mid}/finish/", {"version": meeting_version(me, mid)}, format="json")
    battle = Battle.objects.get(campaign=host)
    assert battle.turn_number is None and not battle.reported  # no turn was being played
    play_to_record(player, host)
    turn = current_turn(host)
    assert turn is not None
    guide = turn_services.step_guide(host, turn)
    assert guide is not None and guide["battle"] is not None and guide["battle"].battle_id == battle.pk
