"""The "stack" tracker kind's initial state from options: a PC with contractors, or identical
creatures, rolling as one (Stacking, p.1). The kind itself is in :mod:`tabletools.kinds`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.engine.tracker import TrackerError
from tabletools.engine import stacking


def initial_state(options: Mapping[str, Any]) -> dict[str, Any]:
    """A new stacking table. ``options`` (text, as the room form sends them): ``check_die``
    (D100, D20, D12, D10 or D6; default D100), ``equal_succeeds`` ("on" when ticked: a roll equal
    to the target succeeds), ``advantage`` (twice or shift), ``advantage_shift`` (0-100, default
    10), ``remainder`` (target or drop) and ``zero_health`` (down or wound). Raises
    :class:`TrackerError` naming the bad option. The document leaves these to the host game."""
    chosen = {key: value for key, value in options.items() if key in stacking.DEFAULT_RULES and value not in (None, "")}
    if "advantage_shift" in chosen:
        try:
            chosen["advantage_shift"] = int(chosen["advantage_shift"])
        except (TypeError, ValueError):
            raise TrackerError("advantage_shift must be a whole number from 0 to 100.", field="advantage_shift") from None
    return stacking.initial_state(**chosen)
