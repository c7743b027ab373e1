"""The co-op screens (battles/pvp_views.py with a meeting of kind ``coop``, pp.39-41): invite for
a co-op battle, field each crew up to its own crew size, roll the waves (a refusal keeps the
page whole, naming the field, with the category picked kept), the waves card, and the tracker:
each player rolls their own crew's Reaction dice from their own section, only enemies are
targets, no initiative points or agreement to end."""

from __future__ import annotations

from typing import Any

import pytest

from battles.models import Meeting
from battles.tests.test_fp_pvp_views import browser, crew
from campaigns.models import Character

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def test_two_players_set_up_a_coop_battle_on_the_screens(player: Any, other: Any) -> None:
    host, guest = crew(player, "Drift", ["Ace", "Bo"]), crew(other, "Vex", ["Gil"])
    me, them = browser(player), browser(other)
    assert 'data-testid="kind-coop"' in me.get("/battles/pvp/").content.decode()
    me.post("/battles/pvp/start/", {"do": "invite", "campaign": host.pk, "kind": "coop"})
    meeting = Meeting.objects.get()
    assert meeting.kind == "coop"
    them.post("/battles/pvp/start/", {"do": "accept", "code": meeting.code, "campaign": guest.pk})
    meeting.refresh_from_db()
    ids = {c.name: c.pk for c in Character.objects.all()}
    page = me.get(f"/battles/pvp/{meeting.pk}/").content.decode()
    assert "Expanded co-op battle" in page and "your campaign's crew size" in page and 'name="agreed_crew"' not in page
    me.post(f"/battles/pvp/{meeting.pk}/field/", {"version": meeting.version, "figures": [ids["Ace"], ids["Bo"]]})
    meeting.refresh_from_db()
    them.post(f"/battles/pvp/{meeting.pk}/field/", {"version": meeting.version, "figures": [ids["Gil"]]})
    meeting.refresh_from_db()
    page = me.get(f"/battles/pvp/{meeting.pk}/").content.decode()
    assert 'data-testid="coop-setup-form"' in page and 'data-testid="setup-form"' not in page
    body = {
        "version": meeting.version,
        "host_category": "Hired Muscle",
        "host_numbers": "3",
        "guest_category": "Roving Threats",
        "guest_numbers": "",
        "wave3_numbers": "2",
    }
    refused = me.post(f"/battles/pvp/{meeting.pk}/setup/", body)
    shown = refused.content.decode()
    assert refused.status_code == 400 and 'data-testid="coop-setup-form"' in shown and "numbers" in shown
    assert "<option selected>Hired Muscle</option>" in shown  # what was picked stays picked
    meeting.refresh_from_db()
    assert meeting.status == "accepted" and not meeting.setup
    done = me.post(f"/battles/pvp/{meeting.pk}/setup/", {**body, "guest_numbers": "4", "invasion": ["2"], "seed": "3"})
    assert done.status_code == 302
    meeting.refresh_from_db()
    assert meeting.status == "set_up" and (meeting.setup or {})["third_party"]["waves"][1]["invasion"]
    card = them.get(f"/battles/pvp/{meeting.pk}/").content.decode()
    assert 'data-testid="wave-1"' in card and 'data-testid="wave-3"' in card and "Invasion Threat" in card
    opened = me.post(f"/battles/pvp/{meeting.pk}/track/", {"version": meeting.version, "dramatic_combat": "true"})
    meeting.refresh_from_db()
    assert opened.status_code == 302 and meeting.room_id
    mine = me.get(f"/rooms/{meeting.room_id}/").content.decode()
    theirs = them.get(f"/rooms/{meeting.room_id}/").content.decode()
    assert 'data-testid="roll-reactions-host"' in mine and 'data-testid="roll-reactions-guest"' not in mine
    assert 'data-testid="roll-reactions-guest"' in theirs and 'data-testid="roll-reactions-host"' not in theirs
    assert "initiative point" not in mine and 'data-testid="agree-end"' not in mine
    assert 'data-testid="waves-in"' in mine and "Wave 1" in mine
