"""In real Chromium against a real ASGI server: the referee on a laptop acts, and a player's
phone shows it without reloading (Server-Sent Events, with polling as the fallback)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import expect

from live import services
from rules.fixturefiles import FIXTURES_DIR
from tests.asgi_server import asgi_server
from tests.browser import LAPTOP, chromium, join_by_code, laptop_and_phone, login
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def table(transactional_db: None, release_live_server_connections: None):  # type: ignore[no-untyped-def]
    call_command("loaddata", str(FIXTURES_DIR / "systems.json"), verbosity=0)
    call_command("loaddata", str(FIXTURES_DIR / "threat-tracker" / "threat-tracker.json"), verbosity=0)
    referee = UserFactory(username="referee")
    player = UserFactory(username="hudson")
    room = services.room_create(user=referee, kind="threat", title="Operations")
    return room, referee, player


def at_the_table(browser, base: str, room):  # type: ignore[no-untyped-def]
    """The referee's laptop on the room page and the player's phone joined by the code the laptop
    shows (the laptop reloaded to see the player seated)."""
    laptop, phone = laptop_and_phone(browser, base, "referee", "hudson")
    laptop.goto(f"{base}/rooms/{room.pk}/")
    join_by_code(phone, base, laptop.get_by_test_id("join-code").inner_text().strip())
    expect(phone.get_by_test_id("threat-tracker")).to_be_visible()
    laptop.reload()
    return laptop, phone


def test_two_devices_share_the_tracker_live(table) -> None:  # type: ignore[no-untyped-def]
    room, _, _ = table
    # With REDIS_URL set (as in CI) the server fans events out through Redis; without it, in process.
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = at_the_table(browser, base, room)

        # The referee adds a character; the phone shows it without a reload.
        laptop.get_by_label("Add character").fill("Vasquez")
        laptop.get_by_role("button", name="Add", exact=True).click()
        expect(laptop.locator("#tracker")).to_have_attribute("data-version", "1")
        phone_url = phone.url
        expect(phone.locator(".characters")).to_contain_text("Vasquez", timeout=12_000)
        assert phone.url == phone_url

        # The referee rolls a combat action; the phone sees the outcome and the spent action.
        laptop.get_by_label("Vasquez").check()
        laptop.get_by_label("First D6").fill("6")
        laptop.get_by_label("Second D6").fill("5")
        laptop.get_by_test_id("roll-action").click()
        expect(phone.get_by_test_id("last-outcome")).to_contain_text("Success", timeout=12_000)
        expect(phone.get_by_test_id("actions-left")).to_have_text("1")
        expect(phone.get_by_test_id("last-outcome")).to_contain_text(re.compile(r"6 \+ 5 = 11"))


def test_a_live_refresh_keeps_what_the_referee_is_typing(table) -> None:  # type: ignore[no-untyped-def]
    room, _, _ = table
    with asgi_server() as base, chromium() as browser:
        first, second = two_tabs(browser, base, room)
        first.get_by_label("Add character").fill("Drake")
        second.get_by_label("Add character").fill("Vasquez")
        second.get_by_role("button", name="Add", exact=True).click()
        expect(second.get_by_label("Add character")).to_have_value("")
        expect(first.locator(".characters")).to_contain_text("Vasquez", timeout=12_000)
        expect(first.get_by_label("Add character")).to_have_value("Drake")
        first.get_by_role("button", name="Add", exact=True).click()
        expect(first.locator(".characters")).to_contain_text("Drake")
        expect(first.get_by_label("Add character")).to_have_value("")


def stress_scene(referee):  # type: ignore[no-untyped-def]
    """A stress dice room of ``referee``'s with Ripley in it."""
    room = services.room_create(user=referee, kind="stress", title="Scene")
    services.room_act(
        user=referee,
        room_id=room.pk,
        type="add_character",
        payload={"name": "Ripley", "strength": "2", "agility": "4", "wits": "4", "empathy": "3"},
        version=0,
    )
    room.refresh_from_db()
    return room


def two_tabs(browser, base: str, room):  # type: ignore[no-untyped-def]
    """The referee's laptop with the room open in two tabs."""
    context = browser.new_context(viewport=LAPTOP)
    first, second = context.new_page(), context.new_page()
    login(first, base, "referee")
    first.goto(f"{base}/rooms/{room.pk}/")
    second.goto(f"{base}/rooms/{room.pk}/")
    return first, second


def test_typing_inside_the_live_tracker_survives_a_refresh_but_not_your_own_submit(table) -> None:  # type: ignore[no-untyped-def]
    room = stress_scene(table[1])
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        first, second = two_tabs(browser, base, room)
        first.get_by_label("Which action").fill("Reload")
        second.get_by_role("button", name="Stress +1").click()
        expect(first.locator("#tracker")).to_have_attribute("data-version", "2", timeout=12_000)
        expect(first.get_by_label("Which action")).to_have_value("Reload")
        first.get_by_label("Which action").press("Enter")
        expect(first.locator("#tracker")).to_have_attribute("data-version", "3")
        expect(first.get_by_label("Which action")).to_have_value("")


