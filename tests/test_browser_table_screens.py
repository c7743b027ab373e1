"""The table screens on a phone (390x844) and a laptop, in real Chromium, for every tracker kind:
the result of a tap shows without scrolling (the table bar), Undo and the phase control stay
one tap away wherever the page is scrolled, the log sits below the actions, folded, and every
tappable element is at least 44 px tall."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from live import services
from tests.asgi_server import asgi_server
from tests.browser import LAPTOP, PHONE, chromium, login
from tests.factories import UserFactory
from tests.test_browser_refusals import KINDS, tables  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The tap each kind's test makes: the bar's phase control, or the tracker's first step.
TAPS = {
    "threat": "bar-phase",
    "stack": "bar-phase",
    "stress": "bar-phase",
    "mass": "bar-phase",
    "bughunt-mission": "roll-reactions",
    "fiveparsecs-battle": "bar-phase",
    "fiveparsecs-salvage": "bar-phase",
}

SHORT_TAPPABLES = """(limit) => {
  const short = [];
  for (const el of document.querySelectorAll(
      '.room-layout button, .room-layout a, .room-layout summary, .room-layout select, ' +
      '.room-layout input[type=submit], header nav a, header nav button')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    if (box.height < limit) short.push(`${el.tagName} "${(el.textContent || '').trim().slice(0, 30)}" ${box.height}px`);
  }
  return short;
}"""


def _in_view(page: Page, test_id: str) -> bool:
    box = page.get_by_test_id(test_id).bounding_box()
    height = page.viewport_size["height"] if page.viewport_size else 0
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def test_every_tracker_keeps_results_and_undo_in_reach_on_a_phone(tables: None) -> None:  # noqa: F811
    owner = UserFactory.create(username="referee")
    with asgi_server() as base, chromium() as browser:
        for viewport in (PHONE, LAPTOP):
            rooms = {
                k: services.room_create(user=owner, kind=k, title=f"Screen {k}", options=o, unlisted=True)
                for k, o in KINDS.items()
            }
            page = browser.new_context(viewport=viewport, is_mobile=viewport is PHONE, has_touch=viewport is PHONE).new_page()
            login(page, base, "referee")
            for kind, room in rooms.items():
                page.goto(f"{base}/rooms/{room.pk}/")
                # Undo and the phase control are on screen at the top of the page and at its bottom.
                for where in ("top", "bottom"):
                    page.evaluate("window.scrollTo(0, 0)" if where == "top" else "window.scrollTo(0, document.body.scrollHeight)")
                    undo = page.get_by_role("button", name="Undo last action")
                    box = undo.bounding_box()
                    assert box is not None and box["y"] + box["height"] <= viewport["height"], (kind, where, box)
                    if TAPS[kind] == "bar-phase":
                        assert _in_view(page, "bar-phase"), (kind, where)
                # The log is below the actions and folded.
                log = page.locator("#room-log")
                assert log.get_attribute("open") is None, kind
                last_control = page.locator(".room-layout > div form:not(.table-bar form)").last.bounding_box()
                log_box = log.bounding_box()
                assert last_control is not None and log_box is not None and log_box["y"] >= last_control["y"], kind
                # Tap: the result shows in the bar, on screen, whatever the scroll.
                before = page.get_by_test_id("bar-result").inner_text()
                control = page.get_by_test_id(TAPS[kind])
                control.scroll_into_view_if_needed()
                control.click()
                expect(page.get_by_test_id("bar-result")).not_to_have_text(before)
                assert _in_view(page, "bar-result"), kind
                # 44 px tap targets.
                assert page.evaluate(SHORT_TAPPABLES, 44) == [], (kind, viewport)
            page.context.close()
