"""One input schema per operation, for the HTML view and the API view alike.

An app defines a DRF serializer per write beside its service (``<app>/inputs.py``); the API
view validates ``request.data`` with it (DRF answers 400 ``{"<field>": [message]}``) and the
HTML view validates ``request.POST`` with :func:`validated`, which raises the
:class:`DropshipError` the page shows beside the field. Both then call the same service with the
same validated values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.utils import html

from rules.bounds import FACE_MAX, int_field
from rules.errors import DropshipError


def validated(serializer_class: type[serializers.Serializer[Any]], data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` (a form's ``request.POST`` or a JSON body) checked by ``serializer_class``.

    Raises :class:`DropshipError` (400) naming the first field at fault and saying what it
    must be."""
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        name, problems = next(iter(serializer.errors.items()))
        problem = problems[0] if isinstance(problems, list) and problems else problems
        while isinstance(problem, dict):  # a list's item or a nested field: its first problem
            inner = next(iter(problem.values()))
            problem = inner[0] if isinstance(inner, list) and inner else inner
        field = None if name == "non_field_errors" else name
        raise DropshipError(f"{name}: {problem}" if field else str(problem), field=field)
    return dict(serializer.validated_data)


class FacesField(serializers.ListField):
    """The player's own dice: a list of faces (JSON) or text such as ``"5, 4"`` or ``"5 4"``
    (a form's one input); ``None`` when left empty. Each face is 0 to :data:`FACE_MAX`."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", int_field(0, FACE_MAX))
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("default", None)
        super().__init__(**kwargs)

    def get_value(self, dictionary: Any) -> Any:
        if html.is_html_input(dictionary):  # a form sends one text input, not a list
            raw = dictionary.get(self.field_name, serializers.empty)
            return None if raw == "" else raw
        return super().get_value(dictionary)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            data = data.replace(",", " ").split()
        return super().to_internal_value(data)
