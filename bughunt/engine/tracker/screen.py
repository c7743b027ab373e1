"""What the mission tracker's screen shows that the rules decide (Bug Hunt pp.189-201): when Evac
may be called, whether Delay and Distract are in force, which enemies may not act yet, whether
the Precursor explorer may still re-roll, the Signals shortfall and mission success. The
templates ask these functions instead of comparing numbers themselves; the reducer's handlers
refuse the same things with a message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bughunt.engine.tracker.base import EVAC_FROM_ROUND

MISSION_SUCCESS = 2
"""A mission succeeds with 2 or more Objective points (p.201, ``bh-mission-success``)."""
SIGNALS_RULE_FROM = 4
"""A mission that began with 4 or more Signals ... (p.201)"""
SIGNALS_TO_INVESTIGATE = 2
"""... must have 2 of them investigated before Evac, or its Objective total drops by 1 (p.201)."""
EVAC_CALLABLE: tuple[str, ...] = ("none", "left")
"""Evac states in which it may be requested (again): never called, or the drop ship left (p.201)."""


def evac_can_be_called(state: Mapping[str, Any]) -> bool:
    """Whether a trooper may request Evac now (p.201): from round 5 on, when no drop ship is on
    its way or waiting (never called, or it has left). Stun is checked per figure."""
    return state["round"] >= EVAC_FROM_ROUND and state["evac"]["status"] in EVAC_CALLABLE


def signals_short(signals: int, investigated: int) -> bool:
    """Whether the Signals rule costs an Objective point (p.201): the mission began with 4 or
    more Signals and fewer than 2 were investigated."""
    return signals >= SIGNALS_RULE_FROM and investigated < SIGNALS_TO_INVESTIGATE


def mission_success(objectives_completed: int) -> bool:
    """Whether an Objective total (Vital counted 2, Critical 3, after the Signals rule) makes the
    mission a success (p.201): 2 or more."""
    return objectives_completed >= MISSION_SUCCESS


def delay_in_force(state: Mapping[str, Any]) -> bool:
    """Whether a Delay Tactical Location (p.191) still keeps new Contact markers off the table:
    up to the end of round ``delay_until``."""
    return bool(state.get("delay_until")) and state["round"] <= state["delay_until"]


def distracted(state: Mapping[str, Any]) -> bool:
    """Whether enemies within 18" are Distracted this round (a Distract Tactical Location, p.191):
    they skip this round's Enemy Action phase."""
    return state.get("distract_round") == state["round"]


def distract_ahead(state: Mapping[str, Any]) -> bool:
    """Whether an activated Distract location's Enemy Action phase is still to come (p.191):
    enemies revealed within 18" before it are Distracted too."""
    rnd, when = state["round"], state.get("distract_round")
    return when is not None and (when > rnd or (when == rnd and state["phase"] in ("start", "quick", "enemy")))


def begun(state: Mapping[str, Any]) -> list[str]:
    """Ids of the units a figure of which has moved or taken its Combat Action this round: they
    have started acting and can no longer hold for Snap Fire (p.198)."""
    rnd = state["round"]
    return [
        u["id"] for u in state.get("units", ()) if any(rnd in (f.get("moved_round"), f.get("combat_round")) for f in u["figures"])
    ]


def new_enemies(state: Mapping[str, Any]) -> list[str]:
    """Ids of the enemies on the table placed this round: they cannot act in the round they were
    placed (pp.193, 196)."""
    return [
        e["id"]
        for g in state.get("groups", ())
        for e in g["figures"]
        if e["status"] == "active" and e.get("placed_round") == state["round"]
    ]


def precursor_reroll_open(state: Mapping[str, Any]) -> bool:
    """Whether the Precursor explorer (p.189) may re-roll one Reaction die now: at the start of a
    round, once the dice are rolled, once a round, while an active explorer is on the table."""
    if state["phase"] != "start" or not state.get("reaction_dice") or state.get("precursor_round") == state["round"]:
        return False
    return any(
        "precursor" in f["special"] and f["status"] == "active" for u in state["units"] if u["active"] for f in u["figures"]
    )


def drop_ship_fired(state: Mapping[str, Any]) -> bool:
    """Whether the waiting drop ship has already given its supporting fire this round (once a
    round, p.201)."""
    return state["evac"].get("fired_round") == state["round"]


def screen(state: Mapping[str, Any]) -> dict[str, Any]:
    """Everything above for one state, as the tracker template reads it::

    {"evac_can_be_called": bool, "delay_in_force": bool, "distracted": bool, "distract_ahead": bool,
     "new_enemies": ["e3", ...], "begun": ["u1", ...], "precursor_reroll_open": bool, "signals_short": bool,
     "drop_ship_fired": bool, "next_round": 4}
    """
    return {
        "evac_can_be_called": evac_can_be_called(state),
        "delay_in_force": delay_in_force(state),
        "distracted": distracted(state),
        "distract_ahead": distract_ahead(state),
        "new_enemies": new_enemies(state),
        "begun": begun(state),
        "precursor_reroll_open": precursor_reroll_open(state),
        "signals_short": signals_short(state.get("signals", 0), state.get("signals_investigated", 0)),
        "drop_ship_fired": drop_ship_fired(state),
        "next_round": state["round"] + 1,
    }
