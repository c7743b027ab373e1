"""Bug Hunt character creation (pp.170-173) against the shipped tables, with seeded dice."""

from __future__ import annotations

import pytest

from bughunt.engine import characters
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.fixturefiles import read_all

TABLES: dict[str, RangeTable] = {s.slug: s.engine() for s in read_all() if s.system == "bughunt"}


def test_base_profile() -> None:
    assert characters.base_profile(TABLES).as_dict() == {
        "reactions": 1,
        "speed": 4,
        "combat_skill": 0,
        "toughness": 3,
        "savvy": 0,
    }


def test_entered_rolls_apply_each_background() -> None:
    # Frontier colony (+1 Combat Skill), Ground forces (Scouts) (+1 Reactions, +1" Speed),
    # Garrison or patrol duties (1 XP, not a Combat Operation).
    made = characters.create_main_character(
        "Hicks", TABLES, Dice(seed=1), entered={"bh-origin": 12, "bh-basic-training": 20, "bh-service-history": 5}
    )
    assert (made.origin, made.basic_training, made.service_history) == (
        "Frontier colony",
        "Ground forces (Scouts)",
        "Garrison or patrol duties",
    )
    assert made.profile.as_dict() == {"reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 3, "savvy": 0}
    assert made.xp == 1 and made.commendations == 0
    assert [r.entered for r in made.rolls] == [True, True, True]


def test_combat_operations_roll_two_d6_for_commendations() -> None:
    for seed in range(1000):
        made = characters.create_main_character("Apone", TABLES, Dice(seed=seed), entered={"bh-service-history": 45})
        assert made.service_history == "Police action"
        backgrounds = [
            TABLES[t].lookup(r.total or 0).data for t, r in zip(("bh-origin", "bh-basic-training"), made.rolls, strict=False)
        ]
        assert made.completed_missions == 1 + sum(b["completed_missions"] for b in backgrounds)
        commendation_roll = made.rolls[-1]
        assert commendation_roll.reason == "Apone: commendations" and len(commendation_roll.faces) == 2
        sixes = commendation_roll.faces.count(6)
        assert made.commendations == sixes
        assert made.reputation == sixes + sum(b["reputation"] for b in backgrounds)
        assert made.xp == sixes + sum(b["xp"] for b in backgrounds)
        if sixes == 2:
            break
    else:
        pytest.fail("no seed in range rolled two sixes")


def test_seeded_rolls_repeat() -> None:
    assert characters.create_main_character("Vasquez", TABLES, Dice(seed=9)) == characters.create_main_character(
        "Vasquez", TABLES, Dice(seed=9)
    )


def test_a_name_is_required() -> None:
    with pytest.raises(characters.CharacterError, match="name is required"):
        characters.create_main_character(" ", TABLES, Dice(seed=1))


def test_regiment_names_resolve_number_and_color() -> None:
    seen_number = seen_color = False
    for seed in range(200):
        regiment = characters.regiment_flavor(TABLES, Dice(seed=seed))
        assert "[" not in regiment.title and "[" not in regiment.uniform
        first_part = TABLES["bh-regiment-flavor"].lookup(regiment.rolls[0].total or 0, "Regiment title part 1").result
        if first_part == "[number]":
            seen_number = True
            assert regiment.title.split()[0] in characters.ORDINALS.values()
        if first_part == "[color]":
            seen_color = True
            colors = {e.result for e in TABLES["bh-regiment-flavor"].rows("Uniform color")}
            assert any(regiment.title.startswith(color + " ") for color in colors)
    assert seen_number and seen_color
