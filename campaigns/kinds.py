"""The campaigns app's tracker kinds, registered with the live app by ``CampaignsConfig.ready()``.

``fiveparsecs-campaign``: the campaign's shared table (see :mod:`campaigns.tracker_kind`).
"""

from __future__ import annotations

from campaigns import tracker_kind
from live.registry import TrackerKind

CAMPAIGN = TrackerKind(
    kind=tracker_kind.KIND,
    title="Five Parsecs campaign",
    app="campaigns",
    reducer=tracker_kind.reducer,
    initial_state=tracker_kind.initial_state,
    template="campaigns/room.html",
    description="The campaign's turn, step, credits and crew, live on every phone.",
    listed=False,
    # Its members are the campaign's editors and readers: only the owner's invitation
    # (logged in the campaign log) seats anyone, never a join code.
    invite_only=True,
)

KINDS: tuple[TrackerKind, ...] = (CAMPAIGN,)
