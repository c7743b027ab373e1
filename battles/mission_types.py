"""Which tracker kind plays each Mission Selection battle type (p.116), and which engine
function rolls its set-up. Battle types not listed play as a standard ``fiveparsecs-battle``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from battles.engine import fp_street

MISSION_TRACKERS: dict[str, str] = {"street_fight": "fiveparsecs-street-fight"}
MISSION_GENERATORS: dict[str, Callable[..., dict[str, Any]]] = {"street_fight": fp_street.generate}
