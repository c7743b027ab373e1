"""Writes for shared rooms: create, join, members (roles, removal, leaving), act, undo, share.
One transaction each; changes are published to every device after commit as ``{room, version}``."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from live import presence, registry
from live.engine.tracker import Action, Event, Role, TrackerError
from live.events import announce_members, announce_room
from live.models import JoinCode, Membership, Room, RoomAction
from live.permissions import ROLE_NAMES, room_for
from live.selectors import MEMBER_TYPES, kind_tables, reducer_tables, room_replayed_state
from rules import selectors as rule_tables
from rules import writes
from rules.bounds import ID_MAX
from rules.engine.dice import Dice
from rules.errors import DropshipError, NotAllowed, NotFound
from rules.payloads import check_json

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no I, L, O, 0 or 1
CODE_LENGTH = 8
CODE_LIFETIME = timedelta(hours=24)
JOIN_FAILURES_ALLOWED = 10
JOIN_FAILURE_WINDOW = 600  # seconds
PAYLOAD_LIMIT = 16 * 1024  # bytes of serialized JSON; a real action's payload is a few hundred


class Throttled(DropshipError):
    status = 429


@dataclass(frozen=True)
class ActResult:
    room: Room
    entry: RoomAction


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _check_table_options(tracker: registry.TrackerKind, user: Any, options: dict[str, Any]) -> None:
    """Refuse a ``table`` option that names no book table and none of ``user``'s own, naming the
    option. Another user's table reads as one that does not exist: its owner's slugs stay private."""
    for field in tracker.options:
        if field.type != "table":
            continue
        slug = str(options.get(field.name) or "").strip()
        if not slug:
            continue
        try:
            rule_tables.table_get_for(slug=slug, user=user)
        except NotFound:
            raise DropshipError(
                f"{field.name}: you have no table {slug!r}, and no rule book has one. Add it under My tables "
                "(make it or import it as JSON), then name its slug here; or leave this empty.",
                field=field.name,
            ) from None
        options[field.name] = slug


def _record(
    room: Room, action: Action, seed: int, events: list[Event], *, before: dict[str, Any], actor: Any = None
) -> RoomAction:
    """Keep an applied action: bump and save the room (its new state already set) and append the
    action to the log with its seed, roll records, events and the state before it (for undo), in
    one write (:func:`rules.writes.bump_and_log`). ``actor``, the user who acted when the caller
    holds it, is set on the entry so that the kind's ``on_record`` and the answer name them
    without a query."""
    entry = RoomAction(
        room=room,
        version=room.version + 1,
        actor_id=int(action.actor) if action.actor else None,
        role=action.role.value,
        type=action.type,
        payload=dict(action.payload),
        seed=seed,
        rolls=[e.data["roll"] for e in events if "roll" in e.data],
        events=[e.as_dict() for e in events],
        state_before=before,
    )
    if actor is not None:
        entry.actor = actor
    writes.bump_and_log(room, entry, fields=["state"])
    _on_record(room, entry)
    return entry


def _on_record(room: Room, entry: RoomAction) -> None:
    """Tell the room's kind (its ``on_record``, if any) of an action or undo just logged."""
    hook = registry.get(room.kind).on_record
    if hook is not None:
        hook(room, entry)


def _check_version(room: Room, version: int | None) -> None:
    writes.check_version(room, version, state=room.state)


@transaction.atomic
def room_create(
    *,
    user: Any,
    kind: str,
    title: str,
    options: dict[str, Any] | None = None,
    guests_can_watch: bool = False,
    unlisted: bool = False,
) -> Room:
    """A new room hosting a tracker of ``kind``, owned by ``user``, with a fresh join code.

    ``unlisted`` lets an app's service open a kind that is not offered on the rooms page.
    Raises :class:`DropshipError` for an unknown kind (naming the known ones), a blank title, a
    bad option (naming it), a ``table`` option that is neither a book table nor ``user``'s, or
    options holding NUL characters or non-finite numbers.
    """
    tracker = registry.get(kind)
    check_json(options or {}, field="options")
    if not tracker.listed and not unlisted:
        listed = ", ".join(k.kind for k in registry.kinds())
        raise DropshipError(f"Tables of kind {kind!r} open from their own pages; choose one of {listed}.", field="kind")
    title = title.strip()
    if not title:
        raise DropshipError("title is required: a name for this table.", field="title")
    options = dict(options or {})
    _check_table_options(tracker, user, options)
    try:
        extra: dict[str, Any] = {"tables": kind_tables(tracker)} if tracker.system else {}
        state = tracker.initial_state(options, user, **extra) if tracker.takes_user else tracker.initial_state(options, **extra)
    except TrackerError as exc:
        raise DropshipError(exc.message, field=exc.field) from exc
    room = Room.objects.create(
        kind=kind, title=title[:120], owner=user, initial_state=state, state=state, guests_can_watch=guests_can_watch
    )
    Membership.objects.create(room=room, user=user, role=Role.OWNER.value)
    if not tracker.invite_only:
        JoinCode.objects.create(room=room, code=_new_code(), expires=timezone.now() + CODE_LIFETIME)
    return room


