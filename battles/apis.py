"""REST API for Five Parsecs battles (``/api/v1/fp-battles/...``): set a battle up, track it
live, resolve it without miniatures, finish it (handing the result to the campaign turn) and
run odds jobs.

Every write goes through :mod:`battles.services` and carries the battle ``version`` it was made
against (a stale one gets 409 with the current version). The owner, or a campaign editor, plays
a battle; a campaign reader reads it (403 on a write); anyone else gets 404.
"""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import SAFE_METHODS, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from battles import inputs, nominis_services, odds_services, result_services, selectors, services, tracker_services
from battles.engine import fp_street, nominis
from battles.inputs import FpBattleVersionSerializer
from battles.models import Battle, BattleJob
from campaigns.permissions import CampaignAccess
from campaigns.selectors import fiveparsecs_tables
from rules import bounds
from rules.bounds import int_field
from rules.engine.dice import Dice
from rules.errors import NotFound
from rules.query import choice_filter, query_filters

# -- output serializers ------------------------------------------------------------------------


class FpBattleSerializer(serializers.ModelSerializer[Battle]):
    owner = serializers.CharField(source="owner.get_username", read_only=True)

    class Meta:
        model = Battle
        fields = ["id", "title", "owner", "campaign", "turn_number", "status", "room", "reported", "version", "updated"]


class FpBattleDetailSerializer(FpBattleSerializer):
    """A battle with its set-up, its no-minis play (with the choices open now) and its result."""

    choices = serializers.SerializerMethodField()

    class Meta(FpBattleSerializer.Meta):
        fields = [*FpBattleSerializer.Meta.fields, "setup", "nominis", "result", "choices"]

    @extend_schema_field(serializers.ListField(child=serializers.DictField(), help_text="The legal no-minis actions now."))
    def get_choices(self, battle: Battle) -> list[dict[str, Any]]:
        if battle.status != "nominis" or not battle.nominis:
            return []
        return nominis.choices(battle.nominis["state"], fiveparsecs_tables())


class FpBattleRoomSerializer(serializers.Serializer[Any]):
    room = serializers.IntegerField(help_text="The live tracker room's id (its page is /rooms/<id>/).")
    url = serializers.CharField()
    battle = FpBattleSerializer()


class FpBattleJobSerializer(serializers.ModelSerializer[BattleJob]):
    class Meta:
        model = BattleJob
        fields = ["id", "battle", "runs", "status", "progress", "result", "error", "created"]


def _detail(user: Any, battle_id: int) -> dict[str, Any]:
    return FpBattleDetailSerializer(selectors.battle_for(user, battle_id)).data


# -- input serializers -------------------------------------------------------------------------


def _valid(serializer_class: type[serializers.Serializer[Any]], request: Request) -> dict[str, Any]:
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


class FpBattleCreateInputSerializer(serializers.Serializer[Any]):
    campaign_id = int_field(1, bounds.ID_MAX, required=False, allow_null=True, default=None)
    rival_id = int_field(
        1,
        bounds.ID_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="The campaign's Rival fought (a Rival mission); a Psi-hunter Rival brings its adjustments (p.21).",
    )
    title = serializers.CharField(max_length=80, required=False, allow_blank=True, default="")
    theme = serializers.CharField(required=False, allow_null=True, allow_blank=True, default=None, help_text="Terrain theme.")
    mission_source = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        default=None,
        help_text="rival, invasion, opportunity, patron, faction, quest or salvage; empty: the campaign turn's battle type, else opportunity.",
    )
    patron = serializers.BooleanField(default=False)
    expanded_missions = serializers.BooleanField(default=False)
    deployment_variables = serializers.BooleanField(default=False)
    ai_variations = serializers.BooleanField(default=False)
    ai_type = serializers.CharField(required=False, allow_null=True, allow_blank=True, default=None)
    objective = serializers.CharField(required=False, allow_null=True, allow_blank=True, default=None)
    battle_type = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        default=None,
        help_text="conventional, stealth, street_fight or salvage (p.116); empty: roll Mission Selection. A Stealth "
        "mission is set up and tracked as one (pp.117-122).",
    )
    campaign_turn = serializers.IntegerField(required=False, allow_null=True, default=None)
    enemy = serializers.DictField(
        help_text='{"elite": true, "category": ...}, {"core_table": true, ...} (a campaign\'s Core enemy encounter table '
        "or this turn's enemy; typed fields win) or a typed profile (see battle_create)."
    )
    crew = serializers.ListField(child=serializers.DictField(), required=False, allow_null=True, default=None)
    hit_numbers = serializers.DictField(required=False, allow_null=True, default=None, help_text="{open, cover} (core).")
    options = serializers.DictField(required=False, allow_null=True, default=None)
    seed = int_field(0, bounds.SEED_MAX, required=False, allow_null=True, default=None, help_text="Seed the set-up dice.")


