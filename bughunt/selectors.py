"""Reads for the Bug Hunt app."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Q, QuerySet

from bughunt.models import LogEntry, Mission, Squad
from bughunt.permissions import ROLE_NAMES, mission_for, squad_for
from live.engine.tracker import Role
from live.models import Membership
from rules.engine.tables import RangeTable
from rules.errors import DropshipError
from rules.selectors import system_tables


def bughunt_tables() -> dict[str, RangeTable]:
    """Every shipped Bug Hunt table as an engine table, keyed by slug (``bh-origin`` ...), from
    this process's memory (:func:`rules.selectors.system_tables`: one query when unchanged).

    Raises :class:`DropshipError` when the tables are not loaded, saying how to load them.
    """
    found = system_tables(system="bughunt")
    if "bh-origin" not in found:
        raise DropshipError("The Bug Hunt tables are not loaded: run `manage.py load_tables`.", field="tables")
    return found


def squad_list(*, user: Any, search: str = "") -> QuerySet[Squad]:
    """The user's squads and those shared with them, newest activity first; ``search`` matches
    the squad or regiment name."""
    squads = Squad.objects.filter(Q(owner=user) | Q(room__members__user=user)).distinct()
    if search:
        squads = squads.filter(Q(name__icontains=search) | Q(regiment__icontains=search))
    return squads.order_by("-updated", "-id")


def squad_get(*, user: Any, squad_id: int) -> Squad:
    """The squad, for its owner or a member. Raises :class:`NotFound` for anyone else or a
    missing one."""
    return squad_for(user, squad_id)[0]


def mission_get(*, user: Any, mission_id: int) -> Mission:
    """The mission, for its squad's owner or a member. Raises :class:`NotFound` otherwise."""
    return mission_for(user, mission_id)[0]


def members(squad: Squad) -> list[dict[str, Any]]:
    """The squad's members, owner first: ``[{"id": membership id, "user": user id, "username",
    "role": "owner" | "editor" | "reader", "marines": [names given to them]}]``."""
    given: dict[int, list[str]] = {}
    for trooper in squad.troopers.filter(status="active", player__isnull=False):
        given.setdefault(int(trooper.player_id or 0), []).append(trooper.name)
    rows = Membership.objects.filter(room_id=squad.room_id).select_related("user").order_by("joined", "id")
    found = [
        {
            "id": m.pk,
            "user": m.user_id,
            "username": m.user.get_username(),
            "role": ROLE_NAMES[Role(m.role)],
            "marines": given.get(m.user_id, []),
        }
        for m in rows
    ]
    return sorted(found, key=lambda m: m["role"] != "owner")


def current_mission(squad: Squad) -> Mission | None:
    """The mission not yet through its post-battle, if any."""
    return squad.missions.exclude(stage="done").order_by("-number").first()


def log_list(*, squad: Squad, step: str = "", mission: int | None = None) -> QuerySet[LogEntry]:
    """The campaign log, oldest first; filter by ``step`` (prefix) or mission number."""
    entries = squad.log.all()
    if step:
        entries = entries.filter(step__istartswith=step)
    if mission is not None:
        entries = entries.filter(mission__number=mission)
    return entries.select_related("mission").order_by("id")


def tracker_screen(state: Mapping[str, Any]) -> dict[str, Any]:
    """What the mission tracker shows that the rules decide, for one tracker state (see
    :func:`bughunt.engine.tracker.screen`): Evac callable, Delay and Distract in force, the
    enemies placed this round, the Precursor re-roll, the Signals shortfall, the next round."""
    from bughunt.engine import tracker

    return tracker.screen(state)


def mission_summary(mission: Mission) -> dict[str, Any]:
    """What the mission page shows that the rules decide: ``contacts`` (all Contact markers at the
    start), ``center_contacts`` (those at the center), and ``success`` (2+ Objective points,
    p.201; ``None`` before the mission's outcome is known)."""
    from bughunt.engine import missions, tracker

    setup = mission.setup or {}
    outcome = mission.outcome or {}
    done = outcome.get("objectives_completed")
    return {
        "contacts": missions.starting_contacts(setup),
        "center_contacts": missions.center_contacts(setup),
        "success": tracker.mission_success(int(done)) if done is not None else None,
    }
