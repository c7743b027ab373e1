"""Helpers for enemy generation: tables, typed faces and picks, figures being built, and enemy
profiles from a table row, typed by hand or rolled on the user's core table.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from battles.engine.fp_enemies.base import (
    _NAME_ALIASES,
    CATEGORY_TABLE,
    DRAMATIC_WEAPONS_TABLE,
    EnemyError,
    EnemyFigure,
    EnemyProfile,
    weapon_code,
)
from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, Keep, RollRecord, parse
from rules.engine.tables import Entry, RangeTable, TableError, TableRoll

# -- helpers --------------------------------------------------------------------------------


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise EnemyError(f"tables must include {slug!r}; load the Compendium fixtures.", field="tables") from None


def _key(name: str) -> str:
    key = re.sub(r"[^a-z0-9]", "", str(name).lower())
    return _NAME_ALIASES.get(key, key)


def _ints(value: Any) -> int:
    """A signed table number: ``"+3"`` is 3, ``"-"`` or ``None`` is 0."""
    if value is None or value in ("", "-", "\u2013", "\u2014"):
        return 0
    return int(str(value).replace("+", ""))


def _panic_top(panic: str) -> int:
    """The highest Panic die that breaks: ``"1-3"`` is 3, ``"1"`` is 1, ``"0"`` is 0."""
    text = str(panic).strip()
    if text in ("", "-", "0", "\u2013", "\u2014"):
        return 0
    return int(text.split("-")[-1])


def _panic_text(top: int) -> str:
    return "0" if top <= 0 else ("1" if top == 1 else f"1-{top}")


def _check_count(name: str, value: Any, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise EnemyError(f"{name} must be a whole number of {minimum} or more; got {value!r}.", field=name)
    return value


class _Roller:
    """Takes the player's typed faces first, in order, then rolls; keeps every record."""

    def __init__(self, dice: Dice, faces: Sequence[int] | None) -> None:
        self.dice = dice
        try:
            self.queue = [int(f) for f in (faces or ())]
        except (TypeError, ValueError):
            raise EnemyError(f"faces must be whole numbers; got {faces!r}.", field="faces") from None
        self.records: list[RollRecord] = []

    def roll(self, notation: str, reason: str, *, modifier: int = 0, keep: Keep = Keep.SUM) -> RollRecord:
        parsed = parse(notation)
        if self.queue and parsed.count:
            if len(self.queue) < parsed.count:
                raise EnemyError(f"{reason}: {parsed} needs {parsed.count} typed face(s); {len(self.queue)} left.", field="faces")
            taken, self.queue = self.queue[: parsed.count], self.queue[parsed.count :]
            try:
                record = Dice.enter(parsed, taken, reason, modifier=modifier, keep=keep)
            except DiceError as exc:
                raise EnemyError(f"{reason}: {exc}", field="faces") from exc
        else:
            record = self.dice.roll(parsed, reason, modifier=modifier, keep=keep)
        self.records.append(record)
        return record

    def table(self, table: RangeTable, reason: str, *, modifier: int = 0, column: str = "") -> TableRoll:
        try:
            record = self.roll(table.die, reason, modifier=modifier)
            return table.resolve(record, column=column)
        except TableError as exc:
            raise EnemyError(str(exc), field="tables") from exc

    def pick(self, count: int, reason: str) -> int:
        """A random index from ``0..count-1`` (see the module docstring for the die)."""
        if count <= 0:
            raise EnemyError(f"{reason}: nothing to choose from.", field="figures")
        if count == 1:
            return 0
        even = [s for s in ALLOWED_SIDES if s % count == 0]
        if even:
            sides = even[0]
            face = self.roll(f"D{sides}", f"{reason} (1-{count})").total or 1
            return (face - 1) // (sides // count)
        sides = next(s for s in ALLOWED_SIDES if s >= count)
        for _ in range(1000):
            face = self.roll(f"D{sides}", f"{reason} (1-{count}, reroll higher)").total or 1
            if face <= count:
                return face - 1
        raise EnemyError(f"{reason}: no usable face after many rolls.", field="faces")  # pragma: no cover

    def finish(self) -> tuple[RollRecord, ...]:
        if self.queue:
            raise EnemyError(f"{len(self.queue)} typed face(s) were not needed: {self.queue}.", field="faces")
        return tuple(self.records)


