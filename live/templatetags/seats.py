"""Template filters that seat a tracker's figures by who plays them, so a player's own cards come
first on their screen and the rest fold away."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import template
from django.utils.html import escape

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


@register.tag
def seat_controls(parser: template.base.Parser, token: template.base.Token) -> SeatNode:
    """``{% seat_controls f.owner [side.owner ...] %}...{% endseat_controls %}``: the controls of a
    figure played by those users (user ids as text).

    In a page rendered for one user the body is drawn as is (the template's own ``if`` decided it
    is theirs). In the render pushed to every player (``shared`` in the context, see
    :mod:`live.fragments`) the template's ``if`` lets it through for every played figure, and it
    comes inside ``<template data-played-by="<ids>">``: dropship.js puts it in place on the device
    of a user named there and drops it on every other. It is cosmetic: the server still refuses
    a player's action on a figure they do not play."""
    return _seat_node(parser, token, "data-played-by")


@register.tag
def seat_others(parser: template.base.Parser, token: template.base.Token) -> SeatNode:
    """``{% seat_others f.owner %}...{% endseat_others %}``: what everyone else sees of a figure
    whose controls are in a :func:`seat_controls` (its name without a check box, say). In the
    players' render it comes inside ``<template data-not-played-by="<ids>">``, which dropship.js
    drops on the device of a user named there and puts in place on every other."""
    return _seat_node(parser, token, "data-not-played-by")


def _seat_node(parser: template.base.Parser, token: template.base.Token, attribute: str) -> SeatNode:
    name, *bits = token.split_contents()
    nodelist = parser.parse((f"end{name}",))
    parser.delete_first_token()
    return SeatNode([parser.compile_filter(bit) for bit in bits], nodelist, attribute)


class SeatNode(template.Node):
    def __init__(self, owners: list[Any], nodelist: template.NodeList, attribute: str) -> None:
        self.owners = owners
        self.nodelist = nodelist
        self.attribute = attribute

    def render(self, context: template.Context) -> str:
        body: str = self.nodelist.render(context)
        if not context.get("shared"):
            return body
        owners = " ".join(dict.fromkeys(str(o) for o in (f.resolve(context) for f in self.owners) if o))
        return f'<template {self.attribute}="{escape(owners)}">{body}</template>'
