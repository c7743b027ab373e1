"""A Street fight from set-up to the campaign turn (Compendium pp.116, 123-136): Mission Selection
or the player picks the type, the set-up card says so (and why no-minis play is not offered),
the tracker is the Street fight kind with the battle's crew in the card's slots, and the
finished fight's result (and what the chapter paid during play) reaches the turn's Record the
battle step."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from battles import mission_types, nominis_services, result_services, services, street_kind, tracker_services
from battles.engine import fp_street
from battles.models import Battle
from battles.tests.fp_data import CREW, PUNKS
from battles.tests.test_fp_services import ELITE, make_campaign, play_to_record
from battles.tests.test_stealth_services import act
from campaigns.models import Character
from campaigns.selectors import current_turn
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

ARGS: dict[str, Any] = {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}}


def street(user: Any, objective: str = "contact", **args: Any) -> Battle:
    """A Street fight battle whose objective is ``objective`` (the first seed that gives it)."""
    for seed in range(1, 120):
        battle = services.battle_create(user=user, battle_type="street_fight", dice=Dice(seed=seed), **(args or ARGS))
        if battle.setup["mission_type"]["setup"]["objective"]["key"] == objective:
            return battle
        services.battle_delete(user=user, battle_id=battle.pk, version=battle.version)
    pytest.fail(f"no seed gave a {objective} objective")


def play_contact(user: Any, battle: Battle, *, pay: bool = False) -> dict[str, Any]:
    """Round 1: Ria delivers the message (Contact individual, p.127); with ``pay`` she also finds
    an Informer (+1 Quest Clue, p.134), a Reporter who sees the crew start it (an Enforcer
    Rival, p.135) and a Criminal she downs with a bounty on it (2 Credits, p.133); both leave
    the table (p.136)."""
    state = act(user, battle, "next_phase")
    state = act(user, battle, "roll_reactions", faces=[1, 1])
    for n, fig in enumerate(state["crew"], start=1):
        state = act(user, battle, "assign_reaction", figure=fig["id"], die=n)
    state = act(user, battle, "next_phase")
    assert state["phase"] == "quick"
    if pay:
        state = act(user, battle, "city_reveal", figure="c1", face=20)
        state = act(user, battle, "city_reveal", figure="c1", face=53)
        state = act(user, battle, "reporter", crew=True)
        state = act(user, battle, "city_reveal", figure="c1", face=60, combatant_face=70)
        criminal = next(e for e in state["enemies"] if e["type"] == "Criminal")
        state = act(user, battle, "adjust", enemy=criminal["id"], status="casualty", bounty_face=6)
    state = act(user, battle, "contact", figure="c1")
    state = act(user, battle, "escape", figure="c2")
    return act(user, battle, "escape", figure="c1")


def test_mission_types_map_street_fight_to_its_kind_and_generator() -> None:
    assert mission_types.MISSION_TRACKERS["street_fight"] == street_kind.KIND
    assert mission_types.generator("street_fight") is street_kind.mission_setup


def test_mission_setup_rolls_the_card_for_the_crew_slots_with_every_roll_logged() -> None:
    """p.124: four blocks a D6 each, one entry direction per crew figure; pp.127-128: a D100
    objective. The card says the set-up is a Street fight and that no-minis play is not offered."""
    tables = services.fiveparsecs_tables()
    made = street_kind.mission_setup(Dice(seed=3), tables, crew_size=5, ai_type="tactical")
    reasons = [r["reason"] for r in made["rolls"]]
    assert reasons.count("Street Fight objective") == 1
    assert sum(r.startswith("Building of block") for r in reasons) == 4
    assert sum(r.startswith("Entry point of") for r in reasons) == 5
    assert all(r["total"] is not None for r in made["rolls"])
    assert made["slots"] == 5 and len(made["crew"]) == 5
    assert made["card"][0].startswith("Street fight (Compendium pp.123-136)")
    assert made["no_minis_allowed"] is False and made["no_minis"] == fp_street.NOMINIS_WHY
    assert any(line.startswith("Without miniatures: not offered") for line in made["card"])
    # The crew size is held to the generator's 1-12 figures.
    assert street_kind.mission_setup(Dice(seed=3), tables, crew_size=40, ai_type=None)["slots"] == 12


def test_the_battles_crew_takes_the_cards_slots() -> None:
    """The rolled entry points go to the crew but the captain (who enters last, p.124); the
    Suspect markers follow the crew deployed, one each (p.124), the others stay."""
    tables = services.fiveparsecs_tables()
    made = street_kind.mission_setup(Dice(seed=8), tables, crew_size=4, ai_type=None)
    extra = len(made["suspects"]) - 4
    crew = [
        {"name": "Ria", "ref": "7", "captain": True, "reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 4, "savvy": 1},
        {"name": "Bo", "captain": False, "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "savvy": 0},
    ]
    card = street_kind.battle_card({"street_fight": made, "crew": crew, "planned": {}})
    assert [e["name"] for e in card["entries"]] == ["Bo"] and card["entries"][0]["edge"] == made["entries"][0]["edge"]
    assert card["captain"] == "Ria" and card["notes"][0].startswith("Ria (captain) enters last")
    assert len(card["suspects"]) == 2 + extra and [s["id"] for s in card["suspects"]] == [f"s{n}" for n in range(1, 3 + extra)]
    state = street_kind.initial_state({"setup": {"street_fight": made, "crew": crew}}, tables=tables)
    assert [f["name"] for f in state["crew"]] == ["Ria", "Bo"] and state["crew"][0]["ref"] == "7"
    # Five crew figures on four rolled slots: the fifth walker enters at a point rolled at the table.
    many = [{**crew[1], "name": f"B{n}"} for n in range(5)]
    card = street_kind.battle_card({"street_fight": made, "crew": many})
    assert card["entries"][4]["face"] is None and "roll a direction die" in card["entries"][4]["edge"]
    with pytest.raises(Exception) as refused:
        street_kind.battle_card({"street_fight": made, "crew": []})
    assert getattr(refused.value, "field", "") == "setup"


def test_a_street_fight_pick_sets_it_up_and_refuses_no_minis(player: Any) -> None:
    battle = street(player)
    special = battle.setup["mission_type"]
    assert special["type"] == "street_fight" and special["kind"] == street_kind.KIND
    assert not any(w.startswith("Mission Selection gave") for w in battle.setup["warnings"])
    assert any(line.startswith("Street fight (Compendium pp.123-136)") for line in battle.setup["battle"]["card"])
    assert battle.setup["objective"] == "Contact individual"
    with pytest.raises(DropshipError) as refused:
        nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="assisted")
    assert refused.value.field == "mode" and "Street Fight objectives" in str(refused.value)


def test_mission_selection_that_rolls_a_street_fight_gives_one(player: Any) -> None:
    """p.116: an Opportunity mission is a Street fight on some of its rolls; the battle is then one."""
    seen = False
    for seed in range(1, 80):
        battle = services.battle_create(user=player, mission_source="opportunity", **ARGS, dice=Dice(seed=seed))
        kind = battle.setup["battle"]["mission"]["battle_type"]
        assert (battle.setup.get("mission_type", {}).get("kind") == street_kind.KIND) == (kind == "street_fight")
        if kind == "street_fight":
            room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
            assert room.kind == street_kind.KIND and room.state["mission"] == "street_fight"
            assert [f["name"] for f in room.state["crew"]] == [c["name"] for c in CREW]
            seen = True
            break
    assert seen, "Mission Selection never gave a Street fight"


def test_a_standalone_street_fight_is_tracked_and_finished_as_won(player: Any) -> None:
    battle = street(player)
    tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    battle.refresh_from_db()
    state = play_contact(player, battle)
    assert state["phase"] == "over" and state["won"] is True
    battle.refresh_from_db()
    done = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    assert done.result is not None and done.result["source"] == "tracker"
    assert done.result["won"] is True and done.result["held_field"] is False  # the Suspects were never cleared (p.136)
    assert done.result["mission"] == "street_fight" and done.result["street"]["escaped"] == ["Ria", "Bo"]


def test_a_campaign_street_fight_fills_record_the_battle_and_pays_the_chapter(player: Any) -> None:
    """The join: a campaign turn at Record the battle, a Street fight set up from it, played on
    the tracker through room actions, finished; the turn records the result and the campaign
    gets the Criminal's 2 Credits, the Enforcer Rival and the Quest Clue note (pp.133-135)."""
    campaign = make_campaign(player, dramatic_combat=True)
    play_to_record(player, campaign)
    campaign.refresh_from_db()
    credits = campaign.credits
    battle = street(player, campaign_id=campaign.pk, enemy=ELITE)
    assert battle.setup["battle"]["mission"]["chosen"] is True
    # p.124: the campaign's crew size (4) of slots; the two fit crew members take them.
    assert battle.setup["mission_type"]["setup"]["slots"] == 4
    tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    battle.refresh_from_db()
    assert battle.room is not None
    refs = {f["name"]: f["ref"] for f in battle.room.state["crew"]}
    assert refs["Ria"] == str(Character.objects.get(name="Ria").pk)
    state = play_contact(player, battle, pay=True)
    assert state["won"] is True and state["pay"] == {"quest_clues": 1, "credits": 2, "rivals": ["Enforcer"]}
    battle.refresh_from_db()
    done = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    assert done.result is not None and done.result["street"]["credits"] == 2
    # The elite force rolled at set-up never came to the table (p.129): no elite rewards, not an elite battle.
    assert "elite_rewards" not in done.result and done.result["record"]["elite"] is False
    assert done.reported and done.result["record"]["won"] is True and done.result["record"]["held_field"] is False
    turn = current_turn(campaign)
    assert turn is not None and turn.facts["battle"]["won"] is True and turn.facts["battle"]["casualties"] == []
    campaign.refresh_from_db()
    assert campaign.credits == credits + 2
    assert campaign.rivals.filter(name="Enforcer Rival").exists()
    assert campaign.log.filter(text__contains="Quest Clue").exists()
    client = Client()
    client.force_login(player)
    page = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="street-card"' in page and 'data-testid="street-enemy-unused"' in page
    assert 'data-testid="street-result"' in page and "2 credits" in page and "new Rivals: Enforcer" in page


def test_the_campaigns_law_rivals_raise_the_perpetrator_level(player: Any) -> None:
    """p.136: a Bounty Hunter or Vigilante Rival makes a surrendering figure a Level 2
    Perpetrator, an Enforcer Rival Level 3; other Rivals do not count."""
    campaign = make_campaign(player, dramatic_combat=True)
    campaign.rivals.create(name="Kessa", kind="Vigilante")
    campaign.rivals.create(name="Enforcer Rival", kind="Enforcers")
    campaign.rivals.create(name="Gutter kings", kind="Gang")
    battle = street(player, campaign_id=campaign.pk, enemy=ELITE)
    assert battle.setup["mission_type"]["setup"]["rivals"] == ["enforcer", "vigilante"]
    assert "Rivals the law knows you by (p.136): enforcer, vigilante." in battle.setup["battle"]["card"]
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    assert room.state["law"]["rivals"] == ["enforcer", "vigilante"]
    assert street_kind.with_rivals({"card": []}, ["Gang Rival Gang"]) == {"card": []}
