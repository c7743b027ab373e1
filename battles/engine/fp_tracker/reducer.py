"""The reducer ``apply(state, action, dice, tables)``: its handlers by action type, and the
battle's outcome for the post-battle sequence.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from battles.engine import fp_combat
from battles.engine.fp_tracker import grid
from battles.engine.fp_tracker.base import TIME_OBJECTIVES, _copy_state, _err
from battles.engine.fp_tracker.combat import _adjust, _hazard_hit, _resolve
from battles.engine.fp_tracker.connection import summary as connection_summary
from battles.engine.fp_tracker.end_round import _end_battle
from battles.engine.fp_tracker.flow import (
    _act,
    _assign_reaction,
    _enemy_act,
    _next_phase,
    _objective_reached,
    _roll_reactions,
    _seize,
    _set_player,
)
from battles.engine.fp_tracker.lookups import _refresh
from battles.engine.fp_tracker.psionics import _psionic, _psionic_strain, psionic_uses
from live.engine.tracker import (
    Action,
    Event,
)
from rules.engine.dice import Dice, DiceError
from rules.engine.tables import RangeTable, TableError

# -- the reducer -------------------------------------------------------------------------------------------


Handler = Callable[[dict[str, Any], Action, Dice, Mapping[str, RangeTable]], list[Event]]


def apply(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice, tables) -> (new_state, events)``.

    ``tables`` are the Five Parsecs rule tables by slug. Raises :class:`TrackerError` (or
    :class:`NotYours`) naming the payload field, and changes nothing, when the action is refused.
    The same state, action and dice seed always give the same result (undo replays the log).
    """
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise _err(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", "type")
    if state.get("phase") == "over" and action.type not in ("adjust", "set_player"):
        raise _err("The battle is over; only corrections (adjust) are allowed.", "type")
    new: dict[str, Any] = _copy_state(state)
    try:
        events = handler(new, action, dice, tables)
    except fp_combat.CombatError as exc:
        message, field = exc.in_payload_terms()
        raise _err(message, field or "faces") from None
    except (DiceError, TableError) as exc:
        raise _err(str(exc), "faces") from None
    _refresh(new, tables)
    grid.refresh(new)
    if events:
        new["last"] = {"type": events[-1].type, "text": " ".join(e.text for e in events)}
    return new, events


# -- outcome -----------------------------------------------------------------------------------------------


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The battle summed up for the post-battle sequence (core rulebook; Compendium p.100).

    ``held_field`` (None while undecided), ``casualties`` (crew names down as casualties),
    ``enemies_killed`` (enemy casualties), ``enemies_fled``, ``rounds``, ``objective_possible``
    (False when the time limit ran out on an objective other than Defend or Fight Off), and
    ``escalations``, ``psionic_uses`` (Psionic Actions the crew took, p.20); in a data cache
    battle (p.79) also ``data_cache`` (its score) and ``won`` (the score reached its target);
    with a Connection's round limit (pp.82-84) ``connection_in_time``. Wounded, Damaged and Bleeding end with the battle (p.100)."""
    objective = str(state.get("objective") or "")
    return {
        "held_field": state["held_field"],
        "casualties": [f["name"] for f in state["crew"] if f["status"] == "casualty"],
        "enemies_killed": sum(1 for f in state["enemies"] if f["status"] == "casualty"),
        "enemies_fled": sum(1 for f in state["enemies"] if f["status"] == "fled"),
        "rounds": state["round"],
        "objective": objective,
        "objective_possible": not state["time_up"] or objective in TIME_OBJECTIVES,
        "escalations": list(state["escalation"]["seen"]),
        "deployment": state["deployment"]["name"] if state["deployment"] else None,
        "psionic_uses": psionic_uses(state),
        **connection_summary(state),
        # The Quest data cache battle (p.79) is won by leaving once the score reached its target.
        **(
            {"data_cache": dict(state["data_cache"]), "won": bool(state["data_cache"]["reached"])}
            if state.get("data_cache")
            else {}
        ),
    }


_HANDLERS: dict[str, Handler] = {
    "seize": _seize,
    "set_player": _set_player,
    "next_phase": _next_phase,
    "roll_reactions": _roll_reactions,
    "assign_reaction": _assign_reaction,
    "act": _act,
    "enemy_act": _enemy_act,
    "objective_reached": _objective_reached,
    "end_battle": _end_battle,
    "adjust": _adjust,
    "resolve": _resolve,
    "psionic": _psionic,
    "psionic_strain": _psionic_strain,
    "hazard_hit": _hazard_hit,
    "grid_place": grid._place,
    "grid_move": grid._move,
}
