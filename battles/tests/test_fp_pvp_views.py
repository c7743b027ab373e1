"""The PvP screens (battles/pvp_views.py): invite and accept by code, field, roll the set-up,
open the tracker (each player sees forms only for their own side), refusals keep the page
whole with the message, readers watch."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from battles.models import Meeting
from campaigns import services as campaign_services
from campaigns.models import Campaign, Character
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def crew(user: Any, name: str, names: list[str]) -> Campaign:
    campaign = campaign_services.campaign_create(user=user, name=name, options={"crew_size": 4, "dramatic_combat": True})
    for who in names:
        Character.objects.create(
            campaign=campaign, name=who, reactions=2, speed=4, toughness=3, sheet={"equipment": ["Hand gun"]}
        )
    return campaign


def browser(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_two_players_meet_on_the_screens_and_open_the_tracker(player: Any, other: Any) -> None:
    host, guest = crew(player, "Drift", ["Ace", "Bo"]), crew(other, "Vex", ["Gil", "Hal"])
    me, them = browser(player), browser(other)
    assert "Invite a crew" in me.get("/battles/pvp/").content.decode()
    made = me.post("/battles/pvp/start/", {"do": "invite", "campaign": host.pk})
    meeting = Meeting.objects.get()
    assert made.status_code == 302 and made["Location"] == f"/battles/pvp/{meeting.pk}/"
    assert meeting.code in me.get(made["Location"]).content.decode()
    wrong = them.post("/battles/pvp/start/", {"do": "accept", "code": "NOPE1234", "campaign": guest.pk})
    page = wrong.content.decode()
    assert wrong.status_code == 404 and "No open invitation with that code" in page and 'data-testid="accept-form"' in page
    them.post("/battles/pvp/start/", {"do": "accept", "code": meeting.code, "campaign": guest.pk})
    meeting.refresh_from_db()
    ids = {c.name: c.pk for c in Character.objects.all()}
    mine = me.get(f"/battles/pvp/{meeting.pk}/").content.decode()
    assert 'data-testid="field-host"' in mine and 'data-testid="field-guest"' not in mine  # only your own side's form
    too_many = me.post(f"/battles/pvp/{meeting.pk}/field/", {"version": meeting.version, "figures": [ids["Gil"]]})
    assert too_many.status_code == 400 and "is not a crew member of Drift" in too_many.content.decode()
    me.post(f"/battles/pvp/{meeting.pk}/field/", {"version": meeting.version, "figures": [ids["Ace"], ids["Bo"]]})
    meeting.refresh_from_db()
    them.post(f"/battles/pvp/{meeting.pk}/field/", {"version": meeting.version, "figures": [ids["Gil"], ids["Hal"]]})
    meeting.refresh_from_db()
    body = {
        "version": meeting.version,
        "reason": "",
        "reason_face": "90",
        "seize_host_dice": "2D6",
        "seize_host_target": "9",
        "seize_host_faces": "5 5",
        "seed": "2",
    }
    me.post(f"/battles/pvp/{meeting.pk}/setup/", body)
    meeting.refresh_from_db()
    card = me.get(f"/battles/pvp/{meeting.pk}/").content.decode()
    assert meeting.status == "set_up" and "Same prize" in card and "seized the initiative" in card
    reader = UserFactory(username="watcher")
    campaign_services.member_invite(user=player, campaign_id=host.pk, username="watcher", role="reader")
    opened = them.post(f"/battles/pvp/{meeting.pk}/track/", {"version": meeting.version, "dramatic_combat": "true"})
    meeting.refresh_from_db()
    assert opened.status_code == 302 and opened["Location"] == f"/rooms/{meeting.room_id}/"
    host_view, guest_view = me.get(opened["Location"]).content.decode(), them.get(opened["Location"]).content.decode()
    assert 'data-testid="pvp-battle"' in host_view and "Drift" in guest_view
    # Equal ratings (2 and 2): the D6 decided who deploys first; only that player sees the deploy form.
    assert meeting.setup is not None
    first = meeting.setup["deploys_first"]
    assert 'data-testid="deploy"' in (host_view if first == "host" else guest_view)
    assert 'data-testid="deploy"' not in (guest_view if first == "host" else host_view)
    watch = browser(reader)
    assert watch.get(opened["Location"]).status_code == 200 and watch.get(f"/battles/pvp/{meeting.pk}/").status_code == 200
    assert watch.post(f"/battles/pvp/{meeting.pk}/finish/", {"version": meeting.version}).status_code == 403
    early = me.post(f"/battles/pvp/{meeting.pk}/finish/", {"version": meeting.version})
    assert (
        early.status_code == 400
        and "still going" in early.content.decode()
        and 'data-testid="finish-form"' in early.content.decode()
    )
    stranger = browser(UserFactory(username="nosy"))
    assert stranger.get(f"/battles/pvp/{meeting.pk}/").status_code == 404
