"""Co-op Bug Hunt on two phones (390x844, touch) in real Chromium against a real ASGI server:
sarge shares a squad with hudson (editor) and gives him a marine; both play a mission at the
live tracker, each only with their own marines (hudson is refused on sarge's, the page stays
whole with the message); the referee ends the mission, a post-battle step is undone with the
Undo bar where it was tapped; the squad is exported (job page with progress, JSON download)
and imported by hudson as a new squad equal to the original."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from bughunt import documents, services
from bughunt.models import Mission, Squad
from bughunt.tests.versions import mission_version
from tests.asgi_server import asgi_server
from tests.browser import PHONE, chromium, login
from tests.test_browser_battles import LIVE
from tests.test_browser_bughunt import players

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

__all__ = ["players"]
SHOTS = Path(os.environ.get("DROPSHIP_SHOTS", "/tmp/shots-bh-phones"))


def phone(browser: Any, base: str, username: str) -> Page:
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    login(page, base, username)
    return page


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def in_thumb_reach(page: Page, locator: Any) -> None:
    """On screen, in the lower quarter, and a finger's size."""
    box = locator.bounding_box()
    assert box is not None
    assert PHONE["height"] * 0.75 <= box["y"] and box["y"] + box["height"] <= PHONE["height"], box
    assert box["height"] >= 44, box


