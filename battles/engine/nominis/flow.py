"""No-minis battles: Battle flow events (Compendium p.71, ``no-minis-battle-flow-events``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.nominis.combat import _apply_shot, _brawl, _cover_for, _shoot
from battles.engine.nominis.setup import _location
from battles.engine.nominis.state import (
    FLOW_TABLE,
    KEEP_DISTANCE_IN,
    Event,
    NoMinisError,
    Record,
    State,
    Tables,
    _active_crew,
    _active_enemies,
    _event,
    _pick,
    _roll_table,
    _table,
)
from battles.engine.nominis.weapons import _best_gun, _brawl_weapon
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import TableError

# -- flow events -------------------------------------------------------------------------------------


def _flow(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    table = _table(tables, FLOW_TABLE)
    value = action.get("value")
    reason = "Battle flow event (p.71)"
    record: RollRecord | Record
    try:
        if value is None:
            entry, record = _roll_table(dice, table, reason)
        else:
            entered = table.roll_or_enter(dice, value=int(value), reason=reason)
            entry, record = entered.entry, entered.record
    except (TableError, ValueError) as exc:
        raise NoMinisError(f"value: {exc}", field="value") from exc
    name = entry.result
    st["flow_event"] = name
    rolls: list[RollRecord | Record] = [record]
    flags = st["flags"]
    text = f"Battle flow event: {name} ({entry.effect})"
    st["phase"] = "initiative"
    crew = _active_crew(st)
    foes = _active_enemies(st)
    if name == "Fleeting shot":
        if any(_best_gun(c) is not None for c in crew):
            shooter, recs = _pick(dice, crew, "Fleeting shot: which crew figure")
            rolls += recs
            if _best_gun(shooter) is not None:
                st["pending"] = {"kind": "fleeting_shot", "crew": shooter["name"]}
                text += f" {shooter['name']} may shoot."
            else:
                text += f" {shooter['name']} has no gun."
    elif name == "Running firefight":
        events.append(_event("flow", text, rolls))
        _running_firefight(st, dice, tables, events)
        return
    elif name == "Stumble into each other":
        events.append(_event("flow", text, rolls))
        c, r1 = _pick(dice, _targets(st, None), "Stumble: which crew figure")
        e, r2 = _pick(dice, foes, "Stumble: which enemy")
        events.append(_event("flow", f"{c['name']} and {e['name']} stumble into each other.", r1 + r2))
        _brawl(
            st,
            dice,
            c,
            e,
            crew_weapon=_brawl_weapon(c),
            enemy_weapon=_brawl_weapon(e),
            why="Stumble into each other (p.71)",
            events=events,
            tables=tables,
        )
        return
    elif name == "Exposed!":
        events.append(_event("flow", text, rolls))
        e, r1 = _pick(dice, foes, "Exposed!: which enemy")
        c, r2 = _pick(dice, _targets(st, None), "Exposed!: which crew figure")
        gun = _best_gun(e)
        if gun is None:
            events.append(_event("flow", f"{e['name']} has no gun and cannot fire.", r1 + r2))
            return
        events.append(_event("flow", f"{e['name']} fires on {c['name']}.", r1 + r2))
        _shoot(
            st,
            dice,
            e,
            c,
            gun,
            range_in=gun["range"],
            cover=True,
            moved=False,
            natural_six=bool(c["taking_cover"]),
            why="Exposed! at maximum range, stationary, against Cover (p.71)",
            events=events,
            tables=tables,
        )
        return
    elif name == "Spot Firing Position":
        count = sum(1 for loc in st["locations"] if loc["kind"] == "firing_position") + 1
        st["locations"].append(_location(f"Firing Position {count}", "firing_position", known=True))
    elif name == "Find shortcut":
        mover, recs = _pick(dice, crew, "Find shortcut: which crew figure")
        rolls += recs
        if _free_known(st, mover):
            st["pending"] = {"kind": "find_shortcut", "crew": mover["name"]}
            text += f" {mover['name']} may move to a known Location."
        else:
            text += f" {mover['name']} has no free known Location to move to."
    elif name == "Discover Location":
        suspected = [loc for loc in st["locations"] if not loc["known"]]
        if suspected:
            loc, recs = _pick(dice, suspected, "Discover Location: which one")
            rolls += recs
            loc["known"] = True
            text += f" {loc['name']} is now known."
    elif name == "Difficult sight-lines" or name == "Intense fight":
        flags["firefight_delta"] += int(entry.data.get("firefight_enemies", 0))
    elif name == "Kill zone":
        kill = dice.roll(str(entry.data.get("range_in", "1D6+10")), "Kill zone range in inches (p.71)")
        rolls.append(kill)
        flags["kill_zone"] = kill.total
        text += f' All gunfire this round is at {kill.total}".'
    elif name == "Open ground":
        flags["open_ground"] = True
    elif name == "Careful maneuvering":
        st["pending"] = {"kind": "careful_maneuvering"}
    elif name == "Covered retreat":
        st["pending"] = {"kind": "covered_retreat"}
    elif name == "Separated":
        flags["separated"] = True
    events.append(_event("flow", text, rolls))


def _running_firefight(st: State, dice: Dice, tables: Tables, events: list[Event]) -> None:
    """p.71: both shoot at once at the shorter weapon's range, both moving, targets in Cover."""
    c, r1 = _pick(dice, _targets(st, None), "Running firefight: which crew figure")
    e, r2 = _pick(dice, _active_enemies(st), "Running firefight: which enemy")
    cg, eg = _best_gun(c), _best_gun(e)
    ranges = [g["range"] for g in (cg, eg) if g]
    events.append(_event("flow", f"{c['name']} and {e['name']} trade fire on the move.", r1 + r2))
    if not ranges:
        events.append(_event("flow", "Neither can fire."))
        return
    rng = min(ranges)
    six = bool(c["taking_cover"])
    results = []
    for shooter, target, gun in ((c, e, cg), (e, c, eg)):
        if gun is None:
            continue
        cover = _cover_for(st, shooter, True)
        result = _shoot(
            st,
            dice,
            shooter,
            target,
            gun,
            range_in=rng,
            cover=cover,
            moved=True,
            natural_six=six,
            why="Running firefight, simultaneous (p.71)",
            events=events,
            tables=tables,
            apply_result=False,
        )
        results.append((shooter, target, result))
    for shooter, target, result in results:
        _apply_shot(st, dice, tables, shooter, target, result, events)


def _free_known(st: State, crew: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [loc for loc in st["locations"] if loc["known"] and loc["occupant"] is None and loc["name"] != crew.get("location")]


def _targets(st: State, enemy: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Crew figures an enemy may pick: on the field, not an attached VIP (p.73), and not Keeping
    Distance unless the enemy has a weapon over 12" (p.68)."""
    found = []
    for crew in _active_crew(st):
        if enemy is not None and crew["keep_distance"] and _best_gun(enemy, over=KEEP_DISTANCE_IN) is None:
            continue
        found.append(crew)
    return found
