"""Rolling "1D6 credits" under the Compendium's changes to it.

- Money is Tight (p.32): roll 1D6-1 instead, never below 1; at creation and in play.
- Skulker (p.14): at character creation, a 1D6 credits result is 1D3 instead.

When both apply to a Skulker at creation, the Skulker rolls 1D3 and Money is Tight still takes
1 off, never below 1 (our ruling: each rule changes the roll it names).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice, RollRecord


def credits_roll(
    options: CampaignOptions,
    dice: Dice,
    *,
    reason: str = "Credits",
    species: str = "",
    creation: bool = False,
    faces: Sequence[int] | int | None = None,
) -> RollRecord:
    """Roll one "1D6 credits" result; ``total`` is the credits gained (at least 1).

    ``species`` matters only with ``creation`` (a Skulker rolls 1D3). ``faces`` takes the
    player's physical die. Raises :class:`rules.engine.dice.DiceError` for an impossible face.
    """
    notation = "D3" if creation and species == "skulker" else "D6"
    tight = options.has("money_is_tight")
    record = dice.roll_or_enter(notation, reason, faces=faces, modifier=-1 if tight else 0)
    if tight and (record.total or 0) < 1:
        record = replace(record, modifier=record.modifier + 1 - (record.total or 0), total=1)
    return record
