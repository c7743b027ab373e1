"""Bug Hunt in real Chromium against a real ASGI server: a new squad on the laptop, the mission
set-up wizard, the mission tracker, and a phone at the table following it live."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import expect

from rules.fixturefiles import FIXTURES_DIR
from tests.asgi_server import asgi_server
from tests.browser import chromium, join_by_code, laptop_and_phone
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def players(transactional_db: None, release_live_server_connections: None):  # type: ignore[no-untyped-def]
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    call_command("loaddata", *[str(p) for p in sorted((FIXTURES_DIR / "bughunt").glob("*.json"))], verbosity=0)
    return UserFactory(username="sarge"), UserFactory(username="hudson")


def test_a_new_squad_goes_on_a_mission_with_a_phone_following_the_tracker(players) -> None:  # type: ignore[no-untyped-def]
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "sarge", "hudson")

        # A new squad: three main characters rolled up.
        laptop.goto(f"{base}/bughunt/")
        laptop.get_by_label("Squad name").fill("Kilo")
        for number, name in enumerate(["Vasquez", "Hicks", "Hudson"], start=1):
            laptop.get_by_label(f"Main character {number}").fill(name)
        laptop.get_by_role("button", name="Roll up the squad").click()
        expect(laptop.get_by_test_id("roster")).to_contain_text("Hudson")

        # The mission wizard, with the player's own dice for the Objectives.
        laptop.locator("#new-mission summary").click()
        laptop.get_by_label("My dice: Objectives: three D6, p.185").fill("2, 2, 5")
        laptop.get_by_role("button", name=re.compile("Generate mission 1")).click()
        expect(laptop.get_by_text(re.compile(r"marker 2 .*Vital Objective, counts 2"))).to_be_visible()
        laptop.get_by_role("button", name="Save loadout").click()
        expect(laptop.get_by_test_id("loadout-saved")).to_be_visible()
        laptop.get_by_role("button", name="Start the mission tracker").click()
        expect(laptop.get_by_test_id("bughunt-mission")).to_be_visible()
        expect(laptop.get_by_test_id("round")).to_have_text("1")

        # The phone joins with the code on the laptop's screen and sees the same round.
        join_by_code(phone, base, laptop.get_by_test_id("join-code").inner_text().strip())
        expect(phone.get_by_test_id("now")).to_contain_text("Start of round")

        # The referee rolls Reactions; the phone follows without a reload.
        laptop.get_by_label("My Reaction dice (optional, one per unit)").fill("1, 6, 2, 3")
        laptop.get_by_test_id("roll-reactions").click()
        expect(laptop.locator("#tracker")).to_have_attribute("data-version", "1")
        url = phone.url
        expect(phone.get_by_test_id("now")).to_contain_text("assign Reaction dice", timeout=12_000)
        expect(phone.get_by_test_id("last-result")).to_contain_text("1, 6, 2, 3")
        assert phone.url == url
