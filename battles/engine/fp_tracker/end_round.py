"""The End phase's round-end rules in order: Morale, Respawns, "Movement all over the place"
arrivals, deployment arrivals, Escalation (Compendium pp.30, 44-47, 49), the time limit; and
ending the battle.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine import fp_combat
from battles.engine.fp_tracker import connection, data_cache
from battles.engine.fp_tracker.base import (
    TIME_OBJECTIVES,
    _edge,
    _err,
    _face,
    _need,
    _panic_text,
    _roll,
    _rolls,
    _signed,
    _table_row,
    _take,
)
from battles.engine.fp_tracker.enemy_psionics import bolstered
from battles.engine.fp_tracker.lookups import _crew_up, _down, _group, _names, _on_table, _waiting, panic_range
from battles.engine.fp_tracker.psionics import psionic_round_end
from battles.engine.fp_tracker.setup import _add_enemy
from live.engine.tracker import (
    Action,
    Event,
    payload_faces,
    payload_flag,
    payload_ints,
    require_owner,
)
from rules.engine.dice import Dice, Keep, RollRecord
from rules.engine.tables import RangeTable

# -- end of round ------------------------------------------------------------------------------------------


def _end_of_round(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The End phase: Morale, battle end on an empty table, Respawns (p.30), Movement all over the
    place (p.34), deployment arrivals (p.45), psionic reinforcements and lapsing powers (p.21),
    the Escalation check (p.46), the time limit (p.34)."""
    rnd = state["round"]
    state["phase"] = "end"
    if payload_flag(action, "objective_reached"):
        state["escalation"]["objective_round"] = rnd
    events: list[Event] = [Event("phase", f"End of round {rnd}.", {"phase": "end"})]
    events.extend(_morale(state, action, dice, tables))
    if not _crew_up(state):
        return events + _finish(state, False, "Every crew figure is down.")
    if not _on_table(state) and not _waiting(state) and not state.get("data_cache"):
        return events + _finish(state, True, "The enemy is gone from the table.")
    events.extend(_respawns(state))
    events.extend(_movement(state, action, dice, tables))
    events.extend(_arrivals(state, action, dice, tables))
    events.extend(psionic_round_end(state))
    events.extend(data_cache.round_end(state, action, dice))
    events.extend(connection.round_end(state, action, dice))
    if state["deployment"] and state["deployment"]["key"] == "reinforced" and not _on_table(state):
        return events + _finish(state, True, "No enemy is on the table after the reinforcement roll (p.45).")
    removed = sum(1 for f in state["enemies"] if f["down_round"] == rnd)
    events.extend(_escalation(state, action, dice, tables, removed))
    if state["time_limit"] is not None and rnd >= state["time_limit"] and not state["time_up"]:
        state["time_up"] = True
        events.append(
            Event(
                "time_up",
                f"Time is up (round {state['time_limit']}): only {' and '.join(TIME_OBJECTIVES)} objectives can still be won.",
                {},
            )
        )
    return events


def _finish(state: dict[str, Any], held: bool | None, why: str) -> list[Event]:
    state["phase"] = "over"
    state["held_field"] = held
    said = {True: "The crew Hold the Field.", False: "The crew do not Hold the Field.", None: ""}[held]
    return [Event("battle_over", f"{why} The battle is over. {said}".strip(), {"held_field": held})]


