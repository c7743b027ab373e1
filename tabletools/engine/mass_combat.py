"""Mass combat tracker (Quickstart Rules for Mass Combat, p.1).

Two sides field squads (Soldiers, Paladins, Skirmishers, Casters, Medics/Clerics) with hero units
attached. A round has three phases:

- **Priority**: each hero unit of the heroes' side (side ``a``) makes a History, Bluff,
  Perception or Insight check; the check belongs to the host game, so only its result is
  entered. If at least half succeed the heroes' side chooses who has priority, otherwise the
  other side (``b``) chooses.
- **Action**: the side with priority takes its turn, then the other side. A turn has a *move*
  step (each squad: a move, and its standard action may become a second move), a *combat* step
  (combats between squads, siege engines firing) and, when the side has Skirmishers, an *after*
  step in which Skirmishers may move again. Hero units use their squad's minor action for skill
  checks at any step of their side's turn.
- **Reposition**: each hero unit may move to another squad of its side, or to the watchtower.

Combat: each squad rolls D6 equal to its level (less one per siege engine it fired this round);
any 6 scores one hit, at most one per squad. Casters roll first (first strike). Each hit
destroys one squad of the other side, taken in that side's loss order (``set_loss_order``;
otherwise lowest level first). A squad of half the level of its target or less needs two hits
to destroy it. Soldiers that score cancel one enemy hit each; Paladins score with every 6 against
undead; a squad on an enemy magic circle is hit on 5-6; a squad next to a Medic may be saved by
the Medic's saving throw plus the Medic's level (die and target are table settings). When both
sides survive an exchange the attacker presses (rolls again) or retreats one square.

A hero unit whose squad is destroyed falls back to the closest squad of its side without a hero
(its controller names it) and loses its minor action for the round; with no way there it is
trapped. At the start of its side's turn a trapped hero moves if it can, or loses a healing
surge; with none to lose it leaves the fight until revived.

State (JSON-ready dict)::

    {"round": 0, "phase": "setup" | "priority" | "action" | "reposition",
     "settings": {"save_die": "D20", "save_target": 10},
     "sides": {"a": {"name": "Heroes", "owner": "7" | None, "loss_order": ["s3"]}, "b": {...}},
     "squads": [{"id": "s1", "side": "a", "name": "Iron Guard", "type": "soldiers", "level": 3,
                 "position": "C4", "undead": False, "large": False, "medic": "s2" | None,
                 "circle": "d4" | None, "destroyed": False, "move_used": False,
                 "standard_used": False, "second_move": False, "minor_used": False,
                 "skirmish_used": False, "engines_fired": 0, "heal": False, "rolled_turn": False}],
     "heroes": [{"id": "h2", "side": "a", "name": "Aria", "owner": "7" | None, "surges": 6,
                 "status": "attached" | "watchtower" | "retreating" | "trapped" | "removed",
                 "squad": "s1" | None, "minor_used": False, "minor_lost": False,
                 "repositioned": False, "check": None | {"skill": "Insight", "result": "success"}}],
     "engines": [{"id": "e3", "side": "a", "name": "Ballista", "level": 2, "position": "",
                  "destroyed": False, "fired": False}],
     "defences": [{"id": "d4", "side": "b", "kind": "barrier" | "circle", "name": "Palisade",
                   "level": 2, "position": "", "destroyed": False}],
     "priority": {"chooser": None | "a" | "b", "side": None | "a" | "b", "successes": 0, "checks": 0},
     "turn": None | {"side": "a", "step": "move" | "combat" | "after", "index": 0 | 1,
                     "trapped_due": ["h2"]},
     "combat": None | {"attacker": "a", "defender": "b", "attackers": [...], "defenders": [...],
                       "exchange": 1, "stage": "first_strike" | "main" | "decide",
                       "to_roll": [...], "hits": [...], "wounds": {"s5": 1}, "resolving": False,
                       "rolled": False},   # any dice rolled in this exchange yet
     "losses": [{"squad": "s5", "cause": "hit by Iron Guard"}],   # squads about to be destroyed
     "pending": None | {"kind": "medic_save", "squad": ..., "medic": ..., "cause": ...}
                     | {"kind": "barrier_save", "defence": ..., "engine": ...},
     "last": [{"text": ..., "roll": {...}}],   # the rolls of the latest action that rolled
     "next_id": 5}

Actions (payload values may be numeric strings; lists may be comma-separated strings):
owner set-up ``set_side`` {side, name?, owner?}, ``add_squad`` {side, name, squad_type, level,
position?, undead?, large?}, ``set_hero_owner`` {hero, owner?}, ``add_hero`` {side, name, at, owner?, surges?}, ``add_engine`` {side,
name, level, position?}, ``add_defence`` {side, kind, name, level?, position?}, ``remove`` {id},
``set_setting`` {save_die?, save_target?}, ``place`` {squad, position?, medic?, circle?},
``set_surges`` {hero, surges}, ``revive_hero`` {hero, at, surges?}; play ``advance``,
``priority_check`` {hero, skill, result}, ``choose_priority`` {side}, ``trapped_hero`` {hero,
squad?}, ``hero_retreat`` {hero, squad?}, ``reposition`` {hero, to}, ``move`` / ``second_move`` /
``skirmish_move`` {squad, position?, medic?, circle?}, ``hero_check`` {hero, skill, result,
note?}, ``set_loss_order`` {side, order}, ``start_combat`` {squads | characters}, ``assist``
{squad}, ``combat_roll`` {squad?, faces?}, ``medic_save`` {faces?}, ``press``, ``retreat``
{position?}, ``fire_engine`` {engine, squad, target, faces?}, ``barrier_save`` {faces?}.

Every die roll is one :class:`Event` with its roll record under ``data["roll"]``; an optional
``faces`` payload records physical dice instead (a list, or one comma-separated string).

Pure Python: no Django imports.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from live.engine.tracker import Action, Event, NotYours, Role, TrackerError, payload_int, require_owner
from rules.engine.dice import Dice, DiceError, Keep, Notation, RollRecord, parse

SOURCE = "Quickstart Rules for Mass Combat, p.1"

SIDES = ("a", "b")
HEROES_SIDE = "a"
"""Side ``a`` holds the heroes (the player characters) whose checks decide priority."""

SQUAD_TYPES: dict[str, tuple[str, int]] = {
    "soldiers": ("Soldiers", 6),
    "paladins": ("Paladins", 6),
    "skirmishers": ("Skirmishers", 7),
    "casters": ("Casters", 6),
    "medics": ("Medics/Clerics", 5),
}
"""Squad type -> (name on screen, speed in squares)."""

CASTER_REACH = 5
"""Casters attack and assist in combats up to this many squares away."""

PRIORITY_SKILLS = ("History", "Bluff", "Perception", "Insight")
RESULTS = ("success", "failure")
SAVE_DICE = ("D6", "D10", "D12", "D20")
WATCHTOWER = "watchtower"
HIT_FACE = 6
CIRCLE_HIT_FACE = 5
BARRIER_SAVE_FACE = 5

State = dict[str, Any]
Handler = Callable[[State, Action, Dice], list[Event]]


def initial_state(*, side_a: str = "Heroes", side_b: str = "Foes", save_die: str = "D20", save_target: int = 10) -> State:
    """A new battle in its set-up phase.

    ``side_a`` names the heroes' side, ``side_b`` the other side; ``save_die`` (one of
    ``SAVE_DICE``) and ``save_target`` (1-30) make the Medic saving throw: die + Medic level,
    succeeding at ``save_target`` or more. Raises :class:`TrackerError` naming a bad option.
    Source: Quickstart Rules for Mass Combat, p.1 (the die and target are the host game's).
    """
    die = _save_die(save_die, "save_die")
    if not 1 <= save_target <= 30:
        raise TrackerError(f"save_target must be from 1 to 30; got {save_target}.", field="save_target")
    names = {"a": side_a.strip()[:40] or "Heroes", "b": side_b.strip()[:40] or "Foes"}
    return {
        "round": 0,
        "phase": "setup",
        "settings": {"save_die": die, "save_target": int(save_target)},
        "sides": {side: {"name": names[side], "owner": None, "loss_order": []} for side in SIDES},
        "squads": [],
        "heroes": [],
        "engines": [],
        "defences": [],
        "priority": {"chooser": None, "side": None, "successes": 0, "checks": 0},
        "turn": None,
        "combat": None,
        "losses": [],
        "pending": None,
        "last": [],
        "next_id": 1,
    }


def apply(state: State, action: Action, dice: Dice) -> tuple[State, list[Event]]:
    """The reducer: ``(state, action, dice) -> (new_state, events)``; ``state`` is not changed.

    Raises :class:`TrackerError` (or :class:`NotYours`) and changes nothing when the action is
    refused; the error's ``field`` names the payload key at fault. Source: Quickstart Rules for
    Mass Combat, p.1.
    """
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise TrackerError(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", field="type")
    new = copy.deepcopy(state)
    events = handler(new, action, dice)
    rolled = [e for e in events if "roll" in e.data]
    if rolled:
        new["last"] = [{"text": e.text, "roll": dict(e.data["roll"])} for e in rolled]
    return new, events


def speed(squad_type: str) -> int:
    """The speed in squares of a squad type (``SQUAD_TYPES`` key). Source: p.1, The troops."""
    return SQUAD_TYPES[squad_type][1]


def combat_dice(squad: State) -> int:
    """D6 a squad rolls in combat: its level, less one per siege engine it fired this round."""
    return max(0, int(squad["level"]) - int(squad["engines_fired"]))


# -- payload helpers ---------------------------------------------------------------------------


def _text(action: Action, key: str, *, required: str = "", max_len: int = 60) -> str:
    raw = action.payload.get(key)
    value = "" if raw is None else str(raw).strip()
    if not value and required:
        raise TrackerError(f"{key} is required: {required}.", field=key)
    return value[:max_len]


def _flag(action: Action, key: str) -> bool:
    return str(action.payload.get(key, "")).strip().lower() in {"on", "yes", "true", "1"}


def _choice(action: Action, key: str, allowed: tuple[str, ...], *, default: str | None = None) -> str:
    raw = _text(action, key) or (default or "")
    for option in allowed:
        if raw.lower() == option.lower():
            return option
    raise TrackerError(f"{key} must be one of {', '.join(allowed)}; got {raw!r}.", field=key)


def _parts(raw: Any) -> list[str]:
    """The words of a list or a comma- or space-separated string, in order."""
    items = raw if isinstance(raw, list | tuple) else [raw]
    return [part for item in items for part in re.split(r"[\s,]+", "" if item is None else str(item)) if part]


def _id_list(raw: Any) -> list[str]:
    return list(dict.fromkeys(_parts(raw)))


def _save_die(raw: str, key: str) -> str:
    die = str(raw).strip().upper()
    if die not in SAVE_DICE:
        raise TrackerError(f"{key} must be one of {', '.join(SAVE_DICE)}; got {raw!r}.", field=key)
    return die


def _roll(
    action: Action, dice: Dice, notation: str | Notation, reason: str, *, modifier: int = 0, keep: Keep = Keep.SUM
) -> RollRecord:
    """Roll ``notation`` with ``dice``, or record the ``faces`` typed from physical dice."""
    parsed = parse(notation) if isinstance(notation, str) else notation
    raw = action.payload.get("faces")
    faces: list[int] = []
    for part in _parts(raw if raw not in (None, "") else []):
        try:
            faces.append(int(part))
        except ValueError:
            raise TrackerError(f"faces must be whole numbers; got {part!r}.", field="faces") from None
    if not faces:
        return dice.roll(parsed, reason, modifier=modifier, keep=keep)
    try:
        return Dice.enter(parsed, faces, reason, modifier=modifier, keep=keep)
    except DiceError as exc:
        raise TrackerError(f"faces must be {parsed.count} face(s) of a D{parsed.sides}: {exc}", field="faces") from None


# -- lookups -----------------------------------------------------------------------------------


def _find(items: list[State], item_id: str, what: str, field: str) -> State:
    for item in items:
        if item["id"] == item_id:
            return item
    known = ", ".join(f"{i['id']} ({i['name']})" for i in items) or "none yet"
    raise TrackerError(f"No {what} {item_id!r}; {what}s: {known}.", field=field)


def _squad(state: State, squad_id: str, field: str = "squad") -> State:
    """A squad still in the fight."""
    if not squad_id:
        raise TrackerError(f"{field} is required: a squad id such as s1.", field=field)
    squad = _find(state["squads"], squad_id, "squad", field)
    if squad["destroyed"]:
        raise TrackerError(f"{squad['name']} has been destroyed.", field=field)
    return squad


def _hero(state: State, hero_id: str, field: str = "hero") -> State:
    if not hero_id:
        raise TrackerError(f"{field} is required: a hero id such as h2.", field=field)
    return _find(state["heroes"], hero_id, "hero unit", field)


def _one_squad(state: State, action: Action) -> State:
    """The squad named by ``squad``, or the one ticked squad in ``characters``."""
    squad_id = _text(action, "squad")
    if not squad_id:
        ticked = _id_list(action.payload.get("characters"))
        if len(ticked) != 1:
            raise TrackerError("squad is required: tick exactly one squad.", field="squad")
        squad_id = ticked[0]
    return _squad(state, squad_id)


def _label(squad: State) -> str:
    return f"{squad['name']} ({SQUAD_TYPES[squad['type']][0]} {squad['level']})"


def _side_name(state: State, side: str) -> str:
    return str(state["sides"][side]["name"])


def _other(side: str) -> str:
    return "b" if side == "a" else "a"


def _hero_in(state: State, squad_id: str) -> State | None:
    for hero in state["heroes"]:
        if hero["status"] == "attached" and hero["squad"] == squad_id:
            return hero
    return None


def _free_squads(state: State, side: str) -> list[State]:
    """Squads of ``side`` still fighting without a hero unit attached."""
    return [s for s in state["squads"] if s["side"] == side and not s["destroyed"] and _hero_in(state, s["id"]) is None]


def _where(state: State, hero: State) -> str:
    if hero["status"] == "attached":
        return f"with {_find(state['squads'], hero['squad'], 'squad', 'squad')['name']}"
    return {"watchtower": "in the watchtower", "retreating": "falling back", "trapped": "trapped", "removed": "out of the fight"}[
        hero["status"]
    ]


# -- permissions -------------------------------------------------------------------------------


def _controls_side(state: State, action: Action, side: str) -> bool:
    if action.role == Role.OWNER:
        return True
    return action.role == Role.PLAYER and state["sides"][side]["owner"] == action.actor


def _require_side(state: State, action: Action, side: str) -> None:
    if not _controls_side(state, action, side):
        raise NotYours(f"You do not command {_side_name(state, side)}.")


def _require_hero(state: State, action: Action, hero: State) -> None:
    if _controls_side(state, action, hero["side"]):
        return
    if action.role == Role.PLAYER and hero["owner"] == action.actor:
        return
    raise NotYours(f"{hero['name']} is not your hero unit.")


# -- phase guards ------------------------------------------------------------------------------


def _require_turn(state: State, side: str, *steps: str) -> dict[str, Any]:
    turn = state["turn"]
    if state["phase"] != "action" or turn is None:
        raise TrackerError(f"That happens in the action phase; it is the {state['phase']} phase.", field="type")
    if turn["side"] != side:
        raise TrackerError(f"It is {_side_name(state, turn['side'])}'s turn, not {_side_name(state, side)}'s.", field="type")
    if turn["step"] not in steps:
        raise TrackerError(f"That needs the {' or '.join(steps)} step; this is the {turn['step']} step.", field="type")
    if turn["trapped_due"]:
        names = ", ".join(_hero(state, h)["name"] for h in turn["trapped_due"])
        raise TrackerError(f"First say whether the trapped hero units can move: {names}.", field="type")
    return turn  # type: ignore[no-any-return]


def _require_clear(state: State) -> None:
    if state["pending"] is not None:
        what = "Medic saving throw" if state["pending"]["kind"] == "medic_save" else "barrier roll"
        raise TrackerError(f"Roll the waiting {what} first.", field="type")
    if state["combat"] is not None:
        raise TrackerError("Finish the combat under way first.", field="type")


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


def _station(state: State, hero: State, target: str, field: str) -> None:
    """Attach ``hero`` to squad ``target`` of its side (which has no hero), or the watchtower."""
    if target.lower() == WATCHTOWER:
        for other in state["heroes"]:
            if other is not hero and other["side"] == hero["side"] and other["status"] == "watchtower":
                raise TrackerError(f"{other['name']} already holds {_side_name(state, hero['side'])}'s watchtower.", field=field)
        hero["status"], hero["squad"] = "watchtower", None
        return
    squad = _squad(state, target, field)
    if squad["side"] != hero["side"]:
        raise TrackerError(
            f"{squad['name']} fights for {_side_name(state, squad['side'])}, not {hero['name']}'s side.", field=field
        )
    holder = _hero_in(state, squad["id"])
    if holder is not None and holder is not hero:
        raise TrackerError(f"{squad['name']} already has a hero unit ({holder['name']}).", field=field)
    hero["status"], hero["squad"] = "attached", squad["id"]


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


# -- combat ------------------------------------------------------------------------------------


def _start_combat(state: State, action: Action, dice: Dice) -> list[Event]:
    """``start_combat`` {squads: "s1,s5" or characters: [ids]}: the acting side's ticked squads
    (each spending its standard action) attack the ticked enemy squads in base contact (Casters
    from up to 5 squares away). Source: p.1, Resolving Combat."""
    turn = state["turn"]
    if turn is None:
        raise TrackerError(f"Combats happen in the action phase; it is the {state['phase']} phase.", field="type")
    side = turn["side"]
    _require_side(state, action, side)
    _require_turn(state, side, "combat")
    _require_clear(state)
    ids = _id_list(action.payload.get("squads") or action.payload.get("characters"))
    squads = [_squad(state, i, "squads") for i in ids]
    attackers = [s for s in squads if s["side"] == side]
    defenders = [s for s in squads if s["side"] != side]
    if not attackers or not defenders:
        raise TrackerError(
            f"squads must include at least one squad of {_side_name(state, side)} and one enemy squad.", field="squads"
        )
    for squad in attackers:
        if squad["standard_used"]:
            why = "moved twice" if squad["second_move"] else "attacked"
            raise TrackerError(f"{squad['name']} has {why} this round: no standard action left.", field="squads")
    for squad in attackers:
        squad["standard_used"] = True
    state["combat"] = {
        "attacker": side,
        "defender": _other(side),
        "attackers": [s["id"] for s in attackers],
        "defenders": [s["id"] for s in defenders],
        "exchange": 1,
        "stage": "main",
        "to_roll": [],
        "hits": [],
        "wounds": {},
        "resolving": False,
        "rolled": False,
    }
    text = f"Combat: {', '.join(_label(s) for s in attackers)} attack {', '.join(_label(s) for s in defenders)}."
    return [
        Event("combat_started", text, {"attackers": state["combat"]["attackers"], "defenders": state["combat"]["defenders"]}),
        *_start_exchange(state),
    ]


def _assist(state: State, action: Action, dice: Dice) -> list[Event]:
    """``assist`` {squad}: a Casters squad of either side, within 5 squares, joins the combat under
    way before this exchange's first roll; on the attacking side it spends its standard action.
    Source: p.1, The troops (Casters attack and assist up to 5 squares away)."""
    combat = state["combat"]
    if combat is None or combat["stage"] == "decide" or combat["rolled"] or state["pending"] is not None:
        raise TrackerError("Casters join a combat before its exchange's first roll.", field="squad")
    squad = _one_squad(state, action)
    _require_side(state, action, squad["side"])
    if squad["type"] != "casters":
        raise TrackerError(
            f"Only Casters join from a distance; {squad['name']} is {SQUAD_TYPES[squad['type']][0]}.", field="squad"
        )
    if squad["id"] in combat["attackers"] + combat["defenders"]:
        raise TrackerError(f"{squad['name']} is already in this combat.", field="squad")
    if squad["side"] == combat["attacker"]:
        if squad["standard_used"]:
            raise TrackerError(f"{squad['name']} has no standard action left this round.", field="squad")
        squad["standard_used"] = True
        combat["attackers"].append(squad["id"])
    else:
        combat["defenders"].append(squad["id"])
    text = f"{_label(squad)} joins the combat from up to {CASTER_REACH} squares away."
    return [Event("assist", text, {"squad": squad["id"]}), *_start_exchange(state)]


def _in_combat(state: State, side: str) -> list[State]:
    combat = state["combat"]
    ids = combat["attackers"] if side == combat["attacker"] else combat["defenders"]
    return [s for s in state["squads"] if s["id"] in ids and not s["destroyed"]]


def _start_exchange(state: State) -> list[Event]:
    state["combat"]["rolled"] = False
    fighting = _in_combat(state, "a") + _in_combat(state, "b")
    casters = any(s["type"] == "casters" for s in fighting)
    return _open_stage(state, "first_strike" if casters else "main")


def _open_stage(state: State, stage: str) -> list[Event]:
    combat = state["combat"]
    combat["stage"] = stage
    fighting = _in_combat(state, combat["attacker"]) + _in_combat(state, combat["defender"])
    rolling = [s for s in fighting if (s["type"] == "casters") == (stage == "first_strike")]
    events: list[Event] = []
    if stage == "first_strike":
        events.append(Event("first_strike", "Casters strike first: they roll before the other squads.", {}))
    for squad in rolling:
        if combat_dice(squad) == 0:
            events.append(
                Event(
                    "no_dice", f"{squad['name']} fired {squad['engines_fired']} siege engine(s) and has no combat dice left.", {}
                )
            )
    combat["to_roll"] = [s["id"] for s in rolling if combat_dice(s) > 0]
    if not combat["to_roll"]:
        events += _resolve_stage(state)
    return events


def _combat_roll(state: State, action: Action, dice: Dice) -> list[Event]:
    """``combat_roll`` {squad?, faces?}: roll combat dice, level D6 (less engines fired), for
    ``squad``, or for every squad still to roll that the actor commands. ``faces`` (one per die)
    records physical dice for one squad. When the stage's last squad has rolled, hits land.
    Source: p.1, Resolving Combat and The troops."""
    combat = state["combat"]
    if combat is None or combat["stage"] == "decide":
        raise TrackerError("No combat dice to roll now.", field="squad")
    if state["pending"] is not None:
        raise TrackerError("Roll the waiting Medic saving throw first.", field="squad")
    squad_id = _text(action, "squad")
    if squad_id:
        squad = _find(state["squads"], squad_id, "squad", "squad")
        if squad_id not in combat["to_roll"]:
            raise TrackerError(f"{squad['name']} has no combat dice to roll in this stage.", field="squad")
        _require_side(state, action, squad["side"])
        chosen = [squad]
    else:
        if action.payload.get("faces") not in (None, "", []) and len(combat["to_roll"]) > 1:
            raise TrackerError("squad is required with faces: name the squad the dice are for.", field="squad")
        chosen = [s for s in state["squads"] if s["id"] in combat["to_roll"] and _controls_side(state, action, s["side"])]
        if not chosen:
            raise NotYours("None of the squads still to roll are yours.")
    events: list[Event] = []
    for squad in chosen:
        events.append(_roll_squad(state, squad, action, dice))
    if not combat["to_roll"]:
        events += _resolve_stage(state)
    return events


def _roll_squad(state: State, squad: State, action: Action, dice: Dice) -> Event:
    combat = state["combat"]
    count = combat_dice(squad)
    record = _roll(action, dice, Notation(count, 6), f"Combat: {squad['name']}", keep=Keep.SEPARATE)
    hits = _score(state, squad, list(record.faces))
    combat["hits"] += hits
    combat["to_roll"].remove(squad["id"])
    combat["rolled"] = True
    squad["rolled_turn"] = True
    faces = ", ".join(map(str, record.faces))
    if not hits:
        outcome = "no hit"
    elif len(hits) > 1:
        outcome = f"{len(hits)} hits (every 6 counts against undead)"
    elif hits[0]["only"] is not None and HIT_FACE not in record.faces:
        outcome = "a hit on a squad standing on a magic circle (5 or 6)"
    else:
        outcome = "a hit"
    fewer = f", {squad['engines_fired']} fewer for siege engines fired" if squad["engines_fired"] else ""
    return Event(
        "combat_roll",
        f"{_label(squad)} rolls {record.notation}{fewer}: {faces}: {outcome}.",
        {"squad": squad["id"], "hits": len(hits), "roll": record.as_dict()},
    )


def _score(state: State, squad: State, faces: list[int]) -> list[dict[str, Any]]:
    """The hits ``squad`` scores with ``faces``: one at most on a 6 (or on a 5 against squads on a
    magic circle), except Paladins against undead, who score with every 6. Each hit may be
    restricted (``only``) to the squads it can land on."""
    enemies = _in_combat(state, _other(squad["side"]))
    circled = [e["id"] for e in enemies if e["circle"] and _circle_stands(state, e["circle"])]
    undead = [e["id"] for e in enemies if e["undead"]]
    sixes = faces.count(HIT_FACE)
    fives = faces.count(CIRCLE_HIT_FACE)

    def hit(only: list[str] | None) -> dict[str, Any]:
        return {"from": squad["id"], "side": squad["side"], "only": None if only is None else list(only)}

    hits: list[dict[str, Any]] = []
    five_used = False
    if sixes:
        hits.append(hit(None))
    elif fives and circled:
        hits.append(hit(circled))
        five_used = True
    if squad["type"] == "paladins" and undead:
        hits += [hit(undead) for _ in range(max(0, sixes - 1))]
        undead_circled = [u for u in undead if u in circled]
        if undead_circled:
            hits += [hit(undead_circled) for _ in range(fives - (1 if five_used else 0))]
    return hits


def _circle_stands(state: State, circle_id: str) -> bool:
    return any(d["id"] == circle_id and not d["destroyed"] for d in state["defences"])


def _resolve_stage(state: State) -> list[Event]:
    """Hits of the stage land: Soldiers' and Heal cancellations first, then each hit takes the
    first eligible squad in the loss order; half-level-or-less hitters need two hits."""
    combat = state["combat"]
    hits = combat["hits"]
    combat["hits"] = []
    events: list[Event] = []
    for side in (combat["attacker"], combat["defender"]):
        incoming = sorted((h for h in hits if h["side"] != side), key=lambda h: h["only"] is not None)
        if not incoming:
            continue
        scorers = []
        for h in hits:
            if h["side"] == side and h["from"] not in scorers:
                scorers.append(h["from"])
        for squad_id in scorers:
            squad = _find(state["squads"], squad_id, "squad", "squad")
            if squad["type"] == "soldiers" and incoming:
                gone = incoming.pop(0)
                source = _find(state["squads"], gone["from"], "squad", "squad")
                events.append(
                    Event("hit_ignored", f"{squad['name']} scored, so {source['name']}'s hit is ignored (Soldiers).", {})
                )
        for squad in _in_combat(state, side):
            if squad["heal"] and incoming:
                squad["heal"] = False
                gone = incoming.pop(0)
                source = _find(state["squads"], gone["from"], "squad", "squad")
                events.append(Event("hit_ignored", f"The heal on {squad['name']} turns aside {source['name']}'s hit.", {}))
        order = _loss_order(state, side, _in_combat(state, side))
        marked: set[str] = set()
        for h in sorted(incoming, key=lambda h: h["only"] is None):
            source = _find(state["squads"], h["from"], "squad", "squad")
            target = next((s for s in order if s["id"] not in marked and (h["only"] is None or s["id"] in h["only"])), None)
            if target is None:
                events.append(Event("hit_wasted", f"{source['name']}'s hit finds no squad left to take it.", {}))
                continue
            if source["level"] * 2 <= target["level"]:
                wounds = combat["wounds"].get(target["id"], 0) + 1
                if wounds < 2:
                    combat["wounds"][target["id"]] = wounds
                    events.append(
                        Event(
                            "hit_wound",
                            f"{source['name']}'s hit staggers {_label(target)}: at half its level or less, it needs a second hit.",
                            {"squad": target["id"]},
                        )
                    )
                    continue
                combat["wounds"].pop(target["id"], None)
            marked.add(target["id"])
            state["losses"].append({"squad": target["id"], "cause": f"hit by {source['name']}"})
    combat["resolving"] = True
    return events + _drain(state)


def _loss_order(state: State, side: str, squads: list[State]) -> list[State]:
    """``squads`` in the order ``side`` gives them up: its ``loss_order`` first, then lowest level
    first (ties in the order they joined). Source: p.1 (the opposing side chooses)."""
    listed = state["sides"][side]["loss_order"]
    joined = [s["id"] for s in state["squads"]]

    def key(squad: State) -> tuple[int, int, int]:
        if squad["id"] in listed:
            return (0, listed.index(squad["id"]), 0)
        return (1, squad["level"], joined.index(squad["id"]))

    return sorted(squads, key=key)


def _medic_for(state: State, squad: State) -> State | None:
    medic_id = squad["medic"]
    if not medic_id or medic_id == squad["id"]:
        return None
    for medic in state["squads"]:
        if medic["id"] == medic_id and not medic["destroyed"] and medic["side"] == squad["side"] and medic["type"] == "medics":
            return medic
    return None


def _drain(state: State) -> list[Event]:
    """Destroy the squads waiting in ``losses`` in order, stopping for a Medic saving throw."""
    events: list[Event] = []
    while state["losses"]:
        entry = state["losses"][0]
        squad = _find(state["squads"], entry["squad"], "squad", "squad")
        if squad["destroyed"]:
            state["losses"].pop(0)
            continue
        medic = _medic_for(state, squad)
        if medic is not None:
            state["pending"] = {"kind": "medic_save", "squad": squad["id"], "medic": medic["id"], "cause": entry["cause"]}
            settings = state["settings"]
            events.append(
                Event(
                    "medic_save_due",
                    f"{squad['name']} would fall ({entry['cause']}): {medic['name']} rolls {settings['save_die']} + {medic['level']}, needing {settings['save_target']}.",
                    {"squad": squad["id"], "medic": medic["id"]},
                )
            )
            return events
        state["losses"].pop(0)
        events += _destroy(state, squad, entry["cause"])
    return events + _continue(state)


def _destroy(state: State, squad: State, cause: str) -> list[Event]:
    squad["destroyed"] = True
    squad["medic"] = squad["circle"] = None
    events = [Event("squad_destroyed", f"{_label(squad)} is destroyed ({cause}).", {"squad": squad["id"]})]
    hero = _hero_in(state, squad["id"])
    if hero is not None:
        hero["minor_lost"] = True
        hero["squad"] = None
        if _free_squads(state, squad["side"]):
            hero["status"] = "retreating"
            text = f"{hero['name']} falls back to the closest squad without a hero (to be named) and loses its minor action this round."
        else:
            hero["status"] = "trapped"
            text = f"{hero['name']} has no squad without a hero to reach and is trapped."
        events.append(Event("hero_displaced", text, {"hero": hero["id"], "status": hero["status"]}))
    return events


def _continue(state: State) -> list[Event]:
    combat = state["combat"]
    if combat is None or not combat["resolving"]:
        return []
    combat["resolving"] = False
    if combat["stage"] == "first_strike":
        return _open_stage(state, "main")
    attackers = _in_combat(state, combat["attacker"])
    defenders = _in_combat(state, combat["defender"])
    if attackers and defenders:
        combat["stage"] = "decide"
        text = f"Both sides still stand: {_side_name(state, combat['attacker'])} presses the attack or retreats one square."
        return [Event("exchange_over", text, {})]
    state["combat"] = None
    if attackers:
        text = f"{_side_name(state, combat['attacker'])} wins the combat."
    elif defenders:
        text = f"{_side_name(state, combat['defender'])} holds: the attack is broken."
    else:
        text = "No squad of either side is left standing in that combat."
    return [Event("combat_over", text, {})]


def _medic_save(state: State, action: Action, dice: Dice) -> list[Event]:
    """``medic_save`` {faces?}: the waiting Medic saving throw, the save die + the Medic's level
    against the save target; a success keeps the squad. Source: p.1, The troops (Medics/Clerics;
    die and target are table settings)."""
    pending = state["pending"]
    if pending is None or pending["kind"] != "medic_save":
        raise TrackerError("No Medic saving throw is waiting.", field="type")
    squad = _find(state["squads"], pending["squad"], "squad", "squad")
    medic = _find(state["squads"], pending["medic"], "squad", "squad")
    _require_side(state, action, squad["side"])
    settings = state["settings"]
    record = _roll(
        action, dice, settings["save_die"], f"Medic save: {medic['name']} for {squad['name']}", modifier=medic["level"]
    )
    saved = (record.total or 0) >= settings["save_target"]
    state["pending"] = None
    state["losses"].pop(0)
    outcome = f"{squad['name']} is saved" if saved else f"{squad['name']} is lost"
    events = [
        Event(
            "medic_save",
            f"{medic['name']} rolls {settings['save_die']} {record.natural} + level {medic['level']} = {record.total} against {settings['save_target']}: {outcome}.",
            {"squad": squad["id"], "saved": saved, "roll": record.as_dict()},
        )
    ]
    if not saved:
        events += _destroy(state, squad, pending["cause"])
    return events + _drain(state)


def _press(state: State, action: Action, dice: Dice) -> list[Event]:
    """``press``: both sides stand, and the attacker rolls another exchange. Source: p.1."""
    combat = _deciding(state, action)
    combat["exchange"] += 1
    return [
        Event("pressed", f"{_side_name(state, combat['attacker'])} presses the attack (exchange {combat['exchange']}).", {}),
        *_start_exchange(state),
    ]


def _retreat(state: State, action: Action, dice: Dice) -> list[Event]:
    """``retreat`` {position?}: the attacking squads step back one square out of combat, which
    ends it. Source: p.1, Resolving Combat."""
    combat = _deciding(state, action)
    position = _text(action, "position", max_len=80)
    names = []
    for squad in _in_combat(state, combat["attacker"]):
        names.append(squad["name"])
        if position:
            squad["position"] = position
    state["combat"] = None
    return [Event("retreated", f"{', '.join(names)} pull back one square, out of combat.", {})]


def _deciding(state: State, action: Action) -> dict[str, Any]:
    combat = state["combat"]
    if combat is None or combat["stage"] != "decide":
        raise TrackerError("Pressing or retreating comes when an exchange leaves both sides standing.", field="type")
    _require_side(state, action, combat["attacker"])
    return combat  # type: ignore[no-any-return]


# -- siege engines and barriers ----------------------------------------------------------------


def _fire_engine(state: State, action: Action, dice: Dice) -> list[Event]:
    """``fire_engine`` {engine, squad, target, faces?}: in its side's combat step, a squad next to
    the siege engine fires it (once a round) at an enemy siege engine, defensive barrier or large
    squad: level D6, any 6 hits; the squad rolls one combat die fewer this round per engine fired.
    An engine or large squad hit is destroyed; a barrier hit makes its owner roll to keep it.
    Source: p.1, Defenses and siege weapons."""
    engine = _find(state["engines"], _text(action, "engine", required="a siege engine id"), "siege engine", "engine")
    if engine["destroyed"]:
        raise TrackerError(f"{engine['name']} has been destroyed.", field="engine")
    _require_side(state, action, engine["side"])
    _require_turn(state, engine["side"], "combat")
    _require_clear(state)
    if engine["fired"]:
        raise TrackerError(f"{engine['name']} has fired this round.", field="engine")
    squad = _squad(state, _text(action, "squad"))
    if squad["side"] != engine["side"]:
        raise TrackerError(f"{squad['name']} cannot work an enemy engine.", field="squad")
    if squad["rolled_turn"]:
        raise TrackerError(
            f"{squad['name']} has rolled its combat dice this turn; fire engines before its combat.", field="squad"
        )
    target_id = _text(action, "target", required="an enemy siege engine, defensive barrier or large squad")
    target, kind = _engine_target(state, engine, target_id)
    record = _roll(action, dice, Notation(engine["level"], 6), f"Siege: {engine['name']} at {target['name']}", keep=Keep.SEPARATE)
    hit = HIT_FACE in record.faces
    engine["fired"] = True
    squad["engines_fired"] += 1
    faces = ", ".join(map(str, record.faces))
    text = (
        f"{engine['name']} (worked by {squad['name']}, now one combat die fewer) fires {record.notation} at {target['name']}: "
        f"{faces}: {'a hit' if hit else 'a miss'}."
    )
    events = [Event("engine_fired", text, {"engine": engine["id"], "hit": hit, "roll": record.as_dict()})]
    if not hit:
        return events
    if kind == "engine":
        target["destroyed"] = True
        events.append(Event("engine_destroyed", f"{target['name']} is smashed.", {"engine": target["id"]}))
    elif kind == "barrier":
        if target["level"] == 0:
            target["destroyed"] = True
            events.append(
                Event("barrier_destroyed", f"{target['name']}, at level 0, falls to the hit.", {"defence": target["id"]})
            )
        else:
            state["pending"] = {"kind": "barrier_save", "defence": target["id"], "engine": engine["id"]}
            events.append(
                Event(
                    "barrier_save_due",
                    f"{target['name']} is hit: its owner rolls {target['level']}D6, keeping it on any 5 or 6.",
                    {},
                )
            )
    else:
        state["losses"].append({"squad": target["id"], "cause": f"siege hit from {engine['name']}"})
        events += _drain(state)
    return events


def _engine_target(state: State, engine: State, target_id: str) -> tuple[State, str]:
    enemy = _other(engine["side"])
    for other in state["engines"]:
        if other["id"] == target_id and other["side"] == enemy and not other["destroyed"]:
            return other, "engine"
    for defence in state["defences"]:
        if defence["id"] == target_id and defence["side"] == enemy and defence["kind"] == "barrier" and not defence["destroyed"]:
            return defence, "barrier"
    for squad in state["squads"]:
        if squad["id"] == target_id and squad["side"] == enemy and squad["large"] and not squad["destroyed"]:
            return squad, "squad"
    raise TrackerError(
        "target must be a standing enemy siege engine, defensive barrier or large squad: siege engines shoot at nothing else.",
        field="target",
    )


def _barrier_save(state: State, action: Action, dice: Dice) -> list[Event]:
    """``barrier_save`` {faces?}: the hit barrier's owner rolls D6 equal to its level; any 5 or 6
    keeps it standing one level lower, otherwise it is destroyed. Source: p.1, Defenses."""
    pending = state["pending"]
    if pending is None or pending["kind"] != "barrier_save":
        raise TrackerError("No barrier roll is waiting.", field="type")
    barrier = _find(state["defences"], pending["defence"], "defence", "type")
    _require_side(state, action, barrier["side"])
    record = _roll(action, dice, Notation(barrier["level"], 6), f"Barrier: {barrier['name']}", keep=Keep.SEPARATE)
    holds = any(f >= BARRIER_SAVE_FACE for f in record.faces)
    state["pending"] = None
    faces = ", ".join(map(str, record.faces))
    if holds:
        barrier["level"] -= 1
        text = f"{barrier['name']} rolls {record.notation}: {faces}: it holds, now level {barrier['level']}."
    else:
        barrier["destroyed"] = True
        text = f"{barrier['name']} rolls {record.notation}: {faces}: no 5 or 6, it is destroyed."
    return [Event("barrier_save", text, {"defence": barrier["id"], "holds": holds, "roll": record.as_dict()})]


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
