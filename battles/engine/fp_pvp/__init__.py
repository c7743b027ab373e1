"""Player versus player battles (Compendium pp.35-38): two players' crews meet.

- :mod:`.setup`: what the chapter fixes before the first round (Power Rating, initiative
  points, Seize the Initiative, deployment order, First Player token, the three-way battle's
  third party): :func:`generate`.
- :mod:`.tracker`: the live battle, a reducer over a JSON-ready state in the style of
  :mod:`battles.engine.fp_tracker`: alternating deployment, Reaction rolls in turn, Quick and
  Slow phases alternating one or two figures per player, initiative points, the end-of-round
  2D6, ending by agreement: :func:`initial_state`, :func:`apply`, :func:`outcome`; and the
  expanded co-op battle's mode (pp.39-41), the two crews against waves.
- :mod:`.coop`: the co-op battle's enemy waves (p.40): :func:`.coop.coop_waves`.

Pure Python: no Django imports.
"""

from __future__ import annotations

from battles.engine.fp_pvp.setup import (
    MOST_CREW,
    SIDES,
    PvpError,
    Rating,
    Seize,
    crew_count,
    generate,
    initiative_for_difference,
    power_rating,
)
from battles.engine.fp_pvp.tracker import COOP, POINT_USES, apply, initial_state, outcome

__all__ = [
    "COOP",
    "MOST_CREW",
    "POINT_USES",
    "SIDES",
    "PvpError",
    "Rating",
    "Seize",
    "apply",
    "crew_count",
    "generate",
    "initial_state",
    "initiative_for_difference",
    "outcome",
    "power_rating",
]
