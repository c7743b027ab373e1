"""No-minis battles: a crew Psionic's powers (Compendium pp.17-20 played by the no-minis rules, pp.66-70).

The crew figure carries ``psionic``, ``powers`` (``{name: enhanced}`` or a list of names),
``swift`` (Strain read on the Swift column, p.20), ``shrels`` (Warding Shrels, p.27) and ``focus``
(Psionic Focus, +1" to the Projection, p.27), as the tracker's set-up takes them.

Reading and rulings:

- Activation. A Psionic Action is a bonus action taken as the Psionic activates, before it acts
  (p.19). A no-minis round has no activations; a character acts only through its Initiative Action
  (p.67: the captain and those given a die at or below their Reactions). So the Psionic Action is
  taken in the Initiative Actions step by a figure that may take an Initiative Action and has not
  yet taken it, at most once per round; it does not use up the Initiative Action.
- Distance. The no-minis battle space has no positions (p.66): figures are "near" each other
  only when the rules bring them together, and whenever they do the chapter puts the distance at
  6" (the shot at a charging or melee-only figure, pp.67, 69). Ruling: a power aimed at another
  figure is projected at 6" (:data:`PSIONIC_DISTANCE_IN`). The Projection roll (2D6, 3D6 for an
  enhanced power, +1" with a Focus) must reach 6"; short, the Psionic may Strain (the payload's
  ``strain``, on unless turned off): the Strain die is read on the psionic-strain table and added.
  A power on the Psionic itself works without a roll (p.19).
- Powers played: Shock (an enemy takes a Stun marker: it cannot start a Brawl this round, p.70,
  and the marker is cleared at the round's end), Rejuvenate (a crew figure loses a Stun marker),
  Psionic Scare (one Morale D6 for an enemy against the Panic range now; Fearless figures and
  a force made Fearless are immune) and Barrier (on a crew figure, itself when no target is
  given: to the end of the following round each ranged hit on it is negated on a D6 4+, rolled by
  the shot resolver, ``barrier_until``) and Guide (a crew figure, payload ``enemy``: it takes one
  Shot with its longest non-Area gun at once, resolved as the Fleeting shot is, p.71: at the
  weapon's maximum range, the target in Cover, no reply; it does not count as the figure's fire
  this round). Ruling: Grab, Lift, Shroud, Enrage and Predict
  place, move or time things by position, which the no-minis space does not have (p.66), and are
  refused (field ``power``).
- Robotic targets (Bots, Soulless, cybernetic enemies) cannot take Shock or Psionic Scare (p.18).
- Every power projected counts as a use (``st["psionic_uses"]``, read by the turn's psionic
  detection step, p.20), whether it takes effect or not. Ruling: the reinforcements a "Highly
  unusual" world may send (p.21) are not played without miniatures.
- Automatic policy (:func:`auto_power`): as its Initiative Action comes, the Psionic uses the
  first of: Rejuvenate on a Stunned crew figure; Psionic Scare on an enemy that can flee (the
  first such, not the Eliminate target); Barrier on itself, else on the first crew figure, when
  that figure has none in force; Shock on the first un-Stunned enemy carrying a Melee weapon
  (so it cannot Brawl this round); Guide for the first crew figure with a non-Area gun at the
  first enemy. It always Strains when short.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_tracker.psionics import STRAIN_TABLE, _robotic, strain_toll
from battles.engine.nominis import elite
from battles.engine.nominis.combat import _cover_for, _shoot
from battles.engine.nominis.state import (
    Event,
    NoMinisError,
    State,
    Tables,
    _active_crew,
    _active_enemies,
    _crew,
    _enemy,
    _enter,
    _event,
    _panic_faces,
    _roll,
    _table,
)
from battles.engine.nominis.weapons import _best_gun, _melee_weapon
from rules.engine.dice import Dice
from rules.engine.tables import TableError

#: The action type a Psionic Action takes.
PSIONIC_ACTION = "psionic_action"
#: The distance a power is projected at in no-minis play (ruling above, pp.66-69), inches.
PSIONIC_DISTANCE_IN = 6
SHOCK, REJUVENATE, SCARE, BARRIER, GUIDE = "Shock", "Rejuvenate", "Psionic Scare", "Barrier", "Guide"
#: The powers that mean something without positions (ruling above).
PLAYED = (SHOCK, REJUVENATE, SCARE, BARRIER, GUIDE)
#: Powers taken by a crew figure (blank target: the Psionic itself).
_ON_CREW = (REJUVENATE, BARRIER, GUIDE)


def powers_of(figure: Mapping[str, Any]) -> dict[str, bool]:
    """The figure's powers as ``{name: enhanced}`` (empty for a figure that is no Psionic)."""
    if not figure.get("psionic"):
        return {}
    raw = figure.get("powers") or {}
    if isinstance(raw, Mapping):
        return {str(k): bool(v) for k, v in raw.items()}
    return {str(name): False for name in raw}


