"""Project-wide middleware: gzip for pages, and a 503 with a retry hint (not a 500) while the
database is out of reach.

A lost or refused database connection (the driver's ``OperationalError`` or
``InterfaceError``, as Django wraps them) is an outage, not a bug: the request may succeed a
few seconds later. Django closes the broken connection at the end of the request, so the next
one connects afresh.
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.middleware.gzip import GZipMiddleware
from django.template.loader import render_to_string
from django.utils.deprecation import MiddlewareMixin

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 10
DETAIL = "The database is unavailable for a moment; try again in a few seconds."


def database_unavailable_response(request: HttpRequest) -> HttpResponse:
    """The 503 for ``request``: JSON ``{"detail": ...}`` under ``/api/``, else a short page.

    Both carry ``Retry-After`` in seconds. The page is rendered without the request context,
    because the context processors would read the session and user from the lost database.
    """
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": DETAIL}, status=503)
    else:
        html = render_to_string("503.html", {"detail": DETAIL, "retry_after": RETRY_AFTER_SECONDS})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """Turn a database connection error raised by a view into a 503 (see the module doc).

    Django's mixin keeps the middleware both sync and async capable, so ASGI requests take no
    extra thread hop through it.
    """

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """Answer 503 for ``OperationalError``/``InterfaceError``; leave anything else to Django."""
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.error("Database unavailable on %s %s: %s", request.method, request.path, exception)
        return database_unavailable_response(request)


class PageGZipMiddleware(GZipMiddleware):
    """Django's gzip compression (with its BREACH mitigation) for pages and API answers, but not
    for the live event stream: a compressed Server-Sent Events stream is held back in the
    compressor's buffer and reaches phones late."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if response.get("Content-Type", "").startswith("text/event-stream"):
            return response
        return super().process_response(request, response)