class FpBattleTitleInputSerializer(FpBattleVersionSerializer):
    title = serializers.CharField(max_length=80)


STANCE_HELP = "How readily automatic play withdraws the crew (Retreat, p.72): cautious, steady (default) or reckless."


class FpNominisStartInputSerializer(FpBattleVersionSerializer):
    mode = serializers.CharField(help_text="assisted or automatic.")
    mission_setup = serializers.DictField(required=False, allow_null=True, default=None)
    stance = serializers.CharField(required=False, allow_null=True, allow_blank=True, default=None, help_text=STANCE_HELP)


class FpNominisActInputSerializer(FpBattleVersionSerializer):
    action = serializers.DictField(help_text='One of the choices, or {"type": "auto"}.')
    seed = int_field(0, bounds.SEED_MAX, required=False, allow_null=True, default=None)


class FpNominisAutoInputSerializer(FpBattleVersionSerializer):
    seed = int_field(0, bounds.SEED_MAX, required=False, allow_null=True, default=None)
    stance = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, default=None, help_text=STANCE_HELP + " Empty keeps the battle's."
    )


class FpOddsInputSerializer(serializers.Serializer[Any]):
    runs = serializers.IntegerField(
        help_text="Battles to play, 10-1000 (10-200 in local play, where the run happens inside the request)."
    )


class StreetFightInputSerializer(serializers.Serializer[Any]):
    """:func:`battles.tracker_services.street_fight_open`: a Street Fight's set-up options (pp.123-128)."""

    title = serializers.CharField(max_length=80, required=False, allow_blank=True, default="Street fight")
    crew = serializers.ListField(
        child=serializers.DictField(),
        min_length=1,
        max_length=12,
        help_text="Figures: name, savvy, reactions, speed, combat_skill, toughness, captain (one Suspect marker each).",
    )
    table_ft = int_field(2, 3, required=False, default=3, help_text="Table size in feet.")
    blocks = int_field(0, 12, required=False, default=4, help_text="City blocks to roll a building for (p.124).")
    city_markers = serializers.BooleanField(default=True, help_text="Use City markers (p.124).")
    extra_suspects = int_field(0, 2, required=False, default=0, help_text="Difficulty: extra Suspect markers (p.124).")
    enemy = serializers.CharField(
        max_length=40, required=False, allow_blank=True, default="", help_text="A known Street Fight Enemies type (p.129)."
    )
    weird_place = serializers.BooleanField(default=False, help_text="It's a Weird Place (p.129).")
    rivals = serializers.ListField(
        child=serializers.ChoiceField(choices=fp_street.LAW_RIVALS), required=False, default=list, max_length=3
    )
    seed = int_field(0, bounds.SEED_MAX, required=False, allow_null=True, default=None, help_text="Seed the set-up dice.")


class StreetFightRoomSerializer(serializers.Serializer[Any]):
    room = serializers.IntegerField(help_text="The live tracker room's id (its page is /rooms/<id>/).")
    url = serializers.CharField()
    setup = serializers.DictField(help_text="The set-up card: blocks, entries, notes, nominis, rolls.")


def _dice(seed: int | None) -> Dice | None:
    return Dice(seed=seed) if seed is not None else None


# -- views -------------------------------------------------------------------------------------


