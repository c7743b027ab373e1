"""Mass combat rounds and phases: advancing, priority checks, turns, trapped heroes, retreat and reposition (Quickstart Rules for Mass Combat, p.1)."""

from __future__ import annotations

from live.engine.tracker import Action, Event, TrackerError, require_owner
from rules.engine.dice import Dice
from tabletools.engine.mass_combat.constants import HEROES_SIDE, PRIORITY_SKILLS, RESULTS, SIDES, State
from tabletools.engine.mass_combat.helpers import (
    _choice,
    _find,
    _free_squads,
    _hero,
    _other,
    _require_clear,
    _require_hero,
    _require_side,
    _side_name,
    _station,
    _text,
    _where,
)

# -- rounds and phases -------------------------------------------------------------------------


def _advance(state: State, action: Action, dice: Dice) -> list[Event]:
    """``advance``: the next step, turn, phase or round.

    Set-up -> priority of round 1 (owner); move -> combat -> after (only with Skirmishers) ->
    the other side's turn -> reposition (the acting side's commander or the owner);
    reposition -> the next round's priority phase (owner). Source: p.1, Combat phases."""
    phase = state["phase"]
    if phase in ("setup", "reposition"):
        require_owner(action)
        return _new_round(state)
    if phase == "priority":
        raise TrackerError("Priority is chosen, not skipped: record the hero units' checks, then choose.", field="type")
    turn = state["turn"]
    _require_side(state, action, turn["side"])
    if turn["trapped_due"]:
        names = ", ".join(_hero(state, h)["name"] for h in turn["trapped_due"])
        raise TrackerError(f"First say whether the trapped hero units can move: {names}.", field="type")
    _require_clear(state)
    falling = [h["name"] for h in state["heroes"] if h["status"] == "retreating"]
    if falling:
        raise TrackerError(
            f"Name the squad each falling-back hero unit reaches (or trapped): {', '.join(falling)}.", field="type"
        )
    name = _side_name(state, turn["side"])
    if turn["step"] == "move":
        turn["step"] = "combat"
        return [Event("step", f"{name}: combats. Start each combat, fire siege engines, then end the step.", {"step": "combat"})]
    skirmishers = [s for s in state["squads"] if s["side"] == turn["side"] and not s["destroyed"] and s["type"] == "skirmishers"]
    if turn["step"] == "combat" and skirmishers:
        turn["step"] = "after"
        return [Event("step", f"{name}: combats done; Skirmishers may move again.", {"step": "after"})]
    if turn["index"] == 0:
        return _start_turn(state, _other(turn["side"]), 1)
    state["phase"], state["turn"] = "reposition", None
    return [Event("phase", f"Round {state['round']}, reposition: hero units may move to another squad or the watchtower.", {})]


def _new_round(state: State) -> list[Event]:
    state["round"] += 1
    for squad in state["squads"]:
        squad.update(
            move_used=False,
            standard_used=False,
            second_move=False,
            minor_used=False,
            skirmish_used=False,
            engines_fired=0,
            heal=False,
        )
    for hero in state["heroes"]:
        hero.update(minor_used=False, minor_lost=False, repositioned=False, check=None)
    for engine in state["engines"]:
        engine["fired"] = False
    state["phase"], state["turn"] = "priority", None
    state["priority"] = {"chooser": None, "side": None, "successes": 0, "checks": 0}
    heroes = _priority_heroes(state)
    a, b = _side_name(state, "a"), _side_name(state, "b")
    if not heroes:
        state["priority"]["chooser"] = "b"
        return [Event("phase", f"Round {state['round']}, priority: {a} has no hero unit to make a check, so {b} chooses.", {})]
    return [
        Event(
            "phase",
            f"Round {state['round']}, priority: each hero unit of {a} makes a History, Bluff, Perception or Insight check.",
            {"heroes": [h["id"] for h in heroes]},
        )
    ]


def _priority_heroes(state: State) -> list[State]:
    return [h for h in state["heroes"] if h["side"] == HEROES_SIDE and h["status"] != "removed"]


