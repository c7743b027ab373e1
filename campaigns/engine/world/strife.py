"""Fringe World Strife (Compendium pp.148-151): world stability and the instability check.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaigns.engine.view import Change, FactionView
from campaigns.engine.world.common import Roller, WorldError, _amount, row, table
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- Fringe World Strife (pp.148-151) -------------------------------------------------------


@dataclass(frozen=True)
class Stability:
    """Arrival check (p.148): ``unstable`` when the D6 meets ``target``; ``instability`` starts
    at the track's arrival value (0 for a stable world)."""

    unstable: bool
    instability: int
    target: int
    roll: RollRecord


def world_stability(tables: Mapping[str, RangeTable], dice: Dice, *, value: int | None = None, calm: bool = False) -> Stability:
    """Is the new world Unstable? D6 against 4+, or 5+ with ``calm`` (the book's gentler choice).
    ``value`` is a typed D6. Raises :class:`WorldError` (field ``value``) for a face off the die."""
    roll = Roller(dice).table(tables, "fringe-world-stability", value=value, reason="Is the world Unstable?")
    data = roll.entry.data
    target = int(data["unstable_target_calm"] if calm else data["unstable_target"])
    unstable = roll.value >= target
    start = int(row(tables, "fringe-instability-track", "Arrival").data["instability"]) if unstable else 0
    return Stability(unstable=unstable, instability=start, target=target, roll=roll.record)


@dataclass(frozen=True)
class InstabilityCheck:
    """Instability at the Invasion step (p.148): ``before`` + ``added`` -> ``after`` (after any
    strife reduction). ``strife`` names the Fringe World Strife result ("" when none) and
    ``detail`` its sub-roll (raiders, invaders); ``stops_tracking`` when the result is "NA"."""

    before: int
    added: int
    after: int
    strife: str
    detail: str
    stops_tracking: bool
    rolls: tuple[RollRecord, ...]
    changes: tuple[Change, ...]
    text: str


def instability_check(
    current: int,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    rivals_here: int = 0,
    patron_job: bool = False,
    held_vs_roving: bool = False,
    factions: Sequence[FactionView] = (),
    strife_value: int | None = None,
    faces: Sequence[int] | None = None,
) -> InstabilityCheck:
    """Add 1D6, +1 per active Rival here, -1 for a completed Patron job, -1 for holding the field
    against a Roving Threat (numbers from fringe-instability-track). At the strife threshold
    (10) roll D100 on fringe-world-strife and subtract its reduction.

    ``strife_value`` is a typed D100; ``faces`` are the other typed dice in order (the 1D6 added,
    then any sub-roll: hull damage, raiders or invaders D6). Changes: ``world`` (instability,
    strife, ``unstable`` False once the world stops tracking), ``ship`` hull damage,
    ``rival_add`` (Heating Up) and, with ``factions``, an Economic Collapse costs each Faction
    Influence (p.114). Raises :class:`WorldError` for typed dice the die cannot show or
    negative counts.
    """
    if rivals_here < 0:
        raise WorldError(f"rivals_here must be 0 or more; got {rivals_here}.", field="rivals_here")
    track = {e.result: e.data for e in table(tables, "fringe-instability-track").entries}
    roller = Roller(dice, faces)
    added = roller.roll(str(track["Invasion step"]["instability"]), "Instability grows").total or 0
    added += rivals_here * int(track["Active Rival on this world"]["instability"])
    if patron_job:
        added += int(track["Patron job completed"]["instability"])
    if held_vs_roving:
        added += int(track["Held the Field against a Roving Threat"]["instability"])
    total = current + added
    threshold = int(track["Strife threshold"]["instability"])
    changes: list[Change] = []
    text = f"Instability {current} -> {total}."
    if total < threshold:
        changes.append(Change("world", {"instability": total}))
        return InstabilityCheck(current, added, total, "", "", False, tuple(roller.records), tuple(changes), text)
    strife = roller.table(tables, "fringe-world-strife", value=strife_value, reason="Fringe World Strife")
    data = strife.entry.data
    name = strife.entry.result
    stops = bool(data.get("stops_tracking"))
    after = 0 if stops else max(0, total + int(data.get("instability") or 0))
    detail = ""
    extra: list[Change] = []
    if name == "Raiders":
        detail = roller.table(tables, "fringe-strife-raiders", reason="Who raids you?").entry.result
    elif name == "Invasion Imminent":
        detail = roller.table(tables, "fringe-strife-invaders", reason="Who invades?").entry.result
    elif "hull_damage" in data:
        damage = _amount(roller, data["hull_damage"], "Sabotage: hull damage")
        detail = f"{damage} hull damage"
        extra.append(Change("ship", {"hull_damage": damage}))
    if int(data.get("rivals") or 0):
        extra.append(
            Change(
                "rival_add",
                {
                    "name": "Criminal Elements rival",
                    "kind": "Criminal Elements",
                    "notes": "Roll the type on the core rulebook's Criminal Elements subtable (p.94).",
                },
            )
        )
    if factions:
        extra.extend(_strife_faction_changes(name, factions, tables))
    label = f"{name} ({detail})" if detail else name
    world: dict[str, Any] = {"instability": after, "strife": label}
    if stops:
        world["unstable"] = False
    changes.append(Change("world", world))
    changes.extend(extra)
    tail = "Instability is no longer tracked." if stops else f"Instability drops to {after}."
    text = f"Instability {current} -> {total}: strife! {label}: {strife.entry.effect} {tail}"
    return InstabilityCheck(current, added, after, name, detail, stops, tuple(roller.records), tuple(changes), text)


def _strife_faction_changes(strife: str, factions: Sequence[FactionView], tables: Mapping[str, RangeTable]) -> list[Change]:
    effects = {e.result: e.data for e in table(tables, "faction-fringe-strife-effects").entries}
    influence = int(effects.get(strife, {}).get("influence") or 0)
    if not influence:
        return []
    changes: list[Change] = []
    for faction in factions:
        if faction.influence + influence <= 0:
            changes.append(Change("faction_remove", {"name": faction.name}))
        else:
            changes.append(Change("faction", {"name": faction.name, "influence": influence}))
    return changes


def strife_blocks_factions(strife: str) -> bool:
    """Whether the world's current strife stops Faction activities (p.114: Crackdown, Civil War)."""
    return strife.startswith(("Crackdown", "Civil War"))
