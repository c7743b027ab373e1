"""Live events: after a change commits, every device watching the room shows it.

Two kinds of channel per room, both behind the room check (:class:`RoomChannelManager`):

- ``room-<id>``: ``version`` ``{room, version}`` (or ``members`` ``{room, members}`` when someone
  joined), for API clients and pages that fetch what they need. Reliable: every event is stored
  in the database in the transaction of the change it announces (:func:`announce`) and
  published once that commits, so a client that reconnects with ``Last-Event-ID`` gets what it
  missed.
- ``room-<id>.<view>`` (:mod:`live.fragments`): the room page's stream. When a ``version`` or
  ``members`` event reaches a process, it renders the room's fragment once per view that has a
  device listening in that process, and queues the HTML (``tracker``) to each of them: phones do
  not refetch. Not stored: a device that was away asks once for the tracker when its stream
  opens again. The room's ``version`` or ``members`` event is queued after the fragments it
  announces, so a page stream (which hears both channels) is written once per action.

A waiting stream holds no database connection: the permission check and the event store close
theirs (on PostgreSQL, give them back to the pool) after reading
(:func:`live.fragments.release_connection`), and the views' channels are never read from the
store.

Without REDIS_URL events fan out inside the one process; with it, through Redis to every
process (django-eventstream's EVENTSTREAM_REDIS).

Redis may go away and come back. Stored events are not lost while Redis is down: the publish
fails quietly, and :class:`ReconnectingRedisListener` (installed by ``LiveConfig.ready``) keeps
trying to resubscribe, with backoff, and meanwhile wakes this process's open streams so that
they read the missed events from the database; when Redis is back, every room watched here is
pushed afresh.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import time
from collections.abc import Sequence
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone
from django_eventstream.channelmanager import DefaultChannelManager
from django_eventstream.event import Event
from django_eventstream.storage import DjangoModelStorage
from django_eventstream.utils import get_storage
from django_eventstream.views import RedisListener, get_listener_manager
from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.backoff import NoBackoff
from redis.retry import Retry

from rules.writes import table_of

logger = logging.getLogger(__name__)

# django-eventstream publishes every event on this one Redis channel; ours carries the Redis
# database number after it (:func:`redis_channel`).
REDIS_CHANNEL = "events_channel"
# Backoff between attempts to reach Redis: from RETRY_FIRST, doubling, at most RETRY_MAX
# seconds, so a returning Redis is heard within RETRY_MAX (plus jitter) seconds.
RETRY_FIRST = 0.5
RETRY_MAX = 8.0
# How long one read waits for a message before it checks the connection's health again.
READ_TIMEOUT = 5.0
HEALTH_CHECK_INTERVAL = 15

ROOM_PREFIX = "room-"
VIEW_SEPARATOR = "."
# The pushed fragment's event, and the one that tells a device its view is gone (reload the page).
FRAGMENT_EVENT = "tracker"
RELOAD_EVENT = "reload"


def redis_channel() -> str:
    """The Redis pub/sub channel this Dropship publishes its events on and listens to:
    ``events_channel:<database number>`` of ``EVENTSTREAM_REDIS``. Redis delivers a message to
    every subscriber on the server whatever database each has selected, so two Dropships sharing
    one Redis server (each on its own database) would otherwise push each other's rooms to their
    devices."""
    return f"{REDIS_CHANNEL}:{settings.EVENTSTREAM_REDIS['db']}"


def room_channel(room_id: int) -> str:
    return f"{ROOM_PREFIX}{room_id}"


def view_channel(room_id: int, view: str) -> str:
    """The channel on which devices of ``view`` (:func:`live.fragments.view_of`) hear the room's
    fragment."""
    return f"{ROOM_PREFIX}{room_id}{VIEW_SEPARATOR}{view}"


def parse_channel(channel: str) -> tuple[int, str] | None:
    """``(room id, view)`` of a room's channel (view ``""`` for the room's own), else ``None``."""
    if not channel.startswith(ROOM_PREFIX):
        return None
    room, _, view = channel.removeprefix(ROOM_PREFIX).partition(VIEW_SEPARATOR)
    if not (room.isascii() and room.isdecimal()):
        return None
    return int(room), view


def announce_room(room_id: int, version: int) -> None:
    """Tell every device on the room's channel that ``version`` is the latest, and push the
    fragment to the devices watching the room page. Call it inside the write's transaction
    (:func:`announce`)."""
    announce(room_id, "version", {"room": room_id, "version": version})


def announce_members(room_id: int) -> None:
    """Tell every device on the room's channel that its members changed without a new version
    (someone joined): ``members`` with ``{room, members}``, the members' stamp
    (:func:`live.selectors.members_stamp`, read inside the transaction, so it counts the change);
    the room page's devices get the fragment pushed. Call it inside the write's transaction."""
    from live.selectors import members_stamp

    announce(room_id, "members", {"room": room_id, "members": members_stamp(room_id)})


def announce(room_id: int, event_type: str, data: dict[str, Any]) -> None:
    """Store ``event_type`` with ``data`` on the room's channel in the current transaction, and
    send it once that transaction commits (nothing is stored or sent if it rolls back).

    The event is written with the change it announces, so the write commits once, as the
    baseline write does, instead of once for the change and once more for its event; and a
    change is never committed without its event. Sending is django-eventstream's ``send_event``
    after its store: with Redis, the same message on the same channel, which every process (this
    one too) hears and pushes (:meth:`ReconnectingRedisListener.dispatch`); without, this process
    is the only one, and :func:`push_room` takes the event as the push's announcement, so a page
    stream is written once per action (the fragment, then the event). (The library's GRIP proxy
    publish is not made: Dropship serves its streams itself.) A dead event bus does not fail the
    committed write: the send is logged and skipped, and devices catch up from the store."""
    channel = room_channel(room_id)
    encoded = json.dumps(data, cls=DjangoJSONEncoder)
    event = get_storage().append_event(channel, event_type, encoded)
    transaction.on_commit(lambda: _send(room_id, channel, event))


def _send(room_id: int, channel: str, event: Event) -> None:
    from django_eventstream import eventstream

    try:
        if hasattr(settings, "EVENTSTREAM_REDIS") and eventstream.redis_client is not None:
            message = {"channel": channel, "event_type": event.type, "data": event.data, "pub_id": str(event.id)}
            eventstream.redis_client.publish(redis_channel(), json.dumps(message))
        else:
            push_room(room_id, announce=(channel, event))
    except Exception:  # a dead event bus must not fail a committed write; devices also poll
        logger.exception("Could not send the %s event of room %s", event.type, room_id)


class RoomChannelManager(DefaultChannelManager):
    """Read permission per channel: only those who may see the room hear its events, and a
    view's channel only those seated in that view. The check reads the database once and closes
    the connection, so a stream holds none while it waits."""

    def can_read_channel(self, user: Any, channel: str) -> bool:
        from live.fragments import release_connection, view_of
        from live.models import Room
        from live.permissions import role_in

        parsed = parse_channel(channel)
        if parsed is None:
            return False
        room_id, view = parsed
        try:
            room = Room.objects.filter(pk=room_id).first()
            role = role_in(room, user) if room is not None else None
        finally:
            release_connection()
        if role is None:
            return False
        return not view or view == view_of(role, getattr(user, "pk", None))

    def is_channel_reliable(self, channel: str) -> bool:
        """The room's channel is stored (clients catch up by ``Last-Event-ID``); a view's is not
        (a reconnecting page asks for the tracker once)."""
        return VIEW_SEPARATOR not in channel


# How often (seconds) a process trims stored events older than django-eventstream's
# ``EVENT_TIMEOUT`` (a day): the library trims on every event, one query each time.
TRIM_EVERY = 60.0


class RoomEventStorage(DjangoModelStorage):
    """django-eventstream's database store, closing the connection after each read a stream
    makes (its first look at a channel, its catch-up), so a waiting stream holds none.

    Storing an event (:meth:`append_event`) is one statement (one round trip, no ``BEGIN`` and
    ``COMMIT`` of its own) where the library takes five queries in a transaction: the channel's
    counter moves on by one (``UPDATE ... RETURNING``; the row lock orders concurrent writers, as
    the library's ``SELECT ... FOR UPDATE`` does) and the event is inserted with that number, in
    one ``WITH`` statement, which is atomic by itself; old events are trimmed once per
    :data:`TRIM_EVERY` seconds instead of at every event, after the write's transaction
    commits. The rows are the library's own (same ids, same placeholder event 0, same encoded
    data), so its reads and catch-up are unchanged.
    """

    _trim_lock = threading.Lock()
    _trimmed_at = 0.0

    def append_event(self, channel: str, event_type: str, data: Any) -> Event:
        from django_eventstream.models import Event as StoredEvent
        from django_eventstream.models import EventCounter

        if connection.vendor != "postgresql":  # one statement needs PostgreSQL's writing WITH: the library's way
            return super().append_event(channel, event_type, data)  # type: ignore[no-any-return]
        counters, events = table_of(EventCounter), table_of(StoredEvent)
        stamp = connection.ops.adapt_datetimefield_value(timezone.now())
        encoded = json.dumps(data, cls=DjangoJSONEncoder)
        columns = "(channel, type, data, eid, created)"
        with connection.cursor() as cursor:
            cursor.execute(
                f"WITH counter AS (UPDATE {counters} SET value = value + 1, updated = %s WHERE name = %s RETURNING value), "
                # the channel's first event: the library's placeholder 0 goes with it
                f"placeholder AS (INSERT INTO {events} {columns} SELECT %s, '', '', 0, %s FROM counter WHERE value = 1) "
                f"INSERT INTO {events} {columns} SELECT %s, %s, %s, value, %s FROM counter RETURNING eid",
                [stamp, channel, channel, stamp, channel, event_type, encoded, stamp],
            )
            row = cursor.fetchone()
        if row is None:  # a channel's first event makes its counter: the library's way, race-safe
            return super().append_event(channel, event_type, data)  # type: ignore[no-any-return]
        eid = int(row[0])
        transaction.on_commit(self._trim_now_and_then)  # not inside a write's transaction
        return Event(channel, event_type, data, id=eid)

    def _trim_now_and_then(self) -> None:
        now = time.monotonic()
        with self._trim_lock:
            if now - RoomEventStorage._trimmed_at < TRIM_EVERY:
                return
            RoomEventStorage._trimmed_at = now
        self.trim_event_log()

    def get_events(self, channel: str, last_id: int, limit: int = 100) -> list[Event]:
        from live.fragments import release_connection

        try:
            return super().get_events(channel, last_id, limit=limit)  # type: ignore[no-any-return]
        finally:
            release_connection()

    def get_current_id(self, channel: str) -> int:
        from live.fragments import release_connection

        try:
            return super().get_current_id(channel)  # type: ignore[no-any-return]
        finally:
            release_connection()


# -- pushing the fragment: once per view with a device listening in this process ---------------

# Rooms being pushed by this process's event loop, each with whether another push was asked
# for meanwhile (the push then runs again, from the newest state: pushes coalesce and never
# overtake each other). Touched on the event loop's thread only.
_pushing: dict[int, bool] = {}
# A room's stored events (``version``, ``members``) heard from Redis while a push of it is due,
# with their channel: queued together with the fragments the push renders, so that a room page's
# stream (which hears both channels) wakes and writes once per action, not twice. Touched on the
# event loop's thread only.
_held: dict[int, list[tuple[str, Event]]] = {}


def local_views(room_id: int) -> set[str]:
    """The room's views that have a stream open in this process."""
    manager = get_listener_manager()
    prefix = f"{room_channel(room_id)}{VIEW_SEPARATOR}"
    with manager.lock:
        return {channel.removeprefix(prefix) for channel in manager.listeners_by_channel if channel.startswith(prefix)}


