"""The one permission check for rooms, used by every HTML and API endpoint."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from django.db import connection, transaction
from django.db.models import Model, OuterRef, QuerySet, Subquery
from rest_framework.permissions import SAFE_METHODS, IsAuthenticated

from live.engine.tracker import Role
from live.models import Membership, Room
from rules.bounds import ID_MAX
from rules.errors import NotAllowed, NotFound
from rules.selectors import tables_version_column
from rules.writes import RowShape
from rules.writes import lock as lock_rows

_RANK = {Role.VIEWER: 0, Role.PLAYER: 1, Role.OWNER: 2}

# An app whose object owns a room (a campaign, a Bug Hunt squad) shares it through that room's
# members, named in the app's own words: owner, editor (a player at the table), reader (a viewer).
EDITOR = Role.PLAYER
READER = Role.VIEWER
ROLE_NAMES = {Role.OWNER: "owner", Role.PLAYER: "editor", Role.VIEWER: "reader"}


def role_in(room: Room, user: Any) -> Role | None:
    """The user's role in ``room``: a member's role, viewer for guests when the owner allows
    watching, otherwise ``None``."""
    if user is not None and getattr(user, "is_authenticated", False):
        if room.owner_id == user.pk:
            return Role.OWNER
        membership = Membership.objects.filter(room=room, user=user).only("role").first()
        if membership is not None:
            return Role(membership.role)
    if room.guests_can_watch:
        return Role.VIEWER
    return None


# room_for's statement, compiled by the ORM once per shape (database, locked or not, signed in or
# not, with the tables version or not) and then run with each call's ids: building it anew cost
# 2 ms of CPU per tracker action, three times the query. The ORM compiles it with these two
# placeholder ids, which no real id equals (rooms and users count up from 1), and the call's
# ids take their places.
_USER_ID, _ROOM_ID = -2_101_000_001, -2_101_000_002
# A shape: (database vendor, lock, signed in, tables_token).
_Shape = tuple[str, bool, bool, bool]
_ROOM_SQL: dict[_Shape, tuple[str, tuple[Any, ...]]] = {}
# How each shape's rows become a Room (with ``seat_role`` and ``tables_token`` set when read).
_ROOM_SHAPE: dict[_Shape, RowShape] = {}


def _room_statement(key: _Shape) -> tuple[str, tuple[Any, ...]]:
    found = _ROOM_SQL.get(key)
    if found is None:
        _vendor, lock, signed_in, tables_token = key
        # initial_state (only a replay of the log reads it) stays in the database: one JSON document
        # less to decode per read; a replay loads it when it asks.
        rooms = (lock_rows(Room.objects.all()) if lock else Room.objects.all()).defer("initial_state")
        if signed_in:
            seat = Membership.objects.filter(room=OuterRef("pk"), user_id=_USER_ID).values("role")[:1]
            rooms = rooms.annotate(seat_role=Subquery(seat))
        if tables_token:
            rooms = rooms.annotate(tables_token=tables_version_column())
        with transaction.atomic():  # a locking statement compiles inside a transaction only
            sql, params = rooms.filter(pk=_ROOM_ID)[:1].query.sql_with_params()
        assert params.count(_ROOM_ID) == 1 and params.count(_USER_ID) == int(signed_in), (sql, params)
        found = _ROOM_SQL[key] = (sql, tuple(params))
    return found


def room_for(
    user: Any, room_id: int, *, at_least: Role = Role.VIEWER, lock: bool = False, tables_token: bool = False
) -> tuple[Room, Role]:
    """Load ``room_id`` for ``user`` with at least the role ``at_least``.

    One query: the room (taken for update when ``lock``; its ``initial_state`` deferred) with
    the user's membership role read in the same statement, and with ``tables_token`` the rule
    tables' version too (set on the room as ``tables_token``; see
    :func:`rules.selectors.tables_version_column`), so that a tracker action reads its tables
    from memory without a query of its own.

    Raises :class:`NotFound` when the user may not see the room at all (so outsiders learn
    nothing), and :class:`NotAllowed` when they see it but their role is too low.
    """
    signed_in = user is not None and getattr(user, "is_authenticated", False)
    if not 0 < room_id <= ID_MAX:  # no such row: PostgreSQL would refuse a number past bigint itself
        raise NotFound("No such room, or it is not shared with you.")
    key = (connection.vendor, lock, signed_in, tables_token)
    sql, params = _room_statement(key)
    ids = {_ROOM_ID: room_id, _USER_ID: user.pk if signed_in else None}
    with connection.cursor() as cursor:
        cursor.execute(sql, [ids.get(p, p) if isinstance(p, int) else p for p in params])
        row = cursor.fetchone()
        shape = _ROOM_SHAPE.get(key)
        if shape is None:  # the statement's columns: the room's fields and the annotations
            shape = _ROOM_SHAPE[key] = RowShape(Room, [column[0] for column in cursor.description])
    room = shape.build(row) if row is not None else None
    role = _role(room, signed_in=signed_in, user=user) if room is not None else None
    if room is None or role is None:
        raise NotFound("No such room, or it is not shared with you.")
    if _RANK[role] < _RANK[at_least]:
        raise NotAllowed(f"You are a {role.value} in {room.title}; this needs {at_least.value}.")
    return room, role


def _role(room: Room, *, signed_in: bool, user: Any) -> Role | None:
    """:func:`role_in` from the membership role read with the room (``room.seat_role``)."""
    if signed_in:
        if room.owner_id == user.pk:
            return Role.OWNER
        seat_role = getattr(room, "seat_role", None)
        if seat_role is not None:
            return Role(seat_role)
    if room.guests_can_watch:
        return Role.VIEWER
    return None


def object_for[M: Model](
    user: Any, rows: QuerySet[M], pk: int, *, at_least: Role = Role.VIEWER, lock: bool = False, missing: str, field: str
) -> tuple[M, Role]:
    """The object ``pk`` of ``rows`` (a model with a ``room``) for ``user`` with at least the role
    ``at_least`` in its room: how a campaign or a squad is shared with its members.

    Raises :class:`NotFound` with ``missing`` naming ``field`` when the user may not see it (an
    outsider learns nothing, not even that it exists) and :class:`NotAllowed` when their role is
    too low. ``lock`` takes the object for update."""
    room_id = rows.filter(pk=pk).values_list("room_id", flat=True).first()
    if room_id is None:
        raise NotFound(missing, field=field)
    try:
        _, role = room_for(user, room_id, at_least=at_least)
    except NotFound:
        raise NotFound(missing, field=field) from None
    found = lock_rows(rows) if lock else rows
    return found.get(pk=pk), role


class RoomObjectAccess(IsAuthenticated):
    """API permission for an app whose objects own a room: a signed-in user who may touch each
    object named in the URL with the view's role, checked before the view validates anything.

    ``loaders`` maps a URL keyword (``campaign_id``) to the app's ``<object>_for(user, id,
    at_least=...)``. Reads need a reader; writes need the view's ``write_role`` (editor unless it
    says owner, or reader for what any member may do). The loaders raise :class:`NotFound` (404)
    for an outsider and :class:`NotAllowed` (403) for a role too low, so neither learns anything
    from a validation error. Views without those keywords only need a signed-in user."""

    loaders: ClassVar[Mapping[str, Callable[..., Any]]] = {}

    def has_permission(self, request: Any, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        at_least = READER if request.method in SAFE_METHODS else getattr(view, "write_role", EDITOR)
        for keyword, load in self.loaders.items():
            if view.kwargs.get(keyword) is not None:
                load(request.user, view.kwargs[keyword], at_least=at_least)
        return True
