"""No-minis battles: figures leaving the battle, shooting and Brawling through
:mod:`battles.engine.fp_combat` (pp.69-70), and the round's start and end checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from battles.engine import fp_combat
from battles.engine.nominis import elite
from battles.engine.nominis.setup import _fresh_flags, _location
from battles.engine.nominis.state import (
    _HIT_TRAITS,
    NATURAL_SIX,
    Event,
    State,
    Tables,
    _active_enemies,
    _any_active,
    _crew,
    _event,
    _location_of,
    _numbers,
    _opts,
    _pick,
)
from battles.engine.nominis.weapons import _best_gun, _fighter, _w
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
    if "rank" in figure:  # an enemy figure
        figure["status"] = "casualty"
        figure["stun"] = 0
        st["enemy_casualties_round"] += 1
        st["enemies_killed"] += 1
        if "enemy_rules" in st:
            st["flags"].setdefault("slain", []).append(figure["name"])
        if st["mission"] == "eliminate" and figure["target"]:
            st["objective"]["achieved"] = True
            st["objective"]["detail"] = f"{figure['name']} was taken out."
        events.append(_event("casualty", f"{figure['name']} is a casualty."))
    else:
        _remove_crew(st, figure, "casualty", events)
        events.append(_event("casualty", f"{figure['name']} is a casualty."))


def _fall(
    st: State, dice: Dice, tables: Tables, figure: dict[str, Any], outcomes: Sequence[fp_combat.HitOutcome], events: list[Event]
) -> None:
    """``figure`` was taken out by ``outcomes``: a casualty, or with the casualty tables option a
    roll on its table (p.99) for the hits that beat Toughness (a Stun knock-out skips it)."""
    if _opts(st).casualty_tables:
        tabled = [o for o in outcomes if o.result == "casualty" and o.beat_toughness and o.target == figure["name"]]
        if tabled:
            _casualty_table(st, dice, tables, figure, tabled, events)
            return
    _casualty(st, figure, events)


def _casualty_table(
    st: State, dice: Dice, tables: Tables, figure: dict[str, Any], tabled: Sequence[fp_combat.HitOutcome], events: list[Event]
) -> None:
    """Casualty tables (pp.99-100): humanoid, cybernetic (crew Bots and Soulless; enemies by kind)
    or beasts; the Boss column for the crew captain and enemy Lieutenants, Captains and Unique
    Individuals; one roll per hit that beat Toughness (+1 per natural-6 Hit with Critical Hit),
    the highest applies. Wounded: half Speed, Combat Skill -1 (not below -1), a second one is a
    Goner; Dazed / Temporary shutdown, Damaged and Bleeding are resolved at the end of the round
    (:func:`battles.engine.nominis.end_round._conditions`)."""
    crew_side = "rank" not in figure
    if crew_side:
        kind = "cybernetic" if figure["bot"] or figure.get("soulless") else "humanoid"
        boss = bool(figure.get("captain"))
    else:
        kind = str(st.get("enemy_kind") or "humanoid")
        boss = figure["rank"] == "lieutenant"
    critical = sum(1 for o in tabled if o.natural_six) if _opts(st).critical_hits else 0
    rolled = fp_combat.casualty(
        dice,
        tables,
        kind=kind,
        hits=len(tabled),
        critical=critical,
        boss=boss,
        modifier=int(figure.get("casualty_modifier", 0)),
    )
    entry = rolled.entry
    name = entry.result.lower()
    text = f"{figure['name']}: the casualty table gives {entry.result} (p.99)."
    goner = rolled.removed
    if not goner and name.startswith("wounded"):
        if figure.get("wounded"):
            goner = True
            text += " Wounded again: a Goner."
        else:
            figure["wounded"] = True
            figure["speed"] = figure["speed"] // 2
            figure["combat_skill"] = figure["combat_skill"] - 1 if figure["combat_skill"] > -1 else figure["combat_skill"]
            text += f' Half Speed ({figure["speed"]}") and Combat Skill {figure["combat_skill"]:+d}.'
    elif not goner and name.startswith(("dazed", "temporary")):
        figure["dazed"] = True
        text += " If Stunned, it keeps its Stun markers at the end of this round."
    elif not goner and name.startswith(("damaged", "bleeding")):
        flag = "damaged" if name.startswith("damaged") else "bleeding"
        if not figure.get(flag):
            figure[flag] = True
            figure["casualty_modifier"] = int(figure.get("casualty_modifier", 0)) + int(
                entry.data.get("casualty_roll_modifier") or 0
            )
        text += " It rolls at the end of each round."
    events.append(_event("casualty_table", text, rolled.rolls, lines=list(rolled.lines)))
    if goner:
        _casualty(st, figure, events)


# -- shooting and brawling ------------------------------------------------------------------------


def _psi_hunter(st: State, figure: Mapping[str, Any]) -> bool:
    """An enemy figure of a Psi-hunter Rival (``st["psi_hunters"]``, p.21): +1 to hit a Psionic."""
    return bool(st.get("psi_hunters")) and "rank" in figure


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
    """One shooting attack through the combat resolver. ``natural_six`` asks for a natural 6 to hit.
    Elite type rules and enemy Psionic powers may change it (:func:`elite.shot_changes`)."""
    used = weapon
    bonus = 0
    save = target["save"]
    notes: list[str] = []
    if "enemy_rules" in st or target.get("psionic_powers"):
        bonus, changed, cover, natural_six, save, notes = elite.shot_changes(
            st, tables, shooter, target, weapon, range_in=range_in, cover=cover, moved=moved, natural_six=natural_six
        )
        if changed is not None:
            used = changed
        if "rank" in shooter:
            st["flags"].setdefault("fired_upon", {}).setdefault(target["name"], []).append(shooter["name"])
    fighter = _fighter(target, save=save)
    if "barrier_until" in target:
        fighter = _warded(st, target, fighter)
    result = fp_combat.resolve_shot(
        dice,
        shooter=_fighter(shooter, natural_six=natural_six, bonus=bonus, psi_hunter=_psi_hunter(st, shooter)),
        target=fighter,
        weapon=_w(used, strip=_HIT_TRAITS if natural_six else _NO_TRAITS),
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
    if notes:
        why += "; " + "; ".join(notes)
    text = (
        f'{shooter["name"]} fires {weapon["name"]} at {target["name"]} ({range_in}", {where}{six}): {why}. {result.hits} hit(s).'
    )
    events.append({"kind": "shot", "text": text, "rolls": [r.as_dict() for r in result.rolls], "lines": list(result.lines)})
    if apply_result:
        _apply_shot(st, dice, tables, shooter, target, result, events)
    return result


_NO_TRAITS: frozenset[str] = frozenset()

#: A crew Psionic's Barrier on a figure (p.18): each ranged hit is negated on a D6 4+.
BARRIER_WARD = fp_combat.Ward(name="Barrier", target=4)


def _warded(st: State, target: Mapping[str, Any], fighter: fp_combat.Fighter) -> fp_combat.Fighter:
    """``fighter`` with the Barrier ward while ``target``'s Barrier lasts (``barrier_until``, the
    round it ends with, p.18); unchanged otherwise."""
    until = target.get("barrier_until")
    if until is None or until < st["round"]:
        return fighter
    return replace(fighter, ward=BARRIER_WARD)


def _apply_shot(
    st: State,
    dice: Dice,
    tables: Tables,
    shooter: dict[str, Any],
    target: dict[str, Any],
    result: fp_combat.ShotResult,
    events: list[Event],
) -> None:
    if target["status"] not in ("active", "attached"):
        return
    removed = result.removed
    if "enemy_rules" in st and elite.stun_immune(st, target, shooting=True):
        removed = any(o.result == "casualty" and o.beat_toughness for o in result.outcomes)
    else:
        target["stun"] = int(result.target.stun_markers)
    if removed:
        _fall(st, dice, tables, target, result.outcomes, events)
        if target["status"] == "casualty" and "rank" in target:
            _unbeliever(st, dice, tables, shooter, target, events)


def _unbeliever(
    st: State, dice: Dice, tables: Tables, attacker: dict[str, Any], slain: dict[str, Any], events: list[Event]
) -> None:
    """Destroy the unbeliever (Cultists, p.51): a random other Cultist with a gun fires at the crew
    figure that slew one, hitting only on ``revenge_hit_on`` (a natural 6)."""
    if not elite.type_is(st, "Cultists") or "rank" in attacker or attacker["status"] != "active":
        return
    shooters = [e for e in _active_enemies(st) if e is not slain and _best_gun(e) is not None]
    if not shooters:
        return
    avenger, recs = _pick(dice, shooters, "Destroy the unbeliever: which Cultist fires")
    gun = _best_gun(avenger)
    assert gun is not None
    events.append(_event("elite", f"Destroy the unbeliever: {avenger['name']} fires at {attacker['name']} (p.51).", recs))
    _shoot(
        st,
        dice,
        avenger,
        attacker,
        gun,
        range_in=gun["range"],
        cover=True,
        moved=False,
        natural_six=True,
        why="Destroy the unbeliever, hitting only on a 6 (p.51)",
        events=events,
        tables=tables,
    )


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
    initiator: str = "",
) -> None:
    """A Brawl through the combat resolver. ``initiator``: who starts it, ``"crew"``, ``"enemy"``
    or ``""`` (elite rules that count it, :func:`elite.brawl_changes`)."""
    bonus = 0
    notes: list[str] = []
    if "enemy_rules" in st:
        bonus, enemy_weapon, notes = elite.brawl_changes(st, tables, crew, enemy, enemy_weapon, initiator=initiator)
    result = fp_combat.resolve_brawl(
        dice,
        a=_fighter(crew),
        b=_fighter(enemy, bonus=bonus, psi_hunter=_psi_hunter(st, enemy)),
        a_weapon=_w(crew_weapon) if crew_weapon else None,
        b_weapon=_w(enemy_weapon) if enemy_weapon else None,
        tables=tables,
    )
    winner = result.winner or "nobody (a draw)"
    cw = crew_weapon["name"] if crew_weapon else "bare hands"
    ew = enemy_weapon["name"] if enemy_weapon else "bare hands"
    if notes:
        why += "; " + "; ".join(notes)
    text = f"Brawl: {crew['name']} ({cw}) against {enemy['name']} ({ew}): {why}. Winner: {winner}."
    events.append(_event("brawl", text, result.rolls, lines=list(result.lines)))
    crew["brawled"] = True
    crew["taking_cover"] = False  # p.68: Brawling ends Taking Cover
    _engaged(st, crew)
    dead_crew, dead_enemy = result.a_removed, result.b_removed
    crew["stun"] = int(result.a.stun_markers)
    if "enemy_rules" in st and elite.stun_immune(st, enemy, shooting=False):
        dead_enemy = any(o.result == "casualty" and o.beat_toughness and o.target == enemy["name"] for o in result.outcomes)
    else:
        enemy["stun"] = int(result.b.stun_markers)
    if dead_crew:
        _fall(st, dice, tables, crew, result.outcomes, events)
    if dead_enemy:
        _fall(st, dice, tables, enemy, result.outcomes, events)
        if enemy["status"] == "casualty" and crew["status"] == "active":
            _unbeliever(st, dice, tables, crew, enemy, events)


def _engaged(st: State, crew: dict[str, Any]) -> None:
    """p.68: a Supporting character loses all its Supports when engaged for any reason."""
    crew["supports"] = []


def _cover_for(st: State, shooter: Mapping[str, Any], base_cover: bool) -> bool:
    """A crew shooter at a Firing Position treats ranged targets as in the open (p.71)."""
    if "rank" not in shooter and shooter.get("location"):  # a crew figure (enemies have a rank)
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
        figure["keep_distance"] = False
        figure["die"] = None
        figure["eligible"] = figure["acted"] = figure["fired"] = figure["brawled"] = False
        figure["heat_last"], figure["heat"] = figure["heat"], False
    for figure in st["enemies"]:
        figure["fired"] = figure["no_attack"] = figure["optimal_fired"] = False
        figure["heat_last"], figure["heat"] = figure["heat"], False
    st["phase"] = "flow" if _opts(st).battle_flow else "initiative"


def _check_end(st: State, events: list[Event]) -> None:
    """End the battle when one side has no figure left on the field (checked after every step,
    so the usual answer, both sides still fighting, comes from the first figures looked at)."""
    if st["finished"]:
        return
    if not _any_active(st["enemies"]):
        crew_left = _any_active(st["crew"])
        _end(st, "no enemies left" if crew_left else "both sides gone", crew_left, events)
    elif not _any_active(st["crew"]):
        _end(st, "no crew left on the battlefield", False, events)


def _end(st: State, reason: str, crew_left: bool, events: list[Event]) -> None:
    st["finished"] = True
    st["phase"] = "over"
    st["pending"] = None
    st["end_reason"] = reason
    if st["mission"] in ("defend", "fight_off") and crew_left:
        st["objective"]["achieved"] = True
        st["objective"]["detail"] = "The crew Hold the Field."
    events.append(_event("end", f"The battle is over: {reason}."))


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
