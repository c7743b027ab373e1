"""Which tracker kind plays each special mission type (Compendium pp.117-147), keyed by the
mission source of :mod:`battles.engine.fp_setup` (``salvage``), and what reads them: the set-up
generator of each type and the outcome of each kind's finished state (same keys as the standard
battle's ``fp_tracker.outcome``, plus what the chapter pays)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from battles import salvage_kind
from battles.engine import fp_salvage

MISSION_TRACKERS: dict[str, str] = {"salvage": salvage_kind.KIND}
MISSION_GENERATORS: dict[str, Callable[..., dict[str, Any]]] = {"salvage": fp_salvage.generate}
TRACKER_OUTCOMES: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {salvage_kind.KIND: salvage_kind.outcome}
