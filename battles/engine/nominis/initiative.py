"""No-minis battles: Initiative and Initiative Actions (Compendium pp.67-68), with the pending
Charge and Optimal Shot decisions."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any

from battles.engine.nominis import elite
from battles.engine.nominis.combat import _arrive, _brawl, _cover_for, _engaged, _free_location, _remove_crew, _shoot
from battles.engine.nominis.flow import _free_known
from battles.engine.nominis.state import (
    ACTIONS,
    ACTIONS_TABLE,
    CHARGE,
    KEEP_DISTANCE,
    KEEP_DISTANCE_IN,
    MISSIONS,
    MOVE_UP,
    NOTES_TABLE,
    OPTIMAL_SHOT,
    SCOUT,
    SUPPORT,
    TAKE_COVER,
    TASK,
    Event,
    NoMinisError,
    Record,
    State,
    Tables,
    _active_crew,
    _active_enemies,
    _crew,
    _enemy,
    _enter,
    _entry_data,
    _event,
    _location_of,
    _opts,
    _pick,
    _roll,
)
from battles.engine.nominis.weapons import _best_gun, _brawl_weapon, _gun_named
from rules.engine.dice import Dice

# -- initiative ---------------------------------------------------------------------------------------


def _set_sixes(st: State) -> list[str]:
    """Why Reaction dice are set to 6 this round: the enemy Psionic power Slow (p.23) and the
    Freelancer's Calculating (p.63), one die each while on the field."""
    why = []
    if elite.has_power(st, elite.SLOW):
        why.append("Slow (p.23)")
    if any(e.get("unique") == "Freelancer" for e in _active_enemies(st)):
        why.append("Calculating (p.63)")
    return why


def _mark(st: State, dice: Dice, events: list[Event]) -> None:
    """The mark (Bounty Hunters, p.56): a random crew figure drawn as the battle starts."""
    if "elite_mark" in st or not elite.data(st).get("mark_modifier"):
        return
    marked, recs = _pick(dice, _active_crew(st), "The mark: which crew figure")
    st["elite_mark"] = marked["name"]
    events.append(_event("elite", f"The mark: the Bounty Hunters are after {marked['name']} (p.56).", recs))


def _roll_initiative(st: State, action: Mapping[str, Any], dice: Dice, events: list[Event]) -> None:
    if "enemy_rules" in st:
        _mark(st, dice, events)
    crew = _active_crew(st)
    count = max(0, len(crew) + _opts(st).reaction_dice_modifier - 1)
    faces = action.get("faces")
    reason = "Reaction roll, one die fewer than normal (p.67)"
    sixes = _set_sixes(st) if "enemy_rules" in st or any(e.get("psionic_powers") for e in st["enemies"]) else []
    fixed = min(len(sixes), count)
    if fixed:
        count -= fixed
        reason += f"; {fixed} die/dice set to 6 ({', '.join(sixes)})"
    record: Record | None = None
    if count == 0:
        st["initiative_dice"] = []
    elif faces is not None:
        record = _enter(f"{count}D6", faces, reason)
        st["initiative_dice"] = list(record["faces"])
    else:
        record = _roll(dice, count, 6, reason, separate=True)
        st["initiative_dice"] = list(record["faces"])
    st["initiative_dice"] += [6] * fixed
    st["phase"] = "assign"
    events.append(
        _event(
            "initiative",
            f"Reaction dice: {', '.join(map(str, st['initiative_dice'])) or 'none'} for {len(crew)} crew figures.",
            [record] if record else [],
        )
    )


def suggested_assignment(st: Mapping[str, Any]) -> dict[str, int]:
    """The assignment of Reaction dice that lets the most characters act: lowest Reactions take the
    lowest die that fits; the captain (who acts anyway, p.67) is served last."""
    left = sorted(st["initiative_dice"])  # the lowest unused die first: it fits if any does
    assignment: dict[str, int] = {}
    waiting = []
    for figure in sorted(_active_crew(st), key=_ASSIGN_ORDER):
        if left and left[0] <= figure["reactions"]:
            assignment[figure["name"]] = left.pop(0)
        else:
            waiting.append(figure)
    for figure in waiting[: len(left)]:  # the spare dice, lowest first, to those still without one
        assignment[figure["name"]] = left.pop(0)
    return assignment


#: The order :func:`suggested_assignment` serves the crew in: the captain last, then by Reactions
#: and name.
_ASSIGN_ORDER = itemgetter("captain", "reactions", "name")


