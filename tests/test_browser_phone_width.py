"""Every page fits a phone: no screen scrolls sideways at 390 px in real Chromium, even where a
player named things with one long word.

The pages are every route of the authorization matrix that its owner may read, over the same
world of objects (:mod:`tests.world`), with the campaign, character, squad, room, battle and
own table renamed to their longest names written without a space. Each route that answers a
whole HTML page (not a fragment, a download or a refusal) is opened at 390x844. A wide table
scrolls inside its own box (``.overflow-auto``); a long word wraps; the page itself keeps the
phone's width, so the header, Undo and the forms stay where a thumb reaches them."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.asgi_server import asgi_server
from tests.browser import PHONE, chromium, login
from tests.test_permission_matrix import MATRIX, _url
from tests.world import World, build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The elements (outside the header's own scrolling nav) that reach past the phone's right edge.
WIDEST = """(width) => [...document.querySelectorAll('main *')]
  .filter(e => e.getBoundingClientRect().right > width + 1 && !e.closest('.overflow-auto'))
  .slice(-3)
  .map(e => `${e.tagName.toLowerCase()}.${e.className} "${(e.textContent || '').trim().slice(0, 30)}"`)"""


def _pages(world: World, client: Client) -> list[str]:
    """The URLs of whole HTML pages the owner may read (answered 200 with a viewport)."""
    urls = []
    for route, rule in MATRIX.items():
        if rule.read not in ("public", "user", "owner", "editor", "reader", "player", "viewer") or route.startswith("admin"):
            continue
        url = _url(route, world)
        response = client.get(url)
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        if b'name="viewport"' in response.content:
            urls.append(url)
    return urls


def _long_names(world: World) -> None:
    """Each name a player types at its longest (the model's ``max_length``), with no space."""
    for obj, field in (
        (world.campaign, "name"),
        (world.character, "name"),
        (world.squad, "name"),
        (world.room, "title"),
        (world.battle, "title"),
        (world.user_table, "title"),
    ):
        longest = type(obj)._meta.get_field(field).max_length  # type: ignore[union-attr]
        setattr(obj, field, ("Q" + "Xy" * 100)[:longest])
        obj.save(update_fields=[field])


def test_no_page_scrolls_sideways_on_a_phone() -> None:
    world = build_world()
    _long_names(world)
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
