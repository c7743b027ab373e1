"""A campaign battle's crew goes to battle as it is: worn armour and screens and the Bot upgrades
give each figure its Saving Throw and kind (p.26) and change a shot's result, a Multi-wave
scanner adds +1 to Seize the Initiative (p.26), a Psionic's rifle stays out of the battle with a
set-up warning (p.18), and Krag and Skulker rules ride on the figures (pp.12-15)."""

from __future__ import annotations

from typing import Any

import pytest

from battles import nominis_services, services, tracker_services
from battles.engine import fp_combat as fc
from battles.engine import fp_tracker
from battles.engine.fp_tracker.combat import _fighter as tracker_fighter
from battles.models import Battle
from battles.tests.test_fp_services import ELITE
from campaigns import services as campaign_services
from campaigns.models import Campaign, Character
from campaigns.selectors import fiveparsecs_tables
from rules.engine.dice import Dice

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

PROFILE = {"reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3}


def crew_campaign(user: Any) -> Campaign:
    campaign = campaign_services.campaign_create(user=user, name="Drift", options={"crew_size": 6, "dramatic_combat": True})
    rows: list[tuple[str, str, str, dict[str, Any]]] = [
        ("Ria", "human", "biological", {"equipment": ["Hand gun"], "protection": [{"name": "Deflector", "kind": "screen", "save": 5}]}),
        ("Bo", "human", "biological", {"equipment": ["Hand gun"]}),
        ("Unit", "bot", "bot", {"equipment": ["Hand gun"], "bot_upgrades": ["Improved armor casing", "Deflection module", "Multi-wave scanner"]}),
        ("Seer", "human", "biological", {"equipment": ["Military rifle", "Hand gun"], "psionic": True}),
        ("Grak", "krag", "biological", {"equipment": ["Shotgun"]}),
        ("Sly", "skulker", "biological", {}),
    ]  # fmt: skip
    for name, species, kind, sheet in rows:
        Character.objects.create(campaign=campaign, name=name, species=species, kind=kind, sheet=sheet, **PROFILE)
    return campaign


def battle(user: Any, campaign: Campaign, **extra: Any) -> Battle:
    return services.battle_create(user=user, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4), **extra)


def figure(made: Battle, name: str) -> dict[str, Any]:
    return next(c for c in made.setup["crew"] if c["name"] == name)


def test_p26_typed_armour_screens_and_bot_upgrades_reach_the_figures(player: Any) -> None:
    made = battle(player, crew_campaign(player))
    ria, bo, unit = figure(made, "Ria"), figure(made, "Bo"), figure(made, "Unit")
    assert (ria["save"], ria["save_kind"], ria["save_from"]) == (5, "screen", ["Deflector (Screen 5+)"])
    assert bo["save"] is None
    assert (unit["save"], unit["save_kind"]) == (5, "both")  # casing 5+, Deflection: Armor and Screen
    # The live tracker gets the kind, and it changes a Piercing shot: Ria's Screen saves on the 5.
    tables = fiveparsecs_tables()
    state = fp_tracker.initial_state(tracker_services.tracker_setup(made, tables), tables)
    needler = fc.custom_weapon("Needler", 24, 1, 1, ["Piercing"])
    shooter = fc.Fighter(name="Punk", combat_skill=0, toughness=3)
    numbers = fc.HitNumbers(open=5, cover=6, source="p.87")

    def shot_at(name: str) -> str:
        fig = next(f for f in state["crew"] if f["name"] == name)
        return fc.resolve_shot(
            Dice(seed=1), shooter=shooter, target=tracker_fighter(fig), weapon=needler, numbers=numbers, range_in=10,
            cover=False, faces=[6, 5],
        ).outcomes[0].result  # fmt: skip

    assert (shot_at("Ria"), shot_at("Unit"), shot_at("Bo")) == ("saved", "saved", "casualty")
    # No-minis play keeps the kind too.
    nominis_crew = {c["name"]: c for c in nominis_services.nominis_initial(made)["crew"]}
    assert nominis_crew["Ria"]["save_kind"] == "screen" and nominis_crew["Unit"]["save_kind"] == "both"


def test_p26_a_multi_wave_scanner_adds_one_to_seize_the_initiative(player: Any) -> None:
    campaign = crew_campaign(player)
    made = battle(player, campaign)
    tables = fiveparsecs_tables()
    enemy = int(made.setup["enemy"].get("seize_initiative_modifier") or 0)
    assert tracker_services.tracker_setup(made, tables)["seize_modifier"] == enemy + 1
    unit = Character.objects.get(name="Unit")
    unit.sheet = {**unit.sheet, "bot_upgrades": ["Improved armor casing"]}
    unit.save()
    without = battle(player, campaign)
    enemy = int(without.setup["enemy"].get("seize_initiative_modifier") or 0)
    assert tracker_services.tracker_setup(without, tables)["seize_modifier"] == enemy


def test_a_bot_with_no_typed_save_has_none_and_a_typed_save_is_kept(player: Any) -> None:
    campaign = crew_campaign(player)
    unit = Character.objects.get(name="Unit")
    unit.sheet = {"bot_upgrades": ["Multi-wave scanner"]}
    unit.save()
    assert figure(battle(player, campaign), "Unit")["save"] is None
    unit.sheet = {"bot_save": 4, "bot_upgrades": ["Improved armor casing"]}
    unit.save()
    kept = figure(battle(player, campaign), "Unit")
    assert (kept["save"], kept["save_kind"]) == (4, "armor")  # casing never makes it worse


def test_p18_a_psionics_rifle_stays_out_of_the_battle_with_a_warning(player: Any) -> None:
    made = battle(player, crew_campaign(player))
    seer = figure(made, "Seer")
    assert [w["name"] for w in seer["weapons"]] == ["Hand gun"] and seer["left_out"] == ["Military rifle"]
    assert any("Seer is a Psionic" in w and "Military rifle" in w for w in made.setup["warnings"])
    tables = fiveparsecs_tables()
    tracked = next(c for c in tracker_services.tracker_setup(made, tables)["crew"] if c["name"] == "Seer")
    assert [w["name"] for w in tracked["weapons"]] == ["Hand gun"]


def test_pp12_15_krag_and_skulker_rules_ride_on_the_figures(player: Any) -> None:
    campaign = crew_campaign(player)
    rival = battle(player, campaign, mission_source="rival")
    grak, sly = figure(rival, "Grak"), figure(rival, "Sly")
    assert grak["reroll_natural_one"] is True and not sly.get("reroll_natural_one")
    assert any(r.startswith("Stocky") and "Dash" in r for r in grak["reminders"])
    assert any(r.startswith("Agile") for r in sly["reminders"]) and any(
        r.startswith("Biological resistance") for r in sly["reminders"]
    )
    assert figure(battle(player, campaign, mission_source="patron"), "Grak")["reroll_natural_one"] is False
    tables = fiveparsecs_tables()
    state = fp_tracker.initial_state(tracker_services.tracker_setup(rival, tables), tables)
    tracked = next(f for f in state["crew"] if f["name"] == "Grak")
    assert tracked["reroll_natural_one"] and any("Stocky" in n for n in tracked["notes"])
    assert tracker_fighter(tracked).reroll_natural_one
    nominis_grak = next(c for c in nominis_services.nominis_initial(rival)["crew"] if c["name"] == "Grak")
    assert nominis_grak["reroll_natural_one"] is True
