"""Corrections to figures (adjust, Wounded) and attacks through battles.engine.fp_combat: shots,
brawls and casualty tables (Compendium pp.87-100).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from battles.engine import fp_combat
from battles.engine.fp_tracker.base import STATUSES, _choice, _err, _rolls, _take
from battles.engine.fp_tracker.enemy_psionics import obscured, paralyzed, raging, refuse_if_paralyzed, ward_of
from battles.engine.fp_tracker.grid import refuse_dashed_shot
from battles.engine.fp_tracker.lookups import _any_figure, _down, _mine
from live.engine.tracker import (
    Action,
    Event,
    payload_flag,
    payload_int,
    payload_ints,
    require_owner,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- figures ---------------------------------------------------------------------------------------------


def _adjust(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Correct a figure (``figure`` crew or ``enemy``): ``stun`` (set, 0-9), ``stun_change`` (+1/-1),
    ``wounded``, ``status`` (active, casualty, fled). Players may change Stun markers on their own figures."""
    key = "enemy" if action.payload.get("enemy") else "figure"
    fig = _any_figure(state, action.payload.get(key), key, active=False)
    if fig["side"] == "enemy" or "status" in action.payload or "wounded" in action.payload:
        require_owner(action)
    else:
        _mine(action, fig)
    changes = []
    if action.payload.get("stun") not in (None, ""):
        fig["stun"] = payload_int(action, "stun", low=0, high=9)
        changes.append(f"Stun {fig['stun']}")
    if action.payload.get("stun_change") not in (None, ""):
        step = payload_int(action, "stun_change", low=-1, high=1)
        if step < 0 and fig["stun"] == 0:
            raise _err(f"{fig['name']} has no Stun marker to remove.", "stun_change")
        fig["stun"] += step
        changes.append(f"Stun {fig['stun']}")
    if action.payload.get("wounded") not in (None, ""):
        wounded = payload_flag(action, "wounded")
        if wounded != fig["wounded"]:
            _set_wounded(fig, wounded)
        changes.append("Wounded" if wounded else "not Wounded")
    if action.payload.get("status") not in (None, ""):
        status = str(action.payload["status"])
        if status not in STATUSES:
            raise _err(f"status must be one of {', '.join(STATUSES)}; got {status!r}.", "status")
        if status == "active":
            fig["status"], fig["down_round"] = "active", None
        elif fig["status"] != status:
            _down(fig, status, state["round"])
        changes.append(status)
    if not changes:
        raise _err("Nothing to change: give stun, stun_change, wounded or status.", "stun")
    return [Event("adjust", f"{fig['name']}: {', '.join(changes)}.", {"figure": fig["id"]})]


def _set_wounded(fig: dict[str, Any], wounded: bool) -> None:
    """Wounded (p.100): half Speed (rounded down) and Combat Skill -1 (not below -1); taking it off
    restores the profile kept in ``unwounded``."""
    if wounded:
        fig["unwounded"] = {"speed": fig["speed"], "combat_skill": fig["combat_skill"]}
        fig["speed"] = fig["speed"] // 2
        fig["combat_skill"] = fig["combat_skill"] - 1 if fig["combat_skill"] > -1 else fig["combat_skill"]
    else:
        before = fig.get("unwounded") or {}
        fig["speed"] = before.get("speed", fig["speed"])
        fig["combat_skill"] = before.get("combat_skill", fig["combat_skill"])
        fig["unwounded"] = None
    fig["wounded"] = wounded


# -- combat ------------------------------------------------------------------------------------------------


def _psi_hunter(state: Mapping[str, Any], fig: Mapping[str, Any]) -> bool:
    """Whether ``fig`` is one of a Psi-hunter Rival's figures (its group's ``psi_hunters``, p.21)."""
    return fig["side"] == "enemy" and any(g["id"] == fig.get("group") and g.get("psi_hunters") for g in state["groups"])


