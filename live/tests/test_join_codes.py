"""A join code seats its holder in its own room only, while it is neither expired nor revoked."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from live import services
from live.models import Membership, Room
from rules.errors import DropshipError

pytestmark = pytest.mark.django_db


@pytest.fixture
def rooms(owner: Any, threat_tables: None) -> tuple[Room, Room]:
    return (
        services.room_create(user=owner, kind="threat", title="Hadley's Hope"),
        services.room_create(user=owner, kind="threat", title="Sulaco"),
    )


def test_a_code_seats_its_holder_in_its_own_room_only(rooms: tuple[Room, Room], player: Any) -> None:
    first, second = rooms
    code = services.room_code(first)
    assert code is not None
    membership = services.room_join(user=player, code=code.code.lower())
    assert (membership.room_id, membership.role) == (first.pk, "player")
    assert not Membership.objects.filter(room=second, user=player).exists()


def test_an_expired_code_is_refused_and_seats_nobody(rooms: tuple[Room, Room], player: Any) -> None:
    first, _ = rooms
    code = services.room_code(first)
    assert code is not None
    code.expires = timezone.now() - timedelta(seconds=1)
    code.save(update_fields=["expires"])
    with pytest.raises(DropshipError, match="expired or was revoked") as refused:
        services.room_join(user=player, code=code.code)
    assert refused.value.field == "code"
    assert services.room_code(first) is None
    assert not Membership.objects.filter(room=first, user=player).exists()


def test_a_rotated_code_no_longer_seats_anyone(rooms: tuple[Room, Room], owner: Any, player: Any) -> None:
    first, _ = rooms
    old = services.room_code(first)
    assert old is not None
    fresh = services.room_code_rotate(user=owner, room_id=first.pk)
    with pytest.raises(DropshipError, match="expired or was revoked"):
        services.room_join(user=player, code=old.code)
    assert not Membership.objects.filter(room=first, user=player).exists()
    assert services.room_join(user=player, code=fresh.code).room_id == first.pk
