"""The Stealth tracker's reducer: the battle tracker's actions wrapped (a loud attack raises the
alarm), each action's handler, :func:`apply`, :func:`outcome`, :func:`release`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from battles.engine import fp_tracker
from battles.engine.fp_stealth.generate import SOURCE
from battles.engine.fp_stealth.tracker.base import (
    LOUD_POWERS,
    MOVE_MODIFIERS,
    OUTSIDE_VISION_BONUS,
    SILENT_WEAPONS,
    _now,
    _s,
    _stealthy,
    _sync,
)
from battles.engine.fp_stealth.tracker.detection import _blocked, _patrol, _raise_alarm, _reinforcements, _spot
from battles.engine.fp_stealth.tracker.objective import (
    _alarm,
    _distraction,
    _exfiltrate,
    _hand_off,
    _individual_off,
    _lure,
    _objective,
    _pick_up,
    _search,
    _stay_down,
)
from battles.engine.fp_tracker.base import _copy_state, _err, _roll, _rolls
from battles.engine.fp_tracker.lookups import _crew_up, _on_table, _refresh
from battles.engine.fp_tracker.reducer import _HANDLERS as _BATTLE_HANDLERS
from live.engine.tracker import (
    Action,
    Event,
    TrackerError,
    payload_faces,
    payload_flag,
    require_owner,
)
from rules.engine.dice import Dice, DiceError
from rules.engine.tables import RangeTable

# -- wrapped battle-tracker actions ------------------------------------------------------------------------


def _delegate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    new, events = fp_tracker.apply(state, action, dice, tables)
    state.clear()
    state.update(new)
    return events


def _next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The round (p.120): Stealth rounds run Reactions, Quick, Enemy (the patrol) and Slow; their
    End phase has no Morale or Escalation (ruling: the enemy has not noticed anything). After the
    alarm every round is the battle tracker's, and starts with the reinforcement roll. The
    Individual moves 4" at random at the end of every Enemy phase (``individual_faces``, D12)."""
    require_owner(action)
    s = _s(state)
    phase = state["phase"]
    if phase == "slow" and not s["alarm"]:
        state["phase"] = "end"
        return [
            Event("phase", f"End of Stealth round {state['round']}: the enemy noticed nothing, so no Morale or Escalation.", {})
        ]
    extra: list[Event] = []
    if phase == "enemy":
        individual = s["individual"]
        if individual and not individual["joined"] and not individual["gone"]:
            record = _roll(
                dice, "D12", f"{individual['name']}: random move (p.119)", payload_faces(action, "individual_faces", 1, 12)
            )
            extra.append(
                Event(
                    "individual",
                    f"{individual['name']} moves {individual['profile']['speed']}\" toward {record.total} o'clock, halting "
                    "at danger (p.119).",
                    _rolls(record),
                )
            )
    events = _delegate(state, action, dice, tables)
    if state["phase"] == "start" and phase in ("end", "setup"):
        s.update(sentry=None, blocked=[], suspicious=None)
        if s["alarm"]:
            events.append(_reinforcements(state, action, dice))
    if state["phase"] == "over" and state["held_field"] and _crew_up(state):
        # The enemy is gone, but the mission ends with the crew's exfiltration (p.117).
        state["phase"], state["held_field"] = "end", None
        events.append(Event("phase", "The enemy is off the table; the crew must still get out (p.117).", {}))
    return extra + events


def _loud(state: Mapping[str, Any], action: Action, before: Mapping[str, Any]) -> str:
    """Why an attack raised the alarm (p.122), or ``""``."""
    attacker = next((f for f in before["crew"] + before["enemies"] if f["id"] == str(action.payload.get("attacker"))), None)
    target_id = str(action.payload.get("target"))
    target = next((f for f in state["crew"] + state["enemies"] if f["id"] == target_id), None)
    if attacker is None or target is None:
        return ""
    if attacker["side"] == "enemy":
        return f"{attacker['name']} attacks."
    weapons = attacker["weapons"]
    name = str(action.payload.get("weapon") or (weapons[0]["name"] if weapons else "")).strip().lower()
    mode = str(action.payload.get("mode") or "shot").strip().lower()
    if mode == "shot" and name not in SILENT_WEAPONS:
        return f"{attacker['name']} fires a {name or 'weapon'}, which is not silent."
    if mode == "brawl" and "ripper" in name:
        return f"{attacker['name']} uses a Ripper sword."
    if target["side"] == "enemy" and target["status"] == "active":
        return f"{target['name']} is not knocked out by the attack."
    return ""


