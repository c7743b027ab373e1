"""Five Parsecs battles in real Chromium against a real ASGI server: a campaign battle set up on
the laptop and tracked live with a co-op member's phone, and a battle played without miniatures
(assisted, undone, then automatic) that a phone can drive with one thumb."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from playwright.sync_api import Locator, Page, expect

from battles.models import Battle
from campaigns import services as campaign_services
from campaigns import turn_services
from campaigns.models import Campaign, Character
from campaigns.selectors import current_turn
from live.models import Room
from tests.asgi_server import asgi_server
from tests.browser import LAPTOP, PHONE, chromium, laptop_and_phone, login
from tests.factories import UserFactory
from tests.tables import load_system_tables

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LIVE = 12_000  # ms: an update reaching the other device (SSE, polling every 5 s as the fallback)


@pytest.fixture
def players(transactional_db: None, release_live_server_connections: None):  # type: ignore[no-untyped-def]
    load_system_tables("fiveparsecs")
    return UserFactory(username="captain"), UserFactory(username="friend")


def campaign_at_record_the_battle(captain) -> Campaign:  # type: ignore[no-untyped-def]
    """A Dramatic Combat campaign of two crew with "friend" as an editor, its first turn played by
    hand up to "Record the battle"."""
    campaign = campaign_services.campaign_create(user=captain, name="Drift", options={"crew_size": 4, "dramatic_combat": True})
    Character.objects.create(
        campaign=campaign, name="Ria", is_captain=True, reactions=2, speed=5, combat_skill=1, toughness=4,
        sheet={"equipment": ["Military rifle", "Med-patch"]},
    )  # fmt: skip
    Character.objects.create(campaign=campaign, name="Bo", reactions=1, speed=4, toughness=3, sheet={"equipment": ["Hand gun"]})
    campaign.refresh_from_db()
    campaign_services.member_invite(user=captain, campaign_id=campaign.pk, username="friend", role="editor")
    campaign.refresh_from_db()
    turn = turn_services.turn_start(user=captain, campaign_id=campaign.pk, version=campaign.version)
    for _ in range(60):
        turn.refresh_from_db()
        if turn.plan[turn.position]["key"] == "battle.record":
            campaign.refresh_from_db()
            return campaign
        campaign.refresh_from_db()
        turn_services.step_resolve(user=captain, campaign_id=campaign.pk, version=campaign.version, mode="manual", text="Done.")
    pytest.fail("the turn never reached Record the battle")


def scroll_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


def set_up_turn_battle(laptop: Page, base: str, campaign: Campaign, title: str, battle_type: str) -> None:
    """From the campaign turn page, set up this turn's battle of ``battle_type`` (p.116) against
    an elite Criminal Elements force, numbers 3, hand guns."""
    laptop.goto(f"{base}/campaigns/{campaign.pk}/turn/")
    laptop.get_by_test_id("battle-handoff").get_by_role("button", name="Set up this turn's battle").click()
    form = laptop.get_by_test_id("setup-form")
    form.get_by_label("Title").fill(title)
    form.get_by_label("Battle type").select_option(battle_type)
    form.get_by_label("Elite enemy, rolled (p.48)").check()
    form.get_by_label("Category").select_option("Criminal Elements")
    form.get_by_label("Numbers from my core roll").fill("3")
    form.get_by_test_id("basic-weapon").fill("Hand gun")
    laptop.get_by_test_id("create").click()


def shown(page: Page, testid: str, text: str, what: str) -> None:
    """``testid`` on ``page`` shows ``text`` (``what``, for the failure message), pushed live or
    caught up by the page itself after a lost push, never by a reload."""
    expect(page.get_by_test_id(testid), what).to_contain_text(text, timeout=LIVE)


def take_die(card: Locator, die: str = "1", shows: str = "die 1: quick") -> None:
    """The figure ``card`` (on a laptop or a phone) takes Reaction die ``die`` until it ``shows`` it."""
    expect(card.get_by_role("button", name="Take this die")).to_be_visible(timeout=LIVE)
    card.get_by_label("Reaction die").select_option(die)
    # One tap, no retry: a pushed update waits while a finger is on the tracker (dropship.js).
    card.get_by_role("button", name="Take this die").click()
    expect(card).to_contain_text(shows)  # the phone's own tap went through


def open_on_two_devices(laptop: Page, phone: Page, base: str, battle: Battle, tracker: str) -> None:
    """The laptop opens ``battle``'s live tracker (test id ``tracker``) and hands Bo (c2) to the
    friend, whose phone opens it from the battle page."""
    laptop.get_by_test_id("track").click()
    expect(laptop.get_by_test_id(tracker)).to_be_visible()
    assert re.search(r"/rooms/\d+/$", laptop.url)
    laptop.get_by_test_id("player-c2").select_option(label="played by friend")
    expect(laptop.get_by_test_id("last-result")).to_contain_text("Bo is now played by a player", timeout=LIVE)
    phone.goto(f"{base}/battles/fp/{battle.pk}/")
    phone.get_by_test_id("room-link").click()


def both_quick(laptop: Page, phone: Page) -> None:
    """Round 1 to its Quick Action phase with typed Reactions 1, 1: Bo takes die 1 on the phone,
    Ria die 2 on the laptop, and both devices see both."""
    laptop.get_by_test_id("next-phase").click()
    laptop.locator("#reactions-form").get_by_label("My Reaction dice").fill("1, 1")
    laptop.get_by_test_id("roll-reactions").click()
    take_die(phone.get_by_test_id("figure-c2"))
    # The laptop has seen Bo's die before Ria takes hers: a tap made on an older tracker is
    # refused as stale (409), as it should be.
    shown(laptop, "figure-c2", "die 1: quick", "Bo's die on the laptop")
    ria_takes_die_2(laptop, "die 1: quick")
    laptop.get_by_test_id("next-phase").click()
    expect(phone.get_by_test_id("phase")).to_have_text("Quick", timeout=LIVE)


def caught_up(ahead: Page, behind: Page) -> None:
    """``behind`` shows the tracker version ``ahead`` shows (a tap made on an older one is refused
    as stale, 409, as it should be)."""
    version = ahead.locator("#tracker").get_attribute("data-version") or ""
    expect(behind.locator("#tracker")).to_have_attribute("data-version", version, timeout=LIVE)
    # every list the pushed tracker brought has a choice, as after a page load (none sends nothing)
    unchosen = "Array.from(document.querySelectorAll('#tracker select:not([multiple])')).filter(s => s.options.length && s.selectedIndex === -1).map(s => s.name)"
    assert behind.evaluate(unchosen) == []


def ria_takes_die_2(laptop: Page, shows: str) -> None:
    """Ria (c1) takes Reaction die 2 on the laptop, which then ``shows`` it on her card."""
    take_die(laptop.get_by_test_id("figure-c1"), "2", shows)


def finish_and_record(laptop: Page, base: str, battle: Battle) -> None:
    """Finish ``battle`` on its page from its tracker; the result is recorded in the turn."""
    laptop.goto(f"{base}/battles/fp/{battle.pk}/")
    laptop.get_by_test_id("finish").locator("summary").click()
    laptop.get_by_test_id("finish-button").click()
    result = laptop.get_by_test_id("result")
    expect(result).to_contain_text("From the live tracker")
    expect(result).to_contain_text("Recorded in turn")


def test_a_campaign_battle_is_set_up_on_the_laptop_and_tracked_live_on_a_phone(players) -> None:  # type: ignore[no-untyped-def]
    captain, _friend = players
    campaign = campaign_at_record_the_battle(captain)

    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop, phone = laptop_and_phone(browser, base, "captain", "friend")
        laptop.on("dialog", lambda dialog: dialog.accept())  # "End the battle now?"

        # The turn sends the captain to the set-up form with the campaign picked.
        laptop.goto(f"{base}/campaigns/{campaign.pk}/turn/")
        expect(laptop.get_by_test_id("step-title")).to_have_text("Record the battle")
        laptop.get_by_test_id("battle-handoff").get_by_role("button", name="Set up this turn's battle").click()
        expect(laptop.get_by_test_id("campaign")).to_have_value(str(campaign.pk))
        form = laptop.get_by_test_id("setup-form")
        form.get_by_label("Title").fill("Dock Brawl")
        form.get_by_label("Battle type").select_option("conventional")  # not a Stealth mission (p.116)
        form.get_by_label("Terrain theme").select_option("industrial")
        form.get_by_label("Elite enemy, rolled (p.48)").check()
        form.get_by_label("Category").select_option("Criminal Elements")
        form.get_by_label("Numbers from my core roll").fill("3")
        form.get_by_test_id("basic-weapon").fill("Hand gun")
        laptop.get_by_test_id("create").click()

        # The printable card: the elite enemy and the themed terrain.
        expect(laptop.get_by_test_id("fp-card")).to_be_visible()
        expect(laptop.locator("h1")).to_have_text("Dock Brawl")
        enemy = laptop.get_by_test_id("enemy")
        expect(enemy).to_contain_text("Criminal Elements")
        expect(enemy.locator(".tag", has_text="elite")).to_be_visible()
        expect(laptop.get_by_test_id("rank-basic")).to_be_visible()
        expect(laptop.get_by_test_id("terrain")).to_contain_text("Industrial")
        expect(laptop.get_by_test_id("quarter-1")).to_be_visible()
        expect(laptop.get_by_test_id("crew")).to_contain_text("Ria")
        expect(laptop.get_by_test_id("hit-numbers")).to_contain_text("p.87")  # Dramatic Combat's numbers
        battle = Battle.objects.get(title="Dock Brawl")
        battle_url = f"{base}/battles/fp/{battle.pk}/"

        laptop.get_by_test_id("track").click()
        expect(laptop.get_by_test_id("fp-battle")).to_be_visible()
        assert re.search(r"/rooms/\d+/$", laptop.url)
        battle.refresh_from_db()
        assert battle.room_id is not None and battle.status == "tracking"
        room = Room.objects.get(pk=battle.room_id)
        # The captain hands Bo to the friend, who sits at this table through the campaign.
        laptop.get_by_test_id("player-c2").select_option(label="played by friend")
        expect(laptop.get_by_test_id("last-result")).to_contain_text("Bo is now played by a player", timeout=LIVE)

        # The friend plays in the campaign, so the battle's room seats them: no join code.
        phone.goto(battle_url)
        phone.get_by_test_id("room-link").click()
        expect(phone.get_by_test_id("fp-battle")).to_be_visible()
        expect(phone.locator("hgroup")).to_contain_text("you are the player")
        expect(phone.get_by_test_id("figure-c2")).to_contain_text("yours")
        expect(phone.get_by_test_id("next-phase")).to_have_count(0)  # the round belongs to the owner
        expect(phone.get_by_test_id("round")).to_have_text("0")

        # Seize the Initiative with the core rulebook's dice and target, typed at the table.
        seize = laptop.locator("#seize-form")
        seize.get_by_test_id("seize-dice").fill("2D6")
        seize.get_by_test_id("seize-target").fill("2")
        seize.get_by_label("My dice").fill("6, 6")
        laptop.get_by_test_id("seize").click()
        expect(phone.get_by_test_id("last-result")).to_contain_text("Seize the Initiative", timeout=LIVE)
        expect(phone.get_by_test_id("last-result")).to_contain_text("seized")
        # Round 1 starts on the laptop; the phone follows.
        laptop.get_by_test_id("next-phase").click()
        expect(laptop.get_by_test_id("phase")).to_have_text("Reactions")
        expect(phone.get_by_test_id("round")).to_have_text("1", timeout=LIVE)
        expect(phone.get_by_test_id("phase")).to_have_text("Reactions")

        # The laptop rolls Reactions with the dice from the table: a 1 and a 6.
        laptop.locator("#reactions-form").get_by_label("My Reaction dice").fill("1, 6")
        laptop.get_by_test_id("roll-reactions").click()
        bo_on_phone = phone.get_by_test_id("figure-c2")
        expect(bo_on_phone.get_by_role("button", name="Take this die")).to_be_visible(timeout=LIVE)
        expect(phone.get_by_test_id("figure-c1").get_by_role("button", name="Take this die")).to_have_count(0)  # not theirs

        # The friend gives Bo the 1 (Quick); the laptop sees it, and gives Ria the 6 (Slow).
        take_die(bo_on_phone)
        shown(laptop, "figure-c2", "die 1: quick", "Bo's die on the laptop")
        ria_takes_die_2(laptop, "die 6: slow")
        expect(phone.get_by_test_id("figure-c1")).to_contain_text("die 6: slow", timeout=LIVE)

        laptop.get_by_test_id("next-phase").click()
        expect(laptop.get_by_test_id("phase")).to_have_text("Quick")
        expect(phone.get_by_test_id("phase")).to_have_text("Quick", timeout=LIVE)

        # A Stun marker put on an enemy on the laptop shows on the phone.
        laptop.get_by_test_id("stun-add-e2").click()
        expect(laptop.get_by_test_id("stun-e2")).to_have_text("Stun 1")
        expect(phone.get_by_test_id("stun-e2")).to_have_text("Stun 1", timeout=LIVE)

        # Bo shoots from the phone with the dice rolled at the table: a hit, a failed save when
        # the rolled enemy wears armour, and a 6 to damage.
        room.refresh_from_db()
        armoured = bool(next(e for e in room.state["enemies"] if e["id"] == "e1")["save"])
        bo_on_phone.locator("summary", has_text="Shoot").click()
        shot = phone.locator("#resolve-c2")
        shot.get_by_label("Target", exact=True).select_option("e1")
        shot.get_by_label('Range"').fill("6")
        shot.get_by_label("My dice").fill("6, 1, 6" if armoured else "6, 6")
        shot.get_by_role("button", name="Resolve the shot").click()
        expect(phone.get_by_test_id("last-result")).to_contain_text("is a casualty")
        expect(laptop.get_by_test_id("figure-e1").locator("mark")).to_have_text("casualty", timeout=LIVE)
        expect(laptop.get_by_test_id("last-result")).to_contain_text("Bo fires the Hand gun")

        # The captain ends it: the crew Hold the Field.
        laptop.get_by_label("Held the Field?").select_option("on")
        laptop.get_by_test_id("end-battle").click()
        expect(laptop.get_by_test_id("phase")).to_have_text("Over")
        expect(phone.get_by_test_id("phase")).to_have_text("Over", timeout=LIVE)
        expect(phone.get_by_test_id("now")).to_contain_text("the crew Hold the Field")

        # Finished from the battle page, the result goes to the campaign turn.
        laptop.goto(battle_url)
        expect(laptop.get_by_test_id("status")).to_have_text("Tracked live")
        laptop.get_by_test_id("finish").locator("summary").click()
        laptop.get_by_test_id("finish-button").click()
        result = laptop.get_by_test_id("result")
        expect(result).to_contain_text("Held the Field")
        expect(result).to_contain_text("No crew casualties")
        expect(result).to_contain_text("From the live tracker")
        expect(result).to_contain_text("Recorded in turn")
        expect(laptop.get_by_test_id("finish")).to_have_count(0)

        laptop.goto(f"{base}/campaigns/{campaign.pk}/turn/")
        expect(laptop.get_by_test_id("done-steps")).to_contain_text("Record the battle")
        expect(laptop.get_by_test_id("step-title")).not_to_have_text("Record the battle")
        turn = current_turn(campaign)
        assert turn is not None and turn.facts["battle"]["held_field"] and turn.facts["battle"]["elite"]


def test_a_battle_is_played_without_miniatures_assisted_then_automatic_with_undo(players) -> None:  # type: ignore[no-untyped-def]
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        laptop = browser.new_context(viewport=LAPTOP).new_page()
        phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        login(laptop, base, "captain")
        login(phone, base, "captain")  # the same player, on a phone as well

        # A standalone battle, the crew typed into the form.
        laptop.goto(f"{base}/battles/fp/")
        expect(laptop.get_by_test_id("campaign")).to_have_value("")
        form = laptop.get_by_test_id("setup-form")
        form.get_by_label("Title").fill("Pocket Fight")
        form.get_by_label("Battle type").select_option("conventional")
        crew = (("Ria", "Military rifle", (2, 5, 1, 4, 0)), ("Bo", "Hand gun", (1, 4, 0, 3, 0)))
        for n, (name, weapon, stats) in enumerate(crew, start=1):
            form.get_by_label(f"Crew member {n} name").fill(name)
            form.get_by_label(f"Crew member {n} weapon").fill(weapon)
            for label, value in zip(("Reactions", "Speed", "Combat Skill", "Toughness", "Savvy"), stats, strict=True):
                form.get_by_label(f"Crew member {n} {label}").fill(str(value))
        form.get_by_label("Category").select_option("Criminal Elements")
        form.get_by_label("Numbers from my core roll").fill("3")
        form.get_by_label("In the open, hit on").fill("5")
        form.get_by_label("In cover, hit on").fill("6")
        laptop.get_by_test_id("create").click()
        expect(laptop.get_by_test_id("fp-card")).to_contain_text("Standalone battle")
        expect(laptop.get_by_test_id("hit-numbers")).to_contain_text("5+ in the open, 6+ in cover")
        battle = Battle.objects.get(title="Pocket Fight")

        # Without miniatures, the app assisting: the choices are buttons.
        laptop.get_by_test_id("nominis-assisted").click()
        expect(laptop.get_by_test_id("nominis")).to_be_visible()
        expect(laptop.locator("hgroup")).to_contain_text("you choose")
        expect(laptop.get_by_test_id("round")).to_have_text("1")
        expect(laptop.get_by_test_id("undo")).to_have_count(0)
        log = laptop.get_by_test_id("event-log").locator("li")

        laptop.get_by_test_id("choice").first.click()
        expect(laptop.get_by_test_id("undo")).to_contain_text("(1 so far)")
        after_one = log.all_inner_texts()
        phase_after_one = laptop.get_by_test_id("phase").inner_text()

        second = laptop.get_by_test_id("choice").first
        second_label = second.inner_text()
        second.click()
        expect(laptop.get_by_test_id("undo")).to_contain_text("(2 so far)")
        assert log.all_inner_texts() != after_one, f"{second_label!r} left no event"

        # Undo takes the second step back: the log and the phase are as after the first.
        laptop.get_by_test_id("undo").click()
        expect(laptop.get_by_test_id("undo")).to_contain_text("(1 so far)")
        expect(log).to_have_text(after_one)
        expect(laptop.get_by_test_id("phase")).to_have_text(phase_after_one)

        # One thumb on a phone: the choices fit the screen without scrolling sideways.
        phone.goto(f"{base}/battles/fp/{battle.pk}/nominis/")
        expect(phone.get_by_test_id("undo")).to_contain_text("(1 so far)")
        expect(phone.get_by_test_id("choice").first).to_be_visible()
        for button in phone.get_by_test_id("choice").all():
            box = button.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], button.inner_text()
        assert scroll_width(phone) <= PHONE["width"]

        # The app plays the rest.
        laptop.get_by_test_id("play-to-end").click()
        outcome = laptop.get_by_test_id("outcome")
        expect(outcome).to_be_visible()
        expect(laptop.get_by_test_id("choice")).to_have_count(0)
        expect(laptop.get_by_test_id("phase")).to_have_text("Battle over")
        held = "The crew Hold the Field" in outcome.inner_text()
        battle.refresh_from_db()
        assert battle.nominis is not None and battle.nominis["state"]["finished"]
        fallen = [c["name"] for c in battle.nominis["state"]["crew"] if c["status"] == "casualty"]
        expect(outcome).to_contain_text(f"Casualties: {', '.join(fallen) or 'none'} · enemies down")

        phone.reload()
        expect(phone.get_by_test_id("outcome")).to_be_visible()
        assert scroll_width(phone) <= PHONE["width"]

        # Finished: the card keeps the result.
        laptop.get_by_test_id("finish").click()
        result = laptop.get_by_test_id("result")
        expect(result).to_contain_text("Held the Field" if held else "Did not Hold the Field")
        expect(result).to_contain_text(f"Casualties: {', '.join(fallen)}" if fallen else "No crew casualties")
        expect(result).to_contain_text("From the no-minis battle")
        expect(laptop.get_by_test_id("status")).to_have_text("Finished")
        battle.refresh_from_db()
        assert battle.status == "finished" and battle.result is not None and battle.result["held_field"] is held
