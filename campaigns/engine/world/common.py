"""World rules, shared parts: :class:`WorldError`, table and row look-ups, and the :class:`Roller`
that takes the player's typed faces before rolling (see :mod:`campaigns.engine.world`).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from campaigns.engine.options import OptionError
from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, RollRecord, parse
from rules.engine.tables import Entry, RangeTable, TableError, TableRoll

T = TypeVar("T")


class WorldError(OptionError):
    """A world rule given something it cannot use; ``field`` names the input at fault."""


# -- shared helpers ----------------------------------------------------------------------


def table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    """The table ``slug``. Raises :class:`WorldError` (field ``tables``) when it is missing."""
    try:
        return tables[slug]
    except KeyError:
        raise WorldError(f"The rule table {slug!r} is not loaded; load the Compendium fixtures.", field="tables") from None


def row(tables: Mapping[str, RangeTable], slug: str, result: str) -> Entry:
    """The entry named ``result`` of table ``slug`` (case-insensitive). Raises :class:`WorldError`."""
    for entry in table(tables, slug).entries:
        if entry.result.lower() == result.lower():
            return entry
    raise WorldError(f"Table {slug!r} has no row {result!r}.", field="tables")


class Roller:
    """Dice for one rule: takes the player's typed ``faces`` first, in order, then rolls.

    Every roll is kept in :attr:`records`. Raises :class:`WorldError` (field ``faces``) for a
    typed face the die cannot show.
    """

    def __init__(self, dice: Dice, faces: Sequence[int] | None = None, *, field_name: str = "faces") -> None:
        self.dice = dice
        self.queue = [int(f) for f in (faces or ())]
        self.records: list[RollRecord] = []
        self.field_name = field_name

    def roll(self, notation: str, reason: str, *, modifier: int = 0) -> RollRecord:
        """Roll ``notation`` (plus ``modifier``), or take its faces from the typed queue."""
        parsed = parse(notation)
        if self.queue and parsed.count:
            if len(self.queue) < parsed.count:
                raise WorldError(
                    f"{reason}: {parsed} needs {parsed.count} typed face(s); {len(self.queue)} left.", field=self.field_name
                )
            taken, self.queue = self.queue[: parsed.count], self.queue[parsed.count :]
            try:
                record = Dice.enter(parsed, taken, reason, modifier=modifier)
            except DiceError as exc:
                raise WorldError(f"{reason}: {exc}", field=self.field_name) from exc
        else:
            record = self.dice.roll(parsed, reason, modifier=modifier)
        self.records.append(record)
        return record

    def table(
        self,
        tables: Mapping[str, RangeTable],
        slug: str,
        *,
        value: int | None = None,
        modifier: int = 0,
        column: str = "",
        reason: str | None = None,
    ) -> TableRoll:
        """Roll table ``slug``; ``value`` (or, failing that, the next typed face) is the natural total."""
        found = table(tables, slug)
        if value is None and self.queue and found.notation.count == 1:
            value = self.queue.pop(0)
        try:
            result = found.roll_or_enter(self.dice, value=value, modifier=modifier, column=column, reason=reason)
        except TableError as exc:
            raise WorldError(str(exc), field="value") from exc
        self.records.append(result.record)
        return result

    def pick(self, items: Sequence[T], reason: str) -> T:
        """One of ``items`` at random (see the module docstring for the die used)."""
        if not items:
            raise WorldError(f"{reason}: nothing to choose from.", field="faces")
        count = len(items)
        if count == 1:
            return items[0]
        even = [s for s in ALLOWED_SIDES if s % count == 0]
        if even:
            sides = even[0]
            face = self.roll(f"D{sides}", f"{reason} (1-{count})").total or 1
            return items[(face - 1) // (sides // count)]
        sides = next(s for s in ALLOWED_SIDES if s >= count)
        for _ in range(1000):
            face = self.roll(f"D{sides}", f"{reason} (1-{count}, reroll higher)").total or 1
            if face <= count:
                return items[face - 1]
        raise WorldError(f"{reason}: no usable face after many rolls.", field="faces")  # pragma: no cover


def _amount(roller: Roller, amount: Any, reason: str) -> int:
    """A number from table data: an int as is, dice notation ("1D6+2") rolled."""
    if amount is None or amount == "":
        return 0
    if isinstance(amount, int):
        return amount
    return roller.roll(str(amount), reason).total or 0
