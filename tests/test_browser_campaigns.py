"""Five Parsecs campaigns in real Chromium against a real ASGI server: set-up on the laptop, a
Krag joins the crew, a reader invited to the campaign follows the guided turn live on a phone."""

from __future__ import annotations

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests.asgi_server import asgi_server
from tests.browser import chromium, laptop_and_phone
from tests.factories import UserFactory
from tests.tables import load_system_tables

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def players(transactional_db: None, release_live_server_connections: None):  # type: ignore[no-untyped-def]
    load_system_tables("fiveparsecs")
    return UserFactory(username="captain"), UserFactory(username="friend")


def test_a_campaign_is_set_up_and_a_phone_follows_its_turn(players) -> None:  # type: ignore[no-untyped-def]
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")

        laptop.goto(f"{base}/campaigns/")
        laptop.get_by_label("Campaign name").fill("Long Haul")
        laptop.locator("input[name=toggles][value=money_is_tight]").check()
        laptop.get_by_role("button", name="Set up the campaign").click()
        expect(laptop.get_by_test_id("credits")).to_have_text("0")

        form = laptop.locator("#new-member")
        if not form.is_visible():
            laptop.locator("summary", has_text="New crew member").click()
        form.locator("input[name=name]").fill("Dorn")
        form.locator("input[name=species]").fill("krag")
        laptop.get_by_role("button", name="Add to the crew").click()
        expect(laptop.get_by_text("No Dash")).to_be_visible()

        campaign_url = laptop.url.split("/crew/")[0]
        laptop.goto(f"{campaign_url}/settings/")
        laptop.get_by_label("Username").fill("friend")
        laptop.get_by_label("Role").select_option("reader")
        laptop.get_by_role("button", name="Invite").click()
        expect(laptop.get_by_test_id("members")).to_contain_text("friend")

        laptop.goto(f"{campaign_url}/turn/")
        laptop.get_by_test_id("turn-start").click()
        expect(laptop.get_by_test_id("step-title")).to_have_text("Decide whether to travel")

        phone.goto(f"{campaign_url}/turn/")
        expect(phone.get_by_test_id("step-title")).to_have_text("Decide whether to travel")
        expect(phone.get_by_test_id("roll")).to_have_count(0)  # a reader reads

        laptop.locator("input[name=input_travel][value=no]").check()
        laptop.get_by_test_id("roll").click()
        expect(laptop.get_by_test_id("step-title")).not_to_have_text("Decide whether to travel")
        expect(phone.get_by_test_id("done-steps")).to_contain_text("You stay on this world", timeout=12_000)


def test_an_editor_plays_a_whole_turn_on_a_phone(players) -> None:  # type: ignore[no-untyped-def]
    from campaigns import crew_services, services

    captain, _friend = players
    made = services.campaign_create(user=captain, name="Pocket Turn", options={})
    for name, species in (("Dorn", "krag"), ("Sly", "skulker")):
        made.refresh_from_db()
        crew_services.character_create(user=captain, campaign_id=made.pk, version=made.version, name=name, species=species)
    made.refresh_from_db()
    services.member_invite(user=captain, campaign_id=made.pk, username="friend", role="editor")

    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        turn_url = f"{base}/campaigns/{made.pk}/turn/"
        laptop.goto(turn_url)
        phone.goto(turn_url)
        phone.get_by_test_id("turn-start").click()
        titles: list[str] = []
        for _ in range(40):
            if phone.get_by_test_id("no-turn").is_visible():
                break
            title = phone.get_by_test_id("step-title").inner_text()
            titles.append(title)
            if phone.get_by_test_id("fight").count():
                phone.locator("[data-testid=fight] summary").click()
                phone.get_by_role("button", name="Pick who").click()
                expect(phone.get_by_test_id("fight-pick")).to_contain_text("Dorn")  # the Krag (p.12)
            manual = phone.locator("#manual-form")
            if not manual.is_visible():
                phone.locator("summary", has_text="Record by hand").click()
            manual.locator("textarea[name=text]").fill(f"played: {title}")
            manual.get_by_test_id("manual").click()
            expect(phone.get_by_test_id("done-steps")).to_contain_text(f"played: {title}")
        expect(phone.get_by_test_id("no-turn")).to_contain_text("Campaign turn 1 is over")
        assert len(titles) >= 8 and "Roll for a character event" in " ".join(titles)
        expect(laptop.get_by_test_id("no-turn")).to_contain_text("Campaign turn 1 is over", timeout=12_000)

        phone.get_by_test_id("undo").click()  # the last step comes back, on both screens
        expect(phone.get_by_test_id("step-title")).to_have_text(titles[-1])
        expect(laptop.get_by_test_id("step-title")).to_have_text(titles[-1], timeout=12_000)