def _fighter(
    fig: Mapping[str, Any],
    *,
    ward: fp_combat.Ward | None = None,
    obscured: bool = False,
    reroll: bool = False,
    psi_hunter: bool = False,
) -> fp_combat.Fighter:
    """The figure as the combat resolver sees it; ``ward``, ``obscured`` and ``reroll`` add what
    psionic powers in force give it (battles.engine.fp_tracker.enemy_psionics); ``psi_hunter``:
    a Psi-hunter's figure (+1 to hit a crew Psionic, p.21). A crew Psionic is ``psionic``."""
    return fp_combat.Fighter(
        psi_hunter=psi_hunter,
        psionic=fig["side"] == "crew" and bool(fig.get("psionic")),
        name=fig["name"],
        combat_skill=int(fig["combat_skill"]),
        toughness=int(fig["toughness"]),
        speed=int(fig["speed"]),
        reactions=int(fig.get("reactions") or 1),
        savvy=int(fig.get("savvy") or 0),
        save=fig["save"],
        save_kind=fig.get("save_kind") or fp_combat.ARMOR,
        second_save=fig.get("second_save"),
        reroll_natural_one=bool(fig.get("reroll_natural_one")) or reroll,
        ward=ward,
        obscured=obscured,
        bot=bool(fig.get("bot")),
        kerin=bool(fig.get("kerin")),
        stun_markers=int(fig["stun"]),
        enemy=fig["side"] == "enemy",
        weapons=tuple(fp_combat.Weapon.from_dict(w) for w in fig["weapons"]),
    )


def _weapon_of(fig: Mapping[str, Any], name: Any, field: str) -> fp_combat.Weapon | None:
    """The named weapon the figure carries (default: its first), ``None`` when it has none."""
    if name in (None, ""):
        return fp_combat.Weapon.from_dict(fig["weapons"][0]) if fig["weapons"] else None
    for carried in fig["weapons"]:
        if carried["name"].lower() == str(name).strip().lower():
            return fp_combat.Weapon.from_dict(carried)
    raise _err(f"{fig['name']} carries no {name!r}; weapons: {', '.join(w['name'] for w in fig['weapons']) or 'none'}.", field)


