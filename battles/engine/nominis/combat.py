"""No-minis battles: figures leaving the battle, shooting and Brawling through
:mod:`battles.engine.fp_combat` (pp.69-70), and the round's start and end checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine import fp_combat
from battles.engine.nominis.setup import _fresh_flags, _location
from battles.engine.nominis.state import (
    _HIT_TRAITS,
    NATURAL_SIX,
    Event,
    State,
    Tables,
    _active_crew,
    _active_enemies,
    _crew,
    _event,
    _location_of,
    _numbers,
    _opts,
)
from battles.engine.nominis.weapons import _fighter, _w
from rules.engine.dice import Dice

# -- figures leaving -------------------------------------------------------------------------------


def _free_location(st: State, figure: Mapping[str, Any]) -> None:
    for loc in st["locations"]:
        if loc["occupant"] == figure["name"]:
            loc["occupant"] = None


def _remove_crew(st: State, figure: dict[str, Any], status: str, events: list[Event]) -> None:
    figure["status"] = status
    figure["stun"] = 0
    _free_location(st, figure)
    figure["location"] = None
    for other in st["crew"]:
        if figure["name"] in other["supports"]:
            other["supports"].remove(figure["name"])
    figure["supports"] = []
    objective = st["objective"]
    mission = st["mission"]
    if mission in ("acquire", "deliver") and objective.get("carrier") == figure["name"] and not objective["achieved"]:
        if status == "casualty" or mission == "deliver":
            objective["carrier"] = None
            st["locations"].append(_location("Dropped item", "dropped", known=True))
            events.append(_event("objective", f"{figure['name']} drops the item: it becomes a known Location (pp.72-73)."))
        elif status == "retreated" and mission == "acquire":
            objective["achieved"] = True
            objective["detail"] = f"{figure['name']} got the item off the battlefield."
            events.append(_event("objective", f"{figure['name']} leaves with the item: Acquire achieved (p.72)."))
    if mission == "protect":
        vip = _crew(st, objective["vip"], "vip")
        if figure["name"] == objective["escort"] and vip["status"] == "attached":
            if status == "casualty":
                vip["status"] = "active"
                events.append(_event("objective", f"{figure['name']} falls: the VIP {vip['name']} now acts alone (p.73)."))
            else:
                vip["status"] = status
                events.append(_event("objective", f"The VIP {vip['name']} leaves the battle with {figure['name']}."))
        if figure["name"] == vip["name"] and status == "casualty" and not objective["achieved"]:
            objective["failed"] = True
            objective["detail"] = "The VIP became a casualty."
    if mission == "move_through" and status == "exited":
        objective["exited"].append(figure["name"])
        if len(objective["exited"]) >= objective["needed"]:
            objective["achieved"] = True
            objective["detail"] = f"{', '.join(objective['exited'])} moved through."


def _casualty(st: State, figure: dict[str, Any], events: list[Event]) -> None:
    if figure in st["enemies"]:
        figure["status"] = "casualty"
        figure["stun"] = 0
        st["enemy_casualties_round"] += 1
        st["enemies_killed"] += 1
        if st["mission"] == "eliminate" and figure["target"]:
            st["objective"]["achieved"] = True
            st["objective"]["detail"] = f"{figure['name']} was taken out."
        events.append(_event("casualty", f"{figure['name']} is a casualty."))
    else:
        _remove_crew(st, figure, "casualty", events)
        events.append(_event("casualty", f"{figure['name']} is a casualty."))


# -- shooting and brawling ------------------------------------------------------------------------


def _shoot(
    st: State,
    dice: Dice,
    shooter: dict[str, Any],
    target: dict[str, Any],
    weapon: Mapping[str, Any],
    *,
    range_in: int,
    cover: bool,
    moved: bool,
    natural_six: bool,
    why: str,
    events: list[Event],
    tables: Tables,
    apply_result: bool = True,
) -> fp_combat.ShotResult:
    """One shooting attack through the combat resolver. ``natural_six`` asks for a natural 6 to hit."""
    result = fp_combat.resolve_shot(
        dice,
        shooter=_fighter(shooter, natural_six=natural_six),
        target=_fighter(target),
        weapon=_w(weapon, strip=_HIT_TRAITS if natural_six else frozenset()),
        numbers=NATURAL_SIX if natural_six else _numbers(st),
        range_in=range_in,
        cover=cover,
        moved=False if natural_six else moved,
        fired_last_round=bool(shooter["heat_last"]),
        dramatic=False,
        tables=tables,
    )
    shooter["heat"] = True
    if result.single_use and weapon in shooter["weapons"]:
        shooter["weapons"].remove(weapon)
    where = "in Cover" if cover else "in the open"
    six = ", natural 6s only" if natural_six else ""
    text = (
        f'{shooter["name"]} fires {weapon["name"]} at {target["name"]} ({range_in}", {where}{six}): {why}. {result.hits} hit(s).'
    )
    events.append(_event("shot", text, result.rolls, lines=list(result.lines)))
    if apply_result:
        _apply_shot(st, target, result, events)
    return result


def _apply_shot(st: State, target: dict[str, Any], result: fp_combat.ShotResult, events: list[Event]) -> None:
    if target["status"] not in ("active", "attached"):
        return
    target["stun"] = int(result.target.stun_markers)
    if result.removed:
        _casualty(st, target, events)


def _brawl(
    st: State,
    dice: Dice,
    crew: dict[str, Any],
    enemy: dict[str, Any],
    *,
    crew_weapon: Mapping[str, Any] | None,
    enemy_weapon: Mapping[str, Any] | None,
    why: str,
    events: list[Event],
    tables: Tables,
) -> None:
    result = fp_combat.resolve_brawl(
        dice,
        a=_fighter(crew),
        b=_fighter(enemy),
        a_weapon=_w(crew_weapon) if crew_weapon else None,
        b_weapon=_w(enemy_weapon) if enemy_weapon else None,
        tables=tables,
    )
    winner = result.winner or "nobody (a draw)"
    cw = crew_weapon["name"] if crew_weapon else "bare hands"
    ew = enemy_weapon["name"] if enemy_weapon else "bare hands"
    text = f"Brawl: {crew['name']} ({cw}) against {enemy['name']} ({ew}): {why}. Winner: {winner}."
    events.append(_event("brawl", text, result.rolls, lines=list(result.lines)))
    crew["brawled"] = True
    crew["taking_cover"] = False  # p.68: Brawling ends Taking Cover
    _engaged(st, crew)
    dead_crew, dead_enemy = result.a_removed, result.b_removed
    crew["stun"] = int(result.a.stun_markers)
    enemy["stun"] = int(result.b.stun_markers)
    if dead_crew:
        _casualty(st, crew, events)
    if dead_enemy:
        _casualty(st, enemy, events)


def _engaged(st: State, crew: dict[str, Any]) -> None:
    """p.68: a Supporting character loses all its Supports when engaged for any reason."""
    crew["supports"] = []


def _cover_for(st: State, shooter: Mapping[str, Any], base_cover: bool) -> bool:
    """A crew shooter at a Firing Position treats ranged targets as in the open (p.71)."""
    if shooter in st["crew"] and shooter.get("location"):
        loc = _location_of(st, shooter["location"])
        if loc["kind"] == "firing_position":
            return False
    return base_cover


# -- round flow -------------------------------------------------------------------------------------


def _start_round(st: State) -> None:
    st["flags"] = _fresh_flags()
    st["initiative_dice"] = []
    st["firefight"] = {"selected": [], "resolved": []}
    st["enemy_casualties_round"] = 0
    st["flow_event"] = None
    for figure in st["crew"]:
        figure.update({"keep_distance": False, "die": None, "eligible": False, "acted": False, "fired": False, "brawled": False})
        figure["heat_last"], figure["heat"] = figure["heat"], False
    for figure in st["enemies"]:
        figure.update({"fired": False, "no_attack": False, "optimal_fired": False})
        figure["heat_last"], figure["heat"] = figure["heat"], False
    st["phase"] = "flow" if _opts(st).battle_flow else "initiative"


def _check_end(st: State, events: list[Event]) -> None:
    if st["finished"]:
        return
    crew_left = _active_crew(st)
    if not _active_enemies(st):
        st["finished"] = True
        st["phase"] = "over"
        st["pending"] = None
        st["end_reason"] = "no enemies left" if crew_left else "both sides gone"
    elif not crew_left:
        st["finished"] = True
        st["phase"] = "over"
        st["pending"] = None
        st["end_reason"] = "no crew left on the battlefield"
    if st["finished"]:
        if st["mission"] in ("defend", "fight_off") and crew_left:
            st["objective"]["achieved"] = True
            st["objective"]["detail"] = "The crew Hold the Field."
        events.append(_event("end", f"The battle is over: {st['end_reason']}."))


def _arrive(st: State, crew: dict[str, Any], loc: dict[str, Any], events: list[Event]) -> None:
    """Move ``crew`` to ``loc`` (known, free) and apply what reaching it does (pp.72-73)."""
    _free_location(st, crew)
    loc["occupant"] = crew["name"]
    crew["location"] = loc["name"]
    objective = st["objective"]
    mission = st["mission"]
    text = f"{crew['name']} reaches {loc['name']}."
    if loc["kind"] in ("item", "dropped") and mission in ("acquire", "deliver") and objective.get("carrier") is None:
        objective["carrier"] = crew["name"]
        if loc["kind"] == "dropped":
            st["locations"].remove(loc)
            crew["location"] = None
        else:
            loc["checked"] = True
        text += f" {crew['name']} picks up the item (pp.72-73)."
    elif loc["kind"] == "patrol" and not loc["checked"]:
        loc["checked"] = True
        text += " The patrol objective is checked (p.73)."
        if all(lc["checked"] for lc in st["locations"] if lc["kind"] == "patrol"):
            objective["achieved"] = True
            objective["detail"] = "Every patrol objective was checked."
    elif loc["kind"] == "objective" and mission == "protect" and not objective["failed"]:
        vip = _crew(st, objective["vip"], "vip")
        if (crew["name"] == objective["escort"] and vip["status"] == "attached") or crew["name"] == vip["name"]:
            objective["achieved"] = True
            objective["detail"] = "The VIP reached the objective."
            text += " The VIP reaches the objective (ruling)."
    elif loc["kind"] == "sight" and not loc["checked"]:
        loc["checked"] = True
        text += " Resolve the Notable Sight as the core rules say."
    events.append(_event("move", text))
