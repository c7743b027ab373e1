"""The campaign's shared table (``fiveparsecs-campaign``), an unlisted live room kind.

A campaign owns one room. Its members are the campaign's co-op members (invited by the owner
from the campaign page, never by join code: the kind is invite-only), its permission check
guards every campaign page and API call, and its state is a short summary of the campaign (turn,
step, credits, crew) that phones at the table show live. Changes are made on the campaign's own
pages through :mod:`campaigns.services`; the room takes no tracker actions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.engine.tracker import Action, Event, TrackerError
from live.registry import Tables
from rules.engine.dice import Dice

KIND = "fiveparsecs-campaign"


def reducer(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> tuple[dict[str, Any], list[Event]]:
    """Refuses every action: campaign changes go through the campaign pages."""
    raise TrackerError("Campaign changes are made on the campaign's pages, not as table actions.", field="type")


def initial_state(options: Mapping[str, Any]) -> dict[str, Any]:
    """The summary a new campaign starts with: ``{"campaign": id, "name": ...}``."""
    return {"campaign": options.get("campaign"), "name": str(options.get("name") or ""), "turn": 0, "crew": []}
