"""Template filters that hand the Bug Hunt screens what the rules decide, from
:mod:`bughunt.selectors`, so the templates compare no rule numbers themselves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

from bughunt import selectors
from bughunt.models import Mission

register = template.Library()


@register.filter
def tracker_screen(state: Mapping[str, Any]) -> dict[str, Any]:
    """``{% with screen=state|tracker_screen %}``: see :func:`bughunt.selectors.tracker_screen`."""
    return selectors.tracker_screen(state)


@register.filter
def mission_summary(mission: Mission) -> dict[str, Any]:
    """``{% with summary=mission|mission_summary %}``: see :func:`bughunt.selectors.mission_summary`."""
    return selectors.mission_summary(mission)