def room_share(room: Room, members: dict[int, str]) -> int:
    """Give users a place in ``room`` without a code: ``members`` maps user ids to ``player`` or
    ``viewer``. The owner and existing members keep their role. Returns how many joined.

    For an app's service that opens a room for people who already play together (a campaign's
    co-op members); call it inside that service's transaction. Raises :class:`DropshipError` for
    another role."""
    joined = 0
    for user_id, role in members.items():
        if role not in (Role.PLAYER.value, Role.VIEWER.value):
            raise DropshipError(f"role must be player or viewer; got {role!r}.", field="role")
        if user_id == room.owner_id:
            continue
        _, made = Membership.objects.get_or_create(room=room, user_id=user_id, defaults={"role": role})
        joined += int(made)
    if joined:
        announce_members(room.pk)
    return joined


def room_unshare(room: Room, user_ids: list[int]) -> int:
    """Take users an app seated with :func:`room_share` off ``room`` (never its owner): they lose
    access at once. For an app's service, inside its transaction, when its own rules end their
    place (a PvP battle's referee leaving). Returns how many left."""
    left, _ = Membership.objects.filter(room=room, user_id__in=user_ids).exclude(user_id=room.owner_id).delete()
    if left:
        announce_members(room.pk)
    return int(left)


INVITE_ONLY = (
    "Members of this table are invited by its owner on its own page (a campaign's Co-op members); a code cannot seat anyone here."
)


def room_code(room: Room) -> JoinCode | None:
    """The room's current usable join code, if any (never one for an invite-only room)."""
    if registry.invite_only(room.kind):
        return None
    return room.codes.filter(revoked__isnull=True, expires__gt=timezone.now()).first()


@transaction.atomic
def room_code_rotate(*, user: Any, room_id: int) -> JoinCode:
    """Revoke every code of the room and issue a new one (owner only). Raises
    :class:`DropshipError` for an invite-only room (its codes are revoked, none is issued)."""
    room, _ = room_for(user, room_id, at_least=Role.OWNER, lock=True)
    if registry.invite_only(room.kind):
        raise DropshipError(INVITE_ONLY, field="code")
    room.codes.filter(revoked__isnull=True).update(revoked=timezone.now())
    return JoinCode.objects.create(room=room, code=_new_code(), expires=timezone.now() + CODE_LIFETIME)


@transaction.atomic
def room_code_revoke(*, user: Any, room_id: int) -> None:
    """Revoke the room's codes: nobody new can join until a new one is issued (owner only)."""
    room, _ = room_for(user, room_id, at_least=Role.OWNER, lock=True)
    room.codes.filter(revoked__isnull=True).update(revoked=timezone.now())


