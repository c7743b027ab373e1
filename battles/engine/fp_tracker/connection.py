"""A played Expanded Connection's battle terms on the live tracker (Compendium pp.82-86).

- ``round_limit`` ("Favor owed" p.82: 6; "Dirt on the employer" p.84: 5): the Connection's job
  must be done by the end of that round. At that round's end the tracker says so and records
  whether an objective was reached in time (``in_time``), which the battle's result carries.
- Late arrivals ("Anonymous tip", p.82): at the end of ``arrival_round`` (4) ``reinforcements``
  (1D6) basic enemies arrive at a random edge (a D6 read as the Escalation table's random edge,
  p.46: 1-2 left, 3-4 right, 5-6 the enemy's), one of them a Specialist when the die shows ``specialist_if_at_least`` (5) or more.

State, only in a battle with such a Connection (built by
:func:`battles.engine.fp_tracker.setup.connection_state`)::

    "connection": {"entry": "Anonymous tip", "page": "p.82", "round_limit": 0 | 5 | 6,
                   "in_time": None | True | False, "arrival_round": 0 | 4,
                   "reinforcements": "1D6", "specialist_if_at_least": 0 | 5, "arrived": False}

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_tracker.base import ESCALATION_EDGE, _edge, _roll, _rolls
from battles.engine.fp_tracker.lookups import _names
from battles.engine.fp_tracker.setup import _add_enemy
from live.engine.tracker import Action, Event, payload_faces
from rules.engine.dice import Dice


def round_end(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """The Connection's round-end terms: late arrivals at the end of ``arrival_round`` (their
    dice typed as ``connection_faces``: the count die, then the edge D6) and the round limit."""
    terms = state.get("connection")
    if not terms:
        return []
    rnd = state["round"]
    events: list[Event] = []
    if terms["arrival_round"] and rnd == terms["arrival_round"] and not terms["arrived"] and state["groups"]:
        typed = payload_faces(action, "connection_faces", 2) or ()
        count = _roll(dice, terms["reinforcements"], f"{terms['entry']}: late arrivals", typed[:1] or None)
        edge = _roll(dice, "1D6", f"{terms['entry']}: arrival edge", typed[1:2] or None)
        group = state["groups"][0]
        number = int(count.total or 0)
        special = bool(terms["specialist_if_at_least"]) and number >= terms["specialist_if_at_least"]
        where = f"the {_edge(ESCALATION_EDGE, int(edge.total or 1))} edge"
        note = f"Arrived at {where} ({terms['entry']}, {terms['page']})"
        figs = [_add_enemy(state, group, "specialist", note=note)] if special else []
        figs += [_add_enemy(state, group, "basic", note=note) for _ in range(number - len(figs))]
        terms["arrived"] = True
        events.append(Event("arrival", f"{terms['entry']}: {number} arrive at {where}: {_names(figs)}.", _rolls(count, edge)))
    if terms["round_limit"] and rnd == terms["round_limit"] and terms["in_time"] is None:
        reached = state["escalation"]["objective_round"]
        terms["in_time"] = reached is not None and reached <= rnd
        said = "the objective was reached in time" if terms["in_time"] else "the objective was not reached in time"
        events.append(Event("round_limit", f"{terms['entry']}: round limit {rnd}: {said} ({terms['page']}).", {}))
    return events


def summary(state: Mapping[str, Any]) -> dict[str, Any]:
    """``{"connection_in_time": bool}`` for the battle's outcome when the Connection set a round
    limit (not yet reached counts as in time only once an objective was reached), else empty."""
    terms = state.get("connection")
    if not terms or not terms["round_limit"]:
        return {}
    in_time = terms["in_time"]
    if in_time is None:
        reached = state["escalation"]["objective_round"]
        in_time = reached is not None and reached <= terms["round_limit"]
    return {"connection_in_time": bool(in_time)}
