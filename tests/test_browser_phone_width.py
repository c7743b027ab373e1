"""Every page fits a phone: no screen scrolls sideways at 390 px in real Chromium.

The pages are every route of the authorization matrix that its owner may read, over the same
world of objects (:mod:`tests.world`): each one that answers a whole HTML page (not a fragment,
a download or a refusal) is opened at 390x844. A wide table scrolls inside its own box
(``.overflow-auto``); the page itself keeps the phone's width, so the header, Undo and the forms
stay where a thumb reaches them."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.asgi_server import asgi_server
from tests.browser import PHONE, chromium, login
from tests.test_permission_matrix import MATRIX, _url
from tests.world import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The elements (outside the header's own scrolling nav) that reach past the phone's right edge.
WIDEST = """(width) => [...document.querySelectorAll('main *')]
  .filter(e => e.getBoundingClientRect().right > width + 1 && !e.closest('.overflow-auto'))
  .slice(-3)
  .map(e => `${e.tagName.toLowerCase()}.${e.className} "${(e.textContent || '').trim().slice(0, 30)}"`)"""


def _pages(world: object, client: Client) -> list[str]:
    """The URLs of whole HTML pages the owner may read (answered 200 with a viewport)."""
    urls = []
    for route, rule in MATRIX.items():
        if rule.read not in ("public", "user", "owner", "editor", "reader", "player", "viewer") or route.startswith("admin"):
            continue
        url = _url(route, world)  # type: ignore[arg-type]
        response = client.get(url)
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        if b'name="viewport"' in response.content:
            urls.append(url)
    return urls


def test_no_page_scrolls_sideways_on_a_phone() -> None:
    world = build_world()
    owner = world.users["owner"]
    client = Client()
    client.force_login(owner)
    pages = _pages(world, client)
    assert len(pages) >= 40, pages  # the walk reached the screens, not only refusals
    too_wide = {}
    with asgi_server() as base, chromium() as browser:
        page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        login(page, base, owner.username)
        for url in pages:
            page.goto(base + url)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                too_wide[url] = (width, page.evaluate(WIDEST, PHONE["width"]))
    assert not too_wide, too_wide
