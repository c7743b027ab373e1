"""Who may do what with a campaign: the shared table's permission check on the campaign's room.

Roles map as owner = owner, editor = player, reader = viewer.
"""

from __future__ import annotations

from typing import Any

from campaigns.models import Campaign
from live.engine.tracker import Role
from live.permissions import EDITOR, READER, ROLE_NAMES, RoomObjectAccess, object_for

__all__ = ["EDITOR", "READER", "ROLE_NAMES", "CampaignAccess", "campaign_for"]


def campaign_for(user: Any, campaign_id: int, *, at_least: Role = Role.VIEWER, lock: bool = False) -> tuple[Campaign, Role]:
    """Load ``campaign_id`` for ``user`` with at least the role ``at_least``.

    Raises :class:`rules.errors.NotFound` when the user may not see it (outsiders learn
    nothing) and :class:`rules.errors.NotAllowed` when their role is too low.
    """
    missing = "No such campaign, or it is not shared with you."
    return object_for(user, Campaign.objects.all(), campaign_id, at_least=at_least, lock=lock, missing=missing, field="campaign")


class CampaignAccess(RoomObjectAccess):
    """API permission: a signed-in user who may touch the campaign named in the URL
    (``campaign_id``) with the view's role, checked before the view validates anything
    (:class:`live.permissions.RoomObjectAccess`: 404 for an outsider, 403 for a role too low)."""

    loaders = {"campaign_id": campaign_for}
