"""The Five Parsecs battle tracker's names and small helpers: phases, AI types, option flags;
errors, rolls, typed faces, whole numbers, choices and Panic ranges read from a payload or
set-up.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from live.engine.tracker import (
    Action,
    TrackerError,
    payload_faces,
)
from rules.engine.dice import Dice, DiceError, Keep, RollRecord
from rules.engine.state import copy_state
from rules.engine.tables import Entry, RangeTable

SOURCE = "Five Parsecs Compendium pp.30-49, 99-100"
PHASES: tuple[str, ...] = ("setup", "start", "quick", "enemy", "slow", "end", "over")
PHASE_NAMES: dict[str, str] = {
    "setup": "Set-up (Seize the Initiative)",
    "start": "Start of round (Reactions)",
    "quick": "Quick Action phase",
    "enemy": "Enemy Action phase",
    "slow": "Slow Action phase",
    "end": "End phase",
    "over": "Battle over",
}
AI_TYPES: tuple[str, ...] = ("aggressive", "cautious", "defensive", "rampage", "tactical", "beast")
"""Main AI types, as the columns of the deployment and escalation tables (pp.44, 46)."""
AI_VARIATION_TYPES: tuple[str, ...] = ("cautious", "aggressive", "tactical", "defensive")
"""AI types with a variation table (pp.42-43); Beast and Rampage act as usual."""
RANKS: tuple[str, ...] = ("basic", "specialist", "lieutenant", "captain", "unique")
KINDS: tuple[str, ...] = ("humanoid", "cybernetic", "beasts")
STATUSES: tuple[str, ...] = ("active", "casualty", "fled")
OPTION_FLAGS: tuple[str, ...] = (
    "casualty_tables",
    "critical_hits",
    "escalating_battles",
    "escalation_variation",
    "deployment_variables",
    "ai_variations",
    "dramatic_combat",
    "movement_all_over",
    "paying_by_the_hour",
    "actually_specialized",
    "armored_leaders",
    "veteran",
    "better_leadership",
    "strength_adjusted_enemies",
    "elite_level_enemies",
)
TIME_OBJECTIVES: tuple[str, ...] = ("Defend", "Fight Off")
#: Seize the Initiative against Psi-hunter Rivals (p.21).
PSI_HUNTER_SEIZE = -2
"""Objectives still winnable after the time limit (p.34); also in difficulty-toggles data."""
ESCALATION_EDGE: dict[str, str] = {"1-2": "left", "3-4": "right", "5-6": "enemy"}


# -- small helpers --------------------------------------------------------------------------------------


def _err(message: str, field: str | None = None) -> TrackerError:
    return TrackerError(message, field=field)


def _rolls(*records: RollRecord) -> dict[str, Any]:
    """Event data for the rolls: every record under ``rolls``; a lone one also under ``roll`` (the room log shows it)."""
    data: dict[str, Any] = {"rolls": [r.as_dict() for r in records]}
    if len(records) == 1:
        data["roll"] = data["rolls"][0]
    return data


def _roll(dice: Dice, notation: str, reason: str, faces: Sequence[int] | None, *, keep: Keep = Keep.SUM) -> RollRecord:
    """Roll ``notation``, or record the typed ``faces``. Raises :class:`TrackerError` for bad faces."""
    try:
        return dice.roll_or_enter(notation, reason, faces=list(faces) if faces else None, keep=keep)
    except DiceError as exc:
        raise _err(str(exc), "faces") from None


def _planned(raw: Any) -> dict[str, int | None]:
    """Rolls the set-up card already made: ``deployment_face`` (the D100 of Deployment Variables,
    1-100) and ``time_limit`` (the round Paying us by the Hour ends, 1-30); each may be absent."""
    if raw in (None, ""):
        return {"deployment_face": None, "time_limit": None}
    if not isinstance(raw, Mapping):
        raise _err("planned must be {deployment_face, time_limit}: rolls made on the set-up card.", "planned")
    face, limit = raw.get("deployment_face"), raw.get("time_limit")
    return {
        "deployment_face": None if face in (None, "") else _int(face, "planned.deployment_face", 1, 100),
        "time_limit": None if limit in (None, "") else _int(limit, "planned.time_limit", 1, 30),
    }


def _face(action: Action, key: str, sides: int = 6) -> int | None:
    """One typed die face (1..``sides``) under ``key``, or ``None`` when absent or blank."""
    got = payload_faces(action, key, 1, sides)
    return None if got is None else got[0]


def _take(faces: list[int], count: int) -> list[int] | None:
    """The next ``count`` typed faces, or ``None`` when none are left (the app rolls)."""
    if len(faces) < count:
        faces.clear()
        return None
    got = faces[:count]
    del faces[:count]
    return got


def _table_row(table: RangeTable, key: str, value: str) -> Entry:
    for entry in table.entries:
        if entry.data.get(key) == value:
            return entry
    raise _err(f"Table {table.slug} has no row with {key} {value!r}.", "tables")  # pragma: no cover - shipped


def _need(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise _err(f"The {slug} table is not loaded: run `manage.py load_tables`.", "tables") from None


def _edge(mapping: Mapping[str, str], face: int) -> str:
    for span, edge in mapping.items():
        low, _, high = span.partition("-")
        if int(low) <= face <= int(high or low):
            return edge
    return "enemy"  # pragma: no cover - the maps cover 1-6


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


_ATOMS: frozenset[type] = frozenset({str, int, bool, float, type(None)})


def _copy_state(value: Any) -> Any:
    """A deep copy of a JSON-ready state (:func:`rules.engine.state.copy_state`)."""
    return copy_state(value)


def _int(raw: Any, key: str, low: int, high: int, default: int | None = None) -> int:
    if raw is None or raw == "":
        if default is None:
            raise _err(f"{key} is required: a whole number from {low} to {high}.", key)
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise _err(f"{key} must be a whole number from {low} to {high}; got {raw!r}.", key) from None
    if not low <= value <= high:
        raise _err(f"{key} must be from {low} to {high}; got {value}.", key)
    return value


def _choice(raw: Any, key: str, allowed: Sequence[str], default: str | None = None) -> str:
    value = default if raw is None or raw == "" else str(raw).strip().lower()
    if value is None or value not in allowed:
        raise _err(f"{key} must be one of {', '.join(allowed)}; got {raw!r}.", key)
    return value


def _panic(raw: Any, key: str) -> int:
    """A Panic range as its top face: "1-2" -> 2, "1" -> 1, 0 / "0" / "Fearless" -> 0."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    else:
        text = str(raw if raw is not None else "").strip().lower()
        if text in ("", "fearless", "0", "-", "none"):
            return 0
        low, _, high = text.partition("-")
        try:
            value = int(high or low)
            if high and int(low) != 1:
                raise ValueError
        except ValueError:
            raise _err(f"{key} must be a Panic range such as 1-2, 1 or 0 (Fearless); got {raw!r}.", key) from None
    if not 0 <= value <= 6:
        raise _err(f"{key} must be a Panic range from 0 (Fearless) to 1-6; got {raw!r}.", key)
    return value


def _panic_text(value: int) -> str:
    return "Fearless" if value <= 0 else ("1" if value == 1 else f"1-{value}")
