"""Reads for shared rooms."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max, Q, QuerySet

from live.models import Membership, Room, RoomAction


def rooms_for(user: Any) -> QuerySet[Room]:
    """Rooms the user owns or is a member of, most recently changed first."""
    return Room.objects.filter(Q(owner=user) | Q(members__user=user)).distinct().order_by("-updated")


def room_log(room: Room, *, limit: int = 200) -> QuerySet[RoomAction]:
    """The room's action log, newest first."""
    return room.actions.select_related("actor").order_by("-version")[:limit]


def members_stamp(room_id: int) -> str:
    """A short text that changes whenever someone joins or leaves ``room_id`` (``"count.last id"``):
    with the version it says whether a device's member list and Played-by choices are current."""
    found = Membership.objects.filter(room_id=room_id).aggregate(count=Count("id"), last=Max("id"))
    return f"{found['count']}.{found['last'] or 0}"
