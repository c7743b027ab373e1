"""No-minis battles: the reducer (:func:`apply`), automatic play to the end and the outcome."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.nominis.combat import _arrive, _check_end, _cover_for, _shoot, _start_round
from battles.engine.nominis.end_round import _end_round, _retreat
from battles.engine.nominis.firefight import _after_engagement, _engage, _resolve, _respond_or_resolve, _select_enemies
from battles.engine.nominis.flow import _flow, _free_known
from battles.engine.nominis.initiative import _assign, _charge_decide, _initiative_action, _optimal_decide, _roll_initiative
from battles.engine.nominis.policy import auto_action
from battles.engine.nominis.psionics import PSIONIC_ACTION, psionic_action
from battles.engine.nominis.state import (
    MISSIONS,
    STANCES,
    Event,
    NoMinisError,
    State,
    Tables,
    _active_crew,
    _active_enemies,
    _copy_state,
    _crew,
    _enemy,
    _event,
    _location_of,
)
from battles.engine.nominis.weapons import _best_gun
from rules.engine.dice import Dice

# -- the reducer --------------------------------------------------------------------------------------


def _decide(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    pending = st["pending"]
    kind = pending["kind"]
    st["pending"] = None
    if kind == "fleeting_shot":
        target = action.get("target")
        if target is None:
            events.append(_event("flow", "No Fleeting shot taken."))
            return
        enemy = _enemy(st, target, "target")
        if enemy["status"] != "active":
            st["pending"] = pending
            raise NoMinisError(f"target: {target} is not on the battlefield.", field="target")
        crew = _crew(st, pending["crew"])
        gun = _best_gun(crew)
        assert gun is not None
        _shoot(
            st,
            dice,
            crew,
            enemy,
            gun,
            range_in=gun["range"],
            cover=_cover_for(st, crew, True),
            moved=True,
            natural_six=bool(crew["taking_cover"]),
            why="Fleeting shot at maximum range, counts as moving, target in Cover, no reply (p.71)",
            events=events,
            tables=tables,
        )
    elif kind == "find_shortcut":
        crew = _crew(st, pending["crew"])
        where = action.get("location")
        if where is None:
            events.append(_event("flow", f"{crew['name']} stays put."))
            return
        free = [loc["name"] for loc in _free_known(st, crew)]
        if where not in free:
            st["pending"] = pending
            raise NoMinisError(f"location must be a free known Location: {', '.join(free) or 'none'}.", field="location")
        _arrive(st, crew, _location_of(st, where), events)
    elif kind == "careful_maneuvering":
        enemy = _enemy(st, action.get("enemy"))
        if enemy["status"] != "active":
            st["pending"] = pending
            raise NoMinisError(f"enemy: {enemy['name']} is not on the battlefield.", field="enemy")
        enemy["no_attack"] = True
        events.append(_event("flow", f"{enemy['name']} cannot attack in this round's Firefight (p.71)."))
    elif kind == "covered_retreat":
        _withdraw_reason(action, events)
        try:
            _retreat(st, [str(n) for n in action.get("names") or []], dice, tables, events, covered=True)
        except NoMinisError:
            st["pending"] = pending
            raise
    elif kind == "charge":
        _charge_decide(st, pending, action, dice, tables, events)
    elif kind == "optimal_shot":
        try:
            _optimal_decide(st, pending, action, dice, tables, events)
        except NoMinisError:
            st["pending"] = pending
            raise
    elif kind == "support":
        supporter = action.get("supporter")
        enemy = _enemy(st, pending["enemy"])
        target = _crew(st, pending["crew"])
        if supporter is not None:
            if supporter not in pending["supporters"]:
                st["pending"] = pending
                raise NoMinisError(f"supporter must be one of {', '.join(pending['supporters'])} or none.", field="supporter")
            target = _crew(st, supporter, "supporter")
            events.append(_event("support", f"{supporter} steps in for {pending['crew']} (p.68)."))
        _respond_or_resolve(st, dice, target, enemy, events, tables)
    elif kind == "respond":
        crew = _crew(st, pending["crew"])
        enemy = _enemy(st, pending["enemy"])
        fire = bool(action.get("fire", True)) and pending["can_fire"]
        brawl = bool(action.get("brawl", False)) and pending["can_brawl"]
        _resolve(st, dice, crew, enemy, fire=fire, brawl=brawl, events=events, tables=tables)


def _set_stance(st: State, action: Mapping[str, Any], events: list[Event]) -> None:
    """Change the stance of automatic play (any step, even with a question pending)."""
    stance = action.get("stance")
    if stance not in STANCES:
        raise NoMinisError(f"stance must be one of {', '.join(STANCES)}; got {stance!r}.", field="stance")
    st["options"]["stance"] = stance
    events.append(_event("stance", f"Stance for automatic play: {STANCES[stance]} (Retreat, p.72)."))


def _withdraw_reason(action: Mapping[str, Any], events: list[Event]) -> None:
    """Log why figures leave (an automatic stance decision, or the player's own words)."""
    reason = str(action.get("reason") or "").strip()[:200]
    if reason and action.get("names"):
        events.append(_event("withdraw", reason.rstrip(".") + " (Retreat, p.72)."))


#: The action types each phase takes (a pending question takes ``decide``).
_EXPECTED: dict[str, tuple[str, ...]] = {
    "flow": ("roll_flow_event",),
    "initiative": ("roll_initiative",),
    "assign": ("assign_initiative",),
    "actions": ("initiative_action", PSIONIC_ACTION, "end_initiative"),
    "firefight": ("engage",),
    "end": ("end_round",),
    "retreat": ("retreat",),
}


def _apply_mut(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables) -> list[Event]:
    events: list[Event] = []
    if type(action) is not dict and not isinstance(action, Mapping):  # the ABC check only when not a dict
        raise NoMinisError("action must be a mapping with a type.", field="type")
    kind = action.get("type")
    if kind == "auto":
        if st["finished"]:
            raise NoMinisError("the battle is over.", field="type")
        action = auto_action(st, tables)
        kind = action["type"]
        events.append(_event("auto", f"Automatic choice: {action.get('label', kind)}."))
    if st["finished"]:
        raise NoMinisError("the battle is over.", field="type")
    if kind == "set_stance":
        _set_stance(st, action, events)
        return events
    pending = st["pending"]
    if pending is not None and kind != "decide":
        raise NoMinisError(
            f"type must be 'decide' to answer the pending {pending['kind'].replace('_', ' ')} question.", field="type"
        )
    phase = st["phase"]
    if kind == "decide":
        if pending is None:
            raise NoMinisError("type: there is no pending question to decide.", field="type")
        _decide(st, action, dice, tables, events)
        if st["phase"] == "firefight":
            _after_engagement(st, events)
        else:
            _check_end(st, events)
        return events
    expected = _EXPECTED[phase]
    if kind not in expected:
        raise NoMinisError(f"type must be one of {', '.join(expected)} in the {phase} step; got {kind!r}.", field="type")
    if kind == "roll_flow_event":
        _flow(st, action, dice, tables, events)
    elif kind == "roll_initiative":
        _roll_initiative(st, action, dice, events)
    elif kind == "assign_initiative":
        _assign(st, action, events)
    elif kind == "initiative_action":
        _initiative_action(st, action, dice, tables, events)
    elif kind == PSIONIC_ACTION:
        psionic_action(st, action, dice, tables, events)
    elif kind == "end_initiative":
        _select_enemies(st, dice, tables, events)
        _after_engagement(st, events)
    elif kind == "engage":
        _engage(st, action, dice, tables, events)
        _after_engagement(st, events)
        return events
    elif kind == "end_round":
        _end_round(st, dice, tables, events)
        return events
    elif kind == "retreat":
        names = action.get("names") or []
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        _withdraw_reason(action, events)
        _retreat(st, [str(n) for n in names], dice, tables, events)
        _check_end(st, events)
        if not st["finished"]:
            st["round"] += 1
            _start_round(st)
            events.append(_event("round", f"Round {st['round']} begins."))
        return events
    _check_end(st, events)
    return events


def apply(state: Mapping[str, Any], action: Mapping[str, Any], dice: Dice, tables: Tables) -> tuple[State, list[Event]]:
    """Apply one ``action`` (see the module docstring) to ``state``; returns ``(new_state, events)``.

    Events are ``{"kind", "text", "rolls": [RollRecord.as_dict()], ...}``. ``state`` is not changed.
    Raises :class:`NoMinisError` (``field`` names the bad key) when the rules refuse the action.
    """
    st = _copy_state(state)
    events = _apply_mut(st, action, dice, tables)
    return st, events


def play_automatic(state: Mapping[str, Any], dice: Dice, tables: Tables, *, limit_rounds: int = 30) -> tuple[State, list[Event]]:
    """Play ``state`` to the end with :func:`auto_action` (or until round ``limit_rounds`` ends;
    the state then stays unfinished). Returns the final state and every event in order."""
    st = _copy_state(state)
    events: list[Event] = []
    while not st["finished"]:
        if st["round"] > limit_rounds:
            events.append(_event("limit", f"Stopped after {limit_rounds} rounds."))
            break
        action = auto_action(st, tables)
        events += _apply_mut(st, action, dice, tables)
    return st, events


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The battle's result: ``{"finished", "held_field", "crew_casualties", "crew_injured",
    "enemies_killed", "enemies_fled", "rounds", "retreated", "exited", "psionic_uses", "objective":
    {mission, achieved, failed, detail}}``; ``psionic_uses``: powers the crew's Psionic projected (p.20). ``held_field``: the crew still had figures on the field when the
    last enemy went."""
    st: State = state  # type: ignore[assignment]
    casualties = [c["name"] for c in st["crew"] if c["status"] == "casualty"]
    objective = st["objective"]
    return {
        "finished": bool(st["finished"]),
        "held_field": bool(st["finished"] and not _active_enemies(st) and _active_crew(st)),
        "crew_casualties": casualties,
        "crew_injured": list(casualties),
        "enemies_killed": int(st["enemies_killed"]),
        "enemies_fled": sum(1 for e in st["enemies"] if e["status"] == "fled"),
        "rounds": int(st["round"]),
        "retreated": [c["name"] for c in st["crew"] if c["status"] == "retreated"],
        "exited": [c["name"] for c in st["crew"] if c["status"] == "exited"],
        "psionic_uses": int(st.get("psionic_uses") or 0),
        "objective": {
            "mission": MISSIONS[st["mission"]],
            "achieved": bool(objective["achieved"]),
            "failed": bool(objective["failed"]),
            "detail": objective["detail"],
        },
    }
