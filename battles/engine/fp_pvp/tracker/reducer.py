"""The live PvP battle's reducer: each action type's handler, :func:`apply` and the result for
each campaign (:func:`outcome`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_pvp.setup import SIDES
from battles.engine.fp_pvp.tracker.base import COOP, _err, _is_coop, _other
from battles.engine.fp_pvp.tracker.combat import _resolve
from battles.engine.fp_pvp.tracker.ending import _agree_end, _next_phase
from battles.engine.fp_pvp.tracker.rounds import _activate, _assign, _deploy, _roll_reactions, _spend
from battles.engine.fp_pvp.tracker.table import _adjust, _objective, _retreat, _seat_referee, _third_party_gone, _unseat_referee
from live.engine.tracker import (
    Action,
    Event,
    reaction_pick,
)
from rules.engine.dice import Dice
from rules.engine.state import copy_state
from rules.engine.tables import RangeTable

HANDLERS = {
    "deploy": _deploy,
    "roll_reactions": _roll_reactions,
    "assign_reaction": _assign,
    "activate": _activate,
    "spend_point": _spend,
    "resolve": _resolve,
    "next_phase": _next_phase,
    "agree_end": _agree_end,
    "third_party_gone": _third_party_gone,
    "seat_referee": _seat_referee,
    "unseat_referee": _unseat_referee,
    "retreat": _retreat,
    "adjust": _adjust,
    "objective_done": _objective,
}


def apply(
    state: Mapping[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """Apply one action (module docstring) to a copy of ``state``; returns the new state and its
    events. Raises :class:`TrackerError` (its subclass ``NotYours`` for a player acting out of
    their seat) naming the payload field; nothing changes then."""
    handler = HANDLERS.get(action.type)
    if handler is None:
        raise _err(f"Unknown action {action.type!r}; choose one of {', '.join(HANDLERS)}.", "type")
    if state["phase"] == "over" and action.type != "adjust":
        raise _err("The battle is over.", "type")
    new: dict[str, Any] = copy_state(dict(state))
    events = handler(new, action, dice, tables)
    new["last"] = {"type": events[-1].type, "text": events[-1].text} if events else new["last"]
    for side in SIDES:
        faces = new["sides"][side]["reaction_dice"]
        new["sides"][side]["pick"] = (
            None if faces is None else reaction_pick(faces, [f for f in new["figures"] if f["side"] == side])
        )
    return new, events


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """Each side's result, for its own campaign (p.37): ``{side: {"won", "held_field",
    "objective_done", "casualties": [{"name", "ref"}], "retreated": [...], "loot_rolls",
    "rivals": 0, "battlefield_finds": False}}`` plus ``rounds``. A side wins by Holding the
    Field; pay is normal with the win bonus for a completed objective; 1 Loot roll each, +1 for
    facing a Power Rating of 5 or more; PvP never makes Rivals."""
    result: dict[str, Any] = {"rounds": state["round"], "held_field": state["held_field"]}
    if _is_coop(state):
        return {**result, "mode": COOP, **{side: _coop_outcome(state, side) for side in SIDES}}
    for side in SIDES:
        other = state["sides"][_other(side)]
        figures = [f for f in state["figures"] if f["side"] == side]
        result[side] = {
            "won": state["held_field"] == side,
            "held_field": state["held_field"] == side,
            "objective_done": state["sides"][side]["objective_done"],
            "casualties": [{"name": f["name"], "ref": f["ref"]} for f in figures if f["status"] == "casualty"],
            "retreated": [{"name": f["name"], "ref": f["ref"]} for f in figures if f["status"] == "retreated"],
            "loot_rolls": 1 + (1 if other["power_rating"] >= 5 else 0),
            "rivals": 0,
            "battlefield_finds": False,
        }
    return result


def _coop_outcome(state: Mapping[str, Any], side: str) -> dict[str, Any]:
    """One crew's aftermath of a co-op battle (p.41): both crews won when either Holds the Field;
    +1 to its credits roll, its own Battlefield Finds, its Loot roll and the shared one, and the
    Invasion check with +1 per wave faced that had the Invasion Threat trait."""
    held = state["held_field"] == "both"
    third = state["third_party"] or {}
    faced = [w for w in third.get("waves") or () if int(w["wave"]) in third.get("arrived", ())]
    invasion = sum(1 for w in faced if w.get("invasion"))
    figures = [f for f in state["figures"] if f["side"] == side]
    return {
        "won": held,
        "held_field": held,
        "objective_done": held,
        "casualties": [{"name": f["name"], "ref": f["ref"]} for f in figures if f["status"] == "casualty"],
        "retreated": [{"name": f["name"], "ref": f["ref"]} for f in figures if f["status"] == "retreated"],
        "loot_rolls": 1 if held else 0,
        "shared_loot": 1 if held else 0,
        "pay_bonus": 1,
        "battlefield_finds": held,
        "invasion": {"check": invasion > 0, "modifier": invasion},
        "waves_faced": [int(w["wave"]) for w in faced],
    }
