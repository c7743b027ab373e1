"""Live events: after a change commits, every device on the room's channel hears
``{room, version}`` over Server-Sent Events (django-eventstream) and fetches what changed.

Without REDIS_URL events fan out inside the one process; with it, through Redis to every
process (django-eventstream's EVENTSTREAM_REDIS).
"""

from __future__ import annotations

import logging
from typing import Any

from django_eventstream import send_event
from django_eventstream.channelmanager import DefaultChannelManager

logger = logging.getLogger(__name__)

ROOM_PREFIX = "room-"


def room_channel(room_id: int) -> str:
    return f"{ROOM_PREFIX}{room_id}"


def publish_room(room_id: int, version: int) -> None:
    """Tell every device on the room's channel that ``version`` is the latest."""
    try:
        send_event(room_channel(room_id), "version", {"room": room_id, "version": version})
    except Exception:  # a dead event bus must not fail a committed action; devices also poll
        logger.exception("Could not publish room %s version %s", room_id, version)


class RoomChannelManager(DefaultChannelManager):
    """Read permission per channel: only those who may see the room hear its events."""

    def can_read_channel(self, user: Any, channel: str) -> bool:
        from live.models import Room
        from live.permissions import role_in

        if not channel.startswith(ROOM_PREFIX):
            return False
        try:
            room = Room.objects.get(pk=int(channel.removeprefix(ROOM_PREFIX)))
        except (Room.DoesNotExist, ValueError):
            return False
        return role_in(room, user) is not None
