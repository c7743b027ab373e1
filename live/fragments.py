"""The room's live fragment (the tracker, with the log and the member list out of band), built for
one device's request or rendered once per *view* and pushed to every device watching.

A view is what one kind of seat sees; every device of that seat gets the same HTML:

- ``owner``: the owner's (every figure carries its forms);
- ``player-<user id>``: one per seated player (forms on the figures they play, ``me``);
- ``watch``: one for every viewer and guest (they read; a viewer's own "Leave" button is marked
  ``data-only-for`` and kept by dropship.js on that viewer's device only).

So an action costs one render per view that has a device listening, whatever the number of
devices. Pushed HTML carries no CSRF token: htmx sends the page's own in a header, and
dropship.js adds it to plain forms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.template.loader import get_template

from live import registry, selectors
from live.engine.tracker import Role
from live.models import Room

LOG_PAGE = 12  # log lines on the room's page, and per "Older entries" step
FRAME = "live/room.html#tracker-frame"
OWNER_VIEW = "owner"
WATCH_VIEW = "watch"
PLAYER_VIEW = "player-"


def view_of(role: Role, user_id: int | None) -> str:
    """The view a device of ``role`` (signed in as ``user_id``) is pushed."""
    if role == Role.OWNER:
        return OWNER_VIEW
    if role == Role.PLAYER and user_id is not None:
        return f"{PLAYER_VIEW}{user_id}"
    return WATCH_VIEW


def room_context(room: Room, role: Role, user: Any, *, seats: list[selectors.Seat] | None = None, **extra: Any) -> dict[str, Any]:
    """What the room's templates need for ``user`` seated as ``role``: members load once (the
    figure loops read ``seats``), the newest :data:`LOG_PAGE` log lines once."""
    tracker = registry.get(room.kind)
    if seats is None:
        seats = selectors.room_seats(room)
    authenticated = bool(getattr(user, "is_authenticated", False))
    return {
        "room": room,
        "role": role.value,
        "state": room.state,
        "tracker": tracker,
        "tracker_template": f"{tracker.template}#tracker",
        "tracker_controls": f"{tracker.template}#controls",
        "me": str(user.pk) if authenticated else "",
        "log": list(selectors.room_log(room, limit=LOG_PAGE)),
        # One action per version: older lines exist exactly when the version passed a page.
        "log_more": room.version > LOG_PAGE,
        "log_before": max(room.version - LOG_PAGE + 1, 1),
        "seats": seats,
        "members_stamp": selectors.members_stamp_of(seats),
        **extra,
    }


def render_views(room_id: int, views: Iterable[str]) -> dict[str, str | None]:
    """The fragment of room ``room_id`` for each of ``views``, rendered once each from the
    committed state: about five queries in all, then one template render per view. A view
    nobody holds any more (the room is gone, the player left or changed role) maps to ``None``:
    its devices must reload.

    Runs in a worker thread of the process that holds the streams; its database connection is
    closed before it returns, so no connection outlives the push."""
    wanted = sorted(set(views))
    try:
        room = Room.objects.select_related("owner").filter(pk=room_id).first()
        if room is None:
            return dict.fromkeys(wanted)
        seats = selectors.room_seats(room)
        players = {seat.user_id for seat in seats if seat.role == Role.PLAYER.value}
        wanted_players = {uid for uid in map(_player_id, wanted) if uid is not None}
        users = {u.pk: u for u in get_user_model().objects.filter(pk__in=wanted_players & players)}
        template = get_template(FRAME)
        base = room_context(room, Role.VIEWER, None, seats=seats, pushed=True)
        out: dict[str, str | None] = {}
        for view in wanted:
            seat = _seat(view, room, users)
            if seat is None:
                out[view] = None
                continue
            role, user = seat
            me = str(user.pk) if user.is_authenticated else ""
            html = template.render({**base, "role": role.value, "me": me, "user": user, "watch": view == WATCH_VIEW})
            out[view] = compact(html)
        return out
    finally:
        release_connection()


_LINE_BREAKS = re.compile(r"\s*\n\s*")


def compact(html: str) -> str:
    """``html`` on one line, without its indentation: every device's stream re-encodes an event
    line by line, so one short line costs each device the least. Whitespace around a line break
    reads as one space in HTML; a fragment with ``<pre>`` or ``<textarea>`` keeps its lines."""
    if "<pre" in html or "<textarea" in html:
        return html
    return _LINE_BREAKS.sub(" ", html).strip()


def _seat(view: str, room: Room, users: dict[int, Any]) -> tuple[Role, Any] | None:
    if view == OWNER_VIEW:
        return Role.OWNER, room.owner
    if view == WATCH_VIEW:
        return Role.VIEWER, AnonymousUser()
    user_id = _player_id(view)
    user = users.get(user_id) if user_id is not None else None
    return (Role.PLAYER, user) if user is not None else None


def _player_id(view: str) -> int | None:
    """The user id of a ``player-<id>`` view; ``None`` for any other."""
    rest = view.removeprefix(PLAYER_VIEW)
    return int(rest) if rest != view and rest.isascii() and rest.isdecimal() else None


def release_connection() -> None:
    """Close this thread's database connection, unless a transaction is using it (a test's).

    Streams and pushes call it after their few reads, so an open stream holds no connection
    while it waits (PostgreSQL's limit is far below the number of phones a server can hold)."""
    if not connection.in_atomic_block:
        connection.close()
