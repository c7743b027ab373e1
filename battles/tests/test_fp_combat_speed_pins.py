"""The Five Parsecs combat resolver's results pinned before its speed work (issue #18): seeded
shots with every Dramatic Weapon (pp.88-89) and every p.89 trait against targets with and without
saves, wards (pp.18, 23), Obscure (p.23), Stun markers and Krag rerolls (p.12); Brawls (Bug Hunt
p.177); hits, Duck Back (p.87) and casualty tables (pp.98-100); and the Dice records of every
notation and way of keeping dice. Each result's dict form, rolls with reasons and faces and every
line included, is hashed per group. Making the resolver faster must not move a die or a word."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from battles.engine import fp_combat as fc
from battles.engine.fp_combat.hits import with_stun_markers
from battles.tests.test_fp_combat import CORE, DRAMATIC, TABLES
from rules.engine.dice import Dice, Keep

WEAPONS = [fc.weapon(TABLES, e.result) for e in TABLES["dramatic-weapons"].entries]
EXTRA = [fc.custom_weapon("Trait gun " + t, 24, 3, 1, [t]) for t in sorted(fc.TRAITS - {"area", "melee"})]
TARGETS = [
    fc.Fighter(name="Plain", combat_skill=0, toughness=3),
    fc.Fighter(name="Armored", combat_skill=1, toughness=4, save=5, stun_markers=1, enemy=True),
    fc.Fighter(name="Screened", combat_skill=1, toughness=5, save=5, save_kind="screen", second_save=6, bot=True),
    fc.Fighter(name="Both", combat_skill=2, toughness=4, save=4, save_kind="both", stun_markers=2, kerin=True, speed=6),
    fc.Fighter(name="Layered", combat_skill=0, toughness=4, save=5, second_save=6),
    fc.Fighter(name="Warded", combat_skill=1, toughness=4, ward=fc.Ward("Reflect", 4, area=False, deflect_on=6), psionic=True),
    fc.Fighter(name="Obscured", combat_skill=0, toughness=3, obscured=True, enemy=True, weapons=(WEAPONS[2],)),
]
SHOOTERS = [
    fc.Fighter(name="Ada", combat_skill=1, toughness=4),
    fc.Fighter(name="Krag", combat_skill=0, toughness=5, reroll_natural_one=True, psi_hunter=True),
]


def _digest(items: Iterator[Any]) -> str:
    text = json.dumps(list(items), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _shots() -> Iterator[dict[str, Any]]:
    seed = 0
    for gun in WEAPONS + EXTRA:
        if gun.brawl_only:
            continue
        for target in TARGETS:
            for shooter in SHOOTERS:
                for range_in, cover, moved, dramatic in ((min(4, gun.range), False, True, True), (gun.range, True, False, False)):
                    for numbers in (DRAMATIC, CORE):
                        seed += 1
                        result = fc.resolve_shot(
                            Dice(seed=seed),
                            shooter=shooter,
                            target=target,
                            weapon=gun,
                            numbers=numbers,
                            range_in=range_in,
                            cover=cover,
                            moved=moved,
                            fired_last_round=dramatic,
                            dramatic=dramatic,
                            tables=TABLES if seed % 2 else None,
                        )
                        yield result.as_dict()


def _brawls() -> Iterator[dict[str, Any]]:
    guns: list[fc.Weapon | None] = [None, *WEAPONS]
    seed = 0
    for i, a_gun in enumerate(guns):
        for j, b_gun in enumerate(guns[::3]):
            for a, b in ((SHOOTERS[1], TARGETS[4]), (TARGETS[1], TARGETS[3])):
                seed += 1
                result = fc.resolve_brawl(
                    Dice(seed=seed), a=a, b=b, a_weapon=a_gun, b_weapon=b_gun, tables=TABLES if (i + j) % 2 else None
                )
                yield result.as_dict()


def _others() -> Iterator[Any]:
    for seed in range(60):
        target = TARGETS[seed % len(TARGETS)]
        outcome, after = fc.resolve_hit(
            Dice(seed=seed),
            target=target,
            damage=seed % 3,
            source="Hazard",
            piercing=seed % 2 == 0,
            ignores_screens=seed % 3 == 0,
        )
        yield outcome.as_dict(), after.as_dict()
        ducks, record = fc.duck_back(
            Dice(seed=seed), target=target, cover=seed % 2 == 1, far_shooter=seed % 5 != 0, was_hit=seed % 7 == 0, tables=TABLES
        )
        yield ducks, record.as_dict() if record else None
        for kind in fc.CASUALTY_KINDS:
            yield fc.casualty(
                Dice(seed=seed), TABLES, kind=kind, critical=seed % 2, hits=1 + seed % 3, boss=seed % 4 == 0, modifier=seed % 2
            ).as_dict()


def _rolls() -> Iterator[dict[str, Any]]:
    dice = Dice(seed=7)
    for notation in ("D6", "1D6", "2D6", "D3", "1D3+1", "2D3+1", "3D6-1", "D10", "D12", "D20", "D100", "4", "-2", " 2 d 6 + 1 "):
        for extra in (0, 2, -1):
            yield dice.roll(notation, f"why {notation}", modifier=extra).as_dict()
    for keep in Keep:
        for count in (1, 2, 3):
            yield dice.roll(f"{count}D6", "keep", keep=keep).as_dict()
    for _ in range(200):
        yield dice.d6("d6").as_dict()
        yield dice.d3("d3").as_dict()
        yield dice.d100("d100").as_dict()
        yield dice.highest(2, 6, "hi", modifier=1).as_dict()
        yield dice.lowest(2, 6, "lo").as_dict()
        yield dice.separate(3, 6, "sep").as_dict()
    record = dice.roll("3D6", "to reroll")
    yield dice.reroll(record, [0, 2]).as_dict()
    yield dice.roll_or_enter("2D6", "typed", faces=[3, 4]).as_dict()
    yield Dice.enter_total("2D6+1", 9, "total").as_dict()


PINS = {
    "shots": "0936c8029c2b9cb44d2a842ce7bec32e38dc1d51834ea7510c87c1d7515545b5",
    "brawls": "3c02ace641f61f8b83c6826f361ed0c9b447a6901de7024c5ff1ff4a161c7004",
    "others": "a4ff6003ff66425300e61f48e833735577e8db07194f3c2703298d471e158bf9",
    "rolls": "7fbf94c33e06f8257f8e7207c8e02a8d7d170ee8027406898b249ef13a79f62a",
}
GROUPS = {"shots": _shots, "brawls": _brawls, "others": _others, "rolls": _rolls}


@pytest.mark.parametrize("name", sorted(PINS))
def test_combat_results_are_pinned(name: str) -> None:
    assert _digest(GROUPS[name]()) == PINS[name]


def test_stun_marker_copy_equals_replace_and_checks_the_count() -> None:
    """Bug Hunt p.178 Stun markers: the quick copy is the figure ``dataclasses.replace`` makes."""
    for figure in TARGETS:
        copy = with_stun_markers(figure, figure.stun_markers + 1)
        assert copy == replace(figure, stun_markers=figure.stun_markers + 1)
        assert copy.as_dict() == replace(figure, stun_markers=figure.stun_markers + 1).as_dict()
        assert figure.stun_markers == copy.stun_markers - 1  # the original is untouched
    with pytest.raises(fc.CombatError) as caught:
        with_stun_markers(TARGETS[0], -1)
    assert caught.value.field == "stun_markers"
