"""Refs are owned: a campaign import keeps only refs it can map to rows it made, and undo only
ever touches rows of the campaign it undoes. An outsider's forged export changes nothing of
anyone else's and reveals nothing."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from campaigns import crew_services, services, turn_services
from campaigns.models import Campaign, Character, Rival, TurnStep, World
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = pytest.mark.django_db


def _v(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


def _campaign_with_a_step(user: Any, name: str) -> Campaign:
    """A campaign with one crew member, one Rival and one resolved turn step (so a snapshot)."""
    campaign = services.campaign_create(user=user, name=name, options={}, dice=Dice(seed=1))
    crew_services.character_create(user=user, campaign_id=campaign.pk, version=_v(campaign), name=f"{name} lead", species="krag")
    services.contact_add(user=user, campaign_id=campaign.pk, version=_v(campaign), kind="rival", name=f"{name} rival")
    turn_services.turn_start(user=user, campaign_id=campaign.pk, version=_v(campaign))
    turn_services.step_resolve(user=user, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="as rolled")
    return campaign


@pytest.fixture
def victim(fiveparsecs_tables: None, other: Any) -> Campaign:
    return _campaign_with_a_step(other, "Victim")


@pytest.fixture
def export(fiveparsecs_tables: None, player: Any) -> dict[str, Any]:
    return services.campaign_export(user=player, campaign_id=_campaign_with_a_step(player, "Mine").pk)


def _first_snapshot(doc: dict[str, Any]) -> dict[str, Any]:
    """The snapshot of the turn's resolved step (the steps that skipped themselves keep none)."""
    snap: dict[str, Any] = next(s["snapshot"] for s in doc["turns"][0]["steps"] if s["mode"] != "skipped")
    return snap


def _resolved_step(campaign: Campaign) -> TurnStep:
    return TurnStep.objects.exclude(mode="skipped").get(turn__campaign=campaign)


def test_an_import_naming_a_character_it_does_not_carry_is_refused_and_writes_nothing(
    victim: Campaign, export: dict[str, Any], player: Any
) -> None:
    target = victim.characters.get()
    forged = copy.deepcopy(export)
    _first_snapshot(forged)["characters"][0].update(ref=target.pk, name="Taken")
    campaigns, characters = Campaign.objects.count(), Character.objects.count()
    with pytest.raises(DropshipError) as error:
        services.campaign_import(user=player, doc=forged)
    assert error.value.field == "file"
    assert f"snapshot.characters[0].ref {target.pk}" in error.value.message
    assert (Campaign.objects.count(), Character.objects.count()) == (campaigns, characters)
    target.refresh_from_db()
    assert (target.campaign_id, target.name) == (victim.pk, "Victim lead")


def test_an_import_naming_a_world_or_casualty_it_does_not_carry_is_refused(
    victim: Campaign, export: dict[str, Any], player: Any
) -> None:
    world = World.objects.create(campaign=victim, name="Victim's world")
    forged = copy.deepcopy(export)
    _first_snapshot(forged)["worlds"] = [
        {
            "ref": world.pk,
            "name": "Mine now",
            "traits": [],
            "psionic_legality": "",
            "instability": 0,
            "unstable": False,
            "invaded": False,
            "strife": {},
            "current": True,
            "arrived_turn": 0,
        }
    ]
    with pytest.raises(DropshipError, match=r"snapshot\.worlds\[0\]\.ref"):
        services.campaign_import(user=player, doc=forged)
    forged = copy.deepcopy(export)
    forged["turns"][0]["facts"] = {"battle": {"casualties": [str(victim.characters.get().pk)]}}
    with pytest.raises(DropshipError, match=r"turns\[0\]\.facts\.battle\.casualties\[0\]"):
        services.campaign_import(user=player, doc=forged)
    world.refresh_from_db()
    assert world.name == "Victim's world"


def test_a_ref_that_is_not_a_whole_number_is_refused_naming_the_row(export: dict[str, Any], player: Any) -> None:
    forged = copy.deepcopy(export)
    forged["characters"][0]["ref"] = "1; drop"
    with pytest.raises(DropshipError, match=r"characters\[0\]\.ref must be a whole number"):
        services.campaign_import(user=player, doc=forged)
    forged = copy.deepcopy(export)
    del _first_snapshot(forged)["campaign"]["credits"]
    with pytest.raises(DropshipError, match=r"snapshot\.campaign lacks"):
        services.campaign_import(user=player, doc=forged)


