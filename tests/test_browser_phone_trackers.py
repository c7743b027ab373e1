"""The Bug Hunt mission and the Five Parsecs battle on a phone (390x844), in real Chromium, with
five figures a side: a player's own figure cards come first with their main actions on them,
the rest folds away, the page stays short, and the site navigation takes one row."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.asgi_server import asgi_server
from tests.browser import PHONE, chromium, login
from tests.factories import UserFactory
from tests.phone_scenes import bughunt_mission, fiveparsecs_battle
from tests.test_browser_refusals import tables  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A player's whole page on the phone, in CSS pixels: about two and a half screens. Before the
# redesign it was 6,778 (Bug Hunt) and 3,439 (Five Parsecs).
PLAYER_PAGE_BOUND = 2_600
# The site navigation: one row of 44 px tap targets, not three.
NAV_BOUND = 60

FIRST_CARD = "document.querySelector('#tracker .fig-card').dataset.testid"


def test_a_player_sees_their_own_figure_card_first_on_a_short_phone_page(tables: None) -> None:  # noqa: F811
    owner = UserFactory.create(username="referee")
    player = UserFactory.create(username="hudson")
    mission, mission_mine = bughunt_mission(owner, player)
    battle, battle_mine = fiveparsecs_battle(owner, player)
    mission_unit = next(u["id"] for u in mission.state["units"] if u.get("owner") == str(player.pk))
    with asgi_server() as base, chromium() as browser:
        phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        login(phone, base, "hudson")
        for room, first, figure in (
            (mission, f"unit-{mission_unit}", mission_mine[0]),
            (battle, f"figure-{battle_mine[0]}", battle_mine[0]),
        ):
            phone.goto(f"{base}/rooms/{room.pk}/")
            # Their own card is the first card, though the referee's figures come before it.
            assert phone.evaluate(FIRST_CARD) == first, room.kind
            card = phone.get_by_test_id(f"figure-{figure}")
            # Its main actions are big buttons on the card, not behind a small disclosure.
            shoot = card.locator("summary", has_text="Shoot")
            expect(shoot).to_be_visible()
            box = shoot.bounding_box()
            assert box is not None and box["height"] >= 44, (room.kind, box)
            # The other figures are folded.
            others = phone.locator("details.fig-others")
            expect(others).to_have_count(1)
            assert others.get_attribute("open") is None, room.kind
            height = phone.evaluate("document.documentElement.scrollHeight")
            assert height <= PLAYER_PAGE_BOUND, (room.kind, height)
            nav = phone.locator("header nav").bounding_box()
            assert nav is not None and nav["height"] <= NAV_BOUND, (room.kind, nav)


def test_the_referee_sees_every_figure_and_folded_tools_on_a_phone(tables: None) -> None:  # noqa: F811
    owner = UserFactory.create(username="referee")
    player = UserFactory.create(username="hudson")
    mission, _ = bughunt_mission(owner, player)
    battle, _ = fiveparsecs_battle(owner, player)
    with asgi_server() as base, chromium() as browser:
        phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        login(phone, base, "referee")
        for room, figures, tools in (
            (mission, [f["id"] for u in mission.state["units"] for f in u["figures"]], "referee-tools"),
            (battle, [f["id"] for f in battle.state["crew"] + battle.state["enemies"]], "owner-tools"),
        ):
            phone.goto(f"{base}/rooms/{room.pk}/")
            expect(phone.locator("details.fig-others")).to_have_count(0)
            for figure in figures:
                expect(phone.get_by_test_id(f"figure-{figure}")).to_be_visible()
            folded = phone.get_by_test_id(tools)
            expect(folded).to_be_visible()
            assert folded.get_attribute("open") is None, room.kind
