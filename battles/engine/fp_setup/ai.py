"""AI Variations (Compendium pp.42-43): an enemy's activation roll and the AI reminder.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from battles.engine.fp_setup.base import AI_BASE_TABLE, AI_TABLE, AI_TYPES, _Feed, _key, _row, _table, _table_roll
from battles.engine.fp_setup.deployment import _column
from campaigns.engine.difficulty import Reminder
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- AI variations ----------------------------------------------------------------------


@dataclass(frozen=True)
class AIActivation:
    """One enemy activation under AI Variations (pp.42-43).

    - ``unchanged``: Beast, Rampage and Guardian AI play as in the core rules (no roll).
    - ``base_condition``: the type's base condition applied, so its action is taken (no roll).
    - ``action``: the row's action key (``advance_fire`` ...), ``"base"`` or ``"core"``;
      ``result`` and ``effect`` in our words; ``roll``: the D6 record when rolled.
    """

    ai_type: str
    unchanged: bool
    base_condition: bool
    action: str
    result: str
    effect: str
    roll: RollRecord | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ai_type": self.ai_type,
            "unchanged": self.unchanged,
            "base_condition": self.base_condition,
            "action": self.action,
            "result": self.result,
            "effect": self.effect,
            "roll": self.roll.as_dict() if self.roll else None,
        }


def ai_variation(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    ai_type: str,
    base_condition: bool = False,
    face: int | None = None,
) -> AIActivation:
    """What an enemy (or a group within 2" of each other) does when selected to act (pp.42-43).

    Check the type's base condition first: pass ``base_condition=True`` when it applies (for a
    group, when any member meets it) and its action is returned without a roll. Otherwise roll
    D6 (or use ``face``) in the AI type's column. ``ai_type`` is one of :data:`AI_TYPES`; types
    without a column are returned ``unchanged``. Raises :class:`SetupError` for an unknown type,
    a missing table or a bad face.
    """
    ai = _key(ai_type, AI_TYPES, "ai_type")
    table = _table(tables, AI_TABLE)
    column = _column(table, ai)
    if column is None:
        return AIActivation(ai, True, False, "core", f"{ai.title()} AI", "AI Variations leave this AI type as in the core rules.")
    if base_condition:
        base = _row(_table(tables, AI_BASE_TABLE), "ai", ai)
        return AIActivation(ai, False, True, "base", f"{column} base condition", base.effect)
    feed = _Feed(None if face is None else [face], "face")
    roll = _table_roll(dice, feed, table, f"AI Variations ({column})", column=column)
    return AIActivation(
        ai, False, False, str(roll.entry.data.get("action", "")), roll.entry.result, roll.entry.effect, roll.record
    )


def ai_reminder(tables: Mapping[str, RangeTable], ai_type: str | None) -> Reminder:
    """A card reminder for AI Variations: the base condition and the D6 rows of ``ai_type``'s
    column (ranges of the same result merged), or, with no or an uncovered type, how to use it."""
    if ai_type is None:
        text = "When an enemy acts, check its AI base condition; if it does not apply, roll D6 in its AI column."
        return Reminder("ai_variations", "AI Variations", text, "pp.42-43")
    ai = _key(ai_type, AI_TYPES, "ai_type")
    table = _table(tables, AI_TABLE)
    column = _column(table, ai)
    if column is None:
        return Reminder("ai_variations", "AI Variations", f"{ai.title()} AI is unchanged: use the core rules.", "pp.42-43")
    base = _row(_table(tables, AI_BASE_TABLE), "ai", ai)
    merged: list[list[Any]] = []
    for entry in table.rows(column):
        if merged and merged[-1][2] == entry.result:
            merged[-1][1] = entry.high
        else:
            merged.append([entry.low, entry.high, entry.result])
    rows = "; ".join(f"{lo if lo == hi else f'{lo}-{hi}'} {name}" for lo, hi, name in merged)
    text = f'Base condition first: {base.effect} Otherwise D6: {rows}. Enemies within 2" of each other share one roll.'
    return Reminder("ai_variations", f"AI Variations ({column})", text, "pp.42-43")
