"""One expanded co-op battle between two users' campaigns, from invitation to each campaign's
post-battle steps (Compendium pp.39-41): the waves rolled through the API, the live tracker
played by each player from their own seat through the rooms API, the finish, and the aftermath in
each campaign's own turn (+1 to the credits roll, Battlefield Finds for each, the shared Loot roll
made once by the host's campaign, the Invasion check's modifier)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from battles import services
from battles.models import Battle, Meeting
from battles.tests.test_fp_pvp_game import GUN, client_for, crew, meeting_version, room_act
from battles.tests.test_fp_services import ELITE, play_to_record
from campaigns import services as campaign_services
from campaigns import turn_services
from campaigns.models import Character, LogEntry
from campaigns.selectors import current_turn
from campaigns.tests.conftest import core_table
from rules.engine.dice import Dice
from rules.errors import DropshipError
from rules.services import user_tables_import

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

FORCES = {"host": {"category": "Criminal Elements", "numbers": 3}, "guest": {"category": "Hired Muscle", "numbers": 4}}


def _state(client: APIClient, room: int) -> dict[str, Any]:
    return client.get(f"/api/v1/rooms/{room}/").json()["state"]  # type: ignore[no-any-return]


def _clear(client: APIClient, room: int) -> dict[str, Any]:
    state = _state(client, room)
    for f in state["figures"]:
        if f["side"] == "third" and f["status"] == "active":
            state = room_act(client, room, "adjust", figure=f["id"], status="retreated")
    return state


def _round(me: APIClient, them: APIClient, room: int, **end: Any) -> dict[str, Any]:
    """Each player rolls and takes their own Reaction die; each activates their one figure in
    turn; the Enemy Actions phase (if any) passes; the round ends with ``end``'s dice."""
    room_act(them, room, "roll_reactions", faces="1")
    room_act(me, room, "roll_reactions", faces="1")
    room_act(me, room, "assign_reaction", figure="h1", die=1)
    room_act(them, room, "assign_reaction", figure="g1", die=1)
    state = room_act(me, room, "next_phase")
    while state["turn"] is not None:
        client, fid = (me, "h1") if state["turn"] == "host" else (them, "g1")
        state = room_act(client, room, "activate", figures=[fid])
    state = room_act(them, room, "next_phase")
    if state["phase"] == "enemy":
        state = room_act(them, room, "next_phase")
    state = room_act(me, room, "next_phase", **end)
    if state["phase"] == "end":
        state = room_act(me, room, "next_phase", **({"wave_faces": "1"} if state["round"] == 2 else {}))
    return state