def _assign(st: State, action: Mapping[str, Any], events: list[Event]) -> None:
    raw = action.get("assignments")
    if raw is None:
        raw = suggested_assignment(st)
    if type(raw) is not dict and not isinstance(raw, Mapping):
        raise NoMinisError("assignments must map crew names to die faces.", field="assignments")
    left = list(st["initiative_dice"])
    for name, face in raw.items():
        figure = _crew(st, name, "assignments")
        if figure["status"] != "active":
            raise NoMinisError(f"assignments: {name} is not on the battlefield.", field="assignments")
        try:
            value = int(face)
        except (TypeError, ValueError):
            raise NoMinisError(f"assignments: {name} needs a die face; got {face!r}.", field="assignments") from None
        if value not in left:
            raise NoMinisError(
                f"assignments: no unassigned die shows {value}; the dice are {st['initiative_dice']}.", field="assignments"
            )
        left.remove(value)
    acting = []
    paralyzed = elite.has_power(st, elite.PARALYZE)
    for figure in _active_crew(st):
        die = raw.get(figure["name"])
        figure["die"] = None if die is None else int(die)
        figure["eligible"] = bool(figure["captain"] or (die is not None and int(die) <= figure["reactions"]))
        if paralyzed and figure["die"] == 6 and figure["eligible"]:
            figure["eligible"] = False
            events.append(_event("elite", f"{figure['name']} was given a 6: Paralyzed, no action this round (p.23)."))
        if figure["eligible"]:
            acting.append(figure["name"])
    st["phase"] = "actions"
    events.append(_event("initiative", f"Initiative Actions this round: {', '.join(acting) or 'nobody'} (p.67)."))


def _modifiers(
    st: State,
    tables: Tables,
    crew: Mapping[str, Any],
    action: str,
    *,
    weapon: Mapping[str, Any] | None = None,
    data: Mapping[str, Any] | None = None,
) -> list[tuple[int, str]]:
    """The Battlefield Test modifiers (p.67) that apply to ``crew`` for ``action``, as
    ``(modifier, condition)``; ``data``: the action's row data when the caller has it."""
    if data is None:
        data = _entry_data(tables, ACTIONS_TABLE, action)
    found = []
    for mod in data.get("modifiers", []):
        condition = str(mod["condition"])
        kind, speed = _condition(condition)
        if kind == "speed":
            applies = crew["speed"] >= speed
        elif kind == "movement":
            applies = bool(crew["special_movement"])
        elif kind == "heavy":
            applies = weapon is not None and "heavy" in weapon["traits"]
        elif kind == "location":
            applies = crew["location"] is not None
        else:
            applies = False
        if applies:
            found.append((int(mod["modifier"]), condition))
    return found


@lru_cache(maxsize=64)
def _condition(condition: str) -> tuple[str, int]:
    """What a Battlefield Test modifier's condition checks (p.67): ``("speed", inches)`` for
    ``Speed 5" or more``, else ``("movement" | "heavy" | "location" | "", 0)``. The table has a
    few conditions and every test reads them: each is worked out once."""
    speed = re.match(r'Speed (\d+)"', condition)
    if speed:
        return "speed", int(speed[1])
    if "movement device" in condition:
        return "movement", 0
    if "Heavy" in condition:
        return "heavy", 0
    if "Location" in condition:
        return "location", 0
    return "", 0


def _test(
    st: State,
    tables: Tables,
    dice: Dice,
    crew: Mapping[str, Any],
    action_name: str,
    payload: Mapping[str, Any],
    events: list[Event],
    *,
    weapon: Mapping[str, Any] | None = None,
    extra: Sequence[tuple[int, str]] = (),
) -> bool:
    """A 2D6 Battlefield Test (p.67) for ``action_name``; True when it passes or needs no roll."""
    data = _entry_data(tables, ACTIONS_TABLE, action_name)
    target = data.get("target")
    if target is None:
        return True
    mods = _modifiers(st, tables, crew, action_name, weapon=weapon, data=data)
    if extra:
        mods += extra
    bonus = payload.get("bonus")
    if bonus is None:
        bonus = action_name in crew["bonus_actions"]
    if bonus:
        mods.append((1, "one applicable ability or item (p.67)"))
    total_mod = 0
    for m, _ in mods:
        total_mod += m
    reason = f"Battlefield Test: {action_name} ({target}+)"
    faces = payload.get("faces")
    if faces is not None:
        record = _enter("2D6", faces, reason, modifier=total_mod)
    else:
        record = _roll(dice, 2, 6, reason, modifier=total_mod)
    passed = record["total"] >= int(target)
    why = "; ".join([f"{m:+d} {c}" for m, c in mods]) if mods else ""
    text = f"{crew['name']} tries {action_name}: needs {target}+, rolls {record['total']}{' (' + why + ')' if why else ''}: {'passed' if passed else 'failed'}."
    events.append(_event("test", text, [record]))
    return passed


