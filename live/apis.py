"""Sync API for shared rooms. Every write carries the version it was made against; a stale one
gets 409 ``{detail, version, state}``."""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from live import registry, selectors, services
from live.engine.tracker import Role
from live.models import Membership, Room, RoomAction
from live.permissions import room_for
from rules import bounds
from rules.bounds import int_field
from rules.errors import DropshipError, NotAllowed
from rules.pagination import LogCursorPagination


class MemberSerializer(serializers.Serializer[Any]):
    """A :class:`live.selectors.Seat`: the membership's id, the username, the role and when the
    member's device was last seen (from the presence cache; null when not lately)."""

    id = serializers.IntegerField()
    user_id = serializers.IntegerField(help_text="The id in /rooms/{id}/members/{user_id}/.")
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=Membership.ROLE_CHOICES)
    last_seen = serializers.DateTimeField(allow_null=True)


class LogEntrySerializer(serializers.ModelSerializer[RoomAction]):
    actor = serializers.CharField(source="actor.username", default=None)

    class Meta:
        model = RoomAction
        fields = ["version", "actor", "role", "type", "payload", "rolls", "events", "undone", "created"]


_CREATED = serializers.DateTimeField()


def log_entry_data(entry: RoomAction) -> dict[str, Any]:
    """``LogEntrySerializer(entry).data`` without building a serializer (one per action answer):
    the same keys and values. Reads ``entry.actor``: load it with the entry (or set it)."""
    actor = entry.actor  # no query when actor_id is None
    return {
        "version": entry.version,
        "actor": str(actor.username) if actor is not None else None,
        "role": entry.role,
        "type": entry.type,
        "payload": entry.payload,
        "rolls": entry.rolls,
        "events": entry.events,
        "undone": entry.undone,
        "created": _CREATED.to_representation(entry.created),
    }


def _valid_input(request: Request, room_id: int, serializer: type[serializers.Serializer[Any]], at_least: Role) -> Any:
    """The request's validated input for ``serializer``. A refused input is answered only after
    the role check, so outsiders learn nothing from validation errors; a valid one goes straight
    to the service, which checks the role itself (under its lock)."""
    try:
        data = serializer(data=request.data)
        if data.is_valid():
            return data.validated_data
    except (exceptions.APIException, DropshipError):  # a body that does not parse, or holds what no column can
        room_for(request.user, room_id, at_least=at_least)
        raise
    room_for(request.user, room_id, at_least=at_least)
    raise exceptions.ValidationError(data.errors)


class RoomSerializer(serializers.ModelSerializer[Room]):
    code = serializers.SerializerMethodField()

    class Meta:
        model = Room
        fields = ["id", "code", "kind", "title", "version", "state", "guests_can_watch"]

    def get_code(self, room: Room) -> str | None:
        if self.context.get("role") != Role.OWNER:
            return None
        code = services.room_code(room)
        return code.code if code else None


class RoomDetailSerializer(RoomSerializer):
    members = serializers.SerializerMethodField()

    class Meta(RoomSerializer.Meta):
        fields = [*RoomSerializer.Meta.fields, "members"]

    @extend_schema_field(MemberSerializer(many=True))
    def get_members(self, room: Room) -> list[dict[str, Any]]:
        return list(MemberSerializer(selectors.room_seats(room), many=True).data)


StaleSerializer = inline_serializer(
    "Stale", {"detail": serializers.CharField(), "version": serializers.IntegerField(), "state": serializers.DictField()}
)


class OptionChoiceSerializer(serializers.Serializer[Any]):
    value = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field; DRF takes it off the class


class OptionFieldSerializer(serializers.Serializer[Any]):
    """One option of a tracker kind (:class:`live.registry.OptionField`), sent in ``options``
    when opening a room of that kind."""

    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field; DRF takes it off the class
    type = serializers.ChoiceField(
        choices=["int", "bool", "choice", "text", "table"],
        help_text="int: a whole number within minimum..maximum; bool: true/false; choice: one of choices' values; "
        "text: free text; table: the slug of a book table or one of your own.",
    )
    default = serializers.JSONField(allow_null=True, help_text="Used when the option is left out.")
    choices = OptionChoiceSerializer(many=True, help_text="The allowed values of a choice option (empty otherwise).")
    minimum = serializers.IntegerField(allow_null=True)
    maximum = serializers.IntegerField(allow_null=True)
    help = serializers.CharField(allow_blank=True)


class TrackerKindSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    title = serializers.CharField()
    app = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    options = OptionFieldSerializer(many=True)


def _kind_data(kind: registry.TrackerKind) -> dict[str, Any]:
    return {
        "kind": kind.kind,
        "title": kind.title,
        "app": kind.app,
        "description": kind.description,
        "options": [
            {
                "name": o.name,
                "label": o.label,
                "type": o.type,
                "default": o.default,
                "choices": [{"value": value, "label": label} for value, label in o.choices],
                "minimum": o.minimum,
                "maximum": o.maximum,
                "help": o.help,
            }
            for o in kind.options
        ],
    }


class KindListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=TrackerKindSerializer(many=True))
    def get(self, request: Request) -> Response:
        """The kinds of table anyone may open, each with its options: type, allowed values,
        minimum and maximum, and default."""
        return Response(TrackerKindSerializer([_kind_data(k) for k in registry.kinds()], many=True).data)


class RoomListCreateApi(APIView):
    permission_classes = [IsAuthenticated]

    class RoomCreateInputSerializer(serializers.Serializer[Any]):
        kind = serializers.CharField()
        title = serializers.CharField(max_length=120)
        options = serializers.DictField(required=False, default=dict)
        guests_can_watch = serializers.BooleanField(required=False, default=False)

    @extend_schema(responses=RoomSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(RoomSerializer(selectors.rooms_for(request.user), many=True).data)

    @extend_schema(request=RoomCreateInputSerializer, responses={201: RoomSerializer})
    def post(self, request: Request) -> Response:
        data = self.RoomCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        room = services.room_create(user=request.user, **data.validated_data)
        return Response(RoomSerializer(room, context={"role": Role.OWNER}).data, status=status.HTTP_201_CREATED)


class RoomDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=RoomDetailSerializer)
    def get(self, request: Request, room_id: int) -> Response:
        room, role = room_for(request.user, room_id)
        etag = f'"{room.version}"'
        if request.headers.get("If-None-Match") == etag:
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        services.room_seen(user=request.user, room=room)
        return Response(RoomDetailSerializer(room, context={"role": role}).data, headers={"ETag": etag})


class ActionApi(APIView):
    permission_classes = [IsAuthenticated]

    class ActionInputSerializer(serializers.Serializer[Any]):
        type = serializers.CharField(max_length=60)
        payload = serializers.DictField(required=False, default=dict)
        version = int_field(0, bounds.VERSION_MAX)

    @extend_schema(
        request=ActionInputSerializer,
        responses={
            200: inline_serializer(
                "ActionResult",
                {"version": serializers.IntegerField(), "state": serializers.DictField(), "log_entry": LogEntrySerializer()},
            ),
            409: StaleSerializer,
        },
    )
    def post(self, request: Request, room_id: int) -> Response:
        data = _valid_input(request, room_id, self.ActionInputSerializer, Role.PLAYER)
        result = services.room_act(user=request.user, room_id=room_id, **data)
        return Response({"version": result.room.version, "state": result.room.state, "log_entry": log_entry_data(result.entry)})


class UndoApi(APIView):
    permission_classes = [IsAuthenticated]

    class UndoInputSerializer(serializers.Serializer[Any]):
        version = int_field(0, bounds.VERSION_MAX)

    @extend_schema(
        request=UndoInputSerializer,
        responses={
            200: inline_serializer(
                "UndoResult",
                {"version": serializers.IntegerField(), "state": serializers.DictField(), "log_entry": LogEntrySerializer()},
            ),
            409: StaleSerializer,
        },
    )
    def post(self, request: Request, room_id: int) -> Response:
        data = _valid_input(request, room_id, self.UndoInputSerializer, Role.PLAYER)
        result = services.room_undo(user=request.user, room_id=room_id, version=data["version"])
        return Response({"version": result.room.version, "state": result.room.state, "log_entry": log_entry_data(result.entry)})


class RoomLogPagination(LogCursorPagination):
    ordering = "-version"


