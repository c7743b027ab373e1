"""Template helpers that put a refused form's values back into it, so a refusal loses nothing
that was typed (see :func:`rules.forms.typed_back`).

``typed`` is ``{"form": <which form was posted>, "values": {field name: [values]}}``, empty on a
page that was not the answer to a refused POST. ``form`` is the name the view gave the form
posted (the campaign turn's ``step``, ``manual``, ``crew_task``...; Bug Hunt's
``mission_finish``). Only the form that was posted gets values back: two forms on a page with a
field of the same name (``face``) stay apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

register = template.Library()


def _values(typed: Mapping[str, Any] | None, form: str, name: str) -> list[str] | None:
    """What ``name`` held in ``form`` of the refused POST, or None when that form was not posted."""
    if not typed or typed.get("form") != form:
        return None
    return list(typed.get("values", {}).get(name, []))


@register.simple_tag
def typed_value(typed: Mapping[str, Any] | None, form: str, name: str, default: Any = "") -> Any:
    """The value typed into field ``name`` of ``form`` before the refusal (the first one), else
    ``default`` (what the form shows when it was not the one posted)."""
    values = _values(typed, form, name)
    if values is None:
        return default
    return values[0] if values else ""


@register.simple_tag
def typed_mark(
    typed: Mapping[str, Any] | None, form: str, name: str, value: Any, mark: str = "checked", default: bool = False
) -> str:
    """``mark`` (``checked`` or ``selected``) when ``value`` was among the values of field
    ``name`` in the refused ``form``; when that form was not posted, ``mark`` if ``default``."""
    values = _values(typed, form, name)
    chosen = default if values is None else str(value) in values
    return mark if chosen else ""
