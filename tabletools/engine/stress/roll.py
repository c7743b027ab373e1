"""Stress dice: the roll: a skill check, pushing it, and the panic roll (Stress dice skill checks, p.1)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from live.engine.tracker import (
    Action,
    Event,
    TrackerError,
    payload_faces,
    payload_flag,
    payload_int,
)
from rules.engine.dice import Dice, RollRecord
from tabletools.engine.stress.constants import (
    ACTION_KINDS,
    AIM_BONUS,
    ATTRIBUTES,
    LASTS,
    PANIC_CANCELS,
    PANIC_FACE,
    PANIC_LASTING,
    PANIC_TRIGGERS,
    PUSH_STRESS,
    RANGES,
    SUCCESS_FACE,
)
from tabletools.engine.stress.payload import (
    _breakdown,
    _character,
    _choice,
    _faces_text,
    _lasting,
    _mine,
    _pool,
    _sixes_text,
    _skill,
    _skill_key,
    _spend,
)
from tabletools.engine.stress.state import one_step_worse, panic_row, range_modifier, sixes

# -- the roll -------------------------------------------------------------------------------


def _check(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """A skill check: build the base and stress pools, roll them, count 6s (p.1).

    Refused (field named) for a pending panic roll, an unknown skill, a used action, helpers
    declared for another kind of action, range on a check that is not Ranged Combat, calming
    without Command or a panicking target, or no dice at all.
    """
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    if char["pending_panic"] is not None:
        raise TrackerError(f"{char['name']} must roll for panic first.", field="id")
    kind = _choice(action, "action", ACTION_KINDS, default="slow")
    calm_id = action.payload.get("calm")
    target = None
    if calm_id not in (None, ""):
        target = _character(state, calm_id, field="calm")
        if target["id"] == char["id"]:
            raise TrackerError("Another character must calm a panicking one.", field="calm")
        if not _lasting(target):
            raise TrackerError(f"{target['name']} has no panic effect to calm.", field="calm")
        if kind not in ("slow", "free"):
            raise TrackerError("Calming a panicking character is a slow action (or free outside combat).", field="action")
    default_skill = "command" if target else ("close_combat" if kind == "block" else None)
    key = _skill_key(action, default=default_skill)
    if target and key != "command":
        raise TrackerError("Calming a panicking character takes a Command check.", field="skill")
    if kind == "block" and key != "close_combat":
        raise TrackerError("Blocking takes a Close Combat check.", field="skill")
    distance = _choice(action, "range", ("", *RANGES), default="")
    if distance and key != "ranged_combat":
        raise TrackerError("range applies only to Ranged Combat checks.", field="range")
    defenceless = payload_flag(action, "defenceless")
    if defenceless and distance != "engaged":
        raise TrackerError("defenceless applies only at Engaged range.", field="defenceless")
    gear = payload_int(action, "gear", low=-10, high=10, default=0)
    other = payload_int(action, "modifier", low=-10, high=10, default=0)

    skill = _skill(char, key)
    attribute = skill["attribute"]
    parts: list[tuple[str, int]] = [(ATTRIBUTES[attribute], int(char["attributes"][attribute]))]
    if skill["level"]:
        parts.append((skill["name"], int(skill["level"])))
    else:
        parts.append((f"{skill['name']} untrained", 0))
    if gear:
        parts.append(("gear", gear))
    for condition in char["conditions"]:
        if condition["modifier"]:
            parts.append((condition["name"], int(condition["modifier"])))
    if char["helpers"]:
        parts.append(("helpers", len(char["helpers"])))
    if distance:
        label = f"{distance.capitalize()} range" + (", defenceless target" if defenceless else "")
        parts.append((label, range_modifier(state, distance, defenceless=defenceless)))
    aimed = bool(char["aimed"]) and key == "ranged_combat"
    if aimed:
        parts.append(("aim", AIM_BONUS))
    if other:
        parts.append(("other", other))
    base_count = max(0, sum(n for _, n in parts))
    stress_count = int(char["stress"])
    if base_count + stress_count == 0:
        raise TrackerError("No dice to roll: the modifiers leave no base dice and stress is 0.", field="modifier")
    if base_count > 100 or stress_count > 100:
        raise TrackerError("At most 100 dice of each kind.", field="modifier")
    base_faces = payload_faces(action, "faces", base_count) if base_count else None
    stress_faces = payload_faces(action, "stress_faces", stress_count) if stress_count else None
    typed = base_faces is not None or stress_faces is not None
    if typed and ((base_count and base_faces is None) or (stress_count and stress_faces is None)):
        raise TrackerError(
            f"Type all the dice: {base_count} base face(s) in faces and {stress_count} stress face(s) in stress_faces.",
            field="faces" if base_faces is None else "stress_faces",
        )
    spent = kind if kind != "block" else ("slow" if char["fast_used"] else "fast")
    for helper in char["helpers"]:
        if helper["action"] != spent:
            name = _character(state, helper["id"])["name"]
            raise TrackerError(f"{name} helped with a {helper['action']} action; this check is {spent}.", field="action")
    used = _spend(char, kind)

    reason = f"{char['name']}: {skill['name']}"
    base = _pool(dice, base_count, base_faces, f"{reason}, base dice")
    stress = _pool(dice, stress_count, stress_faces, f"{reason}, stress dice")
    helpers = [h["id"] for h in char["helpers"]]
    char["helpers"] = []
    char["aimed"] = False  # used by this shot, or lost by doing something else
    check = {
        "skill": skill["name"],
        "key": key,
        "action": used,
        "block": kind == "block",
        "base": list(base.faces) if base else [],
        "stress": list(stress.faces) if stress else [],
        "breakdown": _breakdown(parts),
        "helpers": helpers,
        "calm": target["id"] if target else None,
        "pushed": False,
        "panic": False,
        "cancelled": False,
        "settled": False,
        "entered": typed,
    }
    char["check"] = check
    events: list[Event] = []
    if base:
        events.append(
            Event(
                "base_dice",
                f"{char['name']} rolls {base_count} base dice for {skill['name']} ({check['breakdown']}): "
                f"{_faces_text(base.faces)} — {_sixes_text(sixes(base.faces))}.",
                {"id": char["id"], "roll": base.as_dict()},
            )
        )
    else:
        events.append(Event("base_dice", f"{char['name']} has no base dice for {skill['name']} ({check['breakdown']}).", {}))
    if stress:
        events.append(_stress_event(char, stress, f"rolls {stress_count} stress dice"))
    events += _outcome(state, char, "check")
    return events


def _stress_event(char: Mapping[str, Any], record: RollRecord, what: str) -> Event:
    """One sentence for a stress dice roll; ``what`` says what was rolled."""
    ones = PANIC_FACE in record.faces
    tail = "; a 1 means a panic roll and no push" if ones else ""
    return Event(
        "stress_dice",
        f"{char['name']} {what} (stress {char['stress']}): {_faces_text(record.faces)} — {_sixes_text(sixes(record.faces))}{tail}.",
        {"id": char["id"], "roll": record.as_dict()},
    )


def _outcome(state: dict[str, Any], char: dict[str, Any], kind: str) -> list[Event]:
    """Score the open check, flag a panic roll for a 1 on a stress die, settle what a success
    does, and make the result card."""
    check = char["check"]
    check["base_sixes"] = sixes(check["base"])
    check["stress_sixes"] = sixes(check["stress"])
    check["sixes"] = check["base_sixes"] + check["stress_sixes"]
    check["success"] = check["sixes"] > 0
    if PANIC_FACE in check["stress"]:
        check["panic"] = True
        char["pending_panic"] = {"trigger": "stress_die", "from_check": True}
    if check["success"]:
        extra = check["sixes"] - 1
        text = f"Success with {_sixes_text(check['sixes'])}" + (f": {extra} extra to boost it" if extra else "")
        if check["block"]:
            text += "; each 6 can remove an attacker's 6, counterattack or disarm"
    else:
        text = "Failure: no 6"
    if check["panic"]:
        text += ". A stress die shows 1: roll for panic now; no push"
    elif not check["pushed"] and not char["android"]:
        text += ". It can be pushed once (stress +1)"
    elif not check["pushed"]:
        text += ". Androids cannot push"
    text = f"{char['name']}, {check['skill']}: {text}."
    events = [Event("check_result", text, {"id": char["id"], "success": check["success"], "sixes": check["sixes"]})]
    events += _settle(state, char)
    state["last"] = {"kind": kind, "id": char["id"], "name": char["name"], "text": text, **copy.deepcopy(check)}
    return events


def _settle(state: dict[str, Any], char: dict[str, Any]) -> list[Event]:
    """Carry out what a successful, uncancelled check does once no panic roll is pending: a
    Command check to calm someone ends their panic effect (p.1)."""
    check = char["check"]
    if check is None or not check["success"] or check["cancelled"] or char["pending_panic"] or check["settled"]:
        return []
    check["settled"] = True
    if check["calm"] is None:
        return []
    target = next((c for c in state["characters"] if c["id"] == check["calm"]), None)
    if target is None or not _lasting(target):
        return []
    target["panic"] = None
    return [Event("panic_ended", f"{char['name']} calms {target['name']}: their panic effect ends.", {"id": target["id"]})]


def _push(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Push the open check once: reroll every die that is not a 6, stress +1 and one more stress
    die (p.1). Refused for androids, a second push, or a stress die showing 1."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    check = char["check"]
    if check is None:
        raise TrackerError(f"{char['name']} has no check to push.", field="id")
    if char["android"]:
        raise TrackerError("Androids cannot push a roll.", field="id")
    if check["pushed"]:
        raise TrackerError("A check can be pushed only once.", field="id")
    if check["panic"]:
        raise TrackerError("A stress die showed 1: roll for panic instead; this check cannot be pushed.", field="id")
    base_idx = [i for i, f in enumerate(check["base"]) if f != SUCCESS_FACE]
    stress_idx = [i for i, f in enumerate(check["stress"]) if f != SUCCESS_FACE]
    base_faces = payload_faces(action, "faces", len(base_idx)) if base_idx else None
    stress_faces = payload_faces(action, "stress_faces", len(stress_idx) + 1)
    if (base_faces is None) != (stress_faces is None) and base_idx:
        raise TrackerError(
            f"Type all the rerolled dice: {len(base_idx)} base face(s) in faces and "
            f"{len(stress_idx) + 1} stress face(s) in stress_faces (the new die last).",
            field="faces" if base_faces is None else "stress_faces",
        )
    before = char["stress"]
    char["stress"] += PUSH_STRESS
    reason = f"{char['name']}: {check['skill']}, pushed"
    base = _pool(dice, len(base_idx), base_faces, f"{reason}, base dice")
    stress = _pool(dice, len(stress_idx) + 1, stress_faces, f"{reason}, stress dice")
    assert stress is not None
    if base:
        for i, face in zip(base_idx, base.faces, strict=True):
            check["base"][i] = face
    for i, face in zip(stress_idx, stress.faces[:-1], strict=True):
        check["stress"][i] = face
    check["stress"].append(stress.faces[-1])
    check["pushed"] = True
    check["entered"] = check["entered"] or stress.entered
    events = [Event("stress_up", f"{char['name']} pushes: stress {before} → {char['stress']}.", {"id": char["id"]})]
    if base:
        events.append(
            Event(
                "base_dice",
                f"{char['name']} rerolls {len(base_idx)} base dice: {_faces_text(base.faces)}; "
                f"base dice now {_faces_text(check['base'])}.",
                {"id": char["id"], "roll": base.as_dict()},
            )
        )
    rerolled = f"rerolls {len(stress_idx)} stress dice and adds one" if stress_idx else "adds a stress die"
    events.append(_stress_event(char, stress, rerolled))
    events += _outcome(state, char, "push")
    return events


def _panic_roll(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """Roll 1D6 + stress for panic (p.1). A pending roll from a stress die resolves first; else
    ``trigger`` names one of :data:`PANIC_TRIGGERS`. 10+ cancels the check that caused it; 7+
    leaves a panic effect; a new roll while panicked replaces the effect, one step worse when
    lower than the old value."""
    char = _character(state, action.payload.get("id"))
    _mine(action, char)
    pending = char["pending_panic"]
    if pending is not None:
        trigger = pending["trigger"]
    else:
        trigger = _choice(action, "trigger", tuple(t for t in PANIC_TRIGGERS if t != "stress_die"))
    faces = payload_faces(action, "faces", 1)
    reason = f"{char['name']}: panic roll after {PANIC_TRIGGERS[trigger]}"
    stress = int(char["stress"])
    record = Dice.enter("D6", faces, reason, modifier=stress) if faces is not None else dice.roll("D6", reason, modifier=stress)
    total = int(record.total or 0)
    char["pending_panic"] = None
    if trigger == "critical_injury":
        char["aimed"] = False  # hurt: the aim is lost
    from_check = bool(pending and pending.get("from_check")) and char["check"] is not None
    cancelled = from_check and total >= PANIC_CANCELS
    if cancelled:
        char["check"]["cancelled"] = True
    previous = char["panic"]
    table = state["panic_table"]
    worse = previous is not None and total < previous["value"]
    value = one_step_worse(table, previous["value"]) if worse else total
    index = panic_row(table, value)
    row = table[index] if index is not None else None
    lasts = (row or {}).get("lasts") or ("until_aid" if value >= PANIC_LASTING else "immediate")
    effect = {
        "value": value,
        "roll": total,
        "result": row["result"] if row else "",
        "effect": row["effect"] if row else "",
        "lasts": lasts,
        "trigger": trigger,
    }
    char["panic"] = effect if lasts != "immediate" else None

    sentence = f"{char['name']} rolls for panic after {PANIC_TRIGGERS[trigger]}: D6 {record.faces[0]} + stress {stress} = {total}"
    if worse:
        sentence += f", lower than the current {previous['value']}, so one step worse: {value}"
    if row:
        sentence += f" — {row['result']}"
    elif value >= PANIC_LASTING:
        sentence += " — a panic effect (look it up on your panic table)"
    else:
        sentence += " — they keep it together"
    if lasts != "immediate" or value >= PANIC_LASTING:
        sentence += f", {LASTS[lasts]}"
    if cancelled:
        sentence += f"; 10+ cancels the {char['check']['skill']} action"
    sentence += "."
    events = [
        Event(
            "panic_roll",
            sentence,
            {"id": char["id"], "value": value, "cancelled": cancelled, "lasts": lasts, "roll": record.as_dict()},
        )
    ]
    if value >= PANIC_LASTING:
        events.append(
            Event(
                "panic_witnessed",
                f"Friends who see {char['name']} panic may gain stress or roll for panic themselves.",
                {"id": char["id"]},
            )
        )
    if from_check and not cancelled:
        events += _settle(state, char)
    state["last"] = {
        "kind": "panic",
        "id": char["id"],
        "name": char["name"],
        "text": sentence,
        "face": record.faces[0],
        "stress": stress,
        "total": total,
        "value": value,
        "worse": worse,
        "result": effect["result"],
        "effect": effect["effect"],
        "lasts": lasts,
        "cancelled": cancelled,
        "entered": record.entered,
        "trigger": trigger,
    }
    return events