@dataclass
class _Fig:
    """A figure while it is being built (mutable); frozen by :meth:`freeze`."""

    name: str
    rank: str
    speed: int
    combat_skill: int
    toughness: int
    save: int | None
    weapons: list[str]
    gear: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ai: str = ""
    luck: int = 0
    fearless: bool = False
    powers: list[str] = field(default_factory=list)
    rolled_slot: bool = True

    def has_weapon(self, name: str) -> bool:
        return any(_key(w) == _key(name) for w in self.weapons)

    def freeze(self, canon: Mapping[str, str]) -> EnemyFigure:
        weapons: list[str] = []
        for w in self.weapons:
            key = _key(w)
            name = canon.get(key) or canon.get(key[:-1] if key.endswith("s") else key) or w
            if name and _key(name) not in {_key(x) for x in weapons}:
                weapons.append(name)
        return EnemyFigure(
            name=self.name,
            rank=self.rank,
            reactions=None,
            speed=self.speed,
            combat_skill=self.combat_skill,
            toughness=self.toughness,
            save=self.save,
            weapons=tuple(weapons),
            gear=tuple(dict.fromkeys(self.gear)),
            psionic_powers=tuple(self.powers),
            notes=tuple(dict.fromkeys(self.notes)),
            ai=self.ai,
            luck=self.luck,
            fearless=self.fearless,
        )


def _thaw(figure: EnemyFigure) -> _Fig:
    return _Fig(
        name=figure.name,
        rank=figure.rank,
        speed=figure.speed,
        combat_skill=figure.combat_skill,
        toughness=figure.toughness,
        save=figure.save,
        weapons=list(figure.weapons),
        gear=list(figure.gear),
        notes=list(figure.notes),
        ai=figure.ai,
        luck=figure.luck,
        fearless=figure.fearless,
        powers=list(figure.psionic_powers),
    )


def _canon(tables: Mapping[str, RangeTable]) -> dict[str, str]:
    """Weapon key to the Dramatic Weapons table's spelling (empty without that table)."""
    table = tables.get(DRAMATIC_WEAPONS_TABLE)
    return {_key(e.result): e.result for e in table.entries} if table else {}


def _categories(tables: Mapping[str, RangeTable]) -> dict[str, Entry]:
    return {e.result: e for e in _table(tables, CATEGORY_TABLE).entries}


def _category_row(tables: Mapping[str, RangeTable], name: str) -> Entry:
    rows = _categories(tables)
    for title, entry in rows.items():
        if title.lower() == str(name).strip().lower():
            return entry
    raise EnemyError(f"category must be one of {', '.join(rows)}; got {name!r}.", field="category")


def profile_from_entry(entry: Entry, category: str, *, source: str = "") -> EnemyProfile:
    """An :class:`EnemyProfile` from a table row whose ``data`` holds ``numbers``, ``panic``,
    ``speed``, ``combat_skill``, ``toughness`` and optionally ``ai``, ``weapons``,
    ``armor_save`` (or ``save``) and ``special_rules`` (the shape of the elite tables,
    pp.51-61). Raises :class:`EnemyError` (field ``tables``) naming a missing or bad number."""
    data = entry.data
    try:
        speed = int(data["speed"])
        combat_skill = _ints(data["combat_skill"])
        toughness = int(data["toughness"])
        numbers = _ints(data.get("numbers", 0))
    except (KeyError, TypeError, ValueError):
        raise EnemyError(
            f"Enemy row {entry.result!r} needs whole numbers speed, combat_skill, toughness and numbers in its data.",
            field="tables",
        ) from None
    panic = str(data.get("panic", "")).strip()
    if panic in ("-", "\u2013", "\u2014", ""):
        panic = "0"
    save = data.get("armor_save", data.get("save"))
    return EnemyProfile(
        name=entry.result,
        category=category,
        numbers=numbers,
        panic=panic,
        speed=speed,
        combat_skill=combat_skill,
        toughness=toughness,
        ai=str(data.get("ai") or ""),
        weapons=str(data.get("weapons") or ""),
        save=None if save in (None, "") else int(save),
        special_rules=tuple(str(r) for r in data.get("special_rules", ())),
        data=dict(data),
        source=source,
    )


