"""The combat threat and action tracker kind's initial state from options and the threat-tracker
tables (the kind is in :mod:`tabletools.kinds`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.engine.tracker import TrackerError
from rules.engine.tables import RangeTable
from tabletools.engine import threat


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
