"""No-minis battles: the end of the round: Stun removal (p.70), Morale and Retreat (p.72), Secure
progress (p.73)."""

from __future__ import annotations

from collections.abc import Sequence

from battles.engine.nominis import elite
from battles.engine.nominis.combat import _casualty, _check_end, _remove_crew
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
    _enemy,
    _entry_data,
    _event,
    _opts,
    _panic_faces,
    _pick,
    _roll,
)
from rules.engine.dice import Dice

# -- end of round ------------------------------------------------------------------------------------


def _end_round(st: State, dice: Dice, tables: Tables, events: list[Event]) -> None:
    if _opts(st).casualty_tables:
        _conditions(st, dice, events)
    kept = []
    for figure in st["crew"] + st["enemies"]:
        if figure.get("dazed"):
            del figure["dazed"]
            if figure["stun"]:
                kept.append(figure["name"])
                continue
        figure["stun"] = 0  # p.70
    text = "All Stun markers are removed (p.70)."
    if kept:
        text = f"All Stun markers are removed (p.70), but {', '.join(kept)} keep theirs (Dazed, p.99)."
    events.append(_event("end_round", text))
    if "enemy_rules" in st:
        _elite_morale(st, dice, tables, events)
    else:
        _morale(st, dice, events)
    _secure_progress(st, tables, events)
    _check_end(st, events)
    if not st["finished"]:
        st["phase"] = "retreat"


def _conditions(st: State, dice: Dice, events: list[Event]) -> None:
    """Casualty-table conditions (p.99), rolled at the end of the round (ruling: a no-minis round
    has no activations): Damaged, a 6 removes the figure; Bleeding, a 1 ends it and a 6 is a Goner."""
    for figure in st["crew"] + st["enemies"]:
        if figure["status"] not in ("active", "attached"):
            continue
        if figure.get("damaged"):
            record = _roll(dice, 1, 6, f"{figure['name']} is Damaged: a 6 and it falls apart (p.99)")
            if record["total"] == 6:
                events.append(_event("casualty_table", f"{figure['name']} rolls a 6 and falls apart.", [record]))
                _casualty(st, figure, events)
                continue
            events.append(
                _event("casualty_table", f"{figure['name']} is Damaged, rolls {record['total']}: holds together.", [record])
            )
        if figure.get("bleeding"):
            record = _roll(dice, 1, 6, f"{figure['name']} is Bleeding: 1 stops it, 6 is a Goner (p.99)")
            if record["total"] == 6:
                events.append(_event("casualty_table", f"{figure['name']} is Bleeding and rolls a 6: a Goner.", [record]))
                _casualty(st, figure, events)
            elif record["total"] == 1:
                del figure["bleeding"]
                events.append(_event("casualty_table", f"{figure['name']} rolls a 1: the Bleeding stops.", [record]))
            else:
                events.append(_event("casualty_table", f"{figure['name']} keeps Bleeding (rolled {record['total']}).", [record]))


def _morale(st: State, dice: Dice, events: list[Event]) -> None:
    casualties = st["enemy_casualties_round"]
    panic = _panic_faces(st["enemy_panic"])
    if casualties <= 0 or not panic or not _active_enemies(st):
        return
    if elite.has_power(st, elite.BOLSTER):
        events.append(_event("morale", f"Morale: no test: {elite.all_fearless(st)}."))
        return
    record = _roll(dice, casualties, 6, f"Enemy Morale: one D6 per casualty, Panic {st['enemy_panic']}", separate=True)
    fleeing = sum(1 for f in record["faces"] if f in panic)
    rolls = [record]
    gone = []
    for _ in range(fleeing):
        left = _active_enemies(st)
        candidates = [
            e for e in left if not e.get("fearless") and not (st["mission"] == "eliminate" and e["target"] and len(left) > 1)
        ]
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


