"""Reads for shared rooms."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from live.models import Room, RoomAction


def rooms_for(user: Any) -> QuerySet[Room]:
    """Rooms the user owns or is a member of, most recently changed first."""
    return Room.objects.filter(Q(owner=user) | Q(members__user=user)).distinct().order_by("-updated")


def room_log(room: Room, *, limit: int = 200) -> QuerySet[RoomAction]:
    """The room's action log, newest first."""
    return room.actions.select_related("actor").order_by("-version")[:limit]
