"""Who may do what with a campaign: the shared table's permission check on the campaign's room.

Roles map as owner = owner, editor = player, reader = viewer.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, IsAuthenticated

from campaigns.models import Campaign
from live.engine.tracker import Role
from live.permissions import room_for
from rules import writes
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
    campaigns = writes.lock(Campaign.objects.all()) if lock else Campaign.objects
    return campaigns.get(pk=campaign_id), role


class CampaignAccess(IsAuthenticated):
    """API permission: a signed-in user who may touch the campaign named in the URL
    (``campaign_id``) with the view's role, checked before the view validates anything.

    Reads need a reader; writes need the view's ``write_role`` (editor unless it says owner, or
    reader for what any member may do). Raises :class:`rules.errors.NotFound` (404) for an
    outsider and :class:`rules.errors.NotAllowed` (403) for a role too low, so neither learns
    anything from a validation error. Views without ``campaign_id`` only need a signed-in user.
    """

    def has_permission(self, request: Any, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        campaign_id = view.kwargs.get("campaign_id")
        if campaign_id is not None:
            at_least = READER if request.method in SAFE_METHODS else getattr(view, "write_role", EDITOR)
            campaign_for(request.user, campaign_id, at_least=at_least)
        return True
