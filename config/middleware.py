"""Project-wide middleware."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware


class PageGZipMiddleware(GZipMiddleware):
    """Django's gzip compression (with its BREACH mitigation) for pages and API answers, but not
    for the live event stream: a compressed Server-Sent Events stream is held back in the
    compressor's buffer and reaches phones late."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if response.get("Content-Type", "").startswith("text/event-stream"):
            return response
        return super().process_response(request, response)
