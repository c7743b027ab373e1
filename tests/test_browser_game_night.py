"""A game night, end to end, in real Chromium against the app as ``make run`` serves it (one
ASGI process; SQLite unless DATABASE_URL says otherwise): the referee's laptop and two phones,
a player and a viewer, play a combat threat tracker, a Bug Hunt mission and a Five Parsecs
battle together. No request answers a server error; every tap's result shows on the screen of
the device that tapped; a refused tap leaves the page whole; the others' screens follow live;
who joins shows on the referee's screen without a reload."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from live import services
from tests.asgi_server import asgi_server
from tests.browser import LAPTOP, PHONE, chromium, join_by_code, login
from tests.factories import UserFactory
from tests.phone_scenes import bughunt_mission, fiveparsecs_battle
from tests.test_browser_refusals import tables  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LIVE = 12_000  # ms: SSE, or the 5 s poll when the stream is down


def _watch(page: Page, failures: list[str]) -> Page:
    page.on("response", lambda r: failures.append(f"{r.status} {r.request.method} {r.url}") if r.status >= 500 else None)
    return page


def _on_screen(page: Page, test_id: str) -> None:
    box = page.get_by_test_id(test_id).bounding_box()
    height = page.viewport_size["height"] if page.viewport_size else 0
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (test_id, box)


def _whole(page: Page) -> None:
    expect(page.locator("header nav")).to_be_visible()
    expect(page.locator("#tracker")).to_be_visible()
    assert page.evaluate("getComputedStyle(document.querySelector('header nav')).display") == "flex"


def _refused_undo(page: Page) -> None:
    """The tap on Undo of someone else's action is refused beside it, on screen, the page whole."""
    page.get_by_role("button", name="Undo last action").click()
    expect(page.get_by_test_id("refusal")).to_contain_text("Only the owner or whoever made the last action")
    _on_screen(page, "refusal")
    _whole(page)


def test_a_laptop_and_two_phones_play_three_trackers_without_a_server_error(tables: None) -> None:  # noqa: F811
    referee = UserFactory.create(username="referee")
    hudson = UserFactory.create(username="hudson")
    ferro = UserFactory.create(username="ferro")
    threat = services.room_create(user=referee, kind="threat", title="Threat night")
    mission, _ = bughunt_mission(referee, hudson)
    battle, kit_and_zed = fiveparsecs_battle(referee, hudson)
    for room in (mission, battle):
        services.room_share(room, {ferro.pk: "viewer"})
    failures: list[str] = []
    with asgi_server() as base, chromium() as browser:
        laptop = _watch(browser.new_context(viewport=LAPTOP).new_page(), failures)
        player = _watch(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page(), failures)
        viewer = _watch(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page(), failures)
        for page, name in ((laptop, "referee"), (player, "hudson"), (viewer, "ferro")):
            login(page, base, name)

        # -- the combat threat and action tracker ----------------------------------------------
        laptop.goto(f"{base}/rooms/{threat.pk}/")
        code = laptop.get_by_test_id("join-code").inner_text().strip()
        join_by_code(player, base, code)
        join_by_code(viewer, base, code)
        # Both show up on the referee's screen without a reload; the referee makes Ferro a viewer.
        expect(laptop.get_by_test_id("member-ferro")).to_be_visible(timeout=LIVE)
        expect(laptop.locator("select[name=owner] option", has_text="hudson")).to_have_count(1, timeout=LIVE)
        laptop.get_by_test_id("make-ferro").click()
        # The role itself, not the text "viewer" (a player's row already shows "Make viewer").
        expect(laptop.get_by_test_id("member-ferro")).to_have_attribute("data-member-role", "viewer")
        laptop.get_by_label("Add character").fill("Vasquez")
        laptop.locator("form:has(input[name=name]) select[name=owner]").select_option(label="hudson")
        laptop.get_by_role("button", name="Add", exact=True).click()
        expect(player.locator(".characters")).to_contain_text("Vasquez", timeout=LIVE)
        # The player rolls from the phone: the result is on the phone's screen, and the viewer's.
        player.get_by_label("Vasquez").check()
        player.get_by_label("First D6").fill("6")
        player.get_by_label("Second D6").fill("5")
        player.get_by_test_id("roll-action").click()
        expect(player.get_by_test_id("bar-result")).to_contain_text("Success")
        _on_screen(player, "bar-result")
        expect(viewer.get_by_test_id("last-outcome")).to_contain_text("Success", timeout=LIVE)
        assert viewer.get_by_role("button", name="Undo last action").count() == 0  # a viewer only reads
        # The referee ends the phase (once the laptop shows the roll); the player's Undo of it is
        # refused, the page whole.
        expect(laptop.get_by_test_id("last-outcome")).to_contain_text("Success", timeout=LIVE)
        laptop.get_by_test_id("bar-phase").click()
        expect(player.get_by_test_id("bar-result")).to_contain_text("Defence", timeout=LIVE)
        _refused_undo(player)

        # -- a Bug Hunt mission ----------------------------------------------------------------
        for page in (laptop, player, viewer):
            page.goto(f"{base}/rooms/{mission.pk}/")
        laptop.get_by_test_id("bar-phase").click()  # on to the Enemy Action phase
        expect(laptop.get_by_test_id("bar-result")).to_contain_text("Enemy")
        _on_screen(laptop, "bar-result")
        expect(player.get_by_test_id("bar-result")).to_contain_text("Enemy", timeout=LIVE)
        expect(viewer.get_by_test_id("bar-result")).to_contain_text("Enemy", timeout=LIVE)
        _refused_undo(player)

        # -- a Five Parsecs battle -------------------------------------------------------------
        for page in (laptop, player, viewer):
            page.goto(f"{base}/rooms/{battle.pk}/")
        kit = kit_and_zed[0]
        done = player.get_by_test_id(f"act-{kit}")
        done.scroll_into_view_if_needed()
        done.click()
        expect(player.get_by_test_id("bar-result")).to_have_text("Kit acts.")
        _on_screen(player, "bar-result")
        expect(viewer.get_by_test_id("bar-result")).to_have_text("Kit acts.", timeout=LIVE)
        # The referee takes it back from the laptop (once it shows it); every screen follows.
        expect(laptop.get_by_test_id("bar-result")).to_have_text("Kit acts.", timeout=LIVE)
        laptop.get_by_role("button", name="Undo last action").click()
        expect(laptop.get_by_test_id("bar-result")).to_have_text("Undid: Kit acts.")
        expect(player.get_by_test_id("bar-result")).to_have_text("Undid: Kit acts.", timeout=LIVE)
        expect(viewer.get_by_test_id("bar-result")).to_have_text("Undid: Kit acts.", timeout=LIVE)

    assert failures == []
    assert get_user_model().objects.filter(username__in=["referee", "hudson", "ferro"]).count() == 3
    assert services.room_code(threat) is not None