def test_a_fold_opened_by_hand_stays_as_left_when_the_tracker_is_swapped(table) -> None:  # type: ignore[no-untyped-def]
    """A fold (``<details>``) the referee opened stays open when another device's change swaps
    the tracker, and after their own submit from inside it; one they closed stays closed. The
    other device's folds are its own."""
    room = stress_scene(table[1])
    ripley = room.state["characters"][0]["id"]
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        first, second = two_tabs(browser, base, room)
        gear = first.locator(f"#gear-{ripley}")
        gear.locator("summary").click()
        expect(gear).to_have_attribute("open", "")

        second.get_by_role("button", name="Stress +1").click()
        expect(first.locator("#tracker")).to_have_attribute("data-version", "2", timeout=12_000)
        expect(gear).to_have_attribute("open", "")
        expect(second.locator(f"#gear-{ripley}")).not_to_have_attribute("open", "")

        gear.get_by_label("Condition").fill("Wounded")
        gear.get_by_role("button", name="Add condition").click()
        expect(first.locator("#tracker")).to_have_attribute("data-version", "3")
        expect(first.locator("#tracker")).to_contain_text("Wounded")
        expect(gear).to_have_attribute("open", "")

        gear.locator("summary").click()
        expect(gear).not_to_have_attribute("open", "")
        expect(second.locator("#tracker")).to_have_attribute("data-version", "3", timeout=12_000)
        # a pushed tracker's choices come chosen: Stress +1 sends its reason (it came empty, refused)
        expect(second.locator("form:has(button:text('Stress +1')) select")).to_have_value("scary")
        second.get_by_role("button", name="Stress +1").click()
        expect(first.locator("#tracker")).to_have_attribute("data-version", "4", timeout=12_000)
        expect(gear).not_to_have_attribute("open", "")


def test_a_push_that_never_arrives_is_caught_up_without_a_reload(table) -> None:  # type: ignore[no-untyped-def]
    """A pushed tracker is not stored: if one is lost on its way (the event-stream library drops
    a stream's queue when it re-reads the store; a phone's network hiccups), the phone still
    shows the change, because the room's stored ``version`` event came with it and the phone
    asks for the tracker when no push catches up with that version."""
    room, _, _ = table
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = at_the_table(browser, base, room)

        # The phone loses every pushed tracker from now on, as if each were dropped on its way.
        phone.evaluate(
            """() => {
              window.droppedPushes = 0;
              document.querySelector("[data-tracker-push]").addEventListener("htmx:sseBeforeMessage", (event) => {
                window.droppedPushes += 1;
                event.preventDefault();
              });
            }"""
        )
        phone_url = phone.url
        laptop.get_by_label("Add character").fill("Vasquez")
        laptop.get_by_role("button", name="Add", exact=True).click()
        expect(laptop.locator("#tracker")).to_have_attribute("data-version", "1")
        expect(phone.locator(".characters")).to_contain_text("Vasquez", timeout=12_000)
        assert phone.evaluate("window.droppedPushes") >= 1  # the push did come, and was lost
        assert phone.url == phone_url  # caught up in place, not by reloading


def test_a_push_waits_while_a_finger_is_on_the_tracker(table) -> None:  # type: ignore[no-untyped-def]
    """A tap that begins as another device's change arrives is not lost: while a finger (or a
    mouse button) is down on the tracker, the pushed tracker waits instead of swapping the card
    under it, and it is shown as soon as the finger lifts (not by the later catch-up)."""
    room, _, _ = table
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = at_the_table(browser, base, room)
        shown_version = phone.locator("#tracker").get_attribute("data-version")
        # the push's arrival, seen after the page's own handler has held it or let it through
        phone.evaluate(
            """() => document.addEventListener("htmx:sseBeforeMessage", (event) => {
                if (event.target.matches("[data-tracker-push]")) window.__pushed = true;
            })"""
        )
        laptop.get_by_label("Add character").fill("Vasquez")
        # pressed as the change is made: a press held longer than the page's 1.5 s lets a push
        # through, and a busy machine once took longer than that from an earlier press
        phone.locator("#tracker").dispatch_event("pointerdown")
        laptop.get_by_role("button", name="Add", exact=True).click()
        expect(laptop.locator("#tracker")).to_have_attribute("data-version", "1")
        phone.wait_for_function("() => window.__pushed === true")
        assert phone.locator("#tracker").get_attribute("data-version") == shown_version
        expect(phone.locator(".characters")).not_to_contain_text("Vasquez")
        phone.locator("#tracker").dispatch_event("pointerup")
        expect(phone.locator(".characters")).to_contain_text("Vasquez", timeout=1_500)
        expect(phone.locator("#tracker")).to_have_attribute("data-version", "1")


def test_a_submit_in_the_instant_a_push_lands_goes_through_the_tracker(table) -> None:  # type: ignore[no-untyped-def]
    """A form submitted in the same instant another device's change is swapped in is sent by the
    page (with its token and version), not by the browser as a bare POST that the server would
    refuse with a 403 page: the swapped tracker is made live before the next tap can land. The
    submit here is queued from the swap itself, so no timing luck decides it (CI once pressed
    Enter inside the old 20 ms settle window)."""
    room = stress_scene(table[1])
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        first, second = two_tabs(browser, base, room)
        first.get_by_label("Which action").fill("Reload")
        first.evaluate(
            """() => document.addEventListener("htmx:afterSwap", () => {
                const tracker = document.getElementById("tracker");
                if (window.__tapped || !tracker || tracker.dataset.version !== "2") return;
                window.__tapped = true;
                window.setTimeout(() => {
                    const input = document.querySelector("input[aria-label='Which action']");
                    input.value = "Reload";
                    input.form.requestSubmit();
                }, 0);
            })"""
        )
        second.get_by_role("button", name="Stress +1").click()
        expect(first.locator("#tracker")).to_have_attribute("data-version", "3", timeout=12_000)
        expect(first.locator("#tracker")).to_contain_text("slow used")
