"""Mass combat: combats, assists, exchanges, combat rolls, losses, the Medic save, press and retreat (Quickstart Rules for Mass Combat, p.1)."""

from __future__ import annotations

from typing import Any

from live.engine.tracker import Action, Event, NotYours, TrackerError
from rules.engine.dice import Dice, Keep, Notation
from tabletools.engine.mass_combat.constants import CASTER_REACH, CIRCLE_HIT_FACE, HIT_FACE, SQUAD_TYPES, State
from tabletools.engine.mass_combat.helpers import (
    _controls_side,
    _find,
    _free_squads,
    _hero_in,
    _id_list,
    _label,
    _one_squad,
    _other,
    _require_clear,
    _require_side,
    _require_turn,
    _roll,
    _side_name,
    _squad,
    _text,
)
from tabletools.engine.mass_combat.state import combat_dice

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
