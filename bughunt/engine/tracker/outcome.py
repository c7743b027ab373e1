"""The mission summed up for the post-battle sequence (Bug Hunt pp.201-202)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bughunt.engine.tracker.base import _all_figures
from bughunt.engine.tracker.rounds import _objectives_done
from bughunt.engine.tracker.screen import mission_success, signals_short

# -- outcome --------------------------------------------------------------------------------------------


def _objectives_done_final(state: Mapping[str, Any]) -> int:
    """Completed Objectives (Vital 2, Critical 3; a Retrieve only if its package was carried out at
    Evac), one less when 4+ Signals were placed and fewer than 2 investigated (p.201)."""
    total = _objectives_done(state)
    if signals_short(state["signals"], state["signals_investigated"]):
        total = max(0, total - 1)
    return total


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The mission summed up for the post-battle sequence (pp.201-202).

    ``casualties``, ``lost_marines`` (left by an edge), ``evacuated`` and ``on_table`` are lists of
    ``{"name", "main", "unit", "trooper_id", "defeated_by"}`` (trooper_id from the setup, if given); ``took_field`` the main characters' names. ``objectives_completed``
    follows :func:`_objectives_done_final`; ``success`` is 2 or more, ``court_martial`` 0.
    ``objective_points`` is the total before the Signals penalty: the post-battle sequence takes
    it with ``signals_initial`` and ``signals_investigated`` and applies the penalty itself
    (:func:`bughunt.engine.campaign.objective_total`), once.
    """

    def who(statuses: tuple[str, ...]) -> list[dict[str, Any]]:
        return [
            {
                "name": f["name"],
                "main": f["main"],
                "unit": u["name"],
                "trooper_id": f.get("trooper_id"),
                "defeated_by": f.get("defeated_by"),
            }
            for u, f in _all_figures(state)
            if f["status"] in statuses
        ]

    done = _objectives_done_final(state)
    return {
        "priority_start": state["priority_start"],
        "priority": state["priority"],
        "objectives_completed": done,
        "objective_points": _objectives_done(state),
        "success": mission_success(done),
        "court_martial": done == 0,
        "took_field": [u["name"] for u in state["units"] if u["kind"] == "character"],
        "casualties": who(("casualty", "knocked_out")),
        "lost_marines": who(("exited",)),
        "evacuated": who(("evacuated",)),
        "on_table": who(("active",)),
        "enemy": state["enemy"]["name"] if state["enemy"] else None,
        "variant": state["variant"]["name"] if state["variant"] else None,
        "movie_magic_used": list(state["movie_magic_used"]),
        "movie_magic_mission": list(state["movie_magic_mission"]),
        "signals_initial": state["signals"],
        "signals_investigated": state["signals_investigated"],
        "rounds": state["round"],
    }