def custom_enemy(
    name: str,
    *,
    category: str,
    numbers: int,
    panic: str,
    speed: int,
    combat_skill: int,
    toughness: int,
    ai: str = "",
    weapons: str = "",
    save: int | None = None,
    special_rules: Sequence[str] = (),
) -> EnemyProfile:
    """A profile typed by hand, e.g. from the core rulebook's encounter tables.

    ``numbers`` is the Numbers modifier (+2 is 2); ``panic`` "1-2", "1" or "0" (Fearless);
    ``speed`` inches (1-12); ``combat_skill`` -1 to +5; ``toughness`` 1-8; ``weapons`` a core
    code ("2B"), weapon name or "-"; ``save`` 2-6 (target of the D6) or ``None``. ``category`` is
    the encounter category (checked against the tables when the force is built). Raises
    :class:`EnemyError` naming the bad field and the allowed values.
    """
    text = str(name or "").strip()
    if not text or len(text) > 80:
        raise EnemyError("name must be 1 to 80 characters.", field="name")
    if not str(category or "").strip():
        raise EnemyError("category must name the encounter category, e.g. 'Hired Muscle'.", field="category")
    for key, value, low, high in (
        ("numbers", numbers, -5, 10),
        ("speed", speed, 1, 12),
        ("combat_skill", combat_skill, -1, 5),
        ("toughness", toughness, 1, 8),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise EnemyError(f"{key} must be a whole number from {low} to {high}; got {value!r}.", field=key)
    arms = str(weapons or "").strip()
    arms = weapon_code(arms) or arms
    panic_text = str(panic).strip()
    if not re.fullmatch(r"0|1|1-[2-6]", panic_text):
        raise EnemyError(f"panic must be '0', '1' or a range '1-2' to '1-6'; got {panic!r}.", field="panic")
    if save is not None and (isinstance(save, bool) or not isinstance(save, int) or not 2 <= save <= 6):
        raise EnemyError(f"save must be a D6 target from 2 to 6, or empty; got {save!r}.", field="save")
    return EnemyProfile(
        name=text,
        category=str(category).strip(),
        numbers=numbers,
        panic=panic_text,
        speed=speed,
        combat_skill=combat_skill,
        toughness=toughness,
        ai=str(ai or "").strip(),
        weapons=arms,
        save=save,
        special_rules=tuple(str(r) for r in special_rules),
        data={},
        source="typed by hand",
    )


def core_profile(
    dice: Dice,
    core: Mapping[str, RangeTable] | None,
    slug: str,
    *,
    category: str,
    faces: Sequence[int] | None = None,
) -> tuple[EnemyProfile, TableRoll]:
    """Roll the user's core-rulebook enemy table ``core[slug]`` and read the profile from the
    rolled row's data (shape as in :func:`profile_from_entry`). Raises :class:`EnemyError`
    (field ``core``) saying the table is needed when it is not given."""
    if not core or slug not in core:
        raise EnemyError(
            f"The core rulebook's enemy table {slug!r} is needed: add it as a user table, or type the profile with custom_enemy().",
            field="core",
        )
    roller = _Roller(dice, faces)
    rolled = roller.table(core[slug], f"{category} enemy type")
    roller.finish()
    return profile_from_entry(rolled.entry, category, source=core[slug].title), rolled
