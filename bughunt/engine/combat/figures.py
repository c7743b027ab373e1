"""Weapons and figures in combat (Bug Hunt pp.172, 177-181, 194-197): :class:`Weapon`,
:class:`Combatant`, enemy and Support figures, Stun."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from bughunt.engine.combat.numbers import (
    ASSASSIN,
    BERSERK_ROBOTS,
    BRAWL_BEST_OF_TWO,
    BRUISER,
    CombatError,
    Numbers,
    WeaponError,
    flag_for,
)
from rules.engine.tables import Entry, RangeTable

# -- weapons and figures ----------------------------------------------------------------------


@dataclass(frozen=True)
class Weapon:
    """A row of bh-weapons (p.179). ``range_in`` in inches (0 for a Brawl-only weapon),
    ``shots`` firing dice (0 where the book prints a dash: Stun, Launcher, Melee) and ``damage``
    added to the Hit roll (0 where the book prints a dash)."""

    name: str
    range_in: int
    shots: int
    damage: int
    traits: frozenset[str] = frozenset()

    @property
    def brawl_only(self) -> bool:
        return self.range_in == 0

    def has(self, trait: str) -> bool:
        return trait in self.traits

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "range_in": self.range_in,
            "shots": self.shots,
            "damage": self.damage,
            "traits": sorted(self.traits),
        }


def _weapon_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def weapon(tables: Mapping[str, RangeTable], name: str) -> Weapon:
    """The bh-weapons row called ``name`` (p.179; case, spaces and hyphens ignored, so
    "Shotgun" finds "Shot gun"). Raises :class:`WeaponError` naming the known weapons."""
    if "bh-weapons" not in tables:
        raise CombatError("tables must include 'bh-weapons' for Bug Hunt combat.")
    entries = tables["bh-weapons"].entries
    for entry in entries:
        if _weapon_key(entry.result) == _weapon_key(str(name)):
            d = entry.data
            return Weapon(
                name=entry.result,
                range_in=int(d.get("range_in") or 0),
                shots=int(d.get("shots") or 0),
                damage=int(d.get("damage") or 0),
                traits=frozenset(str(t) for t in d.get("traits", ())),
            )
    known = ", ".join(e.result for e in entries)
    raise WeaponError(f"weapon must be one of: {known}; got {name!r}.")


_lookup_weapon = weapon  # resolve_shot's ``weapon`` argument shadows the function


@dataclass(frozen=True)
class Combatant:
    """One figure in a fight. ``save`` is the D6 target of its own unconditional saving throw
    (trooper armor: 5, meaning 5-6) or ``None``; conditional saves come from ``special`` flags
    (see the module docstring). ``damage`` is an enemy's profile Damage; troopers strike with
    their ``weapons`` (bh-weapons names). Numbers are final (pack leader bonuses included)."""

    name: str
    combat_skill: int
    toughness: int
    savvy: int = 0
    is_enemy: bool = False
    save: int | None = None
    stun_markers: int = 0
    wounded: bool = False
    damage: int = 0
    weapons: tuple[str, ...] = ()
    special: frozenset[str] = frozenset()

    @property
    def stunned(self) -> bool:
        return self.stun_markers > 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists for ``weapons`` and ``special``)."""
        return {
            "name": self.name,
            "combat_skill": self.combat_skill,
            "toughness": self.toughness,
            "savvy": self.savvy,
            "is_enemy": self.is_enemy,
            "save": self.save,
            "stun_markers": self.stun_markers,
            "wounded": self.wounded,
            "damage": self.damage,
            "weapons": list(self.weapons),
            "special": sorted(self.special),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Combatant:
        """Inverse of :meth:`as_dict`; missing optional keys take their defaults. Raises
        :class:`CombatError` naming a missing ``name``, ``combat_skill`` or ``toughness``."""
        for key in ("name", "combat_skill", "toughness"):
            if key not in d:
                raise CombatError(f"combatant needs {key!r}; keys: {', '.join(f.name for f in fields(cls))}.")
        save = d.get("save")
        return cls(
            name=str(d["name"]),
            combat_skill=int(d["combat_skill"]),
            toughness=int(d["toughness"]),
            savvy=int(d.get("savvy", 0)),
            is_enemy=bool(d.get("is_enemy", False)),
            save=None if save is None else int(save),
            stun_markers=int(d.get("stun_markers", 0)),
            wounded=bool(d.get("wounded", False)),
            damage=int(d.get("damage", 0)),
            weapons=tuple(str(w) for w in d.get("weapons", ())),
            special=frozenset(str(s) for s in d.get("special", ())),
        )


def _find_row(table: RangeTable, name: str, key: str, what: str) -> Entry:
    for entry in table.entries:
        if flag_for(entry.result) == flag_for(name) or (key and flag_for(str(entry.data.get(key, ""))) == flag_for(name)):
            return entry
    raise CombatError(f"{what} must be one of: {', '.join(e.result for e in table.entries)}; got {name!r}.")


def enemy_combatant(
    tables: Mapping[str, RangeTable],
    enemy: str,
    *,
    variant: str | None = None,
    leader: str | None = None,
    name: str | None = None,
) -> Combatant:
    """An enemy figure from bh-enemies (pp.194-195), with an optional variant (bh-enemy-variants,
    p.196) and pack leader (bh-pack-leaders, p.197), each given by name or data name ("Toughs" or
    "toughs"). Sets the ``special`` flags, applies the Assassin (+1 Combat Skill, +1 Damage) and
    Bruiser (+1 Toughness, 4+ save) changes, and the unconditional Berserk robot save.

    Raises :class:`CombatError` naming the known enemies, variants or leaders.
    """
    numbers = Numbers.from_tables(tables)
    row = _find_row(tables["bh-enemies"], enemy, "", "enemy")
    d = row.data
    special = {flag_for(row.result)}
    combat_skill, toughness, damage = int(d["combat_skill"]), int(d["toughness"]), int(d["damage"])
    save: int | None = numbers.berserk_robots_save if BERSERK_ROBOTS in special else None
    label = row.result
    if variant:
        v = _find_row(tables["bh-enemy-variants"], variant, "variant", "variant")
        special.add(str(v.data.get("variant") or flag_for(v.result)))
        label = f"{v.result} {label}"
    if leader:
        lead = _find_row(tables["bh-pack-leaders"], leader, "leader", "leader")
        flag = str(lead.data.get("leader") or flag_for(lead.result))
        special.add(flag)
        if flag == ASSASSIN:
            combat_skill += numbers.assassin_combat_skill
            damage += numbers.assassin_damage
        if flag == BRUISER:
            toughness += numbers.bruiser_toughness
            save = numbers.bruiser_save
        label = f"{label} ({lead.result})"
    return Combatant(
        name=name or label,
        combat_skill=combat_skill,
        toughness=toughness,
        is_enemy=True,
        save=save,
        damage=damage,
        special=frozenset(special),
    )


def support_combatant(tables: Mapping[str, RangeTable], option: str, *, name: str | None = None) -> Combatant:
    """A trooper of a bh-support option (pp.188-189) with a profile: its stats, armor save,
    weapons, and ``brawl_best_of_two`` for the K'Erin assault marines. Raises
    :class:`CombatError` naming the options that field figures."""
    rows = [e for e in tables["bh-support"].entries if e.data.get("profile")]
    found = next((e for e in rows if flag_for(e.result) == flag_for(option)), None)
    if found is None:
        raise CombatError(f"option must be one of: {', '.join(e.result for e in rows)}; got {option!r}.")
    d = found.data
    profile = d["profile"]
    special = {BRAWL_BEST_OF_TWO} if int(d.get("brawl_dice", 1)) == 2 else set()
    save = d.get("armor_save")
    return Combatant(
        name=name or found.result,
        combat_skill=int(profile["combat_skill"]),
        toughness=int(profile["toughness"]),
        savvy=int(profile.get("savvy", 0)),
        save=None if save is None else int(save),
        weapons=tuple(str(w) for w in d.get("weapons", ())),
        special=frozenset(special),
    )


def apply_stun(target: Combatant, *, tables: Mapping[str, RangeTable] | None = None) -> tuple[Combatant, bool]:
    """Add one Stun marker (p.178), e.g. for a Stun weapon's splash roll. Returns the figure and
    whether it is now knocked out (3 markers, bh-hit-results)."""
    return _stun(Numbers.from_tables(tables), target)


def _stun(numbers: Numbers, target: Combatant) -> tuple[Combatant, bool]:
    after = replace(target, stun_markers=target.stun_markers + 1)
    return after, after.stun_markers >= numbers.knockout_markers
