"""Five Parsecs crew members, the values: stats and table slugs, :class:`CharacterError`,
:class:`Profile`, :class:`Character` and the small helpers the other sections share
(see :mod:`campaigns.engine.characters`).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from campaigns.engine.slots import PROFILE_KEYS
from rules.engine.dice import Dice, RollRecord
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable

#: Every stat on a profile: the core five plus Luck.
STATS: tuple[str, ...] = (*PROFILE_KEYS, "luck")
KINDS: tuple[str, ...] = ("biological", "bot", "soulless")
STATUSES: tuple[str, ...] = ("active", "sick_bay", "dead", "gone")

KRAG = "krag"
SKULKER = "skulker"
ENGINEER = "engineer"
PRECURSOR = "precursor"
#: Compendium species whose base profile comes from a fixture table (``<key>-profile``).
TABLE_SPECIES: tuple[str, ...] = (KRAG, SKULKER)

SLOWER_PROGRESSION_TABLE = "slower-progression-upgrades"
TRAINING_TABLE = "compendium-advanced-training"
BOT_UPGRADES_TABLE = "bot-upgrades"
INJURY_TABLE = "detailed-injuries"
ITEM_HIT_TABLE = "detailed-injuries-item-hit"
LINGERING_TABLE = "detailed-injuries-lingering"
MEDICAL_TABLE = "detailed-injuries-medical-facilities"
WEAPONS_TABLE = "dramatic-weapons"

INSTRUCTOR = "Instructor"
FIXER = "Fixer"
SURVIVAL_COURSE = "Survival course"
BUILT_IN_WEAPON = "Built-in weapon"
#: The detailed injury whose Sick Bay time starts only once it is paid for (p.101).
EXTENSIVE_INJURY = "Extensive injury"
LINGERING_INJURY = "Lingering injury"
CRITICAL_STRIKE = "Critical strike"
#: Weapon traits a Psionic may use (p.18; also in the psionic-limitations table).
PSIONIC_WEAPON_TRAITS: tuple[str, ...] = ("Pistol", "Melee")
#: Hazard kinds understood by :func:`hazard_rolls`.
HAZARD_KINDS: tuple[str, ...] = ("bio_hazard", "drug", "trap", "hazard", "environment")
NAME_LIMIT = 80


class CharacterError(RuleError):
    """A character change the rules do not allow; ``field`` names the input at fault and the
    message names the allowed values (same shape as ``OptionError``)."""


# -- values ------------------------------------------------------------------------------

#: Kinds of worn protective gear (p.26 names Armor and Screen Saving Throws).
PROTECTION_KINDS: tuple[str, ...] = ("armor", "screen")


@dataclass(frozen=True)
class Protection:
    """One piece of worn protective gear, typed by the player (the core rulebook's list is not
    in our sources): ``name``, ``kind`` (:data:`PROTECTION_KINDS`) and ``save``, its Saving
    Throw as a D6 target (5 = 5+, 2-6). Raises :class:`CharacterError` naming the field."""

    name: str
    kind: str
    save: int

    def __post_init__(self) -> None:
        name = str(self.name).strip()
        if not name or len(name) > NAME_LIMIT:
            raise CharacterError(f"name must be 1 to {NAME_LIMIT} characters; got {self.name!r}.", field="name")
        object.__setattr__(self, "name", name)
        if self.kind not in PROTECTION_KINDS:
            raise CharacterError(f"kind must be one of {', '.join(PROTECTION_KINDS)}; got {self.kind!r}.", field="kind")
        if isinstance(self.save, bool) or not isinstance(self.save, int) or not 2 <= self.save <= 6:
            raise CharacterError(f"save must be a D6 target from 2 to 6 (5 = 5+); got {self.save!r}.", field="save")

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "save": self.save}

    @classmethod
    def from_dict(cls, data: Any) -> Protection:
        """Inverse of :meth:`as_dict`. Raises :class:`CharacterError` naming the field."""
        if not isinstance(data, Mapping):
            raise CharacterError(f"protection must be a list of {{name, kind, save}}; got {data!r}.", field="protection")
        return cls(
            name=str(data.get("name") or ""),
            kind=str(data.get("kind") or "").strip().lower(),
            save=_int("save", data.get("save")),
        )


@dataclass(frozen=True)
class Profile:
    """A character's stats. ``speed`` is in inches; ``combat_skill`` and ``savvy`` are bonuses."""

    reactions: int = 1
    speed: int = 4
    combat_skill: int = 0
    toughness: int = 3
    savvy: int = 0
    luck: int = 0

    def get(self, stat: str) -> int:
        """The value of ``stat`` (one of :data:`STATS`). Raises :class:`CharacterError`."""
        _check_stat(stat)
        return int(getattr(self, stat))

    def with_stat(self, stat: str, value: int) -> Profile:
        _check_stat(stat)
        return replace(self, **{stat: value})

    def as_dict(self) -> dict[str, int]:
        return {stat: self.get(stat) for stat in STATS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "profile", luck_default: int = 0) -> Profile:
        """Profile from a mapping holding the five core stats (Luck optional, default
        ``luck_default``). Raises :class:`CharacterError` naming the missing or bad stat."""
        values: dict[str, int] = {}
        for stat in STATS:
            if stat not in data or data[stat] is None:
                if stat == "luck":
                    values[stat] = luck_default
                    continue
                raise CharacterError(f"{where} needs {', '.join(PROFILE_KEYS)}; {stat} is missing.", field=f"{where}.{stat}")
            values[stat] = _int(f"{where}.{stat}", data[stat])
        return cls(**values)