def watched_rooms() -> set[int]:
    """Rooms with a view's stream open in this process."""
    manager = get_listener_manager()
    with manager.lock:
        channels = list(manager.listeners_by_channel)
    return {parsed[0] for parsed in map(parse_channel, channels) if parsed is not None and parsed[1]}


def _stream_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop this process's streams run on (none while no stream is open)."""
    manager = get_listener_manager()
    with manager.lock:
        for group in manager.listeners_by_channel.values():
            for listener in group:
                if listener.loop is not None:
                    return listener.loop  # type: ignore[no-any-return]
    return None


def push_room(room_id: int, announce: tuple[str, Event] | None = None) -> None:
    """Render the room's fragment once per view watched in this process and queue it to those
    streams, on the streams' event loop (from any thread; nothing to do while none watches).

    ``announce``, a stored event of the room (``(channel, event)``: heard from Redis on the event
    loop, or stored by this process's own write without Redis), is queued to its channel's
    streams with the fragments (after them) when a push follows, at once otherwise: a device then
    hears the fragment and its announcement in one write. Clients of the room's channel alone
    hear it a render later (milliseconds)."""
    loop = _stream_loop() if local_views(room_id) else None
    if loop is None:
        if announce is not None:
            get_listener_manager().add_to_queues(*announce)
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        _hold_and_push(room_id, announce)
    else:  # a request's thread, after its commit (no Redis): the loop holds and pushes
        loop.call_soon_threadsafe(_hold_and_push, room_id, announce)


