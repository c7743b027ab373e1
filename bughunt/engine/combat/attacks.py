"""Checks and the small attacks the mission tracker needs (Bug Hunt pp.178, 195-197, 201):
clearing a Malfunction, Spitters, Lancer darts, drop ship supporting fire, Shatter-form bursts,
Acid Blob splits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bughunt.engine.combat.figures import Combatant, weapon
from bughunt.engine.combat.hits import HitResult, _Feed, _hit, _signed
from bughunt.engine.combat.numbers import IGNORES_ARMOR, LANCER, SHATTER_DAMAGE, SHATTER_FORMS, SPITTERS, Numbers
from bughunt.engine.combat.shooting import ShotResult, _shot
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- checks and small attacks -----------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """A D6 check: ``success`` when ``total`` reaches ``target``."""

    success: bool
    total: int
    target: int
    rolls: tuple[RollRecord, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "total": self.total,
            "target": self.target,
            "rolls": [r.as_dict() for r in self.rolls],
            "text": self.text,
        }


def clear_malfunction(
    savvy: int, dice: Dice, *, tables: Mapping[str, RangeTable] | None = None, faces: Sequence[int] | None = None
) -> CheckResult:
    """Try to clear a malfunctioned weapon (p.178): a Combat Action and 1D6 + Savvy, 7+ (bh-shooting
    "Malfunction repair") restores it. ``faces``: one D6. Raises :class:`CombatError` for wrong faces."""
    numbers = Numbers.from_tables(tables)
    feed = _Feed(dice, faces)
    record = feed.d6("Clear a malfunction", modifier=savvy)
    feed.finish()
    total = int(record.total or 0)
    ok = total >= numbers.repair_target
    text = f"Rolled {record.natural} {_signed(savvy)} Savvy = {total} against {numbers.repair_target}+: " + (
        "the weapon works again." if ok else "still jammed."
    )
    return CheckResult(ok, total, numbers.repair_target, tuple(feed.rolls), text)


@dataclass(frozen=True)
class AttackResult:
    """A fixed-number attack (Spitter spit, Lancer dart): ``hit`` when the D6 reached ``hit_on``;
    ``result`` the resolved Hit, if any."""

    hit: bool
    hit_on: int
    result: HitResult | None
    rolls: tuple[RollRecord, ...]
    text: str

    @property
    def target(self) -> Combatant | None:
        return None if self.result is None else self.result.target

    def as_dict(self) -> dict[str, Any]:
        return {
            "hit": self.hit,
            "hit_on": self.hit_on,
            "result": None if self.result is None else self.result.as_dict(),
            "rolls": [r.as_dict() for r in self.rolls],
            "text": self.text,
        }


def _fixed_attack(
    numbers: Numbers,
    target: Combatant,
    dice: Dice,
    faces: Sequence[int] | None,
    *,
    what: str,
    hit_on: int,
    damage: int,
    attacker_special: frozenset[str],
    note: str,
) -> AttackResult:
    feed = _Feed(dice, faces)
    record = feed.d6(f"{what} at {target.name}")
    face = int(record.total or 0)
    hit = face >= hit_on
    text = f"{what} at {target.name}: rolled {face} against {hit_on}+ ({note}): {'hit' if hit else 'miss'}."
    result = None
    if hit:
        result = _hit(
            numbers, target, damage, feed, piercing=False, area=False, ranged=True, attacker_special=attacker_special, source=what
        )
        text += " " + result.text
    feed.finish()
    return AttackResult(hit, hit_on, result, tuple(feed.rolls), text)


def spitter_attack(
    target: Combatant,
    dice: Dice,
    *,
    tables: Mapping[str, RangeTable] | None = None,
    attacker_special: frozenset[str] = frozenset(),
    faces: Sequence[int] | None = None,
) -> AttackResult:
    """A Spitter variant's ranged attack on the closest trooper within 6" and sight after its move
    (p.196): 1D6, a 6 hits whatever the Combat Skill or cover, Damage 1, armor saves as usual
    (``attacker_special`` passes the enemy's flags, e.g. Face-rippers). ``faces``: the attack
    die, then save and Hit dice."""
    n = Numbers.from_tables(tables)
    return _fixed_attack(
        n,
        target,
        dice,
        faces,
        what="Spitter attack",
        hit_on=n.spitter_hit_on,
        damage=n.spitter_damage,
        attacker_special=attacker_special | {SPITTERS},
        note="Combat Skill and cover do not count",
    )


def lancer_dart(
    target: Combatant,
    dice: Dice,
    *,
    tables: Mapping[str, RangeTable] | None = None,
    faces: Sequence[int] | None = None,
) -> AttackResult:
    """A Lancer pack leader's dart at the nearest visible trooper after each move (p.197): 1D6,
    5+ hits whatever the Combat Skill or cover, Damage 1, ignores armor. ``faces``: the dart die,
    then the Hit die."""
    n = Numbers.from_tables(tables)
    return _fixed_attack(
        n,
        target,
        dice,
        faces,
        what="Lancer dart",
        hit_on=n.lancer_hit_on,
        damage=n.lancer_damage,
        attacker_special=frozenset({LANCER, IGNORES_ARMOR}),
        note="Combat Skill and cover do not count",
    )


@dataclass(frozen=True)
class DropShipFire:
    """The drop ship's supporting fire for one round: one ShotResult per gun."""

    shots: tuple[ShotResult, ...]
    rolls: tuple[RollRecord, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"shots": [s.as_dict() for s in self.shots], "rolls": [r.as_dict() for r in self.rolls], "text": self.text}


def drop_ship_fire(
    tables: Mapping[str, RangeTable],
    target: Combatant,
    dice: Dice,
    *,
    band: str,
    second_target: Combatant | None = None,
    second_band: str | None = None,
    take_rapid_fire: bool = True,
    faces: Sequence[int] | None = None,
) -> DropShipFire:
    """Supporting fire from a hovering drop ship, arrival round included (p.201, bh-drop-ship):
    two Light Machine Guns fired from the marker's center at +1 Combat Skill that never
    malfunction (the ship does not count as moving). The second gun fires at ``second_target``
    (``second_band``) or, by default, at ``target`` as the first gun left it; if the first gun
    removed it and no second target is given, the second gun does not fire. ``faces``: the first
    gun's dice, then the second's. Raises :class:`CombatError` for a bad band or faces."""
    numbers = Numbers.from_tables(tables)
    gun = weapon(tables, numbers.drop_ship_weapon)
    ship = Combatant(name="Drop ship", combat_skill=numbers.drop_ship_combat_skill, toughness=0)
    feed = _Feed(dice, faces)
    results: list[ShotResult] = []
    texts: list[str] = []
    current: Combatant | None = target
    for index in range(numbers.drop_ship_guns):
        aim, aim_band = current, band
        if index > 0 and second_target is not None:
            aim, aim_band = second_target, second_band or band
        if aim is None:
            texts.append(f"Gun {index + 1} holds fire: its target is down.")
            continue
        shot = _shot(
            tables,
            numbers,
            ship,
            gun,
            aim,
            feed,
            band=aim_band,
            moved=False,
            target_behind_cover=False,
            ones_this_round=0,
            take_rapid_fire=take_rapid_fire,
            no_malfunction=True,
            figures_near_point=0,
            grenade=None,
            shots=None,
        )
        results.append(shot)
        texts.append(f"Gun {index + 1}: {shot.text}")
        if aim is current:
            current = None if any(h.removed for h in shot.hits) else shot.target
    feed.finish()
    return DropShipFire(tuple(results), tuple(feed.rolls), " ".join(texts))


def shatter_burst(
    tables: Mapping[str, RangeTable],
    figures: Sequence[Combatant],
    dice: Dice,
    *,
    faces: Sequence[int] | None = None,
) -> tuple[HitResult, ...]:
    """A Shatter-form dies (p.195): every figure within 2" of it, other Shatter-forms included,
    takes a Damage 0 Hit (saves as usual). ``figures`` are those within 2"; one HitResult each,
    in order. ``faces``: save and Hit dice in order."""
    numbers = Numbers.from_tables(tables)
    feed = _Feed(dice, faces)
    results = tuple(
        _hit(
            numbers,
            f,
            SHATTER_DAMAGE,
            feed,
            piercing=False,
            area=False,
            ranged=False,
            attacker_special=frozenset({SHATTER_FORMS}),
            source="Shatter-form burst",
        )
        for f in figures
    )
    feed.finish()
    return results


@dataclass(frozen=True)
class SplitResult:
    """An Acid Blob died (p.195): ``new_blobs`` to place at random 2" from it."""

    new_blobs: int
    rolls: tuple[RollRecord, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"new_blobs": self.new_blobs, "rolls": [r.as_dict() for r in self.rolls], "text": self.text}


def acid_blob_death(
    dice: Dice, *, tables: Mapping[str, RangeTable] | None = None, faces: Sequence[int] | None = None
) -> SplitResult:
    """When an Acid Blob is killed roll 1D6 at once (p.195, bh-enemies ``split_on``): on a 1 or 2
    that many new Blobs appear, placed at random 2" from it. ``faces``: one D6."""
    numbers = Numbers.from_tables(tables)
    feed = _Feed(dice, faces)
    record = feed.d6("Acid Blob split")
    feed.finish()
    face = int(record.total or 0)
    new = face if numbers.acid_split_low <= face <= numbers.acid_split_high else 0
    text = (
        f'Acid Blob split: rolled {face}, {new} new Blob{"s" if new != 1 else ""} appear{"s" if new == 1 else ""} 2" away at random.'
        if new
        else f"Acid Blob split: rolled {face}, no new Blobs."
    )
    return SplitResult(new, tuple(feed.rolls), text)
