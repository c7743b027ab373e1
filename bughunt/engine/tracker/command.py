"""Whose marine is this: who may act with a unit at the mission tracker (co-op play).

The table's owner referees and acts with every figure; a player acts only with the units given
to them (``unit["owner"]`` is their user id as text, set from the squad's marine assignments or
by the referee's ``set_player``); a viewer watches. Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.engine.tracker import Action, NotYours, Role, TrackerError


class NotYourMarine(TrackerError):
    """A player named a unit given to someone else: a bad request (400) naming the payload key
    and who commands the unit, unlike a role too low (:class:`NotYours`, 403)."""


def commands(action: Action, unit: Mapping[str, Any]) -> None:
    """Refuse unless the actor may act with ``unit``: the owner always, a player when the unit
    is theirs. Raises :class:`NotYours` for a viewer and :class:`NotYourMarine` naming ``figure``
    (or ``unit``, whichever the payload used) and the unit's commander for another's unit."""
    if action.role == Role.OWNER:
        return
    if action.role != Role.PLAYER:
        raise NotYours("Viewers cannot act at this table.")
    owner = str(unit.get("owner") or "")
    if owner and owner == action.actor:
        return
    who = "the referee" if not owner else "another player"
    field = "figure" if "figure" in action.payload else "unit"
    raise NotYourMarine(
        f"{unit['name']} is not one of your figures: {who} commands them. Act with the marines given to you.", field=field
    )
