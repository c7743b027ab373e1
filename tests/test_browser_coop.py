"""An expanded co-op battle (Compendium pp.39-41) in real Chromium against a real ASGI server:
the captain invites from the laptop, the friend accepts with their own campaign on a phone
(390 px), each fields a figure, the waves are rolled (a refusal keeps the form whole), and both
play round 1 from their own seat: each rolls their own Reaction dice, they take turns one figure
at a time, the friend's shot at Wave 1 shows on the laptop. The rest of the night is played
through the same service (rounds 2-4: Wave 2 on its edge, Wave 3 called and cleared) while both
screens follow it live; the friend finishes it, and the captain's turn, waiting at Record the
battle, takes the win."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import expect

from battles.models import Battle, Meeting
from battles.tests.test_fp_services import play_to_record
from live.models import Room
from live.services import room_act
from tests.asgi_server import asgi_server
from tests.browser import chromium, laptop_and_phone
from tests.test_browser_battles import LIVE, caught_up, players, scroll_width
from tests.test_browser_pvp import crew, shot

# The rest of the night is played through the service in this process while the browsers follow
# a separate server: only Redis carries those events across (without it the test skips, saying so).
pytestmark = [pytest.mark.browser, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]


def act(user: Any, room_id: int, kind: str, **payload: Any) -> dict[str, Any]:
    room = Room.objects.get(pk=room_id)
    room_act(user=user, room_id=room_id, type=kind, payload=payload, version=room.version)
    return Room.objects.get(pk=room_id).state  # type: ignore[no-any-return]


def clear(user: Any, room_id: int) -> None:
    for f in Room.objects.get(pk=room_id).state["figures"]:
        if f["side"] == "third" and f["status"] == "active":
            act(user, room_id, "adjust", figure=f["id"], status="retreated")


def finish_round(captain: Any, friend: Any, room_id: int, **end: Any) -> dict[str, Any]:
    """The rest of a round from wherever it is, each player acting for their own crew."""
    state = Room.objects.get(pk=room_id).state
    if state["phase"] == "reactions":
        act(friend, room_id, "roll_reactions", faces="1")
        act(captain, room_id, "roll_reactions", faces="1")
        act(captain, room_id, "assign_reaction", figure="h1", die=1)
        act(friend, room_id, "assign_reaction", figure="g1", die=1)
        state = act(captain, room_id, "next_phase")
    while state["phase"] == "quick" and state["turn"] is not None:
        user, fid = (captain, "h1") if state["turn"] == "host" else (friend, "g1")
        state = act(user, room_id, "activate", figures=[fid])
    while state["phase"] in ("quick", "enemy"):
        state = act(captain, room_id, "next_phase")
    state = act(captain, room_id, "next_phase", **end)  # the round's end
    if state["phase"] == "end":
        state = act(captain, room_id, "next_phase", **({"wave_faces": "1"} if state["round"] == 2 else {}))
    return state


def test_two_players_fight_a_coop_battle_each_on_their_own_device(players) -> None:  # type: ignore[no-untyped-def]
    captain, friend = players
    drift = crew(captain, "Drift", ["Ace"])
    crew(friend, "Vex", ["Gil"])
    play_to_record(captain, drift)  # the captain's turn waits at Record the battle
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        laptop.goto(f"{base}/battles/fp/")
        laptop.get_by_test_id("pvp-link").click()
        laptop.get_by_test_id("kind-coop").check()
        laptop.get_by_test_id("invite").click()
        code = laptop.get_by_test_id("code").inner_text().strip()
        phone.goto(f"{base}/battles/pvp/")
        phone.get_by_test_id("code").fill(code)
        phone.get_by_test_id("accept").click()
        meeting = Meeting.objects.get()
        assert meeting.kind == "coop"
        for page, name in ((phone, "Gil"), (laptop, "Ace")):
            page.goto(f"{base}/battles/pvp/{meeting.pk}/")
            page.get_by_label(name).check()
            page.get_by_test_id("field").click()
        form = laptop.get_by_test_id("coop-setup-form")
        form.get_by_test_id("coop-host-category").select_option("Hired Muscle")
        form.get_by_test_id("coop-host-numbers").fill("3")
        form.get_by_test_id("coop-guest-category").select_option("Criminal Elements")
        form.get_by_test_id("coop-guest-numbers").fill("4")
        laptop.get_by_test_id("coop-setup").click()  # Wave 3's numbers are missing
        expect(laptop.get_by_test_id("error")).to_contain_text("wave3_numbers")
        expect(laptop.get_by_test_id("coop-setup-form")).to_be_visible()  # the refusal keeps the page whole
        expect(laptop.get_by_test_id("coop-host-category")).to_have_value("Hired Muscle")
        shot(laptop, "coop-refused-laptop")
        laptop.get_by_test_id("coop-host-numbers").fill("3")
        laptop.get_by_test_id("coop-guest-numbers").fill("4")
        laptop.get_by_test_id("coop-guest-category").select_option("Criminal Elements")
        laptop.get_by_test_id("coop-wave3-numbers").fill("2")
        laptop.get_by_test_id("coop-setup").click()
        expect(laptop.get_by_test_id("wave-1")).to_be_visible()
        expect(laptop.get_by_test_id("wave-3")).to_contain_text("Hired Muscle")
        shot(laptop, "coop-waves-laptop")
        laptop.get_by_test_id("track").click()
        expect(laptop.get_by_test_id("pvp-battle")).to_be_visible()
        meeting.refresh_from_db()
        assert meeting.room_id is not None
        room_id = meeting.room_id
        phone.goto(f"{base}/battles/pvp/{meeting.pk}/")
        shot(phone, "coop-waves-phone")
        phone.get_by_test_id("room-link").click()
        expect(phone.get_by_test_id("waves-in")).to_contain_text("1 of 3")

        # Round 1 at the table: each rolls their own crew's Reaction dice, in any order (p.40).
        expect(phone.get_by_test_id("roll-reactions-host")).to_have_count(0)
        phone.get_by_label("My Reaction dice for Vex").fill("1")
        phone.get_by_test_id("roll-reactions-guest").click()
        expect(laptop.get_by_test_id("side-guest")).to_contain_text("die 1: 1", timeout=LIVE)
        laptop.get_by_label("My Reaction dice for Drift").fill("1")
        laptop.get_by_test_id("roll-reactions-host").click()
        expect(laptop.get_by_test_id("take-die-h1")).to_be_visible(timeout=LIVE)
        laptop.get_by_test_id("take-die-h1").click()
        expect(laptop.get_by_test_id("figure-h1")).to_contain_text("quick", timeout=LIVE)
        expect(phone.get_by_test_id("take-die-g1")).to_be_visible(timeout=LIVE)
        caught_up(laptop, phone)  # the phone taps on the version with the laptop's die taken, as a player sees it
        phone.get_by_test_id("take-die-g1").click()
        expect(laptop.get_by_test_id("figure-g1")).to_contain_text("quick", timeout=LIVE)
        shot(phone, "coop-reactions-phone")
        laptop.get_by_test_id("next-phase").click()
        expect(phone.get_by_test_id("phase")).to_have_text("Quick", timeout=LIVE)
        # One figure at a time, the host first on a tie; the phone waits its turn.
        expect(laptop.get_by_test_id("activate-h1")).to_be_visible(timeout=LIVE)
        expect(phone.get_by_test_id("waiting")).to_be_visible(timeout=LIVE)
        laptop.get_by_test_id("activate-h1").check()
        laptop.get_by_test_id("activate").click()
        expect(phone.get_by_test_id("activate-g1")).to_be_visible(timeout=LIVE)
        phone.get_by_test_id("activate-g1").check()
        phone.get_by_test_id("activate").click()
        attack = phone.get_by_test_id("attack-g1")
        expect(attack).to_be_visible(timeout=LIVE)
        targets = attack.get_by_label("Target").locator("option").all_inner_texts()
        assert targets and "Ace" not in targets  # the crews are one force: only enemies (p.40)
        attack.get_by_label("Range in inches").fill("12")  # beyond the Hand gun's 9": refused where it was tapped
        phone.get_by_test_id("resolve-g1").click()
        expect(attack).to_contain_text('range of 9"', timeout=LIVE)
        expect(phone.get_by_test_id("pvp-battle")).to_be_visible()
        shot(phone, "coop-refused-shot-phone")
        attack.get_by_label("Range in inches").fill("6")
        phone.get_by_test_id("resolve-g1").click()
        expect(laptop.get_by_test_id("last-result")).to_contain_text("Basic 1", timeout=LIVE)
        shot(phone, "coop-shot-phone")
        shot(laptop, "coop-shot-laptop")
        assert scroll_width(phone) <= 390

        # The rest of the night, each player for their own crew; both screens follow it live.
        clear(captain, room_id)
        finish_round(captain, friend, room_id)
        finish_round(captain, friend, room_id)  # round 3 starts: Wave 2 on the left edge
        expect(laptop.get_by_test_id("waves-in")).to_contain_text("1, 2 of 3", timeout=LIVE)
        clear(friend, room_id)
        state = finish_round(captain, friend, room_id, end_faces="1, 1", wave_faces="1")  # Wave 3 comes
        assert state["third_party"]["edges"] == {"2": "left", "3": "right"}
        expect(phone.get_by_test_id("waves-in")).to_contain_text("1, 2, 3 of 3", timeout=LIVE)
        clear(captain, room_id)
        finish_round(captain, friend, room_id)
        expect(laptop.get_by_test_id("verdict")).to_contain_text("Both crews Hold the Field", timeout=LIVE)
        expect(phone.get_by_test_id("verdict")).to_contain_text("Both crews Hold the Field", timeout=LIVE)
        shot(phone, "coop-over-phone")

        phone.goto(f"{base}/battles/pvp/{meeting.pk}/")
        phone.get_by_test_id("finish").click()
        expect(phone.get_by_test_id("result")).to_contain_text("the host rolls the shared Loot item")
        shot(phone, "coop-result-phone")
        laptop.goto(f"{base}/campaigns/{drift.pk}/turn/")
        expect(laptop.locator("main")).to_contain_text("Co-op: Drift with Vex")
        shot(laptop, "coop-turn-laptop")
    assert Battle.objects.filter(status="finished").count() == 2
