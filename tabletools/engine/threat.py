"""Combat threat and action tracker (the "Combat threat and action tracker" module, p.1).

Combat runs in rounds of an Offense phase then a Defence phase. The combat threat (1-5) sets how
many combat actions each phase allows (``mapping``, owner-editable). A combat action rolls 2D6 plus
a modifier: 6 or less is a failure, 7-9 a partial success, 10+ a success, and two natural 6s an
ultra success. An Offense failure and a Defence success each use one extra action; a Defence ultra
switches to Offense at once. A character attacks (takes an Offense action) at most once per
phase, but may be attacked, and so defend, any number of times in a Defence phase; a tag team
action uses two characters and counts as one action. When the phase's actions run out the phase
changes.

State (JSON-ready dict)::

    {"threat": 3, "phase": "offense" | "defence", "round": 1, "actions_left": 2,
     "mapping": {"1": [3, 1], ..., "5": [1, 3]},      # threat -> [offense, defence] actions
     "characters": [{"id": "c1", "name": "Ripley", "owner": "7" | None,
                     "acted": False}],                # attacked in this Offense phase
     "complications": [...names], "ultra_successes": [...names],
     "offer": None | {"kind": "complication" | "ultra", "characters": [...ids]},
     "last": None | {...the last combat action's outcome}, "next_id": 2}

Actions: ``add_character`` {name, owner?}, ``set_owner`` {id, owner?: user id, blank for the
owner}, ``remove_character`` {id}, ``set_threat`` {level},
``set_mapping`` {threat, offense, defence}, ``combat_action`` {characters: [id] or [id, id],
modifier?, faces?: [d6, d6] for a physical roll}, ``choose`` {name} (a complication or ultra
success from the offer), ``end_phase``. Only the owner edits the set-up; a player may act only
with characters assigned to them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from live.engine.tracker import Action, Event, NotYours, Role, TrackerError, payload_int, require_owner
from rules.engine.dice import Dice, DiceError, RollRecord
from rules.engine.state import copy_state

OFFENSE = "offense"
DEFENCE = "defence"

DEFAULT_MAPPING: dict[str, list[int]] = {"1": [3, 1], "2": [3, 1], "3": [2, 2], "4": [1, 3], "5": [1, 3]}
"""Threat -> [Offense actions, Defence actions]. The printed tracker aligns 3-2-1 under threats
1, 3 and 5 only; threats 2 and 4 take their lower neighbour's (2 as 1, 4 as 5). The owner may
change any row with ``set_mapping``."""


def initial_state(
    *,
    threat: int = 3,
    mapping: Mapping[str, Sequence[int]] | None = None,
    complications: Sequence[str] = (),
    ultra_successes: Sequence[str] = (),
) -> dict[str, Any]:
    """A new combat at ``threat``, opening with the Offense phase."""
    rows = {str(k): list(v) for k, v in (mapping or DEFAULT_MAPPING).items()}
    return {
        "threat": threat,
        "phase": OFFENSE,
        "round": 1,
        "actions_left": rows[str(threat)][0],
        "mapping": rows,
        "characters": [],
        "complications": list(complications),
        "ultra_successes": list(ultra_successes),
        "offer": None,
        "last": None,
        "next_id": 1,
    }


def band(record: RollRecord) -> str:
    """``failure`` (6-), ``partial`` (7-9), ``success`` (10+) or ``ultra`` (two natural 6s)."""
    if len(record.faces) == 2 and record.faces[0] == record.faces[1] == 6:
        return "ultra"
    total = record.total or 0
    if total <= 6:
        return "failure"
    if total <= 9:
        return "partial"
    return "success"


CONSEQUENCES: dict[tuple[str, str], str] = {
    (OFFENSE, "failure"): "No damage; the action tracker moves one extra space.",
    (OFFENSE, "partial"): "Damage dealt, with an offense complication.",
    (OFFENSE, "success"): "Damage dealt.",
    (OFFENSE, "ultra"): "Damage dealt, and something amazing happens.",
    (DEFENCE, "failure"): "Full damage taken.",
    (DEFENCE, "partial"): "A defence complication.",
    (DEFENCE, "success"): "No damage; the action tracker moves one extra space.",
    (DEFENCE, "ultra"): "Straight to Offense, and something amazing happens.",
}


def apply(state: dict[str, Any], action: Action, dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    """The reducer. Raises :class:`TrackerError` (or :class:`NotYours`) and changes nothing when
    the action is refused."""
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise TrackerError(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", field="type")
    new = copy_state(state)
    events = handler(new, action, dice)
    return new, events


# -- set-up --------------------------------------------------------------------------------


def _add_character(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    name = str(action.payload.get("name", "")).strip()
    if not name:
        raise TrackerError("name is required: the character's name.", field="name")
    owner = action.payload.get("owner")
    char_id = f"c{state['next_id']}"
    state["next_id"] += 1
    state["characters"].append(
        {"id": char_id, "name": name[:60], "owner": None if owner in (None, "") else str(owner), "acted": False}
    )
    return [Event("character_added", f"{name} joins the combat.", {"id": char_id})]


def _set_owner(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    char = _character(state, str(action.payload.get("id", "")))
    owner = action.payload.get("owner")
    char["owner"] = None if owner in (None, "") else str(owner)
    who = "a player" if char["owner"] else "the owner"
    return [Event("set_owner", f"{char['name']} is now played by {who}.", {"id": char["id"], "owner": char["owner"]})]


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand every character ``player`` (a user id as text) plays back to the owner."""
    return [("set_owner", {"id": c["id"], "owner": ""}) for c in state["characters"] if c["owner"] == player]