class LogApi(APIView):
    """The room's log, newest first, a page at a time: follow ``next`` (``?cursor=``)."""

    permission_classes = [AllowAny]
    pagination_class = RoomLogPagination

    @extend_schema(responses=LogEntrySerializer(many=True))
    def get(self, request: Request, room_id: int) -> Response:
        room, _ = room_for(request.user, room_id)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(selectors.room_log(room, limit=None), request, view=self)
        return paginator.get_paginated_response(LogEntrySerializer(page, many=True).data)


MembersResultSerializer = inline_serializer(
    "MembersResult",
    {"version": serializers.IntegerField(), "state": serializers.DictField(), "members": MemberSerializer(many=True)},
)


def _members_result(room: Room) -> Response:
    return Response(
        {"version": room.version, "state": room.state, "members": MemberSerializer(selectors.room_seats(room), many=True).data}
    )


class MemberApi(APIView):
    """One member of a room, by their user id: the owner changes their role or removes them; a
    member may remove themself (leave). Each change bumps the room's version and is logged."""

    permission_classes = [IsAuthenticated]

    class RoleInputSerializer(serializers.Serializer[Any]):
        role = serializers.ChoiceField(
            choices=list(services.MEMBER_ROLES),
            error_messages={"invalid_choice": f"role must be one of {', '.join(services.MEMBER_ROLES)}; got {{input!r}}."},
        )
        version = int_field(0, bounds.VERSION_MAX)

    class RemoveInputSerializer(serializers.Serializer[Any]):
        version = int_field(0, bounds.VERSION_MAX)

    @extend_schema(request=RoleInputSerializer, responses={200: MembersResultSerializer, 409: StaleSerializer})
    def patch(self, request: Request, room_id: int, user_id: int) -> Response:
        room_for(request.user, room_id, at_least=Role.OWNER)  # others learn nothing from validation errors
        data = self.RoleInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = services.membership_set_role(user=request.user, room_id=room_id, user_id=user_id, **data.validated_data)
        return _members_result(Room.objects.get(pk=membership.room_id))

    @extend_schema(
        request=RemoveInputSerializer,
        responses={200: MembersResultSerializer, 204: None, 409: StaleSerializer},
        description="The owner removes a member (200, the room as it is now); a member removes themself "
        "to leave (204). Their figures go back to the owner through the tracker's own actions, in the log.",
    )
    def delete(self, request: Request, room_id: int, user_id: int) -> Response:
        room, role = room_for(request.user, room_id)
        if role != Role.OWNER and user_id != request.user.pk:
            raise NotAllowed("Only the table's owner can remove members.")
        data = self.RemoveInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        room = services.membership_remove(user=request.user, room_id=room_id, user_id=user_id, **data.validated_data)
        if role != Role.OWNER:
            return Response(status=status.HTTP_204_NO_CONTENT)  # they left: the room is no longer theirs to read
        return _members_result(room)


class JoinApi(APIView):
    permission_classes = [IsAuthenticated]

    class JoinInputSerializer(serializers.Serializer[Any]):
        code = serializers.CharField(max_length=20)

    @extend_schema(
        request=JoinInputSerializer,
        responses={
            200: inline_serializer("Joined", {"room": serializers.IntegerField(), "role": serializers.CharField()}),
            429: inline_serializer("TooManyCodes", {"detail": serializers.CharField(), "field": serializers.CharField()}),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.JoinInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = services.room_join(user=request.user, code=data.validated_data["code"])
        return Response({"room": membership.room_id, "role": membership.role})


urlpatterns = [
    path("rooms/", RoomListCreateApi.as_view(), name="api-room-list"),
    path("rooms/kinds/", KindListApi.as_view(), name="api-room-kinds"),
    path("rooms/join/", JoinApi.as_view(), name="api-room-join"),
    path("rooms/<int:room_id>/", RoomDetailApi.as_view(), name="api-room-detail"),
    path("rooms/<int:room_id>/actions/", ActionApi.as_view(), name="api-room-actions"),
    path("rooms/<int:room_id>/undo/", UndoApi.as_view(), name="api-room-undo"),
    path("rooms/<int:room_id>/log/", LogApi.as_view(), name="api-room-log"),
    path("rooms/<int:room_id>/members/<int:user_id>/", MemberApi.as_view(), name="api-room-member"),
]
