"""The "stack" tracker kind: a PC with contractors, or identical creatures, rolling as one
(Stacking, p.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine import stacking
from live.engine.tracker import TrackerError
from live.registry import OptionField, TrackerKind, without_tables
from live.registry import register as register_kind


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


def register() -> None:
    """Register the "stack" kind with the live app (calling it twice is harmless)."""
    register_kind(
        TrackerKind(
            kind="stack",
            title="Stacking",
            app="battles",
            reducer=without_tables(stacking.apply),
            release=stacking.release,
            initial_state=initial_state,
            template="battles/stack.html",
            description="A PC and contractors, or a group of identical creatures, make one Loyalty, Combat or Save roll together.",
            options=(
                OptionField(
                    "check_die",
                    "Check die (roll under the summed stat)",
                    "choice",
                    "D100",
                    choices=tuple((die, die) for die in stacking.CHECK_DICE),
                ),
                OptionField("equal_succeeds", "A roll equal to the target succeeds", "bool", False),
                OptionField(
                    "advantage",
                    "Advantage and disadvantage",
                    "choice",
                    "twice",
                    choices=(("twice", "Roll twice, keep the better"), ("shift", "Move the target")),
                ),
                OptionField(
                    "advantage_shift", "Target moves by (when advantage moves the target)", "int", 10, minimum=0, maximum=100
                ),
                OptionField(
                    "remainder",
                    "Spread damage that does not divide evenly",
                    "choice",
                    "target",
                    choices=(("target", "The main target takes it"), ("drop", "It is lost")),
                ),
                OptionField(
                    "zero_health",
                    "At 0 Health",
                    "choice",
                    "down",
                    choices=(("down", "Down"), ("wound", "Take a Wound, Health refills")),
                ),
            ),
        )
    )
