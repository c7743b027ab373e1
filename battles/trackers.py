"""Tracker kinds of the battles app, registered with the live app."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine import threat
from live.engine.tracker import TrackerError
from live.registry import OptionField, TrackerKind, register, without_tables
from rules.engine.tables import RangeTable


def _names(tables: Mapping[str, RangeTable], slug: str) -> list[str]:
    table = tables.get(slug)
    return [e.result for e in sorted(table.entries, key=lambda e: e.position)] if table else []


def threat_initial_state(options: Mapping[str, Any], *, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """A new combat. ``options``: ``threat`` (1-5, default 3). The threat-to-actions mapping,
    complications and ultra successes come from the threat-tracker ``tables`` when loaded."""
    try:
        level = int(options.get("threat", 3))
    except (TypeError, ValueError):
        raise TrackerError("threat must be a whole number from 1 to 5.", field="threat") from None
    if not 1 <= level <= 5:
        raise TrackerError(f"threat must be from 1 to 5; got {level}.", field="threat")
    levels = tables.get("threat-levels")
    mapping = {
        str(e.data["threat"]): [e.data["offense_actions"], e.data["defence_actions"]] for e in (levels.entries if levels else ())
    }
    return threat.initial_state(
        threat=level,
        mapping=mapping if len(mapping) == 5 else None,
        complications=_names(tables, "threat-complications"),
        ultra_successes=_names(tables, "threat-ultra-successes"),
    )


def register_all() -> None:
    """Register every tracker kind of the battles app with the live app."""
    from battles import fiveparsecs_kind
    from battles.tracker_kinds import mass_combat, stacking, stress

    fiveparsecs_kind.register()
    stacking.register()
    stress.register()
    mass_combat.register()
    register(
        TrackerKind(
            kind="threat",
            title="Combat threat and action tracker",
            app="battles",
            reducer=without_tables(threat.apply),
            initial_state=threat_initial_state,
            release=threat.release,
            template="battles/threat.html",
            system="threat-tracker",
            description="Offense and Defence phases; the combat threat sets the actions per phase.",
            options=(OptionField("threat", "Starting combat threat (1-5)", "int", 3, minimum=1, maximum=5),),
        )
    )
