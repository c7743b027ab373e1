"""Bug Hunt main characters (Bug Hunt pp.170-173): profile, Origin, Basic Training, Service
History with commendations, and the regiment's name.

Tables come in as engine :class:`RangeTable` objects keyed by slug (``bh-origin`` ...), so the
rules here read no numbers of their own. Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules.engine.dice import Dice, RollRecord
from rules.engine.errors import RuleError
from rules.engine.tables import RangeTable, TableRoll

PROFILE_KEYS = ("reactions", "speed", "combat_skill", "toughness", "savvy")
BACKGROUND_TABLES = ("bh-origin", "bh-basic-training", "bh-service-history")


class CharacterError(RuleError):
    """A character that cannot be made as asked; the message says why."""


@dataclass(frozen=True)
class Profile:
    """Reactions, Speed (inches), Combat Skill, Toughness, Savvy."""

    reactions: int
    speed: int
    combat_skill: int
    toughness: int
    savvy: int

    def plus(self, changes: Mapping[str, Any]) -> Profile:
        """This profile with each key of ``changes`` (a table entry's data) added."""
        return replace(self, **{k: getattr(self, k) + int(changes.get(k, 0) or 0) for k in PROFILE_KEYS})

    def as_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in PROFILE_KEYS}


@dataclass(frozen=True)
class MainCharacter:
    """A new main character: the profile after the three background rolls, starting XP,
    Completed Missions, the Reputation it brings to the squad pool, and every roll made."""

    name: str
    profile: Profile
    xp: int
    completed_missions: int
    reputation: int
    origin: str
    basic_training: str
    service_history: str
    commendations: int
    rolls: tuple[RollRecord, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "profile": self.profile.as_dict(),
            "xp": self.xp,
            "completed_missions": self.completed_missions,
            "reputation": self.reputation,
            "origin": self.origin,
            "basic_training": self.basic_training,
            "service_history": self.service_history,
            "commendations": self.commendations,
            "rolls": [r.as_dict() for r in self.rolls],
        }


def base_profile(tables: Mapping[str, RangeTable]) -> Profile:
    """The starting profile from ``bh-base-profile`` (p.170)."""
    row = tables["bh-base-profile"].entries[0].data
    return Profile(**{k: int(row[k]) for k in PROFILE_KEYS})


def commendation_rule(tables: Mapping[str, RangeTable]) -> Mapping[str, Any]:
    """Dice, success face and awards for commendations (``bh-service-commendations``, p.172)."""
    return tables["bh-service-commendations"].entries[0].data


def create_main_character(
    name: str,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    entered: Mapping[str, int] | None = None,
) -> MainCharacter:
    """Roll Origin, Basic Training and Service History (D100 each) for a new main character,
    and commendations (two separate D6, +1 XP and +1 Reputation per 6) when the service history
    was a Combat Operation (pp.171-172).

    ``entered`` maps a table slug to a D100 result the player rolled on their own dice.
    Raises :class:`CharacterError` for a blank name and ``TableError`` for an impossible roll.
    """
    if not name.strip():
        raise CharacterError("name is required.")
    profile = base_profile(tables)
    xp = completed = reputation = 0
    results: dict[str, TableRoll] = {}
    rolls: list[RollRecord] = []
    for slug in BACKGROUND_TABLES:
        table = tables[slug]
        if entered and slug in entered:
            outcome = table.resolve(Dice.enter_total(table.notation, int(entered[slug]), f"{name}: {table.title}"))
        else:
            outcome = table.roll(dice, reason=f"{name}: {table.title}")
        results[slug] = outcome
        rolls.append(outcome.record)
        data = outcome.entry.data
        profile = profile.plus(data)
        xp += int(data.get("xp", 0) or 0)
        completed += int(data.get("completed_missions", 0) or 0)
        reputation += int(data.get("reputation", 0) or 0)
    commendations = 0
    if results["bh-service-history"].entry.data.get("combat_operation"):
        rule = commendation_rule(tables)
        record = dice.separate(int(rule["dice"]), int(rule.get("sides", 6)), f"{name}: commendations")
        rolls.append(record)
        commendations = sum(1 for face in record.faces if face >= int(rule["success_on"]))
        xp += commendations * int(rule["xp"])
        reputation += commendations * int(rule["reputation"])
    return MainCharacter(
        name=name.strip(),
        profile=profile,
        xp=xp,
        completed_missions=completed,
        reputation=reputation,
        origin=results["bh-origin"].entry.result,
        basic_training=results["bh-basic-training"].entry.result,
        service_history=results["bh-service-history"].entry.result,
        commendations=commendations,
        rolls=tuple(rolls),
    )


ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th", 6: "6th"}


@dataclass(frozen=True)
class Regiment:
    """The regiment's title and uniform color, with the rolls that made them (p.173)."""

    title: str
    uniform: str
    rolls: tuple[RollRecord, ...]


def regiment_flavor(tables: Mapping[str, RangeTable], dice: Dice) -> Regiment:
    """Roll the regiment title (part 1 + part 2) and uniform color on ``bh-regiment-flavor``.

    A "[number]" result is a D6 ordinal (1st-6th) followed by a fresh roll on part 1; a
    "[color]" result takes its word from a roll on the Uniform color column (see the table's
    notes). Rerolls repeat until a word comes up.
    """
    table = tables["bh-regiment-flavor"]
    part1, part2, color = table.columns
    rolls: list[RollRecord] = []

    def word(column: str, reason: str, *, numbered: bool = False) -> str:
        for _ in range(20):
            outcome = table.roll(dice, column=column, reason=reason)
            rolls.append(outcome.record)
            data = outcome.entry.data
            if data.get("ordinal"):
                if numbered:  # already numbered: roll the word again
                    continue
                ordinal = dice.roll(str(data["ordinal"]), "Regiment number")
                rolls.append(ordinal)
                return f"{ORDINALS[int(ordinal.total or 1)]} {word(part1, reason, numbered=True)}"
            if data.get("roll_column"):
                return word(str(data["roll_column"]), "Regiment color")
            return str(data.get("text") or outcome.entry.result)
        raise CharacterError("The regiment table kept asking for rerolls.")

    title = f"{word(part1, 'Regiment title, part 1')} {word(part2, 'Regiment title, part 2')}"
    uniform = word(color, "Uniform color")
    return Regiment(title=title, uniform=uniform, rolls=tuple(rolls))
