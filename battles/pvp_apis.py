"""REST API for PvP battles between two players' campaigns (``/api/v1/fp-pvp/...``, Compendium
pp.35-38) and expanded co-op battles (``kind`` ``coop``, pp.39-41): invite, accept, field each
side's figures, roll the set-up (a co-op battle's waves at ``coop-setup/``), open the live
tracker (played through the rooms API) and finish it, each campaign taking its side's result.

Each call goes through :mod:`battles.pvp_services`. A meeting is read by the readers of either
campaign (anyone else gets 404, whatever they send) and changed by their editors (a reader gets
403); writes carry the meeting ``version`` (409 with the current one when stale).
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles import pvp_services
from battles.models import Meeting
from battles.pvp_inputs import (
    CoopSetupInputSerializer,
    PvpAcceptInputSerializer,
    PvpFieldInputSerializer,
    PvpInviteInputSerializer,
    PvpRefereeInviteInputSerializer,
    PvpRefereeJoinInputSerializer,
    PvpSetupInputSerializer,
    PvpTrackInputSerializer,
    PvpVersionInputSerializer,
)
from campaigns.permissions import EDITOR, READER
from live.permissions import RoomObjectAccess
from rules.engine.dice import Dice
from rules.query import choice_filter, query_filters


class MeetingSerializer(serializers.ModelSerializer[Meeting]):
    """A meeting: both campaigns (ids and names), their turns, the figures fielded, the set-up
    card and ``sides``, the sides the caller may act for."""

    host_name = serializers.CharField(source="host.name", read_only=True)
    guest_name = serializers.CharField(source="guest.name", read_only=True, default=None, allow_null=True)
    crew_limit = serializers.SerializerMethodField()
    sides = serializers.SerializerMethodField()
    referee_name = serializers.CharField(source="referee.username", read_only=True, default=None, allow_null=True)
    refereeing = serializers.SerializerMethodField()

    class Meta:
        model = Meeting
        fields = [
            "id",
            "code",
            "kind",
            "status",
            "host",
            "host_name",
            "host_turn",
            "guest",
            "guest_name",
            "guest_turn",
            "fielded",
            "agreed_crew",
            "crew_limit",
            "setup",
            "room",
            "result",
            "sides",
            "referee",
            "referee_name",
            "refereeing",
            "version",
            "updated",
        ]

    def get_crew_limit(self, meeting: Meeting) -> int:
        """Figures the caller's side may bring (in a co-op battle each crew's own crew size)."""
        sides = pvp_services.sides_of(self.context["user"], meeting, at_least=EDITOR)
        return pvp_services.crew_limit(meeting, sides[0] if sides else "host")

    def get_sides(self, meeting: Meeting) -> list[str]:
        return pvp_services.sides_of(self.context["user"], meeting, at_least=EDITOR)

    def get_refereeing(self, meeting: Meeting) -> bool:
        """Whether the caller is the meeting's referee (runs the third party, p.37)."""
        return pvp_services.is_referee(self.context["user"], meeting)


def _out(request: Request, meeting: Meeting, code: int = status.HTTP_200_OK) -> Response:
    return Response(MeetingSerializer(meeting, context={"user": request.user}).data, status=code)


def _valid(serializer_class: type[serializers.Serializer[Any]], request: Request) -> dict[str, Any]:
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


class MeetingAccess(RoomObjectAccess):
    """A signed-in user who reads one of the meeting's campaigns (and edits one, for a write),
    checked before the input is validated."""

    loaders = {"meeting_id": pvp_services.meeting_for}


