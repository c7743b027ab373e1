"""Live events: after a change commits, every device on the room's channel hears
``version`` ``{room, version}`` (or ``members`` ``{room, members}`` when someone joined) over
Server-Sent Events (django-eventstream) and fetches what changed.

Without REDIS_URL events fan out inside the one process; with it, through Redis to every
process (django-eventstream's EVENTSTREAM_REDIS).

Redis may go away and come back. Every event is stored in the database before it is
published (reliable channels), so nothing is lost while Redis is down: the publish fails
quietly, and :class:`ReconnectingRedisListener` (installed by ``LiveConfig.ready``) keeps
trying to resubscribe, with backoff, and meanwhile wakes this process's open streams so that
they read the missed events from the database.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from typing import Any

from django.conf import settings
from django_eventstream import send_event
from django_eventstream.channelmanager import DefaultChannelManager
from django_eventstream.event import Event
from django_eventstream.views import RedisListener, get_listener_manager
from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.backoff import NoBackoff
from redis.retry import Retry

logger = logging.getLogger(__name__)

# django-eventstream publishes every event on this one Redis channel.
REDIS_CHANNEL = "events_channel"
# Backoff between attempts to reach Redis: from RETRY_FIRST, doubling, at most RETRY_MAX
# seconds, so a returning Redis is heard within RETRY_MAX (plus jitter) seconds.
RETRY_FIRST = 0.5
RETRY_MAX = 8.0
# How long one read waits for a message before it checks the connection's health again.
READ_TIMEOUT = 5.0
HEALTH_CHECK_INTERVAL = 15

ROOM_PREFIX = "room-"


def room_channel(room_id: int) -> str:
    return f"{ROOM_PREFIX}{room_id}"


def publish_room(room_id: int, version: int) -> None:
    """Tell every device on the room's channel that ``version`` is the latest."""
    try:
        send_event(room_channel(room_id), "version", {"room": room_id, "version": version})
    except Exception:  # a dead event bus must not fail a committed action; devices also poll
        logger.exception("Could not publish room %s version %s", room_id, version)


def publish_members(room_id: int) -> None:
    """Tell every device on the room's channel that its members changed without a new version
    (someone joined): ``members`` with ``{room, members}``, the members' stamp
    (:func:`live.selectors.members_stamp`)."""
    from live.selectors import members_stamp

    try:
        send_event(room_channel(room_id), "members", {"room": room_id, "members": members_stamp(room_id)})
    except Exception:  # a dead event bus must not fail a committed join; devices also poll
        logger.exception("Could not publish the members of room %s", room_id)


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


def wake_open_streams() -> int:
    """Make every open stream of this process re-read its channels from the event store.

    Uses django-eventstream's own "overflow" path (the one it takes when a stream's queue is
    full): a woken stream drops what is queued and reads the database from its last event id,
    so it catches up on events that never reached it through Redis. Returns how many streams
    were woken.
    """
    manager = get_listener_manager()
    with manager.lock:
        listeners = {listener for group in manager.listeners_by_channel.values() for listener in group}
        for listener in listeners:
            listener.overflow = True
    for listener in listeners:
        listener.wake_threadsafe()
    return len(listeners)


class ReconnectingRedisListener(RedisListener):
    """django-eventstream's Redis subscriber, made to survive a Redis restart.

    The library's listener subscribes once; when Redis goes away its task dies with a
    ConnectionError and this process never hears Redis again until it restarts. This one
    loops: subscribe, dispatch messages to the local streams, and on any error wait (backoff
    with jitter) and subscribe again on a fresh connection. While Redis is unreachable, and
    once more when it is back, it wakes the open streams (:func:`wake_open_streams`) so that
    they catch up from the database, where every event is stored first.
    """

    def __init__(self) -> None:
        # The parent builds one client for good; this listener builds one per attempt.
        self.redis_client = None
        self.pubsub = None

    async def start(self) -> None:
        """Run until cancelled: the task ``ListenerManager.add_listener`` starts once per process."""
        delay = RETRY_FIRST
        failed = False
        while True:
            client = AsyncRedis(**settings.EVENTSTREAM_REDIS, health_check_interval=HEALTH_CHECK_INTERVAL)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(REDIS_CHANNEL)
                if failed:
                    logger.warning("Live events: Redis is back; open streams catch up from the database")
                    wake_open_streams()
                failed, delay = False, RETRY_FIRST
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=READ_TIMEOUT)
                    if message is not None and message.get("type") == "message":
                        self.dispatch(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any failure: the loop is what keeps live push alive
                if not failed:
                    logger.warning("Live events: lost Redis (%s); retrying, streams read the database meanwhile", exc)
                failed = True
            finally:
                await _close_quietly(pubsub, client)
            wake_open_streams()
            await asyncio.sleep(delay + random.uniform(0, delay / 2))
            delay = min(delay * 2, RETRY_MAX)

    def dispatch(self, raw: bytes | str) -> None:
        """Queue one published event (django-eventstream's JSON shape) for the local streams.

        A malformed message is logged and skipped: it must not end the subscription.
        """
        try:
            data = json.loads(raw)
            event = Event(data["channel"], data["event_type"], data["data"], id=data["pub_id"])
        except (ValueError, KeyError, TypeError):
            logger.exception("Live events: skipped a malformed Redis message")
            return
        get_listener_manager().add_to_queues(data["channel"], event)


async def _close_quietly(pubsub: Any, client: AsyncRedis) -> None:
    try:
        await pubsub.aclose()
        await client.aclose()
    except Exception:  # closing a connection that is already gone may fail; nothing to do
        logger.debug("Live events: error while closing a Redis connection", exc_info=True)


def install_reconnecting_redis() -> None:
    """Swap django-eventstream's Redis listener and publisher for outage-tolerant ones.

    Does nothing without ``EVENTSTREAM_REDIS`` (one process, in-process fan-out). The
    publisher gets one immediate retry (a restart closes its pooled connection) instead of
    redis-py's ten with backoff, which would hold every write for seconds while Redis is down.
    """
    if not hasattr(settings, "EVENTSTREAM_REDIS"):
        return
    from django_eventstream import eventstream

    manager = get_listener_manager()
    if not isinstance(manager.redis_listener, ReconnectingRedisListener):
        manager.redis_listener = ReconnectingRedisListener()
    eventstream.redis_client = Redis(**settings.EVENTSTREAM_REDIS, retry=Retry(NoBackoff(), 1))
