"""REST API for rule tables: list, detail, lookup, roll, token sign-in, and your own tables
(list, create, read, replace, delete, import, export).

One view per operation, each with its own input and output serializers; every write goes
through :mod:`rules.services`.
"""

from __future__ import annotations

import json
from typing import Any

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from rules import bounds, selectors, services
from rules.bounds import int_field
from rules.engine.tables import TableRoll
from rules.errors import DropshipError
from rules.models import RuleSystem, RuleTable, TableEntry
from rules.query import choice_filter, query_filters, text_filter


class TransferJobSerializer(serializers.Serializer[Any]):
    """An export or import job (``rules.jobs.Transfers.as_dict``); each game adds the field
    naming what was exported or imported."""

    id = serializers.IntegerField()
    kind = serializers.CharField(help_text="export or import.")
    state = serializers.CharField(help_text="pending, running, done or failed.")
    progress = serializers.IntegerField(help_text="Percent, 0-100.")
    message = serializers.CharField()
    document = serializers.JSONField(allow_null=True, help_text="The export document, once an export is done.")
    created = serializers.DateTimeField()


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

    class TableFilterSerializer(serializers.Serializer[Any]):
        system = serializers.CharField(required=False, allow_blank=True, default="")
        search = text_filter()
        kind = choice_filter(["random", "reference"])

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.fields["system"] = choice_filter(RuleSystem.objects.order_by("position").values_list("slug", flat=True))

    @extend_schema(
        parameters=[
            OpenApiParameter("system", str, description="Rule system slug, e.g. fiveparsecs or bughunt."),
            OpenApiParameter("search", str, description="Matches a title, a chapter or any entry's result name."),
            OpenApiParameter("kind", str, enum=["random", "reference"]),
        ],
        responses=TableListSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        filters = query_filters(self.TableFilterSerializer, request)
        tables = selectors.table_list(system=filters["system"], search=filters["search"], kind=filters["kind"], user=request.user)
        return Response(TableListSerializer(tables, many=True).data)


class TableDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=TableDetailSerializer)
    def get(self, request: Request, slug: str) -> Response:
        return Response(TableDetailSerializer(selectors.table_get_for(slug=slug, user=request.user)).data)


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
        table = selectors.table_get_for(slug=slug, user=request.user)
        params = self.TableLookupInputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
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
        table = selectors.table_get_for(slug=slug, user=request.user)
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
    """Exchange a username and password for an API token (send it as ``Authorization: Token <token>``).

    Throttled per address (``TOKEN_RATE``, 429 with ``Retry-After``); wrong passwords count
    towards the same lockout as the login page (django-axes).
    """

    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "token"

    @extend_schema(
        request=inline_serializer("TokenRequest", {"username": serializers.CharField(), "password": serializers.CharField()}),
        responses={
            200: inline_serializer("TokenResponse", {"token": serializers.CharField()}),
            # Too many requests from this address, or too many wrong passwords for this user.
            429: inline_serializer("TokenThrottled", {"detail": serializers.CharField()}),
        },
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        try:
            return super().post(request, *args, **kwargs)
        except serializers.ValidationError:
            # django-axes marks the request when the user name is locked out from this address.
            if getattr(request, "axes_locked_out", False):
                raise Throttled(detail="Too many failed log-ins for this user from this address; try again in an hour.") from None
            raise


class UserTableEntryInputSerializer(serializers.Serializer[Any]):
    low = int_field(bounds.INT_MIN, bounds.INT_MAX, required=False, allow_null=True, default=None)
    high = int_field(bounds.INT_MIN, bounds.INT_MAX, required=False, allow_null=True, default=None)
    result = serializers.CharField(max_length=200)
    effect = serializers.CharField(required=False, allow_blank=True, default="", trim_whitespace=False)
    data = serializers.DictField(required=False, default=dict)  # type: ignore[assignment]
    column = serializers.CharField(required=False, allow_blank=True, default="", max_length=80)
    position = int_field(
        0,
        bounds.INT_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="Print order per column; numbered in order when absent.",
    )


class UserTableInputSerializer(serializers.Serializer[Any]):
    """One of your own tables, in the shape of a fixture table (see fixtures/README.md)."""

    system = serializers.CharField(help_text="Rule system slug, e.g. fiveparsecs or bughunt.")
    slug = serializers.CharField(
        max_length=120, help_text="Lower-case words and hyphens; unique among your tables and the book tables."
    )
    title = serializers.CharField(max_length=200)
    die = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=20, help_text="D6, 2D6, D100 ...; empty for a reference table."
    )
    source = serializers.CharField(max_length=40, help_text="p.18, pp.17-24, or naming the book: core p.64.")  # type: ignore[assignment]
    book = serializers.CharField(required=False, allow_blank=True, default="", max_length=120)
    chapter = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
    notes = serializers.CharField(required=False, allow_blank=True, default="")
    columns = serializers.ListField(child=serializers.CharField(max_length=80), required=False, default=list)
    data_keys = serializers.ListField(child=serializers.CharField(max_length=80), required=False, default=list)
    entries = UserTableEntryInputSerializer(many=True)


