"""Mass combat: reading an action's payload, rolling, finding squads and heroes, who controls a side, the phase guards and stationing a hero (Quickstart Rules for Mass Combat, p.1)."""

from __future__ import annotations

import re
from typing import Any

from live.engine.tracker import Action, NotYours, Role, TrackerError
from rules.engine.dice import Dice, DiceError, Keep, Notation, RollRecord, parse
from tabletools.engine.mass_combat.constants import SAVE_DICE, SQUAD_TYPES, WATCHTOWER, State

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
