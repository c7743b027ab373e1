"""REST API for PvP battles between two players' campaigns (``/api/v1/fp-pvp/...``, Compendium
pp.35-38): invite, accept, field each side's figures, roll the set-up.

Each call goes through :mod:`battles.pvp_services`. A meeting is read by the readers of either
campaign (anyone else gets 404, whatever they send) and changed by their editors (a reader gets
403); writes carry the meeting ``version`` (409 with the current one when stale).
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

from battles import pvp_services
from battles.engine import fp_pvp
from battles.models import Meeting
from campaigns.permissions import EDITOR
from live.permissions import RoomObjectAccess
from rules import bounds
from rules.bounds import int_field
from rules.engine.dice import Dice


class MeetingSerializer(serializers.ModelSerializer[Meeting]):
    """A meeting: both campaigns (ids and names), their turns, the figures fielded, the set-up
    card and ``sides``, the sides the caller may act for."""

    host_name = serializers.CharField(source="host.name", read_only=True)
    guest_name = serializers.CharField(source="guest.name", read_only=True, default=None)
    crew_limit = serializers.SerializerMethodField()
    sides = serializers.SerializerMethodField()

    class Meta:
        model = Meeting
        fields = [
            "id",
            "code",
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
            "sides",
            "version",
            "updated",
        ]

    def get_crew_limit(self, meeting: Meeting) -> int:
        return pvp_services.crew_limit(meeting)

    def get_sides(self, meeting: Meeting) -> list[str]:
        return pvp_services.sides_of(self.context["user"], meeting, at_least=EDITOR)


def _out(request: Request, meeting: Meeting, code: int = status.HTTP_200_OK) -> Response:
    return Response(MeetingSerializer(meeting, context={"user": request.user}).data, status=code)


def _valid(serializer_class: type[serializers.Serializer[Any]], request: Request) -> dict[str, Any]:
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


class InviteInputSerializer(serializers.Serializer[Any]):
    campaign = int_field(1, bounds.ID_MAX, help_text="Your campaign that hosts the battle (you must edit it).")


class AcceptInputSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(max_length=16, help_text="The invitation code the host gave you.")
    campaign = int_field(1, bounds.ID_MAX, help_text="Your campaign that accepts (you must edit it).")


class FieldInputSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The meeting version this write was made against.")
    figures = serializers.ListField(
        child=int_field(1, bounds.ID_MAX), min_length=1, max_length=fp_pvp.MOST_CREW, help_text="Your crew members' ids."
    )
    side = serializers.ChoiceField(
        choices=fp_pvp.SIDES, required=False, allow_null=True, default=None, help_text="Only when you edit both campaigns."
    )
    agreed_crew = int_field(
        1, fp_pvp.MOST_CREW, required=False, allow_null=True, default=None, help_text="A crew count you agree to (p.35)."
    )


class SeizeInputSerializer(serializers.Serializer[Any]):
    dice = serializers.CharField(max_length=12, help_text="Your core rulebook's Seize the Initiative dice, e.g. 2D6.")
    target = int_field(2, 30, help_text="The total that seizes it (core rulebook).")
    faces = serializers.ListField(child=int_field(1, 100), required=False, allow_null=True, default=None, max_length=6)


class SeizeBothSerializer(serializers.Serializer[Any]):
    host = SeizeInputSerializer(required=False, allow_null=True, default=None)
    guest = SeizeInputSerializer(required=False, allow_null=True, default=None)


class SetupFacesSerializer(serializers.Serializer[Any]):
    first_deploy = int_field(1, 6, required=False, allow_null=True, default=None, help_text="D6 when ratings tie: 1-3 host.")
    first_player = int_field(1, 6, required=False, allow_null=True, default=None, help_text="D6 for the token: 1-3 host.")
    third_party = int_field(1, 100, required=False, allow_null=True, default=None, help_text="D100 third party arrival.")
    third_party_round = int_field(1, 6, required=False, allow_null=True, default=None, help_text="D6: its arrival round.")


class SetupInputSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The meeting version this write was made against.")
    reason = serializers.CharField(
        max_length=40, required=False, allow_blank=True, default="", help_text="A picked battle reason key; empty rolls D100."
    )
    reason_face = int_field(1, 100, required=False, allow_null=True, default=None, help_text="Your D100 for the reason.")
    cinematic = serializers.BooleanField(default=False, help_text="Both sides start with 3 initiative points (p.36).")
    seize = SeizeBothSerializer(required=False, default=dict)
    third_party = serializers.BooleanField(default=False, help_text="A three-way battle (p.37).")
    faces = SetupFacesSerializer(required=False, default=dict)
    seed = int_field(0, bounds.SEED_MAX, required=False, allow_null=True, default=None, help_text="Seed the set-up dice.")


class MeetingAccess(RoomObjectAccess):
    """A signed-in user who reads one of the meeting's campaigns (and edits one, for a write),
    checked before the input is validated."""

    loaders = {"meeting_id": pvp_services.meeting_for}


class MeetingListApi(APIView):
    """The PvP battles of your campaigns; or invite another campaign to one (201 with its code)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MeetingSerializer(many=True))
    def get(self, request: Request) -> Response:
        meetings = pvp_services.meetings_of(request.user)
        return Response(MeetingSerializer(meetings, many=True, context={"user": request.user}).data)

    @extend_schema(request=InviteInputSerializer, responses={201: MeetingSerializer})
    def post(self, request: Request) -> Response:
        v = _valid(InviteInputSerializer, request)
        return _out(request, pvp_services.meeting_invite(user=request.user, campaign_id=v["campaign"]), status.HTTP_201_CREATED)


class MeetingAcceptApi(APIView):
    """Accept an invitation code with one of your campaigns."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=AcceptInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request) -> Response:
        v = _valid(AcceptInputSerializer, request)
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

    @extend_schema(request=FieldInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        v = _valid(FieldInputSerializer, request)
        return _out(request, pvp_services.meeting_field(user=request.user, meeting_id=meeting_id, **v))


class MeetingSetupApi(APIView):
    """Roll the set-up once both sides fielded their figures (pp.35-37)."""

    permission_classes = [MeetingAccess]

    @extend_schema(request=SetupInputSerializer, responses={200: MeetingSerializer})
    def post(self, request: Request, meeting_id: int) -> Response:
        v = _valid(SetupInputSerializer, request)
        seed = v.pop("seed")
        meeting = pvp_services.meeting_setup(
            user=request.user, meeting_id=meeting_id, dice=Dice(seed=seed) if seed is not None else None, **v
        )
        return _out(request, meeting)


M = "fp-pvp/<int:meeting_id>"

urlpatterns = [
    path("fp-pvp/", MeetingListApi.as_view(), name="api-fp-pvp-list"),
    path("fp-pvp/accept/", MeetingAcceptApi.as_view(), name="api-fp-pvp-accept"),
    path(f"{M}/", MeetingDetailApi.as_view(), name="api-fp-pvp-detail"),
    path(f"{M}/field/", MeetingFieldApi.as_view(), name="api-fp-pvp-field"),
    path(f"{M}/setup/", MeetingSetupApi.as_view(), name="api-fp-pvp-setup"),
]
