"""The REST API: one router for every app, and one exception handler.

Service errors (:class:`rules.errors.DropshipError`) become 400/403/404/409 bodies of the form
``{"detail": "...", "field": "..."}`` (503 with its ``headers``: Retry-After); a body over
``DATA_UPLOAD_MAX_MEMORY_SIZE`` is a 413 in that shape; DRF's own validation errors keep DRF's
shape.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.urls import include, path
from rest_framework import status
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter
from rest_framework.views import exception_handler as drf_exception_handler

from rules.errors import DropshipError

router = DefaultRouter()


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RequestDataTooBig):
        # Django refuses a body over DATA_UPLOAD_MAX_MEMORY_SIZE with a bare HTML 400; say why.
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = {"detail": f"The request body is larger than {limit:,} bytes, the most this server reads.", "field": "body"}
        return Response({**body, "limit": limit}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, DropshipError):
        return Response(exc.as_dict(), status=exc.status, headers=getattr(exc, "headers", None))
    return drf_exception_handler(exc, context)


def urlpatterns() -> list[Any]:
    """Routes under ``/api/v1/``: the shared router plus each app's own API views."""
    from battles import apis as battles_apis
    from battles import pvp_apis
    from bughunt import apis as bughunt_apis
    from campaigns import apis as campaigns_apis
    from campaigns import crew_apis
    from live import apis as live_apis
    from rules import apis as rules_apis

    return [
        path("", include(rules_apis.urlpatterns)),
        path("", include(live_apis.urlpatterns)),
        path("", include(bughunt_apis.urlpatterns)),
        path("", include(campaigns_apis.urlpatterns)),
        path("", include(crew_apis.urlpatterns)),
        path("", include(battles_apis.urlpatterns)),
        path("", include(pvp_apis.urlpatterns)),
        path("", include(router.urls)),
    ]