def _morale(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    faces = payload_ints(action, "morale_faces")
    events: list[Event] = []
    if bolstered(state) and any(f["status"] == "casualty" and f["down_round"] == state["round"] for f in state["enemies"]):
        return [Event("morale", "Bolster: every enemy is Fearless while their Psionic stands (p.23); no Morale dice.", {})]
    order = {"basic": 0, "specialist": 1, "lieutenant": 2, "captain": 3, "unique": 4}
    for group in state["groups"]:
        fallen = [
            f
            for f in state["enemies"]
            if f["group"] == group["id"] and f["status"] == "casualty" and f["down_round"] == state["round"]
        ]
        if not fallen:
            continue
        panic = panic_range(state, group, tables)
        if panic == 0:
            events.append(Event("morale", f"{group['name']}: Fearless, no Morale dice.", {"group": group["id"]}))
            continue
        count = len(fallen)
        typed = _take(faces, count)
        record = (
            Dice.enter(f"{count}D6", typed, f"{group['name']}: Morale", keep=Keep.SEPARATE)
            if typed
            else dice.separate(count, 6, f"{group['name']}: Morale")
        )
        failures = sum(1 for face in record.faces if face <= panic)
        can_flee = sorted(
            (f for f in _on_table(state) if f["group"] == group["id"] and not f["fearless"]), key=lambda f: order[f["rank"]]
        )
        fled = can_flee[:failures]
        for fig in fled:
            _down(fig, "fled", state["round"])
        tail = f" {_names(fled)} flee." if fled else " Nobody flees."
        text = f"{group['name']} Morale ({count} D6 for {count} casualties, Panic {_panic_text(panic)}): {', '.join(map(str, record.faces))}.{tail}"
        events.append(Event("morale", text, {"group": group["id"], "fled": [f["id"] for f in fled], **_rolls(record)}))
    return events


def _respawns(state: dict[str, Any]) -> list[Event]:
    spawn = state["respawns"]
    if spawn["used"] >= spawn["allowed"] or not _on_table(state):
        return []
    slain = [
        f
        for f in state["enemies"]
        if f["rank"] == "basic" and f["status"] == "casualty" and f["down_round"] == state["round"] and not f.get("respawned")
    ]
    added = []
    for fig in slain:
        if spawn["used"] >= spawn["allowed"]:
            break
        fig["respawned"] = True
        spawn["used"] += 1
        added.append(
            _add_enemy(state, _group(state, fig["group"]), "basic", note="Respawn: enters at the center of the enemy edge (p.30)")
        )
    if not added:
        return []
    left = spawn["allowed"] - spawn["used"]
    return [Event("respawn", f"Respawn: {_names(added)} enter at the center of the enemy edge ({left} respawn(s) left).", {})]


def _movement(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """There's Movement all over the Place (p.34): D6 at or under the round number brings one enemy."""
    if not state["options"]["movement_all_over"]:
        return []
    data = _table_row(_need(tables, "difficulty-toggles"), "toggle", "movement_all_over").data
    faces = payload_ints(action, "arrival_faces")
    record = _roll(dice, str(data["arrival_roll"]), "Movement all over the place", _take(faces, 1))
    if int(record.total or 0) > state["round"]:
        return [
            Event(
                "movement",
                f"Movement all over the place: rolled {record.total}, above round {state['round']}: nobody comes.",
                _rolls(record),
            )
        ]
    edge_roll = _roll(dice, "D6", "Arrival edge", _take(faces, 1))
    order = list(data["arrival_order"])
    rank = order[min(state["movement_arrivals"], len(order) - 1)]
    state["movement_arrivals"] += 1
    edge = _edge(data["arrival_edge"], int(edge_roll.total or 0))
    fig = _add_enemy(state, state["groups"][0], rank, note=f"Arrived at the center of the {edge} edge (p.34)")
    text = f"Movement all over the place: rolled {record.total}, at or under round {state['round']}: {fig['name']} arrives at the center of the {edge} edge."
    return [Event("movement", text, _rolls(record, edge_roll))]


def _arrivals(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Held deployment figures arriving (p.45): Infiltration (end of round 2, placement D6),
    Reinforced (D6 at or under the round, two extra basic enemies), Concealed (rounds 2-4)."""
    deployment = state["deployment"]
    if not deployment or not _waiting(state):
        return []
    data = _table_row(_need(tables, "deployment-variable-effects"), "deployment", deployment["key"]).data
    rnd = state["round"]
    key = deployment["key"]
    if key == "infiltration" and rnd == int(data["arrival_round"]):
        rolled = _need(tables, str(data["placement_table"])).roll_or_enter(
            dice, value=_face(action, "placement_face", 6), reason="Infiltration placement"
        )
        figs = _release(state, "infiltration")
        return [
            Event(
                "arrival",
                f"Infiltration (D6 {rolled.value}): {_names(figs)} appear: {rolled.entry.effect}",
                _rolls(rolled.record),
            )
        ]
    if key == "reinforced":
        record = _roll(dice, str(data["arrival_roll"]), "Reinforced", payload_faces(action, "reinforced_face", 1))
        if int(record.total or 0) > rnd:
            return [Event("arrival", f"Reinforced: rolled {record.total}, above round {rnd}: they stay away.", _rolls(record))]
        figs = _release(state, "reinforced")
        group = state["groups"][0]
        figs += [_add_enemy(state, group, "basic", note="Reinforced (p.45)") for _ in range(int(data["basic_enemies"]))]
        return [
            Event(
                "arrival",
                f"Reinforced: rolled {record.total}: {_names(figs)} come in at the middle of the enemy edge.",
                _rolls(record),
            )
        ]
    if key == "concealed" and rnd in data["arrival_rounds"]:
        number = list(data["arrival_rounds"]).index(rnd) + 1
        features = int(data["terrain_features"])
        record = _roll(dice, f"D{features}", "Concealed: terrain feature", payload_faces(action, "feature_faces", 1, features))
        figs = _release(state, f"concealed{number}")
        return [
            Event(
                "arrival", f"Concealed group {number} ({_names(figs)}) appears in terrain feature {record.total}.", _rolls(record)
            )
        ]
    return []


def _release(state: dict[str, Any], waiting: str) -> list[dict[str, Any]]:
    figs = [f for f in state["enemies"] if f["status"] == "held" and f["waiting"] == waiting]
    for fig in figs:
        fig["status"], fig["waiting"], fig["arrived_round"] = "active", None, state["round"]
    return figs


def _escalation(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable], removed: int) -> list[Event]:
    """Escalating Battles (pp.46-47): a check when an enemy was removed this round, a crew member
    reached an objective, or the enemy is outnumbered by 3+ at the end of round 1; at most three
    rolls a battle; variation mode ignores a repeated result without counting it."""
    if not state["options"]["escalating_battles"]:
        return []
    esc = state["escalation"]
    check = _need(tables, "escalation-check")
    limit = int(check.entries[0].data["max_rolls_per_battle"])
    outnumbered = _table_row(check, "trigger", "outnumbered").data
    triggers = []
    if removed:
        triggers.append("an enemy was removed")
    if esc["objective_round"] == state["round"]:
        triggers.append("a crew member reached an objective")
    if state["round"] == int(outnumbered["round"]) and len(_crew_up(state)) - len(_on_table(state)) >= int(
        outnumbered["outnumbered_by_min"]
    ):
        triggers.append("the enemy is outnumbered")
    if not triggers or esc["rolls"] >= limit:
        return []
    rolled = _need(tables, "escalating-battles-escalation").roll_or_enter(
        dice,
        value=_face(action, "escalation_face", 100),
        column=state["ai"].title(),
        reason="Escalation check",
    )
    key = str(rolled.entry.data["escalation"])
    head = f"Escalation check ({', '.join(triggers)}; D100 {rolled.value}): {rolled.entry.result}."
    if state["options"]["escalation_variation"] and key in esc["seen"]:
        return [
            Event(
                "escalation",
                f"{head} Already happened this battle: no result, and it does not count (variation mode).",
                _rolls(rolled.record),
            )
        ]
    esc["rolls"] += 1
    esc["seen"].append(key)
    text, extra = _escalate(state, action, dice, tables, key)
    return [
        Event(
            "escalation",
            f"{head} {text} ({esc['rolls']} of {limit} escalations.)",
            {"escalation": key, **_rolls(rolled.record, *extra)},
        )
    ]


def _pick(dice: Dice, faces: list[int], figs: Sequence[dict[str, Any]], reason: str) -> tuple[dict[str, Any], list[RollRecord]]:
    """A random figure: a die with as many faces as figures when there is one (D3, D6, D10, D12,
    D20), a D6 in halves for two, else D100 read by position (its face - 1, modulo the count)."""
    size = len(figs)
    if size == 1:
        return figs[0], []
    if size == 2:
        record = _roll(dice, "D6", reason, _take(faces, 1))
        return figs[0 if int(record.total or 1) <= 3 else 1], [record]
    notation = f"D{size}" if size in (3, 6, 10, 12, 20) else "D100"
    record = _roll(dice, notation, reason, _take(faces, 1))
    index = (int(record.total or 1) - 1) % size
    return figs[index], [record]


def _escalate(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable], key: str
) -> tuple[str, list[RollRecord]]:
    data = _table_row(_need(tables, "escalation-effects"), "escalation", key).data
    group = state["groups"][0]
    faces = payload_ints(action, "pick_faces")
    outnumbered = len(_crew_up(state)) > len(_on_table(state))
    if key == "morale_increase":
        if all(panic_range(state, g, tables) == 0 for g in state["groups"]):
            text, rolls = _escalate(state, action, dice, tables, "fighting_intensifies")
            return f"The enemy is already Fearless, so: {text}", rolls
        state["panic_shift"] -= int(data["panic_shift"])
        ranges = ", ".join(f"{g['name']} {_panic_text(panic_range(state, g, tables))}" for g in state["groups"])
        return f"Panic ranges drop by 1 for the rest of the battle: {ranges}.", []
    if key == "fighting_intensifies":
        if not _on_table(state):
            return "No enemy on the table to toughen.", []
        fig, picked = _pick(dice, faces, _on_table(state), "Fighting intensifies: which enemy")
        fig["combat_skill"] += int(data["combat_skill"])
        fig["toughness"] = min(int(data["toughness_max"]), fig["toughness"] + int(data["toughness"]))
        fig["notes"].append("Fighting intensifies (p.47)")
        return (
            f"{fig['name']} gains Combat Skill +1 and Toughness +1 (now {_signed(fig['combat_skill'])}, {fig['toughness']}).",
            picked,
        )
    if key == "reinforcements":
        edge_roll = _roll(dice, str(data["edge_roll"]), "Reinforcements: edge", _take(faces, 1))
        edge = _edge(data["arrival_edge"], int(edge_roll.total or 0))
        if group["profile"]["combat_skill"] == int(data["weak_enemy_combat_skill"]):
            ranks = ["specialist"] * int(data["weak_enemy_specialists"])
            ranks = ["basic"] * (int(data["weak_enemy_total"]) - len(ranks)) + ranks
        else:
            ranks = ["basic"] * int(data["basic_enemies"])
        added = [_add_enemy(state, group, r, note=f"Reinforcements at the {edge} edge (p.47)") for r in ranks]
        return f"{_names(added)} arrive at the center of the {edge} edge.", [edge_roll]
    if key in ("regroup", "rush_attack"):
        count = int(data["basic_enemies_if_outnumbered"]) if outnumbered else 0
        added = [_add_enemy(state, group, "basic", note=f"{key.replace('_', ' ').title()} (p.47)") for _ in range(count)]
        what = (
            "Every enemy takes a bonus move to Cover with a shot."
            if key == "regroup"
            else "Every enemy makes a full move now, into brawls if it can."
        )
        return what + (f" Outnumbered: {_names(added)} join." if added else ""), []
    if key == "sniper":
        fig = _add_enemy(state, group, "basic", name=f"{group['name']} sniper", note="Sniper! on the tallest terrain (p.47)")
        fig["combat_skill"] = min(int(data["combat_skill_max"]), fig["combat_skill"] + int(data["combat_skill"]))
        try:
            fig["weapons"] = [fp_combat.weapon(tables, str(data["weapon"])).as_dict()]
        except fp_combat.CombatError:  # pragma: no cover - the shipped table has it
            fig["notes"].append(f"Carries a {data['weapon']}")
        return (
            f"{fig['name']} appears on the tallest terrain with a {data['weapon']} (Combat Skill {_signed(fig['combat_skill'])}).",
            [],
        )
    if key == "ambush":
        side_roll = _roll(dice, "D6", "Ambush!: 1-3 left, 4-6 right", _take(faces, 1))
        side = "left" if int(side_roll.total or 0) <= 3 else "right"
        added = [
            _add_enemy(state, group, "basic", note=f"Ambush! on the {side} (p.47)") for _ in range(int(data["basic_enemies"]))
        ]
        return f"{_names(added)} appear half-way between the {side}most crew figure and the {side} edge.", [side_roll]
    if key == "unconventional_tactics":
        state["reactions_one_round"] = state["round"] + 1
        return "Next round every crew member counts as Reactions 1.", []
    return str(_table_row(_need(tables, "escalation-effects"), "escalation", key).effect), []


def _end_battle(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End the battle now. ``held_field`` defaults to whether the enemy is gone (and none waits);
    with both sides still on the table it must be given (the crew withdrew: off). In a data
    cache battle (p.79) it defaults to whether the score reached its target."""
    require_owner(action)
    if state["phase"] == "setup":
        raise _err("The battle has not started.", "type")
    raw = action.payload.get("held_field")
    cache_done = data_cache.end_default(state)
    if raw in (None, "") and cache_done is not None:
        # A data cache battle (p.79) is completed by ending it once the score reached its target.
        why = "The crew leave with the data cache." if cache_done else "The crew leave before the score reached its target."
        return _finish(state, cache_done, f"{why} The battle ends in round {state['round']}.")
    if raw in (None, ""):
        if not _crew_up(state):
            held = False
        elif not _on_table(state) and not _waiting(state):
            held = True
        else:
            raise _err("held_field is required (on or off): both sides are still on the table.", "held_field")
    else:
        held = payload_flag(action, "held_field")
    return _finish(state, held, f"The battle ends in round {state['round']}.")
