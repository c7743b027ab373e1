"""Reads for Five Parsecs battles: who may see or play a battle, and the lists."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from battles.models import Battle
from campaigns.permissions import EDITOR, READER, campaign_for
from live.models import Membership
from rules import writes
from rules.errors import NotFound


def battle_for(user: Any, battle_id: int, *, write: bool = False, lock: bool = False) -> Battle:
    """The battle ``battle_id`` if ``user`` may read it (``write``: play it).

    Its owner may do both. A campaign battle is also played by the campaign's editors and read
    by its readers. Raises :class:`rules.errors.NotFound` for anyone else (outsiders learn
    nothing) and :class:`rules.errors.NotAllowed` for a campaign reader who tries to write.
    ``lock`` takes the row for update (inside a transaction).
    """
    if not getattr(user, "is_authenticated", False):
        raise NotFound("No such battle, or it is not shared with you.", field="battle")
    row = Battle.objects.filter(pk=battle_id).values("owner_id", "campaign_id").first()
    if row is None:
        raise NotFound("No such battle, or it is not shared with you.", field="battle")
    if row["owner_id"] != user.pk:
        if row["campaign_id"] is None:
            raise NotFound("No such battle, or it is not shared with you.", field="battle")
        try:
            campaign_for(user, row["campaign_id"], at_least=EDITOR if write else READER)
        except NotFound:
            raise NotFound("No such battle, or it is not shared with you.", field="battle") from None
    battles = writes.lock(Battle.objects.all()) if lock else Battle.objects
    return battles.select_related("campaign", "room").get(pk=battle_id)


def battle_list(*, user: Any, campaign_id: int | None = None, status: str = "") -> QuerySet[Battle]:
    """Battles the user owns or may read through a campaign, newest activity first; filter by
    ``campaign_id`` and ``status`` (setup, tracking, nominis, finished)."""
    rooms = Membership.objects.filter(user=user).values("room_id")
    battles = Battle.objects.filter(Q(owner=user) | Q(campaign__owner=user) | Q(campaign__room_id__in=rooms))
    if campaign_id is not None:
        battles = battles.filter(campaign_id=campaign_id)
    if status:
        battles = battles.filter(status=status)
    return battles.distinct().select_related("campaign").order_by("-updated", "-id")
