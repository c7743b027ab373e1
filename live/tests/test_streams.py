"""live.streams: django-eventstream's per-stream helpers, made cheaper per device, write exactly
what the library's own write, and are the ones the streams use."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.test import RequestFactory
from django_eventstream import utils as sse_utils
from django_eventstream import views as sse_views
from hypothesis import given
from hypothesis import strategies as st

from live import streams

LIBRARY_ENCODE = streams._library_sse_encode_event
LIBRARY_MAKE_ID = streams._library_make_id

fields = st.text(alphabet=st.sampled_from("ab:-_ \r\n\0é"), max_size=12)


@given(event_type=fields, data=st.text(alphabet=st.sampled_from('ab<>"= \r\n\0é'), max_size=60), event_id=st.none() | fields)
def test_an_event_encodes_as_the_library_encodes_it(event_type: str, data: str, event_id: str | None) -> None:
    assert streams.sse_encode_event(event_type, data, event_id=event_id) == LIBRARY_ENCODE(event_type, data, event_id=event_id)


@pytest.mark.parametrize(
    ("data", "kwargs"),
    [({"room": 1, "version": 2}, {"json_encode": True}), ("a%b\nc", {"escape": True}), (12, {}), ("x\r\ny", {})],
)
def test_what_the_fast_path_does_not_cover_is_the_library_s_own(data: object, kwargs: dict[str, bool]) -> None:
    assert streams.sse_encode_event("version", data, event_id="room-1:3", **kwargs) == LIBRARY_ENCODE(
        "version", data, event_id="room-1:3", **kwargs
    )


def test_the_same_event_is_encoded_once_for_every_stream() -> None:
    html = "<div>\n<p>Tension 3</p>\n</div>" + "x" * 2000
    first = streams.sse_encode_event("tracker", html, event_id="room-9:4")
    streams.sse_encode_event("version", '{"room": 9}', event_id="room-9:4")  # the other event in between
    assert streams.sse_encode_event("tracker", html, event_id="room-9:4") is first  # fails if re-encoded
    assert streams.sse_encode_event("tracker", html, event_id="room-9:5") != first  # another id: its own text
    assert first == LIBRARY_ENCODE("tracker", html, event_id="room-9:4")


channels = st.text(alphabet=st.sampled_from("room-1.ab /%,:é"), min_size=1, max_size=12)


@given(st.dictionaries(channels, st.integers(0, 10**6), max_size=3))
def test_the_last_event_id_is_the_library_s(ids: dict[str, int]) -> None:
    assert streams.make_id(ids) == LIBRARY_MAKE_ID(ids)


def test_a_stream_woken_on_its_own_loop_is_woken_without_the_wake_up_socket() -> None:
    async def scenario() -> tuple[bool, int, bool]:
        listener = streams.LoopListener()
        listener.assign_loop()
        calls = []
        loop = listener.loop
        original = loop.call_soon_threadsafe

        def counting(*args: object) -> object:
            calls.append(args)
            return original(*args)  # type: ignore[arg-type]

        loop.call_soon_threadsafe = counting  # type: ignore[method-assign]
        try:
            listener.wake_threadsafe()  # on the loop: set at once
            set_on_loop, through_socket = listener.aevent.wait().done(), len(calls)
            listener.aevent.clear()
            thread = threading.Thread(target=listener.wake_threadsafe)  # another thread: the library's way
            thread.start()
            thread.join()
            await asyncio.wait_for(listener.aevent.wait(), timeout=5)
            return set_on_loop, through_socket, len(calls) == 1
        finally:
            del loop.call_soon_threadsafe

    set_on_loop, through_socket, from_thread_used_socket = asyncio.run(scenario())
    assert set_on_loop and through_socket == 0
    assert from_thread_used_socket


@given(st.lists(st.sampled_from(["set", "clear", "wait", "cancel"]), max_size=20))
def test_a_wake_event_wakes_as_asyncio_event_does(steps: list[str]) -> None:
    """Waited for as the library's stream does (``ensure_future(aevent.wait())``), the stream's
    :class:`WakeEvent` and ``asyncio.Event`` agree after every step: whether a new wait returns
    at once, and which waiters have woken (a cancelled one stays cancelled)."""

    async def scenario() -> None:
        ours, theirs = streams.WakeEvent(), asyncio.Event()
        waiters: list[tuple[asyncio.Future[bool], asyncio.Future[bool]]] = []
        for step in steps:
            if step == "wait":
                waiters.append((asyncio.ensure_future(ours.wait()), asyncio.ensure_future(theirs.wait())))
            elif step == "cancel" and waiters:
                for waiter in waiters[-1]:
                    waiter.cancel()
            elif step in ("set", "clear"):
                getattr(ours, step)()
                getattr(theirs, step)()
            for _ in range(3):  # asyncio.Event's waiters are tasks: let them run
                await asyncio.sleep(0)
            assert ours.wait().done() == theirs.is_set()  # a new wait returns at once exactly when set
            assert [(a.done(), a.cancelled()) for a, _ in waiters] == [(b.done(), b.cancelled()) for _, b in waiters]
        ours.set()
        theirs.set()  # as the library's stream does when it ends

    asyncio.run(scenario())


def test_a_stream_waits_without_a_task_per_wake() -> None:
    """The library's stream makes a task of each ``aevent.wait()`` with ``asyncio.Event``; with
    the listener's :class:`WakeEvent` the wait is a plain future, taken as it is."""

    async def scenario() -> tuple[int, int, bool]:
        listener = streams.LoopListener()
        listener.assign_loop()
        before = len(asyncio.all_tasks())
        waiter = asyncio.ensure_future(listener.aevent.wait())
        during = len(asyncio.all_tasks())
        listener.wake_threadsafe()
        done, _ = await asyncio.wait([waiter], timeout=5)
        return before, during, waiter in done

    before, during, woken = asyncio.run(scenario())
    assert during == before and woken


def test_the_streams_use_these_helpers() -> None:
    """Installed by LiveConfig.ready: the events view makes LoopListeners, a stream opening looks
    up these encoders."""
    assert sse_views.Listener is streams.LoopListener
    assert sse_utils.sse_encode_event is streams.sse_encode_event
    assert sse_utils.make_id is streams.make_id


def test_the_room_stream_names_its_charset_once(threat_tables, owner) -> None:  # type: ignore[no-untyped-def]
    """Every chunk a stream writes is encoded with the response's charset; named on the response,
    it is not parsed from the Content-Type again for each chunk of each device."""
    from live import services
    from live.views import room_events

    room = services.room_create(user=owner, kind="threat", title="Night shift")
    request = RequestFactory().get(f"/events/rooms/{room.pk}/", {"fragments": "1"}, HTTP_ACCEPT="text/event-stream")
    request.user = owner
    response = room_events(request, room.pk)
    assert response.status_code == 200
    assert response._charset == "utf-8"  # type: ignore[attr-defined]
