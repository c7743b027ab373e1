"""Saving Throws with their kind (Compendium p.26: Armor, Screen or both), Piercing against each
kind (p.89), hits that ignore Screens (p.141), a Krag's reroll of a natural 1 against Rivals
(p.12), and the live tracker and no-minis play passing them to the resolver. Dice are entered
faces, in the order the resolver asks."""

from __future__ import annotations

from typing import Any

import pytest

from battles.engine import fp_combat as fc
from battles.engine import nominis
from battles.engine.nominis.weapons import _fighter as nominis_fighter
from battles.tests.test_fp_tracker_engine import TABLES, new, play, to_quick
from live.engine.tracker import NotYours, Role
from rules.engine.dice import Dice

NUMBERS = fc.HitNumbers(open=4, cover=5, source="test")
SHOOTER = fc.Fighter(name="Shooter", combat_skill=0, toughness=3)
PIERCING = fc.custom_weapon("Needler", 24, 1, 1, ["Piercing"])
PLAIN = fc.custom_weapon("Rifle", 24, 1, 1, [])


def target(save: int | None = 5, kind: str = "armor", second: int | None = None) -> fc.Fighter:
    return fc.Fighter(name="Vex", combat_skill=0, toughness=3, save=save, save_kind=kind, second_save=second)


def shoot(gun: fc.Weapon, victim: fc.Fighter, faces: list[int], shooter: fc.Fighter = SHOOTER) -> fc.ShotResult:
    return fc.resolve_shot(
        Dice(seed=1), shooter=shooter, target=victim, weapon=gun, numbers=NUMBERS, range_in=10, cover=False, faces=faces
    )


# -- the kinds in the resolver (pp.26, 89, 141) -----------------------------------------------------


def test_p89_a_piercing_hit_on_a_screen_is_still_saved_on_armor_it_is_not() -> None:
    # Faces: the firing die 6 (a hit), then 5: the Screen's save die, or Armor's Damage die.
    screened = shoot(PIERCING, target(5, "screen"), [6, 5])
    assert screened.outcomes[0].result == "saved"
    assert "Vex saves on Screen 5+ (rolled 5)." in screened.lines
    armoured = shoot(PIERCING, target(5, "armor"), [6, 5])
    assert armoured.outcomes[0].result == "casualty"  # no save roll: the 5 was Damage, 5 + 1 beats Toughness 3
    assert "Piercing: Vex's 5+ save does not count." in armoured.lines


def test_p26_a_deflection_save_of_both_kinds_stands_unless_both_are_negated() -> None:
    both = target(5, "both")
    assert shoot(PIERCING, both, [6, 5]).outcomes[0].result == "saved"
    hazard, _ = fc.resolve_hit(Dice(seed=1), target=both, damage=0, source="Acid", ignores_screens=True, faces=[5])
    assert hazard.result == "saved"
    negated, _ = fc.resolve_hit(
        Dice(seed=1), target=both, damage=1, source="Acid", piercing=True, ignores_screens=True, faces=[5]
    )
    assert negated.result == "casualty"  # no save: the one die is Damage 5 + 1 against Toughness 3
    assert "Piercing and ignoring Screens: Vex's Armor and Screen 5+ save does not count." in negated.notes


def test_p141_a_hit_that_ignores_screens_negates_a_screen_but_not_armor() -> None:
    screen, _ = fc.resolve_hit(Dice(seed=1), target=target(5, "screen"), damage=1, source="Gas", ignores_screens=True, faces=[5])
    armor, _ = fc.resolve_hit(Dice(seed=1), target=target(5, "armor"), damage=1, source="Gas", ignores_screens=True, faces=[5])
    assert (screen.result, armor.result) == ("casualty", "saved")


def test_armour_and_a_screen_worn_together_roll_the_best_save_the_hit_leaves() -> None:
    # Armor 4+ with a Screen 6+ beside it: a plain hit rolls the 4+, Piercing the Screen's 6+.
    worn = target(4, "armor", second=6)
    assert shoot(PLAIN, worn, [6, 4]).outcomes[0].result == "saved"
    pierced = shoot(PIERCING, worn, [6, 5, 1])  # the 6+ Screen save fails on a 5; Damage 1 + 1 < 3
    assert pierced.outcomes[0].result == "stunned"
    assert "Vex's Screen save still counts." in pierced.lines and "Vex fails the Screen 6+ save (rolled 5)." in pierced.lines
    assert shoot(PIERCING, worn, [6, 6]).outcomes[0].result == "saved"


