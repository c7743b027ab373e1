"""Range tables: validate, look up, roll.

A :class:`RangeTable` is a die (``D6``, ``2D6``, ``D100`` ...) and, per column, a list of
:class:`Entry` rows each covering ``low..high`` inclusive. Single-column tables use the
column ``""``; tables with a column per kind (deployment by AI type, enforcement by loan
originator) name their columns. :meth:`RangeTable.validate` insists that every column covers
the die's span exactly.

Rolling adds modifiers and clamps the total to the table's span, as the books do ("treat
results above 100 as 100"). Reference tables (no die) hold rows for rules to read and cannot
be rolled.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from rules.engine.errors import RuleError

from .dice import Dice, DiceError, Notation, RollRecord, parse


class TableError(RuleError):
    """A table that does not cover its die, or a lookup outside it. The message names the table."""


@dataclass(frozen=True)
class Entry:
    """One row: ``low..high`` inclusive (``None`` for reference rows), a result name, our own
    short effect text and structured data for the engines."""

    result: str
    low: int | None = None
    high: int | None = None
    effect: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    column: str = ""
    position: int = 0

    @property
    def range_label(self) -> str:
        """``"1-10"``, or ``"7"`` for a single value, or ``""`` for reference rows."""
        if self.low is None or self.high is None:
            return ""
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


@dataclass(frozen=True)
class TableRoll:
    """A roll on a table: the dice record, the value looked up (clamped) and the entry."""

    record: RollRecord
    value: int
    entry: Entry
    clamped: bool


@dataclass(frozen=True)
class RangeTable:
    """A rollable table. ``die`` is notation (``"D100"``); empty for reference tables."""

    slug: str
    title: str
    die: str
    entries: tuple[Entry, ...]
    columns: tuple[str, ...] = ()

    @classmethod
    def build(cls, slug: str, title: str, die: str, entries: Iterable[Entry], columns: Sequence[str] = ()) -> RangeTable:
        return cls(slug=slug, title=title, die=die, entries=tuple(entries), columns=tuple(columns))

    # -- shape ---------------------------------------------------------------------------

    @property
    def is_reference(self) -> bool:
        return not self.die

    @property
    def notation(self) -> Notation:
        """The parsed die. Raises :class:`TableError` for a reference table or bad notation."""
        if self.is_reference:
            raise TableError(f"Table {self.slug!r} is a reference table and has no die.")
        try:
            return parse(self.die)
        except DiceError as exc:
            raise TableError(f"Table {self.slug!r}: {exc}") from exc

    @property
    def span(self) -> tuple[int, int]:
        """``(lowest, highest)`` value the die can give, e.g. ``(2, 12)`` for 2D6."""
        notation = self.notation
        return notation.minimum, notation.maximum

    def column_names(self) -> tuple[str, ...]:
        return self.columns or ("",)

    def rows(self, column: str = "") -> list[Entry]:
        """Entries of one column, in range order. Raises :class:`TableError` for an unknown column."""
        self._check_column(column)
        return list(self._sorted_rows.get(column, ()))

    @cached_property
    def _sorted_rows(self) -> dict[str, tuple[Entry, ...]]:
        """Each column's entries in range order, sorted once per table (the table is frozen)."""
        by_column: dict[str, list[Entry]] = {}
        for entry in self.entries:
            by_column.setdefault(entry.column, []).append(entry)
        return {
            column: tuple(sorted(rows, key=lambda e: (e.low if e.low is not None else 0, e.position)))
            for column, rows in by_column.items()
        }

    # -- validation ----------------------------------------------------------------------

    def validate(self) -> None:
        """Check that each column covers the die exactly: no gap, no overlap, nothing outside.

        Reference tables only need unique positions per column. Raises :class:`TableError`
        naming the table, the column and the first gap or overlap.
        """
        declared = set(self.column_names())
        for entry in self.entries:
            if entry.column not in declared:
                raise TableError(
                    f"Table {self.slug!r}: entry {entry.result!r} is in column {entry.column!r}, "
                    f"which is not one of {sorted(declared)}."
                )
        if self.is_reference:
            for entry in self.entries:
                if entry.low is not None or entry.high is not None:
                    raise TableError(f"Table {self.slug!r} has no die, so entry {entry.result!r} cannot have a range.")
            return
        low, high = self.span
        for column in self.column_names():
            where = f" column {column!r}" if column else ""
            rows = self.rows(column)
            if not rows:
                raise TableError(f"Table {self.slug!r}{where} has no entries.")
            expected = low
            for entry in rows:
                if entry.low is None or entry.high is None:
                    raise TableError(f"Table {self.slug!r}{where}: entry {entry.result!r} has no range.")
                if entry.low > entry.high:
                    raise TableError(
                        f"Table {self.slug!r}{where}: entry {entry.result!r} runs backwards ({entry.low}-{entry.high})."
                    )
                if entry.low > expected:
                    gap = str(expected) if entry.low - 1 == expected else f"{expected}-{entry.low - 1}"
                    raise TableError(f"Table {self.slug!r}{where} has a gap at {gap} ({self.die}).")
                if entry.low < expected:
                    raise TableError(
                        f"Table {self.slug!r}{where} has an overlap at {entry.low}-{min(entry.high, expected - 1)} "
                        f"(entry {entry.result!r})."
                    )
                expected = entry.high + 1
            if rows[0].low != low:
                raise TableError(f"Table {self.slug!r}{where} starts at {rows[0].low}; {self.die} starts at {low}.")
            if expected - 1 != high:
                if expected - 1 < high:
                    raise TableError(f"Table {self.slug!r}{where} has a gap at {expected}-{high} ({self.die}).")
                raise TableError(f"Table {self.slug!r}{where} runs to {expected - 1}; {self.die} stops at {high}.")

    # -- use -----------------------------------------------------------------------------

    def lookup(self, value: int, column: str = "") -> Entry:
        """The entry covering ``value`` (no clamping). Raises :class:`TableError` naming the
        allowed range when ``value`` is outside the die's span."""
        low, high = self.span
        if not low <= value <= high:
            raise TableError(f"{self.title} is rolled on {self.die}: enter a number from {low} to {high}; got {value}.")
        for entry in self.rows(column):
            assert entry.low is not None and entry.high is not None
            if entry.low <= value <= entry.high:
                return entry
        raise TableError(f"Table {self.slug!r} has no entry for {value}.")

    def roll(self, dice: Dice, *, modifier: int = 0, column: str = "", reason: str | None = None) -> TableRoll:
        """Roll the table's die plus ``modifier``; the total is clamped to the span."""
        record = dice.roll(self.notation, reason if reason is not None else self.title, modifier=modifier)
        return self.resolve(record, column=column)

    def roll_or_enter(
        self,
        dice: Dice,
        *,
        value: int | None = None,
        modifier: int = 0,
        column: str = "",
        reason: str | None = None,
    ) -> TableRoll:
        """Roll the table, or look up ``value``: the natural total the player's dice show
        (``modifier`` is added to either). Raises :class:`TableError` naming the die's range
        when the dice cannot show ``value``."""
        if value is None:
            return self.roll(dice, modifier=modifier, column=column, reason=reason)
        try:
            record = Dice.enter_total(self.notation, value, reason if reason is not None else self.title)
        except DiceError as exc:
            raise TableError(f"{self.title}: {exc}") from exc
        if modifier:
            record = replace(record, modifier=record.modifier + modifier, total=(record.total or 0) + modifier)
        return self.resolve(record, column=column)

    def resolve(self, record: RollRecord, *, column: str = "") -> TableRoll:
        """Look up an existing record (rolled or entered), clamping its total to the span."""
        if record.total is None:
            raise TableError(f"Table {self.slug!r} needs one total, not separate dice.")
        low, high = self.span
        value = min(max(record.total, low), high)
        return TableRoll(record=record, value=value, entry=self.lookup(value, column), clamped=value != record.total)

    def _check_column(self, column: str) -> None:
        if column not in self.column_names():
            allowed = ", ".join(repr(c) for c in self.column_names())
            raise TableError(f"Table {self.slug!r} has no column {column!r}; choose one of {allowed}.")
