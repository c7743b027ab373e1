"""Stress dice: a new table's state and the pure reckonings of a roll (sixes, panic rows, range modifiers; Stress dice skill checks, p.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from live.engine.tracker import (
    TrackerError,
)
from tabletools.engine.stress.constants import DEFAULT_EXTREME, DEFENCELESS_BONUS, LASTS, RANGE_MODIFIERS, SETTINGS, SUCCESS_FACE


def initial_state(
    *,
    extreme_modifier: int = DEFAULT_EXTREME,
    panic_table: Sequence[Mapping[str, Any]] = (),
    panic_table_slug: str = "",
) -> dict[str, Any]:
    """A new table: round 1, no characters.

    ``extreme_modifier`` (-6..0) is the Extreme range modifier; ``panic_table`` rows are
    ``{low, high, result, effect, lasts?}`` dicts from the group's panic table. Raises
    :class:`TrackerError` (field ``extreme_modifier`` or ``panic_table``) for bad values.
    """
    low, high = SETTINGS["extreme_modifier"]
    if not low <= extreme_modifier <= high:
        raise TrackerError(f"extreme_modifier must be from {low} to {high}; got {extreme_modifier}.", field="extreme_modifier")
    return {
        "round": 1,
        "settings": {"extreme_modifier": extreme_modifier},
        "panic_table_slug": panic_table_slug,
        "panic_table": clean_panic_table(panic_table),
        "characters": [],
        "last": None,
        "next_id": 1,
        "next_item": 1,
    }


def clean_panic_table(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Panic rows sorted by ``low``: ``{low, high, result, effect, lasts}``; ``lasts`` is one of
    :data:`LASTS` or ``None`` (then 7+ lasts until aid, lower values are over at once).

    Raises :class:`TrackerError` (field ``panic_table``) when a row has no whole-number range.
    """
    clean: list[dict[str, Any]] = []
    for row in rows:
        try:
            low, high = int(row["low"]), int(row["high"])
        except (KeyError, TypeError, ValueError):
            raise TrackerError("panic_table rows need whole-number low and high values.", field="panic_table") from None
        lasts = row.get("lasts")
        clean.append(
            {
                "low": low,
                "high": high,
                "result": str(row.get("result", "")),
                "effect": str(row.get("effect", "")),
                "lasts": lasts if lasts in LASTS else None,
            }
        )
    return sorted(clean, key=lambda r: r["low"])


def sixes(faces: Sequence[int]) -> int:
    """How many faces are successes (6s) (p.1)."""
    return sum(1 for f in faces if f == SUCCESS_FACE)


def panic_row(table: Sequence[Mapping[str, Any]], value: int) -> int | None:
    """Index of the panic table row for ``value``: the row whose range holds it, the last row
    above the table, the first below it; ``None`` with no table."""
    if not table:
        return None
    for index, row in enumerate(table):
        if row["low"] <= value <= row["high"]:
            return index
    return len(table) - 1 if value > table[-1]["high"] else 0


def one_step_worse(table: Sequence[Mapping[str, Any]], value: int) -> int:
    """The panic value one step more severe than ``value``: the next row's lowest value, or
    ``value + 1`` without a table or past its last row (p.1)."""
    index = panic_row(table, value)
    if index is None or index + 1 >= len(table):
        return value + 1
    return int(table[index + 1]["low"])


def range_modifier(state: Mapping[str, Any], distance: str, *, defenceless: bool = False) -> int:
    """Base dice change for a ranged attack at ``distance`` (one of :data:`RANGES`): Engaged -3,
    or +3 against a defenceless or unaware target; Short 0; Medium -1; Long -2; Extreme from the
    owner's setting (p.1)."""
    if distance == "engaged" and defenceless:
        return DEFENCELESS_BONUS
    if distance == "extreme":
        return int(state["settings"]["extreme_modifier"])
    return RANGE_MODIFIERS[distance]
