"""Mass combat set-up actions (owner): sides, squads, hero units, siege engines, defences, settings, loss order, placing (Quickstart Rules for Mass Combat, p.1)."""

from __future__ import annotations

from typing import Any

from live.engine.tracker import Action, Event, TrackerError, payload_int, require_owner
from rules.engine.dice import Dice
from tabletools.engine.mass_combat.constants import SIDES, SQUAD_TYPES, State
from tabletools.engine.mass_combat.helpers import (
    _choice,
    _flag,
    _hero,
    _hero_in,
    _id_list,
    _label,
    _one_squad,
    _require_clear,
    _require_side,
    _save_die,
    _side_name,
    _squad,
    _station,
    _text,
    _where,
)
from tabletools.engine.mass_combat.rounds import _settle_priority
from tabletools.engine.mass_combat.squads import _restate, _standing
from tabletools.engine.mass_combat.state import speed

# -- set-up (owner) ----------------------------------------------------------------------------


def _set_side(state: State, action: Action, dice: Dice) -> list[Event]:
    """``set_side`` {side: a|b, name?, owner?: user id, blank for the referee}. Owner only."""
    require_owner(action)
    side = _choice(action, "side", SIDES)
    name = _text(action, "name", max_len=40)
    if name:
        state["sides"][side]["name"] = name
    owner = _text(action, "owner")
    state["sides"][side]["owner"] = owner or None
    who = "the referee" if not owner else f"player {owner}"
    return [Event("side_set", f"{_side_name(state, side)} is commanded by {who}.", {"side": side})]


def _set_hero_owner(state: State, action: Action, dice: Dice) -> list[Event]:
    """``set_hero_owner`` {hero, owner?: user id, blank for the referee}. Owner only."""
    require_owner(action)
    hero = _hero(state, _text(action, "hero"))
    hero["owner"] = _text(action, "owner") or None
    who = "the referee" if not hero["owner"] else f"player {hero['owner']}"
    return [Event("hero_owner_set", f"{hero['name']} is played by {who}.", {"hero": hero["id"]})]


