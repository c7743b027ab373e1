"""Sync API for shared rooms. Every write carries the version it was made against; a stale one
gets 409 ``{detail, version, state}``."""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from live import registry, selectors, services
from live.engine.tracker import Role
from live.models import Membership, Room, RoomAction
from live.permissions import room_for


class MemberSerializer(serializers.ModelSerializer[Membership]):
    username = serializers.CharField(source="user.username")

    class Meta:
        model = Membership
        fields = ["id", "username", "role", "last_seen"]


class LogEntrySerializer(serializers.ModelSerializer[RoomAction]):
    actor = serializers.CharField(source="actor.username", default=None)

    class Meta:
        model = RoomAction
        fields = ["version", "actor", "role", "type", "payload", "rolls", "events", "undone", "created"]


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
    members = MemberSerializer(many=True, read_only=True)

    class Meta(RoomSerializer.Meta):
        fields = [*RoomSerializer.Meta.fields, "members"]


StaleSerializer = inline_serializer(
    "Stale", {"detail": serializers.CharField(), "version": serializers.IntegerField(), "state": serializers.DictField()}
)


class KindListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        responses=inline_serializer(
            "TrackerKind",
            {"kind": serializers.CharField(), "title": serializers.CharField(), "app": serializers.CharField()},
            many=True,
        )
    )
    def get(self, request: Request) -> Response:
        return Response([{"kind": k.kind, "title": k.title, "app": k.app} for k in registry.kinds()])


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
        version = serializers.IntegerField(min_value=0)

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
        room_for(request.user, room_id, at_least=Role.PLAYER)  # outsiders learn nothing from validation errors
        data = self.ActionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.room_act(user=request.user, room_id=room_id, **data.validated_data)
        return Response(
            {"version": result.room.version, "state": result.room.state, "log_entry": LogEntrySerializer(result.entry).data}
        )


class UndoApi(APIView):
    permission_classes = [IsAuthenticated]

    class UndoInputSerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField(min_value=0)

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
        room_for(request.user, room_id, at_least=Role.PLAYER)
        data = self.UndoInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.room_undo(user=request.user, room_id=room_id, version=data.validated_data["version"])
        return Response(
            {"version": result.room.version, "state": result.room.state, "log_entry": LogEntrySerializer(result.entry).data}
        )


class LogApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=LogEntrySerializer(many=True))
    def get(self, request: Request, room_id: int) -> Response:
        room, _ = room_for(request.user, room_id)
        return Response(LogEntrySerializer(selectors.room_log(room), many=True).data)


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
]
