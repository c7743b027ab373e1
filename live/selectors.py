"""Reads for shared rooms."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet

from live import presence
from live.models import Room, RoomAction


@dataclass(frozen=True)
class Seat:
    """One member of a room as the screens show them: ``id`` is the membership's id, ``user_id``
    the user's, ``last_seen`` comes from the presence cache (``None`` when not seen lately)."""

    id: int
    user_id: int
    username: str
    role: str
    last_seen: datetime | None = None


def rooms_for(user: Any) -> QuerySet[Room]:
    """Rooms the user owns or is a member of, most recently changed first."""
    return Room.objects.filter(Q(owner=user) | Q(members__user=user)).distinct().order_by("-updated")


def room_seats(room: Room) -> list[Seat]:
    """The room's members in the order they joined, with their usernames and when they were
    last seen: one query and one cache read, built once per render so the screens' figure and
    member loops read a list instead of querying per figure."""
    rows = list(room.members.order_by("joined", "pk").values_list("pk", "user_id", "user__username", "role"))
    seen = presence.seen_at(room.pk, (user_id for _, user_id, _, _ in rows))
    return [Seat(pk, user_id, username, role, seen.get(user_id)) for pk, user_id, username, role in rows]


def room_log(room: Room, *, limit: int | None = 200) -> QuerySet[RoomAction]:
    """The room's action log, newest first, with each actor's username in the same query;
    ``limit=None`` leaves the slicing to a paginator."""
    entries = room.actions.select_related("actor").order_by("-version")
    return entries if limit is None else entries[:limit]
