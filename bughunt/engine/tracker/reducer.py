"""The mission tracker's reducer: ``apply(state, action, dice, tables)`` dispatches on
``action.type`` (Bug Hunt pp.184-201)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bughunt.engine import combat
from bughunt.engine import contacts as cx
from bughunt.engine.tracker import turns
from bughunt.engine.tracker.base import _contact_error, _refresh, pending_prompt
from bughunt.engine.tracker.enemies import (
    _add_contact,
    _adjust_enemy,
    _caller,
    _detect,
    _move_contacts,
    _note_contact,
    _remove_contact,
)
from bughunt.engine.tracker.fights import _brawl, _combat_error, _drop_ship_fire, _hit, _lancer, _shoot, _spitter
from bughunt.engine.tracker.places import (
    _activate,
    _beacon,
    _close_spawn_point,
    _drop_package,
    _hack,
    _investigate,
    _investigate_signal,
    _pick_up,
    _reroll_reaction,
    _scout,
    _set_objective,
    _survey,
)
from bughunt.engine.tracker.rounds import (
    _act,
    _assign_reaction,
    _beep_sir,
    _hold,
    _move,
    _next_phase,
    _roll_reactions,
    _set_formation,
    _set_player,
)
from bughunt.engine.tracker.troopers import (
    _adjust,
    _clear_malfunction,
    _end_mission,
    _evacuate,
    _exit_edge,
    _movie_magic,
    _request_evac,
)
from live.engine.tracker import (
    Action,
    Event,
    Role,
    TrackerError,
    payload_flag,
)
from rules.engine.dice import Dice, DiceError
from rules.engine.state import copy_state
from rules.engine.tables import RangeTable, TableError

# -- the reducer ----------------------------------------------------------------------------------------


def apply(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice, tables) -> (new_state, events)``.

    Raises :class:`TrackerError` (or :class:`NotYours`) naming the payload field, and changes
    nothing, when the action is refused. ``tables`` are the ``bh-*`` rule tables by slug.

    ``typed`` on: the action runs on the player's own dice, asked one step at a time: the new
    state's ``pending`` says which die is needed next (``{"type", "payload", "actor", "role",
    "faces" typed so far, "count", "sides", "reason", "label"}``); ``roll_die`` {faces} gives
    exactly that many faces, ``cancel_roll`` drops the action. While a roll is pending every
    other action is refused. ``override`` (owner only, a reason) skips the phase and activation
    checks of :mod:`bughunt.engine.tracker.turns` and logs the reason (pp.177, 193, 198).
    """
    if action.type in ("roll_die", "cancel_roll"):
        return _answer(state, action, tables)
    pending = state.get("pending")
    if pending:
        raise TrackerError(f"Waiting for dice: {pending_prompt(pending)} Type them, or cancel that roll first.", field="type")
    if payload_flag(action, "typed"):
        return _typed(state, action, [], tables)
    return _run(state, action, dice, tables)


def _run(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise TrackerError(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", field="type")
    if state.get("phase") == "over" and action.type not in ("set_objective", "adjust"):
        raise TrackerError("The mission is over; only corrections (set_objective, adjust) are allowed.", field="type")
    reason = turns.override_reason(action)
    new = _copy(state)
    try:
        events = handler(new, action, dice, tables)
    except cx.ContactError as exc:
        raise _contact_error(exc) from None
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    except (DiceError, TableError) as exc:
        raise TrackerError(str(exc), field="faces") from None
    if reason:
        events.append(Event("override", f"Referee override ({action.type.replace('_', ' ')}): {reason}.", {"override": reason}))
    _refresh(new)
    if events:
        new["last"] = {"type": events[-1].type, "text": " ".join(e.text for e in events)}
    return new, events


_LABELS = {"shoot": "Shooting", "brawl": "Brawl", "hit": "Hit", "drop_ship_fire": "Drop ship fire"}


def _typed(
    state: dict[str, Any], action: Action, faces: list[int], tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """Run ``action`` on the typed ``faces``; if it needs another die, store what it needs."""
    try:
        new, events = _run(state, action, turns.TypedDice(faces), tables)
    except turns.FacesNeeded as need:
        new = _copy(state)
        new["pending"] = {
            "type": action.type,
            "payload": {k: v for k, v in action.payload.items() if k != "typed"},
            "actor": action.actor,
            "role": str(action.role),
            "faces": list(faces),
            "count": need.count,
            "sides": need.sides,
            "reason": need.reason,
            "label": _LABELS.get(action.type, action.type.replace("_", " ").capitalize()),
        }
        _refresh(new)
        text = pending_prompt(new["pending"])
        new["last"] = {"type": "dice_needed", "text": text}
        return new, [Event("dice_needed", text, {"count": need.count, "sides": need.sides, "typed": list(faces)})]
    new["pending"] = None
    return new, events


def _answer(state: dict[str, Any], action: Action, tables: Mapping[str, RangeTable]) -> tuple[dict[str, Any], list[Event]]:
    """``roll_die`` {faces}: the next faces of the pending roll; ``cancel_roll``: drop it."""
    pending = state.get("pending")
    if not pending:
        raise TrackerError("No roll is waiting for dice.", field="type")
    turns.may_answer(action, pending)
    base = _copy(state)
    base["pending"] = None
    if action.type == "cancel_roll":
        _refresh(base)
        text = f"{pending['label']} called off before all its dice were typed: nothing happened."
        base["last"] = {"type": "roll_cancelled", "text": text}
        return base, [Event("roll_cancelled", text, {})]
    faces = [*pending["faces"], *turns.pending_faces(action, pending)]
    original = Action(pending["type"], pending["payload"], actor=pending["actor"], role=Role(pending["role"]))
    return _typed(base, original, faces, tables)


def _copy(state: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a JSON-ready state (:func:`rules.engine.state.copy_state`)."""
    return copy_state(state)


Handler = Callable[[dict[str, Any], Action, Dice, Mapping[str, RangeTable]], list[Event]]


_HANDLERS: dict[str, Handler] = {
    "beep_sir": _beep_sir,
    "set_formation": _set_formation,
    "set_player": _set_player,
    "roll_reactions": _roll_reactions,
    "assign_reaction": _assign_reaction,
    "hold": _hold,
    "move": _move,
    "act": _act,
    "next_phase": _next_phase,
    "end_mission": _end_mission,
    "move_contacts": _move_contacts,
    "detect": _detect,
    "add_contact": _add_contact,
    "remove_contact": _remove_contact,
    "note_contact": _note_contact,
    "adjust_enemy": _adjust_enemy,
    "caller": _caller,
    "close_spawn_point": _close_spawn_point,
    "investigate": _investigate,
    "activate": _activate,
    "investigate_signal": _investigate_signal,
    "scout": _scout,
    "hack": _hack,
    "pick_up": _pick_up,
    "drop_package": _drop_package,
    "beacon": _beacon,
    "set_objective": _set_objective,
    "reroll_reaction": _reroll_reaction,
    "survey": _survey,
    "request_evac": _request_evac,
    "evacuate": _evacuate,
    "exit_edge": _exit_edge,
    "adjust": _adjust,
    "clear_malfunction": _clear_malfunction,
    "movie_magic": _movie_magic,
    "shoot": _shoot,
    "brawl": _brawl,
    "hit": _hit,
    "spitter": _spitter,
    "lancer": _lancer,
    "drop_ship_fire": _drop_ship_fire,
}
