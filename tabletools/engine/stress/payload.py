"""Stress dice: reading an action's payload, finding characters and skills, and the words of a result (Stress dice skill checks, p.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from live.engine.tracker import (
    Action,
    NotYours,
    Role,
    TrackerError,
)
from rules.engine.dice import Dice, DiceError, Keep, RollRecord
from tabletools.engine.stress.constants import CAPACITY_PER_STRENGTH, SKILLS

# -- payload helpers ------------------------------------------------------------------------


def _text(action: Action, key: str, *, limit: int = 60, required: bool = True, what: str = "") -> str:
    value = str(action.payload.get(key, "") or "").strip()
    if required and not value:
        raise TrackerError(f"{key} is required: {what or key}.", field=key)
    return value[:limit]


def _choice(action: Action, key: str, allowed: Sequence[str], *, default: str | None = None) -> str:
    raw = action.payload.get(key)
    value = default if raw is None or raw == "" else str(raw).strip().lower().replace(" ", "_")
    if value is None or value not in allowed:
        shown = "nothing" if raw is None or raw == "" else repr(raw)
        raise TrackerError(f"{key} must be one of {', '.join(a for a in allowed if a) or 'nothing'}; got {shown}.", field=key)
    return value


def _pool(dice: Dice, count: int, faces: list[int] | None, reason: str) -> RollRecord | None:
    """Roll (or record typed faces for) ``count`` separate D6; ``None`` for no dice."""
    if count == 0:
        return None
    if faces is not None:
        try:
            return Dice.enter(f"{count}D6", faces, reason, keep=Keep.SEPARATE)
        except DiceError as exc:  # pragma: no cover - _faces checked count and range
            raise TrackerError(str(exc), field="faces") from None
    return dice.separate(count, 6, reason)


def _character(state: dict[str, Any], char_id: Any, *, field: str = "id") -> dict[str, Any]:
    for char in state["characters"]:
        if char["id"] == str(char_id):
            return char  # type: ignore[no-any-return]
    known = ", ".join(f"{c['id']} ({c['name']})" for c in state["characters"]) or "none yet"
    raise TrackerError(f"No character {char_id!r}; characters: {known}.", field=field)


def _mine(action: Action, char: Mapping[str, Any]) -> None:
    """Refuse unless the actor is the owner or plays ``char``."""
    if action.role == Role.VIEWER or (action.role == Role.PLAYER and char["owner"] != action.actor):
        raise NotYours(f"{char['name']} is not one of your characters.")


def _skill_key(action: Action, key: str = "skill", default: str | None = None) -> str:
    raw = action.payload.get(key, default)
    value = str(raw or "").strip().lower().replace(" ", "_")
    if value not in SKILLS:
        names = ", ".join(name for name, _ in SKILLS.values())
        raise TrackerError(f"{key} must be one of {names}; got {raw!r}.", field=key)
    return value


def _skill(char: Mapping[str, Any], key: str) -> dict[str, Any]:
    for skill in char["skills"]:
        if skill["key"] == key:
            return skill  # type: ignore[no-any-return]
    raise TrackerError(f"No skill {key!r}.", field="skill")  # pragma: no cover - every sheet has all twelve


def _refresh_load(char: dict[str, Any]) -> None:
    """Carried load in regular items against twice Strength (p.1)."""
    char["load"] = _number(sum(item["slots"] for item in char["items"]))
    char["capacity"] = CAPACITY_PER_STRENGTH * int(char["attributes"]["strength"])
    char["over_encumbered"] = char["load"] > char["capacity"]


def _number(value: float) -> int | float:
    """Whole numbers as ``int`` so screens show 2, not 2.0."""
    return int(value) if float(value).is_integer() else float(value)


def _lasting(char: Mapping[str, Any]) -> bool:
    return char["panic"] is not None


def _spend(char: dict[str, Any], kind: str) -> str:
    """Use the slow or fast action (block: fast if unused, else slow); returns what was used, or
    ``free``. Raises :class:`TrackerError` (field ``action``) when it is already used."""
    if kind == "free":
        return "free"
    if kind == "block":
        if not char["fast_used"]:
            kind = "fast"
        elif not char["slow_used"]:
            kind = "slow"
        else:
            raise TrackerError(f"{char['name']} has used both actions this round and cannot block.", field="action")
    if char[f"{kind}_used"]:
        raise TrackerError(f"{char['name']} has already used their {kind} action this round.", field="action")
    char[f"{kind}_used"] = True
    return kind


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"-{-n}"


def _breakdown(parts: Sequence[tuple[str, int]]) -> str:
    """``Agility 3 + Ranged Combat 2 + aim 2 - Medium range 1``."""
    words = []
    for index, (label, n) in enumerate(parts):
        term = f"{label} {abs(n)}" if n else label
        words.append(term if index == 0 else f"{'+' if n >= 0 else '-'} {term}")
    return " ".join(words)


def _faces_text(faces: Sequence[int]) -> str:
    return ", ".join(map(str, faces)) if faces else "none"


def _sixes_text(n: int) -> str:
    return "no 6" if n == 0 else ("one 6" if n == 1 else f"{n} sixes")