def _task_location_ok(st: State, crew: Mapping[str, Any]) -> str | None:
    """Why ``crew`` can Carry Out Task here (the Location kind), or None."""
    if st["objective"]["achieved"] or crew["location"] is None:
        return None
    loc = _location_of(st, crew["location"])
    mission = st["mission"]
    kind = loc["kind"]
    if mission == "access" and kind == "console":
        return kind
    if mission == "deliver" and kind == "delivery" and st["objective"].get("carrier") == crew["name"]:
        return kind
    if mission == "move_through" and kind == "exit":
        return kind
    if mission == "search" and kind == "search" and not loc["checked"]:
        return kind
    return None


def _carry_out_task(st: State, dice: Dice, crew: dict[str, Any], events: list[Event]) -> None:
    kind = _task_location_ok(st, crew)
    objective = st["objective"]
    loc = _location_of(st, crew["location"])
    spec = objective.get("task")
    if kind != "exit" and spec:
        stat = int(crew[spec["stat"]]) if spec["stat"] else 0
        record = dice.roll(spec["dice"], f"Objective roll ({MISSIONS[st['mission']]}, core rules)", modifier=stat)
        ok = (record.total or 0) >= spec["target"]
        events.append(
            _event(
                "task",
                f"{crew['name']} attempts the task: {record.total} against {spec['target']}+: {'success' if ok else 'failure'}.",
                [record],
            )
        )
        if not ok:
            return
    if kind == "console":
        objective["achieved"] = True
        objective["detail"] = f"{crew['name']} accessed the console."
        events.append(_event("objective", "Access achieved."))
    elif kind == "delivery":
        objective["achieved"] = True
        objective["detail"] = f"{crew['name']} delivered the item."
        events.append(_event("objective", "Deliver achieved."))
    elif kind == "exit":
        events.append(_event("objective", f"{crew['name']} leaves through the exit (p.73)."))
        _remove_crew(st, crew, "exited", events)
    elif kind == "search":
        loc["checked"] = True
        sites = [lc for lc in st["locations"] if lc["kind"] == "search"]
        rolls: list[Record] = []
        if objective["item_site"] is None:
            site, rolls = _pick(dice, sites, "Search: which site holds the item (drawn at the first search)")
            objective["item_site"] = site["name"]
        found = objective["item_site"] == loc["name"]
        if found:
            objective["achieved"] = True
            objective["detail"] = f"{crew['name']} found the item at {loc['name']}."
        events.append(
            _event("objective", f"{crew['name']} searches {loc['name']}: {'the item is here' if found else 'nothing'}.", rolls)
        )


