"""The API's JSON parser: DRF's, refusing NUL characters with a 400 naming where they are.

A module of its own: DRF reads ``DEFAULT_PARSER_CLASSES`` while ``rest_framework.views`` is
imported, which config.api itself imports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import parsers

from rules.errors import DropshipError


def nul_path(data: Any, path: str = "") -> str | None:
    """The dotted path (``payload.name``, ``crew.0.weapons``) of the first key or string in
    ``data`` that holds a NUL character, or ``None``. PostgreSQL cannot store one in text or
    JSON, and no input of ours needs one."""
    if isinstance(data, str):
        return (path or "body") if "\x00" in data else None
    if isinstance(data, dict):
        for key, value in data.items():
            inner = f"{path}.{key}" if path else str(key)
            if "\x00" in str(key):
                return path or "body"
            found = nul_path(value, inner)
            if found is not None:
                return found
    if isinstance(data, list):
        for index, value in enumerate(data):
            found = nul_path(value, f"{path}.{index}" if path else str(index))
            if found is not None:
                return found
    return None


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser (which already refuses NaN and Infinity), also refusing NUL characters
    anywhere in the document with a 400 naming where: DRF's CharField refuses them, but the
    free-form objects (a tracker action's payload, a battle's enemy) go straight into JSON
    columns, where PostgreSQL fails on them."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        where = nul_path(data)
        if where is not None:
            raise DropshipError(f"{where}: null characters are not allowed.", field=where)
        return data
