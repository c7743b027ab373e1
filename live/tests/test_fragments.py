"""The room's fragment rendered once per role (owner, players, viewers and guests)
for the event stream, and the poll fallback that writes nothing."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from live import services
from live.engine.tracker import Role
from live.fragments import OWNER_VIEW, WATCH_VIEW, compact, render_views, view_of
from live.models import Room
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(owner, player, threat_tables) -> Room:  # type: ignore[no-untyped-def]
    room = services.room_create(user=owner, kind="threat", title="Sulaco")
    services.room_share(room, {player.pk: "player"})
    services.room_act(
        user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley", "owner": str(player.pk)}, version=0
    )
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Bishop"}, version=1)
    return room


def test_each_view_is_rendered_once_from_the_committed_state(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    mine = view_of(Role.PLAYER, player.pk)
    html = render_views(room.pk, [OWNER_VIEW, mine, WATCH_VIEW])
    owner, own, watch = html[OWNER_VIEW], html[mine], html[WATCH_VIEW]
    assert owner and own and watch
    for fragment in (owner, own, watch):
        assert fragment.lstrip().startswith('<section id="tracker" data-version="2"')
        assert "Ripley" in fragment and "Bishop" in fragment
        assert "csrfmiddlewaretoken" not in fragment
    # The owner acts for every figure, the player for their own, a viewer for none.
    assert owner.count('name="characters"') == 2
    assert own.count('name="characters"') == 1
    assert watch.count('name="characters"') == 0 and "Undo last action" not in watch


def test_the_queries_do_not_grow_with_the_views(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    others = [UserFactory.create(username=f"marine{n}") for n in range(4)]
    services.room_share(room, {u.pk: "player" for u in others})
    one = [OWNER_VIEW]
    many = [OWNER_VIEW, WATCH_VIEW, *(view_of(Role.PLAYER, u.pk) for u in [player, *others])]
    with CaptureQueriesContext(connection) as few:
        render_views(room.pk, one)
    with CaptureQueriesContext(connection) as all_views:
        rendered = render_views(room.pk, many)
    assert all(rendered.values())
    assert len(all_views) <= len(few) + 1  # the players' users, in one query


def test_a_view_nobody_holds_any_more_is_gone(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    services.membership_set_role(user=room.owner, room_id=room.pk, user_id=player.pk, role="viewer", version=2)
    assert render_views(room.pk, [view_of(Role.PLAYER, player.pk)]) == {f"player-{player.pk}": None}
    assert render_views(room.pk + 1000, [OWNER_VIEW]) == {OWNER_VIEW: None}


def test_the_poll_fallback_writes_nothing(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(player)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    stamp = page.split("&amp;members=", 1)[1].split('"', 1)[0]
    for _ in range(3):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/rooms/{room.pk}/tracker/?version=2&members={stamp}").status_code == 304
            assert client.get(f"/rooms/{room.pk}/tracker/?version=1&members={stamp}", HTTP_HX_REQUEST="true").status_code == 200
        writes = [q["sql"] for q in queries if q["sql"].lstrip().split(" ", 1)[0].upper() in {"INSERT", "UPDATE", "DELETE"}]
        assert writes == []


def test_the_room_page_opens_its_views_stream_and_asks_for_the_tracker_only_on_demand(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(player)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert f'sse-connect="/events/rooms/{room.pk}/?fragments=1"' in page and f'data-me="{player.pk}"' in page
    assert 'sse-swap="tracker"' in page
    assert 'hx-trigger="dropship:refresh"' in page and "every 5s" not in page


def test_every_player_is_pushed_one_render_that_marks_who_plays_each_figure(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    other = UserFactory.create(username="hicks")
    services.room_share(room, {other.pk: "player"})
    services.room_act(
        user=room.owner, room_id=room.pk, type="add_character", payload={"name": "Hicks", "owner": str(other.pk)}, version=2
    )
    mine, theirs = view_of(Role.PLAYER, player.pk), view_of(Role.PLAYER, other.pk)
    html = render_views(room.pk, [OWNER_VIEW, mine, theirs, WATCH_VIEW])
    assert html[mine] is html[theirs]  # one render for every player
    shared = html[mine]
    assert shared
    # Each played figure's check box comes marked with its player, for dropship.js to keep on that
    # player's device only, and its plain name for everyone else; the referee's figure has none.
    assert f'<template data-played-by="{player.pk}"><label class="character' in shared
    assert f'<template data-played-by="{other.pk}"><label class="character' in shared
    assert f'<template data-not-played-by="{player.pk}"><span class="character other' in shared
    assert shared.count('name="characters"') == 2  # Ripley's and Hicks's; Bishop is the referee's
    # Each player's own Leave button, marked the same way; the owner's and the viewers' renders have no marks.
    assert f'data-only-for="{player.pk}"' in shared and f'data-only-for="{other.pk}"' in shared
    assert "data-played-by=" not in (html[OWNER_VIEW] or "") and "data-played-by=" not in (html[WATCH_VIEW] or "")


def test_a_plain_page_load_is_still_rendered_for_its_player(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(player)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert "data-played-by=" not in page and page.count('name="characters" value=') == 1


def test_the_log_lines_pushed_to_every_role_are_those_a_device_fetches(room: Room, player) -> None:  # type: ignore[no-untyped-def]
    for version in range(2, 16):  # past one page of the log: the "Older entries" link comes too
        services.room_act(user=room.owner, room_id=room.pk, type="end_phase", payload={}, version=version)
    mine = view_of(Role.PLAYER, player.pk)
    pushed = render_views(room.pk, [OWNER_VIEW, mine, WATCH_VIEW])

    def log_of(html: str) -> str:
        return html.split('<div id="room-log-entries"', 1)[1].split("</div>", 1)[0]

    logs = {log_of(pushed[view] or "") for view in (OWNER_VIEW, mine, WATCH_VIEW)}
    assert len(logs) == 1  # rendered once, the same lines in every role's frame
    client = Client()
    client.force_login(player)
    fetched = client.get(f"/rooms/{room.pk}/tracker/", HTTP_HX_REQUEST="true").content.decode()
    assert logs == {log_of(compact(fetched))}
    assert "Version 16" in logs.pop() and 'data-testid="log-more"' in fetched