def _initiative_action(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    crew = _crew(st, action.get("actor"))
    name = action.get("action")
    if name not in ACTIONS:
        raise NoMinisError(f"action must be one of {', '.join(ACTIONS)}; got {name!r}.", field="action")
    if crew["status"] != "active" or not crew["eligible"]:
        raise NoMinisError(f"actor: {crew['name']} may not take an Initiative Action this round (p.67).", field="actor")
    if crew["acted"]:
        raise NoMinisError(f"actor: {crew['name']} has already taken an Initiative Action this round.", field="actor")
    problem = _action_problem(st, crew, name, action, tables)
    if problem:
        raise NoMinisError(problem[1], field=problem[0])
    crew["acted"] = True
    if name == SCOUT:
        loc = _location_of(st, action.get("location"))
        extra = []
        if st["mission"] == "access" and loc["kind"] == "console" and crew["soulless"]:
            extra.append(
                (
                    int(_entry_data(tables, NOTES_TABLE, "Access").get("soulless_scout_bonus", 1)),
                    "Soulless locating the console (p.72)",
                )
            )
        if _test(st, tables, dice, crew, SCOUT, action, events, extra=extra):
            loc["known"] = True
            events.append(_event("location", f"{loc['name']} is now a known Location (p.68)."))
    elif name == MOVE_UP:
        target = action.get("location")
        crew["taking_cover"] = False  # p.68
        if target in (None, "", "battle space"):
            _free_location(st, crew)
            crew["location"] = None
            events.append(_event("move", f"{crew['name']} leaves the Location for the general battle space."))
        else:
            _arrive(st, crew, _location_of(st, target), events)
    elif name == TASK:
        _carry_out_task(st, dice, crew, events)
    elif name == CHARGE:
        if _test(st, tables, dice, crew, CHARGE, action, events):
            enemy, recs = _pick(dice, _active_enemies(st), "Charge: which enemy")
            st["pending"] = {"kind": "charge", "crew": crew["name"], "enemy": enemy["name"]}
            events.append(_event("charge", f"{crew['name']} closes on {enemy['name']}: Brawl or hold back?", recs))
    elif name == OPTIMAL_SHOT:
        weapon = _optimal_weapon(crew, action)
        if _test(st, tables, dice, crew, OPTIMAL_SHOT, action, events, weapon=weapon):
            enemy, recs = _pick(dice, _active_enemies(st), "Optimal Shot: which enemy")
            assert weapon is not None
            st["pending"] = {"kind": "optimal_shot", "crew": crew["name"], "enemy": enemy["name"], "weapon": weapon["name"]}
            events.append(
                _event(
                    "optimal_shot", f'{crew["name"]} lines up on {enemy["name"]}: pick a range up to {weapon["range"]}".', recs
                )
            )
    elif name == SUPPORT:
        ally = _crew(st, action.get("ally"), "ally")
        if ally["name"] not in crew["supports"]:
            crew["supports"].append(ally["name"])
        events.append(_event("support", f"{crew['name']} supports {ally['name']} (p.68)."))
    elif name == TAKE_COVER:
        if _test(st, tables, dice, crew, TAKE_COVER, action, events):
            crew["taking_cover"] = True
            events.append(_event("cover", f"{crew['name']} is Taking Cover: shots by and at them hit only on natural 6s (p.70)."))
    elif name == KEEP_DISTANCE and _test(st, tables, dice, crew, KEEP_DISTANCE, action, events):
        crew["keep_distance"] = True
        events.append(_event("distance", f"{crew['name']} keeps their distance this round (p.68)."))


def _optimal_weapon(crew: Mapping[str, Any], action: Mapping[str, Any]) -> dict[str, Any] | None:
    if action.get("weapon"):
        return _gun_named(crew, action.get("weapon"))
    over = KEEP_DISTANCE_IN if crew["keep_distance"] else None
    return _best_gun(crew, over=over)


def _action_problem(
    st: State, crew: Mapping[str, Any], name: str, action: Mapping[str, Any], tables: Tables
) -> tuple[str, str] | None:
    """(field, message) when ``name`` is not allowed for ``crew`` now, else None."""
    if name == SCOUT:
        not_in = int(_entry_data(tables, ACTIONS_TABLE, SCOUT).get("not_in_round", 1))
        if st["round"] <= not_in:
            return ("action", f"Scout for Locations is not possible in round {not_in} (p.67).")
        loc_name = action.get("location")
        suspected = [loc["name"] for loc in st["locations"] if not loc["known"]]
        if loc_name not in suspected:
            return ("location", f"location must be a suspected Location: {', '.join(suspected) or 'none left'}.")
    elif name == MOVE_UP:
        target = action.get("location")
        if target in (None, "", "battle space"):
            if crew["location"] is None:
                return ("location", f"{crew['name']} is not at a Location; name a known Location to move to.")
        else:
            free = [loc["name"] for loc in _free_known(st, crew)]
            if target not in free:
                return ("location", f"location must be a known Location with nobody there: {', '.join(free) or 'none'}.")
    elif name == TASK:
        if _task_location_ok(st, crew) is None:
            return ("action", f"{crew['name']} is not at a Location where the mission has a task to carry out (p.68).")
    elif name == CHARGE:
        if crew["stun"]:
            return ("action", "a Stunned character cannot start a Brawl (p.70).")
        if st["flags"]["separated"]:
            return ("action", "no Brawling this round (Separated, p.71).")
    elif name == OPTIMAL_SHOT:
        try:
            weapon = _optimal_weapon(crew, action)
        except NoMinisError as exc:
            return ("weapon", exc.message)
        if weapon is None:
            return ("action", f"{crew['name']} has no ranged weapon that can fire (p.68).")
        if crew["keep_distance"] and weapon["range"] <= KEEP_DISTANCE_IN:
            return ("weapon", 'Keep Distance allows only weapons over 12" (p.68).')
    elif name == SUPPORT:
        ally = action.get("ally")
        others = [c["name"] for c in _active_crew(st) if c["name"] != crew["name"]]
        if ally not in others:
            return ("ally", f"ally must name another crew figure on the field: {', '.join(others) or 'none'}.")
    return None


# -- pending decisions in the Initiative phase --------------------------------------------------------


def _charge_decide(
    st: State, pending: Mapping[str, Any], action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]
) -> None:
    crew = _crew(st, pending["crew"])
    enemy = _enemy(st, pending["enemy"])
    if not action.get("engage"):
        events.append(_event("charge", f"{crew['name']} decides not to engage: nothing happens (p.67)."))
        return
    data = _entry_data(tables, ACTIONS_TABLE, CHARGE)
    approach = dice.roll(str(data.get("approach_roll", "1D6")), f'Charge approach against Speed {crew["speed"]}" (p.67)')
    _engaged(st, crew)
    rng = int(data.get("fired_on_range_in", 6))
    text = f'{crew["name"]} charges {enemy["name"]}: rolls {approach.total} against Speed {crew["speed"]}".'
    if (approach.total or 0) > crew["speed"]:
        kz = st["flags"]["kill_zone"]
        gun = _best_gun(enemy, reach=kz or rng, over=KEEP_DISTANCE_IN if crew["keep_distance"] else None)
        if gun is not None and (not enemy["fired"] or _opts(st).hectic):
            events.append(_event("charge", text + " Too slow: the enemy fires first.", [approach]))
            six = bool(crew["taking_cover"]) or (enemy["fired"] and _opts(st).hectic)
            enemy["fired"] = True
            _shoot(
                st,
                dice,
                enemy,
                crew,
                gun,
                range_in=kz or rng,
                cover=not st["flags"]["open_ground"],
                moved=False,
                natural_six=six,
                why="shooting at a charging figure (p.67)",
                events=events,
                tables=tables,
            )
        else:
            events.append(_event("charge", text + " Too slow, but the enemy cannot fire.", [approach]))
    else:
        events.append(_event("charge", text + " Fast enough.", [approach]))
    if crew["status"] != "active" or enemy["status"] != "active":
        return
    if crew["stun"]:
        events.append(_event("charge", f"{crew['name']} is Stunned and cannot start the Brawl (p.70)."))
        return
    _brawl(
        st,
        dice,
        crew,
        enemy,
        crew_weapon=_brawl_weapon(crew),
        enemy_weapon=_brawl_weapon(enemy),
        why="Charge (p.67)",
        events=events,
        tables=tables,
        initiator="crew",
    )