def test_a_stored_figure_without_a_kind_reads_as_armor_and_a_bad_kind_is_refused() -> None:
    old = fc.Fighter.from_dict({"name": "Old", "combat_skill": 0, "toughness": 3, "save": 5})
    assert old.save_kind == "armor" and old.second_save is None
    again = target(4, "screen", second=5)
    assert fc.Fighter.from_dict(again.as_dict()) == again
    with pytest.raises(fc.CombatError) as bad:
        fc.Fighter.from_dict({"name": "X", "combat_skill": 0, "toughness": 3, "save": 5, "save_kind": "cloak"})
    assert bad.value.field == "save_kind"
    with pytest.raises(fc.CombatError) as no_second:
        target(5, "both", second=6)
    assert no_second.value.field == "second_save"


# -- a Krag fighting Rivals (p.12) ----------------------------------------------------------------


def test_p12_a_krag_against_rivals_rerolls_a_natural_one_on_firing_and_brawl_dice() -> None:
    krag = fc.Fighter(name="Grak", combat_skill=0, toughness=4, reroll_natural_one=True)
    plain = target(None)
    missed = shoot(PLAIN, plain, [1])
    assert missed.hits == 0
    rerolled = shoot(PLAIN, plain, [1, 6, 1], shooter=krag)  # the 1 is rolled again: 6 hits; Damage 1 + 1
    assert rerolled.hits == 1 and any("rerolls one natural 1" in line for line in rerolled.lines)
    # Brawl: Grak's natural 1 becomes a 5 and wins against Vex's 3.
    brawl = fc.resolve_brawl(Dice(seed=1), a=krag, b=plain, a_weapon=None, b_weapon=None, faces=[1, 3, 5, 1])
    assert brawl.winner == "Grak"
    lost = fc.resolve_brawl(
        Dice(seed=1),
        a=fc.Fighter(name="Grak", combat_skill=0, toughness=4),
        b=plain,
        a_weapon=None,
        b_weapon=None,
        faces=[1, 3, 1],
    )
    assert lost.winner == "Vex"


# -- the tracker and no-minis pass the kind on ------------------------------------------------------


def _screened_crew() -> list[dict[str, Any]]:
    return [
        {"name": "Ria", "reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 4, "save": 5, "save_kind": "screen", "weapons": ["Hand gun"]},
        {"name": "Bo", "reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 4, "save": 5, "weapons": ["Hand gun"]},
    ]  # fmt: skip


def test_the_tracker_keeps_the_kind_and_a_piercing_shot_is_saved_only_by_the_screen() -> None:
    state = new(
        crew=_screened_crew(), enemies=[{"name": "Punks", "count": 2, "profile": {"speed": 4, "combat_skill": 0, "toughness": 3}, "weapons": [{"name": "Needler", "range": 24, "shots": 1, "damage": 1, "traits": ["Piercing"]}], "panic": "1"}]
    )  # fmt: skip
    assert state["crew"][0]["save_kind"] == "screen" and "save_kind" not in state["crew"][1]
    state = to_quick(play(state, "seize", faces="1, 1")[0], faces="1, 6")
    on_screen, _ = play(state, "resolve", attacker="e1", target="c1", range=10, faces="6, 5")
    on_armor, _ = play(state, "resolve", attacker="e1", target="c2", range=10, faces="6, 5")
    assert on_screen["crew"][0]["status"] == "active" and on_screen["crew"][0]["stun"] == 0
    assert on_armor["crew"][1]["status"] == "casualty"  # 5 + 1 beats Toughness 4


def test_the_tracker_hazard_hit_that_ignores_screens() -> None:
    state = to_quick(play(new(crew=_screened_crew()), "seize", faces="1, 1")[0], faces="1, 6")
    hit, events = play(state, "hazard_hit", target="c1", damage=1, source="Leaking gas", ignores_screens="on", faces="5")
    assert hit["crew"][0]["status"] == "casualty" and "Leaking gas hits Ria." in events[0].text
    kept, _ = play(state, "hazard_hit", target="c2", damage=1, source="Leaking gas", ignores_screens="on", faces="5")
    assert kept["crew"][1]["status"] == "active"  # Bo's Armor still saves
    with pytest.raises(NotYours):
        play(state, "hazard_hit", target="c1", damage=1, role=Role.PLAYER)


def test_no_minis_figures_carry_the_kind_to_the_resolver() -> None:
    state = nominis.new_battle(
        crew=[{**c, "weapons": [nominis.weapon_dict(fc.weapon(TABLES, "Hand gun"))]} for c in _screened_crew()],
        enemies=[{"name": "Punk", "combat_skill": 0, "toughness": 3, "speed": 4, "weapons": []}],
        mission="fight_off",
        numbers=NUMBERS,
        options=nominis.NoMinisOptions(),
    )
    ria, bo = state["crew"]
    assert nominis_fighter(ria).save_kind == "screen" and nominis_fighter(bo).save_kind == "armor"
    assert "save_kind" not in bo  # an Armor save alone keeps the old shape
