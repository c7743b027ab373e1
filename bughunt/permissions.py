"""Who may do what with a Bug Hunt squad: the shared table's permission check on the squad's room,
the same as a Five Parsecs campaign's (:mod:`live.permissions`).

Roles map as owner = owner, editor = player, reader = viewer: readers read, editors play the
campaign and its missions, the owner also changes the squad's options, members and who commands
which marine. An outsider gets 404 whatever they ask; a role too low gets 403.
"""

from __future__ import annotations

from typing import Any

from bughunt.models import Mission, Squad
from live.engine.tracker import Role
from live.permissions import EDITOR, READER, ROLE_NAMES, RoomObjectAccess, object_for
from rules.errors import NotFound

__all__ = ["EDITOR", "READER", "ROLE_NAMES", "SquadAccess", "mission_for", "squad_for"]

MISSING_SQUAD = "No such squad, or it is not shared with you."
MISSING_MISSION = "No such mission, or its squad is not shared with you."


def squad_for(user: Any, squad_id: int, *, at_least: Role = Role.VIEWER, lock: bool = False) -> tuple[Squad, Role]:
    """Load ``squad_id`` for ``user`` with at least the role ``at_least`` in the squad's room.

    Raises :class:`rules.errors.NotFound` (field ``squad``) when the user may not see it and
    :class:`rules.errors.NotAllowed` when their role is too low."""
    return object_for(user, Squad.objects.all(), squad_id, at_least=at_least, lock=lock, missing=MISSING_SQUAD, field="squad")


def mission_for(user: Any, mission_id: int, *, at_least: Role = Role.VIEWER, lock: bool = False) -> tuple[Mission, Role]:
    """Load ``mission_id`` for ``user`` with at least the role ``at_least`` in its squad's room
    (the squad is taken for update when ``lock``). Raises :class:`rules.errors.NotFound` (field
    ``mission``) or :class:`rules.errors.NotAllowed` like :func:`squad_for`."""
    squad_id = Mission.objects.filter(pk=mission_id).values_list("squad_id", flat=True).first()
    if squad_id is None:
        raise NotFound(MISSING_MISSION, field="mission")
    try:
        squad, role = squad_for(user, squad_id, at_least=at_least, lock=lock)
    except NotFound:
        raise NotFound(MISSING_MISSION, field="mission") from None
    mission = Mission.objects.select_related("room").get(pk=mission_id)
    mission.squad = squad
    return mission, role


class SquadAccess(RoomObjectAccess):
    """API permission: a signed-in user who may touch the squad or mission named in the URL
    (``squad_id``, ``mission_id``) with the view's role (reads: reader; writes: the view's
    ``write_role``, editor by default), checked before the view validates anything."""

    loaders = {"squad_id": squad_for, "mission_id": mission_for}
