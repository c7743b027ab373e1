"""Tracker kinds that apps register with the live app.

An app registers each kind in its ``AppConfig.ready()``: the engine's reducer, a function that
builds the initial state from options (it may read rule tables), and the template whose
``tracker`` partial draws the state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from live.engine.tracker import Reducer
from rules.errors import DropshipError


@dataclass(frozen=True)
class TrackerKind:
    kind: str
    title: str
    app: str
    reducer: Reducer
    initial_state: Callable[[Mapping[str, Any]], dict[str, Any]]
    template: str


_KINDS: dict[str, TrackerKind] = {}


def register(kind: TrackerKind) -> None:
    _KINDS[kind.kind] = kind


def get(kind: str) -> TrackerKind:
    """The registered kind. Raises :class:`DropshipError` naming the known kinds."""
    try:
        return _KINDS[kind]
    except KeyError:
        raise DropshipError(f"No tracker kind {kind!r}; choose one of {', '.join(sorted(_KINDS))}.", field="kind") from None


def kinds() -> list[TrackerKind]:
    return sorted(_KINDS.values(), key=lambda k: k.title)
