"""Refuse request input that no view can use and the database cannot store.

A NUL character in a query parameter or a form field reaches the ORM as text, and PostgreSQL
refuses it (a server error) wherever it is filtered on or saved. Refusing it here, once, spares
every view its own check.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class RefuseNulMiddleware:
    """Answer 400 naming the parameter or field when a query string or form body holds a NUL
    character: ``{"detail", "field"}`` under ``/api/``, a plain-text message elsewhere."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        field = _nul_field(request)
        if field is None:
            return self.get_response(request)
        message = f"{field} must not contain NUL (\\u0000) characters."
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": message, "field": field}, status=400)
        return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")


def _nul_field(request: HttpRequest) -> str | None:
    """The first parameter or form field whose name or a value holds a NUL, or ``None``."""
    sources = [request.GET]
    if request.method == "POST" and request.content_type in FORM_TYPES:
        sources.append(request.POST)
    for data in sources:
        for key, values in data.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                return key.replace("\x00", "") or "(unnamed)"
    return None