def _remove_character(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    char = _character(state, str(action.payload.get("id", "")))
    state["characters"] = [c for c in state["characters"] if c["id"] != char["id"]]
    return [Event("character_removed", f"{char['name']} leaves the combat.", {"id": char["id"]})]


def _set_threat(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    level = payload_int(action, "level", low=1, high=5)
    old = state["threat"]
    state["threat"] = level
    return [
        Event("threat_changed", f"Combat threat {old} → {level}; it sets the actions from the next phase.", {"threat": level})
    ]


def _set_mapping(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    threat = payload_int(action, "threat", low=1, high=5)
    offense = payload_int(action, "offense", low=1, high=3)
    defence = payload_int(action, "defence", low=1, high=3)
    state["mapping"][str(threat)] = [offense, defence]
    return [
        Event(
            "mapping_changed", f"Threat {threat} now gives {offense} Offense and {defence} Defence actions.", {"threat": threat}
        )
    ]


# -- play ----------------------------------------------------------------------------------


def _combat_action(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    if state["offer"] is not None:
        kind = "complication" if state["offer"]["kind"] == "complication" else "ultra success"
        raise TrackerError(f"Choose the {kind} for the last action first.", field="type")
    ids = action.payload.get("characters")
    if not isinstance(ids, list) or not 1 <= len(ids) <= 2 or len(set(map(str, ids))) != len(ids):
        raise TrackerError("characters must list one character, or two different ones for a tag team action.", field="characters")
    chars = [_character(state, str(i)) for i in ids]
    for char in chars:
        if action.role == Role.VIEWER or (action.role == Role.PLAYER and char["owner"] != action.actor):
            raise NotYours(f"{char['name']} is not one of your characters.")
        # Seed 003 (combat threat and action tracker, p.1): the once-per-phase limit is on
        # attacking. Defending is not limited: a character may be attacked again and again in
        # one Defence phase, and defends each time.
        if state["phase"] == OFFENSE and char["acted"]:
            raise TrackerError(f"{char['name']} has already attacked this offense phase.", field="characters")
    modifier = payload_int(action, "modifier", low=-10, high=10, default=0)
    names = " and ".join(c["name"] for c in chars)
    reason = f"{state['phase'].capitalize()} action: {names}"
    faces = action.payload.get("faces")
    if faces is not None:
        try:
            record = Dice.enter("2D6", list(faces), reason, modifier=modifier)
        except (DiceError, TypeError, ValueError) as exc:
            raise TrackerError(f"faces must be two D6 faces, 1 to 6: {exc}", field="faces") from None
    else:
        record = dice.roll("2D6", reason, modifier=modifier)
    outcome = band(record)
    phase = state["phase"]
    cost = 1 + (1 if (phase, outcome) in {(OFFENSE, "failure"), (DEFENCE, "success")} else 0)
    if phase == OFFENSE:
        for char in chars:
            char["acted"] = True
    state["actions_left"] = max(0, state["actions_left"] - cost)
    label = {"failure": "Failure", "partial": "Partial success", "success": "Success", "ultra": "Ultra success"}[outcome]
    tag = " (tag team)" if len(chars) == 2 else ""
    state["last"] = {
        "characters": [c["id"] for c in chars],
        "phase": phase,
        "band": outcome,
        "roll": record.as_dict(),
        "cost": cost,
    }
    events = [
        Event(
            "combat_action",
            f"{names}{tag}, {phase}: {label}. {CONSEQUENCES[(phase, outcome)]}",
            {"band": outcome, "phase": phase, "cost": cost, "roll": record.as_dict()},
        )
    ]
    if outcome == "partial":
        state["offer"] = {"kind": "complication", "characters": [c["id"] for c in chars]}
    elif outcome == "ultra":
        state["offer"] = {"kind": "ultra", "characters": [c["id"] for c in chars]}
    if phase == DEFENCE and outcome == "ultra":
        events += _change_phase(state, to=OFFENSE, why="a Defence ultra success")
    elif state["actions_left"] == 0:
        events += _change_phase(state, to=DEFENCE if phase == OFFENSE else OFFENSE, why="no actions left")
    return events


def _choose(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    offer = state["offer"]
    if offer is None:
        raise TrackerError("Nothing to choose: no complication or ultra success is waiting.", field="name")
    if action.role == Role.VIEWER:
        raise NotYours("Viewers cannot choose.")
    name = str(action.payload.get("name", "")).strip()
    if not name:
        raise TrackerError("name is required: pick one from the list, or describe your own.", field="name")
    state["offer"] = None
    events = [
        Event("chosen", f"{'Complication' if offer['kind'] == 'complication' else 'Something amazing'}: {name}.", {"name": name})
    ]
    shift = {"+1 Combat threat": 1, "-1 Combat threat": -1}.get(name)
    if shift:
        level = min(5, max(1, state["threat"] + shift))
        if level != state["threat"]:
            state["threat"] = level
            events.append(Event("threat_changed", f"Combat threat is now {level}.", {"threat": level}))
    return events


def _end_phase(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    require_owner(action)
    return _change_phase(state, to=DEFENCE if state["phase"] == OFFENSE else OFFENSE, why="the referee ended it")


def _change_phase(state: dict[str, Any], *, to: str, why: str) -> list[Event]:
    if to == OFFENSE:
        state["round"] += 1
    state["phase"] = to
    offense, defence = state["mapping"][str(state["threat"])]
    state["actions_left"] = offense if to == OFFENSE else defence
    for char in state["characters"]:
        char["acted"] = False
    return [
        Event(
            "phase_changed",
            f"Round {state['round']}, {to.capitalize()} phase ({why}): {state['actions_left']} action(s) at threat {state['threat']}.",
            {"phase": to, "round": state["round"], "actions_left": state["actions_left"]},
        )
    ]


def _character(state: dict[str, Any], char_id: str) -> dict[str, Any]:
    for char in state["characters"]:
        if char["id"] == char_id:
            return char  # type: ignore[no-any-return]
    known = ", ".join(f"{c['id']} ({c['name']})" for c in state["characters"]) or "none yet"
    raise TrackerError(f"No character {char_id!r}; characters: {known}.", field="characters")


_HANDLERS = {
    "add_character": _add_character,
    "set_owner": _set_owner,
    "remove_character": _remove_character,
    "set_threat": _set_threat,
    "set_mapping": _set_mapping,
    "combat_action": _combat_action,
    "choose": _choose,
    "end_phase": _end_phase,
}
