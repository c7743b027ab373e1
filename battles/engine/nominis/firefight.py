"""No-minis battles: the Firefight (Compendium pp.69-70)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.nominis.combat import _brawl, _check_end, _cover_for, _engaged, _shoot
from battles.engine.nominis.flow import _targets
from battles.engine.nominis.state import (
    FIREFIGHT_TABLE,
    KEEP_DISTANCE_IN,
    Event,
    NoMinisError,
    Record,
    State,
    Tables,
    _active_crew,
    _active_enemies,
    _enemy,
    _entry_data,
    _event,
    _opts,
    _pick,
)
from battles.engine.nominis.weapons import _best_gun, _brawl_weapon, _melee_only, _melee_weapon
from rules.engine.dice import Dice

# -- the Firefight -----------------------------------------------------------------------------------


def _select_enemies(st: State, dice: Dice, tables: Tables, events: list[Event]) -> None:
    data = _entry_data(tables, FIREFIGHT_TABLE, "Enemies engaging")
    on_field = _active_enemies(st)
    base = int(data.get("enemies_engaging", 3))
    if len(on_field) >= int(data.get("large_force_min_enemies", 7)):
        base = int(data.get("enemies_engaging_large_force", 4))
    count = max(0, base + int(st["flags"]["firefight_delta"]))
    pool = [e for e in on_field if not e.get("optimal_fired")]
    chosen: list[str] = []
    rolls: list[Record] = []
    while pool and len(chosen) < count:
        enemy, recs = _pick(dice, pool, "Firefight: which enemy engages")
        rolls += recs
        pool.remove(enemy)
        chosen.append(enemy["name"])
    st["firefight"] = {"selected": chosen, "resolved": []}
    st["phase"] = "firefight"
    events.append(
        _event("firefight", f"The Firefight: {', '.join(chosen) or 'no enemy'} engage ({count} to select, pp.69-70).", rolls)
    )


def _engage(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    fight = st["firefight"]
    waiting = [n for n in fight["selected"] if n not in fight["resolved"]]
    name = action.get("enemy")
    if name is None and waiting:
        name = waiting[0]
    if name not in waiting:
        raise NoMinisError(f"enemy must be a selected enemy still to resolve: {', '.join(waiting) or 'none'}.", field="enemy")
    fight["resolved"].append(name)
    enemy = _enemy(st, name)
    if enemy["status"] != "active":
        events.append(_event("firefight", f"{name} is no longer on the battlefield."))
        return
    if enemy["no_attack"]:
        events.append(_event("firefight", f"{name} cannot attack this round (Careful maneuvering, p.71)."))
        return
    if st["flags"]["separated"] and _melee_only(enemy):
        events.append(_event("firefight", f"{name} is melee-only and does not attack (Separated, p.71)."))
        return
    targets = _targets(st, enemy)
    if not targets:
        events.append(_event("firefight", f"{name} finds no crew figure it can target."))
        return
    target, recs = _pick(dice, targets, f"{name} picks a crew target")
    events.append(_event("firefight", f"{name} engages {target['name']}.", recs))
    supporters = [c["name"] for c in _active_crew(st) if target["name"] in c["supports"] and c["name"] != target["name"]]
    if supporters:
        st["pending"] = {"kind": "support", "enemy": name, "crew": target["name"], "supporters": supporters}
        return
    _respond_or_resolve(st, dice, target, enemy, events, tables)


def _plan(st: State, crew: Mapping[str, Any], enemy: Mapping[str, Any]) -> dict[str, Any]:
    """How ``enemy`` and ``crew`` engage (pp.69-70): ``kind`` is ``cover_brawl``, ``brawl``,
    ``enemy_charges`` (crew may shoot first at 6"), ``crew_charges``, ``ranged`` or ``none``;
    with the crew's options ``can_fire`` and ``can_brawl``."""
    flags = st["flags"]
    separated = flags["separated"]
    kz = flags["kill_zone"]
    keep = KEEP_DISTANCE_IN if crew["keep_distance"] else None
    crew_melee = _melee_weapon(crew)
    enemy_melee = _melee_weapon(enemy)
    if crew["taking_cover"] and enemy_melee is not None and not separated and not enemy["stun"]:
        return {"kind": "cover_brawl", "can_fire": False, "can_brawl": False}
    # Out-ranged (p.69) compares the figures' longest guns, whatever the round's limits; a figure
    # without one fights only by Brawling (_melee_only).
    enemy_longest, crew_longest = _best_gun(enemy), _best_gun(crew)
    if keep is None and kz is None:
        crew_gun, enemy_gun = crew_longest, enemy_longest
    else:
        crew_gun = _best_gun(crew, over=keep, reach=kz)
        enemy_gun = _best_gun(enemy, over=keep, reach=kz)
    crew_free = not crew["fired"] or _opts(st).hectic
    enemy_only, crew_only = enemy_longest is None, crew_longest is None
    if enemy_only and crew_only:
        return {"kind": "none" if separated else "brawl", "can_fire": False, "can_brawl": False}
    if enemy_only or (
        enemy_melee is not None and not separated and not enemy["stun"] and _outranged(enemy_longest, crew_longest)
    ):
        gun = _best_gun(crew, over=keep, reach=kz or 6, no_heavy=True)
        return {"kind": "enemy_charges", "can_fire": gun is not None and crew_free, "can_brawl": False, "crew_gun": gun}
    if crew_only:
        return {"kind": "crew_charges", "can_fire": False, "can_brawl": False}
    can_brawl = crew_melee is not None and not separated and not crew["stun"] and _outranged(crew_longest, enemy_longest)
    return {
        "kind": "ranged",
        "can_fire": crew_gun is not None and crew_free,
        "can_brawl": can_brawl,
        "crew_gun": crew_gun,
        "enemy_gun": enemy_gun,
    }


def _outranged(mine: Mapping[str, Any] | None, theirs: Mapping[str, Any] | None) -> bool:
    return mine is not None and theirs is not None and theirs["range"] > mine["range"]


def _respond_or_resolve(
    st: State, dice: Dice, crew: dict[str, Any], enemy: dict[str, Any], events: list[Event], tables: Tables
) -> None:
    _engaged(st, crew)
    plan = _plan(st, crew, enemy)
    if plan["can_fire"] or plan["can_brawl"]:
        st["pending"] = {
            "kind": "respond",
            "enemy": enemy["name"],
            "crew": crew["name"],
            "engagement": plan["kind"],
            "can_fire": plan["can_fire"],
            "can_brawl": plan["can_brawl"],
        }
        return
    _resolve(st, dice, crew, enemy, fire=False, brawl=False, events=events, tables=tables, plan=plan)


def _resolve(
    st: State,
    dice: Dice,
    crew: dict[str, Any],
    enemy: dict[str, Any],
    *,
    fire: bool,
    brawl: bool,
    events: list[Event],
    tables: Tables,
    plan: Mapping[str, Any] | None = None,
) -> None:
    """Resolve one Firefight engagement (pp.69-70); ``plan``: :func:`_plan` of these two figures
    made in this same step (else it is made here: an answer to a question comes in a later step)."""
    if plan is None:
        plan = _plan(st, crew, enemy)
    flags = st["flags"]
    opts = _opts(st)
    kz = flags["kill_zone"]
    keep = KEEP_DISTANCE_IN if crew["keep_distance"] else None
    open_exchange = opts.faster and flags["exchanges"] == 0
    fired_any = False
    _engaged(st, crew)

    def shot(shooter: dict[str, Any], target: dict[str, Any], gun: Mapping[str, Any], rng: int, cover: bool, why: str) -> None:
        nonlocal fired_any
        six = bool(crew["taking_cover"]) or bool(shooter["fired"])
        shooter["fired"] = True
        fired_any = True
        if open_exchange:
            cover = False
            why += "; Faster Combat: first exchange in the open (p.70)"
        if shooter is crew:
            cover = _cover_for(st, crew, cover)
        _shoot(
            st,
            dice,
            shooter,
            target,
            gun,
            range_in=rng,
            cover=cover,
            moved=False,
            natural_six=six,
            why=why,
            events=events,
            tables=tables,
        )

    def enemy_can_fire() -> bool:
        return not enemy["fired"] or opts.hectic

    def charge(
        charger: dict[str, Any],
        defender: dict[str, Any],
        gun: Mapping[str, Any] | None,
        can_fire: bool,
        fire_why: str,
        brawl_why: str,
    ) -> None:
        """``charger`` closes to Brawl: ``defender`` may fire first with ``gun`` (p.69); then the
        Brawl, unless Separated (p.71) or the charger is Stunned (p.70). A defender who fired
        brawls with that weapon."""
        fired_with = None
        if gun is not None and can_fire:
            fired_with = gun
            shot(defender, charger, gun, kz or 6, not flags["open_ground"], fire_why)
        if enemy["status"] != "active" or crew["status"] != "active":
            return
        if flags["separated"]:
            events.append(_event("firefight", "No Brawl follows (Separated, p.71)."))
        elif charger["stun"]:
            events.append(_event("firefight", f"{charger['name']} is Stunned and cannot start the Brawl (p.70)."))
        else:
            held = _defensive_brawl_weapon(fired_with) if fired_with else _brawl_weapon(defender)
            _brawl(
                st,
                dice,
                crew,
                enemy,
                crew_weapon=held if defender is crew else _brawl_weapon(crew),
                enemy_weapon=held if defender is enemy else _brawl_weapon(enemy),
                why=brawl_why,
                events=events,
                tables=tables,
                initiator="enemy" if charger is enemy else "crew",
            )

    kind = plan["kind"]
    if kind == "ranged" and brawl and plan["can_brawl"]:
        kind = "crew_charges"
    if kind == "none":
        events.append(_event("firefight", "Neither can fight: no Brawling this round (Separated)."))
    elif kind in ("cover_brawl", "brawl"):
        why = (
            "an enemy with a Brawling weapon reaches a figure Taking Cover (p.70)"
            if kind == "cover_brawl"
            else "both fight only by Brawling"
        )
        if enemy["stun"]:
            events.append(_event("firefight", f"{enemy['name']} is Stunned and cannot start a Brawl (p.70)."))
        else:
            _brawl(
                st,
                dice,
                crew,
                enemy,
                crew_weapon=_brawl_weapon(crew),
                enemy_weapon=_brawl_weapon(enemy),
                why=why,
                events=events,
                tables=tables,
                initiator="enemy",
            )
    elif kind == "enemy_charges":
        charge(
            enemy,
            crew,
            plan.get("crew_gun"),
            fire and plan["can_fire"],
            "defensive fire at a figure coming to Brawl (p.69)",
            "the enemy closes to Brawl (p.69)",
        )
    elif kind == "crew_charges":
        charge(
            crew,
            enemy,
            _best_gun(enemy, over=keep, reach=kz or 6, no_heavy=True),
            enemy_can_fire(),
            "firing at a crew figure coming to Brawl (p.69)",
            "the crew figure closes to Brawl (p.69)",
        )
    else:  # ranged
        crew_gun = plan.get("crew_gun")
        enemy_gun = plan.get("enemy_gun")
        crew_first = enemy_gun is None or (crew_gun is not None and crew_gun["range"] >= enemy_gun["range"])
        order = [("crew", crew_gun), ("enemy", enemy_gun)] if crew_first else [("enemy", enemy_gun), ("crew", crew_gun)]
        for side, gun in order:
            if crew["status"] != "active" or enemy["status"] != "active" or gun is None:
                continue
            if side == "crew":
                if fire and plan["can_fire"]:
                    shot(crew, enemy, gun, kz or gun["range"], True, "both in Cover at maximum range (p.69)")
                elif crew["fired"] and not opts.hectic:
                    events.append(
                        _event("firefight", f"{crew['name']} has already fired this round and cannot fire again (p.70).")
                    )
                else:
                    events.append(_event("firefight", f"{crew['name']} does not fire."))
            elif enemy_can_fire():
                shot(enemy, crew, gun, kz or gun["range"], True, "both in Cover at maximum range (p.69)")
        if crew_gun is None and enemy_gun is None:
            events.append(_event("firefight", "Neither weapon can fire here."))
    if fired_any:
        flags["exchanges"] += 1


def _defensive_brawl_weapon(fired: Mapping[str, Any]) -> dict[str, Any] | None:
    """p.69: after firing in defence the figure Brawls with that weapon: a Pistol keeps its bonus,
    any other gun counts as no weapon (no Melee bonus)."""
    return dict(fired) if "pistol" in fired["traits"] else None


def _after_engagement(st: State, events: list[Event]) -> None:
    _check_end(st, events)
    if st["finished"]:
        return
    if st["phase"] != "firefight" or st["pending"] is not None:
        return
    resolved = st["firefight"]["resolved"]
    for name in st["firefight"]["selected"]:
        if name not in resolved:
            return
    st["phase"] = "end"
