"""What every live tracker shares: actions, events, refusals and replay.

A tracker is a reducer ``apply(state, action, dice) -> (new_state, events)`` over a JSON-ready
``dict`` state. The stored log of actions, each with the seed of the dice it used, replays to
the same state: undo is replay without the last action.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.engine.dice import Dice
from rules.engine.errors import RuleError


class Role(StrEnum):
    """Roles at a shared table: the owner runs it, players act on their own figures, viewers read."""

    OWNER = "owner"
    PLAYER = "player"
    VIEWER = "viewer"


class TrackerError(RuleError):
    """An action the rules refuse. ``field`` names the payload key at fault, when there is one."""


class NotYours(TrackerError):
    """The actor's role does not allow this action."""


@dataclass(frozen=True)
class Action:
    """One action: its ``type``, its ``payload`` and who made it (user id as text, and role)."""

    type: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    actor: str = ""
    role: Role = Role.OWNER


@dataclass(frozen=True)
class Event:
    """Something that happened, in words for the log, with data for screens (roll records under ``roll``)."""

    type: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text, "data": dict(self.data)}


Reducer = Callable[[dict[str, Any], Action, Dice], tuple[dict[str, Any], list[Event]]]


def replay(initial: Mapping[str, Any], log: Iterable[tuple[Action, int]], reducer: Reducer) -> dict[str, Any]:
    """Apply each ``(action, seed)`` of ``log`` to ``initial`` in order; returns the final state.

    Raises :class:`TrackerError` if a logged action no longer applies (a corrupt log).
    """
    state = dict(initial)
    for action, seed in log:
        state, _ = reducer(state, action, Dice(seed=seed))
    return state


def require_owner(action: Action) -> None:
    """Refuse unless the actor is the owner (the referee)."""
    if action.role != Role.OWNER:
        raise NotYours(f"Only the table's owner can {action.type.replace('_', ' ')}.")


def payload_int(action: Action, key: str, *, low: int, high: int, default: int | None = None) -> int:
    """An integer from the payload within ``low..high``; the error names the key and the range."""
    raw = action.payload.get(key, default)
    if raw is None:
        raise TrackerError(f"{key} is required: a whole number from {low} to {high}.", field=key)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise TrackerError(f"{key} must be a whole number from {low} to {high}; got {raw!r}.", field=key) from None
    if not low <= value <= high:
        raise TrackerError(f"{key} must be from {low} to {high}; got {value}.", field=key)
    return value


def words(raw: Any) -> list[str]:
    """A payload value as a list of words: a list, or text separated by commas or spaces
    (HTML forms send one string). Empty for ``None`` or ``""``."""
    if raw is None or raw == "":
        return []
    items = raw if isinstance(raw, list | tuple) else [raw]
    return [part for item in items for part in str(item).replace(",", " ").split()]


def payload_words(action: Action, key: str) -> list[str]:
    """The payload's ``key`` as a list of words (see :func:`words`)."""
    return words(action.payload.get(key))


def payload_ints(action: Action, key: str) -> list[int]:
    """The payload's ``key`` as whole numbers (typed dice faces: ``[6, 3]`` or ``"6, 3"``).

    Raises :class:`TrackerError` naming the key when a part is not a whole number.
    """
    values: list[int] = []
    for part in payload_words(action, key):
        try:
            values.append(int(part))
        except ValueError:
            raise TrackerError(f"{key} must be whole numbers, one per die, such as 6, 3; got {part!r}.", field=key) from None
    return values


def flag_value(raw: Any, key: str) -> bool:
    """An on/off value (``on``/``off``, ``true``/``false``, ``1``/``0``, ``yes``/``no``, a bool;
    blank, ``none`` and ``None`` are off). Raises :class:`TrackerError` naming ``key`` for
    anything else."""
    if isinstance(raw, bool):
        return raw
    text = str(raw if raw is not None else "").strip().lower()
    if text in ("on", "true", "1", "yes"):
        return True
    if text in ("off", "false", "0", "no", "", "none"):
        return False
    raise TrackerError(f"{key} must be on or off; got {raw!r}.", field=key)


def payload_flag(action: Action, key: str, *, default: bool = False) -> bool:
    """An on/off value from the payload (``on``/``off``, ``true``/``false``, ``1``/``0``,
    ``yes``/``no`` or a bool); ``default`` when absent or blank. Raises :class:`TrackerError`
    naming the key for anything else."""
    raw = action.payload.get(key)
    if raw is None or raw == "":
        return default
    if isinstance(raw, bool):
        return raw
    value = str(raw).strip().lower()
    if value in ("on", "true", "1", "yes"):
        return True
    if value in ("off", "false", "0", "no"):
        return False
    raise TrackerError(f"{key} must be on or off; got {raw!r}.", field=key)


def payload_faces(action: Action, key: str, count: int, sides: int = 6) -> list[int] | None:
    """``count`` typed faces of a D``sides`` under ``key`` (a list, or text like "6, 3 1");
    ``None`` when absent. Raises :class:`TrackerError` naming the key for a wrong count or face."""
    values = payload_ints(action, key)
    if not values:
        return None
    if len(values) != count:
        raise TrackerError(f"{key} needs {count} D{sides} face(s); got {len(values)}.", field=key)
    if any(not 1 <= v <= sides for v in values):
        raise TrackerError(f"{key} must be D{sides} faces from 1 to {sides}; got {', '.join(map(str, values))}.", field=key)
    return values


def reaction_pick(faces: Sequence[int], holders: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What a Reaction die picker offers: ``{"dice": [{"die": 1-based, "face", "holder": id or
    None, "holder_name"}], "first_free": 1-based number of the first die nobody holds, or None}``.

    ``holders`` are the figures (or units) with ``id``, ``name`` and ``die`` (0-based or None)."""
    held = {h["die"]: h for h in holders if h.get("die") is not None}
    dice = [
        {
            "die": i + 1,
            "face": face,
            "holder": held[i]["id"] if i in held else None,
            "holder_name": held[i]["name"] if i in held else "",
        }
        for i, face in enumerate(faces)
    ]
    free = [d["die"] for d in dice if d["holder"] is None]
    return {"dice": dice, "first_free": free[0] if free else None}
