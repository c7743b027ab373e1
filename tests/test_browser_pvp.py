"""A PvP battle (Compendium pp.35-37) in real Chromium against a real ASGI server: the captain
invites from the laptop, the friend accepts with their own campaign on a phone (390 px), each
fields their figures, the set-up is rolled, and both play the live tracker from their own seat
until the friend's crew retreats; finishing sends each campaign its side."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from playwright.sync_api import expect

from battles.models import Battle, Meeting
from campaigns import services as campaign_services
from campaigns.models import Campaign, Character
from tests.asgi_server import asgi_server
from tests.browser import chromium, laptop_and_phone
from tests.test_browser_battles import LIVE, players, scroll_width

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]

SHOTS = os.environ.get("DROPSHIP_SHOTS", "")  # a folder: save screenshots of each screen there


def crew(user, name: str, names: list[str]) -> Campaign:  # type: ignore[no-untyped-def]
    campaign = campaign_services.campaign_create(user=user, name=name, options={"crew_size": 4, "dramatic_combat": True})
    for who in names:
        Character.objects.create(
            campaign=campaign, name=who, reactions=2, speed=4, toughness=3, sheet={"equipment": ["Hand gun"]}
        )
    return campaign


def shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def test_two_players_fight_a_pvp_battle_each_on_their_own_device(players) -> None:  # type: ignore[no-untyped-def]
    captain, friend = players
    crew(captain, "Drift", ["Ace", "Bo"])
    crew(friend, "Vex", ["Gil", "Hal"])
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        laptop.goto(f"{base}/battles/fp/")
        laptop.get_by_test_id("pvp-link").click()
        laptop.get_by_test_id("invite").click()
        code = laptop.get_by_test_id("code").inner_text().strip()
        shot(laptop, "pvp-invite-laptop")

        phone.goto(f"{base}/battles/pvp/")
        phone.get_by_test_id("code").fill("WRONG123")
        phone.get_by_test_id("accept").click()
        expect(phone.get_by_test_id("error")).to_contain_text("No open invitation")
        expect(phone.get_by_test_id("accept-form")).to_be_visible()  # the refusal keeps the page whole
        shot(phone, "pvp-refused-phone")
        phone.get_by_test_id("code").fill(code.lower())
        phone.get_by_test_id("accept").click()
        meeting = Meeting.objects.get()
        for page, names in ((phone, ("Gil", "Hal")), (laptop, ("Ace", "Bo"))):
            page.goto(f"{base}/battles/pvp/{meeting.pk}/")
            for name in names:
                page.get_by_label(name).check()
            page.get_by_test_id("field").click()
        shot(laptop, "pvp-fielded-laptop")
        laptop.get_by_test_id("setup-form").get_by_label("Battle reason").select_option("same_prize")
        laptop.get_by_test_id("setup").click()
        expect(laptop.get_by_test_id("setup-card")).to_contain_text("Power Rating 2")
        shot(laptop, "pvp-setup-laptop")
        laptop.get_by_test_id("track").click()
        expect(laptop.get_by_test_id("pvp-battle")).to_be_visible()
        meeting.refresh_from_db()
        assert meeting.setup is not None
        phone.goto(f"{base}/battles/pvp/{meeting.pk}/")
        phone.get_by_test_id("room-link").click()
        expect(phone.get_by_test_id("pvp-battle")).to_be_visible()
        first = meeting.setup["deploys_first"]
        order = [(phone, "g"), (laptop, "h")] if first == "guest" else [(laptop, "h"), (phone, "g")]
        for page, prefix in order:
            expect(page.get_by_test_id("deploy")).to_be_visible(timeout=LIVE)
            page.get_by_test_id(f"deploy-{prefix}1").check()
            page.get_by_test_id(f"deploy-{prefix}2").check()
            page.get_by_test_id("deploy").click()
        expect(laptop.get_by_test_id("round")).to_have_text("1", timeout=LIVE)
        expect(phone.get_by_test_id("round")).to_have_text("1", timeout=LIVE)
        shot(phone, "pvp-round1-phone")
        shot(laptop, "pvp-round1-laptop")
        # Only the side whose seat it is sees its forms: the phone never gets the captain's figures' buttons.
        expect(phone.get_by_test_id("retreat-h1")).to_have_count(0)
        token = meeting.setup["first_player"]
        for page in (laptop, phone) if token == "host" else (phone, laptop):
            expect(page.get_by_test_id("roll-reactions")).to_be_visible(timeout=LIVE)
            page.locator("#reactions-form").get_by_label("My Reaction dice").fill("1, 1")
            page.get_by_test_id("roll-reactions").click()
        for page, other, prefix in ((laptop, phone, "h"), (phone, laptop, "g")):
            # Each device acts on the latest state (a write against an older one is refused as stale).
            expect(page.get_by_test_id("next-phase")).to_be_visible(timeout=LIVE)
            for n in (1, 2):
                expect(page.get_by_test_id(f"take-die-{prefix}{n}")).to_be_visible(timeout=LIVE)
                page.get_by_test_id(f"reaction-die-{prefix}{n}").select_option(str(n))
                page.get_by_test_id(f"take-die-{prefix}{n}").click()
                expect(page.get_by_test_id(f"figure-{prefix}{n}")).to_contain_text("quick", timeout=LIVE)
            expect(other.get_by_test_id(f"figure-{prefix}2")).to_contain_text("quick", timeout=LIVE)
        laptop.get_by_test_id("next-phase").click()
        expect(phone.get_by_test_id("phase")).to_have_text("Quick", timeout=LIVE)
        mover = laptop if token == "host" else phone
        prefix = "h" if token == "host" else "g"
        mover.get_by_test_id(f"activate-{prefix}1").check()
        mover.get_by_test_id("activate").click()
        expect(mover.get_by_test_id(f"figure-{prefix}1")).to_contain_text("acting", timeout=LIVE)
        shot(mover, "pvp-acting-" + ("laptop" if mover is laptop else "phone"))
        assert scroll_width(phone) <= 390
        phone.once("dialog", lambda d: d.accept())
        phone.get_by_test_id("retreat-g1").click()
        expect(phone.get_by_test_id("figure-g1")).to_contain_text("retreated", timeout=LIVE)
        phone.once("dialog", lambda d: d.accept())
        phone.get_by_test_id("retreat-g2").click()
        expect(laptop.get_by_test_id("verdict")).to_contain_text("Drift Holds the Field", timeout=LIVE)
        shot(laptop, "pvp-over-laptop")
        laptop.goto(f"{base}/battles/pvp/{meeting.pk}/")
        laptop.get_by_test_id("finish").click()
        expect(laptop.get_by_test_id("result")).to_contain_text("Holds the Field")
        shot(laptop, "pvp-result-laptop")
        phone.goto(f"{base}/battles/pvp/{meeting.pk}/")
        shot(phone, "pvp-result-phone")
    assert Battle.objects.filter(status="finished").count() == 2
