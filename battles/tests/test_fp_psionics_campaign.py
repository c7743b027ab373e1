"""A campaign's Psionic goes to battle as the campaign knows it (Compendium pp.17-27): its powers
(and which are enhanced), its psionic gear, the current world's legality; the tracker counts its
Psionic Actions and the finished battle hands the count to the turn's detection step."""

from __future__ import annotations

from typing import Any

import pytest

from battles import result_services, services, tracker_services
from battles.models import Battle
from battles.tests.fp_data import PUNKS
from campaigns import services as campaign_services
from campaigns.models import Campaign, Character, World
from live import services as live_services
from rules.engine.dice import Dice

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

ELITE = {"elite": True, "category": "Criminal Elements", "base_numbers": 3, "basic_weapon": "Hand gun"}


def campaign_with_a_psionic(
    user: Any, *, legality: str = "unusual", kit: tuple[str, ...] = ("Hand gun", "Warding Shrel")
) -> Campaign:
    campaign = campaign_services.campaign_create(user=user, name="Drift", options={"crew_size": 4, "dramatic_combat": True})
    Character.objects.create(
        campaign=campaign, name="Ria", is_captain=True, reactions=2, speed=5, combat_skill=1, toughness=4,
        sheet={"equipment": list(kit), "psionic": True, "powers": {"Shock": False, "Barrier": True}},
    )  # fmt: skip
    Character.objects.create(campaign=campaign, name="Bo", reactions=1, speed=4, toughness=3, sheet={"equipment": ["Hand gun"]})
    World.objects.filter(campaign=campaign).update(current=False)
    World.objects.create(campaign=campaign, name="Vex", current=True, psionic_legality=legality)
    return campaign


