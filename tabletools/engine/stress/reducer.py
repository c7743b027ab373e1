"""Stress dice: the reducer, ``apply(state, action, dice) -> (new_state, events)``, dispatching each action type to its handler."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from live.engine.tracker import (
    Action,
    Event,
    TrackerError,
)
from rules.engine.dice import Dice
from rules.engine.state import copy_state
from tabletools.engine.stress.roll import _check, _panic_roll, _push
from tabletools.engine.stress.round_actions import (
    _add_condition,
    _add_item,
    _aim,
    _help,
    _remove_condition,
    _remove_item,
    _set_broken,
    _stress_down,
    _stress_up,
    _take_action,
    _withdraw_help,
)
from tabletools.engine.stress.setup import (
    _add_character,
    _edit_character,
    _new_act,
    _new_round,
    _remove_character,
    _set_panic_lasts,
    _set_setting,
    _turn_passes,
)


def apply(state: dict[str, Any], action: Action, dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice) -> (new_state, events)``. Raises
    :class:`TrackerError` (or :class:`NotYours`) naming the payload field, and changes nothing,
    when the action is refused."""
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise TrackerError(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", field="type")
    new = copy_state(state)
    events = handler(new, action, dice)
    return new, events


_HANDLERS: dict[str, Callable[[dict[str, Any], Action, Dice], list[Event]]] = {
    "add_character": _add_character,
    "edit_character": _edit_character,
    "remove_character": _remove_character,
    "set_setting": _set_setting,
    "set_panic_lasts": _set_panic_lasts,
    "new_round": _new_round,
    "turn_passes": _turn_passes,
    "new_act": _new_act,
    "check": _check,
    "push": _push,
    "panic_roll": _panic_roll,
    "help": _help,
    "withdraw_help": _withdraw_help,
    "aim": _aim,
    "take_action": _take_action,
    "stress_up": _stress_up,
    "stress_down": _stress_down,
    "add_condition": _add_condition,
    "remove_condition": _remove_condition,
    "add_item": _add_item,
    "remove_item": _remove_item,
    "set_broken": _set_broken,
}
