"""Reads for shared rooms."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from live import registry
from live.engine.tracker import Action, Role, replay
from live.models import Room, RoomAction


def rooms_for(user: Any) -> QuerySet[Room]:
    """Rooms the user owns or is a member of, most recently changed first."""
    return Room.objects.filter(Q(owner=user) | Q(members__user=user)).distinct().order_by("-updated")


def room_log(room: Room, *, limit: int = 200) -> QuerySet[RoomAction]:
    """The room's action log, newest first."""
    return room.actions.select_related("actor").defer("state_before").order_by("-version")[:limit]


def room_replayed_state(room: Room, *, before_version: int | None = None) -> dict[str, Any]:
    """The state the room's log gives: its actions still in force (not undone, not undo
    entries), older than ``before_version`` when given, replayed from ``initial_state`` with
    their stored seeds.

    Undo of an action logged without its state before uses it; otherwise it is the audit
    check that the stored state is what the log says (see :func:`room_replay_matches`). Raises
    :class:`live.engine.tracker.TrackerError` when a logged action no longer applies."""
    actions = room.actions.filter(undone=False).exclude(type="undo").order_by("version")
    if before_version is not None:
        actions = actions.filter(version__lt=before_version)
    rows = actions.values_list("type", "payload", "actor_id", "role", "seed")
    log = [(Action(kind, payload, actor=str(actor or ""), role=Role(role)), seed) for kind, payload, actor, role, seed in rows]
    return replay(room.initial_state, log, registry.get(room.kind).reducer)


def room_replay_matches(room: Room) -> bool:
    """Whether replaying the room's log from its initial state gives its stored state (an
    audit: a ``False`` means the stored state and the log disagree)."""
    return room_replayed_state(room) == room.state
