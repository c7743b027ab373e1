"""Attacks through the combat resolver, and a side (or the third party) left with no figure on
the table (pp.36-37, 40).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine import fp_combat
from battles.engine.fp_pvp.setup import SIDES
from battles.engine.fp_pvp.tracker.base import THIRD, _err, _fig, _is_coop, _on_table, _other, _phase
from battles.engine.fp_pvp.tracker.rounds import _in_activation
from battles.engine.fp_tracker.combat import _weapon_of
from live.engine.tracker import (
    Action,
    Event,
    payload_flag,
    payload_int,
    payload_ints,
)
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable


def _fighter(fig: Mapping[str, Any]) -> fp_combat.Fighter:
    return fp_combat.Fighter(
        name=fig["name"],
        combat_skill=int(fig["combat_skill"]),
        toughness=int(fig["toughness"]),
        speed=int(fig["speed"]),
        reactions=int(fig["reactions"]),
        savvy=int(fig["savvy"]),
        save=fig["save"],
        save_kind=fig["save_kind"],
        second_save=fig["second_save"],
        bot=fig["bot"],
        kerin=fig["kerin"],
        stun_markers=int(fig["stun"]),
        weapons=tuple(fp_combat.Weapon.from_dict(w) for w in fig["weapons"]),
    )


def _hits(
    state: dict[str, Any], fig: dict[str, Any], after: fp_combat.Fighter, outcomes: Sequence[fp_combat.HitOutcome]
) -> list[str]:
    fig["stun"] = after.stun_markers
    if any(o.result == "casualty" for o in outcomes):
        fig["status"] = "casualty"
        if fig["side"] == THIRD:
            fig["down_round"] = state["round"]  # for its Morale at the round's end
        return [] if any("casualty" in n for o in outcomes for n in o.notes) else [f"{fig['name']} is a casualty."]
    return []


def _resolve(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "quick", "enemy", "slow", what="An attack")
    attacker = _in_activation(state, action, action.payload.get("attacker"), "attacker")
    target = _fig(state, action.payload.get("target"), "target")
    if _is_coop(state) and THIRD not in (attacker["side"], target["side"]):
        raise _err("The two crews fight as one force (p.40): pick an enemy figure as the target.", "target")
    if target["side"] == attacker["side"]:
        raise _err(
            "The third party treats both crews as one force: pick a crew figure (p.37)."
            if attacker["side"] == THIRD
            else "Pick a figure of the other crew or of the third party as the target.",
            "target",
        )
    mode = str(action.payload.get("mode") or "shot")
    faces = payload_ints(action, "faces") or None
    own = state["sides"].get(attacker["side"]) or {"name": "The third party", "points": 0}
    try:
        if mode == "shot":
            weapon = _weapon_of(attacker, action.payload.get("weapon"), "weapon")
            if weapon is None:
                raise _err(f"{attacker['name']} has no weapon to shoot with.", "weapon")
            fire = attacker["id"] in state["activation"]["fire"]
            core = state["hit_numbers"]
            shot = fp_combat.resolve_shot(
                dice,
                shooter=_fighter(attacker),
                target=_fighter(target),
                weapon=weapon,
                numbers=fp_combat.hit_numbers(
                    tables,
                    dramatic=state["dramatic_combat"],
                    core=None
                    if core is None
                    else fp_combat.HitNumbers(open=core["open"], cover=core["cover"], source="your core rulebook"),
                ),
                range_in=payload_int(action, "range", low=0, high=72, default=12),
                cover=payload_flag(action, "cover"),
                moved=payload_flag(action, "moved"),
                dramatic=state["dramatic_combat"],
                faces=faces,
                tables=tables,
                extra_shots=1 if fire and not weapon.has("area") else 0,
                reroll_ones=fire,
            )
            if fire:
                state["activation"]["fire"].remove(attacker["id"])
            texts = [*shot.lines, *_hits(state, target, shot.target, shot.outcomes)]
            rolls = shot.rolls
        elif mode == "brawl":
            draw = payload_flag(action, "draw_if_lost")
            if draw and own["points"] < 1:
                raise _err(f"{own['name']} has no initiative point to turn a lost brawl into a draw.", "draw_if_lost")
            fight = fp_combat.resolve_brawl(
                dice,
                a=_fighter(attacker),
                b=_fighter(target),
                a_weapon=_weapon_of(attacker, action.payload.get("weapon"), "weapon"),
                b_weapon=_weapon_of(target, action.payload.get("target_weapon"), "target_weapon"),
                faces=faces,
                tables=tables,
                draw_for="a" if draw else None,
            )
            if fight.drawn_by_point:
                own["points"] -= 1
            texts = list(fight.lines)
            for fig, after in ((attacker, fight.a), (target, fight.b)):
                texts.extend(_hits(state, fig, after, [o for o in fight.outcomes if o.target == after.name]))
            rolls = fight.rolls
        else:
            raise _err(f"mode must be shot or brawl; got {mode!r}.", "mode")
    except fp_combat.CombatError as exc:
        raise _err(*exc.in_payload_terms()) from None
    events = [
        Event(
            "resolve",
            " ".join(texts),
            {"attacker": attacker["id"], "target": target["id"], "rolls": [r.as_dict() for r in rolls]},
        )
    ]
    events.extend(_check_wipe(state))
    return events


def _check_wipe(state: dict[str, Any]) -> list[Event]:
    """A side with no figure left on the table has lost; the other Holds the Field."""
    if state["phase"] in ("deploy", "over"):
        return []
    if _is_coop(state):  # the crews are one force (p.40): the enemy's end is checked at the round's end
        if any(_on_table(state, side) for side in SIDES):
            return []
        state.update(phase="over", turn=None, activation=None, held_field="none")
        return [Event("over", "Neither crew has a figure left on the table: the battle is lost (p.40).", {})]
    events = _third_wiped(state)
    gone = [side for side in SIDES if not _on_table(state, side)]
    if not gone:
        return events
    held = "none" if len(gone) == 2 else _other(gone[0])
    state.update(phase="over", turn=None, activation=None, held_field=held)
    if held == "none":
        return [
            *events,
            Event("over", "Neither crew has a figure left on the table: the battle is over and nobody Holds the Field.", {}),
        ]
    return [
        *events,
        Event(
            "over", f"{state['sides'][gone[0]]['name']} has no figure left: {state['sides'][held]['name']} Holds the Field.", {}
        ),
    ]


def _third_wiped(state: dict[str, Any]) -> list[Event]:
    """The third party is gone once every figure of it that came is off the table and no more
    are to come (a later arrival or reinforcements)."""
    third = state["third_party"]
    if not third or third["gone"]:
        return []
    mine = [f for f in state["figures"] if f["side"] == THIRD]
    pending = any(f["status"] == "undeployed" for f in mine) or int(third.get("reinforcement_round") or 0) > state["round"]
    if pending or any(f["status"] == "active" for f in mine):
        return []
    third["gone"] = True
    return [Event("third_party", "The third party has no figure left on the table: it is gone (p.37).", {})]
