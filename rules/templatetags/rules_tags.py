"""Template helpers for showing rule data compactly."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k.replace('_', ' ')} {_text(v)}" for k, v in value.items())
    return str(value)


@register.filter
def data_line(data: dict[str, Any]) -> str:
    """``{"combat_skill": 1, "traits": ["Pistol"]}`` → ``combat skill: 1 · traits: Pistol``."""
    return " · ".join(f"{key.replace('_', ' ')}: {_text(value)}" for key, value in data.items())
