"""Every page fits a phone: no screen scrolls sideways at 390 px in real Chromium, even where a
player named things with one long word.

The pages are every route of the authorization matrix that its owner may read, over the same
world of objects (:mod:`tests.world`), with the campaign, character, squad, room, battle and
own table renamed to their longest names written without a space. Each route that answers a
whole HTML page (not a fragment, a download or a refusal) is opened at 390x844. A wide table
scrolls inside its own box (``.overflow-auto``); a long word wraps; the page itself keeps the
phone's width, so the header, Undo and the forms stay where a thumb reaches them."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from live import services
from tests.asgi_server import asgi_server
from tests.browser import PHONE, chromium, login
from tests.factories import UserFactory
from tests.test_browser_refusals import KINDS, tables  # noqa: F401 (the fixture)
from tests.test_permission_matrix import MATRIX, _url
from tests.world import World, build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The text that reaches past the phone's right edge, outside the header's own scrolling nav and
# the tables' scroll boxes (text, not elements: a long word in a flex row overflows its box
# without widening the box itself).
TEXT_PAST = """(width) => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    if (range.getBoundingClientRect().right > width + 1 && !node.parentElement.closest('body > header, .overflow-auto'))
      out.push(`${node.parentElement.tagName.toLowerCase()}.${node.parentElement.className} "${node.textContent.trim().slice(0, 30)}"`);
  }
  return out.slice(0, 3);
}"""
LONG = "Q" + "Xy" * 100  # a name typed as one word, cut to each field's longest


def _pages(world: World, client: Client) -> list[str]:
    """The URLs of whole HTML pages the owner may read (answered 200 with a viewport)."""
    urls = []
    for route in MATRIX:
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
        setattr(obj, field, LONG[:longest])
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
                too_wide[url] = (width, page.evaluate(TEXT_PAST, PHONE["width"]))
    assert not too_wide, too_wide


def test_no_table_scrolls_sideways_on_a_phone(tables: None) -> None:  # noqa: F811
    """Every tracker kind's table, its title and its figures named with long words."""
    owner = UserFactory.create(username="referee")
    options: dict[str, dict[str, Any]] = {
        **KINDS,
        "bughunt-mission": {"priority": "4", "main_characters": f"{LONG[:60]}, Hicks"},
        "mass": {"side_a": LONG[:60], "side_b": "Raiders"},
        "fiveparsecs-salvage": {"crew": f"{LONG[:30]} 1, Bo, Zed 2 bot"},
    }
    rooms = {
        kind: services.room_create(user=owner, kind=kind, title=LONG[:120], options=o, unlisted=True)
        for kind, o in options.items()
    }
    threat = rooms["threat"]
    services.room_act(user=owner, room_id=threat.pk, type="add_character", payload={"name": LONG[:60]}, version=threat.version)
    too_wide = {}
    with asgi_server() as base, chromium() as browser:
        page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        login(page, base, "referee")
        for kind, room in rooms.items():
            page.goto(f"{base}/rooms/{room.pk}/")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                too_wide[kind] = (width, page.evaluate(TEXT_PAST, PHONE["width"]))
    assert not too_wide, too_wide
