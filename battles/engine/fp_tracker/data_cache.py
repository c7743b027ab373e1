"""The Quest step "Cache in a bad place" (Expanded Quest Progression 54-65, Compendium p.79) on
the live tracker.

The crew set up in the middle of the table with no objective; no enemy begins on the table. In
every Enemy Action phase one basic enemy of the (Roving Threat) force arrives at the center of
every table edge. When each round ends the crew roll 1D6 and add it to a
running score (+1 with an Engineer in the crew); once the score reaches the target (28) the crew
may end the mission and claim the Quest Rumor. An empty table does not end this battle: more
keep coming.

State, only in such a battle (built by :func:`battles.engine.fp_tracker.setup.data_cache_state`)::

    "data_cache": {"score": 0, "target": 28, "bonus": 0 | 1, "reached": False, "rolls": 0}

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_tracker.base import _roll, _rolls
from battles.engine.fp_tracker.setup import _add_enemy
from live.engine.tracker import Action, Event, payload_faces
from rules.engine.dice import Dice

SOURCE = "p.79"
#: The four battlefield edges, in the order the arrivals are placed.
EDGES = ("north", "east", "south", "west")


def arrivals(state: dict[str, Any]) -> list[Event]:
    """The Enemy Action phase of a data cache battle: one basic enemy of the first group at the
    center of each edge (p.79). None when the battle is not one, or no group is left to send."""
    cache = state.get("data_cache")
    if not cache or not state["groups"]:
        return []
    group = state["groups"][0]
    added = [_add_enemy(state, group, "basic", note=f"Arrived at the center of the {edge} edge ({SOURCE})") for edge in EDGES]
    names = ", ".join(f["name"] for f in added)
    return [Event("arrivals", f"Four {group['name']} arrive, one at the center of each edge: {names} ({SOURCE}).", {})]


def round_end(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """The end-of-round roll (1D6, typed as ``cache_face``) added to the score, +``bonus``
    with an Engineer; once the score reaches the target the crew may end the mission."""
    cache = state.get("data_cache")
    if not cache:
        return []
    record = _roll(dice, "1D6", "Data cache: round score", payload_faces(action, "cache_face", 1))
    gained = int(record.total or 0) + int(cache["bonus"])
    cache["score"] += gained
    cache["rolls"] += 1
    bonus = f" +{cache['bonus']} (Engineer)" if cache["bonus"] else ""
    text = f"Data cache: rolled {record.total}{bonus}; score {cache['score']} of {cache['target']}."
    if cache["score"] >= cache["target"] and not cache["reached"]:
        cache["reached"] = True
        text += " The crew have what they came for: end the mission to claim the Quest Rumor."
    return [Event("data_cache", text, {"score": cache["score"], **_rolls(record)})]


def end_default(state: Mapping[str, Any]) -> bool | None:
    """Whether ending a data cache battle now completes it (the score reached its target), or
    None for any other battle."""
    cache = state.get("data_cache")
    return bool(cache["reached"]) if cache else None