@dataclass(frozen=True)
class Character:
    """One crew member (pp.11-27).

    - ``species``: a key such as ``krag``, ``skulker`` or a preset key (``human``, ``engineer``).
    - ``kind``: ``biological``, ``bot`` or ``soulless`` (Bots and Soulless can never be Psionics;
      only Bots take Bot upgrades).
    - ``xp``: unspent experience points.
    - ``psionic``, ``powers`` (power name -> enhanced), ``psionics_lost`` (an implant or surgery
      ended the powers for good, p.18).
    - ``profile_rolled``: the creation tables have already changed the profile, so the figure
      can no longer be picked as the starting Psionic (p.17).
    - ``implants``, ``injuries`` (lasting injuries by name), ``training`` (course names),
      ``bot_upgrades`` (names), ``equipment`` (item names), ``protection`` (worn armour and
      screens, :class:`Protection`), ``bot_save`` (a Bot's built-in Armor Saving Throw from the
      core rulebook, typed by the player; ``None``: none typed).
    - ``treatments``: ``(injury name, credits)`` pairs: the medical treatment each lasting
      injury still waits for (p.101), in the order the injuries were taken.
    - ``sick_bay``: campaign turns left; ``bot_upgrade_turn``: campaign turn of the last install.
    - ``status``: ``active``, ``sick_bay``, ``dead`` or ``gone``.

    Construction checks ``kind``, ``status`` and the counts and turns the lists into tuples.
    Raises :class:`CharacterError`.
    """

    name: str
    species: str = "human"
    kind: str = "biological"
    profile: Profile = field(default_factory=Profile)
    xp: int = 0
    psionic: bool = False
    powers: Mapping[str, bool] = field(default_factory=dict)
    psionics_lost: bool = False
    profile_rolled: bool = False
    implants: tuple[str, ...] = ()
    injuries: tuple[str, ...] = ()
    treatments: tuple[tuple[str, int], ...] = ()
    sick_bay: int = 0
    training: tuple[str, ...] = ()
    bot_upgrades: tuple[str, ...] = ()
    bot_upgrade_turn: int | None = None
    equipment: tuple[str, ...] = ()
    status: str = "active"
    protection: tuple[Protection, ...] = ()
    bot_save: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise CharacterError(f"kind must be one of {', '.join(KINDS)}; got {self.kind!r}.", field="kind")
        if self.status not in STATUSES:
            raise CharacterError(f"status must be one of {', '.join(STATUSES)}; got {self.status!r}.", field="status")
        for name in ("xp", "sick_bay"):
            if getattr(self, name) < 0:
                raise CharacterError(f"{name} cannot be below 0; got {getattr(self, name)}.", field=name)
        if not str(self.species).strip():
            raise CharacterError("species must be a species key such as human, krag or skulker; got ''.", field="species")
        object.__setattr__(self, "powers", {str(k): bool(v) for k, v in dict(self.powers).items()})
        for name in ("implants", "injuries", "training", "bot_upgrades", "equipment"):
            object.__setattr__(self, name, tuple(str(v) for v in getattr(self, name)))
        object.__setattr__(self, "protection", tuple(self.protection))
        if self.bot_save is not None and (self.kind != "bot" or not 2 <= self.bot_save <= 6):
            raise CharacterError(
                f"bot_save is a Bot's built-in Armor Saving Throw, a D6 target from 2 to 6; got {self.bot_save!r}"
                f" for a {self.kind} character.",
                field="bot_save",
            )
        object.__setattr__(self, "treatments", _treatments(self.treatments))

    @property
    def alive(self) -> bool:
        return self.status not in ("dead", "gone")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``profile`` is a nested dict of :data:`STATS`. ``protection`` and
        ``bot_save`` appear only when set (sheets stored before them read the same)."""
        data = {
            "name": self.name,
            "species": self.species,
            "kind": self.kind,
            "profile": self.profile.as_dict(),
            "xp": self.xp,
            "psionic": self.psionic,
            "powers": dict(self.powers),
            "psionics_lost": self.psionics_lost,
            "profile_rolled": self.profile_rolled,
            "implants": list(self.implants),
            "injuries": list(self.injuries),
            "treatments": [[name, credits] for name, credits in self.treatments],
            "sick_bay": self.sick_bay,
            "training": list(self.training),
            "bot_upgrades": list(self.bot_upgrades),
            "bot_upgrade_turn": self.bot_upgrade_turn,
            "equipment": list(self.equipment),
            "status": self.status,
        }
        if self.protection:
            data["protection"] = [p.as_dict() for p in self.protection]
        if self.bot_save is not None:
            data["bot_save"] = self.bot_save
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Character:
        """Inverse of :meth:`as_dict`. Missing keys take the defaults; the stats may be nested
        under ``profile`` or given flat (as model columns). Raises :class:`CharacterError`
        naming the field for an unknown key or a bad value."""
        known = set(cls.__dataclass_fields__) | set(STATS)
        unknown = sorted(set(data) - known)
        if unknown:
            raise CharacterError(
                f"Unknown character field {unknown[0]!r}; fields are {', '.join(sorted(known))}.", field=unknown[0]
            )
        name = str(data.get("name") or "").strip()
        if not name or len(name) > NAME_LIMIT:
            raise CharacterError(f"name must be 1 to {NAME_LIMIT} characters; got {name!r}.", field="name")
        raw_profile = data.get("profile")
        if raw_profile is None:
            raw_profile = {stat: data[stat] for stat in STATS if stat in data}
            profile = Profile.from_dict(raw_profile) if raw_profile else Profile()
        elif isinstance(raw_profile, Mapping):
            profile = Profile.from_dict(raw_profile)
        else:
            raise CharacterError(f"profile must be a mapping of {', '.join(STATS)}; got {raw_profile!r}.", field="profile")
        powers = data.get("powers") or {}
        if not isinstance(powers, Mapping):
            raise CharacterError(f"powers must map power name to enhanced (true/false); got {powers!r}.", field="powers")
        turn = data.get("bot_upgrade_turn")
        return cls(
            name=name,
            species=str(data.get("species") or "human"),
            kind=str(data.get("kind") or "biological"),
            profile=profile,
            xp=_int("xp", data.get("xp", 0)),
            psionic=bool(data.get("psionic", False)),
            powers={str(k): bool(v) for k, v in powers.items()},
            psionics_lost=bool(data.get("psionics_lost", False)),
            profile_rolled=bool(data.get("profile_rolled", False)),
            implants=_texts("implants", data.get("implants")),
            injuries=_texts("injuries", data.get("injuries")),
            treatments=_treatments(data.get("treatments")),
            sick_bay=_int("sick_bay", data.get("sick_bay", 0)),
            training=_texts("training", data.get("training")),
            bot_upgrades=_texts("bot_upgrades", data.get("bot_upgrades")),
            bot_upgrade_turn=None if turn is None else _int("bot_upgrade_turn", turn),
            equipment=_texts("equipment", data.get("equipment")),
            status=str(data.get("status") or "active"),
            protection=_protection(data.get("protection")),
            bot_save=None if data.get("bot_save") in (None, "") else _int("bot_save", data.get("bot_save")),
        )


# -- small helpers -------------------------------------------------------------------------


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool):
        raise CharacterError(f"{name} must be a whole number; got {value!r}.", field=name)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CharacterError(f"{name} must be a whole number; got {value!r}.", field=name) from None


def _texts(name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise CharacterError(f"{name} must be a list of names; got {value!r}.", field=name)
    return tuple(str(v) for v in value)


def _protection(value: Any) -> tuple[Protection, ...]:
    if value is None:
        return ()
    if isinstance(value, str | Mapping) or not isinstance(value, Iterable):
        raise CharacterError(f"protection must be a list of {{name, kind, save}}; got {value!r}.", field="protection")
    return tuple(Protection.from_dict(p) for p in value)


def _treatments(value: Any) -> tuple[tuple[str, int], ...]:
    """``[[injury name, credits], ...]`` as a tuple of pairs. Raises :class:`CharacterError`."""
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise CharacterError(f"treatments must be a list of [injury, credits] pairs; got {value!r}.", field="treatments")
    pairs: list[tuple[str, int]] = []
    for item in value:
        if isinstance(item, str) or not isinstance(item, Iterable) or len(list(item)) != 2:
            raise CharacterError(f"treatments must be a list of [injury, credits] pairs; got {item!r}.", field="treatments")
        name, credits = list(item)
        amount = _int("treatments", credits)
        if amount < 0:
            raise CharacterError(f"treatments: credits cannot be below 0; got {amount}.", field="treatments")
        pairs.append((str(name), amount))
    return tuple(pairs)


def _check_stat(stat: str) -> None:
    if stat not in STATS:
        raise CharacterError(f"stat must be one of {', '.join(STATS)}; got {stat!r}.", field="stat")


def _key(text: str) -> str:
    """Loose match key: lower case, letters and digits only, no plural s."""
    return re.sub(r"[^a-z0-9]", "", text.lower()).rstrip("s")


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise CharacterError(
            f"The rule table {slug!r} is missing from tables; load the Compendium fixtures.", field="tables"
        ) from None


def _row(table: RangeTable, result: str, *, field_name: str) -> Entry:
    for entry in table.rows():
        if entry.result.lower() == result.lower():
            return entry
    names = ", ".join(e.result for e in table.rows())
    raise CharacterError(f"{field_name} must be one of {names}; got {result!r}.", field=field_name)


def _alive(character: Character) -> None:
    if not character.alive:
        raise CharacterError(
            f"{character.name} is {character.status}; only active or sick bay crew can change. status must be active or sick_bay.",
            field="status",
        )


def _picker_sides(count: int) -> int:
    for sides in (3, 6, 10, 12, 20, 100):
        if sides >= count:
            return sides
    raise CharacterError(f"Cannot pick at random among {count}; the limit is 100.", field="crew")


def pick_one(dice: Dice, count: int, reason: str, *, face: int | None = None) -> tuple[int, RollRecord | None]:
    """Pick one of ``count`` things at random: 0-based index and the roll.

    Rolls the smallest die with at least ``count`` faces and rerolls results above ``count``
    (the rerolled faces stay in the record). With one candidate there is no roll (``None``).
    ``face`` is the player's pick, 1 to ``count``. Raises :class:`CharacterError` for an empty
    list or a face out of range.
    """
    if count < 1:
        raise CharacterError("There is nobody and nothing to pick from; the list is empty.", field="crew")
    if face is not None:
        if not 1 <= face <= count:
            raise CharacterError(f"face must be 1 to {count}; got {face}.", field="face")
        return face - 1, Dice.enter(f"D{_picker_sides(count)}", (face,), reason)
    if count == 1:
        return 0, None
    sides = _picker_sides(count)
    record = dice.roll(f"D{sides}", f"{reason} (1-{count}, reroll higher)" if sides != count else reason)
    while (record.total or 0) > count:
        record = dice.reroll(record, [0])
    return (record.total or 1) - 1, record