def test_two_phones_play_a_shared_squad_undo_a_post_battle_step_and_round_trip_it(players, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    sarge, hudson = players
    # Export and import jobs run in the server's process (no Celery worker in this test); the
    # job page, its progress and the download are the same as with a worker.
    monkeypatch.setenv("CELERY_TASK_ALWAYS_EAGER", "true")
    squad = services.squad_create(user=sarge, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=3)
    hicks = squad.troopers.get(name="Hicks")
    with asgi_server(redis_url=settings.REDIS_URL or None) as base, chromium() as browser:
        sp, hp = phone(browser, base, "sarge"), phone(browser, base, "hudson")

        # Sarge shares the squad from the squad page: hudson as editor, then Hicks is his.
        sp.goto(f"{base}/bughunt/{squad.pk}/")
        invite = sp.get_by_test_id("invite")
        invite.get_by_label("Username").fill("hudson")
        invite.get_by_label("Role").select_option("editor")
        invite.get_by_role("button", name="Invite").tap()
        expect(sp.get_by_test_id("members")).to_contain_text("hudson")
        sp.get_by_label("Who commands Hicks").select_option("hudson")
        sp.get_by_test_id(f"commander-{hicks.pk}").get_by_role("button", name="Give").tap()
        expect(sp.get_by_test_id("members")).to_contain_text("commands Hicks")
        shot(sp, "01-sarge-squad-shared")

        # The mission's set-up is not the point here: through the services.
        squad.refresh_from_db()
        mission = services.mission_create(user=sarge, squad_id=squad.pk, version=squad.version, seed=2)
        loadout = {str(t.pk): "Combat rifle" for t in services.available_troopers(squad)}
        services.mission_loadout(user=sarge, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
        mission = services.mission_start(user=sarge, mission_id=mission.pk, version=mission_version(mission.pk))
        assert mission.room is not None
        units = {u["name"]: u for u in mission.room.state["units"]}
        hicks_unit, vasquez_unit = units["Hicks"], units["Vasquez"]
        hicks_fig, vasquez_fig = hicks_unit["figures"][0]["id"], vasquez_unit["figures"][0]["id"]
        assert hicks_unit["owner"] == str(hudson.pk)

        room_url = f"{base}/rooms/{mission.room.pk}/"
        sp.goto(room_url)
        hp.goto(room_url)
        expect(sp.get_by_test_id("now")).to_contain_text("Start of round")
        expect(hp.get_by_test_id("now")).to_contain_text("Start of round")
        expect(hp.get_by_test_id(f"unit-{hicks_unit['id']}")).to_contain_text("yours")
        shot(hp, "02-hudson-tracker")

        # The referee rolls Reactions with typed dice: every unit gets a 1 (Quick Actions).
        count = len(units)
        sp.locator("#reactions-form").get_by_label("My Reaction dice (optional, one per unit)").fill(", ".join(["1"] * count))
        sp.get_by_test_id("roll-reactions").tap()
        expect(sp.get_by_test_id("last-result")).to_contain_text(", ".join(["1"] * count))
        # Hudson acts on the latest state: he waits for the dice before taking one for Hicks.
        die = hp.get_by_test_id(f"reaction-die-{hicks_unit['id']}")
        expect(die).to_be_visible(timeout=LIVE)
        hp.locator(f"#unit-{hicks_unit['id']}").get_by_role("button", name="Take this die").tap()
        expect(hp.get_by_test_id(f"unit-{hicks_unit['id']}")).to_contain_text("die 1: quick", timeout=LIVE)
        expect(sp.get_by_test_id(f"unit-{hicks_unit['id']}")).to_contain_text("die 1: quick", timeout=LIVE)
        for name, unit in units.items():
            if name == "Hicks":
                continue
            sp.locator(f"#unit-{unit['id']}").get_by_role("button", name="Take this die").tap()
            # each tap waits for its answer: the next one is sent against the newest version
            expect(sp.get_by_test_id(f"unit-{unit['id']}").locator("header")).to_contain_text("die 1: quick", timeout=LIVE)
        shot(sp, "03-sarge-dice-taken")
        sp.get_by_test_id("next-phase").tap()
        expect(hp.get_by_test_id("now")).to_contain_text("Quick Action phase", timeout=LIVE)

        # Hudson's phone offers no move for sarge's Vasquez; a forged one is refused, the page whole.
        expect(hp.get_by_test_id(f"move-{vasquez_fig}")).to_have_count(0)
        move = hp.get_by_test_id(f"move-{hicks_fig}")
        expect(move).to_be_visible(timeout=LIVE)
        move.locator("input[name=figure]").evaluate("(el, id) => { el.value = id }", vasquez_fig)
        move.get_by_role("button").tap()
        refusal = hp.get_by_test_id("refusal")
        expect(refusal).to_contain_text("Vasquez is not one of your figures")
        box = refusal.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
        expect(hp.locator("header nav")).to_be_visible()
        expect(hp.get_by_test_id("bughunt-mission")).to_be_visible()
        shot(hp, "04-hudson-refused-on-vasquez")

        # With his own marine he moves, and sarge's phone follows.
        hp.reload()
        move = hp.get_by_test_id(f"move-{hicks_fig}")
        move.locator("input[name=figure]").evaluate("(el, id) => { el.value = id }", hicks_fig)
        move.get_by_role("button").tap()
        expect(hp.get_by_test_id(f"moved-{hicks_fig}")).to_be_visible()
        expect(sp.get_by_test_id(f"moved-{hicks_fig}")).to_be_visible(timeout=LIVE)
        hp.get_by_test_id(f"act-{hicks_unit['id']}").tap()
        expect(sp.get_by_test_id(f"unit-{hicks_unit['id']}")).to_contain_text("acted", timeout=LIVE)
        shot(hp, "05-hudson-hicks-moved")

        # The referee ends the mission; hudson's phone shows it over.
        sp.once("dialog", lambda d: d.accept())
        sp.get_by_test_id("end-mission").tap()
        expect(hp.get_by_test_id("now")).to_contain_text("Mission over", timeout=LIVE)
        shot(hp, "06-hudson-mission-over")

        # The post-battle sequence on hudson's phone: step 1 rolled, then undone with the Undo bar.
        hp.goto(f"{base}/bughunt/missions/{mission.pk}/")
        hp.get_by_role("button", name="Roll for casualties and lost marines").tap()
        expect(hp.get_by_test_id("casualties-rolled")).to_be_in_viewport()  # the result where it was tapped
        shot(hp, "07-hudson-casualties-rolled")
        bar = hp.get_by_test_id("undo-bar")
        expect(bar).to_contain_text("post-battle: 1. casualties rolled")
        undo = hp.get_by_test_id("undo").get_by_role("button", name="Undo")
        in_thumb_reach(hp, undo)
        undo.tap()
        expect(hp.get_by_test_id("undo-result")).to_contain_text("Undid:")  # the bar where it was tapped
        expect(hp).to_have_url(f"{base}/bughunt/missions/{mission.pk}/#casualties")
        expect(hp.get_by_test_id("undo-result")).to_contain_text("Undid:")
        expect(hp.get_by_test_id("casualties-rolled")).to_have_count(0)
        expect(hp.get_by_role("button", name="Roll for casualties and lost marines")).to_be_in_viewport()
        shot(hp, "08-hudson-casualties-undone")
        assert (Mission.objects.get(pk=mission.pk).post_battle or {}).get("casualties") is None

        # Sarge finishes the mission on his phone.
        sp.goto(f"{base}/bughunt/missions/{mission.pk}/")
        sp.locator("#finish").get_by_role("button", name=f"End mission {mission.number}").tap()
        expect(sp.get_by_test_id("post-battle")).to_be_visible()
        shot(sp, "09-sarge-post-battle")

        # Export: the job page shows progress, then the JSON download.
        sp.goto(f"{base}/bughunt/{squad.pk}/")
        sp.get_by_test_id("export").get_by_role("button").tap()
        expect(sp.get_by_test_id("job").locator("progress")).to_be_visible()
        expect(sp.get_by_test_id("job-state")).to_have_text("done", timeout=LIVE)
        # the post-battle rolls may send a marine home and roll up a replacement: "3" or more troopers
        expect(sp.get_by_test_id("job-message")).to_contain_text(re.compile(r"Exported \d+ troopers, 1 missions, \d+ log lines"))
        shot(sp, "10-sarge-export-job")
        download_link = sp.get_by_test_id("download")
        expect(download_link).to_be_visible(timeout=LIVE)
        with sp.expect_download() as caught:
            download_link.tap()
        path = caught.value.path()
        original = json.loads(Path(path).read_text())
        shot(sp, "11-sarge-export-done")

        # Hudson imports it from his phone: a new squad of his, equal to the original.
        hp.goto(f"{base}/bughunt/import/")
        hp.locator("input[type=file]").set_input_files(path)
        hp.get_by_role("button", name="Import").tap()
        opened = hp.get_by_test_id("open-squad")
        expect(opened).to_be_visible(timeout=LIVE)
        shot(hp, "12-hudson-imported")
        opened.tap()
        expect(hp.get_by_role("heading", level=1)).to_have_text("Kilo")
        shot(hp, "13-hudson-imported-squad")

    copy = Squad.objects.exclude(pk=squad.pk).get(owner=hudson)
    again = documents.squad_document(copy)
    assert [t["name"] for t in again["troopers"]] == [t["name"] for t in original["troopers"]]
    assert [(m["number"], m["stage"]) for m in again["missions"]] == [(1, "done")]
    assert copy.log.count() == len(original["log"]) == Squad.objects.get(pk=squad.pk).log.count()
    assert again == original  # the same squad: troopers, missions, log
