"""Query-string filters of the API lists, validated like a request body.

An unknown value of a filter (``?kind=randm``, ``?campaign=abc``) is refused with 400 naming the
filter and its allowed values, instead of being ignored and answering a list that looks right.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

from rules.errors import DropshipError


def choice_filter(choices: Iterable[str], **kwargs: Any) -> serializers.ChoiceField:
    """An optional filter taking one of ``choices`` (empty means no filter); the error lists
    them: ``"Must be one of random, reference; got 'x'."``."""
    allowed = list(choices)
    message = f"Must be one of {', '.join(allowed)}; got '{{input}}'."
    return serializers.ChoiceField(
        choices=allowed, required=False, allow_blank=True, default="", error_messages={"invalid_choice": message}, **kwargs
    )


def text_filter(**kwargs: Any) -> serializers.CharField:
    """An optional free-text filter (a search), at most 200 characters."""
    return serializers.CharField(required=False, allow_blank=True, default="", max_length=200, **kwargs)


def query_filters(serializer_class: type[serializers.Serializer[Any]], request: Request, **kwargs: Any) -> dict[str, Any]:
    """The list's filters from ``request.query_params``, validated by ``serializer_class``
    (``kwargs`` go to its constructor).

    Raises :class:`DropshipError` (400 ``{"detail": "kind: Must be one of ...", "field": "kind"}``)
    naming the first filter at fault."""
    filters = serializer_class(data=request.query_params, **kwargs)
    if not filters.is_valid():
        field, problems = next(iter(filters.errors.items()))
        raise DropshipError(f"{field}: {' '.join(str(p) for p in problems)}", field=field)
    return dict(filters.validated_data)
