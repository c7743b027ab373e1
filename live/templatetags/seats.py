"""Template filters that seat a tracker's figures by who plays them, so a player's own cards come
first on their screen and the rest fold away."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import template

register = template.Library()


@register.filter
def played_by(items: Iterable[Mapping[str, Any]] | None, me: str) -> list[Mapping[str, Any]]:
    """The units or figures (dicts with an ``owner`` user id as text) that ``me`` plays.

    An empty ``me`` (a guest) plays nothing; an item without an owner is the room owner's."""
    return [item for item in items or () if me and item.get("owner") and str(item.get("owner")) == me]


@register.filter
def not_played_by(items: Iterable[Mapping[str, Any]] | None, me: str) -> list[Mapping[str, Any]]:
    """The units or figures that ``me`` does not play, in their order (see :func:`played_by`)."""
    return [item for item in items or () if not (me and item.get("owner") and str(item.get("owner")) == me)]
