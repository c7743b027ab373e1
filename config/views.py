"""Error answers for the whole site: a styled page for people, JSON ``{"detail": ...}`` for API
clients (paths under ``/api/``). Never a traceback: DEBUG is off unless asked for."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def server_error(request: HttpRequest) -> HttpResponse:
    """500: the styled page (rendered without a database or a request context), or JSON."""
    if _is_api(request):
        return JsonResponse({"detail": "Server error: the request was not carried out. Try again."}, status=500)
    return defaults.server_error(request)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404 for an address no view answers: the styled page, or JSON for the API."""
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """400 for a request Django itself refuses (a disallowed host name, a broken upload)."""
    if _is_api(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """403: the styled page with the refusal's own words, or JSON for the API."""
    if _is_api(request):
        return JsonResponse({"detail": str(exception) or "You do not have permission to do this."}, status=403)
    return defaults.permission_denied(request, exception)
