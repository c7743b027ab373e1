"""Who may do what with a campaign: the shared table's permission check on the campaign's room.

Roles map as owner = owner, editor = player, reader = viewer.
"""

from __future__ import annotations

from typing import Any

from campaigns.models import Campaign
from live.engine.tracker import Role
from live.permissions import room_for
from rules.errors import NotFound

EDITOR = Role.PLAYER
READER = Role.VIEWER
ROLE_NAMES = {Role.OWNER: "owner", Role.PLAYER: "editor", Role.VIEWER: "reader"}


def campaign_for(user: Any, campaign_id: int, *, at_least: Role = Role.VIEWER, lock: bool = False) -> tuple[Campaign, Role]:
    """Load ``campaign_id`` for ``user`` with at least the role ``at_least``.

    Raises :class:`rules.errors.NotFound` when the user may not see it (outsiders learn
    nothing) and :class:`rules.errors.NotAllowed` when their role is too low.
    """
    room_id = Campaign.objects.filter(pk=campaign_id).values_list("room_id", flat=True).first()
    if room_id is None:
        raise NotFound("No such campaign, or it is not shared with you.", field="campaign")
    try:
        _, role = room_for(user, room_id, at_least=at_least)
    except NotFound:
        raise NotFound("No such campaign, or it is not shared with you.", field="campaign") from None
    campaigns = Campaign.objects.select_for_update() if lock else Campaign.objects
    return campaigns.get(pk=campaign_id), role
