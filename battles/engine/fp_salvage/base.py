"""Salvage jobs' small helpers: refusals, rolls with typed faces, table rows, random picks and the
Tension track's arithmetic (Compendium pp.137-147).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_tracker.base import _face, _take
from live.engine.tracker import TrackerError
from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, RollRecord
from rules.engine.tables import Entry, RangeTable, TableError, TableRoll

SOURCE = "Five Parsecs Compendium pp.137-147"
MISSION = "salvage"
KIND = "fiveparsecs-salvage"
#: Figure statuses: on the table, down, fled, gone off a battlefield edge (p.146), or taken off by
#: a Rival trap (p.145).
STATUSES: tuple[str, ...] = ("active", "casualty", "fled", "exited", "removed")
#: Enemy sides: the mission's Hostiles, a force that fights everyone (Incursion, a hostile Security
#: bot or Sand Runner), and allies that fight for the crew (Survivors, a friendly bot or creature).
SIDES: tuple[str, ...] = ("hostile", "third", "ally")
#: The four battlefield edges, read from a D12 in threes (the chapter says "randomly select").
EDGES: tuple[str, ...] = ("north", "east", "south", "west")
#: What the screens say before round 1.
SETUP_NOW = "Set-up: place the Salvage markers and Points of Interest, deploy (see the set-up card), then start round 1."


def err(message: str, field: str | None = None) -> TrackerError:
    return TrackerError(message, field=field)


def table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    """The shipped table ``slug``. Raises :class:`TrackerError` when it is not loaded."""
    try:
        return tables[slug]
    except KeyError:
        raise err(f"The {slug} table is not loaded: run `manage.py load_tables`.", "tables") from None


def row(tables: Mapping[str, RangeTable], slug: str, result: str) -> Entry:
    """The row of ``slug`` named ``result`` (tables without a die, such as the Encounter Number)."""
    for entry in table(tables, slug).entries:
        if entry.result == result:
            return entry
    raise err(f"Table {slug} has no row {result!r}.", "tables")  # pragma: no cover - shipped


def roll(dice: Dice, notation: str, reason: str, faces: Sequence[int] | None, *, modifier: int = 0) -> RollRecord:
    """Roll ``notation`` (plus ``modifier``) or record the typed ``faces``; every roll names its reason."""
    try:
        return dice.roll_or_enter(notation, reason, faces=list(faces) if faces else None, modifier=modifier)
    except DiceError as exc:
        raise err(str(exc), "faces") from None


def roll_table(tables: Mapping[str, RangeTable], slug: str, dice: Dice, face: int | None, reason: str) -> TableRoll:
    """Roll the table ``slug`` (or look up the typed ``face``). Raises :class:`TrackerError`."""
    try:
        return table(tables, slug).roll_or_enter(dice, value=face, reason=reason)
    except TableError as exc:
        raise err(str(exc), "faces") from None


#: One typed face under a payload key, and the next typed faces of a list: the battle tracker's own.
face = _face
take = _take


def pick(dice: Dice, items: Sequence[Any], reason: str, typed: list[int]) -> tuple[Any, RollRecord | None]:
    """A random item: a die with as many faces as items when one exists (D3, D6, D10, D12, D20),
    else a D100 read by position. One item needs no roll."""
    if len(items) == 1:
        return items[0], None
    size = len(items)
    notation = f"D{size}" if size in ALLOWED_SIDES else "D100"
    record = roll(dice, notation, reason, take(typed, 1))
    return items[(int(record.total or 1) - 1) % size], record


def rolls(*records: RollRecord | None) -> dict[str, Any]:
    """Event data: every record under ``rolls``; a lone one also under ``roll``."""
    made = [r.as_dict() for r in records if r is not None]
    data: dict[str, Any] = {"rolls": made}
    if len(made) == 1:
        data["roll"] = made[0]
    return data


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def change_tension(state: dict[str, Any], by: int) -> str:
    """Move Tension by ``by`` (never below 0); a Rival trap holds it at 0 for good (p.144).
    Returns the words for the log."""
    track = state["tension"]
    if track["locked"]:
        return "Tension stays at 0 (Rival trap)."
    before = track["value"]
    track["value"] = max(0, before + by)
    return f"Tension {before} -> {track['value']} ({signed(by)})."