def _user_table_body(request: Request) -> dict[str, Any]:
    data = UserTableInputSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


class MyTableListApi(APIView):
    """Your own tables: list them, or make one. Rolling one works as for any table
    (``/api/v1/tables/{slug}/roll/``); nobody else sees it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=TableListSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(TableListSerializer(selectors.user_table_list(user=request.user), many=True).data)

    @extend_schema(request=UserTableInputSerializer, responses={201: TableDetailSerializer})
    def post(self, request: Request) -> Response:
        table = services.user_table_create(user=request.user, **_user_table_body(request))
        body = TableDetailSerializer(selectors.user_table_get(user=request.user, slug=table.slug)).data
        return Response(body, status=status.HTTP_201_CREATED)


class MyTableDetailApi(APIView):
    """One of your own tables: read it, replace it (fields and all rows; a new ``slug`` renames
    it) or delete it. Another user's table is 404; a book table cannot be changed (403)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=TableDetailSerializer)
    def get(self, request: Request, slug: str) -> Response:
        return Response(TableDetailSerializer(selectors.user_table_get(user=request.user, slug=slug)).data)

    @extend_schema(request=UserTableInputSerializer, responses=TableDetailSerializer)
    def put(self, request: Request, slug: str) -> Response:
        selectors.user_table_editable(user=request.user, slug=slug)  # 404 or 403 before the body's faults
        fields = _user_table_body(request)
        fields["new_slug"] = fields.pop("slug")
        table = services.user_table_update(user=request.user, slug=slug, **fields)
        return Response(TableDetailSerializer(selectors.user_table_get(user=request.user, slug=table.slug)).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, slug: str) -> Response:
        services.user_table_delete(user=request.user, slug=slug)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MyTableExportApi(APIView):
    """A table (your own, or a book table to copy) as fixture rows that the import reads back."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: OpenApiTypes.ANY})
    def get(self, request: Request, slug: str) -> Response:
        return Response(json.loads(services.user_table_export(user=request.user, slug=slug)))


class MyTablesImportApi(APIView):
    """Import one or more tables in the fixture format, as your own. Send ``{"text": "<JSON>"}``
    or the JSON list of rows itself. All or nothing: a bad row is named (row, table, field) and
    nothing is written; an existing slug is refused, never overwritten."""

    permission_classes = [IsAuthenticated]

    class UserTablesImportInputSerializer(serializers.Serializer[Any]):
        text = serializers.CharField(
            trim_whitespace=False, help_text="Fixture JSON: rules.ruletable rows, each followed by its rules.tableentry rows."
        )

    @extend_schema(request=UserTablesImportInputSerializer, responses={201: TableListSerializer(many=True)})
    def post(self, request: Request) -> Response:
        body = request.data
        if isinstance(body, list):
            text = json.dumps(body)
        elif isinstance(body, dict) and isinstance(body.get("text"), list):
            text = json.dumps(body["text"])
        elif isinstance(body, dict) and isinstance(body.get("text"), str):
            text = body["text"]
        else:
            raise DropshipError('Send {"text": "<fixture JSON>"} or the JSON list of rows itself.', field="text")
        made = services.user_tables_import(user=request.user, text=text)
        return Response(TableListSerializer(made, many=True).data, status=status.HTTP_201_CREATED)


urlpatterns = [
    path("tables/", TableListApi.as_view(), name="api-table-list"),
    path("tables/<slug:slug>/", TableDetailApi.as_view(), name="api-table-detail"),
    path("tables/<slug:slug>/lookup/", TableLookupApi.as_view(), name="api-table-lookup"),
    path("tables/<slug:slug>/roll/", TableRollApi.as_view(), name="api-table-roll"),
    path("auth/token/", TokenApi.as_view(), name="api-token"),
    path("my-tables/", MyTableListApi.as_view(), name="api-my-table-list"),
    path("my-tables/import/", MyTablesImportApi.as_view(), name="api-my-tables-import"),
    path("my-tables/<slug:slug>/", MyTableDetailApi.as_view(), name="api-my-table-detail"),
    path("my-tables/<slug:slug>/export/", MyTableExportApi.as_view(), name="api-my-table-export"),
]
