"""The Stealth mission tracker (Compendium pp.117-122): the Five Parsecs battle tracker's state
(:mod:`battles.engine.fp_tracker`) with a ``stealth`` part, and a reducer that plays Stealth
rounds until the alarm and normal battle rounds after it.

Pure Python: no Django imports.

The package: :mod:`.base` (numbers and helpers), :mod:`.setup` (the first state),
:mod:`.detection` (the alarm, spotting, patrols), :mod:`.objective` (tools, the objective,
exfiltration) and :mod:`.reducer` (the handlers, :func:`apply`, :func:`outcome`).
"""

from __future__ import annotations

from battles.engine.fp_stealth.tracker.base import STATUSES
from battles.engine.fp_stealth.tracker.reducer import ACTIONS, apply, outcome, release, stealth_moves
from battles.engine.fp_stealth.tracker.setup import initial_state

__all__ = ["ACTIONS", "STATUSES", "apply", "initial_state", "outcome", "release", "stealth_moves"]
