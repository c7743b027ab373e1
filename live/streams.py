"""Less work per device for each event a stream writes: django-eventstream's per-stream helpers,
the same bytes on the wire.

An event pushed to a room's page reaches every open stream, and django-eventstream's stream loop
encodes and writes it once per stream: that work grows with the phones watching, where the
render does not (``benchmarks/live_fanout.py``: with 200 phones on one room it was most of what
an action cost the server). Installed by ``LiveConfig.ready`` (:func:`install`):

- :func:`sse_encode_event`: the library's encoder without its regex split per line, and the
  recent events' texts kept, so the streams that write the same event (a view's fragment, the
  room's ``version``) encode it once;
- :func:`make_id`: the library's ``Last-Event-ID`` builder with each channel's quoted name kept;
- :class:`LoopListener`: a stream waits for its next event on a future (:class:`WakeEvent`), not
  on a new task per event, and is woken directly from its own event loop, not through the
  loop's wake-up socket.

The tests compare each with the library's own (or asyncio's) on the same input.
"""

from __future__ import annotations

import asyncio
import re
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from django_eventstream import utils as sse_utils
from django_eventstream import views as sse_views
from django_eventstream.views import Listener

_library_sse_encode_event = sse_utils.sse_encode_event
_library_make_id = sse_utils.make_id
_UNSAFE_IN_FIELD = re.compile(r"[\r\n\0]")
# The events encoded lately: (type, id, id() of the data) -> (the data, its text). The data is
# kept, so its id() cannot be reused while its entry lives; emptied when it reaches _RECENT.
_recent: dict[tuple[str, Any, int], tuple[str, str]] = {}
_RECENT = 32


def sse_encode_event(event_type: Any, data: Any, event_id: Any = None, escape: bool = False, json_encode: bool = False) -> str:
    """django-eventstream's ``sse_encode_event`` (``event:``, ``id:`` when given, one ``data:``
    line per line of ``data``, a blank line), the same text out.

    Data that is a string without a carriage return (a pushed fragment, a stored event's JSON)
    is split at its line feeds by ``str.replace``, where the library runs ``re.split`` (about
    2.6 us per kB, once per stream); an event asked for again (the same ``data`` object, type and
    id: the view's next stream) gets the text already made. Anything else (escaping, JSON
    encoding, other data) goes to the library's own function."""
    if escape or json_encode or type(data) is not str or "\r" in data:
        return _library_sse_encode_event(event_type, data, event_id=event_id, escape=escape, json_encode=json_encode)  # type: ignore[no-any-return]
    key = (event_type, event_id, id(data))
    known = _recent.get(key)
    if known is not None and known[0] is data:
        return known[1]
    head = f"event: {_UNSAFE_IN_FIELD.sub('', str(event_type))}\n"
    if event_id is not None:
        cleaned = _UNSAFE_IN_FIELD.sub("", str(event_id))
        if cleaned:
            head += f"id: {cleaned}\n"
    text = head + "data: " + data.replace("\n", "\ndata: ") + "\n\n"
    if len(_recent) >= _RECENT:
        _recent.clear()
    _recent[key] = (data, text)
    return text


@lru_cache(maxsize=4096)
def _quoted(channel: str) -> str:
    return quote(channel)


def make_id(ids: dict[str, Any]) -> str:
    """django-eventstream's ``make_id``: ``channel:last id`` pairs, comma-separated, each channel
    URL-quoted (the quoting kept per channel name)."""
    return ",".join(f"{_quoted(channel)}:{last}" for channel, last in ids.items())


class WakeEvent:
    """``asyncio.Event`` as the library's stream uses it (``set``, ``clear``, ``wait``), where
    ``wait()`` hands back a future instead of a coroutine.

    The library's stream waits for each wake with ``asyncio.ensure_future(aevent.wait())``: with
    ``asyncio.Event`` that is a new task per stream per event; a future is taken as it is. Its
    waiters are resolved by ``set`` (a waiter cancelled or abandoned meanwhile is skipped). Not
    thread-safe, like ``asyncio.Event``: set it on its loop."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[bool]] = []

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(True)

    def clear(self) -> None:
        self._set = False

    def wait(self) -> asyncio.Future[bool]:
        """A future that resolves (to ``True``) once the event is set: at once if it is."""
        waiter = asyncio.get_running_loop().create_future()
        if self._set:
            waiter.set_result(True)
        else:
            self._waiters.append(waiter)
        return waiter


class LoopListener(Listener):
    """django-eventstream's stream listener, waited for without a task per wake
    (:class:`WakeEvent`), and woken directly when the waker already runs on the stream's event
    loop (:func:`live.events.deliver`, the Redis subscriber), instead of through
    ``call_soon_threadsafe``, which writes to the loop's wake-up socket once per stream and has
    the loop read it back. From another thread it wakes the library's way."""

    def __init__(self) -> None:
        super().__init__()
        self.aevent = WakeEvent()

    def wake_threadsafe(self) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not None and running is self.loop:
            self.aevent.set()
        else:
            super().wake_threadsafe()


def install() -> None:
    """Have django-eventstream's streams use this module's helpers: a stream looks the encoder
    and ``make_id`` up in ``django_eventstream.utils`` when it opens; the events view makes a
    ``Listener`` per stream."""
    sse_utils.sse_encode_event = sse_encode_event
    sse_utils.make_id = make_id
    sse_views.Listener = LoopListener