def _hold_and_push(room_id: int, announce: tuple[str, Event] | None) -> None:
    """On the streams' loop: keep ``announce`` for the room's next push, and ask for one."""
    if announce is not None:
        _held.setdefault(room_id, []).append(announce)
    _request_push(room_id)


def _request_push(room_id: int) -> None:
    if room_id in _pushing:
        _pushing[room_id] = True
        return
    _pushing[room_id] = False
    asyncio.get_running_loop().create_task(_push(room_id))


async def _push(room_id: int) -> None:
    from live.fragments import render_views

    try:
        while True:
            _pushing[room_id] = False
            held = _held.pop(room_id, [])  # the render below shows at least what these announce
            views = local_views(room_id)
            if not views:
                deliver(room_id, {}, held)
                return
            try:
                rendered = await sync_to_async(render_views, thread_sensitive=False)(room_id, views)
            except Exception:  # a failed render must not stop later pushes; devices poll when told
                logger.exception("Could not render room %s for its devices", room_id)
                deliver(room_id, {}, held)
                return
            deliver(room_id, rendered, held)
            if not _pushing.get(room_id):
                return
    finally:
        _pushing.pop(room_id, None)
        deliver(room_id, {}, _held.pop(room_id, []))


def deliver(room_id: int, rendered: dict[str, str | None], announced: Sequence[tuple[str, Event]] = ()) -> None:
    """Queue each view's HTML (``tracker``) to its open streams in this process, then the stored
    events ``announced`` (``(channel, event)``) to theirs; a view mapped to ``None`` is gone, and
    its devices are told to reload (``reload``). Called on the streams' event loop, the queuing
    wakes each stream once."""
    manager = get_listener_manager()
    for view, html in rendered.items():
        channel = view_channel(room_id, view)
        if html is None:
            manager.add_to_queues(channel, Event(channel, RELOAD_EVENT, ""))
        else:
            manager.add_to_queues(channel, Event(channel, FRAGMENT_EVENT, html))
    for channel, event in announced:
        manager.add_to_queues(channel, event)


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
                await pubsub.subscribe(redis_channel())
                if failed:
                    logger.warning("Live events: Redis is back; open streams catch up from the database")
                    wake_open_streams()
                    for room_id in watched_rooms():
                        push_room(room_id)
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
        parsed = parse_channel(str(data["channel"]))
        if parsed is not None and not parsed[1] and data["event_type"] in ("version", "members"):
            push_room(parsed[0], announce=(data["channel"], event))
        else:
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
