"""A refused tap never breaks the page (issue: a game night that holds). For every tracker kind,
in real Chromium on a laptop and a phone: a refused action leaves the navigation, the styles and
the tracker in place, keeps what was typed, and shows the reason beside the control that sent
it, inside the screen."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from battles import fiveparsecs_kind, salvage_kind
from battles.tests.test_fp_tracker_room import setup_json
from live import services
from rules.fixturefiles import FIXTURES_DIR
from tests.asgi_server import asgi_server
from tests.browser import LAPTOP, PHONE, chromium, login
from tests.factories import UserFactory
from tests.tables import load_system_tables

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KINDS: dict[str, dict[str, Any]] = {
    "threat": {},
    "stack": {"check_die": "D100"},
    "stress": {},
    "mass": {"side_a": "Wardens", "side_b": "Raiders"},
    "bughunt-mission": {"priority": "4", "main_characters": "Ripley, Hicks"},
    fiveparsecs_kind.KIND: {"setup": setup_json()},
    salvage_kind.KIND: {"crew": "Ria 1, Bo, Zed 2 bot"},
}


@pytest.fixture
def tables(transactional_db: None, release_live_server_connections: None) -> None:
    load_system_tables("fiveparsecs")
    load_system_tables("bughunt")
    for fixture in ("threat-tracker/threat-tracker.json",):
        call_command("loaddata", str(FIXTURES_DIR / fixture), verbosity=0)


def test_a_refused_action_keeps_every_tracker_page_whole(tables: None) -> None:
    owner = UserFactory.create(username="referee")
    rooms = {kind: services.room_create(user=owner, kind=kind, title=f"Refusal {kind}", options=options, unlisted=True)
             for kind, options in KINDS.items()}  # fmt: skip
    with asgi_server() as base, chromium() as browser:
        for viewport in (LAPTOP, PHONE):
            page = browser.new_context(viewport=viewport, is_mobile=viewport is PHONE, has_touch=viewport is PHONE).new_page()
            login(page, base, "referee")
            for kind, room in rooms.items():
                page.goto(f"{base}/rooms/{room.pk}/")
                tracker = page.locator("#tracker")
                expect(tracker).to_be_visible()
                # Something typed into the tracker before the refused tap survives it.
                typed = tracker.locator("input[type=text]:visible, input:not([type]):visible").first
                had_typed_field = typed.count() > 0
                if had_typed_field:
                    typed.fill("kept")
                undo = page.get_by_role("button", name="Undo last action")
                undo.scroll_into_view_if_needed()
                undo.click()  # nothing to undo yet: refused
                refusal = page.get_by_test_id("refusal")
                expect(refusal).to_have_text("Nothing to undo.")
                # Beside the control that sent it, and inside the screen.
                form = page.locator("form.undo")
                assert form.locator("[data-testid=refusal]").count() == 1, kind
                box = refusal.bounding_box()
                assert box is not None
                assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (kind, viewport, box)
                # The page is whole: navigation, styles, the tracker.
                expect(page.locator("header nav")).to_be_visible()
                expect(tracker).to_be_visible()
                # Pico's styles still apply (a bare fragment in place of the page would lose them).
                assert page.evaluate("getComputedStyle(document.querySelector('header nav')).display") == "flex", kind
                if had_typed_field:
                    assert typed.input_value() == "kept", kind
            page.context.close()
