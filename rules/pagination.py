"""Pagination for the API's long lists (room, campaign and squad logs): a cursor that stays put
while the log grows, and refuses a spoiled cursor with a 400 naming the field."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination

from rules.errors import DropshipError


class LogCursorPagination(CursorPagination):
    """``{next, previous, results}`` pages of ``page_size`` entries (``?page_size=`` up to
    :attr:`max_page_size`), following ``?cursor=`` from the ``next``/``previous`` links.

    Subclasses set ``ordering`` (an indexed, unique, never-changing column). Raises
    :class:`DropshipError` (400, field ``cursor``) for a cursor that is not one it gave out."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = "id"

    def decode_cursor(self, request: Any) -> Cursor | None:
        try:
            return super().decode_cursor(request)
        except NotFound as exc:  # DRF answers 404 "Invalid cursor"; it is bad input, not a missing page
            raise DropshipError(
                "cursor: not a cursor from this list; follow the next or previous link, or leave it out.", field="cursor"
            ) from exc