def test_undo_after_an_import_naming_a_foreign_rival_makes_a_new_rival_and_leaves_the_victims(
    victim: Campaign, export: dict[str, Any], player: Any
) -> None:
    theirs = victim.rivals.get()
    forged = copy.deepcopy(export)
    _first_snapshot(forged)["rivals"] = [{**_first_snapshot(forged)["rivals"][0], "ref": theirs.pk, "name": "Stolen"}]
    campaign = services.campaign_import(user=player, doc=forged)
    snapshot = _resolved_step(campaign).snapshot
    assert snapshot["rivals"][0]["ref"] is None  # the import kept no ref it could not map
    turn_services.step_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    assert list(campaign.rivals.values_list("name", flat=True)) == ["Stolen"]
    assert campaign.rivals.get().pk != theirs.pk
    theirs.refresh_from_db()
    assert (theirs.campaign_id, theirs.name) == (victim.pk, "Victim rival")


def test_an_import_of_an_export_still_undoes_onto_its_own_rows(export: dict[str, Any], player: Any) -> None:
    campaign = services.campaign_import(user=player, doc=export)
    lead = campaign.characters.get()
    assert _resolved_step(campaign).snapshot["characters"][0]["ref"] == lead.pk
    turn_services.step_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    assert campaign.characters.get().pk == lead.pk
    assert campaign.rivals.get().name == "Mine rival"


def test_undo_refuses_a_snapshot_naming_another_campaigns_row(victim: Campaign, player: Any) -> None:
    mine = _campaign_with_a_step(player, "Mine")
    target = victim.characters.get()
    step = _resolved_step(mine)
    step.snapshot["characters"].append({**step.snapshot["characters"][0], "ref": target.pk, "name": "Taken"})
    step.save(update_fields=["snapshot"])
    with pytest.raises(DropshipError) as error:
        turn_services.step_undo(user=player, campaign_id=mine.pk, version=_v(mine))
    assert error.value.field == "log" and "not this campaign's" in error.value.message
    assert "Victim" not in error.value.message
    target.refresh_from_db()
    assert (target.campaign_id, target.name) == (victim.pk, "Victim lead")
    assert mine.characters.get().name == "Mine lead"
    assert TurnStep.objects.filter(turn__campaign=mine).exists()  # nothing was undone


def test_undo_remakes_a_removed_row_with_its_own_id(fiveparsecs_tables: None, player: Any) -> None:
    campaign = _campaign_with_a_step(player, "Mine")
    rival = campaign.rivals.get()
    services.contact_remove(user=player, campaign_id=campaign.pk, version=_v(campaign), kind="rival", contact_id=rival.pk)
    assert not Rival.objects.filter(pk=rival.pk).exists()
    turn_services.change_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    assert campaign.rivals.get().pk == rival.pk


def test_an_import_carrying_a_table_another_user_has_makes_the_importers_own_copy(
    fiveparsecs_tables: None, player: Any, other: Any
) -> None:
    from campaigns.tests.conftest import core_table
    from rules.models import RuleTable
    from rules.services import user_tables_import

    user_tables_import(user=other, text=core_table("our-loot", "Their loot", "D6", [(1, 6, "Their junk", {})]))
    theirs = services.campaign_create(user=other, name="Theirs", options={}, dice=Dice(seed=1))
    services.slot_set(user=other, campaign_id=theirs.pk, version=_v(theirs), slot_key="loot", table_slug="our-loot")
    doc = services.campaign_export(user=other, campaign_id=theirs.pk)
    doc["tables"][0]["fields"]["title"] = "My loot"
    copied = services.campaign_import(user=player, doc=doc)
    slot = copied.slots.get()
    assert (slot.table.owner, slot.table.title) == (player, "My loot")
    original = RuleTable.objects.get(slug="our-loot", owner=other)
    assert original.title == "Their loot" and original.entries.get().result == "Their junk"