def _resolve(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """An attack (the battle tracker's ``resolve``). In a Stealth round ``unseen`` on gives +2 to
    the crew attacker's shot or Brawl from outside the enemy's Field of Vision (p.122, added to
    its Combat Skill for this attack); the attack raises the alarm when the weapon is not a Hand
    gun or Needle rifle, a Ripper sword is used, or the enemy target is not knocked out."""
    stealthy = _stealthy(state)
    unseen = stealthy and payload_flag(action, "unseen")
    before = _copy_state(state)
    attacker = next((f for f in state["crew"] if f["id"] == str(action.payload.get("attacker"))), None)
    if unseen and attacker is not None:
        attacker["combat_skill"] += OUTSIDE_VISION_BONUS
    try:
        events = _delegate(state, action, dice, tables)
    finally:
        if unseen and attacker is not None:
            fig = next(f for f in state["crew"] if f["id"] == attacker["id"])
            fig["combat_skill"] -= OUTSIDE_VISION_BONUS
    if unseen and attacker is not None:
        events = [
            Event(e.type, f"(+{OUTSIDE_VISION_BONUS} from outside the Field of Vision, p.122) {e.text}", e.data) for e in events
        ]
    if stealthy:
        cause = _loud(state, action, before)
        if cause:
            events.extend(_raise_alarm(state, action, dice, cause))
    return events


def _psionic(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew Psionic power (the battle tracker's ``psionic``). In a Stealth round Grab, Shock or
    Psionic Scare on an enemy raises the alarm unless it leaves play (p.122)."""
    events = _delegate(state, action, dice, tables)
    power = str(action.payload.get("power") or "").strip().lower()
    target = next((f for f in state["enemies"] if f["id"] == str(action.payload.get("target"))), None)
    if _stealthy(state) and power in LOUD_POWERS and target is not None and target["status"] == "active":
        events.extend(_raise_alarm(state, action, dice, f"{power.title()} on {target['name']}, who stays in play."))
    return events


def _enemy_act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """In Stealth rounds enemies do not use their AI (p.120): use ``patrol``; after the alarm, the
    battle tracker's ``enemy_act``."""
    _need_stealth_not(state)
    return _delegate(state, action, dice, tables)


def _need_stealth_not(state: Mapping[str, Any]) -> None:
    if _stealthy(state):
        raise _err("In Stealth rounds enemies do not use their AI: roll the patrol instead (p.120).", "type")


def _act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew activation (the battle tracker's ``act``); it ends a Stay Down made in an earlier round."""
    fid = str(action.payload.get("figure"))
    events = _delegate(state, action, dice, tables)
    downs = _s(state)["stay_down"]
    if fid in downs and downs[fid] < state["round"]:
        del downs[fid]
    return events


Handler = Callable[[dict[str, Any], Action, Dice, Mapping[str, RangeTable]], list[Event]]
_OWN: dict[str, Handler] = {
    "spot": _spot,
    "patrol": _patrol,
    "blocked": _blocked,
    "stay_down": _stay_down,
    "distraction": _distraction,
    "lure": _lure,
    "search": _search,
    "objective": _objective,
    "hand_off": _hand_off,
    "pick_up": _pick_up,
    "exfiltrate": _exfiltrate,
    "individual_off": _individual_off,
    "alarm": _alarm,
    "next_phase": _next_phase,
    "resolve": _resolve,
    "psionic": _psionic,
    "enemy_act": _enemy_act,
    "act": _act,
}
#: Every action type the Stealth tracker takes: its own and the battle tracker's.
ACTIONS: tuple[str, ...] = tuple(sorted({*_OWN, *_BATTLE_HANDLERS}))


def _settle(state: dict[str, Any]) -> list[Event]:
    """Drop the item of a fallen carrier (p.118); end the mission when no crew figure is left on
    the table (exfiltrated or down)."""
    s = _s(state)
    events: list[Event] = []
    objective = s["objective"]
    carrier = next((f for f in state["crew"] if f["id"] == objective["carrier"]), None)
    if carrier is not None and carrier["status"] not in ("active", "exfiltrated"):
        objective.update(carrier=None, dropped=True)
        events.append(Event("item", f"{carrier['name']} falls and drops the item where they lie (p.118).", {}))
    joined = s["individual"] and s["individual"]["joined"]
    if joined and objective["key"] == "rescue" and not objective["achieved"]:
        fig = next(f for f in state["crew"] if f["id"] == joined)
        if fig["status"] == "casualty":
            objective["failed"] = True
    if state["round"] and not _crew_up(state) and not s["finished"]:
        state["phase"] = "over"
        state["held_field"] = not _on_table(state)
        won = bool(objective["achieved"]) and not objective["failed"]
        why = f"no crew figure is left on the table; the objective ({objective['name']}) is {'done' if won else 'not done'}."
        s["finished"] = {"won": won, "why": why}
        events.append(Event("mission_over", f"Mission over: {why}", {"won": won}))
    elif state["phase"] == "over" and not s["finished"]:
        won = bool(objective["achieved"]) and not objective["failed"]
        s["finished"] = {"won": won, "why": f"the battle was ended; the objective is {'done' if won else 'not done'}."}
    return events


def apply(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The Stealth mission reducer: ``(state, action, dice, tables) -> (new_state, events)``.

    Its own actions (``spot``, ``patrol``, ``blocked``, ``stay_down``, ``distraction``, ``lure``,
    ``search``, ``objective``, ``hand_off``, ``pick_up``, ``exfiltrate``, ``individual_off``,
    ``alarm``) and the battle tracker's (:func:`fp_tracker.apply`), some wrapped for the Stealth
    rules (``next_phase``, ``resolve``, ``psionic``, ``enemy_act``, ``act``). Raises
    :class:`TrackerError` naming the payload field, changing nothing, when the rules refuse."""
    if "stealth" not in state:
        raise _err("This is not a Stealth mission's state.", "state")
    if _s(state)["finished"] and action.type not in ("adjust", "set_player"):
        raise _err("The mission is over; only corrections (adjust) are allowed.", "type")
    new: dict[str, Any] = _copy_state(state)
    handler = _OWN.get(action.type)
    try:
        events = handler(new, action, dice, tables) if handler else _delegate(new, action, dice, tables)
    except DiceError as exc:
        raise _err(str(exc), "faces") from None
    except TrackerError:
        raise
    events.extend(_settle(new))
    _sync(new)
    _refresh(new, tables)
    new["now"] = _now(new)
    if events:
        new["last"] = {"type": events[-1].type, "text": " ".join(e.text for e in events)}
    return new, events


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The mission summed up as a standard battle's result (:func:`fp_tracker.outcome`) plus
    ``won`` (the objective done, pp.117-119), ``mission`` ("stealth") and ``stealth``
    ({objective, achieved, alarm, alarm_round, exfiltrated})."""
    made = fp_tracker.outcome(state)
    s = _s(state)
    objective = s["objective"]
    made["won"] = bool(objective["achieved"]) and not objective["failed"]
    made["mission"] = "stealth"
    made["stealth"] = {
        "objective": objective["name"],
        "achieved": made["won"],
        "alarm": s["alarm"],
        "alarm_round": s["alarm_round"],
        "exfiltrated": [f["name"] for f in state["crew"] if f["status"] == "exfiltrated"],
        "source": SOURCE,
    }
    return made


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand ``player``'s crew figures back (the battle tracker's)."""
    return fp_tracker.release(state, player)


def stealth_moves(state: Mapping[str, Any]) -> dict[str, int]:
    """Each crew figure's move this Stealth round (p.120): base Speed +1" in the Quick Action
    phase, -1" in the Slow; no Dashing. Empty after the alarm."""
    if not _stealthy(state):
        return {}
    return {
        f["id"]: max(0, int(f["speed"]) + MOVE_MODIFIERS[f["slot"]])
        for f in _crew_up(state)
        if f.get("slot") in ("quick", "slow")
    }