def _elite_morale(st: State, dice: Dice, tables: Tables, events: list[Event]) -> None:
    """Morale (p.72) with the elite-level rules (:mod:`battles.engine.nominis.elite`): Fearless
    figures never flee, Leadership, Stubborn, Authority figure, Swarming, The Prophecy!, The stars
    say to stay, Wave attacks and Displace, and the lone Corporate Spook or Gene Dog fleeing."""
    d = elite.data(st)
    slain = list(st["flags"].get("slain", ()))
    casualties = st["enemy_casualties_round"]
    exempt = elite.stubborn_exempt(st)
    authority = [n for n in slain if elite.unique_data(tables, _enemy(st, n).get("unique")).get("panic_modifier")]
    count = casualties - exempt + len(authority)
    notes = []
    if exempt:
        notes.append(f"Stubborn: {exempt} of the first casualties force no Morale die (p.51)")
    if authority:
        notes.append(f"{', '.join(authority)} slain: one more Morale die (Authority figure, p.62)")
    faces, panic_text = elite.panic_now(st, tables)
    fearless = elite.all_fearless(st)
    rolls = []
    gone: list[str] = []
    arrivals = 0
    if count > 0 and _active_enemies(st):
        if fearless:
            notes.append(f"no test: {fearless}")
        elif not faces:
            notes.append(f"no test: {panic_text}, they are Fearless")
        else:
            record = _roll(dice, count, 6, f"Enemy Morale: one D6 per casualty, {panic_text}", separate=True)
            rolls.append(record)
            fleeing = sum(1 for f in record["faces"] if f in faces)
            for _ in range(fleeing):
                left = _active_enemies(st)
                candidates = [
                    e
                    for e in left
                    if not e.get("fearless") and not (st["mission"] == "eliminate" and e["target"] and len(left) > 1)
                ]
                for rank in RANKS:
                    ranked = [e for e in candidates if e["rank"] == rank]
                    if ranked:
                        enemy, recs = _pick(dice, ranked, f"Morale: which {rank} flees")
                        rolls += recs
                        enemy["status"] = "fled"
                        gone.append(enemy["name"])
                        break
            st["morale_fled"] = int(st.get("morale_fled", 0)) + len(gone)
            notes.append(f"{panic_text}: {fleeing} die/dice in the Panic range; {', '.join(gone) or 'nobody'} flee (p.72)")
            if d.get("swarm_morale_roll"):
                swarm = sum(1 for f in record["faces"] if f in elite.roll_range(d["swarm_morale_roll"]))
                if swarm:
                    arrivals += swarm
                    notes.append(f"Swarming: {swarm} more basic enemy (p.56)")
            if elite.type_is(st, "Zealots"):
                for _ in range(sum(1 for f in record["faces"] if f == 6)):
                    zealots = [e for e in _active_enemies(st) if not e.get("unique")]
                    if zealots:
                        zealot, recs = _pick(dice, zealots, "The Prophecy!: which Zealot")
                        rolls += recs
                        zealot["combat_skill"] += 1
                        notes.append(f"The Prophecy!: {zealot['name']} gains +1 Combat Skill (p.57)")
            if elite.type_is(st, "Large bugs") and gone:
                arrivals += len(gone)
                notes.append(f"Wave attacks: {len(gone)} Bug(s) arrive for those that fled (p.61)")
    if notes:
        events.append(_event("morale", "Morale: " + "; ".join(notes) + ".", rolls))
    wave = d.get("wave_roll") or d.get("displace_roll")
    if wave:
        notation = str(d.get("wave_dice") or d.get("displace_dice") or "1D6")
        why = "Wave attacks (p.61)" if d.get("wave_roll") else "Displace (p.61)"
        for name in slain:
            if _enemy(st, name).get("unique"):
                continue
            arrival = dice.roll(notation, f"{why}: {name} slain, {wave} brings another")
            if (arrival.total or 0) in elite.roll_range(wave):
                arrivals += 1
                events.append(_event("elite", f"{why}: rolled {arrival.total}, another one arrives.", [arrival]))
            else:
                events.append(_event("elite", f"{why}: rolled {arrival.total}, none arrives.", [arrival]))
    if arrivals:
        _reinforce(st, arrivals, events)
    left = _active_enemies(st)
    if len(left) == 1 and left[0].get("unique") in elite.ALONE_FLEES:
        left[0]["status"] = "fled"
        events.append(_event("morale", f"{left[0]['name']} is the only enemy left and flees (pp.63-64)."))


def _reinforce(st: State, count: int, events: list[Event]) -> None:
    """``count`` more basic enemies join (Swarming, Wave attacks, Displace): copies of the first
    regular figure as it began, numbered on from the highest number in use."""
    template = next((e for e in st["enemies"] if e["rank"] == "regular" and not e.get("unique")), None)
    if template is None:
        return
    stem = template["name"].rstrip("0123456789") or "Enemy "
    names = {f["name"] for f in st["crew"] + st["enemies"]}
    added = []
    number = 1
    for _ in range(count):
        while f"{stem}{number}" in names:
            number += 1
        figure = {k: v for k, v in template.items() if k not in ("psionic_powers", "captain", "unique", "wounded", "dazed",
                                                                  "damaged", "bleeding", "casualty_modifier")}  # fmt: skip
        figure.update(
            {"name": f"{stem}{number}", "status": "active", "stun": 0, "fired": False, "heat": False, "heat_last": False,
             "no_attack": False, "optimal_fired": False, "target": False, "weapons": [dict(w) for w in template["weapons"]]}
        )  # fmt: skip
        names.add(figure["name"])
        st["enemies"].append(figure)
        added.append(figure["name"])
    events.append(_event("elite", f"{', '.join(added)} join the enemy."))


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
        record = _roll(dice, 1, 6, f"Retreat: {crew['name']} needs Speed {crew['speed']} or less (p.72)")
        if record["total"] <= crew["speed"]:
            events.append(_event("retreat", f"{crew['name']} rolls {record['total']}: leaves the battle.", [record]))
            _remove_crew(st, crew, "retreated", events)
        else:
            events.append(_event("retreat", f"{crew['name']} rolls {record['total']}: cannot get away this round.", [record]))