@transaction.atomic
def room_join(*, user: Any, code: str) -> Membership:
    """Join the room behind ``code`` as a player (existing members keep their role).

    A code seats its holder in its own room only, and never in an invite-only room (a
    campaign's: its membership grants the campaign). Raises :class:`NotAllowed` for guests,
    :class:`DropshipError` for an unknown, expired or revoked code or an invite-only room's,
    and :class:`Throttled` after too many failed attempts.
    """
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed("Log in or sign up to join a table; guests can only watch shared links.")
    key = f"live:join-failures:{user.pk}"
    if (cache.get(key) or 0) >= JOIN_FAILURES_ALLOWED:
        raise Throttled("Too many wrong codes; wait ten minutes and try again.", field="code")
    clean = "".join(ch for ch in code.upper() if ch.isalnum())
    found = JoinCode.objects.select_related("room").filter(code=clean).first()
    if found is None or found.revoked is not None or found.expires <= timezone.now():
        cache.set(key, (cache.get(key) or 0) + 1, JOIN_FAILURE_WINDOW)
        reason = "That code has expired or was revoked" if found else "No table has that code"
        raise DropshipError(f"{reason}; ask the owner for the code on their screen.", field="code")
    if registry.invite_only(found.room.kind) and not Membership.objects.filter(room=found.room, user=user).exists():
        cache.set(key, (cache.get(key) or 0) + 1, JOIN_FAILURE_WINDOW)
        raise DropshipError(INVITE_ONLY, field="code")
    membership, made = Membership.objects.get_or_create(
        room=found.room, user=user, defaults={"role": Role.OWNER.value if found.room.owner_id == user.pk else Role.PLAYER.value}
    )
    if made:
        # A join does not move the room's version (it must not make a write in flight stale):
        # devices hear a ``members`` event and redraw the member list and the Played-by choices.
        announce_members(found.room_id)
    return membership


# -- members of an app's invite-only room (a campaign's, a Bug Hunt squad's) -----------------

APP_MEMBER_ROLES = {"editor": Role.PLAYER, "reader": Role.VIEWER}


def app_member_invite(*, room: Room, username: str, role: str, what: str) -> tuple[Membership, str | None]:
    """Seat the user called ``username`` in an app's (locked) room as ``editor`` (a player) or
    ``reader`` (a viewer); inviting a member again changes their role. ``what`` names the app's
    object in messages ("campaign", "squad"). The app checks that the inviter owns it and logs
    the change. Returns the membership and the member's former role name (``None`` if new).

    Raises :class:`DropshipError` naming ``role`` (editor or reader) or ``username`` (unknown,
    or the owner)."""
    if role not in APP_MEMBER_ROLES:
        raise DropshipError(f"role must be editor or reader; got {role!r}.", field="role")
    invited = get_user_model().objects.filter(username=username.strip()).first()
    if invited is None:
        raise DropshipError(f"No user called {username.strip()!r}; they need an account first.", field="username")
    if invited.pk == room.owner_id:
        raise DropshipError(f"You own this {what} already.", field="username")
    was = Membership.objects.filter(room=room, user=invited).values_list("role", flat=True).first()
    membership, _ = Membership.objects.update_or_create(room=room, user=invited, defaults={"role": APP_MEMBER_ROLES[role].value})
    return membership, (ROLE_NAMES[Role(was)] if was is not None else None)


def app_member_remove(*, room: Room, member_id: int, user: Any, role: Role) -> Membership:
    """Take the membership ``member_id`` (not the owner's) from an app's (locked) room: the
    owner removes anyone, a member may leave. Returns the deleted membership for the app's log.

    Raises :class:`DropshipError` naming ``member`` for no such member and :class:`NotAllowed`
    when someone other than the owner removes another member."""
    membership = Membership.objects.select_related("user").filter(room=room, pk=member_id).exclude(user_id=room.owner_id).first()
    if membership is None:
        raise DropshipError("No such member (the owner cannot be removed).", field="member")
    if role != Role.OWNER and membership.user_id != user.pk:
        raise NotAllowed("Only the owner can remove other members.")
    membership.delete()
    return membership


# A role change, a removal and a leave are changes of the room, made against its version: each
# bumps it, is a line of its log and reaches every device as the usual ``version`` event, whose
# tracker refetch also redraws the member list and the "Played by" choices. They are not
# tracker actions: undo and replay skip them.
MEMBER_ROLES = (Role.PLAYER.value, Role.VIEWER.value)


def _name(user: Any) -> str:
    return str(user.get_username())


def _log_member_change(room: Room, *, actor: Any, role: str, type: str, text: str, data: dict[str, Any]) -> RoomAction:
    """Bump the (locked) room's version and log one membership change, published after commit."""
    writes.bump(room, fields=())
    entry = RoomAction.objects.create(
        room=room,
        version=room.version,
        actor=actor,
        role=role,
        type=type,
        payload=data,
        seed=0,
        events=[{"type": type, "text": text, "data": data}],
    )
    announce_room(room.pk, room.version)
    return entry


