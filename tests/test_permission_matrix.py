"""Walk every URL pattern of the project that names a private object and check that anonymous
users and outsiders get 403 or 404 (or 401 from the API), by GET and by POST. A new endpoint
with a room in its path is covered automatically."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from live import services
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PRIVATE_KWARGS = {"room_id"}
REFUSED = {401, 403, 404, 405}


def _patterns(resolver: URLResolver, prefix: str = "", defaults: dict | None = None) -> Iterator[tuple[str, URLPattern]]:  # type: ignore[type-arg]
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, route)
        else:
            yield route, entry


def private_routes() -> list[str]:
    routes = [route for route, _ in _patterns(get_resolver()) if any(f"<int:{k}>" in route for k in PRIVATE_KWARGS)]
    return sorted(set(routes))


def test_the_walk_finds_the_room_endpoints() -> None:
    routes = private_routes()
    assert "rooms/<int:room_id>/" in routes
    assert "api/v1/rooms/<int:room_id>/actions/" in routes
    assert "events/rooms/<int:room_id>/" in routes


@pytest.mark.parametrize("route", private_routes())
def test_private_endpoints_refuse_anonymous_users_and_outsiders(route: str) -> None:
    owner = UserFactory(username="owner")
    room = services.room_create(user=owner, kind="threat", title="Private")
    url = "/" + route.replace("<int:room_id>", str(room.pk))
    outsider_client = Client()
    outsider_client.force_login(UserFactory.create(username="outsider"))
    for who, client in [("anonymous", Client()), ("outsider", outsider_client)]:
        for method in ("get", "post"):
            response = getattr(client, method)(url)
            assert response.status_code in REFUSED, f"{method.upper()} {url} as {who} gave {response.status_code}"
    room.refresh_from_db()
    assert room.version == 0
