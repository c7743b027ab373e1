"""A Stealth mission (Compendium pp.116-122) in real Chromium against a real ASGI server: set up
from a campaign turn on the laptop, played with a co-op member's phone (390 px), finished and
recorded in the turn."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from battles.models import Battle
from campaigns.models import Campaign
from campaigns.selectors import current_turn
from tests.asgi_server import asgi_server
from tests.browser import chromium, laptop_and_phone
from tests.test_browser_battles import LIVE, campaign_at_record_the_battle, players, scroll_width

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]


def set_up_from_the_turn(laptop: Page, base: str, campaign: Campaign, title: str, battle_type: str) -> None:
    """On the laptop, from the campaign's turn page: set up this turn's battle as ``battle_type``
    against rolled elite Criminal Elements."""
    laptop.goto(f"{base}/campaigns/{campaign.pk}/turn/")
    laptop.get_by_test_id("battle-handoff").get_by_role("button", name="Set up this turn's battle").click()
    form = laptop.get_by_test_id("setup-form")
    form.get_by_label("Title").fill(title)
    form.get_by_label("Battle type").select_option(battle_type)
    form.get_by_label("Elite enemy, rolled (p.48)").check()
    form.get_by_label("Category").select_option("Criminal Elements")
    form.get_by_label("Numbers from my core roll").fill("3")
    form.get_by_test_id("basic-weapon").fill("Hand gun")
    laptop.get_by_test_id("create").click()


def finish_and_record(laptop: Page, base: str, battle: Battle) -> None:
    """Finish the tracked battle on its card: the result comes from the tracker and is recorded in the turn."""
    laptop.goto(f"{base}/battles/fp/{battle.pk}/")
    laptop.get_by_test_id("finish").locator("summary").click()
    laptop.get_by_test_id("finish-button").click()
    result = laptop.get_by_test_id("result")
    expect(result).to_contain_text("From the live tracker")
    expect(result).to_contain_text("Recorded in turn")


def test_a_stealth_mission_from_a_campaign_turn_is_played_on_two_devices_and_recorded(players) -> None:  # type: ignore[no-untyped-def]
    captain, _friend = players
    campaign = campaign_at_record_the_battle(captain)

    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        set_up_from_the_turn(laptop, base, campaign, "Quiet Job", "stealth")

        # The card says it is a Stealth mission and why the no-minis rules do not apply.
        card = laptop.get_by_test_id("stealth-card")
        expect(card).to_contain_text("Stealth mission")
        expect(laptop.get_by_test_id("stealth-no-minis")).to_contain_text("p.117")
        expect(laptop.get_by_test_id("nominis-start")).to_have_count(0)
        battle = Battle.objects.get(title="Quiet Job")
        objective = battle.setup["mission_type"]["setup"]["objective"]

        laptop.get_by_test_id("track").click()
        expect(laptop.get_by_test_id("stealth")).to_be_visible()
        assert re.search(r"/rooms/\d+/$", laptop.url)
        laptop.get_by_test_id("player-c2").select_option(label="played by friend")
        expect(laptop.get_by_test_id("last-result")).to_contain_text("Bo is now played by a player", timeout=LIVE)

        phone.goto(f"{base}/battles/fp/{battle.pk}/")
        phone.get_by_test_id("room-link").click()
        expect(phone.get_by_test_id("stealth-mode")).to_have_text("Stealth")

        laptop.get_by_test_id("next-phase").click()
        laptop.locator("#reactions-form").get_by_label("My Reaction dice").fill("1, 1")
        laptop.get_by_test_id("roll-reactions").click()
        bo = phone.get_by_test_id("figure-c2")
        for _ in range(3):  # a tap that lands while a pushed update swaps the card is tapped again
            expect(bo.get_by_role("button", name="Take this die")).to_be_visible(timeout=LIVE)
            bo.get_by_label("Reaction die").select_option("1")
            bo.get_by_role("button", name="Take this die").click()
            try:
                expect(bo).to_contain_text("die 1: quick", timeout=4000)
                break
            except AssertionError:
                continue
        expect(bo).to_contain_text("die 1: quick")  # the phone's own tap went through
        expect(laptop.get_by_test_id("figure-c2")).to_contain_text("die 1: quick", timeout=LIVE)
        ria = laptop.get_by_test_id("figure-c1")
        ria.get_by_label("Reaction die").select_option("2")
        ria.get_by_role("button", name="Take this die").click()
        expect(ria).to_contain_text("die 1: quick")
        laptop.get_by_test_id("next-phase").click()
        expect(phone.get_by_test_id("phase")).to_have_text("Quick", timeout=LIVE)

        # Ria finds the target if it must be found, then works the objective.
        def do(what: str, figure: str = "c1") -> None:
            details = laptop.locator("details", has=laptop.get_by_test_id("stealth-do"))
            if not details.get_attribute("open"):
                details.locator("summary").click()
            work = laptop.locator("form", has=laptop.get_by_test_id("stealth-do"))
            work.get_by_label("Crew figure").select_option(figure)
            work.get_by_test_id("stealth-do").select_option(what)
            work.get_by_test_id("stealth-go").click()

        for _ in range(3):
            before = laptop.get_by_test_id("stealth-objective").inner_text()
            if not objective["must_locate"] or "to find" not in before:
                break
            do("search")
            expect(laptop.get_by_test_id("stealth-objective")).not_to_have_text(before, timeout=LIVE)
        if objective["key"] == "rescue":
            laptop.get_by_test_id("stealth-tools").locator("summary").click()
            laptop.get_by_role("button", name="The Individual wandered off the table").click()
        else:
            do("objective")
        expect(laptop.get_by_test_id("stealth-objective")).to_have_text(re.compile("done|carried"), timeout=LIVE)
        expect(phone.get_by_test_id("stealth-objective")).to_have_text(re.compile("done|carried"), timeout=LIVE)

        # Bo slips out over an edge from the phone; Ria follows from the laptop.
        phone.evaluate("window.scrollTo(0, 0)")
        phone.screenshot(path="/tmp/stealth-phone-390-play.png", full_page=True)
        phone.locator("details", has=phone.get_by_test_id("stealth-do")).locator("summary").click()
        leave = phone.locator("form", has=phone.get_by_test_id("stealth-do"))
        leave.get_by_label("Crew figure").select_option("c2")
        leave.get_by_test_id("stealth-do").select_option("exfiltrate")
        leave.get_by_test_id("stealth-go").click()
        expect(laptop.get_by_test_id("figure-c2").locator("mark")).to_have_text("exfiltrated", timeout=LIVE)
        assert scroll_width(phone) <= 390
        phone.get_by_test_id("stealth").scroll_into_view_if_needed()
        phone.screenshot(path="/tmp/stealth-phone-390.png", full_page=False)
        do("exfiltrate")
        expect(laptop.get_by_test_id("mission-over")).to_contain_text("is done")
        expect(phone.get_by_test_id("mission-over")).to_contain_text("is done", timeout=LIVE)
        laptop.screenshot(path="/tmp/stealth-laptop-1280.png", full_page=False)

        finish_and_record(laptop, base, battle)
        turn = current_turn(campaign)
        assert turn is not None and turn.facts["battle"]["won"] is True
