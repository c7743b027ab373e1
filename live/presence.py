"""Who is at the table: the last time each member's device showed up (opened the room, asked for
the tracker, or kept its event stream open), kept in the cache (Redis when configured, the
process's memory otherwise) and never in the database, so a watching device writes no row."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.core.cache import cache
from django.utils import timezone

# Seen again within this many seconds changes nothing worth showing ("seen 0 minutes ago").
THROTTLE = 30
# A member not seen for a day reads as never seen (the cache forgets them).
REMEMBER = 24 * 60 * 60


def _key(room_id: int, user_id: int) -> str:
    return f"live:seen:{room_id}:{user_id}"


def mark_seen(room_id: int, user_id: int) -> bool:
    """Record that ``user_id`` is watching room ``room_id`` now, at most once per
    :data:`THROTTLE` seconds (one cache round trip otherwise). Returns whether it wrote."""
    if not cache.add(f"{_key(room_id, user_id)}:fresh", True, THROTTLE):
        return False
    cache.set(_key(room_id, user_id), timezone.now(), REMEMBER)
    return True


async def amark_seen(room_id: int, user_id: int) -> bool:
    """:func:`mark_seen` from async code (an open event stream)."""
    if not await cache.aadd(f"{_key(room_id, user_id)}:fresh", True, THROTTLE):
        return False
    await cache.aset(_key(room_id, user_id), timezone.now(), REMEMBER)
    return True


def seen_at(room_id: int, user_ids: Iterable[int]) -> dict[int, datetime]:
    """When each of ``user_ids`` was last seen in the room (one cache round trip); users never
    seen, or not for a day, are left out."""
    keys = {_key(room_id, uid): uid for uid in user_ids}
    found = cache.get_many(list(keys)) if keys else {}
    return {keys[key]: when for key, when in found.items() if isinstance(when, datetime)}
