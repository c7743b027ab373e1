"""What players do at the table outside the round's order: the third party gone, the referee's
seat, retreating, corrections, objectives (pp.36-37).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_pvp.setup import SIDES
from battles.engine.fp_pvp.tracker.base import THIRD, _acting, _err, _fig, _is_coop, _is_referee, _phase, _runs_third, _seated
from battles.engine.fp_pvp.tracker.combat import _check_wipe
from live.engine.tracker import (
    Action,
    Event,
    NotYours,
    Role,
    payload_int,
)
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable


def _third_party_gone(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    if not _runs_third(state, action):
        raise NotYours("The referee says when the third party is gone." if state.get("referee") else "Only a player can say so.")
    third = state["third_party"]
    if _is_coop(state):
        raise _err("The enemy waves leave the table as casualties, by Morale or by retreating, one figure at a time.", "type")
    if not third or third["gone"]:
        raise _err("There is no third party on the table.", "type")
    third["gone"] = True
    return [Event("third_party", "The third party is gone from the table.", {})]


def _seat_referee(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A member of the room who plays neither crew takes the referee's seat (the meeting's
    referee joining once the tracker is open: :func:`battles.pvp_services.referee_join`)."""
    if action.role == Role.VIEWER or _seated(state, action):
        raise NotYours("A player of either crew cannot referee this battle.")
    if state.get("referee"):
        raise _err("This battle already has a referee.", "type")
    state["referee"] = action.actor
    return [Event("referee", "A referee takes the third party's seat: from now on only they run it.", {})]


def _unseat_referee(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The referee leaves their seat, or a host's player frees it (a referee whose device has
    gone): from then on either player runs the third party again (p.37). The meeting's side is
    :func:`battles.pvp_services.referee_leave`."""
    if not state.get("referee"):
        raise _err("This battle has no referee.", "type")
    if not (_is_referee(state, action) or "host" in _seated(state, action)):
        raise NotYours("Only the referee, or the host's players, free the referee's seat.")
    state["referee"] = None
    return [Event("referee", "The referee's seat is free: either player runs the third party again.", {})]


def _retreat(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    _phase(state, "quick", "enemy", "slow", "end", what="Retreating")
    fig = _fig(state, action.payload.get("figure"), "figure")
    _acting(state, action, fig["side"])
    fig["status"] = "retreated"
    return [Event("retreat", f"{fig['name']} retreats off the battlefield edge.", {"figure": fig["id"]}), *_check_wipe(state)]


def _adjust(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    fig = _fig(state, action.payload.get("figure"), "figure", status=None)
    _acting(state, action, fig["side"])
    changes = []
    if action.payload.get("stun") not in (None, ""):
        fig["stun"] = payload_int(action, "stun", low=0, high=9)
        changes.append(f"Stun {fig['stun']}")
    if action.payload.get("status") not in (None, ""):
        status = str(action.payload["status"])
        if status not in ("active", "casualty", "retreated") or fig["status"] == "undeployed":
            raise _err("status must be active, casualty or retreated, for a figure on the table.", "status")
        fig["status"] = status
        if status == "casualty" and fig["side"] == THIRD:
            fig["down_round"] = state["round"]  # it counts for its Morale at the round's end
        changes.append(status)
    if not changes:
        raise _err("Nothing to change: give stun or status.", "stun")
    return [Event("adjust", f"{fig['name']}: {', '.join(changes)}.", {"figure": fig["id"]}), *_check_wipe(state)]


def _objective(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    seated = _seated(state, action)
    side = str(action.payload.get("side") or (seated[0] if len(seated) == 1 else ""))
    if side not in SIDES:
        raise _err("side must be host or guest.", "side")
    _acting(state, action, side)
    if state["phase"] in ("deploy", "over"):
        raise _err("Objectives are completed during the battle.", "type")
    state["sides"][side]["objective_done"] = True
    return [Event("objective", f"{state['sides'][side]['name']} completes its objective.", {"side": side})]
