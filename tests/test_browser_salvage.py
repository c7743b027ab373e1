"""A Salvage job (Compendium pp.116, 137-147) in real Chromium against a real ASGI server: set up
from a campaign turn on the laptop, played with a co-op member's phone (390 px), finished and
recorded in the turn, then paid at Get paid and Trade Salvage (p.147)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from battles.models import Battle
from campaigns import turn_services
from campaigns.models import Campaign
from campaigns.selectors import current_turn
from tests.asgi_server import asgi_server
from tests.browser import chromium, laptop_and_phone
from tests.test_browser_battles import (
    LIVE,
    campaign_at_record_the_battle,
    finish_and_record,
    players,
    scroll_width,
    set_up_turn_battle,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]


def investigate(page: Page, poi: str, crew: str) -> None:
    """Open ``poi``'s form, pick ``crew`` and type D100 60: All clear (p.143)."""
    page.get_by_test_id(f"investigate-{poi}").click()
    form = page.locator(f"#investigate-{poi}-form")
    form.get_by_label("Who investigates").select_option(crew)
    form.get_by_label("My D100").fill("60")
    form.get_by_role("button", name="Reveal it").click()


def steps_by_hand_to(captain, campaign: Campaign, key: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(30):
        turn = current_turn(campaign)
        assert turn is not None
        if turn.plan[turn.position]["key"] == key:
            return
        campaign.refresh_from_db()
        turn_services.step_resolve(user=captain, campaign_id=campaign.pk, version=campaign.version, mode="manual", text="Done.")
    pytest.fail(f"the turn never reached {key}")


def test_a_salvage_job_from_a_campaign_turn_is_played_on_two_devices_recorded_and_paid(players) -> None:  # type: ignore[no-untyped-def]
    captain = players[0]  # "friend" plays Bo on the phone
    campaign = campaign_at_record_the_battle(captain)

    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        set_up_turn_battle(laptop, base, campaign, "Scrap Run", "salvage")

        # The card says it is a Salvage job and why the no-minis rules do not apply.
        expect(laptop.get_by_test_id("salvage-card")).to_contain_text("Salvage markers to place (p.138)")
        expect(laptop.get_by_test_id("salvage-no-minis")).to_contain_text("No-minis play does not apply")
        expect(laptop.get_by_test_id("nominis-start")).to_have_count(0)
        battle = Battle.objects.get(title="Scrap Run")
        assert battle.setup["mission_type"]["kind"] == "fiveparsecs-salvage"

        laptop.get_by_test_id("track").click()
        expect(laptop.get_by_test_id("salvage-tracker")).to_be_visible()
        assert re.search(r"/rooms/\d+/$", laptop.url)
        expect(laptop.get_by_test_id("setup-card")).to_contain_text("Ria")
        laptop.get_by_label("Who plays Bo").select_option(label="played by friend")
        expect(laptop.get_by_test_id("last-result")).to_contain_text("Bo is now played by a player", timeout=LIVE)

        phone.goto(f"{base}/battles/fp/{battle.pk}/")
        phone.get_by_test_id("room-link").click()
        expect(phone.get_by_test_id("salvage-tracker")).to_be_visible()

        laptop.get_by_test_id("next-phase").click()
        expect(phone.get_by_test_id("round")).to_have_text("1", timeout=LIVE)

        # Bo picks up a Salvage marker and opens the last Point of Interest from the phone.
        phone.locator("#salvage-form").get_by_label("Who picks it up").select_option("c2")
        phone.get_by_test_id("pick-up").click()  # one tap: a push waits for the finger to lift
        expect(phone.get_by_test_id("salvage-units")).to_have_text("1", timeout=LIVE)
        expect(laptop.get_by_test_id("salvage-units")).to_have_text("1", timeout=LIVE)
        investigate(phone, "p4", "c2")
        expect(laptop.get_by_test_id("poi-p4")).to_contain_text("All clear", timeout=LIVE)
        for poi in ("p1", "p2", "p3"):
            investigate(laptop, poi, "c1")
            expect(laptop.get_by_test_id(f"poi-{poi}")).to_contain_text("All clear")
        expect(phone.get_by_test_id("poi-p3")).to_contain_text("All clear", timeout=LIVE)
        assert scroll_width(phone) <= 390

        # The owner ends the job with typed post-game dice: a 5 (1 unit) and a 6 (Discovery D100
        # 90: Valuable trinkets, D3 3 credits) for two Points of Interest, junk for the others.
        laptop.get_by_test_id("owner-tools").locator("summary").first.click()
        end = laptop.locator("#end-mission")
        end.locator("summary").click()
        end.get_by_label("Point of Interest D6s").fill("5, 6, 1, 2")
        end.get_by_label("Discovery D100s").fill("90")
        end.get_by_label("Trinket D3s").fill("3")
        end.get_by_label("Scrapper D6s").fill("1, 4, 6")
        laptop.once("dialog", lambda dialog: dialog.accept())
        end.get_by_test_id("end-mission").click()
        expect(laptop.get_by_test_id("post-game")).to_contain_text("Mission won")
        expect(phone.get_by_test_id("post-game")).to_contain_text("Salvage units: 2", timeout=LIVE)

        finish_and_record(laptop, base, battle)
        turn = current_turn(campaign)
        assert turn is not None and turn.facts["battle"]["won"] is True and turn.facts["salvage"]["units"] == 2

        # Get paid and Trade Salvage on the turn page (p.147).
        steps_by_hand_to(captain, campaign, "post.paid")
        campaign.refresh_from_db()
        before = campaign.credits
        laptop.goto(f"{base}/campaigns/{campaign.pk}/turn/")
        expect(laptop.get_by_test_id("preview")).to_contain_text("2 Salvage units, 3 credits found")
        laptop.get_by_test_id("roll").click()
        expect(laptop.get_by_test_id("step-title")).to_have_text("Trade Salvage")
        expect(laptop.get_by_test_id("credits")).to_contain_text(str(before + 3))
        pay = laptop.get_by_test_id("salvage-pay")
        pay.get_by_label(re.compile("Units cashed in")).fill("2")
        laptop.get_by_test_id("roll").click()
        expect(laptop.get_by_test_id("credits")).to_contain_text(str(before + 5))
        campaign.refresh_from_db()
        assert campaign.credits == before + 5
        logged = campaign.log.filter(kind="step").order_by("-id").first()
        assert logged is not None and "ship repairs, ship modules or Bot upgrades (p.147)" in logged.text
