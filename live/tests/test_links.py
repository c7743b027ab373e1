"""The join link and QR code name an address phones can open, or say that none can."""

from __future__ import annotations

from unittest import mock

import pytest
from django.test import Client, override_settings

from live import services
from live.models import Room

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(owner, threat_tables) -> Room:  # type: ignore[no-untyped-def]
    return services.room_create(user=owner, kind="threat", title="Sulaco")


def _page(owner, room: Room, host: str) -> str:  # type: ignore[no-untyped-def]
    client = Client(HTTP_HOST=host)
    client.force_login(owner)
    return client.get(f"/rooms/{room.pk}/").content.decode()


@override_settings(SERVE_HOST="0.0.0.0", ALLOWED_HOSTS=["127.0.0.1", "192.168.1.20"])
def test_served_on_every_interface_the_link_names_the_local_network_address(owner, room: Room) -> None:  # type: ignore[no-untyped-def]
    code = services.room_code(room)
    assert code is not None
    with mock.patch("live.links.lan_addresses", return_value=["192.168.1.20"]):
        page = _page(owner, room, "127.0.0.1:8000")
        qr_link = Client(HTTP_HOST="127.0.0.1:8000")
        qr_link.force_login(owner)
        with mock.patch("live.views.segno.make", wraps=__import__("segno").make) as make:
            qr_link.get(f"/rooms/{room.pk}/qr.svg")
    assert f"http://192.168.1.20:8000/rooms/join/?code={code.code}" in page
    assert "127.0.0.1:8000/rooms/join" not in page
    assert 'data-testid="join-unreachable"' not in page
    assert make.call_args.args[0] == f"http://192.168.1.20:8000/rooms/join/?code={code.code}"


@override_settings(SERVE_HOST="127.0.0.1", ALLOWED_HOSTS=["127.0.0.1"])
def test_served_on_this_computer_only_the_join_box_says_phones_cannot_reach_it(owner, room: Room) -> None:  # type: ignore[no-untyped-def]
    page = _page(owner, room, "127.0.0.1:8000")
    assert 'data-testid="join-unreachable"' in page
    assert "make run HOST=0.0.0.0" in page


@override_settings(SERVE_HOST="127.0.0.1", ALLOWED_HOSTS=["dropship.example"])
def test_opened_by_a_network_name_the_link_keeps_it(owner, room: Room) -> None:  # type: ignore[no-untyped-def]
    page = _page(owner, room, "dropship.example")
    assert "http://dropship.example/rooms/join/?code=" in page
    assert 'data-testid="join-unreachable"' not in page
