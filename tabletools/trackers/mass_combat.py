"""The mass combat tracker kind's initial state from options (the kind is in :mod:`tabletools.kinds`).

The squad types, phases and numbers live in the engine (Quickstart Rules for Mass Combat, p.1);
the options are the table's own: the two sides' names and the Medic saving throw, which the
document leaves to the host game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.engine.tracker import TrackerError
from tabletools.engine import mass_combat


def mass_initial_state(options: Mapping[str, Any]) -> dict[str, Any]:
    """A new battle in set-up. ``options`` (all text, all optional): ``side_a`` (the heroes'
    side, default "Heroes"), ``side_b`` (default "Foes"), ``save_die`` (D6, D10, D12 or D20;
    default D20) and ``save_target`` (1-30, default 10).

    Raises :class:`TrackerError` naming the option at fault."""
    raw = options.get("save_target", 10)
    try:
        target = int(raw if raw not in (None, "") else 10)
    except (TypeError, ValueError):
        raise TrackerError("save_target must be a whole number from 1 to 30.", field="save_target") from None
    return mass_combat.initial_state(
        side_a=str(options.get("side_a") or "Heroes"),
        side_b=str(options.get("side_b") or "Foes"),
        save_die=str(options.get("save_die") or "D20"),
        save_target=target,
    )
