"""Ranges for the numbers users type, shared by the forms, views and API serializers.

Every number a user sends is bounded before it reaches a service: by the database column it is
stored in (an out-of-range value is a server error on PostgreSQL, and beyond 64 bits on SQLite
too) and, tighter, by what the rules allow. Amounts that are added to a stored total (credits,
story points, XP) stay far below the column's limit so that the total cannot overflow either.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

INT_MIN, INT_MAX = -(2**31), 2**31 - 1  # models.IntegerField on PostgreSQL
SMALL_MAX = 2**15 - 1  # models.SmallIntegerField / PositiveSmallIntegerField
ID_MAX = 2**63 - 1  # BigAutoField ids
SEED_MAX = 2**63 - 1  # RoomAction.seed is a BigIntegerField
VERSION_MAX = INT_MAX  # versions are PositiveIntegerFields
MONEY = 1_000_000  # credits, story points, debt and costs per change: far beyond any crew's purse
STAT = 99  # a character's stat, or a change to one; the rules' stats are single digits
FACE_MAX = 100  # one die's face (D100 at most)
ROLL_MAX = 1000  # a roll typed in for a table: dice total with modifiers
TURNS = SMALL_MAX  # turns in Sick Bay (a PositiveSmallIntegerField)
XP = 1_000_000  # experience points, stored in an IntegerField


def range_message(low: int, high: int) -> str:
    """The shared wording of a range error: ``"must be a whole number from 0 to 99"``."""
    return f"must be a whole number from {low} to {high}"


def int_field(low: int, high: int, **kwargs: Any) -> serializers.IntegerField:
    """A DRF integer field bounded to ``low..high`` whose error names both ends of the range
    (DRF answers 400 ``{"<field>": ["Must be a whole number from 0 to 99."]}``)."""
    message = range_message(low, high).capitalize() + "."
    return serializers.IntegerField(
        min_value=low, max_value=high, error_messages={"min_value": message, "max_value": message}, **kwargs
    )
