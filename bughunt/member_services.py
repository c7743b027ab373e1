"""Co-op Bug Hunt: the squad's members and the marines given to them.

A squad is shared the way a Five Parsecs campaign is (:mod:`campaigns.services`): the owner
invites other users as ``editor`` (plays the campaign and commands the marines given to them at
the mission tracker) or ``reader`` (watches), through the squad's room
(:func:`live.services.app_member_invite`). The owner gives each main character to a member
(``Trooper.player``); at the table a member acts only with their own marines, the owner (the
referee) with every figure. Each write is one transaction against the squad's ``version``, logged
in the squad log under ``co-op``, and reaches the mission in play: its table seats, re-seats or
unseats the member and hands the marines over through the tracker's own ``set_player`` action.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from bughunt.models import Squad, Trooper
from bughunt.permissions import squad_for
from bughunt.postbattle_services import _trooper_row
from bughunt.services import _bump, _locked_squad, _log, commander
from live import services as live_services
from live.engine.tracker import Role
from live.models import Membership, Room
from live.permissions import ROLE_NAMES
from rules import writes
from rules.errors import DropshipError

STEP = "co-op"


def _tables_in_play(squad: Squad) -> list[Room]:
    """The rooms of the squad's missions on the table now (set-up and finished ones have none
    in play)."""
    return [m.room for m in squad.missions.filter(stage="in_play", room__isnull=False).select_related("room") if m.room]


def _unit_of(room: Room, trooper: Trooper) -> str | None:
    """The tracker unit of ``trooper`` in ``room``'s state (main characters are one-figure
    units), or ``None`` when they are not on the table."""
    for unit in room.state.get("units", []):
        if any(f.get("trooper_id") == trooper.pk for f in unit.get("figures", [])):
            return str(unit["id"])
    return None


def _hand_over(squad: Squad, trooper: Trooper) -> None:
    """Give ``trooper``'s figure at the mission in play to their commander through the tracker's
    ``set_player`` action, made by the owner (logged at the table, undoable there)."""
    for room in _tables_in_play(squad):
        unit = _unit_of(room, trooper)
        if unit is None:
            continue
        room.refresh_from_db()
        live_services.room_act(
            user=squad.owner,
            room_id=room.pk,
            type="set_player",
            payload={"unit": unit, "player": commander(trooper)},
            version=room.version,
        )


def _take_back(squad: Squad, user_id: int) -> list[str]:
    """The marines given to ``user_id`` go back to the owner; returns their names."""
    given = list(squad.troopers.filter(player_id=user_id))
    for trooper in given:
        trooper.player = None
        trooper.save(update_fields=["player"])
        _hand_over(squad, trooper)
    return [t.name for t in given]


@transaction.atomic
def member_invite(*, user: Any, squad_id: int, version: int | None, username: str, role: str) -> Membership:
    """Invite another user to the squad as ``editor`` (plays the campaign and commands the
    marines given to them) or ``reader`` (watches). Owner only; inviting a member again changes
    their role, and a member made a reader gives back their marines. The mission in play seats
    them (editors play, readers watch).

    Raises :class:`NotFound` for an outsider, :class:`NotAllowed` for a member who is not the
    owner, :class:`StaleVersion`, or :class:`DropshipError` naming ``role`` (editor or reader)
    or ``username`` (unknown, or the owner). Nothing is written then."""
    squad = _locked_squad(user, squad_id, version, at_least=Role.OWNER)
    membership, was = live_services.app_member_invite(room=squad.room, username=username, role=role, what="squad")
    name = membership.user.get_username()
    returned = _take_back(squad, membership.user_id) if role == "reader" else []
    seat = Role.VIEWER.value if role == "reader" else Role.PLAYER.value
    for room in _tables_in_play(squad):
        room.refresh_from_db()
        if Membership.objects.filter(room=room, user_id=membership.user_id).exists():
            live_services.membership_set_role(
                user=squad.owner, room_id=room.pk, user_id=membership.user_id, role=seat, version=room.version
            )
        else:
            live_services.room_share(room, {membership.user_id: seat})
    text = f"{name} joins the squad as {role}." if was is None else f"{name} is now {role} (was {was})."
    if returned:
        text += f" The owner commands {', '.join(returned)} again."
    _log(squad, f"{STEP}: member", text, data={"user": membership.user_id, "role": role, "was": was})
    _bump(squad)
    return membership


@transaction.atomic
def member_remove(*, user: Any, squad_id: int, version: int | None, member_id: int) -> Squad:
    """Take the member ``member_id`` (a membership id) from the squad: the owner removes anyone,
    a member may leave. Their marines go back to the owner, and they leave the squad's mission
    tables.

    Raises :class:`NotFound` for an outsider, :class:`NotAllowed` for a member removing someone
    else, :class:`StaleVersion`, or :class:`DropshipError` naming ``member``."""
    squad, role = squad_for(user, squad_id, lock=True)
    writes.check_version(squad, version, message="The squad changed since you loaded it; reload and try again.")
    membership = live_services.app_member_remove(room=squad.room, member_id=member_id, user=user, role=role)
    returned = _take_back(squad, membership.user_id)
    rooms = Room.objects.filter(bughunt_mission__squad=squad, members__user_id=membership.user_id)
    for room in rooms:
        live_services.membership_remove(user=squad.owner, room_id=room.pk, user_id=membership.user_id, version=room.version)
    text = f"{membership.user.get_username()} leaves the squad (was {ROLE_NAMES[Role(membership.role)]})."
    if returned:
        text += f" The owner commands {', '.join(returned)} again."
    _log(squad, f"{STEP}: member", text, data={"user": membership.user_id, "role": None})
    _bump(squad)
    return squad


@transaction.atomic
def marine_give(*, user: Any, squad_id: int, version: int | None, trooper_id: Any, player: str) -> Trooper:
    """Give the main character ``trooper_id`` to the editor called ``player`` to command at the
    mission tracker, or back to the owner (the referee) with ``""`` or the owner's name. Owner
    only. The mission in play hands the figure over at once (a ``set_player`` action there).

    Raises :class:`NotFound` for an outsider, :class:`NotAllowed` for a member, :class:`StaleVersion`,
    or :class:`DropshipError` naming ``trooper`` (the squad's active main characters) or
    ``player`` (the squad's editors: readers only watch)."""
    squad = _locked_squad(user, squad_id, version, at_least=Role.OWNER)
    trooper = _trooper_row(squad, trooper_id)
    if trooper.status != "active":
        raise DropshipError(f"trooper {trooper.name} has left the squad ({trooper.get_status_display()}).", field="trooper")
    wanted = (player or "").strip()
    editors = Membership.objects.filter(room_id=squad.room_id, role=Role.PLAYER.value).select_related("user")
    names = {m.user.get_username(): m.user_id for m in editors}
    if not wanted or wanted == squad.owner.get_username():
        trooper.player = None
    elif wanted in names:
        trooper.player_id = names[wanted]
    else:
        reader = Membership.objects.filter(room_id=squad.room_id, role=Role.VIEWER.value, user__username=wanted).exists()
        why = (
            f"{wanted} is a reader and only watches; make them an editor first"
            if reader
            else f"{wanted} is not an editor of this squad"
        )
        allowed = ", ".join(sorted(names)) or "none yet: invite one first"
        raise DropshipError(f"player: {why}. Editors: {allowed} (or empty for the owner).", field="player")
    trooper.save(update_fields=["player"])
    _hand_over(squad, trooper)
    who = get_user_model().objects.get(pk=trooper.player_id).get_username() if trooper.player_id else "the owner"
    _log(
        squad,
        f"{STEP}: marine",
        f"{trooper.name} is commanded by {who}.",
        data={"trooper": trooper.pk, "player": trooper.player_id},
    )
    _bump(squad)
    return trooper
