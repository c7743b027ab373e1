"""Which tracker kind plays each special mission type (Mission Selection, p.116; Compendium
pp.117-147), keyed by the mission source of :mod:`battles.engine.fp_setup` (``salvage``,
``street_fight``), and what reads them: the set-up generator of each type and the outcome of
each kind's finished state (same keys as the standard battle's ``fp_tracker.outcome``, plus
``won`` and what the chapter pays). Battle types not listed play as a standard
``fiveparsecs-battle``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from battles import salvage_kind, street_kind
from battles.engine import fp_salvage, fp_street

MISSION_TRACKERS: dict[str, str] = {"salvage": salvage_kind.KIND, "street_fight": street_kind.KIND}
MISSION_GENERATORS: dict[str, Callable[..., dict[str, Any]]] = {
    "salvage": fp_salvage.generate,
    "street_fight": fp_street.generate,
}
TRACKER_OUTCOMES: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    salvage_kind.KIND: salvage_kind.outcome,
    street_kind.KIND: street_kind.outcome,
}
