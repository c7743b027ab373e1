"""Stress dice set-up actions (owner only): characters, settings, panic durations, rounds, turns and acts (Stress dice skill checks, p.1)."""

from __future__ import annotations

from typing import Any

from live.engine.tracker import (
    Action,
    Event,
    TrackerError,
    payload_flag,
    payload_int,
    require_owner,
)
from rules.engine.dice import Dice
from tabletools.engine.stress.constants import ATTRIBUTES, LASTS, SETTINGS, SKILLS
from tabletools.engine.stress.payload import _character, _choice, _lasting, _refresh_load, _signed, _text

# -- set-up ---------------------------------------------------------------------------------


def _sheet(char: dict[str, Any], action: Action, *, new: bool) -> None:
    """Set sheet fields present in the payload (all four attributes are required when ``new``)."""
    for key in ATTRIBUTES:
        if new or key in action.payload:
            char["attributes"][key] = payload_int(action, key, low=1, high=10)
    for skill in char["skills"]:
        if skill["key"] in action.payload:
            skill["level"] = payload_int(action, skill["key"], low=0, high=10)
    if "stress" in action.payload:
        char["stress"] = payload_int(action, "stress", low=0, high=20)
    if "android" in action.payload or new:
        char["android"] = payload_flag(action, "android")
    if "owner" in action.payload:
        owner = action.payload.get("owner")
        char["owner"] = None if owner in (None, "") else str(owner)
    if "signature" in action.payload:
        char["signature"] = _text(action, "signature", required=False)
    if "name" in action.payload and not new:
        char["name"] = _text(action, "name", what="the character's name")
    _refresh_load(char)


def _add_character(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    name = _text(action, "name", what="the character's name")
    char: dict[str, Any] = {
        "id": f"c{state['next_id']}",
        "name": name,
        "owner": None,
        "android": False,
        "attributes": dict.fromkeys(ATTRIBUTES, 1),
        "skills": [{"key": k, "name": n, "attribute": a, "level": 0} for k, (n, a) in SKILLS.items()],
        "stress": 0,
        "conditions": [],
        "items": [],
        "load": 0,
        "capacity": 2,
        "over_encumbered": False,
        "signature": "",
        "signature_used": False,
        "broken": False,
        "slow_used": False,
        "fast_used": False,
        "aimed": False,
        "helpers": [],
        "check": None,
        "pending_panic": None,
        "panic": None,
    }
    _sheet(char, action, new=True)
    state["next_id"] += 1
    state["characters"].append(char)
    kind = "android" if char["android"] else "character"
    return [Event("character_added", f"{name} joins as a {kind}.", {"id": char["id"]})]


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand every character ``player`` (a user id as text) plays back to the referee."""
    return [("edit_character", {"id": c["id"], "owner": ""}) for c in state["characters"] if c.get("owner") == player]


def _edit_character(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    char = _character(state, action.payload.get("id"))
    _sheet(char, action, new=False)
    return [Event("character_edited", f"{char['name']}'s sheet is updated.", {"id": char["id"]})]


def _remove_character(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    char = _character(state, action.payload.get("id"))
    state["characters"] = [c for c in state["characters"] if c["id"] != char["id"]]
    for other in state["characters"]:
        other["helpers"] = [h for h in other["helpers"] if h["id"] != char["id"]]
    return [Event("character_removed", f"{char['name']} leaves the table.", {"id": char["id"]})]


def _set_setting(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    name = _choice(action, "name", tuple(SETTINGS))
    low, high = SETTINGS[name]
    value = payload_int(action, "value", low=low, high=high)
    state["settings"][name] = value
    return [Event("setting_changed", f"Extreme range now changes base dice by {_signed(value)}.", {name: value})]


def _set_panic_lasts(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    char = _character(state, action.payload.get("id"))
    lasts = _choice(action, "lasts", tuple(LASTS))
    if not _lasting(char):
        raise TrackerError(f"{char['name']} has no panic effect to time.", field="id")
    if lasts == "immediate":
        char["panic"] = None
        return [Event("panic_ended", f"{char['name']}'s panic effect is over.", {"id": char["id"]})]
    char["panic"]["lasts"] = lasts
    return [Event("panic_lasts", f"{char['name']}'s panic effect {LASTS[lasts]}.", {"id": char["id"], "lasts": lasts})]


def _new_round(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Everyone gets their slow and fast action back; round-long panic effects end; unused
    help and open checks lapse."""
    require_owner(action)
    state["round"] += 1
    calmed = []
    for char in state["characters"]:
        char["slow_used"] = char["fast_used"] = False
        char["helpers"] = []
        char["check"] = None
        if char["panic"] is not None and char["panic"]["lasts"] == "round":
            char["panic"] = None
            calmed.append(char["name"])
    tail = f" Round-long panic ends for {', '.join(calmed)}." if calmed else ""
    return [Event("new_round", f"Round {state['round']}: every character has a slow and a fast action.{tail}", {})]


def _turn_passes(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    calmed = [c["name"] for c in state["characters"] if _lasting(c)]
    for char in state["characters"]:
        char["panic"] = None
    tail = f" Panic ends for {', '.join(calmed)}." if calmed else " Nobody was panicking."
    return [Event("turn_passed", f"A Turn (5-10 minutes) passes.{tail}", {})]


def _new_act(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    for char in state["characters"]:
        char["signature_used"] = False
    return [Event("new_act", "A new act begins: signature items can ease stress again.", {})]
