"""A Stealth mission from set-up to the campaign turn (Compendium pp.116-122): Mission Selection
or the player picks the type, the set-up card says so, the tracker is the Stealth kind, the
no-minis rules are refused with the reason, and the finished mission's result fills the turn's
Record the battle step."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from battles import mission_types, nominis_services, result_services, services, tracker_services
from battles.models import Battle
from battles.tests.fp_data import CREW, PUNKS
from battles.tests.test_fp_services import ELITE, make_campaign, play_to_record
from campaigns.selectors import current_turn
from live import services as live_services
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def stealth(user: Any, **extra: Any) -> Battle:
    """A standalone Stealth battle whose objective is not a Rescue (the first such seed)."""
    for seed in range(1, 40):
        args: dict[str, Any] = {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}, "dice": Dice(seed=seed)}
        battle = services.battle_create(user=user, battle_type="stealth", **{**args, **extra})
        if battle.setup["mission_type"]["setup"]["objective"]["key"] != "rescue":
            return battle
    pytest.fail("no seed gave a non-Rescue objective")


def act(user: Any, battle: Battle, type_: str, **payload: Any) -> dict[str, Any]:
    room = battle.room
    assert room is not None
    room.refresh_from_db()
    return live_services.room_act(
        user=user, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=5
    ).room.state


def win(user: Any, battle: Battle) -> dict[str, Any]:
    """Play round 1 on the tracker: everyone Quick, Ria finds / takes the objective, both leave."""
    state = act(user, battle, "next_phase")
    state = act(user, battle, "roll_reactions", faces=[1, 1])
    for fig in state["crew"]:
        state = act(user, battle, "assign_reaction", figure=fig["id"], die=int(fig["id"][1:]))
    state = act(user, battle, "next_phase")
    objective = state["stealth"]["objective"]
    while not state["stealth"]["objective"]["located"]:
        state = act(user, battle, "search", figure="c1", faces=[6])
    step = {"locate_retrieve": "pick_up", "retrieve_package": "pick_up", "deliver": "deliver"}.get(objective["key"])
    state = act(user, battle, "objective", figure="c1", **({"step": step} if step else {}))
    state = act(user, battle, "exfiltrate", figure="c2")
    return act(user, battle, "exfiltrate", figure="c1")


def test_mission_types_map_stealth_to_its_kind_and_generator() -> None:
    assert mission_types.MISSION_TRACKERS["stealth"] == "fiveparsecs-stealth"
    assert mission_types.kind_of("conventional") is None and mission_types.generator("conventional") is None
    assert (
        mission_types.outcome_for("fiveparsecs-stealth") is not None and mission_types.outcome_for("fiveparsecs-battle") is None
    )


def test_a_stealth_pick_sets_up_a_stealth_mission_and_refuses_no_minis(player: Any) -> None:
    """p.117: the set-up card says it is a Stealth mission; p.122: crew size +1 enemies, one
    Lieutenant and one Specialist; no-minis play is not for Stealth missions."""
    battle = stealth(player)
    special = battle.setup["mission_type"]
    assert special["type"] == "stealth" and special["kind"] == "fiveparsecs-stealth"
    ranks = sorted(f["rank"] for f in battle.setup["enemy"]["figures"])
    assert ranks == ["basic", "lieutenant", "specialist"]  # 2 crew + 1
    assert any(line.startswith("Stealth mission (Compendium pp.117-122)") for line in battle.setup["battle"]["card"])
    assert battle.setup["objective"] == special["setup"]["objective"]["name"]
    with pytest.raises(DropshipError) as refused:
        nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="assisted")
    assert refused.value.field == "mode" and "Stealth mission needs the miniatures rules" in str(refused.value)


def test_mission_selection_that_rolls_stealth_gives_a_stealth_battle(player: Any) -> None:
    """p.116: a Patron mission is a Stealth mission on 3-4."""
    for seed in range(1, 60):
        args: dict[str, Any] = {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}, "dice": Dice(seed=seed)}
        battle = services.battle_create(user=player, mission_source="patron", **args)
        kind = battle.setup["battle"]["mission"]["battle_type"]
        assert ((battle.setup.get("mission_type") or {}).get("type") == "stealth") == (kind == "stealth")
        if kind == "stealth":
            room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
            assert room.kind == "fiveparsecs-stealth" and "stealth" in room.state
            return
    pytest.fail("Mission Selection never gave a Stealth mission")


def test_a_standalone_stealth_mission_is_tracked_and_finished_as_won(player: Any) -> None:
    battle = stealth(player)
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    battle.refresh_from_db()
    assert room.kind == "fiveparsecs-stealth" and room.state["options"]["deployment_variables"] is False
    state = win(player, battle)
    assert state["phase"] == "over" and state["stealth"]["finished"]["won"]
    battle.refresh_from_db()
    done = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    assert done.result is not None
    assert done.result["won"] is True and done.result["held_field"] is False and done.result["source"] == "tracker"
    assert done.result["mission"] == "stealth" and done.result["stealth"]["exfiltrated"] == ["Ria", "Bo"]


def test_a_campaign_stealth_mission_fills_record_the_battle(player: Any) -> None:
    """The result reaches the turn's Record the battle step as a standard battle's does."""
    campaign = make_campaign(player, dramatic_combat=True)
    play_to_record(player, campaign)
    for seed in range(1, 40):
        battle = services.battle_create(
            user=player, campaign_id=campaign.pk, enemy=ELITE, battle_type="stealth", dice=Dice(seed=seed)
        )
        if battle.setup["mission_type"]["setup"]["objective"]["key"] != "rescue":
            break
        services.battle_delete(user=player, battle_id=battle.pk, version=battle.version)
    assert battle.setup["battle"]["mission"]["chosen"] is True
    tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    battle.refresh_from_db()
    win(player, battle)
    battle.refresh_from_db()
    done = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    assert done.reported and done.result is not None and done.result["record"]["won"] is True
    # p.122: the campaign's crew size (4 here) +1, not the two figures fielded.
    assert len(battle.setup["enemy"]["figures"]) == 5 + (1 if battle.setup["enemy"].get("unique_individual") else 0)
    turn = current_turn(campaign)
    assert turn is not None and turn.facts["battle"]["won"] is True and turn.facts["battle"]["held_field"] is False


def test_the_api_names_battle_type_and_its_values(player: Any) -> None:
    client = APIClient()
    client.force_authenticate(player)
    body = {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}, "battle_type": "heist"}
    answer = client.post("/api/v1/fp-battles/", body, format="json")
    assert answer.status_code == 400
    text = str(answer.json())
    assert "battle_type" in text and "stealth" in text and "street_fight" in text


def test_the_set_up_form_picks_stealth_and_the_card_and_tracker_say_so(player: Any) -> None:
    client = Client()
    client.force_login(player)
    form = {
        "battle_type": "stealth",
        "enemy_name": "Punks",
        "enemy_numbers": "1",
        "enemy_speed": "4",
        "enemy_combat_skill": "0",
        "enemy_toughness": "3",
        "enemy_weapons": "Scrap pistol",
        "enemy_panic": "1-2",
        "hit_open": "5",
        "hit_cover": "6",
        "crew-0-name": "Ria",
        "crew-0-reactions": "2",
        "crew-0-speed": "5",
        "crew-0-combat_skill": "1",
        "crew-0-toughness": "4",
        "crew-0-weapon": "Hand gun",
        "crew-1-name": "Bo",
        "crew-1-reactions": "1",
        "crew-1-speed": "4",
        "crew-1-combat_skill": "0",
        "crew-1-toughness": "3",
        "crew-1-weapon": "Hand gun",
        "enemy_kind": "custom",
        "category": "Criminal Elements",
        "base_numbers": "2",
    }
    answer = client.post(reverse("battles:create"), form)
    assert answer.status_code == 302, re.findall(r"data-testid=\"error\">([^<]*)", answer.content.decode())
    battle = Battle.objects.get(owner=player)
    page = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="stealth-card"' in page and 'data-testid="no-minis-refused"' in page
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    tracker = client.get(reverse("live:room", args=[room.pk])).content.decode()
    assert 'data-testid="stealth"' in tracker and 'data-testid="fp-battle"' in tracker
