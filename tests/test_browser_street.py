"""A Street fight (Compendium pp.116, 123-136) in real Chromium against a real ASGI server: set up
from a campaign turn on the laptop (picked as the battle type), played with a co-op member's
phone (390 px), finished and recorded in the turn.

The set-up form rolls the objective (D100, pp.127-128); Ria works it through the tracker's own
controls with typed dice that succeed. Surveil individual needs three rounds of watching, so that
fight is left unwon and recorded as such; every other objective is done and recorded as won."""

from __future__ import annotations

import pytest
from django.conf import settings
from playwright.sync_api import Locator, Page, expect

from battles.models import Battle
from campaigns.selectors import current_turn
from tests import test_browser_battles as tb
from tests.asgi_server import asgi_server
from tests.browser import chromium, laptop_and_phone
from tests.test_browser_battles import players, shown

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]


def tap(card: Locator, name: str, face: str | None = None) -> None:
    """Press the figure card's ``name`` button, typing ``face`` in its form's die first."""
    form = card.locator("form", has=card.page.get_by_role("button", name=name))
    if face is not None:
        form.locator("input[name=face]").fill(face)
    form.get_by_role("button", name=name).click()


def owner_tool(page: Page, name: str) -> None:
    """Press ``name`` in the owner tools, opening them first if they are shut (opened by hand,
    they stay open when a pushed update swaps the tracker)."""
    tools = page.get_by_test_id("owner-tools")
    if tools.get_attribute("open") is None:
        tools.locator("summary").first.click()
    tools.get_by_role("button", name=name).click()


def work_objective(page: Page, key: str) -> None:
    """Ria (c1, on the laptop) works the objective with typed dice that succeed."""
    ria = page.get_by_test_id("figure-c1")
    if key == "contact":
        page.get_by_test_id("contact-c1").click()
    elif key == "locate":
        tap(ria, "Check an Individual marker", "1")  # 1 is at or under 1 marker removed: found (p.127)
        expect(page.get_by_test_id("individual")).to_have_text("wandering", timeout=tb.LIVE)
        owner_tool(page, "The Individual is off a table edge")
    elif key == "rescue":
        tap(ria, 'Within 3": corral (5+)', "6")
        expect(page.get_by_test_id("last-result")).to_contain_text("reaches the Individual", timeout=tb.LIVE)
        owner_tool(page, "The Individual is off a table edge")
    elif key == "confront":
        tap(ria, 'Within 2": confront', "1")  # 1-2: Terrified (p.127)
        expect(page.get_by_test_id("objective")).to_contain_text("Confronted: Terrified", timeout=tb.LIVE)
        owner_tool(page, "The crew won the Brawl against the Individual")
    elif key in ("deliver", "retrieve"):
        tap(ria, "Take the Package")
        expect(page.get_by_test_id("package")).to_have_text("carried", timeout=tb.LIVE)
        if key == "deliver":
            tap(ria, "Place it at the center")
    elif key == "surveil":
        tap(ria, 'Watching from 4-9"')
        expect(page.get_by_test_id("objective")).to_contain_text("this one counts", timeout=tb.LIVE)


def test_a_street_fight_from_a_campaign_turn_is_played_on_two_devices_and_recorded(players) -> None:  # type: ignore[no-untyped-def]
    captain, _friend = players
    campaign = tb.campaign_at_record_the_battle(captain)

    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        tb.set_up_turn_battle(laptop, base, campaign, "Neon Alley", "street_fight")

        # The card says it is a Street fight and why the no-minis rules are not offered.
        expect(laptop.get_by_test_id("street-card")).to_contain_text("Street fight")
        expect(laptop.get_by_test_id("street-no-minis")).to_contain_text("Street Fight objectives")
        expect(laptop.get_by_test_id("nominis-start")).to_have_count(0)
        expect(laptop.locator("main")).not_to_contain_text("set up as a conventional one")
        battle = Battle.objects.get(title="Neon Alley")
        key = battle.setup["mission_type"]["setup"]["objective"]["key"]
        laptop.screenshot(path="/tmp/street-laptop-1280-card.png", full_page=True)

        tb.open_on_two_devices(laptop, phone, base, battle, "street-fight")
        expect(laptop.get_by_test_id("figure-c1")).to_contain_text("Ria")
        expect(phone.get_by_test_id("phase")).to_have_text("Set-up")
        tb.both_quick(laptop, phone)

        work_objective(laptop, key)
        if key not in ("surveil", "retrieve"):  # a retrieved Package counts once it is off the table (p.128)
            shown(laptop, "objective", "done", f"the {key} objective on the laptop")
            shown(phone, "objective", "done", "the objective on the phone")

        # Bo slips off the table from the phone; Ria follows from the laptop.
        assert tb.scroll_width(phone) <= 390
        phone.evaluate("window.scrollTo(0, 0)")
        phone.screenshot(path="/tmp/street-phone-390.png", full_page=False)
        phone.screenshot(path="/tmp/street-phone-390-full.png", full_page=True)
        laptop.screenshot(path="/tmp/street-laptop-1280.png", full_page=False)
        bo = phone.get_by_test_id("figure-c2")
        tb.caught_up(laptop, phone)
        phone.get_by_test_id("escape-c2").click()  # one tap: a push waits for the finger to lift
        expect(bo.locator("mark")).to_have_text("escaped")
        shown(laptop, "figure-c2", "escaped", "Bo off the table, on the laptop")
        laptop.get_by_test_id("escape-c1").click()
        expect(laptop.get_by_test_id("verdict")).to_be_visible(timeout=tb.LIVE)
        expect(laptop.get_by_test_id("end-battle")).to_have_count(0)  # over: nothing left to end
        expect(phone.get_by_test_id("verdict")).to_be_visible(timeout=tb.LIVE)
        won = key != "surveil"
        expect(phone.get_by_test_id("verdict")).to_contain_text("Mission won." if won else "Mission not won.")
        laptop.screenshot(path="/tmp/street-laptop-1280-over.png", full_page=False)

        tb.finish_and_record(laptop, base, battle)
        expect(laptop.get_by_test_id("street-result")).to_contain_text("off the table: Ria, Bo")
        laptop.screenshot(path="/tmp/street-laptop-1280-result.png", full_page=False)
        turn = current_turn(campaign)
        assert turn is not None and turn.facts["battle"]["won"] is won
        assert turn.facts["battle"]["held_field"] is False and turn.facts["battle"]["casualties"] == []
