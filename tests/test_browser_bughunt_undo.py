"""The Bug Hunt squad page's Undo in real Chromium, on a laptop (1280x800) and a phone (390x844):
the bar with the last change and Undo stays at the bottom of the screen (a thumb's reach), and
a tap takes the change back where it was tapped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from bughunt import services
from bughunt.models import Squad
from tests.asgi_server import asgi_server
from tests.browser import LAPTOP, PHONE, chromium, login
from tests.test_browser_bughunt import players

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]
SHOTS = Path(os.environ.get("DROPSHIP_SHOTS", "/tmp/shots-bh-squadio"))


@pytest.mark.parametrize(("size", "touch"), [(LAPTOP, False), (PHONE, True)], ids=["laptop", "phone"])
def test_undo_sits_at_the_bottom_of_the_squad_page_and_takes_the_change_back(players, size, touch) -> None:  # type: ignore[no-untyped-def]
    sarge, _hudson = players
    squad = services.squad_create(user=sarge, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=3)
    services.squad_update(user=sarge, squad_id=squad.pk, version=Squad.objects.get(pk=squad.pk).version, name="Kilo Two")

    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        page = browser.new_context(viewport=size, is_mobile=touch, has_touch=touch).new_page()
        login(page, base, "sarge")
        page.goto(f"{base}/bughunt/{squad.pk}/")
        bar = page.get_by_test_id("undo-bar")
        expect(bar).to_contain_text("Squad changed: name.")
        button = page.get_by_test_id("undo").get_by_role("button", name="Undo")
        box = button.bounding_box()
        assert box is not None and box["y"] + box["height"] <= size["height"] and box["y"] >= size["height"] * 0.75
        assert box["height"] >= 44  # a finger's size
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"squad-undo-{size['width']}.png"))
        button.tap() if touch else button.click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Kilo")
        expect(page.get_by_test_id("undo-result")).to_contain_text("Undid: Squad changed: name.")  # where it was tapped
        expect(page.get_by_test_id("undo")).to_have_count(0)  # nothing left to undo
        page.screenshot(path=str(SHOTS / f"squad-undone-{size['width']}.png"))