def _member(room: Room, user_id: int) -> Membership:
    # An id past the column's range names nobody (and would overflow the query on some databases).
    if not 0 < user_id <= ID_MAX:
        raise NotFound("No such member at this table (the owner's place cannot change).", field="user_id")
    membership = (
        Membership.objects.select_related("user").filter(room=room, user_id=user_id).exclude(user_id=room.owner_id).first()
    )
    if membership is None:
        raise NotFound("No such member at this table (the owner's place cannot change).", field="user_id")
    return membership


def _release_figures(room: Room, user_id: int) -> list[RoomAction]:
    """Hand the figures ``user_id`` plays back to the owner through the kind's own actions
    (:attr:`registry.TrackerKind.release`), each logged as the owner's action so that undo and
    replay treat them like any other."""
    tracker = registry.get(room.kind)
    if tracker.release is None:
        return []
    entries = []
    tables = reducer_tables(tracker)
    for type, payload in tracker.release(room.state, str(user_id)):
        dice = Dice()
        assert dice.seed is not None
        action = Action(type=type, payload=payload, actor=str(room.owner_id), role=Role.OWNER)
        before = room.state
        try:
            room.state, events = tracker.reducer(room.state, action, dice, tables)
        except TrackerError as exc:  # the kind's release named an action its reducer refuses: a bug
            raise DropshipError(f"Could not hand the figures back: {exc.message}", field="user_id") from exc
        entries.append(_record(room, action, dice.seed, events, before=before))
    return entries


@transaction.atomic
def membership_set_role(*, user: Any, room_id: int, user_id: int, role: str, version: int | None) -> Membership:
    """Make the member ``user_id`` a ``player`` or a ``viewer`` (owner only), against ``version``.

    The change is logged (who changed whom, from what to what) and bumps the room's version.
    Raises :class:`NotFound` for outsiders and for a user who is not a member (the owner
    included), :class:`NotAllowed` for members who are not the owner, :class:`DropshipError`
    naming ``role`` and the allowed roles, or for an invite-only room (its app's page changes
    roles, and logs them), and :class:`StaleVersion` (409, with the current state) when
    ``version`` is not the room's. Nothing is written then.
    """
    room, _ = room_for(user, room_id, at_least=Role.OWNER, lock=True)
    if registry.invite_only(room.kind):
        raise DropshipError(INVITE_ONLY, field="role")
    if role not in MEMBER_ROLES:
        raise DropshipError(f"role must be one of {', '.join(MEMBER_ROLES)}; got {role!r}.", field="role")
    _check_version(room, version)
    membership = _member(room, user_id)
    was = membership.role
    if was != role:
        membership.role = role
        membership.save(update_fields=["role"])
        text = f"{_name(user)} made {_name(membership.user)} a {role} (was {was})."
        _log_member_change(
            room,
            actor=user,
            role=Role.OWNER.value,
            type="member_role",
            text=text,
            data={"user": user_id, "from": was, "to": role},
        )
    return membership


@transaction.atomic
def membership_remove(*, user: Any, room_id: int, user_id: int, version: int | None) -> Room:
    """Take the member ``user_id`` from the table, against ``version``: the owner removes
    anyone else, a member may leave. Returns the room.

    The member loses access at once; the figures they played go back to the owner through the
    tracker's own actions (logged, undoable). Raises :class:`NotFound` for outsiders and for a
    user who is not a member, :class:`NotAllowed` when a member other than the owner removes
    someone else, :class:`DropshipError` for an invite-only room (the campaign's page removes
    members) and :class:`StaleVersion` (409) when ``version`` is not the room's.
    """
    room, role = room_for(user, room_id, at_least=Role.VIEWER, lock=True)
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed("Only the table's owner can remove members.")
    leaving = user_id == user.pk
    if role != Role.OWNER and not leaving:
        raise NotAllowed("Only the table's owner can remove members.")
    if registry.invite_only(room.kind):
        raise DropshipError(INVITE_ONLY, field="user_id")
    _check_version(room, version)
    membership = _member(room, user_id)
    was = membership.role
    name = _name(membership.user)
    membership.delete()
    if leaving:
        entry_type, text = "member_leave", f"{name} left the table (was {was})."
    else:
        entry_type, text = "member_remove", f"{_name(user)} removed {name} (was {was})."
    _log_member_change(
        room,
        actor=user,
        role=was if leaving else Role.OWNER.value,
        type=entry_type,
        text=text,
        data={"user": user_id, "from": was},
    )
    _release_figures(room, user_id)
    return room