class BattleAccess(IsAuthenticated):
    """A signed-in user who may read the battle in the URL (``battle_id``), or play it for a
    write, checked before the view validates its input: an outsider gets 404 and a campaign
    reader 403 whatever they send."""

    def has_permission(self, request: Any, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        battle_id = view.kwargs.get("battle_id")
        if battle_id is not None:
            selectors.battle_for(request.user, battle_id, write=request.method not in SAFE_METHODS)
        return True


class FpBattleListApi(APIView):
    """Your battles and those of campaigns shared with you; or set up a new one."""

    permission_classes = [BattleAccess]

    class FpBattleFilterSerializer(serializers.Serializer[Any]):
        campaign = int_field(1, bounds.ID_MAX, required=False, allow_null=True, default=None)
        status = choice_filter(s for s, _ in Battle.STATUSES)

    @extend_schema(
        parameters=[
            OpenApiParameter("campaign", int, description="Only this campaign's battles."),
            OpenApiParameter("status", str, description="setup, tracking, nominis or finished."),
        ],
        responses=FpBattleSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        filters = query_filters(self.FpBattleFilterSerializer, request)
        battles = selectors.battle_list(user=request.user, campaign_id=filters["campaign"], status=filters["status"])
        return Response(FpBattleSerializer(battles.select_related("owner"), many=True).data)

    @extend_schema(request=FpBattleCreateInputSerializer, responses={201: FpBattleDetailSerializer})
    def post(self, request: Request) -> Response:
        v = _valid(FpBattleCreateInputSerializer, request)
        dice = _dice(v.pop("seed"))
        battle = services.battle_create(user=request.user, dice=dice, **v)
        return Response(_detail(request.user, battle.pk), status=status.HTTP_201_CREATED)


class StreetFightApi(APIView):
    """Roll a Street Fight's set-up (Compendium pp.123-128) and open its live tracker room."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=StreetFightInputSerializer, responses={201: StreetFightRoomSerializer})
    def post(self, request: Request) -> Response:
        v = _valid(StreetFightInputSerializer, request)
        room = tracker_services.street_fight_open(user=request.user, dice=_dice(v.pop("seed")), **v)
        return Response(
            {"room": room.pk, "url": f"/rooms/{room.pk}/", "setup": room.state["card"]}, status=status.HTTP_201_CREATED
        )


class FpLoanFightInputSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The campaign version this write was made against.")
    enemy = serializers.DictField(
        help_text="The Enforcers' profile from the core rulebook (name, numbers, panic, speed, combat_skill, toughness, "
        'weapons, base_numbers), or {"core_table": true, ...}; 2 more basic enemies are added (p.156).'
    )
    hit_numbers = serializers.DictField(required=False, allow_null=True, default=None, help_text="{open, cover} (core).")
    theme = serializers.CharField(required=False, allow_null=True, allow_blank=True, default=None, help_text="Terrain theme.")
    seed = int_field(0, bounds.SEED_MAX, required=False, allow_null=True, default=None, help_text="Seed the set-up dice.")


class FpLoanFightApi(APIView):
    """Fight it out (Loans, p.156): set up the campaign battle against those who came to seize
    the ship; afterwards settle the seizure (escaped or caught) on the campaign's loan."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=FpLoanFightInputSerializer, responses={201: FpBattleDetailSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        v = _valid(FpLoanFightInputSerializer, request)
        dice = _dice(v.pop("seed"))
        battle = tracker_services.loan_fight_create(user=request.user, campaign_id=campaign_id, dice=dice, **v)
        return Response(_detail(request.user, battle.pk), status=status.HTTP_201_CREATED)


class FpBattleDetailApi(APIView):
    """One battle: read it, rename it or delete it."""

    permission_classes = [BattleAccess]

    @extend_schema(responses=FpBattleDetailSerializer)
    def get(self, request: Request, battle_id: int) -> Response:
        return Response(_detail(request.user, battle_id))

    @extend_schema(request=FpBattleTitleInputSerializer, responses=FpBattleDetailSerializer)
    def patch(self, request: Request, battle_id: int) -> Response:
        services.battle_update_title(user=request.user, battle_id=battle_id, **_valid(FpBattleTitleInputSerializer, request))
        return Response(_detail(request.user, battle_id))

    @extend_schema(request=FpBattleVersionSerializer, responses={204: None})
    def delete(self, request: Request, battle_id: int) -> Response:
        services.battle_delete(user=request.user, battle_id=battle_id, **_valid(FpBattleVersionSerializer, request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class FpBattleTrackApi(APIView):
    """Open the battle's live tracker room (asked again, the same room)."""

    permission_classes = [BattleAccess]

    @extend_schema(request=FpBattleVersionSerializer, responses=FpBattleRoomSerializer)
    def post(self, request: Request, battle_id: int) -> Response:
        room = tracker_services.battle_track(user=request.user, battle_id=battle_id, **_valid(FpBattleVersionSerializer, request))
        battle = selectors.battle_for(request.user, battle_id)
        return Response({"room": room.pk, "url": f"/rooms/{room.pk}/", "battle": FpBattleSerializer(battle).data})


class FpNominisStartApi(APIView):
    """Start resolving the battle without miniatures (assisted or automatic)."""

    permission_classes = [BattleAccess]

    @extend_schema(request=FpNominisStartInputSerializer, responses=FpBattleDetailSerializer)
    def post(self, request: Request, battle_id: int) -> Response:
        nominis_services.nominis_start(user=request.user, battle_id=battle_id, **_valid(FpNominisStartInputSerializer, request))
        return Response(_detail(request.user, battle_id))


class FpNominisActApi(APIView):
    """Take one no-minis action (one of the battle's ``choices``, or ``{"type": "auto"}``)."""

    permission_classes = [BattleAccess]

    @extend_schema(request=FpNominisActInputSerializer, responses=FpBattleDetailSerializer)
    def post(self, request: Request, battle_id: int) -> Response:
        v = _valid(FpNominisActInputSerializer, request)
        nominis_services.nominis_act(
            user=request.user, battle_id=battle_id, version=v["version"], action=v["action"], dice=_dice(v["seed"])
        )
        return Response(_detail(request.user, battle_id))


class FpNominisAutoApi(APIView):
    """Play automatic choices to the end of the no-minis battle."""

    permission_classes = [BattleAccess]

    @extend_schema(request=FpNominisAutoInputSerializer, responses=FpBattleDetailSerializer)
    def post(self, request: Request, battle_id: int) -> Response:
        v = _valid(FpNominisAutoInputSerializer, request)
        nominis_services.nominis_auto(
            user=request.user, battle_id=battle_id, version=v["version"], dice=_dice(v["seed"]), stance=v["stance"]
        )
        return Response(_detail(request.user, battle_id))


class FpNominisUndoApi(APIView):
    """Take back the last no-minis action."""

    permission_classes = [BattleAccess]

    @extend_schema(request=FpBattleVersionSerializer, responses=FpBattleDetailSerializer)
    def post(self, request: Request, battle_id: int) -> Response:
        nominis_services.nominis_undo(user=request.user, battle_id=battle_id, **_valid(FpBattleVersionSerializer, request))
        return Response(_detail(request.user, battle_id))


class FpBattleFinishedSerializer(FpBattleDetailSerializer):
    """A finished battle, with where its result stands in the campaign turn."""

    turn_note = serializers.SerializerMethodField()

    class Meta(FpBattleDetailSerializer.Meta):
        fields = [*FpBattleDetailSerializer.Meta.fields, "turn_note"]

    @extend_schema_field(
        serializers.CharField(
            help_text='What the campaign turn recorded and where it stands ("Recorded in turn 4: won, held the field, '
            '1 casualty (Bo); next: ..."), or when the turn will fill it in; empty for a standalone battle.'
        )
    )
    def get_turn_note(self, battle: Battle) -> str:
        return result_services.battle_turn_note(battle)


class FpBattleFinishApi(APIView):
    """Finish the battle: its result from the no-minis play, the tracker or the body. A campaign
    turn at "Record the battle" records it (or shows it filled in to confirm); a turn not there
    yet fills the step in when it gets there. ``turn_note`` says which."""

    permission_classes = [BattleAccess]

    @extend_schema(request=inputs.FpBattleFinishInputSerializer, responses=FpBattleFinishedSerializer)
    def post(self, request: Request, battle_id: int) -> Response:
        result_services.battle_finish(
            user=request.user, battle_id=battle_id, **_valid(inputs.FpBattleFinishInputSerializer, request)
        )
        return Response(FpBattleFinishedSerializer(selectors.battle_for(request.user, battle_id)).data)


class FpBattleReportApi(APIView):
    """Record a finished campaign battle in its campaign turn now that the turn is at "Record the
    battle" with it, whatever else the step asks (the turn takes the battle's result). Refused
    (400, field ``turn``, with ``turn_note``'s words) when the turn is not there."""

    permission_classes = [BattleAccess]

    @extend_schema(request=FpBattleVersionSerializer, responses=FpBattleFinishedSerializer)
    def post(self, request: Request, battle_id: int) -> Response:
        result_services.battle_report(user=request.user, battle_id=battle_id, **_valid(FpBattleVersionSerializer, request))
        return Response(FpBattleFinishedSerializer(selectors.battle_for(request.user, battle_id)).data)


class FpBattleOddsApi(APIView):
    """Start an odds run (many automatic no-minis battles); poll the job. One queued or running
    odds job per user: a second is refused (409) with the running one's ``job`` and ``url``; a
    job queue that cannot be reached answers 503 with Retry-After."""

    permission_classes = [BattleAccess]

    @extend_schema(request=FpOddsInputSerializer, responses={202: FpBattleJobSerializer})
    def post(self, request: Request, battle_id: int) -> Response:
        job = odds_services.odds_start(user=request.user, battle_id=battle_id, **_valid(FpOddsInputSerializer, request))
        job.refresh_from_db()
        return Response(FpBattleJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class FpBattleJobApi(APIView):
    """An odds job: status, progress and, when done, the odds."""

    permission_classes = [BattleAccess]

    @extend_schema(
        responses=FpBattleJobSerializer, parameters=[OpenApiParameter("job_id", OpenApiTypes.INT, OpenApiParameter.PATH)]
    )
    def get(self, request: Request, job_id: int) -> Response:
        job = BattleJob.objects.filter(pk=job_id).first()
        if job is None:
            raise NotFound("No such job.", field="job")
        try:
            selectors.battle_for(request.user, job.battle_id)
        except NotFound:
            raise NotFound("No such job.", field="job") from None
        if odds_services.odds_sweep(job_id=job.pk):  # a lost worker ends the job here
            job.refresh_from_db()
        return Response(FpBattleJobSerializer(job).data)


B = "fp-battles/<int:battle_id>"

urlpatterns = [
    path("fp-battles/", FpBattleListApi.as_view(), name="api-fp-battle-list"),
    path(f"{B}/", FpBattleDetailApi.as_view(), name="api-fp-battle-detail"),
    path(f"{B}/track/", FpBattleTrackApi.as_view(), name="api-fp-battle-track"),
    path(f"{B}/nominis/", FpNominisStartApi.as_view(), name="api-fp-battle-nominis"),
    path(f"{B}/nominis/act/", FpNominisActApi.as_view(), name="api-fp-battle-nominis-act"),
    path(f"{B}/nominis/auto/", FpNominisAutoApi.as_view(), name="api-fp-battle-nominis-auto"),
    path(f"{B}/nominis/undo/", FpNominisUndoApi.as_view(), name="api-fp-battle-nominis-undo"),
    path(f"{B}/finish/", FpBattleFinishApi.as_view(), name="api-fp-battle-finish"),
    path(f"{B}/report/", FpBattleReportApi.as_view(), name="api-fp-battle-report"),
    path(f"{B}/odds/", FpBattleOddsApi.as_view(), name="api-fp-battle-odds"),
    path("fp-street-fights/", StreetFightApi.as_view(), name="api-fp-street-fight"),
    path("fp-battle-jobs/<int:job_id>/", FpBattleJobApi.as_view(), name="api-fp-battle-job"),
    path("campaigns/<int:campaign_id>/loan/fight/", FpLoanFightApi.as_view(), name="api-campaign-loan-fight"),
]
