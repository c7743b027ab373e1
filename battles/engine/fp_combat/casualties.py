"""Casualty tables (Compendium pp.98-100): one D6 per hit that beat Toughness, the highest applies;
Regular or Boss column.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from battles.engine.fp_combat import CASUALTY_KINDS, CombatError
from battles.engine.fp_combat.hits import _Feed, _signed
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import Entry, RangeTable, TableError

# -- casualty tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CasualtyResult:
    """A casualty-table roll (pp.99-100): ``entry`` the applied row (the highest roll), ``value``
    its table value, ``rolls`` every D6, ``lines`` one per step."""

    result: str
    entry: Entry
    value: int
    rolls: tuple[RollRecord, ...]
    lines: tuple[str, ...]

    @property
    def removed(self) -> bool:
        return bool(self.entry.data.get("removed"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "effect": self.entry.effect,
            "data": dict(self.entry.data),
            "value": self.value,
            "removed": self.removed,
            "rolls": [r.as_dict() for r in self.rolls],
            "lines": list(self.lines),
        }


def casualty(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    kind: str,
    critical: int = 0,
    hits: int = 1,
    boss: bool = False,
    modifier: int = 0,
    faces: Sequence[int] | None = None,
) -> CasualtyResult:
    """Roll a casualty table (pp.99-100) for a figure that would become a casualty.

    ``kind``: "humanoid", "cybernetic" or "beasts" (table ``casualty-<kind>``); ``boss``: use the
    Boss column (crew captain, enemy leaders, unique personalities), else Regular. ``hits``: the
    hits of the attack that equalled or beat Toughness (one roll each); ``critical``: extra rolls
    from the optional Critical Hit rule (True = 1, or the count of natural-6 hits). Only the
    highest roll applies. ``modifier``: added to every roll (+1 per earlier Damaged/Bleeding);
    totals are clamped to 1-6. ``faces``: one D6 face per roll. Raises :class:`CombatError` naming
    ``kind``, ``hits``, ``critical``, ``tables`` or ``faces``."""
    if kind not in CASUALTY_KINDS:
        raise CombatError(f"kind must be one of {', '.join(CASUALTY_KINDS)}; got {kind!r}.", field="kind")
    if hits < 1:
        raise CombatError(f"hits must be 1 or more; got {hits}.", field="hits")
    extra = int(critical)
    if extra < 0:
        raise CombatError(f"critical must be True/False or a count 0 or more; got {critical!r}.", field="critical")
    slug = f"casualty-{kind}"
    if slug not in tables:
        raise CombatError(f"tables must include {slug!r}.", field="tables")
    table = tables[slug]
    column = "Boss" if boss else "Regular"
    feed = _Feed(dice, faces)
    lines: list[str] = []
    best: tuple[int, Entry] | None = None
    count = hits + extra
    for index in range(count):
        why = "Critical Hit extra roll" if index >= hits else f"hit {index + 1}"
        record = feed.d6(f"{table.title} ({column}), {why}", modifier=modifier)
        try:
            rolled = table.resolve(record, column=column)
        except TableError as exc:
            raise CombatError(f"tables: {exc}", field="tables") from exc
        lines.append(
            f"{why}: rolled {record.natural}{f' {_signed(modifier)}' if modifier else ''} -> {rolled.value}, {rolled.entry.result}."
        )
        if best is None or rolled.value > best[0]:
            best = (rolled.value, rolled.entry)
    feed.finish()
    assert best is not None
    value, entry = best
    if count > 1:
        lines.append(f"Only the highest applies: {value}, {entry.result}.")
    return CasualtyResult(result=entry.result, entry=entry, value=value, rolls=tuple(feed.rolls), lines=tuple(lines))


def casualty_roll(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    kind: str,
    critical: bool = False,
    faces: Sequence[int] | None = None,
    hits: int = 1,
    boss: bool = False,
    modifier: int = 0,
) -> tuple[str, tuple[RollRecord, ...]]:
    """The applied casualty-table result name and the rolls (see :func:`casualty` for the
    arguments, pp.99-100). ``critical=True``: the optional Critical Hit rule adds one roll."""
    result = casualty(dice, tables, kind=kind, critical=int(critical), hits=hits, boss=boss, modifier=modifier, faces=faces)
    return result.result, result.rolls
