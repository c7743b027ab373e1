"""Reads for shared rooms."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Max, Q, QuerySet

from live import presence, registry
from live.engine.tracker import Action, Role, replay
from live.models import Membership, Room, RoomAction
from rules import selectors as rule_tables
from rules.engine.tables import RangeTable

#: Logged member changes: they bump the version but are not tracker actions (undo and replay
#: pass them by).
MEMBER_TYPES = frozenset({"member_role", "member_leave", "member_remove"})


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
    entries = room.actions.select_related("actor").defer("state_before").order_by("-version")
    return entries if limit is None else entries[:limit]


def room_replayed_state(room: Room, *, before_version: int | None = None) -> dict[str, Any]:
    """The state the room's log gives: its actions still in force (not undone, not undo
    entries), older than ``before_version`` when given, replayed from ``initial_state`` with
    their stored seeds.

    Undo of an action logged without its state before uses it; otherwise it is the audit
    check that the stored state is what the log says (see :func:`room_replay_matches`). Raises
    :class:`live.engine.tracker.TrackerError` when a logged action no longer applies."""
    actions = room.actions.filter(undone=False).exclude(type__in=("undo", *MEMBER_TYPES)).order_by("version")
    if before_version is not None:
        actions = actions.filter(version__lt=before_version)
    rows = actions.values_list("type", "payload", "actor_id", "role", "seed")
    log = [(Action(kind, payload, actor=str(actor or ""), role=Role(role)), seed) for kind, payload, actor, role, seed in rows]
    tracker = registry.get(room.kind)
    tables = reducer_tables(tracker)
    return replay(room.initial_state, log, lambda state, action, dice: tracker.reducer(state, action, dice, tables))


def kind_tables(tracker: registry.TrackerKind, *, token: str | None = None) -> dict[str, RangeTable]:
    """The rule tables ``tracker``'s reducer gets: its system's book tables, from this process's
    memory (one query when unchanged, none when the caller read the tables version ``token``
    already); none for a kind without a system."""
    return rule_tables.system_tables(system=tracker.system, token=token) if tracker.system else {}


def reducer_tables(tracker: registry.TrackerKind, *, token: str | None = None) -> dict[str, RangeTable]:
    """The rule tables to pass ``tracker``'s reducer: :func:`kind_tables`, or none (and no
    query) for a reducer that reads none (:func:`live.registry.reads_tables`)."""
    return kind_tables(tracker, token=token) if registry.reads_tables(tracker) else {}


def room_replay_matches(room: Room) -> bool:
    """Whether replaying the room's log from its initial state gives its stored state (an
    audit: a ``False`` means the stored state and the log disagree)."""
    return room_replayed_state(room) == room.state


def members_stamp_of(seats: list[Seat]) -> str:
    """:func:`members_stamp` from seats already loaded (no query)."""
    return f"{len(seats)}.{max((seat.id for seat in seats), default=0)}"


def members_stamp(room_id: int) -> str:
    """A short text that changes whenever someone joins or leaves ``room_id`` (``"count.last id"``):
    with the version it says whether a device's member list and Played-by choices are current."""
    found = Membership.objects.filter(room_id=room_id).aggregate(count=Count("id"), last=Max("id"))
    return f"{found['count']}.{found['last'] or 0}"
