"""REST API for rule tables: list, detail, lookup, roll, and token sign-in.

One view per operation, each with its own input and output serializers; every write goes
through :mod:`rules.services`.
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from rules import selectors, services
from rules.engine.tables import TableRoll
from rules.models import RuleTable, TableEntry


class EntrySerializer(serializers.ModelSerializer[TableEntry]):
    class Meta:
        model = TableEntry
        fields = ["low", "high", "result", "effect", "data", "column"]


class TableListSerializer(serializers.ModelSerializer[RuleTable]):
    system: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = RuleTable
        fields = ["slug", "title", "system", "die", "source", "kind", "book", "chapter"]


class TableDetailSerializer(TableListSerializer):
    entries = EntrySerializer(many=True, read_only=True)

    class Meta(TableListSerializer.Meta):
        fields = [*TableListSerializer.Meta.fields, "notes", "columns", "data_keys", "entries"]


class RollRecordSerializer(serializers.Serializer[Any]):
    notation = serializers.CharField()
    reason = serializers.CharField()
    faces = serializers.ListField(child=serializers.IntegerField())
    kept = serializers.ListField(child=serializers.IntegerField())
    natural = serializers.IntegerField(allow_null=True)
    modifier = serializers.IntegerField()
    total = serializers.IntegerField(allow_null=True)
    keep = serializers.CharField()
    entered = serializers.BooleanField()
    rerolled = serializers.ListField(child=serializers.IntegerField())


class EntryOutSerializer(serializers.Serializer[Any]):
    low = serializers.IntegerField(allow_null=True)
    high = serializers.IntegerField(allow_null=True)
    result = serializers.CharField()
    effect = serializers.CharField()
    data = serializers.DictField()  # type: ignore[assignment]
    column = serializers.CharField()


def _entry(outcome: TableRoll) -> dict[str, Any]:
    e = outcome.entry
    return {"low": e.low, "high": e.high, "result": e.result, "effect": e.effect, "data": dict(e.data), "column": e.column}


class TableListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter("system", str, description="Rule system slug, e.g. fiveparsecs or bughunt."),
            OpenApiParameter("search", str, description="Matches a title, a chapter or any entry's result name."),
            OpenApiParameter("kind", str, enum=["random", "reference"]),
        ],
        responses=TableListSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        tables = selectors.table_list(
            system=request.query_params.get("system", ""),
            search=request.query_params.get("search", ""),
            kind=request.query_params.get("kind", ""),
        )
        return Response(TableListSerializer(tables, many=True).data)


class TableDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=TableDetailSerializer)
    def get(self, request: Request, slug: str) -> Response:
        return Response(TableDetailSerializer(selectors.table_get(slug=slug)).data)


class TableLookupApi(APIView):
    """The entry covering the number you rolled with your own dice; nothing is logged."""

    permission_classes = [AllowAny]

    class TableLookupInputSerializer(serializers.Serializer[Any]):
        roll = serializers.IntegerField()
        column = serializers.CharField(required=False, allow_blank=True, default="")

    @extend_schema(
        parameters=[
            OpenApiParameter("roll", int, required=True, description="The number your dice show."),
            OpenApiParameter("column", str, description="Column name, for tables with a column per kind."),
        ],
        responses=inline_serializer("TableLookup", {"roll": RollRecordSerializer(), "entry": EntryOutSerializer()}),
    )
    def get(self, request: Request, slug: str) -> Response:
        params = self.TableLookupInputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        table = selectors.table_get(slug=slug)
        outcome = selectors.table_lookup(table=table, value=params.validated_data["roll"], column=params.validated_data["column"])
        return Response({"roll": outcome.record.as_dict(), "entry": _entry(outcome)})


class TableRollApi(APIView):
    """Roll the table's die (plus an optional modifier); the roll is logged to your history."""

    permission_classes = [AllowAny]

    class TableRollInputSerializer(serializers.Serializer[Any]):
        modifier = serializers.IntegerField(required=False, default=0, min_value=-100, max_value=100)
        column = serializers.CharField(required=False, allow_blank=True, default="")

    @extend_schema(
        request=TableRollInputSerializer,
        responses=inline_serializer(
            "TableRoll", {"roll": RollRecordSerializer(), "entry": EntryOutSerializer(), "value": serializers.IntegerField()}
        ),
    )
    def post(self, request: Request, slug: str) -> Response:
        data = self.TableRollInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = selectors.table_get(slug=slug)
        user_id = request.user.pk if request.user.is_authenticated else None
        session_key = request.session.session_key or "" if hasattr(request, "session") else ""
        result = services.table_roll(
            table=table,
            roller=services.Roller(user_id=user_id, session_key=session_key),
            modifier=data.validated_data["modifier"],
            column=data.validated_data["column"],
        )
        return Response({"roll": result.outcome.record.as_dict(), "entry": _entry(result.outcome), "value": result.outcome.value})


class TokenApi(ObtainAuthToken):
    """Exchange a username and password for an API token (send it as ``Authorization: Token <token>``)."""

    @extend_schema(
        request=inline_serializer("TokenRequest", {"username": serializers.CharField(), "password": serializers.CharField()}),
        responses=inline_serializer("TokenResponse", {"token": serializers.CharField()}),
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().post(request, *args, **kwargs)


urlpatterns = [
    path("tables/", TableListApi.as_view(), name="api-table-list"),
    path("tables/<slug:slug>/", TableDetailApi.as_view(), name="api-table-detail"),
    path("tables/<slug:slug>/lookup/", TableLookupApi.as_view(), name="api-table-lookup"),
    path("tables/<slug:slug>/roll/", TableRollApi.as_view(), name="api-table-roll"),
    path("auth/token/", TokenApi.as_view(), name="api-token"),
]
