"""No-minis battles: the end of the round: Stun removal (p.70), Morale and Retreat (p.72), Secure
progress (p.73)."""

from __future__ import annotations

from collections.abc import Sequence

from battles.engine.nominis.combat import _check_end, _remove_crew
from battles.engine.nominis.state import (
    END_TABLE,
    NOTES_TABLE,
    RANKS,
    Event,
    NoMinisError,
    State,
    Tables,
    _active_enemies,
    _crew,
    _entry_data,
    _event,
    _panic_faces,
    _pick,
)
from rules.engine.dice import Dice

# -- end of round ------------------------------------------------------------------------------------


def _end_round(st: State, dice: Dice, tables: Tables, events: list[Event]) -> None:
    for figure in st["crew"] + st["enemies"]:
        figure["stun"] = 0  # p.70
    events.append(_event("end_round", "All Stun markers are removed (p.70)."))
    _morale(st, dice, events)
    _secure_progress(st, tables, events)
    _check_end(st, events)
    if not st["finished"]:
        st["phase"] = "retreat"


def _morale(st: State, dice: Dice, events: list[Event]) -> None:
    casualties = st["enemy_casualties_round"]
    panic = _panic_faces(st["enemy_panic"])
    if casualties <= 0 or not panic or not _active_enemies(st):
        return
    record = dice.separate(casualties, 6, f"Enemy Morale: one D6 per casualty, Panic {st['enemy_panic']}")
    fleeing = sum(1 for f in record.faces if f in panic)
    rolls = [record]
    gone = []
    for _ in range(fleeing):
        left = _active_enemies(st)
        candidates = [e for e in left if not (st["mission"] == "eliminate" and e["target"] and len(left) > 1)]
        for rank in RANKS:
            ranked = [e for e in candidates if e["rank"] == rank]
            if ranked:
                enemy, recs = _pick(dice, ranked, f"Morale: which {rank} flees")
                rolls += recs
                enemy["status"] = "fled"
                gone.append(enemy["name"])
                break
    text = f"Morale: {fleeing} die/dice in the Panic range; {', '.join(gone) or 'nobody'} flee (p.72; regulars first)."
    events.append(_event("morale", text, rolls))


def _secure_progress(st: State, tables: Tables, events: list[Event]) -> None:
    if st["mission"] != "secure" or st["objective"]["achieved"]:
        return
    objective = st["objective"]
    centre = next(loc for loc in st["locations"] if loc["kind"] == "centre")
    holder = centre["occupant"]
    if holder is None:
        objective.update({"holder": None, "rounds": 0})
        return
    crew = _crew(st, holder)
    if holder != objective["holder"]:
        objective.update({"holder": holder, "rounds": 0})
    objective["rounds"] = 0 if crew["brawled"] else objective["rounds"] + 1
    needed = int(_entry_data(tables, NOTES_TABLE, "Secure").get("consecutive_rounds", 2))
    events.append(_event("objective", f"{holder} holds the centre: {objective['rounds']} of {needed} rounds (p.73)."))
    if objective["rounds"] >= needed:
        objective["achieved"] = True
        objective["detail"] = f"{holder} secured the centre."


def _retreat(st: State, names: Sequence[str], dice: Dice, tables: Tables, events: list[Event], *, covered: bool = False) -> None:
    limit = int(_entry_data(tables, END_TABLE, "Retreat").get("max_figures", 2))
    chosen = [_crew(st, n, "names") for n in names]
    if len({c["name"] for c in chosen}) != len(chosen):
        raise NoMinisError("names: each crew figure may be listed once.", field="names")
    for crew in chosen:
        if crew["status"] != "active":
            raise NoMinisError(f"names: {crew['name']} is not on the battlefield.", field="names")
    if not covered and sum(1 for c in chosen if not c["special_movement"]) > limit:
        raise NoMinisError(
            f"names: at most {limit} crew without special movement may try to retreat each round (p.72).", field="names"
        )
    for crew in chosen:
        if covered or crew["special_movement"]:
            why = "Covered retreat (p.71)" if covered else "special movement: leaves automatically (p.72)"
            events.append(_event("retreat", f"{crew['name']} leaves the battle: {why}."))
            _remove_crew(st, crew, "retreated", events)
            continue
        record = dice.roll("1D6", f"Retreat: {crew['name']} needs Speed {crew['speed']} or less (p.72)")
        if (record.total or 0) <= crew["speed"]:
            events.append(_event("retreat", f"{crew['name']} rolls {record.total}: leaves the battle.", [record]))
            _remove_crew(st, crew, "retreated", events)
        else:
            events.append(_event("retreat", f"{crew['name']} rolls {record.total}: cannot get away this round.", [record]))
