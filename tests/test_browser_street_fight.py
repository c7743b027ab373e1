"""A Street Fight (Compendium pp.123-136) in real Chromium: the owner on a laptop (1280x800), a
player on a phone (390x844). The player's own figure comes first and its Identify control works
from the phone; the identified enemy reaches the laptop; the page fits the phone's width;
the fight is ended and summed up in the standard result shape."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from battles import street_kind, tracker_services
from live.models import Room
from live.services import room_act, room_share
from rules.engine.dice import Dice
from tests.asgi_server import asgi_server
from tests.browser import chromium, laptop_and_phone
from tests.factories import UserFactory
from tests.test_browser_refusals import tables  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("DROPSHIP_SCREENSHOTS", "")


def test_a_street_fight_is_played_on_a_laptop_and_a_phone(tables: None) -> None:  # noqa: F811
    owner = UserFactory.create(username="referee")
    player = UserFactory.create(username="hudson")
    crew = [{"name": "Ria", "savvy": 1, "reactions": 2, "captain": True}, {"name": "Bo", "reactions": 1}]
    room = tracker_services.street_fight_open(user=owner, crew=crew, title="Neon alley", dice=Dice(seed=4))
    room_share(room, {player.pk: "player"})
    for type_, payload in (
        ("set_player", {"figure": "c2", "player": str(player.pk)}),
        ("next_phase", {}),
        ("roll_reactions", {"faces": "1, 4"}),
        ("next_phase", {}),
    ):
        room.refresh_from_db()
        room_act(user=owner, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=1)
    with asgi_server() as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "referee", "hudson")
        laptop.goto(f"{base}/rooms/{room.pk}/")
        phone.goto(f"{base}/rooms/{room.pk}/")
        expect(phone.get_by_test_id("phase")).to_have_text("Quick")
        first = phone.evaluate("document.querySelector('#tracker .fig-card').dataset.testid")
        assert first == "figure-c2"
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        if SHOTS:
            phone.screenshot(path=f"{SHOTS}/street-phone.png", full_page=True)
            laptop.screenshot(path=f"{SHOTS}/street-laptop.png", full_page=True)
        card = phone.get_by_test_id("figure-c2")
        if SHOTS:
            card.scroll_into_view_if_needed()
            phone.screenshot(path=f"{SHOTS}/street-phone-card.png")
        card.locator("input[name=face]").first.fill("4")
        card.get_by_test_id("identify-c2").click()
        expect(laptop.get_by_test_id("figure-e1")).to_be_visible(timeout=10_000)
        if SHOTS:
            laptop.screenshot(path=f"{SHOTS}/street-laptop-enemy.png", full_page=True)
        laptop.once("dialog", lambda dialog: dialog.accept())
        laptop.get_by_test_id("end-battle").click()
        expect(phone.get_by_test_id("verdict")).to_be_visible(timeout=10_000)
    made = street_kind.outcome(Room.objects.get(pk=room.pk).state)
    assert made["rounds"] == 1 and made["enemies_killed"] == 0 and made["street"]["escaped"] == ["Ria", "Bo"]
