"""What a crew member takes to battle: worn armour and screens, a Bot's built-in Saving Throw
and its upgrades (Compendium p.26), the Psionic weapon limit for a weapon given by name (p.18),
and the species rules of Krag and Skulkers in battle (pp.12-15); the API refuses bad gear naming
the field."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from campaigns.engine import characters as ch
from campaigns.models import Character
from campaigns.tests.test_api import client_for, create
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}


def bot(*upgrades: str, save: int | None = None) -> ch.Character:
    return ch.Character(name="Unit 9", species="bot", kind="bot", bot_upgrades=upgrades, bot_save=save)


# -- the Saving Throw (p.26) --------------------------------------------------------------------------


def test_worn_armour_and_a_screen_give_the_best_save_and_the_other_kind_as_second() -> None:
    ria = ch.wear(ch.wear(ch.Character(name="Ria"), "Combat armor", "armor", 5), "Screen generator", "screen", 6)
    throw = ch.saving_throw(ria, TABLES)
    assert (throw.save, throw.kind, throw.second_save) == (5, "armor", 6)
    even = ch.wear(ch.Character(name="Bo"), "Vest", "armor", 6)
    even = ch.wear(even, "Deflector", "screen", 6)
    assert (ch.saving_throw(even).save, ch.saving_throw(even).kind, ch.saving_throw(even).second_save) == (6, "both", None)
    assert ch.saving_throw(ch.Character(name="Kit")).save is None
    off = ch.take_off(ria, "combat armor")
    assert (ch.saving_throw(off).save, ch.saving_throw(off).kind) == (6, "screen")


def test_p26_bot_upgrades_improve_and_widen_the_built_in_save() -> None:
    assert ch.saving_throw(bot()).save is None  # no built-in save typed: none
    assert (ch.saving_throw(bot(save=6)).save, ch.saving_throw(bot(save=6)).kind) == (6, "armor")
    cased = ch.saving_throw(bot("Improved armor casing"), TABLES)
    assert (cased.save, cased.kind) == (5, "armor")  # armor_save of the bot-upgrades row
    assert ch.saving_throw(bot("Improved armor casing", save=4), TABLES).save == 4  # never worse than it was
    deflecting = ch.saving_throw(bot("Improved armor casing", "Deflection module", save=6), TABLES)
    assert (deflecting.save, deflecting.kind) == (5, "both")
    assert ch.seize_initiative_bonus(bot("Multi-wave scanner"), TABLES) == 1
    assert ch.seize_initiative_bonus(bot(), TABLES) == 0


def test_gear_refusals_name_the_field() -> None:
    cases: list[tuple[Any, str]] = [
        (lambda: ch.wear(ch.Character(name="Ria"), "Cloak", "cloak", 5), "kind"),
        (lambda: ch.wear(ch.Character(name="Ria"), "Vest", "armor", 7), "save"),
        (lambda: ch.wear(ch.Character(name="Ria"), " ", "armor", 5), "name"),
        (lambda: ch.take_off(ch.Character(name="Ria"), "Vest"), "name"),
        (lambda: ch.set_bot_save(ch.Character(name="Ria"), 5), "kind"),
        (lambda: ch.set_bot_save(bot(), 1), "bot_save"),
    ]
    for call, field in cases:
        with pytest.raises(ch.CharacterError) as refused:
            call()
        assert refused.value.field == field
    stored = ch.wear(bot(save=5), "Plate", "armor", 4)
    assert ch.Character.from_dict(stored.as_dict()) == stored
    assert "protection" not in ch.Character(name="Old").as_dict()  # older sheets keep their shape


# -- the Psionic weapon limit by name (p.18) ------------------------------------------------------------


def test_p18_a_psionic_cannot_take_a_military_rifle_by_name_but_a_hand_gun_is_fine() -> None:
    psionic = ch.Character(name="Seer", psionic=True)
    with pytest.raises(ch.CharacterError) as refused:
        ch.equip(psionic, "Military rifle", None, TABLES)
    assert refused.value.field == "item"
    with pytest.raises(ch.CharacterError):
        ch.equip(psionic, "military RIFLE", ["Pistol"], TABLES)  # a known name takes the table's traits
    assert ch.equip(psionic, "Hand gun", None, TABLES).equipment == ("Hand gun",)
    assert ch.equip(psionic, "Med-patch", None, TABLES).equipment == ("Med-patch",)  # not a weapon
    assert ch.equip(ch.Character(name="Ria"), "Military rifle", None, TABLES).equipment == ("Military rifle",)


# -- species in battle (pp.12-15) -------------------------------------------------------------------


def test_pp12_15_krag_and_skulker_battle_traits() -> None:
    krag = ch.Character(name="Grak", species="krag")
    at_rivals = ch.battle_traits(krag, TABLES, against_rivals=True)
    assert at_rivals.reroll_natural_one and not ch.battle_traits(krag, TABLES, against_rivals=False).reroll_natural_one
    assert [r.split(" (")[0] for r in at_rivals.reminders] == ["Stocky"]
    assert "Dash" in at_rivals.reminders[0] and "pp.12-13" in at_rivals.reminders[0]
    skulker = ch.battle_traits(ch.Character(name="Sly", species="skulker"), TABLES, against_rivals=True)
    assert not skulker.reroll_natural_one
    assert [r.split(" (")[0] for r in skulker.reminders] == ["Agile", "Climber", "Biological resistance", "Drug resistance"]
    human = ch.battle_traits(ch.Character(name="Ria"), TABLES, against_rivals=True)
    assert human == ch.BattleTraits(False, ())


# -- the API -------------------------------------------------------------------------------------------


@pytest.fixture
def api(player: Any) -> APIClient:
    return client_for(player)


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_api_armour_screens_bot_save_and_the_psionic_refusal_name_the_field(api: APIClient) -> None:
    campaign = create(api)
    base = f"/api/v1/campaigns/{campaign['id']}/characters/"
    made = api.post(base, {"version": campaign["version"], "name": "Ria", "species": "krag"}, format="json")
    assert made.status_code == 201, made.content
    ria, version = made.json(), made.json()["campaign_version"]
    worn = api.post(
        f"{base}{ria['id']}/protection/",
        {"version": version, "name": "Krag plate", "kind": "armor", "saving_throw": 5},
        format="json",
    )
    assert worn.status_code == 200, worn.content
    assert worn.json()["sheet"]["protection"] == [{"name": "Krag plate", "kind": "armor", "save": 5}]
    version = worn.json()["campaign_version"]
    for body, field in (
        ({"name": "Cloak", "kind": "cloak", "saving_throw": 5}, "kind"),
        ({"name": "Vest", "kind": "armor", "saving_throw": 7}, "saving_throw"),
        ({"name": "Vest", "kind": "armor"}, "saving_throw"),
        ({"name": "Nothing worn", "remove": True}, "name"),
    ):
        bad = api.post(f"{base}{ria['id']}/protection/", {"version": version, **body}, format="json")
        assert bad.status_code == 400, bad.content
        assert bad.json().get("field") == field or field in bad.json(), bad.json()
    not_a_bot = api.post(f"{base}{ria['id']}/bot-save/", {"version": version, "bot_save": 5}, format="json")
    assert not_a_bot.status_code == 400 and not_a_bot.json()["field"] == "kind"
    member = Character.objects.get(pk=ria["id"])
    member.kind, member.sheet = "bot", {**member.sheet, "psionic": False}
    member.save()
    typed = api.post(f"{base}{ria['id']}/bot-save/", {"version": version, "bot_save": 6}, format="json")
    assert typed.status_code == 200 and typed.json()["sheet"]["bot_save"] == 6
    version = typed.json()["campaign_version"]
    member.refresh_from_db()
    member.kind, member.sheet = "biological", {**{k: v for k, v in member.sheet.items() if k != "bot_save"}, "psionic": True}
    member.save()
    rifle = api.post(f"{base}{ria['id']}/equip/", {"version": version, "item": "Military rifle"}, format="json")
    assert rifle.status_code == 400 and rifle.json()["field"] == "item"
    assert "Military rifle" not in Character.objects.get(pk=ria["id"]).sheet.get("equipment", [])
