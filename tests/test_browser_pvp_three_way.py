"""A three-way PvP battle (Compendium p.37) with three users on three devices, in real Chromium
against a real ASGI server: the host on a laptop, the guest on a phone and a third user, the
referee, on another phone. The referee joins by the battle's code from their own PvP page, sees
the tracker live, and their taps move the third party in the Enemy Actions phase: both players
see it on their own screens. The two-player steps before (invite, accept, field, set-up) are
the PvP browser test's; here they run through the services."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from playwright.sync_api import expect

from battles import pvp_services
from battles.models import Meeting
from live.services import room_act
from tests.asgi_server import asgi_server
from tests.browser import PHONE, chromium, laptop_and_phone, login
from tests.factories import UserFactory
from tests.test_browser_battles import LIVE, players, scroll_width
from tests.test_browser_pvp import crew, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]

SHOTS = os.environ.get("DROPSHIP_SHOTS", "")


def _fielded(captain, friend) -> Meeting:  # type: ignore[no-untyped-def]
    """Invited, accepted and both sides fielded, through the services."""
    host = crew(captain, "Drift", ["Ace", "Bo"])
    guest = crew(friend, "Vex", ["Gil", "Hal"])
    meeting = pvp_services.meeting_invite(user=captain, campaign_id=host.pk)
    meeting = pvp_services.meeting_accept(user=friend, code=meeting.code, campaign_id=guest.pk)
    meeting = pvp_services.meeting_field(
        user=captain, meeting_id=meeting.pk, version=meeting.version, figures=list(host.characters.values_list("pk", flat=True))
    )
    meeting = pvp_services.meeting_field(
        user=friend, meeting_id=meeting.pk, version=meeting.version, figures=list(guest.characters.values_list("pk", flat=True))
    )
    return meeting


def _to_enemy_phase(meeting: Meeting, captain, friend) -> None:  # type: ignore[no-untyped-def]
    """Deploy, Reactions and the Quick Action phase, played through the live service by the two players."""
    room = Meeting.objects.get(pk=meeting.pk).room
    assert room is not None

    def act(user, kind: str, **payload) -> dict:  # type: ignore[no-untyped-def,type-arg]
        room.refresh_from_db()
        return room_act(user=user, room_id=room.pk, type=kind, payload=payload, version=room.version).room.state

    state = room.state
    for _ in range(2):
        state = act(captain, "deploy", figures="h1 h2") if state["turn"] == "host" else act(friend, "deploy", figures="g1 g2")
    for _ in range(2):  # the First Player rolls first
        state = act(captain if state["turn"] == "host" else friend, "roll_reactions", faces="1, 1")
    for user, fid in ((captain, "h1"), (captain, "h2"), (friend, "g1"), (friend, "g2")):
        act(user, "assign_reaction", figure=fid, die=int(fid[1]))
    state = act(captain, "next_phase")
    while state["turn"]:
        user = captain if state["turn"] == "host" else friend
        fid = next(f["id"] for f in state["figures"] if f["side"] == state["turn"] and f["slot"] == "quick" and not f["acted"])
        state = act(user, "activate", figures=fid)
    assert act(captain, "next_phase")["phase"] == "enemy"


def test_a_third_user_referees_and_runs_the_third_party(players) -> None:  # type: ignore[no-untyped-def]
    captain, friend = players
    UserFactory(username="umpire")
    meeting = _fielded(captain, friend)
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        ref = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        login(ref, base, "umpire")
        phone.goto(f"{base}/battles/pvp/{meeting.pk}/")
        phone.get_by_test_id("third-party").check()
        shot(phone, "three-way-setup-form-phone")
        laptop.goto(f"{base}/battles/pvp/")
        shot(laptop, "three-way-list-laptop")
        # The host rolls a three-way set-up on the laptop: without a category it is refused, the page whole.
        laptop.goto(f"{base}/battles/pvp/{meeting.pk}/")
        form = laptop.get_by_test_id("setup-form")
        form.get_by_label("Battle reason").select_option("same_prize")
        form.get_by_test_id("third-party").check()
        form.get_by_test_id("third-party-numbers").fill("3")
        form.get_by_test_id("third-party-face").fill("10")
        form.get_by_test_id("setup").click()
        expect(laptop.get_by_test_id("error")).to_contain_text("third_party_category")
        expect(laptop.get_by_test_id("setup-form")).to_be_visible()
        shot(laptop, "three-way-setup-refused-laptop")
        laptop.get_by_test_id("third-party").check()
        laptop.get_by_test_id("third-party-category").select_option("Hired Muscle")
        laptop.get_by_test_id("third-party-face").fill("10")
        laptop.get_by_test_id("setup").click()
        meeting.refresh_from_db()
        assert meeting.setup is not None and meeting.setup["third_party"]["arrival"] == "neutral_edge"
        expect(laptop.get_by_test_id("referee-card")).to_contain_text(meeting.code)
        expect(laptop.get_by_test_id("third-party-line")).to_contain_text("Hired Muscle")
        shot(laptop, "three-way-setup-laptop")
        # The referee joins by the battle's code on their own phone; a player's try is refused, the page whole.
        phone.goto(f"{base}/battles/pvp/")
        phone.get_by_test_id("referee-code").fill(meeting.code)
        phone.get_by_test_id("referee-join").click()
        expect(phone.get_by_test_id("error")).to_contain_text("cannot referee")
        expect(phone.get_by_test_id("accept-form")).to_be_visible()
        ref.goto(f"{base}/battles/pvp/")
        shot(ref, "three-way-referee-join-phone")
        ref.get_by_test_id("referee-code").fill(meeting.code.lower())
        ref.get_by_test_id("referee-join").click()
        expect(ref.get_by_test_id("referee-name")).to_have_text("umpire")
        shot(ref, "three-way-referee-meeting-phone")
        laptop.reload()
        laptop.get_by_test_id("track").click()
        expect(laptop.get_by_test_id("pvp-battle")).to_be_visible()
        _to_enemy_phase(meeting, captain, friend)
        meeting.refresh_from_db()
        for page in (laptop, phone, ref):
            page.goto(f"{base}/rooms/{meeting.room_id}/")
            expect(page.get_by_test_id("phase")).to_have_text("Third party")
            expect(page.get_by_test_id("side-third")).to_contain_text("the referee")
        # Only the referee gets the third party's controls.
        expect(laptop.get_by_test_id("third-activate")).to_have_count(0)
        expect(phone.get_by_test_id("third-activate")).to_have_count(0)
        expect(ref.get_by_test_id("retreat-g1")).to_have_count(0)
        shot(ref, "three-way-enemy-referee-phone")
        ref.get_by_test_id("activate-t1").check()
        ref.get_by_test_id("third-activate").click()
        for page in (laptop, phone, ref):
            expect(page.get_by_test_id("acting-t1")).to_be_visible(timeout=LIVE)
        ref.get_by_test_id("target-t1").select_option("g1")
        ref.get_by_test_id("attack-t1").locator("select[name=mode]").select_option("brawl")
        ref.get_by_test_id("resolve-t1").click()
        for page in (laptop, phone):
            expect(page.get_by_test_id("last-result")).not_to_contain_text("acts with", timeout=LIVE)
        shot(phone, "three-way-after-attack-phone")
        shot(laptop, "three-way-after-attack-laptop")
        ref.get_by_test_id("third-next-phase").click()
        for page in (laptop, phone):
            expect(page.get_by_test_id("phase")).to_have_text("Slow", timeout=LIVE)
        assert scroll_width(ref) <= 390 and scroll_width(phone) <= 390
        meeting.refresh_from_db()
        assert meeting.room is not None and meeting.room.state["referee"] == str(meeting.referee_id)
        # The referee leaves from their phone: the players' trackers say either player runs it now.
        laptop.goto(f"{base}/battles/pvp/{meeting.pk}/")
        expect(laptop.get_by_test_id("referee-leave-button")).to_have_text("Free the referee's seat")
        shot(laptop, "three-way-referee-free-laptop")
        laptop.goto(f"{base}/rooms/{meeting.room_id}/")
        ref.goto(f"{base}/battles/pvp/{meeting.pk}/")
        expect(ref.get_by_test_id("referee-leave-button")).to_be_visible()
        shot(ref, "three-way-referee-leave-phone")
        ref.get_by_test_id("referee-leave-button").click()
        expect(ref.get_by_test_id("referee-code")).to_be_visible()  # back on their PvP page
        for page in (laptop, phone):
            expect(page.get_by_test_id("third-runner")).to_have_text("either player", timeout=LIVE)
        shot(laptop, "three-way-referee-left-laptop")
    meeting.refresh_from_db()
    assert meeting.referee_id is None and meeting.room is not None and meeting.room.state["referee"] is None