def _numbers(state: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> fp_combat.HitNumbers:
    dramatic = bool(state["options"]["dramatic_combat"])
    core = None
    if state["hit_numbers"]:
        core = fp_combat.HitNumbers(
            open=state["hit_numbers"]["open"], cover=state["hit_numbers"]["cover"], source="your core rulebook"
        )
    if not dramatic and core is None:
        raise _err(
            "Shooting needs your core rulebook's hit numbers (hit_numbers at set-up) unless Dramatic Combat is on.", "hit_numbers"
        )
    return fp_combat.hit_numbers(tables, dramatic=dramatic, core=core)


def _take_hits(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    fig: dict[str, Any],
    after: fp_combat.Fighter,
    outcomes: Sequence[fp_combat.HitOutcome],
    *,
    force_critical: bool,
    faces: list[int],
) -> tuple[list[str], list[RollRecord]]:
    """Copy Stun markers back and turn casualty outcomes into a casualty, or with the option on a
    casualty-table roll (pp.99-100): one per hit that beat Toughness, plus one per natural-6 Hit
    with Critical Hit on; only the highest applies. Knock-outs by Stun markers skip the tables."""
    fig["stun"] = after.stun_markers
    fallen = [o for o in outcomes if o.result == "casualty"]
    if not fallen:
        return [], []
    tabled = [o for o in fallen if o.beat_toughness]
    if not state["options"]["casualty_tables"] or not tabled:
        _down(fig, "casualty", state["round"])
        said = any("is a casualty" in note for o in fallen for note in o.notes)  # the resolver's words say it already
        return ([] if said else [f"{fig['name']} is a casualty."]), []
    critical = 0
    if state["options"]["critical_hits"]:
        critical = max(sum(1 for o in tabled if o.natural_six), 1 if force_critical else 0)
    rolled = fp_combat.casualty(
        dice,
        tables,
        kind=fig["kind"],
        hits=len(tabled),
        critical=critical,
        boss=bool(fig["boss"]),
        modifier=int(fig["casualty_modifier"]),
        faces=_take(faces, len(tabled) + critical),
    )
    entry = rolled.entry
    text = f"{fig['name']}: casualty table gives {entry.result}."
    name = entry.result.lower()
    if rolled.removed:
        _down(fig, "casualty", state["round"])
    elif name.startswith("wounded"):
        if fig["wounded"]:
            _down(fig, "casualty", state["round"])
            text += " Wounded again: a Goner."
        else:
            _set_wounded(fig, True)
    elif name.startswith(("dazed", "temporary")):
        fig["dazed"] = True
    elif name.startswith(("damaged", "bleeding")):
        flag = "damaged" if name.startswith("damaged") else "bleeding"
        if not fig[flag]:
            fig[flag] = True
            fig["casualty_modifier"] += int(entry.data.get("casualty_roll_modifier") or 0)
    return [*rolled.lines, f"{text} {entry.effect}"], list(rolled.rolls)


def _settle(
    state: dict[str, Any], tables: Mapping[str, RangeTable], dice: Dice
) -> Callable[[dict[str, Any], fp_combat.Fighter, list[fp_combat.HitOutcome]], tuple[list[str], list[RollRecord]]]:
    """:func:`_take_hits` for hits that come from no attack (an enemy Psionic's Crush)."""

    def settle(
        fig: dict[str, Any], after: fp_combat.Fighter, outcomes: list[fp_combat.HitOutcome]
    ) -> tuple[list[str], list[RollRecord]]:
        return _take_hits(state, tables, dice, fig, after, outcomes, force_critical=False, faces=[])

    return settle


def _resolve(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A shot or a brawl between two figures through :mod:`battles.engine.fp_combat`.

    Payload: ``attacker`` and ``target`` (crew or enemy ids), ``mode`` shot | brawl, ``weapon``
    (the attacker's, default the first), ``target_weapon`` (brawl), ``range`` (inches), ``cover``,
    ``moved``, ``fired_last_round``, ``faces`` (the attack's physical D6 in the order the resolver
    asks), ``casualty_faces`` (casualty-table D6), ``critical`` (force the Critical Hit roll).
    Players may resolve for their own crew figures; the owner for anyone."""
    if state["phase"] not in ("quick", "enemy", "slow", "start", "end"):
        raise _err("Attacks happen during a round.", "type")
    attacker = _any_figure(state, action.payload.get("attacker"), "attacker")
    target = _any_figure(state, action.payload.get("target"), "target")
    if attacker is target:
        raise _err("A figure cannot attack itself.", "target")
    if attacker["side"] == "crew":
        _mine(action, attacker)
        refuse_if_paralyzed(state, attacker, "attacker")
    else:
        require_owner(action)
    mode = _choice(action.payload.get("mode"), "mode", ("shot", "brawl"), "shot")
    faces = payload_ints(action, "faces") or None
    table_faces = payload_ints(action, "casualty_faces")
    texts: list[str] = []
    if mode == "shot":
        refuse_dashed_shot(state, attacker)
        weapon = _weapon_of(attacker, action.payload.get("weapon"), "weapon")
        if weapon is None:
            raise _err(f"{attacker['name']} has no weapon to shoot with.", "weapon")
        shot = fp_combat.resolve_shot(
            dice,
            shooter=_fighter(attacker, psi_hunter=_psi_hunter(state, attacker)),
            target=_fighter(target, ward=ward_of(target, state), obscured=obscured(state, target, action)),
            weapon=weapon,
            numbers=_numbers(state, tables),
            range_in=payload_int(action, "range", low=0, high=72, default=12),
            cover=payload_flag(action, "cover"),
            moved=payload_flag(action, "moved"),
            fired_last_round=payload_flag(action, "fired_last_round"),
            dramatic=bool(state["options"]["dramatic_combat"]),
            faces=faces,
            tables=tables,
        )
        rolls = list(shot.rolls)
        texts.extend(shot.lines)
        more, extra = _take_hits(
            state,
            tables,
            dice,
            target,
            shot.target,
            shot.outcomes,
            force_critical=payload_flag(action, "critical"),
            faces=table_faces,
        )
        texts.extend(more)
        rolls.extend(extra)
        return [
            Event(
                "resolve", " ".join(texts), {"attacker": attacker["id"], "target": target["id"], "mode": mode, **_rolls(*rolls)}
            )
        ]
    if paralyzed(state, target):
        return _paralyzed_brawl(state, tables, dice, action, attacker, target, faces, table_faces)
    fight = fp_combat.resolve_brawl(
        dice,
        a=_fighter(attacker, reroll=raging(state, attacker), psi_hunter=_psi_hunter(state, attacker)),
        b=_fighter(target, reroll=raging(state, target), psi_hunter=_psi_hunter(state, target)),
        a_weapon=_weapon_of(attacker, action.payload.get("weapon"), "weapon"),
        b_weapon=_weapon_of(target, action.payload.get("target_weapon"), "target_weapon"),
        faces=faces,
        tables=tables,
    )
    rolls = list(fight.rolls)
    texts.extend(fight.lines)
    critical = payload_flag(action, "critical")
    pairs = [
        (attacker, fight.a, [o for o in fight.outcomes if o.target == fight.a.name]),
        (target, fight.b, [o for o in fight.outcomes if o.target == fight.b.name]),
    ]
    for fig, after, outcomes in pairs:
        more, extra = _take_hits(state, tables, dice, fig, after, outcomes, force_critical=critical, faces=table_faces)
        texts.extend(more)
        rolls.extend(extra)
    return [
        Event("resolve", " ".join(texts), {"attacker": attacker["id"], "target": target["id"], "mode": mode, **_rolls(*rolls)})
    ]


def _hazard_hit(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A hit no figure fires (a hazard or an event, for example the Salvage Points of Interest,
    p.141) through :func:`battles.engine.fp_combat.resolve_hit`.

    Payload: ``target`` (crew or enemy id), ``damage`` (0-6), ``source`` (what hit, for the log),
    ``piercing`` (negates Armor saves, p.89), ``ignores_screens`` (negates Screen saves, p.141),
    ``faces`` (save die then Damage die), ``casualty_faces``, ``critical``. Owner only."""
    if state["phase"] not in ("quick", "enemy", "slow", "start", "end"):
        raise _err("Hits happen during a round.", "type")
    require_owner(action)
    target = _any_figure(state, action.payload.get("target"), "target")
    source = str(action.payload.get("source") or "Hazard").strip()[:60] or "Hazard"
    outcome, after = fp_combat.resolve_hit(
        dice,
        target=_fighter(target),
        damage=0 if action.payload.get("damage") in (None, "") else payload_int(action, "damage", low=0, high=6),
        source=source,
        piercing=payload_flag(action, "piercing"),
        ignores_screens=payload_flag(action, "ignores_screens"),
        faces=payload_ints(action, "faces") or None,
    )
    texts = [f"{source} hits {target['name']}.", *outcome.notes]
    more, extra = _take_hits(
        state,
        tables,
        dice,
        target,
        after,
        [outcome],
        force_critical=payload_flag(action, "critical"),
        faces=payload_ints(action, "casualty_faces"),
    )
    texts.extend(more)
    return [Event("hazard", " ".join(texts), {"target": target["id"], **_rolls(*outcome.rolls, *extra)})]


def _paralyzed_brawl(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    action: Action,
    attacker: dict[str, Any],
    target: dict[str, Any],
    faces: list[int] | None,
    table_faces: list[int],
) -> list[Event]:
    """Paralyze (p.23): a crew figure Paralyzed this round is struck in a Brawl without a roll:
    one hit from the attacker's weapon (Damage 0 unarmed, or with a weapon that is neither
    Melee nor Pistol, as in any Brawl)."""
    gun = _weapon_of(attacker, action.payload.get("weapon"), "weapon")
    if gun is not None and not (gun.has("melee") or gun.has("pistol")):
        gun = None
    outcome, after = fp_combat.resolve_hit(
        dice,
        target=_fighter(target),
        damage=gun.damage if gun else 0,
        source=f"{attacker['name']}'s {gun.name if gun else 'bare hands'}",
        piercing=bool(gun and gun.has("piercing")),
        faces=faces,
    )
    texts = [f"{target['name']} is Paralyzed (p.23): {attacker['name']} strikes without a Brawl roll.", *outcome.notes]
    more, extra = _take_hits(
        state, tables, dice, target, after, [outcome], force_critical=payload_flag(action, "critical"), faces=table_faces
    )
    rolls = [*outcome.rolls, *extra]
    return [
        Event(
            "resolve",
            " ".join([*texts, *more]),
            {"attacker": attacker["id"], "target": target["id"], "mode": "brawl", **_rolls(*rolls)},
        )
    ]
