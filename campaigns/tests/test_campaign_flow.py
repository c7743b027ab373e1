"""Five campaign turns through the services, with user tables filled in for the core-rulebook
slots (our own placeholder rows, not the book's), every Compendium option that acts in the turn
switched on, then an export and an import that gives the same campaign."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import crew_services, services, turn_services
from campaigns.models import Campaign, Turn
from campaigns.tests.conftest import core_table
from rules.engine.dice import Dice
from rules.services import user_tables_import

pytestmark = pytest.mark.django_db

OPTIONS = {
    "crew_size": 5,
    "loans": True,
    "story_track": True,
    "expanded_factions": True,
    "fringe_world_strife": True,
    "detailed_injuries": True,
    "psionics": "both",
    "elite_enemies": "roll",
    "toggles": ["money_is_tight", "veteran", "slower_progression"],
    "progressive": [1, 2],
    "victory_condition": "Play 20 campaign turns",
    "house_rules": "Reroll one travel event per campaign.",
}
SLOTS: dict[str, tuple[str, str, list[tuple[int, int, str, dict[str, Any]]]]] = {
    "campaign_events": ("my-campaign-events", "D6", [(1, 3, "Quiet week", {}), (4, 6, "Windfall", {})]),
    "character_events": ("my-character-events", "D6", [(1, 6, "Someone reflects", {})]),
    "loot": ("my-loot", "D6", [(1, 2, "Trinket", {}), (3, 6, "Spare parts", {})]),
    "starship_travel_events": ("my-travel-events", "D6", [(1, 6, "Smooth trip", {})]),
    "world_traits": ("my-world-traits", "D6", [(1, 6, "Busy Markets", {})]),
    "deployment_conditions": ("my-deployment", "D6", [(1, 6, "No condition", {})]),
    "notable_sights": ("my-sights", "D6", [(1, 6, "Nothing special", {})]),
}


def _version(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


def _inputs_for(key: str, turn_number: int, crew_ids: list[str]) -> dict[str, Any]:
    if key == "travel.decide":
        return {"travel": "yes" if turn_number in (1, 3) else "no"}
    if key == "battle.type":
        return {"mission": "opportunity"}
    if key == "battle.record":
        return {
            "won": "yes",
            "held_field": "yes",
            "psionic_uses": "2" if turn_number == 2 else "0",
            "casualties": [crew_ids[0]] if turn_number == 4 else [],
        }
    if key == "world.upkeep":
        return {}
    if key == "post.xp":
        return {f"xp_{cid}": "3" for cid in crew_ids}
    return {}


def play_turn(player: Any, campaign: Campaign, number: int, seed: int) -> Turn:
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_version(campaign))
    assert turn.number == number
    crew_ids = [str(c.pk) for c in campaign.characters.order_by("id")]
    for index in range(80):
        turn.refresh_from_db()
        if turn.finished:
            return turn
        guide = turn_services.step_guide(campaign, turn)
        assert guide is not None
        spec = guide["spec"]
        if guide["rollable"]:
            turn_services.step_resolve(
                user=player,
                campaign_id=campaign.pk,
                version=_version(campaign),
                mode="roll",
                inputs=_inputs_for(spec.key, number, crew_ids),
                dice=Dice(seed=seed * 100 + index),
            )
        else:
            turn_services.step_resolve(
                user=player,
                campaign_id=campaign.pk,
                version=_version(campaign),
                mode="manual",
                text=f"Done at the table: {spec.title}",
            )
    pytest.fail(f"turn {number} did not finish")


def _normal(doc: dict[str, Any]) -> Any:
    """The document with row ids replaced by their kind and order, so two campaigns compare."""
    kinds = ("characters", "worlds", "rivals", "patrons")
    names = {key: {row["ref"]: f"{key}-{i}" for i, row in enumerate(doc[key])} for key in kinds}

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(v) for v in value]
        if not isinstance(value, dict):
            return value
        out = {k: walk(v) for k, v in value.items()}
        if "campaign" in value and "characters" in value:
            for key in kinds:
                out[key] = [{**row, "ref": names[key].get(row["ref"], row["ref"])} for row in out.get(key, [])]
        if (
            value.get("kind") == "character"
            and isinstance(value.get("data"), dict)
            and str(value["data"].get("id", "")).isdigit()
        ):
            out["data"] = {**out["data"], "id": names["characters"].get(int(value["data"]["id"]), value["data"]["id"])}
        battle = value.get("battle")
        if isinstance(battle, dict) and isinstance(battle.get("casualties"), list):
            named = [names["characters"].get(int(c), c) if str(c).isdigit() else c for c in battle["casualties"]]
            out["battle"] = {**out["battle"], "casualties": named}
        return out

    return walk(doc)


def test_five_turns_with_user_tables_then_export_and_import(fiveparsecs_tables: None, player: Any) -> None:
    campaign = services.campaign_create(user=player, name="Long Haul", options=OPTIONS, dice=Dice(seed=7))
    for slot, (slug, die, rows) in SLOTS.items():
        user_tables_import(user=player, text=core_table(slug, slug.replace("-", " "), die, rows))
        services.slot_set(user=player, campaign_id=campaign.pk, version=_version(campaign), slot_key=slot, table_slug=slug)
    user_tables_import(
        user=player,
        text=core_table(
            "my-profiles",
            "Starting profiles",
            "",
            [(None, None, "Human", {"reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "savvy": 0})],  # type: ignore[list-item]
            ["reactions", "speed", "combat_skill", "toughness", "savvy"],
        ),
    )
    services.slot_set(
        user=player, campaign_id=campaign.pk, version=_version(campaign), slot_key="starting_profiles", table_slug="my-profiles"
    )
    kara = crew_services.character_create(
        user=player, campaign_id=campaign.pk, version=_version(campaign), name="Kara", species="krag", captain=True
    )
    crew_services.character_create(
        user=player,
        campaign_id=campaign.pk,
        version=_version(campaign),
        name="Vix",
        species="human",
        psionic=True,
        dice=Dice(seed=3),
    )
    crew_services.character_create(
        user=player, campaign_id=campaign.pk, version=_version(campaign), name="Nib", species="skulker"
    )
    crew_services.character_creation_results(
        user=player,
        campaign_id=campaign.pk,
        version=_version(campaign),
        character_id=kara.pk,
        patrons=1,
        credits_results=2,
        dice=Dice(seed=4),
    )
    services.campaign_adjust(
        user=player, campaign_id=campaign.pk, version=_version(campaign), credits=12, reason="starting credits, core rules"
    )
    campaign.refresh_from_db()
    assert campaign.rivals.count() == 1  # the Krag with a Patron brings a Rival (p.12)
    assert campaign.loan["origin"]
    start_credits = campaign.credits

    for number in range(1, 6):
        play_turn(player, campaign, number, seed=number)

    campaign.refresh_from_db()
    assert campaign.turn == 5 and campaign.turns.filter(finished=True).count() == 5
    keys = {s.key for s in campaign.turns.get(number=1).steps.all()}
    assert {
        "arrival.psionic_legality",
        "arrival.factions",
        "arrival.instability",
        "world.loan_enforcement",
        "post.story_track",
    } <= keys
    # Money is Tight upkeep was paid each turn from the credits (p.32).
    upkeep = [s for t in campaign.turns.all() for s in t.steps.filter(key="world.upkeep")]
    assert len(upkeep) == 5 and all("Money is Tight" in s.text for s in upkeep)
    assert campaign.credits != start_credits
    # The user tables rolled their steps; the campaign log holds every roll.
    events = campaign.log.filter(step="post.campaign_event")
    assert events.count() == 5 and all(e.rolls for e in events)
    assert all(e.text.split(": ", 1)[1].startswith(("Quiet week", "Windfall")) for e in events)
    # Turn 4's casualty rolled on the detailed injuries table (p.101).
    injuries = campaign.turns.get(number=4).steps.get(key="post.injuries")
    assert "Kara" in injuries.text and injuries.rolls
    # XP was awarded: 3 per turn to everyone.
    assert campaign.characters.get(name="Nib").xp == 15

    doc = services.campaign_export(user=player, campaign_id=campaign.pk)
    copy = services.campaign_import(user=player, doc=doc)
    assert copy.pk != campaign.pk
    again = services.campaign_export(user=player, campaign_id=copy.pk)
    assert _normal(again) == _normal(doc)
