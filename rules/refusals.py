"""A refused HTMX request leaves the page whole: nothing is swapped (what the user typed stays)
and the message appears beside the control that sent it (``static/js/dropship.js`` listens for
the ``dropship:refused`` event). Every app's views use it for refusals that are not form errors."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.html import format_html
from django_htmx.http import trigger_client_event

REFUSED_EVENT = "dropship:refused"


def htmx_refusal(message: str, status: int = 400) -> HttpResponse:
    """The answer to a refused HTMX request: ``status`` (a 4xx), ``HX-Reswap: none`` and an
    ``HX-Trigger`` event carrying ``message`` (JSON, ASCII-escaped, so any text is header-safe).
    The body repeats the message for clients that read it."""
    response = HttpResponse(format_html('<p class="refusal" role="alert">{}</p>', message), status=status)
    trigger_client_event(response, REFUSED_EVENT, {"message": message})
    response["HX-Reswap"] = "none"
    return response
