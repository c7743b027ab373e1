"""Checks for free-form JSON that users send and the database stores (action payloads, options).

PostgreSQL refuses a NUL character in ``text`` and ``jsonb`` and cannot store a non-finite
number in ``jsonb``; both would surface as a server error on write, so they are refused here
first, naming where in the document they sit.
"""

from __future__ import annotations

import json
import math
from typing import Any

from rules.errors import DropshipError

NUL = "\x00"


def nul_free(text: str, *, field: str) -> str:
    """Return ``text`` unchanged, or raise :class:`DropshipError` naming ``field`` when it holds
    a NUL character."""
    if NUL in text:
        raise DropshipError(f"{field} must not contain NUL (\\u0000) characters.", field=field)
    return text


def check_json(value: Any, *, field: str, max_bytes: int | None = None) -> None:
    """Refuse a JSON-like ``value`` (dicts, lists, strings, numbers, booleans, ``None``) that
    holds a NUL character in a key or string, or a non-finite number, or that serializes to
    more than ``max_bytes`` bytes.

    Raises :class:`DropshipError` whose ``field`` is the path to the fault (``payload.name``,
    ``payload.faces[2]``) or ``field`` itself for the size limit. With ``field=""`` the paths
    start at the document's own keys (a request body: ``version``, ``payload.name``).
    """
    _walk(value, field)
    if max_bytes is not None:
        size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
        if size > max_bytes:
            raise DropshipError(f"{field} is too large: {size} bytes serialized; the limit is {max_bytes} bytes.", field=field)


def _walk(value: Any, path: str) -> None:
    if isinstance(value, str):
        nul_free(value, field=path)
    elif isinstance(value, float) and not math.isfinite(value):
        raise DropshipError(f"{path} must be a finite number; got {value}.", field=path)
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            nul_free(str(key), field=inner)
            _walk(item, inner)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _walk(item, f"{path}[{index}]")
