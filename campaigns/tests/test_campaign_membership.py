"""A campaign's members are the owner's invitations, each in the campaign log: its room's join
code (24 hours) never makes its holder an editor or a reader of the campaign."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from campaigns import services
from campaigns.models import Campaign
from campaigns.permissions import campaign_for
from live import services as live_services
from live.models import JoinCode, Membership
from rules.engine.dice import Dice
from rules.errors import DropshipError, NotFound

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(fiveparsecs_tables: None, player: Any) -> Campaign:
    return services.campaign_create(user=player, name="Test crew", options={}, dice=Dice(seed=1))


def test_a_campaign_room_has_no_join_code_and_none_can_be_issued(campaign: Campaign, player: Any) -> None:
    assert not JoinCode.objects.filter(room=campaign.room).exists()
    assert live_services.room_code(campaign.room) is None
    with pytest.raises(DropshipError) as refused:
        live_services.room_code_rotate(user=player, room_id=campaign.room_id)
    assert refused.value.field == "code" and "invited by its owner" in refused.value.message
    assert not JoinCode.objects.filter(room=campaign.room).exists()


def test_an_outsider_holding_a_campaign_rooms_code_is_not_seated_and_gets_no_campaign_rights(
    campaign: Campaign, other: Any
) -> None:
    # A code issued before campaign rooms became invite-only, still within its 24 hours.
    code = JoinCode.objects.create(room=campaign.room, code="CAMPAIGN", expires=timezone.now() + timedelta(hours=20))
    lines = campaign.log.count()
    with pytest.raises(DropshipError) as refused:
        live_services.room_join(user=other, code=code.code)
    assert refused.value.field == "code" and "Test crew" not in refused.value.message
    assert not Membership.objects.filter(room=campaign.room, user=other).exists()
    with pytest.raises(NotFound):
        campaign_for(other, campaign.pk)
    with pytest.raises(NotFound):
        services.campaign_adjust(user=other, campaign_id=campaign.pk, version=campaign.version, credits=50)
    assert campaign.log.count() == lines


def test_the_campaign_rooms_member_roles_change_only_through_the_logged_invitation(
    campaign: Campaign, player: Any, other: Any
) -> None:
    reader = services.member_invite(user=player, campaign_id=campaign.pk, username=other.username, role="reader")
    with pytest.raises(DropshipError) as refused:
        live_services.membership_set_role(
            user=player, room_id=campaign.room_id, user_id=other.pk, role="player", version=reader.room.version
        )
    assert refused.value.field == "role"
    reader.refresh_from_db()
    assert reader.role == "viewer"
    services.member_invite(user=player, campaign_id=campaign.pk, username=other.username, role="editor")
    services.member_remove(user=player, campaign_id=campaign.pk, member_id=reader.pk)
    assert list(campaign.log.filter(kind="member").order_by("id").values_list("text", flat=True)) == [
        "stranger joins as reader",
        "stranger is now editor (was reader)",
        "stranger leaves (editor)",
    ]


def test_asking_for_a_campaign_rooms_code_on_its_page_is_refused_with_a_message(campaign: Campaign, player: Any) -> None:
    from django.test import Client

    browser = Client()
    browser.force_login(player)
    response = browser.post(f"/rooms/{campaign.room_id}/code/rotate/", follow=True)
    assert response.status_code == 200 and b"invited by its owner" in response.content
    assert not JoinCode.objects.filter(room=campaign.room).exists()


def test_the_campaign_rooms_screen_refuses_role_changes_and_points_to_the_invitation(
    campaign: Campaign, player: Any, other: Any
) -> None:
    from django.test import Client

    services.member_invite(user=player, campaign_id=campaign.pk, username=other.username, role="reader")
    browser = Client()
    browser.force_login(player)
    page = browser.get(f"/rooms/{campaign.room_id}/")
    assert b'data-testid="members-invite-only"' in page.content and b"make-stranger" not in page.content
    version = Campaign.objects.get(pk=campaign.pk).room.version
    refused = browser.post(
        f"/rooms/{campaign.room_id}/members/{other.pk}/role/", {"role": "player", "version": version}, HTTP_HX_REQUEST="true"
    )
    assert refused.status_code == 400 and "invited by its owner" in refused["HX-Trigger"]
    assert Membership.objects.get(room=campaign.room, user=other).role == "viewer"