def release(state: State, player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand the sides ``player`` (a user id as text) commands and the
    heroes they play back to the referee."""
    sides = [("set_side", {"side": side}) for side in SIDES if state["sides"][side]["owner"] == player]
    heroes = [("set_hero_owner", {"hero": h["id"]}) for h in state["heroes"] if h.get("owner") == player]
    return sides + heroes


def _add_squad(state: State, action: Action, dice: Dice) -> list[Event]:
    """``add_squad`` {side, name, squad_type (SQUAD_TYPES key), level 1-20, position?, undead?, large?}."""
    require_owner(action)
    side = _choice(action, "side", SIDES)
    name = _text(action, "name", required="the squad's name")
    squad_type = _choice(action, "squad_type", tuple(SQUAD_TYPES))
    level = payload_int(action, "level", low=1, high=20)
    squad_id = f"s{state['next_id']}"
    state["next_id"] += 1
    squad = {
        "id": squad_id,
        "side": side,
        "name": name,
        "type": squad_type,
        "level": level,
        "position": _text(action, "position", max_len=80),
        "undead": _flag(action, "undead"),
        "large": _flag(action, "large"),
        "medic": None,
        "circle": None,
        "destroyed": False,
        "move_used": False,
        "standard_used": False,
        "second_move": False,
        "minor_used": False,
        "skirmish_used": False,
        "engines_fired": 0,
        "heal": False,
        "rolled_turn": False,
    }
    state["squads"].append(squad)
    traits = "".join([", undead" if squad["undead"] else "", ", a large target" if squad["large"] else ""])
    return [
        Event(
            "squad_added",
            f"{_label(squad)} joins {_side_name(state, side)}: speed {speed(squad_type)}{traits}.",
            {"id": squad_id},
        )
    ]


def _add_hero(state: State, action: Action, dice: Dice) -> list[Event]:
    """``add_hero`` {side, name, at: squad id or "watchtower", owner?: user id, surges? 0-30 (6)}."""
    require_owner(action)
    side = _choice(action, "side", SIDES)
    name = _text(action, "name", required="the hero unit's name")
    surges = payload_int(action, "surges", low=0, high=30, default=6)
    hero_id = f"h{state['next_id']}"
    hero = {
        "id": hero_id,
        "side": side,
        "name": name,
        "owner": _text(action, "owner") or None,
        "surges": surges,
        "status": "attached",
        "squad": None,
        "minor_used": False,
        "minor_lost": False,
        "repositioned": False,
        "check": None,
    }
    _station(state, hero, _text(action, "at", required="a squad id of the hero's side, or watchtower"), "at")
    state["next_id"] += 1
    state["heroes"].append(hero)
    return [
        Event(
            "hero_added",
            f"{name} ({surges} healing surges) joins {_side_name(state, side)}, {_where(state, hero)}.",
            {"id": hero_id},
        )
    ]


def _add_engine(state: State, action: Action, dice: Dice) -> list[Event]:
    """``add_engine`` {side, name, level 1-10, position?}: a siege engine."""
    require_owner(action)
    side = _choice(action, "side", SIDES)
    name = _text(action, "name", required="the siege engine's name")
    level = payload_int(action, "level", low=1, high=10)
    engine_id = f"e{state['next_id']}"
    state["next_id"] += 1
    engine = {"id": engine_id, "side": side, "name": name, "level": level, "position": _text(action, "position", max_len=80)}
    state["engines"].append({**engine, "destroyed": False, "fired": False})
    return [Event("engine_added", f"{name} (siege engine {level}) joins {_side_name(state, side)}.", {"id": engine_id})]


def _add_defence(state: State, action: Action, dice: Dice) -> list[Event]:
    """``add_defence`` {side, kind: barrier|circle, name, level 0-10 (barriers; default 1), position?}."""
    require_owner(action)
    side = _choice(action, "side", SIDES)
    kind = _choice(action, "kind", ("barrier", "circle"))
    name = _text(action, "name", required="the defence's name")
    level = payload_int(action, "level", low=0, high=10, default=1) if kind == "barrier" else 0
    defence_id = f"d{state['next_id']}"
    state["next_id"] += 1
    state["defences"].append(
        {
            "id": defence_id,
            "side": side,
            "kind": kind,
            "name": name,
            "level": level,
            "position": _text(action, "position", max_len=80),
            "destroyed": False,
        }
    )
    what = f"a defensive barrier of level {level}" if kind == "barrier" else "a magic circle"
    return [Event("defence_added", f"{name}, {what}, guards {_side_name(state, side)}.", {"id": defence_id})]


def _remove(state: State, action: Action, dice: Dice) -> list[Event]:
    """``remove`` {id}: a squad (without a hero, outside combat), hero unit, engine or defence."""
    require_owner(action)
    item_id = _text(action, "id", required="the id of a squad, hero unit, siege engine or defence")
    for key, what in (("squads", "squad"), ("heroes", "hero unit"), ("engines", "siege engine"), ("defences", "defence")):
        for item in state[key]:
            if item["id"] != item_id:
                continue
            if key == "squads":
                _require_clear(state)
                if state["losses"]:
                    raise TrackerError("Finish the losses being taken first.", field="id")
                hero = _hero_in(state, item_id)
                if hero is not None:
                    raise TrackerError(f"Move or remove {hero['name']} from {item['name']} first.", field="id")
                for squad in state["squads"]:
                    if squad["medic"] == item_id:
                        squad["medic"] = None
                for side in state["sides"].values():
                    side["loss_order"] = [s for s in side["loss_order"] if s != item_id]
            if key == "heroes" and state["turn"] is not None and item_id in state["turn"]["trapped_due"]:
                state["turn"]["trapped_due"].remove(item_id)
            if key == "defences":
                if state["pending"] is not None and state["pending"].get("defence") == item_id:
                    raise TrackerError("Roll the waiting barrier roll first.", field="id")
                for squad in state["squads"]:
                    if squad["circle"] == item_id:
                        squad["circle"] = None
            state[key].remove(item)
            events = [Event("removed", f"{item['name']} ({what}) is taken off the field.", {"id": item_id})]
            return events + (_settle_priority(state) if key == "heroes" else [])
    raise TrackerError(f"No squad, hero unit, siege engine or defence {item_id!r}.", field="id")


def _set_setting(state: State, action: Action, dice: Dice) -> list[Event]:
    """``set_setting`` {save_die?: D6|D10|D12|D20, save_target?: 1-30}: the Medic saving throw."""
    require_owner(action)
    settings = state["settings"]
    if action.payload.get("save_die") in (None, "") and action.payload.get("save_target") in (None, ""):
        raise TrackerError("Give save_die or save_target.", field="save_die")
    if action.payload.get("save_die") not in (None, ""):
        settings["save_die"] = _save_die(str(action.payload["save_die"]), "save_die")
    if action.payload.get("save_target") not in (None, ""):
        settings["save_target"] = payload_int(action, "save_target", low=1, high=30)
    return [
        Event(
            "settings_changed",
            f"Medic saving throw: {settings['save_die']} + Medic level, {settings['save_target']} or more saves.",
            dict(settings),
        )
    ]


def _set_loss_order(state: State, action: Action, dice: Dice) -> list[Event]:
    """``set_loss_order`` {side, order: "s3,s1"}: the squads that side gives up first when hit.

    Squads not listed follow, lowest level first. Blank ``order`` clears it. The side's
    commander or the owner. Source: p.1, Resolving Combat (the opposing side chooses)."""
    side = _choice(action, "side", SIDES)
    _require_side(state, action, side)
    order: list[str] = []
    for squad_id in _id_list(action.payload.get("order")):
        squad = _squad(state, squad_id, "order")
        if squad["side"] != side:
            raise TrackerError(f"{squad['name']} is not a squad of {_side_name(state, side)}.", field="order")
        order.append(squad_id)
    state["sides"][side]["loss_order"] = order
    names = ", ".join(_squad(state, s)["name"] for s in order) or "lowest level first"
    return [Event("loss_order", f"{_side_name(state, side)} will give up squads in this order: {names}.", {"side": side})]


def _place(state: State, action: Action, dice: Dice) -> list[Event]:
    """``place`` {squad, position?, medic?, circle?}: correct where a squad stands, costing no action.

    As with a move, ``medic`` (an adjacent Medic squad of the same side) and ``circle`` (an enemy
    magic circle the squad stands on) are cleared when left blank. Owner only."""
    require_owner(action)
    squad = _one_squad(state, action)
    _restate(state, squad, action)
    return [Event("placed", f"{squad['name']} stands {_standing(state, squad)}.", {"squad": squad["id"]})]


def _set_surges(state: State, action: Action, dice: Dice) -> list[Event]:
    """``set_surges`` {hero, surges 0-30}: the host game's healing surges changed. Owner only."""
    require_owner(action)
    hero = _hero(state, _text(action, "hero"))
    hero["surges"] = payload_int(action, "surges", low=0, high=30)
    return [Event("surges_set", f"{hero['name']} has {hero['surges']} healing surges.", {"hero": hero["id"]})]


def _revive_hero(state: State, action: Action, dice: Dice) -> list[Event]:
    """``revive_hero`` {hero, at: squad id or watchtower, surges?}: a removed hero unit, rescued and
    revived, returns. Owner only. Source: p.1, Hero Units."""
    require_owner(action)
    hero = _hero(state, _text(action, "hero"))
    if hero["status"] != "removed":
        raise TrackerError(f"{hero['name']} is still in the fight.", field="hero")
    _station(state, hero, _text(action, "at", required="a squad id of the hero's side, or watchtower"), "at")
    if action.payload.get("surges") not in (None, ""):
        hero["surges"] = payload_int(action, "surges", low=0, high=30)
    return [Event("hero_revived", f"{hero['name']} is rescued and revived, {_where(state, hero)}.", {"hero": hero["id"]})]