class MeetingListApi(APIView):
    """The PvP battles of your campaigns; or invite another campaign to one (201 with its code)."""

    permission_classes = [IsAuthenticated]

    class MeetingFilterSerializer(serializers.Serializer[Any]):
        kind = choice_filter(k for k, _ in Meeting.KINDS)
        status = choice_filter(s for s, _ in Meeting.STATUSES)

    @extend_schema(
        parameters=[
            OpenApiParameter("kind", str, description="pvp or coop."),
            OpenApiParameter("status", str, description="invited, accepted, set_up, tracking or finished."),
        ],
        responses=MeetingSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        filters = query_filters(self.MeetingFilterSerializer, request)
        meetings = pvp_services.meetings_of(request.user, kind=filters["kind"], status=filters["status"])
        return Response(MeetingSerializer(meetings, many=True, context={"user": request.user}).data)

    @extend_schema(request=PvpInviteInputSerializer, responses={201: MeetingSerializer})
    def post(self, request: Request) -> Response:
        v = _valid(PvpInviteInputSerializer, request)
        meeting = pvp_services.meeting_invite(user=request.user, campaign_id=v["campaign"], kind=v["kind"])
        return _out(request, meeting, status.HTTP_201_CREATED)


class MeetingAcceptApi(APIView):
    """Accept an invitation code with one of your campaigns."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=PvpAcceptInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request) -> Response:
        v = _valid(PvpAcceptInputSerializer, request)
        return _out(request, pvp_services.meeting_accept(user=request.user, code=v["code"], campaign_id=v["campaign"]))


class MeetingDetailApi(APIView):
    permission_classes = [MeetingAccess]

    @extend_schema(responses=MeetingSerializer)
    def get(self, request: Request, meeting_id: int) -> Response:
        meeting, _ = pvp_services.meeting_for(request.user, meeting_id)
        return _out(request, meeting)


class MeetingFieldApi(APIView):
    """Pick the figures your side brings (p.35)."""

    permission_classes = [MeetingAccess]

    @extend_schema(request=PvpFieldInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        v = _valid(PvpFieldInputSerializer, request)
        return _out(request, pvp_services.meeting_field(user=request.user, meeting_id=meeting_id, **v))


class MeetingSetupApi(APIView):
    """Roll the set-up once both sides fielded their figures (pp.35-37)."""

    permission_classes = [MeetingAccess]

    @extend_schema(request=PvpSetupInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        v = _valid(PvpSetupInputSerializer, request)
        seed = v.pop("seed")
        meeting = pvp_services.meeting_setup(
            user=request.user, meeting_id=meeting_id, dice=Dice(seed=seed) if seed is not None else None, **v
        )
        return _out(request, meeting)


class MeetingCoopSetupApi(APIView):
    """Roll an expanded co-op battle's enemy waves once both crews are fielded (p.40)."""

    permission_classes = [MeetingAccess]

    @extend_schema(request=CoopSetupInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        v = _valid(CoopSetupInputSerializer, request)
        seed = v.pop("seed")
        meeting = pvp_services.coop_setup(
            user=request.user, meeting_id=meeting_id, dice=Dice(seed=seed) if seed is not None else None, **v
        )
        return _out(request, meeting)


class MeetingTrackApi(APIView):
    """Open the live tracker (its room: /rooms/<room>/): each player sits on their own side."""

    permission_classes = [MeetingAccess]

    @extend_schema(request=PvpTrackInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        v = _valid(PvpTrackInputSerializer, request)
        return _out(request, pvp_services.meeting_track(user=request.user, meeting_id=meeting_id, **v))


class MeetingFinishApi(APIView):
    """Finish a battle the tracker has ended: each campaign gets its side's result (p.37)."""

    permission_classes = [MeetingAccess]

    @extend_schema(request=PvpVersionInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        v = _valid(PvpVersionInputSerializer, request)
        return _out(request, pvp_services.meeting_finish(user=request.user, meeting_id=meeting_id, **v))


class MeetingRefereeJoinApi(APIView):
    """Referee a three-way battle by its code (p.37): a third user who plays neither campaign
    sees it live and alone runs its third party."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=PvpRefereeJoinInputSerializer, responses={200: MeetingSerializer}, operation_id="v1_fp_pvp_referee_join_create"
    )
    def post(self, request: Request) -> Response:
        v = _valid(PvpRefereeJoinInputSerializer, request)
        return _out(request, pvp_services.referee_join(user=request.user, code=v["code"]))


class MeetingRefereeInviteApi(APIView):
    """The host seats a named user as the battle's referee (p.37)."""

    permission_classes = [MeetingAccess]

    @extend_schema(request=PvpRefereeInviteInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        v = _valid(PvpRefereeInviteInputSerializer, request)
        return _out(request, pvp_services.referee_invite(user=request.user, meeting_id=meeting_id, **v))


class MeetingRefereeLeaveApi(APIView):
    """Free the referee's seat (p.37): the referee leaves, or a host's editor unseats a referee
    whose device has gone; either player runs the third party again. Anyone else: 403 naming
    ``referee``."""

    permission_classes = [MeetingAccess]
    write_role = READER  # the referee reads the meeting; the service says who may free the seat

    @extend_schema(request=PvpVersionInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        meeting, _ = pvp_services.meeting_for(request.user, meeting_id)
        pvp_services.check_frees_referee(request.user, meeting)  # who may, before the input's faults
        v = _valid(PvpVersionInputSerializer, request)
        return _out(request, pvp_services.referee_leave(user=request.user, meeting_id=meeting_id, **v))


M = "fp-pvp/<int:meeting_id>"

urlpatterns = [
    path("fp-pvp/", MeetingListApi.as_view(), name="api-fp-pvp-list"),
    path("fp-pvp/accept/", MeetingAcceptApi.as_view(), name="api-fp-pvp-accept"),
    path("fp-pvp/referee/", MeetingRefereeJoinApi.as_view(), name="api-fp-pvp-referee-join"),
    path(f"{M}/", MeetingDetailApi.as_view(), name="api-fp-pvp-detail"),
    path(f"{M}/field/", MeetingFieldApi.as_view(), name="api-fp-pvp-field"),
    path(f"{M}/setup/", MeetingSetupApi.as_view(), name="api-fp-pvp-setup"),
    path(f"{M}/coop-setup/", MeetingCoopSetupApi.as_view(), name="api-fp-pvp-coop-setup"),
    path(f"{M}/track/", MeetingTrackApi.as_view(), name="api-fp-pvp-track"),
    path(f"{M}/finish/", MeetingFinishApi.as_view(), name="api-fp-pvp-finish"),
    path(f"{M}/referee/", MeetingRefereeInviteApi.as_view(), name="api-fp-pvp-referee"),
    path(f"{M}/referee/leave/", MeetingRefereeLeaveApi.as_view(), name="api-fp-pvp-referee-leave"),
]
