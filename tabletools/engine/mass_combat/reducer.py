"""Mass combat: the reducer, ``apply(state, action, dice) -> (new_state, events)``, dispatching each action type to its handler."""

from __future__ import annotations

from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice
from rules.engine.state import copy_state
from tabletools.engine.mass_combat.combat import _assist, _combat_roll, _medic_save, _press, _retreat, _start_combat
from tabletools.engine.mass_combat.constants import Handler, State
from tabletools.engine.mass_combat.rounds import (
    _advance,
    _choose_priority,
    _hero_retreat,
    _priority_check,
    _reposition,
    _trapped_hero,
)
from tabletools.engine.mass_combat.setup import (
    _add_defence,
    _add_engine,
    _add_hero,
    _add_squad,
    _place,
    _remove,
    _revive_hero,
    _set_hero_owner,
    _set_loss_order,
    _set_setting,
    _set_side,
    _set_surges,
)
from tabletools.engine.mass_combat.siege import _barrier_save, _fire_engine
from tabletools.engine.mass_combat.squads import _hero_check, _move, _second_move, _skirmish_move


def apply(state: State, action: Action, dice: Dice) -> tuple[State, list[Event]]:
    """The reducer: ``(state, action, dice) -> (new_state, events)``; ``state`` is not changed.

    Raises :class:`TrackerError` (or :class:`NotYours`) and changes nothing when the action is
    refused; the error's ``field`` names the payload key at fault. Source: Quickstart Rules for
    Mass Combat, p.1.
    """
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise TrackerError(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", field="type")
    new = copy_state(state)
    events = handler(new, action, dice)
    rolled = [e for e in events if "roll" in e.data]
    if rolled:
        new["last"] = [{"text": e.text, "roll": dict(e.data["roll"])} for e in rolled]
    return new, events


_HANDLERS: dict[str, Handler] = {
    "set_side": _set_side,
    "set_hero_owner": _set_hero_owner,
    "add_squad": _add_squad,
    "add_hero": _add_hero,
    "add_engine": _add_engine,
    "add_defence": _add_defence,
    "remove": _remove,
    "set_setting": _set_setting,
    "set_loss_order": _set_loss_order,
    "place": _place,
    "set_surges": _set_surges,
    "revive_hero": _revive_hero,
    "advance": _advance,
    "priority_check": _priority_check,
    "choose_priority": _choose_priority,
    "trapped_hero": _trapped_hero,
    "hero_retreat": _hero_retreat,
    "reposition": _reposition,
    "move": _move,
    "second_move": _second_move,
    "skirmish_move": _skirmish_move,
    "hero_check": _hero_check,
    "start_combat": _start_combat,
    "assist": _assist,
    "combat_roll": _combat_roll,
    "medic_save": _medic_save,
    "press": _press,
    "retreat": _retreat,
    "fire_engine": _fire_engine,
    "barrier_save": _barrier_save,
}
