"""The API's request parsers (kept apart from config.api, which DRF's settings must not import)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import parsers

from rules.payloads import check_json


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser that also refuses what the database cannot store: a NUL character in
    any string or key, and a non-finite number (``1e999`` parses as infinity). Raises
    :class:`rules.errors.DropshipError` (400) naming the path to the value, e.g. ``payload.name``."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        check_json(data, field="")
        return data
