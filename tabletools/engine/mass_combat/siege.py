"""Mass combat: siege engines and barriers (Quickstart Rules for Mass Combat, p.1)."""

from __future__ import annotations

from live.engine.tracker import Action, Event, TrackerError
from rules.engine.dice import Dice, Keep, Notation
from tabletools.engine.mass_combat.combat import _drain
from tabletools.engine.mass_combat.constants import BARRIER_SAVE_FACE, HIT_FACE, State
from tabletools.engine.mass_combat.helpers import (
    _find,
    _other,
    _require_clear,
    _require_side,
    _require_turn,
    _roll,
    _squad,
    _text,
)

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
