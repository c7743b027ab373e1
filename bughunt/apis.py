"""REST API for Bug Hunt campaigns: squads, main characters, the campaign log and missions.

Writes carry the squad ``version`` they were made against; a stale one gets 409 with the
current version. The mission tracker itself runs through the room API (``mission.room``).
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bughunt import history_services, inputs, member_services, postbattle_services, selectors, services
from bughunt.models import LogEntry, Mission, Squad, Trooper
from bughunt.permissions import ROLE_NAMES, SquadAccess, squad_for
from live.engine.tracker import Role
from live.models import Membership
from rules import bounds
from rules.apis import TransferJobSerializer
from rules.bounds import int_field
from rules.errors import NotAllowed, NotFound
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
            "player",
            "player_name",
        ]

    player = serializers.IntegerField(
        source="player_id", read_only=True, allow_null=True, help_text="The user id of the member who commands this marine."
    )
    player_name = serializers.SerializerMethodField()

    @extend_schema_field(serializers.CharField(help_text="The member who commands this marine; empty: the owner (referee)."))
    def get_player_name(self, trooper: Trooper) -> str:
        return trooper.player.get_username() if trooper.player_id and trooper.player is not None else ""


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


class SquadMemberSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(help_text="The membership id (for removing the member).")
    user = serializers.IntegerField()
    username = serializers.CharField()
    role = serializers.CharField(help_text="owner, editor or reader.")
    marines = serializers.ListField(child=serializers.CharField(), help_text="The main characters they command.")


class SquadDetailSerializer(SquadSerializer):
    """A squad with its roster and members; ``role`` is the reader's own role."""

    troopers = TrooperSerializer(many=True, read_only=True)
    role = serializers.SerializerMethodField()
    members = serializers.SerializerMethodField()

    class Meta(SquadSerializer.Meta):
        fields = [*SquadSerializer.Meta.fields, "role", "members", "troopers"]

    @extend_schema_field(serializers.CharField(help_text="owner, editor or reader."))
    def get_role(self, squad: Squad) -> str:
        role = self.context.get("role")
        return ROLE_NAMES[role] if role is not None else ""

    @extend_schema_field(SquadMemberSerializer(many=True))
    def get_members(self, squad: Squad) -> list[dict[str, Any]]:
        return selectors.members(squad)


def _detail(request: Request, squad_id: int) -> dict[str, Any]:
    """The squad as its reader sees it, read fresh after a write."""
    squad, role = squad_for(request.user, squad_id)
    return SquadDetailSerializer(squad, context={"role": role}).data


class MissionSerializer(serializers.ModelSerializer[Mission]):
    class Meta:
        model = Mission
        fields = ["id", "squad", "number", "turn", "stage", "setup", "room", "outcome", "post_battle"]


class CampaignLogEntrySerializer(serializers.ModelSerializer[LogEntry]):
    mission = serializers.IntegerField(source="mission.number", default=None, allow_null=True)

    class Meta:
        model = LogEntry
        fields = ["id", "turn", "step", "mission", "text", "rolls", "data", "undone", "created"]


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
        return Response(_detail(request, squad.pk), status=status.HTTP_201_CREATED)


class SquadDetailApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(responses=SquadDetailSerializer)
    def get(self, request: Request, squad_id: int) -> Response:
        return Response(_detail(request, squad_id))


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
        squad = postbattle_services.special_assignment_apply(
            user=request.user,
            squad_id=squad_id,
            version=v["version"],
            trooper_id=v["trooper"],
            assignment=v["assignment"],
            faces=v["faces"],
        )
        return Response(_detail(request, squad.pk))


class AdvanceApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.AdvanceInput, responses=SquadDetailSerializer)
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.AdvanceInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        squad = postbattle_services.trooper_advance(
            user=request.user, squad_id=squad_id, version=v["version"], trooper_id=v["trooper"], stat=v["stat"]
        )
        return Response(_detail(request, squad.pk))


class OfferApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.OfferInput, responses=SquadDetailSerializer)
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.OfferInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        squad = postbattle_services.offer_answer(
            user=request.user, squad_id=squad_id, version=v["version"], index=v["index"], choice=v["choice"]
        )
        return Response(_detail(request, squad.pk))


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
        mission = postbattle_services.mission_casualties(user=request.user, mission_id=mission_id, **data.validated_data)
        return Response(MissionSerializer(mission).data)


class MissionFinishApi(APIView):
    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.MissionFinishInput, responses=MissionSerializer)
    def post(self, request: Request, mission_id: int) -> Response:
        data = inputs.MissionFinishInput(data=request.data)
        data.is_valid(raise_exception=True)
        mission = postbattle_services.mission_finish(user=request.user, mission_id=mission_id, **data.validated_data)
        return Response(MissionSerializer(mission).data)


class MemberListApi(APIView):
    """Invite another user as ``editor`` or ``reader`` (again: change their role). Owner only."""

    permission_classes = [SquadAccess]
    write_role = Role.OWNER

    @extend_schema(request=inputs.MemberInviteInput, responses={201: SquadDetailSerializer})
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.MemberInviteInput(data=request.data)
        data.is_valid(raise_exception=True)
        member_services.member_invite(user=request.user, squad_id=squad_id, **data.validated_data)
        return Response(_detail(request, squad_id), status=status.HTTP_201_CREATED)


