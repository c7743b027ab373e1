"""No-minis battles: the legal choices now and the automatic policy (:func:`auto_action`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from battles.engine.nominis.flow import _free_known
from battles.engine.nominis.initiative import _action_problem, suggested_assignment
from battles.engine.nominis.psionics import auto_power, choices_for
from battles.engine.nominis.state import (
    ACTIONS,
    CHARGE,
    END_TABLE,
    MOVE_UP,
    OPTIMAL_SHOT,
    SCOUT,
    STANCES,
    SUPPORT,
    TAKE_COVER,
    TASK,
    NoMinisError,
    State,
    Tables,
    _active_crew,
    _active_enemies,
    _crew,
    _entry_data,
    _opts,
)
from battles.engine.nominis.weapons import _gun_named, _melee_only, _melee_weapon

# -- choices and the automatic policy -----------------------------------------------------------------


def choices(state: Mapping[str, Any], tables: Tables) -> list[dict[str, Any]]:
    """The legal actions now, each ``{"type", ..., "label"}``. Initiative Actions are listed without
    the optional ``bonus`` and ``faces`` keys, which the player may add. Empty when the battle is over."""
    st: State = state  # type: ignore[assignment]
    if st["finished"]:
        return []
    pending = st["pending"]
    out: list[dict[str, Any]] = []
    if pending is not None:
        kind = pending["kind"]
        if kind == "fleeting_shot":
            out += [
                {"type": "decide", "target": e["name"], "label": f"Fleeting shot at {e['name']}"} for e in _active_enemies(st)
            ]
            out.append({"type": "decide", "target": None, "label": "No Fleeting shot"})
        elif kind == "find_shortcut":
            crew = _crew(st, pending["crew"])
            out += [
                {"type": "decide", "location": loc["name"], "label": f"{crew['name']} moves to {loc['name']}"}
                for loc in _free_known(st, crew)
            ]
            out.append({"type": "decide", "location": None, "label": "Stay put"})
        elif kind == "careful_maneuvering":
            out += [{"type": "decide", "enemy": e["name"], "label": f"{e['name']} cannot attack"} for e in _active_enemies(st)]
        elif kind == "covered_retreat":
            out.append({"type": "decide", "names": [], "label": "Nobody withdraws"})
            out += [{"type": "decide", "names": [c["name"]], "label": f"{c['name']} withdraws"} for c in _active_crew(st)]
        elif kind == "charge":
            out.append({"type": "decide", "engage": True, "label": f"Brawl {pending['enemy']}"})
            out.append({"type": "decide", "engage": False, "label": "Do not engage"})
        elif kind == "optimal_shot":
            weapon = _gun_named(_crew(st, pending["crew"]), pending["weapon"])
            ranges = sorted({r for r in (6, 12, 18, 24, 30, 36, weapon["range"]) if r <= weapon["range"]})
            out += [{"type": "decide", "range": r, "label": f'Fire at {r}"'} for r in ranges]
            out.append({"type": "decide", "range": None, "label": "Hold fire"})
        elif kind == "support":
            out.append({"type": "decide", "supporter": None, "label": f"{pending['crew']} faces {pending['enemy']}"})
            out += [{"type": "decide", "supporter": s, "label": f"{s} steps in"} for s in pending["supporters"]]
        elif kind == "respond":
            if pending["can_fire"]:
                out.append({"type": "decide", "fire": True, "brawl": False, "label": "Fire"})
            out.append({"type": "decide", "fire": False, "brawl": False, "label": "Hold fire"})
            if pending["can_brawl"]:
                out.append({"type": "decide", "fire": False, "brawl": True, "label": "Close to Brawl instead"})
        return out
    phase = st["phase"]
    if phase == "flow":
        return [{"type": "roll_flow_event", "label": "Roll a Battle flow event (D100)"}]
    if phase == "initiative":
        return [{"type": "roll_initiative", "label": "Roll Reaction dice"}]
    if phase == "assign":
        suggestion = suggested_assignment(st)
        return [
            {
                "type": "assign_initiative",
                "assignments": suggestion,
                "label": "Assign dice: " + ", ".join(f"{k} {v}" for k, v in suggestion.items()),
            }
        ]
    if phase == "actions":
        for crew in _active_crew(st):
            if not crew["eligible"] or crew["acted"]:
                continue
            out += choices_for(st, crew)
            for name in ACTIONS:
                for extra in _action_params(st, crew, name):
                    action = {"type": "initiative_action", "actor": crew["name"], "action": name, **extra}
                    if _action_problem(st, crew, name, action, tables) is None:
                        detail = " ".join(str(v) for v in extra.values())
                        action["label"] = f"{crew['name']}: {name}{' ' + detail if detail else ''}"
                        out.append(action)
        out.append({"type": "end_initiative", "label": "On to the Firefight"})
        return out
    if phase == "firefight":
        fight = st["firefight"]
        return [{"type": "engage", "enemy": n, "label": f"Resolve {n}"} for n in fight["selected"] if n not in fight["resolved"]]
    if phase == "end":
        return [{"type": "end_round", "label": "End the round: Morale"}]
    if phase == "retreat":
        out.append({"type": "retreat", "names": [], "label": "Nobody retreats"})
        out += [{"type": "retreat", "names": [c["name"]], "label": f"{c['name']} tries to retreat"} for c in _active_crew(st)]
        return out
    return out


def _action_params(st: State, crew: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    if name == SCOUT:
        return [{"location": loc["name"]} for loc in st["locations"] if not loc["known"]]
    if name == MOVE_UP:
        params: list[dict[str, Any]] = [{"location": loc["name"]} for loc in _free_known(st, crew)]
        if crew["location"] is not None:
            params.append({"location": None})
        return params
    if name == SUPPORT:
        return [{"ally": c["name"]} for c in _active_crew(st) if c["name"] != crew["name"]]
    return [{}]


def _needed_location(st: State, crew: Mapping[str, Any]) -> dict[str, Any] | None:
    """A free known Location this crew figure should head for (automatic policy)."""
    mission = st["mission"]
    objective = st["objective"]
    if objective["achieved"] or objective["failed"]:
        return None
    for loc in _free_known(st, crew):
        kind = loc["kind"]
        if kind in ("item", "dropped") and objective.get("carrier") is None:
            return loc
        if kind == "console" or kind == "exit" or (kind == "search" and not loc["checked"]):
            return loc
        if kind == "delivery" and objective.get("carrier") == crew["name"]:
            return loc
        if kind == "patrol" and not loc["checked"]:
            return loc
        if kind == "centre" and not any(lc["kind"] == "centre" and lc["occupant"] for lc in st["locations"]):
            return loc
        if kind == "objective" and mission == "protect" and crew["name"] in (objective["escort"], objective["vip"]):
            return loc
    return None


def auto_action(state: Mapping[str, Any], tables: Tables) -> dict[str, Any]:
    """The default choice for the current step (the automatic policy).

    Policy: roll whatever must be rolled; assign Reaction dice with :func:`suggested_assignment`.
    Each acting character, in crew order, takes the first of: Carry Out Task where it is; Move Up to
    a known Location the mission needs (the carrier to the delivery point, the escort to the
    objective); Scout for a suspected objective Location (from round 2); Optimal Shot if it has a gun
    (fired at the weapon's full range); Charge if it has only Brawling weapons and is not Stunned;
    otherwise Take Cover; a crew Psionic first uses a power when it helps (:func:`.psionics.auto_power`). It always Brawls after a successful Charge, never uses Support or Keep
    Distance, always fires when able except that a figure with a Melee weapon holds fire at an enemy
    closing to Brawl (so it keeps its Melee bonus, p.69), closes to Brawl instead only with a Melee
    weapon when out-ranged, and resolves enemies in the drawn order. Battle flow choices: the Fleeting shot goes
    at the first enemy (Eliminate target first), Find shortcut goes to a needed Location, Careful
    maneuvering picks the enemy with the most Shots x (Damage + 1). Leaving the battle follows the
    battle's stance (:func:`withdraw_reason`): when the stance says the crew withdraws, Covered
    retreat takes every crew figure and each end-of-round Retreat (p.72) tries the most it may
    (:func:`_auto_retreat`), the action carrying the reason (logged); otherwise Covered retreat
    and Retreat take the Acquire item carrier only (and a Cautious crew's Wounded figures at the
    end of the round). Raises :class:`NoMinisError` when the battle is over.
    """
    st: State = state  # type: ignore[assignment]
    if st["finished"]:
        raise NoMinisError("the battle is over.", field="type")
    pending = st["pending"]
    objective = st["objective"]
    if pending is not None:
        kind = pending["kind"]
        if kind == "fleeting_shot":
            foes = sorted(_active_enemies(st), key=lambda e: not e.get("target"))
            return {"type": "decide", "target": foes[0]["name"], "label": f"Fleeting shot at {foes[0]['name']}"}
        if kind == "find_shortcut":
            loc = _needed_location(st, _crew(st, pending["crew"]))
            return {"type": "decide", "location": loc["name"] if loc else None, "label": "Find shortcut"}
        if kind == "careful_maneuvering":
            worst = max(_active_enemies(st), key=lambda e: max((w["shots"] * (w["damage"] + 1) for w in e["weapons"]), default=0))
            return {"type": "decide", "enemy": worst["name"], "label": f"{worst['name']} cannot attack"}
        if kind == "covered_retreat":
            reason = withdraw_reason(st)
            if reason:
                names = [c["name"] for c in _active_crew(st)]
                return {"type": "decide", "names": names, "reason": reason, "label": "Covered retreat"}
            carrier = objective.get("carrier") if st["mission"] == "acquire" else None
            names = [carrier] if carrier and _crew(st, carrier)["status"] == "active" else []
            return {"type": "decide", "names": names, "label": "Covered retreat"}
        if kind == "charge":
            return {"type": "decide", "engage": True, "label": "Brawl"}
        if kind == "optimal_shot":
            weapon = _gun_named(_crew(st, pending["crew"]), pending["weapon"])
            return {"type": "decide", "range": weapon["range"], "label": f'Fire at {weapon["range"]}"'}
        if kind == "support":
            return {"type": "decide", "supporter": None, "label": "No swap"}
        if kind == "respond":
            brawl = bool(pending["can_brawl"])
            keep_blade = pending["engagement"] == "enemy_charges" and _melee_weapon(_crew(st, pending["crew"])) is not None
            fire = bool(pending["can_fire"]) and not brawl and not keep_blade
            return {"type": "decide", "fire": fire, "brawl": brawl, "label": "Respond"}
    phase = st["phase"]
    if phase == "flow":
        return {"type": "roll_flow_event", "label": "Battle flow event"}
    if phase == "initiative":
        return {"type": "roll_initiative", "label": "Reaction dice"}
    if phase == "assign":
        return {"type": "assign_initiative", "assignments": suggested_assignment(st), "label": "Assign dice"}
    if phase == "actions":
        for crew in _active_crew(st):
            if crew["eligible"] and not crew["acted"]:
                return auto_power(st, crew) or _auto_initiative(st, crew, tables)
        return {"type": "end_initiative", "label": "On to the Firefight"}
    if phase == "firefight":
        fight = st["firefight"]
        waiting = [n for n in fight["selected"] if n not in fight["resolved"]]
        return {"type": "engage", "enemy": waiting[0], "label": f"Resolve {waiting[0]}"}
    if phase == "end":
        return {"type": "end_round", "label": "End of round"}
    return _auto_retreat(st, tables)


def withdraw_reason(state: Mapping[str, Any]) -> str:
    """Why a player of the battle's stance (``options.stance``) would now withdraw the whole crew
    with the Retreat rules (p.72), in words for the log, or ``""``.

    - Cautious: once any crew figure is down, when half the crew or more is down or the enemies on
      the field are at least twice the crew still fighting.
    - Steady (default): when half the crew or more is down and the enemies on the field are at
      least twice the crew still fighting.
    - Reckless: never; the crew fights to the last.

    The attached VIP (Protect) is not counted: it leaves with its escort."""
    st: State = state  # type: ignore[assignment]
    stance = _opts(st).stance
    if stance == "reckless":
        return ""
    total = down = on_field = 0
    for c in st["crew"]:  # one pass: asked at every end of round
        status = c["status"]
        if status == "active":
            on_field += 1
        if not c["vip"]:
            total += 1
            if status == "casualty":
                down += 1
    if not down or not on_field:
        return ""
    foes = len(_active_enemies(st))
    if not foes:
        return ""
    label = STANCES.get(stance, stance)
    half_down = down * 2 >= total
    outnumbered = foes >= 2 * on_field
    if stance == "cautious" and (half_down or outnumbered):
        why = f"{down} of {total} crew down" if half_down else f"{foes} enemies against {on_field} crew"
        return f"{label}: {why}, the crew withdraws"
    if stance == "steady" and half_down and outnumbered:
        return f"{label}: {down} of {total} crew down and {foes} enemies against {on_field} crew, the crew withdraws"
    return ""


def _auto_retreat(st: State, tables: Tables) -> dict[str, Any]:
    """The end-of-round Retreat (p.72) for the stance: the whole crew when :func:`withdraw_reason`
    says so (every figure with special movement, plus the limit of others: the item carrier
    first, then the fastest); else a Cautious crew's Wounded figures (casualty tables); else the
    Acquire carrier holding the item; else nobody."""
    objective = st["objective"]
    limit = int(_entry_data(tables, END_TABLE, "Retreat").get("max_figures", 2))
    carrier = objective.get("carrier") if st["mission"] == "acquire" and not objective["achieved"] else None
    reason = withdraw_reason(st)
    if reason:
        active = _active_crew(st)
        free = [c["name"] for c in active if c["special_movement"]]
        others = sorted((c for c in active if not c["special_movement"]), key=lambda c: (c["name"] != carrier, -c["speed"]))
        names = free + [c["name"] for c in others[:limit]]
        return {"type": "retreat", "names": names, "reason": reason, "label": "Retreat"}
    if _opts(st).stance == "cautious":
        wounded = [c["name"] for c in _active_crew(st) if c.get("wounded")][:limit]
        if wounded:
            who = ", ".join(wounded)
            reason = f"{STANCES['cautious']}: {who} {'is' if len(wounded) == 1 else 'are'} Wounded, {who} withdraw{'s' if len(wounded) == 1 else ''}"
            return {"type": "retreat", "names": wounded, "reason": reason, "label": "Retreat"}
    names = []
    if carrier and _crew(st, carrier)["status"] == "active":
        names = [carrier]
    return {"type": "retreat", "names": names, "label": "Retreat"}


def _auto_initiative(st: State, crew: Mapping[str, Any], tables: Tables) -> dict[str, Any]:
    name = crew["name"]
    for action in _initiative_candidates(st, crew):
        if _action_problem(st, crew, action["action"], action, tables) is None:
            action["label"] = f"{name}: {action['action']}"
            return action
    return {"type": "initiative_action", "actor": name, "action": TAKE_COVER, "label": f"{name}: {TAKE_COVER}"}


def _initiative_candidates(st: State, crew: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The Initiative Actions :func:`auto_action` tries for ``crew``, in its order, each made only
    when the ones before it were refused (every one is tried on every character's turn)."""
    base = {"type": "initiative_action", "actor": crew["name"]}
    yield {**base, "action": TASK}
    loc = _needed_location(st, crew)
    if loc is not None:
        yield {**base, "action": MOVE_UP, "location": loc["name"]}
    if not st["objective"]["achieved"]:
        for suspected in st["locations"]:
            if not suspected["known"] and suspected["kind"] not in ("sight",):
                yield {**base, "action": SCOUT, "location": suspected["name"]}
                break
    yield {**base, "action": OPTIMAL_SHOT}
    if _melee_only(crew):
        yield {**base, "action": CHARGE}
    yield {**base, "action": TAKE_COVER}
