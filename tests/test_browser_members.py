"""In real Chromium against a real ASGI server: the owner's screen shows a player joining without
a reload (the member list and the Played-by choices), and the owner removes them from it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import expect

from live import services
from rules.fixturefiles import FIXTURES_DIR
from tests.asgi_server import asgi_server
from tests.browser import PHONE, chromium, join_by_code, laptop_and_phone, login
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Set DROPSHIP_SCREENSHOTS=/some/folder to keep pictures of the members area.
SHOTS = os.environ.get("DROPSHIP_SCREENSHOTS", "")


@pytest.fixture
def table(transactional_db: None, release_live_server_connections: None):  # type: ignore[no-untyped-def]
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "threat-tracker" / "threat-tracker.json"), verbosity=0)
    referee = UserFactory(username="referee")
    UserFactory(username="hudson")
    return services.room_create(user=referee, kind="threat", title="Operations")


def test_the_owner_sees_a_player_join_without_reload_and_removes_them(table) -> None:  # type: ignore[no-untyped-def]
    room = table
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "referee", "hudson")
        laptop.goto(f"{base}/rooms/{room.pk}/")
        played_by = laptop.get_by_label("Played by")
        expect(played_by.locator("option")).to_have_count(2)  # the referee, and the owner's own place
        owner_url = laptop.url

        join_by_code(phone, base, laptop.get_by_test_id("join-code").inner_text().strip())
        expect(phone.get_by_test_id("threat-tracker")).to_be_visible()

        # No reload on the laptop: the members event redraws the list and the choices.
        expect(laptop.get_by_test_id("member-hudson")).to_have_attribute("data-member-role", "player", timeout=12_000)
        expect(played_by.locator("option", has_text="hudson")).to_have_count(1)
        assert laptop.url == owner_url
        if SHOTS:
            laptop.get_by_test_id("members").screenshot(path=str(Path(SHOTS) / "members-1280x800.png"))
            owner_phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
            login(owner_phone, base, "referee")
            owner_phone.goto(f"{base}/rooms/{room.pk}/")
            owner_phone.get_by_test_id("members").scroll_into_view_if_needed()
            owner_phone.get_by_test_id("members").screenshot(path=str(Path(SHOTS) / "members-390x844.png"))
            owner_phone.screenshot(path=str(Path(SHOTS) / "members-390x844-screen.png"))

        # A role change, then the removal, from the owner's screen.
        laptop.get_by_test_id("make-hudson").click()
        # The role itself, not the text "viewer" (the player's row already shows "Make viewer").
        expect(laptop.get_by_test_id("member-hudson")).to_have_attribute("data-member-role", "viewer")
        laptop.once("dialog", lambda dialog: dialog.accept())
        laptop.get_by_test_id("remove-hudson").click()
        expect(laptop.get_by_test_id("member-hudson")).to_have_count(0)
        expect(played_by.locator("option", has_text="hudson")).to_have_count(0)
        expect(laptop.locator("#room-log-entries")).to_contain_text("referee removed hudson (was viewer).")

        # The removed player has lost the table at once.
        response = phone.goto(f"{base}/rooms/{room.pk}/")
        assert response is not None and response.status == 404
