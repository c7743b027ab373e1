"""Template helpers for showing rule data and rolls in words (see :mod:`rules.display`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

from rules import display
from rules.engine.tables import TableRoll

register = template.Library()


@register.filter
def data_line(data: Mapping[str, Any] | None, titles: Mapping[str, str] | str = "") -> str:
    """``{"combat_skill": 1, "traits": ["Pistol"]}`` → ``Combat skill: 1 · Traits: Pistol``.

    ``titles`` (optional) maps the slugs of tables named in the data to their titles."""
    return display.data_words(data, titles if isinstance(titles, Mapping) else None)


@register.simple_tag
def entry_data(data: Mapping[str, Any] | None, titles: Mapping[str, str] | str = "", result: str = "") -> str:
    """An entry's data in words, leaving out values that only repeat its ``result`` name."""
    return display.data_words(data, titles if isinstance(titles, Mapping) else None, result=result)


@register.filter
def roll_lead(outcome: TableRoll, die: str) -> str:
    """``"You rolled 47 on D100"`` / ``"Dropship rolled 3 + 4 = 7 on 2D6"``."""
    return display.roll_lead(outcome, die)


@register.filter
def prose(text: str, titles: Mapping[str, str] | str = "") -> str:
    """A table's notes with table slugs as titles and data keys as words."""
    return display.prose_words(text, titles if isinstance(titles, Mapping) else None)