class MemberDetailApi(APIView):
    """Remove a member (the owner removes anyone; a member may leave)."""

    permission_classes = [SquadAccess]
    write_role = Role.VIEWER

    @extend_schema(request=inputs.MemberRemoveInput, responses={204: None})
    def delete(self, request: Request, squad_id: int, member_id: int) -> Response:
        # Who may remove this member is known before the body is read: the owner, or the member
        # leaving; anyone else is refused before a missing version could be named.
        squad, role = squad_for(request.user, squad_id)
        leaving = Membership.objects.filter(room_id=squad.room_id, pk=member_id, user_id=int(request.user.pk or 0)).exists()
        if role != Role.OWNER and not leaving:
            raise NotAllowed("Only the owner can remove other members.")
        data = inputs.MemberRemoveInput(data=request.data)
        data.is_valid(raise_exception=True)
        member_services.member_remove(user=request.user, squad_id=squad_id, member_id=member_id, **data.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MarineApi(APIView):
    """Give a main character to an editor to command at the mission tracker (``player``: their
    username; empty: back to the owner). Owner only."""

    permission_classes = [SquadAccess]
    write_role = Role.OWNER

    @extend_schema(request=inputs.MarineInput, responses=SquadDetailSerializer)
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.MarineInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        member_services.marine_give(
            user=request.user, squad_id=squad_id, version=v["version"], trooper_id=v["trooper"], player=v["player"]
        )
        return Response(_detail(request, squad_id))


# -- undo, export and import ---------------------------------------------------------------------


class SquadUndoneSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    undone = serializers.CharField(help_text="What was taken back, in words (its log line).")


class SquadUndoApi(APIView):
    """Take back the squad's last change (a campaign step, a mission set-up or post-battle step,
    an edit); its log lines are struck through. Member changes are changed back on their own."""

    permission_classes = [SquadAccess]

    @extend_schema(request=inputs.VersionInput, responses=SquadUndoneSerializer)
    def post(self, request: Request, squad_id: int) -> Response:
        data = inputs.VersionInput(data=request.data)
        data.is_valid(raise_exception=True)
        undone = history_services.squad_undo(user=request.user, squad_id=squad_id, version=data.validated_data["version"])
        squad, _ = squad_for(request.user, squad_id)
        return Response({"version": squad.version, "undone": undone})


class SquadJobSerializer(TransferJobSerializer):
    squad = serializers.IntegerField(allow_null=True, help_text="The exported squad, or the imported one when done.")


class SquadExportApi(APIView):
    """Start exporting the squad (any member may): troopers, missions and log as JSON; poll the
    job for the document."""

    permission_classes = [SquadAccess]
    write_role = Role.VIEWER

    @extend_schema(request=None, responses={202: SquadJobSerializer})
    def post(self, request: Request, squad_id: int) -> Response:
        squad, _ = squad_for(request.user, squad_id)
        job = history_services.JOBS.start(user=request.user, kind="export", target=squad)
        return Response(history_services.JOBS.as_dict(job), status=status.HTTP_202_ACCEPTED)


class SquadImportApi(APIView):
    """Import a squad export (the JSON document as the body, or ``{"text": "<JSON>"}``) as a new
    squad of yours; poll the job for its id. A bad document is refused at once (400 naming the
    field) and nothing is written."""

    permission_classes = [SquadAccess]

    @extend_schema(request=OpenApiTypes.OBJECT, responses={202: SquadJobSerializer})
    def post(self, request: Request) -> Response:
        doc = history_services.JOBS.document_from_body(request.data, request.META.get("CONTENT_LENGTH"))
        job = history_services.JOBS.start(user=request.user, kind="import", document=doc)
        return Response(history_services.JOBS.as_dict(job), status=status.HTTP_202_ACCEPTED)


class SquadJobApi(APIView):
    """A squad export or import job of yours: state, progress, message, and the result when done."""

    permission_classes = [SquadAccess]

    @extend_schema(responses=SquadJobSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        job = history_services.job_for(request.user, job_id)
        if job is None:
            raise NotFound("No such job of yours.", field="job")
        return Response(history_services.JOBS.as_dict(job))


urlpatterns = [
    path("bughunt/squads/", SquadListApi.as_view(), name="api-bughunt-squads"),
    path("bughunt/squads/import/", SquadImportApi.as_view(), name="api-bughunt-import"),
    path("bughunt/squad-jobs/<int:job_id>/", SquadJobApi.as_view(), name="api-bughunt-job"),
    path("bughunt/squads/<int:squad_id>/", SquadDetailApi.as_view(), name="api-bughunt-squad"),
    path("bughunt/squads/<int:squad_id>/undo/", SquadUndoApi.as_view(), name="api-bughunt-undo"),
    path("bughunt/squads/<int:squad_id>/export/", SquadExportApi.as_view(), name="api-bughunt-export"),
    path("bughunt/squads/<int:squad_id>/log/", SquadLogApi.as_view(), name="api-bughunt-log"),
    path("bughunt/squads/<int:squad_id>/members/", MemberListApi.as_view(), name="api-bughunt-members"),
    path("bughunt/squads/<int:squad_id>/members/<int:member_id>/", MemberDetailApi.as_view(), name="api-bughunt-member"),
    path("bughunt/squads/<int:squad_id>/marines/", MarineApi.as_view(), name="api-bughunt-marines"),
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