def can_use(st: Mapping[str, Any], crew: Mapping[str, Any]) -> bool:
    """Whether ``crew`` may take its Psionic Action now (Initiative Actions step, eligible, not acted)."""
    return (
        st["phase"] == "actions"
        and bool(powers_of(crew))
        and crew["status"] == "active"
        and bool(crew["eligible"])
        and not crew["acted"]
        and crew.get("psionic_round") != st["round"]
    )


def _target(st: State, crew: dict[str, Any], power: str, raw: Any) -> dict[str, Any]:
    if power in _ON_CREW:
        target = crew if raw in (None, "", "self") else _crew(st, raw, "target")
        if target["status"] != "active":
            raise NoMinisError(f"target: {target['name']} is not on the battlefield.", field="target")
        if power == REJUVENATE and not target["stun"]:
            raise NoMinisError(f"target: {target['name']} has no Stun marker for Rejuvenate to remove (p.18).", field="target")
        return target
    if raw in (None, ""):
        raise NoMinisError(f"target: {power} needs an enemy on the battlefield (p.18).", field="target")
    target = _enemy(st, raw, "target")
    if target["status"] != "active":
        raise NoMinisError(f"target: {target['name']} is not on the battlefield.", field="target")
    if _robotic(target):
        raise NoMinisError(f"target: {power} does not affect robotic figures (p.18); {target['name']} is one.", field="target")
    return target


def _check(st: State, action: Mapping[str, Any]) -> tuple[dict[str, Any], str, bool, dict[str, Any]]:
    """``(psionic, power, enhanced, target)`` for a Psionic Action, or :class:`NoMinisError`."""
    crew = _crew(st, action.get("actor"))
    known = powers_of(crew)
    if not known:
        raise NoMinisError(f"actor: {crew['name']} is not a Psionic with powers (p.17).", field="actor")
    if crew["status"] != "active" or not crew["eligible"]:
        raise NoMinisError(
            f"actor: {crew['name']} does not activate this round, so takes no Psionic Action (p.19, p.67).", field="actor"
        )
    if crew.get("psionic_round") == st["round"]:
        raise NoMinisError(f"actor: {crew['name']} has used a power this round (p.19).", field="actor")
    if crew["acted"]:
        raise NoMinisError(f"actor: {crew['name']} takes the Psionic Action before its Initiative Action (p.19).", field="actor")
    wanted = str(action.get("power") or "").strip().lower()
    name = next((n for n in known if n.lower() == wanted), None)
    if name is None:
        raise NoMinisError(
            f"power must be one of {crew['name']}'s powers ({', '.join(known)}); got {action.get('power')!r}.", field="power"
        )
    if name not in PLAYED:
        raise NoMinisError(
            f"power: {name} needs positions on a table; without miniatures only {', '.join(PLAYED)} are played (ruling, p.66).",
            field="power",
        )
    target = _target(st, crew, name, action.get("target"))
    if name == GUIDE:
        _guided(st, target, action)
    return crew, name, known[name], target


def _can_guide(ally: Mapping[str, Any]) -> bool:
    """Whether ``ally`` carries a gun Guide may use (not Area, p.18)."""
    gun = _best_gun(ally)
    return gun is not None and "area" not in gun["traits"]