def test_a_coop_battle_from_invitation_to_both_campaigns_post_battle(player: Any, other: Any) -> None:
    host = crew(player, "Drift", [("Ace", 0, GUN)])
    guest = crew(other, "Vex", [("Gil", 0, GUN)])
    play_to_record(player, host)  # the host's turn waits at Record the battle
    rows: list[tuple[int, int, str, dict[str, Any]]] = [(2, 8, "No invasion", {}), (9, 12, "Invasion!", {})]
    user_tables_import(user=player, text=core_table("my-invasion", "My invasion check", "2D6", rows))  # type: ignore[arg-type]
    host.refresh_from_db()
    campaign_services.slot_set(
        user=player, campaign_id=host.pk, version=host.version, slot_key="invasion", table_slug="my-invasion"
    )
    me, them = client_for(player), client_for(other)
    made = me.post("/api/v1/fp-pvp/", {"campaign": host.pk, "kind": "coop"}, format="json").json()
    assert made["kind"] == "coop"
    them.post("/api/v1/fp-pvp/accept/", {"code": made["code"], "campaign": guest.pk}, format="json")
    mid = made["id"]
    ace, gil = Character.objects.get(name="Ace").pk, Character.objects.get(name="Gil").pk
    agreed = me.post(f"/api/v1/fp-pvp/{mid}/field/", {"version": 2, "figures": [ace], "agreed_crew": 3}, format="json")
    assert agreed.status_code == 400 and agreed.json()["field"] == "agreed_crew"  # a PvP rule (p.35)
    me.post(f"/api/v1/fp-pvp/{mid}/field/", {"version": 2, "figures": [ace]}, format="json")
    them.post(f"/api/v1/fp-pvp/{mid}/field/", {"version": 3, "figures": [gil]}, format="json")
    pvp = me.post(f"/api/v1/fp-pvp/{mid}/setup/", {"version": 4, "reason": "same_prize"}, format="json")
    assert pvp.status_code == 400 and pvp.json()["field"] == "meeting"
    bad = me.post(
        f"/api/v1/fp-pvp/{mid}/coop-setup/",
        {"version": 4, "forces": {"host": {"category": "Pirates", "numbers": 3}, "guest": FORCES["guest"]}, "wave3_numbers": 2},
        format="json",
    )
    assert bad.status_code == 400 and "category" in bad.content.decode() and "Pirates" in bad.content.decode()
    assert Meeting.objects.get().status == "accepted"  # a refused set-up writes nothing
    body = {"version": 4, "forces": FORCES, "wave3_numbers": 2, "invasion": [1], "seed": 5}
    set_up = them.post(f"/api/v1/fp-pvp/{mid}/coop-setup/", body, format="json")
    assert set_up.status_code == 200, set_up.content
    card = set_up.json()["setup"]
    assert card["mode"] == "coop" and [w["wave"] for w in card["third_party"]["waves"]] == [1, 2, 3]
    assert LogEntry.objects.filter(campaign=guest, text__contains="Wave 1").exists()

    room = me.post(f"/api/v1/fp-pvp/{mid}/track/", {"version": 5}, format="json").json()["room"]
    state = _state(me, room)
    assert (state["mode"], state["round"], state["phase"]) == ("coop", 1, "reactions")
    # The host cannot roll the guest's Reaction dice (p.40: separate pools).
    version = me.get(f"/api/v1/rooms/{room}/").json()["version"]
    body = {"type": "roll_reactions", "payload": {"side": "guest"}, "version": version}
    assert me.post(f"/api/v1/rooms/{room}/actions/", body, format="json").status_code == 400
    _clear(me, room)
    state = _round(me, them, room)
    state = _round(me, them, room)  # round 3 begins: Wave 2 comes from the left edge (D6 1)
    assert state["round"] == 3 and state["third_party"]["edges"] == {"2": "left"}
    _clear(them, room)
    state = _round(me, them, room, end_faces="1, 1", wave_faces="1")  # Wave 3 comes, away from Wave 2's edge
    assert state["third_party"]["edges"]["3"] == "right"
    _clear(me, room)
    state = _round(me, them, room)
    assert state["phase"] == "over" and state["held_field"] == "both"

    done = them.post(f"/api/v1/fp-pvp/{mid}/finish/", {"version": meeting_version(them, mid)}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["result"]["host"]["won"] and done.json()["result"]["guest"]["won"]
    mine, theirs = Battle.objects.get(campaign=host), Battle.objects.get(campaign=guest)
    assert mine.result is not None and theirs.result is not None
    record, other_record = mine.result["record"], theirs.result["record"]
    assert record["mission_type"] == other_record["mission_type"] == "coop"
    assert record["won"] and record["held_field"] and other_record["won"] and other_record["held_field"]
    assert record["bonus_loot"] == 1 and "bonus_loot" not in other_record  # one player makes the shared roll (p.41)
    assert record["pay_bonus"] == other_record["pay_bonus"] == 1
    assert record["invasion_modifier"] == 1
    # The guest finished it; the host's turn (at Record the battle) takes it when the host plays it.
    turn = current_turn(host)
    assert turn is not None
    host.refresh_from_db()
    turn_services.step_resolve(user=player, campaign_id=host.pk, version=host.version, mode="roll")
    turn.refresh_from_db()
    assert turn.facts["coop"] and turn.facts["pay_bonus"] == 1 and turn.facts["invasion_modifier"] == 1
    seen: dict[str, str] = {}
    for _ in range(40):
        turn.refresh_from_db()
        if turn.finished or turn.position >= len(turn.plan):
            break
        key = turn.plan[turn.position]["key"]
        guide = turn_services.step_guide(host, turn)
        assert guide is not None
        seen[key] = guide["preview"]
        host.refresh_from_db()
        turn_services.step_resolve(user=player, campaign_id=host.pk, version=host.version, mode="manual", text="Done.")
    modes = {s.key: s.mode for s in turn.steps.all()}
    assert modes["post.finds"] == "manual" and modes["post.rivals"] == "manual"  # as normal (p.41)
    # The Invasion check on the player's own 2D6 table takes the +1 of the Invasion Threat wave (p.41).
    invasion = turn_services._spec(next(p for p in turn.plan if p["key"] == "post.invasion"))
    roll = turn_services._roll_table(invasion, host, 8, Dice(seed=1), turn.facts)  # the step's roll, as step_resolve makes it
    assert roll is not None and roll.text.startswith("Invasion!") and "+1" in roll.rolls[0].reason
    plain = turn_services._roll_table(invasion, host, 8, Dice(seed=1), {})
    assert plain is not None and plain.text.startswith("No invasion")
    assert modes["post.pvp_loot"] == "manual"  # the shared Loot roll, in the host's campaign
    assert "+1 when you roll for credits" in seen["post.paid"]
    assert "+1 to this roll" in seen["post.invasion"]
    for campaign in (host, guest):
        assert LogEntry.objects.filter(campaign=campaign, text__contains="both crews Hold the Field").exists()
    page = Client()
    page.force_login(other)
    shown = page.get(f"/battles/pvp/{mid}/").content.decode()
    assert "Expanded co-op battle" in shown and "the host rolls the shared Loot item" in shown


def _accepted(player: Any, other: Any) -> tuple[Any, Any, int, APIClient]:
    host = crew(player, "Drift", [("Ace", 0, GUN)])
    guest = crew(other, "Vex", [("Gil", 0, GUN)])
    me, them = client_for(player), client_for(other)
    made = me.post("/api/v1/fp-pvp/", {"campaign": host.pk, "kind": "coop"}, format="json").json()
    them.post("/api/v1/fp-pvp/accept/", {"code": made["code"], "campaign": guest.pk}, format="json")
    me.post(
        f"/api/v1/fp-pvp/{made['id']}/field/", {"version": 2, "figures": [Character.objects.get(name="Ace").pk]}, format="json"
    )
    them.post(
        f"/api/v1/fp-pvp/{made['id']}/field/", {"version": 3, "figures": [Character.objects.get(name="Gil").pk]}, format="json"
    )
    return host, guest, made["id"], me


def test_p39_a_rival_coalition_picks_one_rival_of_each_crew_at_random(player: Any, other: Any) -> None:
    host, guest, mid, me = _accepted(player, other)
    body = {"version": 4, "forces": FORCES, "wave3_numbers": 2, "rivals": True, "rival_faces": {"host": 60}, "seed": 1}
    refused = me.post(f"/api/v1/fp-pvp/{mid}/coop-setup/", body, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "rivals"  # the host has no Rival yet
    assert Meeting.objects.get().status == "accepted" and not Meeting.objects.get().setup
    host.rivals.create(name="The Syndicate")
    host.rivals.create(name="Bone Collectors")
    guest.rivals.create(name="Old Debts")
    set_up = me.post(f"/api/v1/fp-pvp/{mid}/coop-setup/", body, format="json")
    assert set_up.status_code == 200, set_up.content
    card = set_up.json()["setup"]
    assert card["rivals"] == {"host": "Bone Collectors", "guest": "Old Debts"}  # the typed D100 60: the second of two
    assert {w["from"]: w["rival"] for w in card["third_party"]["waves"] if w["from"]} == card["rivals"]
    assert any("picks its Rival" in r["reason"] for r in card["rolls"])
    shown = client_for(other).get(f"/api/v1/fp-pvp/{mid}/").json()["setup"]["rivals"]
    assert shown == card["rivals"]
    assert LogEntry.objects.filter(campaign=guest, text__contains="Rival Old Debts").exists()
    page = Client()
    page.force_login(player)
    assert 'data-testid="coalition"' in page.get(f"/battles/pvp/{mid}/").content.decode()


def test_a_turn_that_plans_a_coop_battle_skips_the_enemy_keeps_deployment_and_points_to_the_coop_page(player: Any) -> None:
    campaign = crew(player, "Drift", [("Ace", 0, GUN)])
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=campaign.version)
    for _ in range(40):
        turn.refresh_from_db()
        if turn.plan[turn.position]["key"] == "battle.setup":
            break
        key = turn.plan[turn.position]["key"]
        campaign.refresh_from_db()
        inputs = {"mission": "coop"} if key == "battle.type" else {}
        mode = "roll" if key == "battle.type" else "manual"
        turn_services.step_resolve(
            user=player, campaign_id=campaign.pk, version=campaign.version, mode=mode, inputs=inputs, text="Done."
        )
    modes = {s.key: (s.mode, s.text) for s in turn.steps.all()}
    assert "expanded co-op battle" in modes["battle.type"][1] and "Rivals" in modes["battle.type"][1]
    assert modes["battle.enemy"][0] == "skipped"  # the meeting rolls the waves (p.40)
    assert modes["battle.deployment"][0] == "manual"  # rolled up normally (p.39)
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE)
    assert refused.value.field == "mission_source" and "co-op" in refused.value.message
    page = Client()
    page.force_login(player)
    assert "Meet the other crew (co-op)" in page.get(f"/campaigns/{campaign.pk}/turn/").content.decode()
