"""The one permission check for rooms, used by every HTML and API endpoint."""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, Subquery

from live.engine.tracker import Role
from live.models import Membership, Room
from rules.errors import NotAllowed, NotFound
from rules.writes import lock as lock_rows

_RANK = {Role.VIEWER: 0, Role.PLAYER: 1, Role.OWNER: 2}


def role_in(room: Room, user: Any) -> Role | None:
    """The user's role in ``room``: a member's role, viewer for guests when the owner allows
    watching, otherwise ``None``."""
    if user is not None and getattr(user, "is_authenticated", False):
        if room.owner_id == user.pk:
            return Role.OWNER
        membership = Membership.objects.filter(room=room, user=user).only("role").first()
        if membership is not None:
            return Role(membership.role)
    if room.guests_can_watch:
        return Role.VIEWER
    return None


def room_for(user: Any, room_id: int, *, at_least: Role = Role.VIEWER, lock: bool = False) -> tuple[Room, Role]:
    """Load ``room_id`` for ``user`` with at least the role ``at_least``.

    One query: the room (taken for update when ``lock``) with the user's membership role read
    in the same statement.

    Raises :class:`NotFound` when the user may not see the room at all (so outsiders learn
    nothing), and :class:`NotAllowed` when they see it but their role is too low.
    """
    rooms = lock_rows(Room.objects.all()) if lock else Room.objects.all()
    signed_in = user is not None and getattr(user, "is_authenticated", False)
    if signed_in:
        seat = Membership.objects.filter(room=OuterRef("pk"), user_id=user.pk).values("role")[:1]
        rooms = rooms.annotate(seat_role=Subquery(seat))
    room = rooms.filter(pk=room_id).first()
    role = _role(room, signed_in=signed_in, user=user) if room is not None else None
    if room is None or role is None:
        raise NotFound("No such room, or it is not shared with you.")
    if _RANK[role] < _RANK[at_least]:
        raise NotAllowed(f"You are a {role.value} in {room.title}; this needs {at_least.value}.")
    return room, role


def _role(room: Room, *, signed_in: bool, user: Any) -> Role | None:
    """:func:`role_in` from the membership role read with the room (``room.seat_role``)."""
    if signed_in:
        if room.owner_id == user.pk:
            return Role.OWNER
        seat_role = getattr(room, "seat_role", None)
        if seat_role is not None:
            return Role(seat_role)
    if room.guests_can_watch:
        return Role.VIEWER
    return None