def tracked(user: Any, campaign: Campaign) -> tuple[Battle, Any]:
    battle = services.battle_create(user=user, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    room = tracker_services.battle_track(user=user, battle_id=battle.pk, version=battle.version)
    battle.refresh_from_db()
    return battle, room


def act(user: Any, room: Any, type_: str, **payload: Any) -> None:
    room.refresh_from_db()
    live_services.room_act(user=user, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=3)


def to_quick_phase(user: Any, room: Any) -> None:
    """Round 1's Quick Action phase, with Ria (the Psionic) in it and Bo in the Slow phase."""
    act(user, room, "next_phase")
    act(user, room, "roll_reactions", faces="1, 4")
    act(user, room, "assign_reaction", figure="c1", die=1)
    act(user, room, "assign_reaction", figure="c2", die=2)
    act(user, room, "next_phase")


def test_the_psionic_brings_its_powers_gear_and_the_worlds_legality(player: Any) -> None:
    battle, room = tracked(player, campaign_with_a_psionic(player))
    ria, bo = room.state["crew"]
    assert ria["powers"] == {"Shock": False, "Barrier": True} and ria["shrels"] == 1 and not ria["focus"]
    assert "powers" not in bo and not bo.get("psionic")
    assert battle.setup["psionic_legality"] == "unusual" and room.state["psionics"]["legality"] == "unusual"


def test_without_a_rolled_legality_or_a_psionic_the_tracker_has_no_psionics(player: Any) -> None:
    campaign = campaign_with_a_psionic(player, legality="who_cares", kit=("Hand gun", "Psionic Focus"))
    _, room = tracked(player, campaign)
    assert room.state["psionics"]["legality"] == "common" and room.state["crew"][0]["focus"]
    Character.objects.filter(campaign=campaign, name="Ria").update(sheet={"equipment": ["Hand gun"]})
    World.objects.filter(campaign=campaign).update(psionic_legality="")
    _, plain = tracked(player, campaign)
    assert "psionics" not in plain.state


def test_psionic_actions_on_the_tracker_reach_the_finished_battles_result(player: Any) -> None:
    battle, room = tracked(player, campaign_with_a_psionic(player))
    to_quick_phase(player, room)
    before = len(room.state["enemies"])
    act(player, room, "psionic", figure="c1", power="Shock", target="e1", distance=3, faces="6, 6", reinforcement_faces="2, 2, 6")
    room.refresh_from_db()
    assert room.state["enemies"][0]["stun"] == 1 and room.state["psionics"]["reinforcements"]["basic"] == 2
    assert len(room.state["enemies"]) == before
    act(player, room, "end_battle", held_field="on")
    battle = result_services.battle_finish(user=player, battle_id=battle.pk, version=Battle.objects.get(pk=battle.pk).version)
    assert battle.result is not None and battle.result["psionic_uses"] == 1


def test_the_psionics_card_offers_the_psionic_action_then_the_choice_to_strain(player: Any) -> None:
    from django.test import Client

    _, room = tracked(player, campaign_with_a_psionic(player))
    to_quick_phase(player, room)
    client = Client()
    client.force_login(player)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert 'data-testid="psionic-c1"' in page and 'data-testid="psionic-c2"' not in page
    assert "Barrier (enhanced)" in page and "Psionic: Shock, Barrier" in page and "Warding Shrel" in page
    room.refresh_from_db()
    sent = client.post(
        f"/rooms/{room.pk}/act/",
        {
            "version": room.version,
            "type": "psionic",
            "figure": "c1",
            "power": "Shock",
            "target": "e1",
            "distance": "11",
            "faces": "2, 3",
        },
        HTTP_HX_REQUEST="true",
    )
    assert sent.status_code == 200
    page = sent.content.decode()
    assert 'data-testid="strain-c1"' in page and 'Shock reaches 5" of 11"' in page
    assert 'data-testid="psionic-c1"' not in page


def test_an_enemy_psionic_from_the_set_up_uses_its_powers_on_the_tracker(player: Any) -> None:
    from django.test import Client

    campaign = campaign_with_a_psionic(player)
    campaign.options = {**campaign.options, "psionics": "both"}
    campaign.save(update_fields=["options"])
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=0))
    [psionic] = [f for f in battle.setup["enemy"]["figures"] if f["psionic_powers"]]
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=Battle.objects.get(pk=battle.pk).version)
    [fig] = [f for f in room.state["enemies"] if f.get("psionic")]
    assert fig["powers"] == psionic["psionic_powers"] and fig["toughness"] == psionic["toughness"]
    assert [w["name"] for w in fig["weapons"]] == ["Hand gun", "Blade"]
    client = Client()
    client.force_login(player)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert f"Psionic: {', '.join(fig['powers'])}" in page


def test_the_turns_elite_roll_decides_the_battles_enemy_and_the_brief_says_so(player: Any) -> None:  # p.48
    from campaigns import turn_services
    from campaigns.selectors import current_turn
    from rules.errors import DropshipError

    campaign = campaign_with_a_psionic(player)
    campaign.options = {**campaign.options, "elite_enemies": "roll"}
    campaign.save(update_fields=["options"])
    campaign.refresh_from_db()
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=campaign.version)
    typed = PUNKS
    before = services.battle_create(user=player, campaign_id=campaign.pk, enemy=typed, dice=Dice(seed=1))
    assert not before.setup["enemy"].get("elite")  # no roll made yet: the player chooses
    brief = None
    for _ in range(60):
        campaign.refresh_from_db()
        turn = current_turn(campaign)
        assert turn is not None
        key = turn.plan[turn.position]["key"]
        if key == "battle.elite":
            turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="enter", value=6)
        elif key == "battle.brief":
            brief = turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll")
            break
        else:
            turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="skip")
    assert brief is not None and "This turn's roll: use the elite-level enemy tables" in brief.text
    assert "Roll D6 for this encounter" not in brief.text
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=campaign.pk, enemy=typed, dice=Dice(seed=1))
    assert refused.value.field == "enemy.elite"
    elite = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=1))
    assert elite.setup["enemy"]["elite"]