@transaction.atomic
def room_act(
    *, user: Any, room_id: int, type: str, payload: dict[str, Any], version: int | None, seed: int | None = None
) -> ActResult:
    """Apply one action to the room's tracker, made against ``version``.

    Raises :class:`StaleVersion` (409, with the current version and state) when ``version`` is
    not the room's, :class:`NotAllowed` when the role does not allow it, and
    :class:`DropshipError` when the rules refuse it or the payload is larger than
    :data:`PAYLOAD_LIMIT` or holds NUL characters or non-finite numbers; nothing is written then.
    """
    # the rule tables' version is read with the room: the reducer's tables cost no query of their own
    room, role = room_for(user, room_id, at_least=Role.PLAYER, lock=True, tables_token=True)
    check_json(payload, field="payload", max_bytes=PAYLOAD_LIMIT)
    _check_version(room, version)
    tracker = registry.get(room.kind)
    dice = Dice(seed=seed)
    assert dice.seed is not None
    action = Action(type=type, payload=payload, actor=str(user.pk), role=role)
    # Reducers return a new state and never change the one they are given, so this stays as it was.
    before = room.state
    tables = reducer_tables(tracker, token=getattr(room, "tables_token", None) or "")
    try:
        state, events = tracker.reducer(room.state, action, dice, tables)
    except TrackerError as exc:
        error = NotAllowed if exc.__class__.__name__ == "NotYours" else DropshipError
        raise error(exc.message, field=exc.field) from exc
    room.state = state
    entry = _record(room, action, dice.seed, events, before=before, actor=user)
    announce_room(room.pk, room.version)
    return ActResult(room=room, entry=entry)


@transaction.atomic
def room_undo(*, user: Any, room_id: int, version: int | None) -> ActResult:
    """Take back the last action still in force (its actor may; the owner too unless the kind says
    otherwise, ``TrackerKind.owner_undoes_all``): the room's state
    becomes the state stored with that action from before it, so undo costs one step whatever the
    log's length (an action logged before states were stored is taken back by replaying the log
    without it). An undo is itself logged and is never undone: the next undo takes back the
    action before. Raises :class:`StaleVersion`, :class:`NotAllowed` or :class:`DropshipError`
    (nothing to undo, or the last action is one of the kind's ``undo_stops``)."""
    room, role = room_for(user, room_id, at_least=Role.PLAYER, lock=True)
    _check_version(room, version)
    # Member changes (role, removal) are logged but are not tracker actions: undo passes them by.
    last = room.actions.filter(undone=False).exclude(type__in=("undo", *MEMBER_TYPES)).order_by("-version").first()
    if last is None:
        raise DropshipError("Nothing to undo.", field="version")
    if last.type in registry.get(room.kind).undo_stops:
        done = last.events[0]["text"] if last.events else last.type
        raise DropshipError(
            f"Undo goes back no further: “{done}” was a change of who sits at this table, made on its own page; change it there.",
            field="version",
        )
    if last.actor_id != user.pk and (role != Role.OWNER or not registry.get(room.kind).owner_undoes_all):
        who = "the owner or whoever" if registry.get(room.kind).owner_undoes_all else "whoever"
        raise NotAllowed(f"Only {who} made the last action can undo it.")
    if last.state_before is not None:
        room.state = last.state_before
    else:
        room.state = room_replayed_state(room, before_version=last.version)
    last.undone = True
    last.save(update_fields=["undone"])
    text = f"Undid: {last.events[0]['text'] if last.events else last.type}"
    entry = RoomAction(
        room=room,
        version=room.version + 1,
        actor=user,
        role=role.value,
        type="undo",
        payload={"undid": last.version},
        seed=0,
        events=[{"type": "undo", "text": text, "data": {"undid": last.version}}],
    )
    writes.bump_and_log(room, entry, fields=["state"])
    _on_record(room, entry)
    announce_room(room.pk, room.version)
    return ActResult(room=room, entry=entry)


def room_seen(*, user: Any, room: Room) -> None:
    """Mark the user as watching now (for the presence list). Writes the cache, never the
    database, and at most once per :data:`live.presence.THROTTLE` seconds: a polling device
    costs one cache round trip."""
    if getattr(user, "is_authenticated", False):
        presence.mark_seen(room.pk, user.pk)
