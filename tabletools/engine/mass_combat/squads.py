"""Mass combat squad actions: moves, second and skirmish moves, hero checks (Quickstart Rules for Mass Combat, p.1)."""

from __future__ import annotations

from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice
from tabletools.engine.mass_combat.constants import RESULTS, SQUAD_TYPES, State
from tabletools.engine.mass_combat.helpers import (
    _choice,
    _find,
    _hero,
    _one_squad,
    _require_hero,
    _require_side,
    _require_turn,
    _side_name,
    _squad,
    _text,
    _where,
)
from tabletools.engine.mass_combat.state import speed

# -- squad actions -----------------------------------------------------------------------------


def _standing(state: State, squad: State) -> str:
    parts = [f"at {squad['position']}" if squad["position"] else "where it is"]
    if squad["medic"]:
        parts.append(f"next to {_find(state['squads'], squad['medic'], 'squad', 'medic')['name']}")
    if squad["circle"]:
        parts.append(f"on {_find(state['defences'], squad['circle'], 'defence', 'circle')['name']}")
    return ", ".join(parts)


def _restate(state: State, squad: State, action: Action) -> None:
    """Set ``position`` (kept when blank), ``medic`` and ``circle`` (cleared when blank)."""
    position = _text(action, "position", max_len=80)
    medic_id = _text(action, "medic")
    circle_id = _text(action, "circle")
    medic = None
    if medic_id and medic_id.lower() != "none":
        medic = _squad(state, medic_id, "medic")
        if medic["side"] != squad["side"] or medic["type"] != "medics" or medic["id"] == squad["id"]:
            raise TrackerError("medic must be another Medics/Clerics squad of the same side.", field="medic")
    circle = None
    if circle_id and circle_id.lower() != "none":
        circle = _find(state["defences"], circle_id, "defence", "circle")
        if circle["kind"] != "circle" or circle["side"] == squad["side"] or circle["destroyed"]:
            raise TrackerError("circle must be a standing magic circle of the other side.", field="circle")
    if position:
        squad["position"] = position
    squad["medic"] = medic["id"] if medic else None
    squad["circle"] = circle["id"] if circle else None


def _move(state: State, action: Action, dice: Dice) -> list[Event]:
    """``move`` {squad, position?, medic?, circle?}: the squad's move action, up to its speed, in
    its side's move step. Source: p.1, Action Phase."""
    squad = _one_squad(state, action)
    _require_side(state, action, squad["side"])
    _require_turn(state, squad["side"], "move")
    if squad["move_used"]:
        raise TrackerError(
            f"{squad['name']} has used its move action; its standard action can become a second move.", field="squad"
        )
    _restate(state, squad, action)
    squad["move_used"] = True
    return [
        Event(
            "moved",
            f"{squad['name']} moves up to {speed(squad['type'])} squares and stands {_standing(state, squad)}.",
            {"squad": squad["id"]},
        )
    ]


def _second_move(state: State, action: Action, dice: Dice) -> list[Event]:
    """``second_move`` {squad, position?, medic?, circle?}: the standard action spent as a second
    move (the squad cannot attack this round). Source: p.1, Action Phase."""
    squad = _one_squad(state, action)
    _require_side(state, action, squad["side"])
    _require_turn(state, squad["side"], "move")
    if not squad["move_used"]:
        raise TrackerError(f"{squad['name']} takes its move action first.", field="squad")
    if squad["standard_used"]:
        raise TrackerError(f"{squad['name']} has used its standard action this round.", field="squad")
    _restate(state, squad, action)
    squad["standard_used"] = squad["second_move"] = True
    return [
        Event(
            "moved",
            f"{squad['name']} trades its attack for a second move of up to {speed(squad['type'])} squares and stands {_standing(state, squad)}.",
            {"squad": squad["id"], "second": True},
        )
    ]


def _skirmish_move(state: State, action: Action, dice: Dice) -> list[Event]:
    """``skirmish_move`` {squad, position?, medic?, circle?}: a Skirmisher squad moves up to its
    speed again after its side's combats. Source: p.1, The troops."""
    squad = _one_squad(state, action)
    _require_side(state, action, squad["side"])
    if squad["type"] != "skirmishers":
        raise TrackerError(
            f"Only Skirmishers move after combat; {squad['name']} is {SQUAD_TYPES[squad['type']][0]}.", field="squad"
        )
    _require_turn(state, squad["side"], "after")
    if squad["skirmish_used"]:
        raise TrackerError(f"{squad['name']} has made its move after combat.", field="squad")
    _restate(state, squad, action)
    squad["skirmish_used"] = True
    return [
        Event(
            "moved",
            f"{squad['name']} slips away up to {speed('skirmishers')} squares after the fighting and stands {_standing(state, squad)}.",
            {"squad": squad["id"]},
        )
    ]


def _hero_check(state: State, action: Action, dice: Dice) -> list[Event]:
    """``hero_check`` {hero, skill, result: success|failure, note?}: a minor action in the hero's
    side's turn, using its squad's minor action (or, from the watchtower, a battlefield-wide order).
    A successful Heal check lets the squad's side ignore one hit in its next exchange this round.
    Source: p.1, Hero Units and The Watchtower."""
    hero = _hero(state, _text(action, "hero"))
    _require_hero(state, action, hero)
    _require_turn(state, hero["side"], "move", "combat", "after")
    skill = _text(action, "skill", required="the skill the hero unit uses", max_len=30)
    result = _choice(action, "result", RESULTS)
    note = _text(action, "note", max_len=120)
    extra = ""
    if hero["status"] == "attached":
        squad = _squad(state, hero["squad"], "hero")
        if hero["minor_lost"]:
            raise TrackerError(f"{hero['name']} lost its minor action this round when its squad fell.", field="hero")
        if squad["minor_used"] or hero["minor_used"]:
            raise TrackerError(f"{squad['name']} has used its minor action this round.", field="hero")
        squad["minor_used"] = hero["minor_used"] = True
        where = f"with {squad['name']}"
        if skill.lower() == "heal" and result == "success":
            squad["heal"] = True
            extra = f" {_side_name(state, squad['side'])} ignores one hit in {squad['name']}'s next exchange this round."
    elif hero["status"] == "watchtower":
        if hero["minor_used"]:
            raise TrackerError(f"{hero['name']} has given this round's order from the watchtower.", field="hero")
        hero["minor_used"] = True
        where = "from the watchtower, for the whole field (a reduced effect)"
    else:
        raise TrackerError(f"{hero['name']} is {_where(state, hero)} and has no minor action.", field="hero")
    said = f" {note}." if note else ""
    return [
        Event(
            "hero_check",
            f"{hero['name']} makes a {skill} check {where}: {result}.{extra}{said}",
            {"hero": hero["id"], "result": result},
        )
    ]
