"""The mass combat tracker kind: registration and the initial state from options.

The squad types, phases and numbers live in the engine (Quickstart Rules for Mass Combat, p.1);
the options are the table's own: the two sides' names and the Medic saving throw, which the
document leaves to the host game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine import mass_combat
from live import registry
from live.engine.tracker import TrackerError
from live.registry import OptionField, TrackerKind, without_tables


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


def register() -> None:
    """Register the ``mass`` kind with the live app (calling it twice is harmless)."""
    registry.register(
        TrackerKind(
            kind="mass",
            title="Mass combat",
            app="battles",
            reducer=without_tables(mass_combat.apply),
            release=mass_combat.release,
            initial_state=mass_initial_state,
            template="battles/mass.html",
            description="Squads and hero units in rounds of priority, action and reposition; siege engines, barriers and magic circles.",
            options=(
                OptionField("side_a", "Heroes' side", "text", "Heroes"),
                OptionField("side_b", "Other side", "text", "Foes"),
                OptionField(
                    "save_die",
                    "Medic saving throw die",
                    "choice",
                    "D20",
                    choices=tuple((d, d) for d in mass_combat.SAVE_DICE),
                    help="The document leaves the die to your game.",
                ),
                OptionField("save_target", "Medic save succeeds on (die + Medic level)", "int", 10, minimum=1, maximum=30),
            ),
        )
    )
