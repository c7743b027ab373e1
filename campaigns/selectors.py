"""Reads for the campaigns app."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from campaigns.models import Campaign, LogEntry, TableSlot, Turn
from live.models import Membership
from rules.engine.tables import RangeTable
from rules.errors import DropshipError
from rules.models import RuleTable
from rules.selectors import system_tables


def fiveparsecs_tables() -> dict[str, RangeTable]:
    """Every shipped Five Parsecs (Compendium) table as an engine table, keyed by slug, from
    this process's memory (:func:`rules.selectors.system_tables`: one query when unchanged).

    Raises :class:`DropshipError` when the tables are not loaded, saying how to load them.
    """
    found = system_tables(system="fiveparsecs")
    if "campaign-turn-sequence" not in found:
        raise DropshipError("The Five Parsecs tables are not loaded: run `manage.py load_tables`.", field="tables")
    return found


def campaign_list(*, user: Any, search: str = "") -> QuerySet[Campaign]:
    """Campaigns the user owns or was invited to, newest activity first; ``search`` matches the
    campaign or crew name."""
    rooms = Membership.objects.filter(user=user).values("room_id")
    campaigns = Campaign.objects.filter(Q(owner=user) | Q(room_id__in=rooms))
    if search:
        campaigns = campaigns.filter(Q(name__icontains=search) | Q(crew_name__icontains=search))
    return campaigns.distinct().order_by("-updated", "-id")


def current_turn(campaign: Campaign) -> Turn | None:
    """The turn being played (not finished), if any."""
    return campaign.turns.filter(finished=False).order_by("-number").first()


def slot_tables(campaign: Campaign) -> dict[str, RuleTable]:
    """The campaign's mapped tables by slot key, entries prefetched."""
    slots = TableSlot.objects.filter(campaign=campaign).select_related("table").prefetch_related("table__entries")
    return {s.slot: s.table for s in slots}


#: The kinds of campaign log lines (``LogEntry.kind``), for the log's filter.
LOG_KINDS = ("setup", "step", "crew", "ship", "table", "member", "battle", "undo", "import")


def log_list(*, campaign: Campaign, kind: str = "", turn: int | None = None, search: str = "") -> QuerySet[LogEntry]:
    """The campaign log, oldest first; filter by ``kind``, ``turn`` number or words in the text.
    Leaves out ``before`` (an undo snapshot of the whole campaign): lists never show it."""
    entries = campaign.log.all()
    if kind:
        entries = entries.filter(kind=kind)
    if turn is not None:
        entries = entries.filter(turn=turn)
    if search:
        entries = entries.filter(text__icontains=search)
    return entries.defer("before").order_by("id")


def last_change(campaign: Campaign) -> LogEntry | None:
    """The log line ``change_undo`` would take back, or ``None`` when undo has nothing to offer
    (no change yet, or the last one is a table slot or member change with its own screen)."""
    last = campaign.log.filter(undone=False).exclude(kind="undo").order_by("-id").first()
    if last is None or (last.kind != "step" and last.before is None):
        return None
    return last


def fight_line(campaign: Campaign) -> LogEntry | None:
    """This turn's latest crew-fight pick (``crew_services.fight_pick``) still standing."""
    lines = campaign.log.filter(turn=campaign.turn, kind="crew", undone=False, text__startswith="In the fight")
    return lines.order_by("-id").first()


def turn_table_results(campaign: Campaign) -> dict[str, dict[str, Any]]:
    """What the current turn's table steps came to, by step key (``battle.objective`` ...):
    ``{"result", "effect", "data", "table"}``. A step rolled on the user's table gives its entry;
    a step recorded by hand gives its text as the result (``table`` "typed by hand")."""
    current = current_turn(campaign)
    if current is None:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for step in current.steps.filter(mode="manual"):
        found[step.key] = {"result": step.text[:80], "effect": "", "data": {}, "table": "typed by hand"}
    for key, value in (current.facts or {}).items():
        if key.startswith("table:") and isinstance(value, dict) and key.removeprefix("table:") not in found:
            found[key.removeprefix("table:")] = dict(value)
    return found


def turn_battles(campaign: Campaign) -> list[Any]:
    """The battles set up for the campaign's current turn (``battles.Battle`` rows), oldest first."""
    # Read through the reverse relation: the battles app builds on campaigns, never the other way.
    return list(campaign.battles.filter(turn_number=campaign.turn).order_by("id"))
