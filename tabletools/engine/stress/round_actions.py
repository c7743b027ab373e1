"""Stress dice: actions in the round: helping, aiming, slow and fast actions, stress, conditions, items, Broken (Stress dice skill checks, p.1)."""

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
from tabletools.engine.stress.constants import AIM_BONUS, MAX_HELPERS, STRESS_DOWN, STRESS_UP, WEIGHTS
from tabletools.engine.stress.payload import _character, _choice, _lasting, _mine, _number, _refresh_load, _signed, _spend, _text

# -- actions in the round -------------------------------------------------------------------


def _help(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Declare help before the roll: +1 base die each, at most three, and each helper spends an
    action of the same kind as the check (p.1)."""
    helper = _character(state, action.payload.get("id"))
    _mine(action, helper)
    target = _character(state, action.payload.get("target"), field="target")
    if target["id"] == helper["id"]:
        raise TrackerError("A character cannot help themselves.", field="target")
    if any(h["id"] == helper["id"] for h in target["helpers"]):
        raise TrackerError(f"{helper['name']} is already helping {target['name']}.", field="target")
    if len(target["helpers"]) >= MAX_HELPERS:
        raise TrackerError(f"At most {MAX_HELPERS} can help with one roll.", field="target")
    kind = _choice(action, "action", ("slow", "fast", "free"), default="slow")
    _spend(helper, kind)
    helper["check"] = None
    helper["aimed"] = False
    target["helpers"].append({"id": helper["id"], "action": kind})
    cost = "no action" if kind == "free" else f"their {kind} action"
    return [
        Event(
            "help",
            f"{helper['name']} helps {target['name']}'s next {kind} check (+1 base die), spending {cost}.",
            {"id": helper["id"], "target": target["id"]},
        )
    ]


def _withdraw_help(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    helper = _character(state, action.payload.get("id"))
    _mine(action, helper)
    for target in state["characters"]:
        for declared in target["helpers"]:
            if declared["id"] == helper["id"]:
                target["helpers"].remove(declared)
                if declared["action"] != "free":
                    helper[f"{declared['action']}_used"] = False
                return [Event("help_withdrawn", f"{helper['name']} no longer helps {target['name']}.", {"id": helper["id"]})]
    raise TrackerError(f"{helper['name']} is not helping anyone.", field="id")


def _aim(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Aim (a fast action): +2 base dice on the next Ranged Combat check, lost on doing anything
    else or being hurt (p.1)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    _spend(char, "fast")
    char["check"] = None
    char["aimed"] = True
    return [Event("aim", f"{char['name']} aims: +{AIM_BONUS} on the next shot (fast action).", {"id": char["id"]})]


def _take_action(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Spend a slow or fast action without a roll (run, reload, draw weapon...)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    kind = _choice(action, "action", ("slow", "fast"))
    name = _text(action, "name", required=False) or f"a {kind} action"
    _spend(char, kind)
    char["check"] = None
    lost = " and loses the aim" if char["aimed"] else ""
    char["aimed"] = False
    return [Event("action_taken", f"{char['name']} takes {name} ({kind}){lost}.", {"id": char["id"], "action": kind})]


def _stress_up(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Raise stress for one of :data:`STRESS_UP` (p.1); damage also spoils an aim."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    reason = _choice(action, "reason", tuple(STRESS_UP))
    amount = payload_int(action, "amount", low=1, high=5, default=1)
    before = char["stress"]
    char["stress"] = before + amount
    lost = ""
    if reason == "damage" and char["aimed"]:
        char["aimed"] = False
        lost = "; hurt, the aim is lost"
    return [
        Event(
            "stress_up",
            f"{char['name']}'s stress {before} → {char['stress']} from {STRESS_UP[reason]}{lost}.",
            {"id": char["id"], "reason": reason},
        )
    ]


def _stress_down(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Lower stress by 1: rest, or the signature item once per act; ``other`` is the owner's
    call. Refused at 0 or while a condition blocks relief (p.1)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    reason = _choice(action, "reason", tuple(STRESS_DOWN))
    if reason == "other":
        require_owner(action)
    if char["stress"] == 0:
        raise TrackerError(f"{char['name']}'s stress is already 0.", field="id")
    blocking = [c["name"] for c in char["conditions"] if c["blocks_relief"]]
    if blocking:
        raise TrackerError(f"{', '.join(blocking)} keeps {char['name']}'s stress from easing.", field="reason")
    if reason == "signature":
        if char["signature_used"]:
            raise TrackerError("The signature item eases stress only once per act.", field="reason")
        char["signature_used"] = True
    before = char["stress"]
    char["stress"] -= 1
    return [
        Event(
            "stress_down",
            f"{char['name']}'s stress {before} → {char['stress']} after {STRESS_DOWN[reason]}.",
            {"id": char["id"], "reason": reason},
        )
    ]


def _add_condition(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    name = _text(action, "name", limit=40, what="the condition's name")
    if any(c["name"].lower() == name.lower() for c in char["conditions"]):
        raise TrackerError(f"{char['name']} is already {name}.", field="name")
    modifier = payload_int(action, "modifier", low=-3, high=3, default=0)
    blocks = payload_flag(action, "blocks_relief")
    char["conditions"].append({"name": name, "modifier": modifier, "blocks_relief": blocks})
    notes = [f"{_signed(modifier)} base dice" if modifier else "", "no stress relief" if blocks else ""]
    tail = "; ".join(n for n in notes if n)
    return [Event("condition_added", f"{char['name']} is {name}{f' ({tail})' if tail else ''}.", {"id": char["id"]})]


def _remove_condition(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    name = _text(action, "name", limit=40, what="the condition's name")
    kept = [c for c in char["conditions"] if c["name"].lower() != name.lower()]
    if len(kept) == len(char["conditions"]):
        have = ", ".join(c["name"] for c in char["conditions"]) or "none"
        raise TrackerError(f"{char['name']} is not {name}; conditions: {have}.", field="name")
    char["conditions"] = kept
    return [Event("condition_removed", f"{char['name']} is no longer {name}.", {"id": char["id"]})]


def _add_item(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Carry an item: regular 1, heavy 2 (or more), light 0.5 (or 0.25), tiny 0 regular items
    against a capacity of twice Strength (p.1)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    name = _text(action, "name", what="the item's name")
    weight = _choice(action, "weight", tuple(WEIGHTS), default="regular")
    slots = WEIGHTS[weight]
    raw = action.payload.get("slots")
    if raw not in (None, ""):
        allowed = {"heavy": (2.0, 3.0, 4.0), "light": (0.5, 0.25)}.get(weight, ())
        try:
            wanted = float(str(raw))
        except ValueError:
            wanted = -1.0
        if wanted not in allowed:
            what = f"one of {', '.join(f'{a:g}' for a in allowed)}" if allowed else f"left out for a {weight} item"
            raise TrackerError(f"slots for a {weight} item must be {what}; got {raw!r}.", field="slots")
        slots = wanted
    char["items"].append({"id": f"i{state['next_item']}", "name": name, "weight": weight, "slots": _number(slots)})
    state["next_item"] += 1
    _refresh_load(char)
    tail = " — over-encumbered" if char["over_encumbered"] else ""
    return [
        Event(
            "item_added",
            f"{char['name']} carries {name} ({weight}): load {char['load']:g} of {char['capacity']}{tail}.",
            {"id": char["id"]},
        )
    ]


def _remove_item(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    item_id = str(action.payload.get("item", ""))
    item = next((i for i in char["items"] if i["id"] == item_id), None)
    if item is None:
        have = ", ".join(f"{i['id']} ({i['name']})" for i in char["items"]) or "none"
        raise TrackerError(f"{char['name']} carries no item {item_id!r}; items: {have}.", field="item")
    char["items"].remove(item)
    _refresh_load(char)
    return [
        Event(
            "item_removed",
            f"{char['name']} drops {item['name']}: load {char['load']:g} of {char['capacity']}.",
            {"id": char["id"]},
        )
    ]


def _set_broken(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Mark a character Broken (or recovered); being Broken ends a panic effect (p.1)."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    broken = payload_flag(action, "broken", default=True)
    char["broken"] = broken
    if not broken:
        return [Event("recovered", f"{char['name']} is no longer Broken.", {"id": char["id"]})]
    tail = " Their panic effect ends." if _lasting(char) else ""
    char["panic"] = None
    return [Event("broken", f"{char['name']} is Broken.{tail}", {"id": char["id"]})]
