"""A Stealth mission (Compendium pp.116-122) in real Chromium against a real ASGI server: set up
from a campaign turn on the laptop, played with a co-op member's phone (390 px), finished and
recorded in the turn."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from playwright.sync_api import expect

from battles.models import Battle
from campaigns.selectors import current_turn
from tests.asgi_server import asgi_server
from tests.browser import chromium, laptop_and_phone
from tests.test_browser_battles import (
    LIVE,
    both_quick,
    campaign_at_record_the_battle,
    finish_and_record,
    open_on_two_devices,
    players,
    scroll_width,
    set_up_turn_battle,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]


def test_a_stealth_mission_from_a_campaign_turn_is_played_on_two_devices_and_recorded(players) -> None:  # type: ignore[no-untyped-def]
    captain, _friend = players
    campaign = campaign_at_record_the_battle(captain)

    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        set_up_turn_battle(laptop, base, campaign, "Quiet Job", "stealth")

        # The card says it is a Stealth mission and why the no-minis rules do not apply.
        card = laptop.get_by_test_id("stealth-card")
        expect(card).to_contain_text("Stealth mission")
        expect(laptop.get_by_test_id("stealth-no-minis")).to_contain_text("p.117")
        expect(laptop.get_by_test_id("nominis-start")).to_have_count(0)
        battle = Battle.objects.get(title="Quiet Job")
        objective = battle.setup["mission_type"]["setup"]["objective"]

        open_on_two_devices(laptop, phone, base, battle, "stealth")
        expect(phone.get_by_test_id("stealth-mode")).to_have_text("Stealth")
        both_quick(laptop, phone)

        # Ria finds the target if it must be found, then works the objective.
        def do(what: str, figure: str = "c1") -> None:
            details = laptop.locator("details", has=laptop.get_by_test_id("stealth-do"))
            if details.get_attribute("open") is None:  # opened by hand, it stays open across updates
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