def _optimal_decide(
    st: State, pending: Mapping[str, Any], action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]
) -> None:
    crew = _crew(st, pending["crew"])
    enemy = _enemy(st, pending["enemy"])
    weapon = _gun_named(crew, pending["weapon"])
    chosen = action.get("range")
    if chosen is None:
        events.append(_event("optimal_shot", f"{crew['name']} holds fire."))
        return
    try:
        rng = int(chosen)
    except (TypeError, ValueError):
        raise NoMinisError(f"range must be inches from 1 to {weapon['range']}; got {chosen!r}.", field="range") from None
    if not 1 <= rng <= weapon["range"]:
        raise NoMinisError(f"range must be inches from 1 to {weapon['range']}; got {rng}.", field="range")
    kz = st["flags"]["kill_zone"]
    if kz:
        rng = kz
    keep = KEEP_DISTANCE_IN if crew["keep_distance"] else None
    opts = _opts(st)
    crew_ok = weapon["range"] >= rng and (keep is None or weapon["range"] > keep) and (not crew["fired"] or opts.hectic)
    enemy_gun = _best_gun(enemy, reach=rng, over=keep)
    enemy_ok = enemy_gun is not None and (not enemy["fired"] or opts.hectic)
    _engaged(st, crew)
    if crew_ok:
        six = bool(crew["taking_cover"]) or bool(crew["fired"])
        crew["fired"] = True
        _shoot(
            st,
            dice,
            crew,
            enemy,
            weapon,
            range_in=rng,
            cover=_cover_for(st, crew, True),
            moved=False,
            natural_six=six,
            why="Optimal Shot, crew fires first (p.68)",
            events=events,
            tables=tables,
        )
    if enemy_ok and enemy["status"] == "active" and crew["status"] == "active":
        assert enemy_gun is not None
        six = bool(crew["taking_cover"]) or bool(enemy["fired"])
        enemy["fired"] = True
        _shoot(
            st,
            dice,
            enemy,
            crew,
            enemy_gun,
            range_in=rng,
            cover=True,
            moved=False,
            natural_six=six,
            why="Optimal Shot, the enemy replies (p.68)",
            events=events,
            tables=tables,
        )
        enemy["optimal_fired"] = True
    elif enemy["status"] == "active":
        events.append(_event("optimal_shot", f'{enemy["name"]} cannot reply at {rng}" and stays available for the Firefight.'))
