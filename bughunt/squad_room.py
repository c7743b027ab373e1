"""The squad's shared table (``bughunt-squad``), an unlisted, invite-only live room kind.

A Bug Hunt squad owns one room the way a Five Parsecs campaign does: its members are the squad's
co-op members (invited by the owner from the squad page, never by join code), its permission
check guards every squad page and API call, and its state is a short summary of the squad that
phones at the table show. Changes are made on the squad's own pages through
:mod:`bughunt.services`; the room takes no tracker actions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.engine.tracker import Action, Event, TrackerError
from live.registry import Tables
from rules.engine.dice import Dice

KIND = "bughunt-squad"


def reducer(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> tuple[dict[str, Any], list[Event]]:
    """Refuses every action: squad changes go through the squad pages."""
    raise TrackerError("Squad changes are made on the squad's pages, not as table actions.", field="type")


def initial_state(options: Mapping[str, Any]) -> dict[str, Any]:
    """The summary a new squad starts with: ``{"squad": id or None, "name": ..., "turn": 1}``."""
    return {"squad": options.get("squad"), "name": str(options.get("name") or ""), "turn": 1}
