"""REST API for Bug Hunt campaigns: squads, main characters, the campaign log and missions.

Writes carry the squad ``version`` they were made against; a stale one gets 409 with the
current version. The mission tracker itself runs through the room API (``mission.room``).
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bughunt import inputs, selectors, services
from bughunt.models import LogEntry, Mission, Squad, Trooper
from rules import bounds
from rules.bounds import int_field
from rules.pagination import LogCursorPagination
from rules.query import query_filters, text_filter


class TrooperSerializer(serializers.ModelSerializer[Trooper]):
    class Meta:
        model = Trooper
        fields = [
            "id",
            "name",
            "reactions",
            "speed",
            "combat_skill",
            "toughness",
            "savvy",
            "xp",
            "completed_missions",
            "status",
            "sick_bay",
            "origin",
            "basic_training",
            "service_history",
            "commendations",
            "assignments",
            "flags",
        ]


class SquadSerializer(serializers.ModelSerializer[Squad]):
    class Meta:
        model = Squad
        fields = [
            "id",
            "name",
            "regiment",
            "uniform",
            "reputation",
            "turn",
            "main_characters",
            "difficulty",
            "escalation",
            "signals",
            "operation",
            "movie_magic_used",
            "enemies_met",
            "pending",
            "version",
        ]


class SquadDetailSerializer(SquadSerializer):
    troopers = TrooperSerializer(many=True, read_only=True)

    class Meta(SquadSerializer.Meta):
        fields = [*SquadSerializer.Meta.fields, "troopers"]


class MissionSerializer(serializers.ModelSerializer[Mission]):
    class Meta:
        model = Mission
        fields = ["id", "squad", "number", "turn", "stage", "setup", "room", "outcome", "post_battle"]


class CampaignLogEntrySerializer(serializers.ModelSerializer[LogEntry]):
    mission = serializers.IntegerField(source="mission.number", default=None, allow_null=True)

    class Meta:
        model = LogEntry
        fields = ["id", "turn", "step", "mission", "text", "rolls", "data", "created"]


class SquadAccess(IsAuthenticated):
    """A signed-in user whose squad or mission is named in the URL (``squad_id``,
    ``mission_id``), checked before the view validates its input: anyone else gets 404
    whatever they send."""

    def has_permission(self, request: Any, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        if "squad_id" in view.kwargs:
            selectors.squad_get(user=request.user, squad_id=view.kwargs["squad_id"])
        if "mission_id" in view.kwargs:
            selectors.mission_get(user=request.user, mission_id=view.kwargs["mission_id"])
        return True


class SquadListApi(APIView):
    permission_classes = [SquadAccess]

    class SquadFilterSerializer(serializers.Serializer[Any]):
        q = text_filter()

    @extend_schema(responses=SquadSerializer(many=True))
    def get(self, request: Request) -> Response:
        squads = selectors.squad_list(user=request.user, search=query_filters(self.SquadFilterSerializer, request)["q"])
        return Response(SquadSerializer(squads, many=True).data)

    @extend_schema(request=inputs.SquadCreateInput, responses={201: SquadDetailSerializer})
    def post(self, request: Request) -> Response:
        data = inputs.SquadCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        squad = services.squad_create(user=request.user, **data.validated_data)
        return Response(SquadDetailSerializer(squad).data, status=status.HTTP_201_CREATED)


class SquadDetailApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(responses=SquadDetailSerializer)
    def get(self, request: Request, squad_id: int) -> Response:
        return Response(SquadDetailSerializer(selectors.squad_get(user=request.user, squad_id=squad_id)).data)


class SquadLogApi(APIView):
    """The squad's campaign log, oldest first, a page at a time: follow ``next`` (``?cursor=``)."""

    permission_classes = [SquadAccess]
    pagination_class = LogCursorPagination

    class SquadLogFilterSerializer(serializers.Serializer[Any]):
        step = text_filter(help_text="A step name or its beginning.")
        mission = int_field(1, bounds.VERSION_MAX, required=False, allow_null=True, default=None)

    @extend_schema(responses=CampaignLogEntrySerializer(many=True))
    def get(self, request: Request, squad_id: int) -> Response:
        squad = selectors.squad_get(user=request.user, squad_id=squad_id)
        filters = query_filters(self.SquadLogFilterSerializer, request)
        entries = selectors.log_list(squad=squad, step=filters["step"], mission=filters["mission"])
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(entries, request, view=self)
        return paginator.get_paginated_response(CampaignLogEntrySerializer(page, many=True).data)


class AssignmentApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.AssignmentInput, responses=SquadDetailSerializer)
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.AssignmentInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        squad = services.special_assignment_apply(
            user=request.user,
            squad_id=squad_id,
            version=v["version"],
            trooper_id=v["trooper"],
            assignment=v["assignment"],
            faces=v["faces"],
        )
        return Response(SquadDetailSerializer(squad).data)


class AdvanceApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.AdvanceInput, responses=SquadDetailSerializer)
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.AdvanceInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        squad = services.trooper_advance(
            user=request.user, squad_id=squad_id, version=v["version"], trooper_id=v["trooper"], stat=v["stat"]
        )
        return Response(SquadDetailSerializer(squad).data)


class OfferApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.OfferInput, responses=SquadDetailSerializer)
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.OfferInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        squad = services.offer_answer(
            user=request.user, squad_id=squad_id, version=v["version"], index=v["index"], choice=v["choice"]
        )
        return Response(SquadDetailSerializer(squad).data)


class MissionCreateApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.MissionCreateInput, responses={201: MissionSerializer})
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.MissionCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        mission = services.mission_create(user=request.user, squad_id=squad_id, **data.validated_data)
        return Response(MissionSerializer(mission).data, status=status.HTTP_201_CREATED)


class MissionDetailApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(responses=MissionSerializer)
    def get(self, request: Request, mission_id: int) -> Response:
        return Response(MissionSerializer(selectors.mission_get(user=request.user, mission_id=mission_id)).data)


class MissionSupportApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.MissionSupportInput, responses=MissionSerializer)
    def post(self, request: Request, mission_id: int) -> Response:
        data = inputs.MissionSupportInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        if v["buy"]:
            mission = services.mission_buy_support(user=request.user, mission_id=mission_id, version=v["version"])
        else:
            mission = services.mission_request_support(
                user=request.user,
                mission_id=mission_id,
                version=v["version"],
                option=v["option"],
                faces=v["faces"],
                extra_support_card=v["extra_support_card"],
            )
        return Response(MissionSerializer(mission).data)


class MissionLoadoutApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.MissionLoadoutInput, responses=MissionSerializer)
    def post(self, request: Request, mission_id: int) -> Response:
        data = inputs.MissionLoadoutInput(data=request.data)
        data.is_valid(raise_exception=True)
        mission = services.mission_loadout(user=request.user, mission_id=mission_id, **data.validated_data)
        return Response(MissionSerializer(mission).data)


class MissionStartApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.MissionStartInput, responses=MissionSerializer)
    def post(self, request: Request, mission_id: int) -> Response:
        data = inputs.MissionStartInput(data=request.data)
        data.is_valid(raise_exception=True)
        mission = services.mission_start(user=request.user, mission_id=mission_id, **data.validated_data)
        return Response(MissionSerializer(mission).data)


class MissionCasualtiesApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.MissionCasualtiesInput, responses=MissionSerializer)
    def post(self, request: Request, mission_id: int) -> Response:
        data = inputs.MissionCasualtiesInput(data=request.data)
        data.is_valid(raise_exception=True)
        mission = services.mission_casualties(user=request.user, mission_id=mission_id, **data.validated_data)
        return Response(MissionSerializer(mission).data)


class MissionFinishApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.MissionFinishInput, responses=MissionSerializer)
    def post(self, request: Request, mission_id: int) -> Response:
        data = inputs.MissionFinishInput(data=request.data)
        data.is_valid(raise_exception=True)
        mission = services.mission_finish(user=request.user, mission_id=mission_id, **data.validated_data)
        return Response(MissionSerializer(mission).data)


urlpatterns = [
    path("bughunt/squads/", SquadListApi.as_view(), name="api-bughunt-squads"),
    path("bughunt/squads/<int:squad_id>/", SquadDetailApi.as_view(), name="api-bughunt-squad"),
    path("bughunt/squads/<int:squad_id>/log/", SquadLogApi.as_view(), name="api-bughunt-log"),
    path("bughunt/squads/<int:squad_id>/assignments/", AssignmentApi.as_view(), name="api-bughunt-assignment"),
    path("bughunt/squads/<int:squad_id>/advance/", AdvanceApi.as_view(), name="api-bughunt-advance"),
    path("bughunt/squads/<int:squad_id>/offers/", OfferApi.as_view(), name="api-bughunt-offer"),
    path("bughunt/squads/<int:squad_id>/missions/", MissionCreateApi.as_view(), name="api-bughunt-mission-create"),
    path("bughunt/missions/<int:mission_id>/", MissionDetailApi.as_view(), name="api-bughunt-mission"),
    path("bughunt/missions/<int:mission_id>/support/", MissionSupportApi.as_view(), name="api-bughunt-support"),
    path("bughunt/missions/<int:mission_id>/loadout/", MissionLoadoutApi.as_view(), name="api-bughunt-loadout"),
    path("bughunt/missions/<int:mission_id>/start/", MissionStartApi.as_view(), name="api-bughunt-start"),
    path("bughunt/missions/<int:mission_id>/casualties/", MissionCasualtiesApi.as_view(), name="api-bughunt-casualties"),
    path("bughunt/missions/<int:mission_id>/finish/", MissionFinishApi.as_view(), name="api-bughunt-finish"),
]
