"""The OpenAPI schema's error responses: every operation documents the refusals it can give.

drf-spectacular documents only the success response of an operation; a client (and the schema
fuzzing in tests/test_api_schemathesis.py) then meets undocumented 400/401/403/404/409 answers.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ApiErrorSerializer(serializers.Serializer[Any]):
    """A refusal (see config.api.exception_handler): ``detail`` and the ``field`` it names.

    A stale write (409) also carries the current ``version`` (and state); a DRF validation
    error (400) is keyed by field names instead, so no key is required."""

    detail = serializers.CharField(required=False, help_text="What was refused and why.")
    field = serializers.CharField(required=False, help_text="The input field the refusal names, when there is one.")


_ERROR = ApiErrorSerializer
_SAFE = {"GET", "HEAD", "OPTIONS"}


class DropshipAutoSchema(AutoSchema):
    """drf-spectacular's schema plus the error responses each operation can answer with."""

    def _error_responses(self) -> dict[str, str]:
        codes = {
            "400": "Bad input: the body names the field (and the allowed values).",
            "401": "Not signed in (no or a bad token).",
            "403": "Signed in, but your role does not allow this.",
        }
        if "{" in self.path or self.method not in _SAFE:
            # Writes also resolve the ids in their body within what the user may touch.
            codes["404"] = "No such object, or it is not shared with you."
        if self.method not in _SAFE:
            codes["415"] = "The body is not JSON, a form or multipart, or cannot be read as its content type says."
            codes["409"] = "Stale or conflicting write: made against an old version (the body has the current one)."
        return codes

    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:  # type: ignore[override]
        responses: dict[str, Any] = super()._get_response_bodies(direction)  # type: ignore[arg-type]
        if direction != "response":
            return responses
        for code, description in self._error_responses().items():
            if code not in responses:
                responses[code] = self._get_response_for_code(OpenApiResponse(_ERROR, description=description), code)
        return responses