def _priority_check(state: State, action: Action, dice: Dice) -> list[Event]:
    """``priority_check`` {hero, skill: History|Bluff|Perception|Insight, result: success|failure}.

    The check is the host game's; only its result is entered. When every hero unit of the heroes'
    side has one, half or more successes let that side choose priority; otherwise the other side
    chooses. Source: p.1, Priority Phase."""
    if state["phase"] != "priority":
        raise TrackerError(f"Priority checks belong to the priority phase; it is the {state['phase']} phase.", field="type")
    if state["priority"]["chooser"] is not None:
        raise TrackerError("The checks are in; priority is being chosen.", field="hero")
    hero = _hero(state, _text(action, "hero"))
    if hero not in _priority_heroes(state):
        raise TrackerError(
            f"{hero['name']} does not make a priority check (only {_side_name(state, HEROES_SIDE)}'s hero units do).",
            field="hero",
        )
    _require_hero(state, action, hero)
    if hero["check"] is not None:
        raise TrackerError(f"{hero['name']} has made this round's check.", field="hero")
    skill = _choice(action, "skill", PRIORITY_SKILLS)
    result = _choice(action, "result", RESULTS)
    hero["check"] = {"skill": skill, "result": result}
    events = [Event("priority_check", f"{hero['name']}'s {skill} check: {result}.", {"hero": hero["id"], "result": result})]
    return events + _settle_priority(state)


def _settle_priority(state: State) -> list[Event]:
    """Once every hero unit of the heroes' side has its check, name the side that chooses."""
    heroes = _priority_heroes(state)
    events: list[Event] = []
    if state["phase"] == "priority" and state["priority"]["chooser"] is None and all(h["check"] is not None for h in heroes):
        if not heroes:
            state["priority"]["chooser"] = _other(HEROES_SIDE)
            text = f"{_side_name(state, HEROES_SIDE)} has no hero unit left to make a check, so {_side_name(state, _other(HEROES_SIDE))} chooses."
            return [Event("priority_chooser", text, {"chooser": state["priority"]["chooser"]})]
        successes = sum(1 for h in heroes if h["check"]["result"] == "success")
        chooser = HEROES_SIDE if successes * 2 >= len(heroes) else _other(HEROES_SIDE)
        state["priority"].update(chooser=chooser, successes=successes, checks=len(heroes))
        enough = "half or more" if chooser == HEROES_SIDE else "fewer than half"
        events.append(
            Event(
                "priority_chooser",
                f"{successes} of {len(heroes)} checks succeeded ({enough}): {_side_name(state, chooser)} chooses who has priority.",
                {"chooser": chooser},
            )
        )
    return events


def _choose_priority(state: State, action: Action, dice: Dice) -> list[Event]:
    """``choose_priority`` {side: a|b}: the chooser names the side that acts first. Source: p.1."""
    chooser = state["priority"]["chooser"]
    if state["phase"] != "priority" or chooser is None:
        raise TrackerError("Priority is chosen once every hero unit's check is in.", field="side")
    _require_side(state, action, chooser)
    side = _choice(action, "side", SIDES)
    state["priority"]["side"] = side
    state["phase"] = "action"
    events = [Event("priority", f"{_side_name(state, chooser)} gives priority to {_side_name(state, side)}.", {"side": side})]
    return events + _start_turn(state, side, 0)


def _start_turn(state: State, side: str, index: int) -> list[Event]:
    state["turn"] = {"side": side, "step": "move", "index": index, "trapped_due": []}
    for squad in state["squads"]:
        squad["rolled_turn"] = False
    order = "first" if index == 0 else "second"
    events = [Event("turn", f"{_side_name(state, side)} acts {order}: move step.", {"side": side})]
    for hero in state["heroes"]:
        if hero["side"] != side or hero["status"] != "trapped":
            continue
        if _free_squads(state, side):
            state["turn"]["trapped_due"].append(hero["id"])
            events.append(
                Event(
                    "trapped_due",
                    f"{hero['name']} is trapped: can it safely reach the closest squad without a hero?",
                    {"hero": hero["id"]},
                )
            )
        else:
            events += _lose_surge(state, hero, "no squad without a hero to reach")
    return events


