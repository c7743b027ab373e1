"""Combat on the mission tracker (Bug Hunt pp.177-181, 194-197, 201) through
:mod:`bughunt.engine.combat`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bughunt.engine import combat
from bughunt.engine.tracker.base import _choice, _enemy, _figure, _mine, _not_viewer, _rolls
from bughunt.engine.tracker.enemies import _add_enemy
from bughunt.engine.tracker.troopers import _leave, _weapon_of
from live.engine.tracker import (
    Action,
    Event,
    Role,
    TrackerError,
    payload_flag,
    payload_int,
    payload_ints,
    require_owner,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- combat (pp.177-181, 194-197, 201) through bughunt.engine.combat ----------------------------------------


def _combat_error(exc: combat.CombatError) -> TrackerError:
    message = str(exc)
    field = next((f for f in ("faces", "band", "grenade", "weapon", "damage") if f in message), None)
    return TrackerError(message, field=field)


def _trooper(fig: Mapping[str, Any]) -> combat.Combatant:
    return combat.Combatant(
        name=fig["name"],
        combat_skill=int(fig["combat_skill"]),
        toughness=int(fig["toughness"]),
        savvy=int(fig["savvy"]),
        save=fig["save"],
        stun_markers=int(fig["stun"]),
        wounded=bool(fig["wounded"]),
        weapons=tuple(w["name"] for w in fig["weapons"]),
        special=frozenset(fig["special"]),
    )


def _foe(
    state: Mapping[str, Any], tables: Mapping[str, RangeTable], group: Mapping[str, Any], fig: Mapping[str, Any]
) -> combat.Combatant:
    base = combat.enemy_combatant(
        tables,
        group["type"],
        variant=state["variant"]["name"] if state["variant"] else None,
        leader=fig["leader"]["name"] if fig["leader"] else None,
        name=fig["name"],
    )
    return replace(base, stun_markers=int(fig["stun"]), wounded=bool(fig["wounded"]))


def _apply_to_trooper(
    state: dict[str, Any], fig: dict[str, Any], hit: combat.HitResult, *, by: str | None = None, dice: Dice | None = None
) -> list[str]:
    """Copy a Hit's result onto a trooper; a removed figure leaves the table (package dropped).
    Shambling reanimations replace a defeated grunt with a new Reanimation (p.194)."""
    fig["stun"] = hit.target.stun_markers
    fig["wounded"] = hit.target.wounded
    notes: list[str] = []
    if hit.removed:
        tail = _leave(state, fig, hit.outcome)
        if by:
            fig["defeated_by"] = by
        if tail:
            notes.append(tail.strip())
        if by == "Shambling reanimations" and not fig["main"] and state["groups"]:
            new = _add_enemy(state, state["groups"][-1], note=f"rose where {fig['name']} fell")
            notes.append(f"{new['name']} rises in {fig['name']}'s place.")
        if by == "Razor lizards":
            notes.append("Razor lizards: their injury recovery takes 1 campaign turn longer.")
    return notes


def _apply_to_enemy(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    group: dict[str, Any],
    fig: dict[str, Any],
    after: combat.Combatant,
    removed: bool,
    dice: Dice,
) -> tuple[list[str], list[RollRecord]]:
    """Copy a fight's result onto an enemy figure; on death, Acid blobs split (p.195) and
    Shatter-forms burst (the referee resolves the Damage 0 hits on figures within 2")."""
    fig["stun"] = after.stun_markers
    fig["wounded"] = after.wounded
    notes: list[str] = []
    rolls: list[RollRecord] = []
    if not removed:
        return notes, rolls
    fig["status"] = "killed"
    if group["type"] == "Acid blobs":
        split = combat.acid_blob_death(dice, tables=tables)
        rolls.extend(split.rolls)
        for _ in range(split.new_blobs):
            _add_enemy(state, group, note=f"split from {fig['name']}")
        notes.append(split.text)
    if group["type"] == "Shatter-forms":
        notes.append(f"{fig['name']} shatters: every figure within 2 inches takes a Damage 0 hit (use Hit for each).")
    return notes, rolls


def _shoot(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A trooper fires one weapon (pp.177-179) at an enemy figure (``enemy``; optional for Area and
    Stun weapons aimed at a point): ``band`` close (3+), open (5+) or cover (6+); ``moved``,
    ``behind_cover`` (Vent-crawlers), ``rapid_fire`` (default on), ``near`` (other figures within
    2" of an Area/Stun point), ``grenade`` (Launcher), ``faces``. The weapon's natural 1s this
    round are counted toward a Malfunction; Area ammunition can run out. Movie magic weapons
    and "You want some too?" (three shots) never malfunction."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    weapon = _weapon_of(fig, action)
    if weapon["malfunctioned"]:
        raise TrackerError(f"{fig['name']}'s {weapon['name']} has malfunctioned: clear it first (1D6+Savvy 7+).", field="weapon")
    if weapon["out_of_ammo"]:
        raise TrackerError(f"{fig['name']}'s {weapon['name']} is out of ammunition for this battle.", field="weapon")
    group = target = None
    if action.payload.get("enemy"):
        group, target = _enemy(state, action.payload.get("enemy"))
    three = fig.get("three_shots_round") == state["round"]
    band = _choice(action, "band", ("close", "open", "cover"), default="open")
    try:
        shot = combat.resolve_shot(
            tables,
            _trooper(fig),
            weapon["name"],
            _foe(state, tables, group, target) if group is not None and target is not None else None,
            dice,
            band=band,
            moved=payload_flag(action, "moved"),
            target_behind_cover=payload_flag(action, "behind_cover"),
            ones_this_round=int(weapon["ones"]),
            take_rapid_fire=payload_flag(action, "rapid_fire", default=True),
            no_malfunction=bool(weapon["no_malfunction"]) or three,
            figures_near_point=payload_int(action, "near", low=0, high=20, default=0),
            grenade=str(action.payload.get("grenade") or "") or None,
            shots=3 if three else None,
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    weapon["ones"] = shot.ones_this_round
    weapon["malfunctioned"] = weapon["malfunctioned"] or shot.malfunctioned
    weapon["out_of_ammo"] = weapon["out_of_ammo"] or shot.out_of_ammo
    if three:
        fig["three_shots_round"] = None
    texts = [shot.text]
    rolls = list(shot.rolls)
    if group is not None and target is not None and shot.target is not None:
        removed = any(h.removed for h in shot.hits)
        notes, extra = _apply_to_enemy(state, tables, group, target, shot.target, removed, dice)
        texts.extend(notes)
        rolls.extend(extra)
    if shot.spare_hits:
        texts.append(
            f"{shot.spare_hits} hit(s) left over: put them on a figure within 3 inches with Hit (not for Focused weapons)."
        )
    return [Event("shoot", " ".join(texts), {"figure": fig["id"], **_rolls(*rolls)})]


def _brawl(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Brawl between a trooper (``figure``) and an enemy (``enemy``) (pp.177-180): both 1D6 +
    Combat Skill with the trooper's weapon bonus; lower total takes a Hit, a draw hits both.
    ``second_opponent`` (+1 to the second enemy met at once), ``crash`` (a random move: both +0,
    no modifiers), ``faces``. Results are applied to both figures."""
    unit, fig = _figure(state, action.payload.get("figure"))
    if action.role == Role.PLAYER:
        _mine(action, unit)
    else:
        _not_viewer(action)
    group, enemy = _enemy(state, action.payload.get("enemy"))
    try:
        fight = combat.resolve_brawl(
            tables,
            _trooper(fig),
            _foe(state, tables, group, enemy),
            dice,
            second_opponent=payload_flag(action, "second_opponent"),
            crash=payload_flag(action, "crash"),
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    texts = [fight.text]
    rolls = list(fight.rolls)
    enemy_removed = any(h.removed and h.target.is_enemy for h in fight.hits)
    fig["stun"], fig["wounded"] = fight.trooper.stun_markers, fight.trooper.wounded
    fallen = next((h for h in fight.hits if h.removed and not h.target.is_enemy), None)
    if fallen is not None:
        texts.extend(_apply_to_trooper(state, fig, fallen, by=group["type"]))
    notes, extra = _apply_to_enemy(state, tables, group, enemy, fight.enemy, enemy_removed, dice)
    texts.extend(notes)
    rolls.extend(extra)
    return [Event("brawl", " ".join(texts), {"figure": fig["id"], "enemy": enemy["id"], **_rolls(*rolls)})]


def _hit(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Resolve one Hit by hand (p.178) on a trooper (``figure``) or an enemy (``enemy``): splash
    hits, spare hits, a Shatter-form burst, a fall. ``damage`` 0-5, ``piercing``, ``area``,
    ``ranged`` (default on), ``faces`` (save die if any, then the Hit die)."""
    require_owner(action)
    damage = payload_int(action, "damage", low=0, high=5, default=0)
    piercing, area = payload_flag(action, "piercing"), payload_flag(action, "area")
    ranged = payload_flag(action, "ranged", default=True)
    faces = payload_ints(action, "faces") or None
    try:
        if action.payload.get("enemy"):
            group, enemy = _enemy(state, action.payload.get("enemy"))
            foe = _foe(state, tables, group, enemy)
            result = combat.resolve_hit(tables, foe, damage, dice, piercing=piercing, area=area, ranged=ranged, faces=faces)
            notes, extra = _apply_to_enemy(state, tables, group, enemy, result.target, result.removed, dice)
            return [Event("hit", " ".join([result.text, *notes]), {"enemy": enemy["id"], **_rolls(*result.rolls, *extra)})]
        _, fig = _figure(state, action.payload.get("figure"))
        result = combat.resolve_hit(tables, _trooper(fig), damage, dice, piercing=piercing, area=area, ranged=ranged, faces=faces)
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    notes = _apply_to_trooper(state, fig, result)
    return [Event("hit", " ".join([result.text, *notes]), {"figure": fig["id"], **_rolls(*result.rolls)})]


def _enemy_attack(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable], kind: str) -> list[Event]:
    require_owner(action)
    group, enemy = _enemy(state, action.payload.get("enemy"))
    _, fig = _figure(state, action.payload.get("figure"))
    faces = payload_ints(action, "faces") or None
    try:
        if kind == "spitter":
            if not state["variant"] or state["variant"]["key"] != "spitters":
                raise TrackerError("Only the Spitters variant spits (p.196).", field="enemy")
            foe = _foe(state, tables, group, enemy)
            attack = combat.spitter_attack(_trooper(fig), dice, tables=tables, attacker_special=foe.special, faces=faces)
        else:
            if not enemy["leader"] or enemy["leader"]["key"] != "lancer":
                raise TrackerError(f"{enemy['name']} is not a Lancer (p.197).", field="enemy")
            attack = combat.lancer_dart(_trooper(fig), dice, tables=tables, faces=faces)
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    notes = _apply_to_trooper(state, fig, attack.result, by=group["type"]) if attack.result is not None else []
    return [Event(kind, " ".join([f"{enemy['name']}: {attack.text}", *notes]), {"figure": fig["id"], **_rolls(*attack.rolls)})]


def _spitter(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Spitter ends its move within 6" and sight of a trooper (p.196): 1D6, a 6 hits, Damage 1, armor applies."""
    return _enemy_attack(state, action, dice, tables, "spitter")


def _lancer(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Lancer's dart after its move (p.197): 5+ hits, Damage 1, ignores armor."""
    return _enemy_attack(state, action, dice, tables, "lancer")


def _drop_ship_fire(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The hovering drop ship's supporting fire, once in each hovering round including the arrival
    round (p.201): two Light Machine Guns at +1 Combat Skill that never malfunction, at ``enemy``
    (``band``) and optionally ``enemy2`` (``band2``) for the second gun."""
    require_owner(action)
    evac = state["evac"]
    if evac["status"] != "hovering":
        raise TrackerError("The drop ship is not hovering over the table.", field="type")
    if evac["fired_round"] == state["round"]:
        raise TrackerError("The drop ship has already fired this round.", field="type")
    group, enemy = _enemy(state, action.payload.get("enemy"))
    second = None
    if action.payload.get("enemy2"):
        second = _enemy(state, action.payload.get("enemy2"), field="enemy2")
    bands = ("close", "open", "cover")
    try:
        fire = combat.drop_ship_fire(
            tables,
            _foe(state, tables, group, enemy),
            dice,
            band=_choice(action, "band", bands, default="open"),
            second_target=_foe(state, tables, *second) if second else None,
            second_band=_choice(action, "band2", bands, default="open") if second else None,
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    evac["fired_round"] = state["round"]
    texts = [f"Drop ship supporting fire: {fire.text}"]
    rolls = list(fire.rolls)
    targets = [(group, enemy)] + ([second] if second else [])
    for shot in fire.shots:
        if shot.target is None:
            continue
        for grp, foe in targets:
            if foe["name"] == shot.target.name and foe["status"] == "active":
                notes, extra = _apply_to_enemy(state, tables, grp, foe, shot.target, any(h.removed for h in shot.hits), dice)
                texts.extend(notes)
                rolls.extend(extra)
    return [Event("drop_ship_fire", " ".join(texts), {"enemy": enemy["id"], **_rolls(*rolls)})]