def _guided(st: State, ally: Mapping[str, Any], action: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Guide's ``(gun, enemy)``: the ally's longest non-Area gun and the enemy (payload ``enemy``)
    it takes its Shot at (p.18). Raises :class:`NoMinisError` naming ``target`` or ``enemy``."""
    gun = _best_gun(ally)
    if gun is None or not _can_guide(ally):
        raise NoMinisError(f"target: {ally['name']} carries no non-Area gun for Guide's Shot (p.18).", field="target")
    enemy = _enemy(st, action.get("enemy"), "enemy")
    if enemy["status"] != "active":
        raise NoMinisError(f"enemy: {enemy['name']} is not on the battlefield.", field="enemy")
    return gun, enemy


def psionic_action(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    """A crew Psionic Action (pp.19-20). Payload: ``actor`` (the Psionic), ``power``, ``target``
    (an enemy for Shock and Psionic Scare; a crew figure, blank for itself, for Rejuvenate,
    Barrier and Guide), ``enemy`` (Guide's target enemy),
    ``faces`` (the Projection dice typed: 2, or 3 for an enhanced power), ``strain`` (Strain when
    short; default on), ``strain_faces`` ([d6]), ``effect_faces`` ([d6]: the Scare's Morale die).
    Raises :class:`NoMinisError` naming the field; nothing changes then."""
    crew, name, enhanced, target = _check(st, action)
    crew["psionic_round"] = st["round"]
    st["psionic_uses"] = int(st.get("psionic_uses") or 0) + 1
    if target is crew:
        events.append(
            _event(
                "psionic",
                f"{crew['name']} uses {name} on itself: it works at once (p.19). "
                + _effect(st, tables, crew, name, target, dice, action, events),
            )
        )
        return
    count = 3 if enhanced else 2
    reason = f"{crew['name']}: Projection for {name}" + (" (enhanced)" if enhanced else "")
    faces = action.get("faces")
    if faces is not None:
        if not isinstance(faces, list | tuple) or len(faces) != count:
            raise NoMinisError(f"faces: the Projection needs {count} D6 faces; got {faces!r}.", field="faces")
        projection = _enter(f"{count}D6", faces, reason)
    else:
        projection = _roll(dice, count, 6, reason)
    focus = 1 if crew.get("focus") else 0
    reach = int(projection["total"]) + focus
    text = (
        f'{crew["name"]} projects {name} at {target["name"]} ({PSIONIC_DISTANCE_IN}", no-minis): {count}D6 {projection["total"]}'
    )
    text += (' +1" Psionic Focus' if focus else "") + f' = {reach}".'
    rolls = [projection]
    if reach < PSIONIC_DISTANCE_IN:
        if not action.get("strain", True):
            events.append(_event("psionic", text + f" Short; no Strain: {name} fails.", rolls))
            return
        column = "Swift" if crew.get("swift") else "Standard"
        typed = action.get("strain_faces") or []
        try:
            rolled = _table(tables, STRAIN_TABLE).roll_or_enter(
                dice, value=int(typed[0]) if typed else None, column=column, reason=f"{crew['name']}: Strain for {name}"
            )
        except (TableError, TypeError, ValueError) as exc:
            raise NoMinisError(f"strain_faces: {exc}", field="strain_faces") from None
        rolls.append(dict(rolled.record.as_dict()))
        reach += rolled.value
        text += f' Strains: D6 {rolled.value}, reach {reach}". {rolled.entry.result}.'
        fails, notes = strain_toll(crew, rolled.entry.data)
        text += "".join(" " + note for note in notes)
        if fails or reach < PSIONIC_DISTANCE_IN:
            events.append(_event("psionic", text + f" {name} fails.", rolls))
            return
    events.append(_event("psionic", text, rolls))
    events.append(_event("psionic", _effect(st, tables, crew, name, target, dice, action, events)))


def _effect(
    st: State,
    tables: Tables,
    crew: dict[str, Any],
    name: str,
    target: dict[str, Any],
    dice: Dice,
    action: Mapping[str, Any],
    events: list[Event],
) -> str:
    """Apply ``name`` on ``target`` (p.18); returns the line (the Scare logs its own die)."""
    who = target["name"]
    if name == SHOCK:
        if elite.stun_immune(st, target, shooting=False):
            return f"{who} shrugs off the Stun marker (its type's rule)."
        target["stun"] += 1
        return f"{who} takes a Stun marker: it cannot start a Brawl this round (p.18, p.70)."
    if name == BARRIER:
        target["barrier_until"] = st["round"] + 1
        return f"{who}: Barrier until the end of round {st['round'] + 1}: each ranged hit on it is negated on a D6 4+ (p.18)."
    if name == GUIDE:
        gun, enemy = _guided(st, target, action)
        one = gun if gun["shots"] <= 1 else {**gun, "shots": 1}
        why = "Guide: one Shot at maximum range, target in Cover, no reply, its own fire still to come (p.18, p.71)"
        _shoot(st, dice, target, enemy, one, range_in=gun["range"], cover=_cover_for(st, target, True), moved=False,
               natural_six=bool(target["taking_cover"]), why=why, events=events, tables=tables)  # fmt: skip
        return f"{who} took Guide's Shot at {enemy['name']}."
    if name == REJUVENATE:
        target["stun"] = max(0, target["stun"] - 1)
        return f"{who} loses a Stun marker ({target['stun']} left, p.18)."
    why = elite.all_fearless(st) if "enemy_rules" in st or elite.has_power(st, elite.BOLSTER) else ""
    if target.get("fearless") or why:
        return f"{who} is immune to Morale{': ' + why if why else ''}; the Scare does nothing."
    panic = elite.panic_now(st, tables)[0] if "enemy_rules" in st else _panic_faces(st["enemy_panic"])
    if not panic:
        return f"{who}'s force has no Panic range: the Scare does nothing."
    typed = action.get("effect_faces")
    reason = f"Psionic Scare: Morale for {who}"
    record = _enter("1D6", typed[:1], reason) if typed else _roll(dice, 1, 6, reason)
    events.append(_event("psionic", f"{crew['name']} scares {who}.", [record]))
    if record["total"] in panic:
        target["status"] = "fled"
        return f"Morale D6 {record['total']}, in the Panic range: {who} flees (p.18)."
    return f"Morale D6 {record['total']}, outside the Panic range: {who} holds."


def auto_power(st: Mapping[str, Any], crew: Mapping[str, Any]) -> dict[str, Any] | None:
    """The automatic policy's Psionic Action for ``crew`` now (see the module docstring), or None."""
    if not crew.get("psionic") or not can_use(st, crew):  # most figures are no Psionic (powers_of)
        return None
    known = powers_of(crew)
    pick: tuple[str, str] | None = None
    stunned = [c for c in _active_crew(st) if c["stun"]]
    if REJUVENATE in known and stunned:
        pick = (REJUVENATE, stunned[0]["name"])
    foes = [e for e in _active_enemies(st) if not _robotic(e) and not e.get("fearless")]
    if pick is None and SCARE in known and not elite.has_power(st, elite.BOLSTER) and _panic_faces(st["enemy_panic"]):
        scared = [e for e in foes if not (st["mission"] == "eliminate" and e.get("target"))]
        if scared:
            pick = (SCARE, scared[0]["name"])
    guarded = [c for c in _active_crew(st) if (c.get("barrier_until") or 0) < st["round"]]
    if pick is None and BARRIER in known and guarded:
        pick = (BARRIER, crew["name"] if crew in guarded else guarded[0]["name"])
    if pick is None and SHOCK in known:
        brawlers = [e for e in _active_enemies(st) if not _robotic(e) and not e["stun"] and _melee_weapon(e) is not None]
        if brawlers:
            pick = (SHOCK, brawlers[0]["name"])
    shooters = [c["name"] for c in _active_crew(st) if _can_guide(c)]
    if pick is None and GUIDE in known and shooters:
        enemy = _active_enemies(st)[0]["name"]
        return {
            **_auto(crew, GUIDE, shooters[0]),
            "enemy": enemy,
            "label": f"{crew['name']}: Guide {shooters[0]} to shoot {enemy}",
        }
    return None if pick is None else _auto(crew, *pick)


def _auto(crew: Mapping[str, Any], power: str, target: str) -> dict[str, Any]:
    return {
        "type": PSIONIC_ACTION,
        "actor": crew["name"],
        "power": power,
        "target": target,
        "label": f"{crew['name']}: {power} on {target}",
    }


def choices_for(st: Mapping[str, Any], crew: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Psionic Actions ``crew`` may take now, one per (power, target), for the choices list."""
    if not can_use(st, crew):
        return []
    out = []
    known = powers_of(crew)
    for power in PLAYED:
        if power not in known:
            continue
        if power == REJUVENATE:
            targets = [c["name"] for c in _active_crew(st) if c["stun"]]
        elif power == BARRIER:
            targets = [c["name"] for c in _active_crew(st)]
        elif power == GUIDE:
            shooters = [c["name"] for c in _active_crew(st) if _can_guide(c)]
            out += [
                {"type": PSIONIC_ACTION, "actor": crew["name"], "power": power, "target": t, "enemy": e["name"],
                 "label": f"{crew['name']}: Guide {t} to shoot {e['name']}"}
                for t in shooters for e in _active_enemies(st)
            ]  # fmt: skip
            continue
        else:
            targets = [e["name"] for e in _active_enemies(st) if not _robotic(e)]
        out += [
            {
                "type": PSIONIC_ACTION,
                "actor": crew["name"],
                "power": power,
                "target": t,
                "label": f"{crew['name']}: {power} on {t}",
            }
            for t in targets
        ]
    return out


__all__ = ["PLAYED", "PSIONIC_ACTION", "PSIONIC_DISTANCE_IN", "auto_power", "choices_for", "psionic_action"]
