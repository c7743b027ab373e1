"""The room's live fragment (the tracker, with the log and the member list out of band), built for
one device's request or rendered once per *role* and pushed to every device watching.

A device listens on its view's channel; the views of one role share one render:

- ``owner``: the owner's (every figure carries its forms);
- ``player-<user id>``: one channel per seated player, all fed the one *players'* render
  (``shared``): each played figure's controls come inside ``<template data-played-by="<user
  id>">`` (:func:`live.templatetags.seats.seat_controls`), and dropship.js keeps them on that
  player's device only (``data-me``), as it keeps a player's own "Leave" button
  (``data-only-for``). The server still refuses an action on a figure the user does not play;
- ``watch``: one for every viewer and guest (they read; a viewer's own "Leave" button is marked
  ``data-only-for`` and kept by dropship.js on that viewer's device only).

So an action costs at most three renders (owner, players, watchers), whatever the number of
players and devices. A plain page load (and a device's own request for the tracker) is still
rendered for its user. Pushed HTML carries no CSRF token: htmx sends the page's own in a header,
and dropship.js adds it to plain forms.
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
LOG_FRAME = "live/room.html#room-log-frame"
OWNER_VIEW = "owner"
WATCH_VIEW = "watch"
PLAYER_VIEW = "player-"
# Kinds whose tracker template does not mark its players' controls yet ({% seat_controls %}): their
# players' views are still rendered one per player.
PER_PLAYER_KINDS = frozenset({"mass"})


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
    """The fragment of room ``room_id`` for each of ``views``, rendered from the committed state:
    about four queries in all, then one template render per role (owner, players, watchers)
    among the views, the players' views sharing one, and one of the log's lines for all. A view
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
        users: dict[int, Any] = {}
        if room.kind in PER_PLAYER_KINDS:
            wanted_players = {uid for uid in map(_player_id, wanted) if uid is not None} & players
            users = {u.pk: u for u in get_user_model().objects.filter(pk__in=wanted_players)}
        template = get_template(FRAME)
        base = room_context(room, Role.VIEWER, None, seats=seats, pushed=True)
        # The log's lines are the same for every role: rendered once, each role's frame takes them.
        base["log_frame"] = get_template(LOG_FRAME).render(base)
        by_role: dict[Role, str] = {}
        out: dict[str, str | None] = {}
        for view in wanted:
            role = _role_of(view, room, players)
            if role is None:
                out[view] = None
            elif role == Role.PLAYER and room.kind in PER_PLAYER_KINDS:
                user = users[_player_id(view) or 0]
                seat = {"role": role.value, "me": str(user.pk), "user": user, "watch": False, "shared": False}
                out[view] = compact(template.render({**base, **seat}))
            else:
                if role not in by_role:
                    by_role[role] = compact(template.render({**base, **_seat_context(role, room)}))
                out[view] = by_role[role]
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


def _role_of(view: str, room: Room, players: set[int]) -> Role | None:
    """The role whose render ``view`` is fed; ``None`` when nobody holds the view any more."""
    if view == OWNER_VIEW:
        return Role.OWNER
    if view == WATCH_VIEW:
        return Role.VIEWER
    user_id = _player_id(view)
    return Role.PLAYER if user_id is not None and user_id in players else None


class _AnyPlayer:
    """The signed-in user of the players' render: some player, no one in particular (``pk`` is
    ``None``, so no per-user part matches; the players' parts are marked for dropship.js)."""

    is_authenticated = True
    is_anonymous = False
    pk = None
    username = ""


def _seat_context(role: Role, room: Room) -> dict[str, Any]:
    """What differs between the three renders: the role, the user and who ``me`` is."""
    if role == Role.OWNER:
        return {"role": role.value, "me": str(room.owner.pk), "user": room.owner, "watch": False, "shared": False}
    if role == Role.PLAYER:
        return {"role": role.value, "me": "", "user": _AnyPlayer(), "watch": False, "shared": True}
    return {"role": role.value, "me": "", "user": AnonymousUser(), "watch": True, "shared": False}


def _player_id(view: str) -> int | None:
    """The user id of a ``player-<id>`` view; ``None`` for any other."""
    rest = view.removeprefix(PLAYER_VIEW)
    return int(rest) if rest != view and rest.isascii() and rest.isdecimal() else None


def release_connection() -> None:
    """Close this thread's database connection (on PostgreSQL, give it back to the process's
    pool), unless a transaction is using it (a test's).

    Streams and pushes call it after their few reads, so an open stream holds no connection
    while it waits (PostgreSQL's limit is far below the number of phones a server can hold)."""
    if not connection.in_atomic_block:
        connection.close()
