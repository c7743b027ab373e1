"""The REST API: one router for every app, and one exception handler.

Service errors (:class:`rules.errors.DropshipError`) become 400/403/404/409 bodies of the form
``{"detail": "...", "field": "..."}``; DRF's own validation errors keep DRF's shape.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import include, path
from django.views import defaults
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter
from rest_framework.views import exception_handler as drf_exception_handler

from rules.errors import DropshipError

router = DefaultRouter()


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DropshipError):
        return Response(exc.as_dict(), status=exc.status)
    return drf_exception_handler(exc, context)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The project's 404 page; under ``/api/`` a JSON body like every other API refusal (a path
    the router does not match, such as a slug with characters a slug cannot have)."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def urlpatterns() -> list[Any]:
    """Routes under ``/api/v1/``: the shared router plus each app's own API views."""
    from battles import apis as battles_apis
    from bughunt import apis as bughunt_apis
    from campaigns import apis as campaigns_apis
    from live import apis as live_apis
    from rules import apis as rules_apis

    return [
        path("", include(rules_apis.urlpatterns)),
        path("", include(live_apis.urlpatterns)),
        path("", include(bughunt_apis.urlpatterns)),
        path("", include(campaigns_apis.urlpatterns)),
        path("", include(battles_apis.urlpatterns)),
        path("", include(router.urls)),
    ]