def _lose_surge(state: State, hero: State, why: str) -> list[Event]:
    if hero["surges"] > 0:
        hero["surges"] -= 1
        text = f"{hero['name']} stays trapped ({why}) and loses a healing surge: {hero['surges']} left."
    else:
        hero["status"], hero["squad"] = "removed", None
        text = f"{hero['name']} stays trapped ({why}) with no healing surge to lose: out of the fight until rescued and revived."
    return [Event("trapped", text, {"hero": hero["id"], "surges": hero["surges"], "status": hero["status"]})]


def _trapped_hero(state: State, action: Action, dice: Dice) -> list[Event]:
    """``trapped_hero`` {hero, squad?}: at the start of its side's turn a trapped hero unit moves to
    ``squad`` (the closest without a hero) if it safely can; blank ``squad`` means it cannot, and it
    loses a healing surge, or leaves the fight with none. Source: p.1, Hero Units."""
    hero = _hero(state, _text(action, "hero"))
    turn = state["turn"]
    if turn is None or hero["id"] not in turn["trapped_due"]:
        raise TrackerError(f"{hero['name']} has no trapped check waiting.", field="hero")
    _require_hero(state, action, hero)
    target = _text(action, "squad")
    turn["trapped_due"].remove(hero["id"])
    if not target:
        return _lose_surge(state, hero, "no safe way out")
    _station(state, hero, target, "squad")
    if hero["status"] != "attached":
        raise TrackerError("squad must be a squad id, not the watchtower.", field="squad")
    joined = _find(state["squads"], hero["squad"], "squad", "squad")["name"]
    return [Event("escaped", f"{hero['name']} breaks out and joins {joined}.", {"hero": hero["id"]})]


def _hero_retreat(state: State, action: Action, dice: Dice) -> list[Event]:
    """``hero_retreat`` {hero, squad?}: a hero unit whose squad was destroyed falls back to
    ``squad`` (the closest of its side without a hero, named by its controller); blank ``squad``
    means there is no way there, and it is trapped. Source: p.1, Hero Units."""
    hero = _hero(state, _text(action, "hero"))
    if hero["status"] != "retreating":
        raise TrackerError(f"{hero['name']} is not falling back.", field="hero")
    _require_hero(state, action, hero)
    target = _text(action, "squad")
    if not target or target.lower() == "trapped":
        hero["status"], hero["squad"] = "trapped", None
        return [Event("trapped", f"{hero['name']} has no way through and is trapped.", {"hero": hero["id"]})]
    _station(state, hero, target, "squad")
    if hero["status"] != "attached":
        raise TrackerError("squad must be a squad id, not the watchtower.", field="squad")
    joined = _find(state["squads"], hero["squad"], "squad", "squad")["name"]
    return [Event("fell_back", f"{hero['name']} falls back to {joined}.", {"hero": hero["id"]})]


def _reposition(state: State, action: Action, dice: Dice) -> list[Event]:
    """``reposition`` {hero, to: squad id or watchtower}: once per reposition phase, a hero unit
    that is not trapped moves to another squad of its side without a hero, or the watchtower.
    Source: p.1, Reposition Phase and The Watchtower."""
    if state["phase"] != "reposition":
        raise TrackerError(f"Hero units reposition in the reposition phase; it is the {state['phase']} phase.", field="type")
    hero = _hero(state, _text(action, "hero"))
    _require_hero(state, action, hero)
    if hero["status"] not in ("attached", "watchtower"):
        raise TrackerError(f"{hero['name']} is {_where(state, hero)} and cannot reposition.", field="hero")
    if hero["repositioned"]:
        raise TrackerError(f"{hero['name']} has repositioned this round.", field="hero")
    before = (hero["status"], hero["squad"])
    target = _text(action, "to", required="a squad id of the hero's side, or watchtower")
    _station(state, hero, target, "to")
    if (hero["status"], hero["squad"]) == before:
        raise TrackerError(f"{hero['name']} is already there.", field="to")
    hero["repositioned"] = True
    return [Event("repositioned", f"{hero['name']} repositions {_where(state, hero)}.", {"hero": hero["id"]})]
