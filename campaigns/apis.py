"""REST API for Five Parsecs campaigns: campaigns, the guided turn, the log, table slots, co-op
members, and export/import jobs. The crew and the ship are :mod:`campaigns.crew_apis`.

One view per operation, each with its own input and output serializers; every write goes
through :mod:`campaigns.services`, :mod:`campaigns.crew_services` or
:mod:`campaigns.turn_services` and carries the campaign ``version`` it was made against (a stale
one gets 409 with the current version). Reading needs the reader role, writing the editor role
(owner for options, slots and members); an outsider gets 404.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import crew_services, loan_services, quest_services, selectors, services, task_services, turn_services
from campaigns.documents import ROW_FIELDS
from campaigns.engine.slots import SLOTS
from campaigns.engine.tasks import TASK_NAMES
from campaigns.models import Campaign, CampaignJob, Character, LogEntry, Patron, Rival, Ship, Turn, TurnStep, World
from campaigns.permissions import ROLE_NAMES, CampaignAccess, campaign_for
from live.engine.tracker import Role
from live.models import Membership
from rules import bounds
from rules.apis import TransferJobSerializer
from rules.bounds import int_field
from rules.errors import NotAllowed, NotFound
from rules.pagination import LogCursorPagination
from rules.query import choice_filter, query_filters, text_filter

# -- output serializers ------------------------------------------------------------------------


class CampaignCharacterSerializer(serializers.ModelSerializer[Character]):
    kind = serializers.CharField(read_only=True, help_text="biological, bot or soulless.")
    status = serializers.CharField(read_only=True, help_text="active, sick_bay, dead or gone.")
    campaign_version = serializers.IntegerField(source="campaign.version", read_only=True)

    class Meta:
        model = Character
        fields = ["id", *ROW_FIELDS[Character], "campaign_version"]


class CampaignShipSerializer(serializers.ModelSerializer[Ship]):
    campaign_version = serializers.IntegerField(source="campaign.version", read_only=True)

    class Meta:
        model = Ship
        fields = ["name", "hull", "max_hull", "components", "debt", "campaign_version"]


class CampaignWorldSerializer(serializers.ModelSerializer[World]):
    class Meta:
        model = World
        fields = [
            "id",
            "name",
            "traits",
            "psionic_legality",
            "instability",
            "unstable",
            "invaded",
            "strife",
            "current",
            "arrived_turn",
        ]


class CampaignRivalSerializer(serializers.ModelSerializer[Rival]):
    class Meta:
        model = Rival
        fields = ["id", "name", "kind", "elite", "psi_hunter", "collector", "notes"]


class CampaignPatronSerializer(serializers.ModelSerializer[Patron]):
    class Meta:
        model = Patron
        fields = ["id", "name", "notes"]


class CampaignSlotSerializer(serializers.Serializer[Any]):
    slot = serializers.CharField()
    title = serializers.CharField()
    used_by = serializers.CharField()
    table = serializers.CharField(allow_null=True, help_text="The mapped table's slug; null: results by hand.")
    table_title = serializers.CharField(allow_null=True)


class CampaignMemberSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(help_text="The membership id (for removing the member).")
    username = serializers.CharField()
    role = serializers.CharField(help_text="owner, editor or reader.")


class CampaignSerializer(serializers.ModelSerializer[Campaign]):
    owner = serializers.CharField(source="owner.get_username", read_only=True)

    class Meta:
        model = Campaign
        fields = ["id", "name", "crew_name", "owner", "turn", "credits", "story_points", "version", "updated"]


def _slots(campaign: Campaign) -> list[dict[str, Any]]:
    mapped = selectors.slot_tables(campaign)
    return [
        {
            "slot": s.key,
            "title": s.title,
            "used_by": s.used_by,
            "table": mapped[s.key].slug if s.key in mapped else None,
            "table_title": mapped[s.key].title if s.key in mapped else None,
        }
        for s in SLOTS
    ]


def _members(campaign: Campaign) -> list[dict[str, Any]]:
    rows = Membership.objects.filter(room=campaign.room).select_related("user")
    return [{"id": m.pk, "username": m.user.get_username(), "role": ROLE_NAMES[Role(m.role)]} for m in rows]


class CampaignDetailSerializer(CampaignSerializer):
    """A campaign with everything on its page; ``role`` is the reader's own role."""

    role = serializers.SerializerMethodField()
    world = serializers.SerializerMethodField()
    ship = CampaignShipSerializer(read_only=True, allow_null=True)
    characters = CampaignCharacterSerializer(many=True, read_only=True)
    rivals = CampaignRivalSerializer(many=True, read_only=True)
    patrons = CampaignPatronSerializer(many=True, read_only=True)
    slots = serializers.SerializerMethodField()
    members = serializers.SerializerMethodField()

    class Meta(CampaignSerializer.Meta):
        fields = [
            *CampaignSerializer.Meta.fields,
            "role",
            "options",
            "rumors",
            "quest",
            "quest_step",
            "loan",
            "factions",
            "world",
            "ship",
            "characters",
            "rivals",
            "patrons",
            "slots",
            "members",
        ]

    @extend_schema_field(serializers.CharField(help_text="owner, editor or reader."))
    def get_role(self, campaign: Campaign) -> str:
        role = self.context.get("role")
        return ROLE_NAMES[role] if role is not None else ""

    @extend_schema_field(CampaignWorldSerializer(allow_null=True))
    def get_world(self, campaign: Campaign) -> dict[str, Any] | None:
        world = services.current_world(campaign)
        return CampaignWorldSerializer(world).data if world is not None else None

    @extend_schema_field(CampaignSlotSerializer(many=True))
    def get_slots(self, campaign: Campaign) -> list[dict[str, Any]]:
        return _slots(campaign)

    @extend_schema_field(CampaignMemberSerializer(many=True))
    def get_members(self, campaign: Campaign) -> list[dict[str, Any]]:
        return _members(campaign)


def _detail(user: Any, campaign_id: int) -> dict[str, Any]:
    """The campaign as its reader sees it, read fresh after a write."""
    campaign, role = campaign_for(user, campaign_id)
    return CampaignDetailSerializer(campaign, context={"role": role}).data


class CampaignTurnStepSerializer(serializers.ModelSerializer[TurnStep]):
    class Meta:
        model = TurnStep
        fields = ["id", "index", "key", "title", "phase", "mode", "text", "rolls", "changes", "created"]


class CampaignTurnSerializer(serializers.ModelSerializer[Turn]):
    steps = serializers.SerializerMethodField()

    class Meta:
        model = Turn
        fields = ["id", "number", "plan", "position", "facts", "finished", "created", "steps"]

    @extend_schema_field(CampaignTurnStepSerializer(many=True))
    def get_steps(self, turn: Turn) -> Any:
        return CampaignTurnStepSerializer(turn.steps.order_by("index", "id"), many=True).data


class CampaignStepCrewSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField()


class CampaignStepFieldSerializer(serializers.Serializer[Any]):
    """One input the step reads."""

    name = serializers.CharField(help_text="The key in the resolve call's inputs (xp_<crew id> for XP).")
    kind = serializers.CharField(help_text="choice, count, int, text, crew_id, crew_ids or faction.")
    # DRF takes declared fields off the class, so this does not shadow Field.required.
    required = serializers.BooleanField(help_text="Leaving it out is refused (400 naming it).")  # type: ignore[assignment]
    choices = serializers.ListField(child=serializers.CharField(), help_text="Allowed values: choices, crew ids, Faction names.")
    minimum = serializers.IntegerField(allow_null=True)
    maximum = serializers.IntegerField(allow_null=True)
    decided = serializers.JSONField(
        allow_null=True, help_text="The value the turn's finished battle decided (the step takes it)."
    )
    note = serializers.CharField()


class CampaignStepBattleSerializer(serializers.Serializer[Any]):
    """The finished battle "Record the battle" takes its result from."""

    id = serializers.IntegerField()
    title = serializers.CharField()
    words = serializers.CharField(help_text="What it recorded, in words.")
    record = serializers.DictField(help_text="won, held_field, casualties (crew ids), kills, psionic_uses, enemy, elite.")


class CampaignStepGuideSerializer(serializers.Serializer[Any]):
    """The step to play: its plan entry (``spec``), whether the app can roll it, the table it
    would roll and every input it reads (``inputs`` as ``[name, kind, choices]``; ``input_fields``
    with whether each is required, its allowed values and ranges)."""

    spec = serializers.DictField(help_text="key, phase, title, source, option, slot, table, rule, condition, inputs ...")
    index = serializers.IntegerField()
    rollable = serializers.BooleanField()
    die = serializers.CharField()
    table = serializers.CharField(allow_null=True, help_text="The slug of the table mapped to the step's slot, if any.")
    inputs = serializers.ListField(child=serializers.ListField(), help_text="[name, kind, choices] per input.")
    optional_inputs = serializers.ListField(child=serializers.CharField())
    input_fields = CampaignStepFieldSerializer(many=True)
    battle = CampaignStepBattleSerializer(allow_null=True)
    crew = CampaignStepCrewSerializer(many=True)
    factions = serializers.ListField(child=serializers.CharField())
    preview = serializers.CharField()
    remaining = serializers.IntegerField()


class CampaignTurnStateSerializer(serializers.Serializer[Any]):
    """A turn being played: its plan, the position of the step to play, the facts earlier steps
    recorded, the steps done and the step to play (null once the turn is over)."""

    version = serializers.IntegerField(help_text="The campaign version, for the next write.")
    turn = CampaignTurnSerializer()
    step = CampaignStepGuideSerializer(allow_null=True)


def _guide(campaign: Campaign, current: Turn) -> dict[str, Any] | None:
    guide = turn_services.step_guide(campaign, current) if not current.finished else None
    if guide is None:
        return None
    mapped = guide["mapped"]
    return {
        "spec": guide["spec"].as_dict(),
        "index": current.position,
        "rollable": guide["rollable"],
        "die": guide["die"] or "",
        "table": mapped.slug if mapped is not None else None,
        "inputs": [[f["name"], f["kind"], f["choices"]] for f in guide["fields"]],
        "optional_inputs": sorted(f["name"] for f in guide["fields"] if not f["required"]),
        "input_fields": guide["fields"],
        "battle": {
            "id": record.battle_id,
            "title": record.title,
            "words": guide["battle_words"],
            "record": record.as_dict(),
        }
        if (record := guide["battle"]) is not None
        else None,
        "crew": [{"id": c.pk, "name": c.name, "status": c.status} for c in guide["crew"]],
        "factions": [str(f) for f in guide["factions"] if f],
        "preview": guide["preview"],
        "remaining": guide["remaining"],
    }


def _turn_state(user: Any, campaign_id: int, current: Turn | None = None) -> dict[str, Any]:
    """The turn being played (or ``current``, fresh from the database), with its step to play.
    Raises :class:`NotFound` when no turn is being played."""
    campaign, _ = campaign_for(user, campaign_id)
    if current is not None:
        current = Turn.objects.filter(pk=current.pk).first()
    current = current or selectors.current_turn(campaign)
    if current is None:
        raise NotFound("No turn is being played; start the next one.", field="turn")
    return {"version": campaign.version, "turn": CampaignTurnSerializer(current).data, "step": _guide(campaign, current)}


class CampaignLogLineSerializer(serializers.ModelSerializer[LogEntry]):
    class Meta:
        model = LogEntry
        fields = ["id", "turn", "kind", "step", "text", "rolls", "changes", "undone", "created"]


class CampaignJobSerializer(TransferJobSerializer):
    campaign = serializers.IntegerField(allow_null=True, help_text="The exported campaign, or the imported one when done.")


def _job(job: CampaignJob) -> dict[str, Any]:
    return services.JOBS.as_dict(job)


# -- input serializers -----------------------------------------------------------------------------


class CampaignVersionSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The campaign version this write was made against.")


def _valid(serializer_class: type[serializers.Serializer[Any]], request: Request) -> dict[str, Any]:
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


def _version_checked(user: Any, campaign_id: int, version: int, at_least: Role) -> None:
    """Refuse a stale ``version`` for writes whose service takes none (inside an atomic block)."""
    services.load(user, campaign_id, version, at_least=at_least)


def _faces() -> serializers.ListField:
    return serializers.ListField(child=int_field(0, bounds.FACE_MAX), required=False, allow_null=True, default=None)


# -- campaigns -------------------------------------------------------------------------------------


class CampaignListApi(APIView):
    """Your campaigns and the ones shared with you; or start a new one."""

    permission_classes = [CampaignAccess]

    class CampaignFilterSerializer(serializers.Serializer[Any]):
        q = text_filter()

    class CampaignCreateInputSerializer(serializers.Serializer[Any]):
        name = serializers.CharField(max_length=80)
        crew_name = serializers.CharField(max_length=80, required=False, allow_blank=True, default="")
        ship_name = serializers.CharField(max_length=80, required=False, allow_blank=True, default="")
        options = serializers.DictField(
            required=False, default=dict, help_text="Set-up options (crew_size, loans, toggles, psionics, ...), p.8."
        )

    @extend_schema(
        parameters=[OpenApiParameter("q", str, description="Matches the campaign or crew name.")],
        responses=CampaignSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        search = query_filters(self.CampaignFilterSerializer, request)["q"]
        campaigns = selectors.campaign_list(user=request.user, search=search).select_related("owner")
        return Response(CampaignSerializer(campaigns, many=True).data)

    @extend_schema(request=CampaignCreateInputSerializer, responses={201: CampaignDetailSerializer})
    def post(self, request: Request) -> Response:
        campaign = services.campaign_create(user=request.user, **_valid(self.CampaignCreateInputSerializer, request))
        return Response(_detail(request.user, campaign.pk), status=status.HTTP_201_CREATED)


class CampaignDetailApi(APIView):
    """One campaign: read it, rename it or change its options (owner), or delete it (owner)."""

    permission_classes = [CampaignAccess]
    write_role = Role.OWNER

    class CampaignUpdateInputSerializer(CampaignVersionSerializer):
        name = serializers.CharField(max_length=80, required=False)
        options = serializers.DictField(required=False, help_text="The options to change; the others keep their values.")

    @extend_schema(responses=CampaignDetailSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        return Response(_detail(request.user, campaign_id))

    @extend_schema(request=CampaignUpdateInputSerializer, responses=CampaignDetailSerializer)
    def patch(self, request: Request, campaign_id: int) -> Response:
        v = _valid(self.CampaignUpdateInputSerializer, request)
        options = v.get("options")
        if options is not None:  # a PATCH: the options sent change, the others stay
            campaign, _ = campaign_for(request.user, campaign_id)
            options = {**campaign.options, **options}
        services.campaign_update(
            user=request.user, campaign_id=campaign_id, version=v["version"], name=v.get("name"), options=options
        )
        return Response(_detail(request.user, campaign_id))

    @extend_schema(request=CampaignVersionSerializer, responses={204: None})
    def delete(self, request: Request, campaign_id: int) -> Response:
        v = _valid(CampaignVersionSerializer, request)
        with transaction.atomic():
            _version_checked(request.user, campaign_id, v["version"], Role.OWNER)
            services.campaign_delete(user=request.user, campaign_id=campaign_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- the guided turn -------------------------------------------------------------------------------


class TurnListApi(APIView):
    """The campaign's turns with their steps, newest first; or start the next turn (p.9)."""

    permission_classes = [CampaignAccess]

    @extend_schema(responses=CampaignTurnSerializer(many=True))
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = campaign_for(request.user, campaign_id)
        return Response(CampaignTurnSerializer(campaign.turns.order_by("-number"), many=True).data)

    @extend_schema(request=CampaignVersionSerializer, responses={201: CampaignTurnStateSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        v = _valid(CampaignVersionSerializer, request)
        started = turn_services.turn_start(user=request.user, campaign_id=campaign_id, version=v["version"])
        return Response(_turn_state(request.user, campaign_id, started), status=status.HTTP_201_CREATED)


class TurnCurrentApi(APIView):
    """The turn being played: plan, position, facts, steps done and the step to play with its
    inputs. 404 when no turn is being played."""

    permission_classes = [CampaignAccess]

    @extend_schema(responses=CampaignTurnStateSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        return Response(_turn_state(request.user, campaign_id))


class CampaignStepResolvedSerializer(serializers.Serializer[Any]):
    resolved = CampaignTurnStepSerializer()
    version = serializers.IntegerField()
    turn = CampaignTurnSerializer()
    step = CampaignStepGuideSerializer(allow_null=True, help_text="The next step to play; null when the turn is over.")


class TurnStepApi(APIView):
    """Resolve the step to play: ``roll`` (the app rolls or runs the rule), ``enter`` (your own
    roll in ``value``), ``manual`` (``text``, with any ``credits`` and ``story_points``) or
    ``skip``. ``inputs`` answer the step's inputs by name."""

    permission_classes = [CampaignAccess]

    class CampaignStepInputSerializer(CampaignVersionSerializer):
        mode = serializers.CharField(default="roll", help_text="roll, enter, manual or skip.")
        value = int_field(0, bounds.ROLL_MAX, required=False, allow_null=True, default=None)
        inputs = serializers.DictField(required=False, default=dict)
        text = serializers.CharField(required=False, allow_blank=True, default="")
        credits = int_field(-bounds.MONEY, bounds.MONEY, required=False, default=0)
        story_points = int_field(-bounds.MONEY, bounds.MONEY, required=False, default=0)

    @extend_schema(request=CampaignStepInputSerializer, responses=CampaignStepResolvedSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        done = turn_services.step_resolve(
            user=request.user, campaign_id=campaign_id, **_valid(self.CampaignStepInputSerializer, request)
        )
        state = _turn_state(request.user, campaign_id, done.turn)
        return Response({"resolved": CampaignTurnStepSerializer(done).data, **state})


class CampaignUndoneSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    turn = CampaignTurnSerializer(allow_null=True, help_text="The turn, back at the undone step; null if its start was undone.")
    step = CampaignStepGuideSerializer(allow_null=True)


class TurnUndoApi(APIView):
    """Take back the last resolved step of the latest turn (or the start of the turn)."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignVersionSerializer, responses=CampaignUndoneSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        v = _valid(CampaignVersionSerializer, request)
        latest = turn_services.step_undo(user=request.user, campaign_id=campaign_id, version=v["version"])
        if latest is None:
            campaign, _ = campaign_for(request.user, campaign_id)
            return Response({"version": campaign.version, "turn": None, "step": None})
        return Response(_turn_state(request.user, campaign_id, latest))


class CampaignChangeUndoneSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    undone = serializers.CharField(help_text="What was taken back, in words.")


class UndoApi(APIView):
    """Take back the campaign's last change: a turn step, or a crew, ship, money, contact or
    options edit made outside the turn. Table slots and members are changed on their own."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignVersionSerializer, responses=CampaignChangeUndoneSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        v = _valid(CampaignVersionSerializer, request)
        undone = turn_services.change_undo(user=request.user, campaign_id=campaign_id, version=v["version"])
        campaign, _ = campaign_for(request.user, campaign_id)
        return Response({"version": campaign.version, "undone": undone})


class CampaignRolledSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    result = serializers.CharField(help_text="The species key, the name, or the crew member picked.")


class CampaignSpeciesRollInputSerializer(CampaignVersionSerializer):
    value = int_field(1, 100, required=False, allow_null=True, help_text="Your own D100 (1-100); omit to roll.")


class SpeciesRollApi(APIView):
    """Roll the Primary Alien table (p.16) for a recruit's species; the roll is logged."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignSpeciesRollInputSerializer, responses=CampaignRolledSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        species = crew_services.species_roll(
            user=request.user, campaign_id=campaign_id, **_valid(CampaignSpeciesRollInputSerializer, request)
        )
        campaign, _ = campaign_for(request.user, campaign_id)
        return Response({"version": campaign.version, "result": species})


class CampaignNameRollInputSerializer(CampaignVersionSerializer):
    recipe = serializers.ChoiceField(choices=sorted(services.NAME_USES[""]), help_text="The name generator (pp.157-160).")
    use = serializers.ChoiceField(
        choices=sorted(services.NAME_USES), required=False, default="", help_text="world, ship, patron, or empty to only log it."
    )


class NameRollApi(APIView):
    """Roll a world, colony, ship or Corporate Patron name (pp.157-160) and give it to the
    current world, the ship or a new Patron."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignNameRollInputSerializer, responses=CampaignRolledSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        name = services.name_roll(user=request.user, campaign_id=campaign_id, **_valid(CampaignNameRollInputSerializer, request))
        campaign, _ = campaign_for(request.user, campaign_id)
        return Response({"version": campaign.version, "result": name})


class CampaignFightPickInputSerializer(CampaignVersionSerializer):
    face = int_field(1, bounds.STAT, required=False, allow_null=True, help_text="Your own pick, 1 to the candidates.")


class FightPickApi(APIView):
    """Pick the crew member a character event puts in a fight (a Krag when there is one, p.12)."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignFightPickInputSerializer, responses=CampaignRolledSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        chosen = crew_services.fight_pick(
            user=request.user, campaign_id=campaign_id, **_valid(CampaignFightPickInputSerializer, request)
        )
        campaign, _ = campaign_for(request.user, campaign_id)
        return Response({"version": campaign.version, "result": chosen.name})


# -- crew tasks and the starting kit ---------------------------------------------------------------


class CampaignCrewTaskInputSerializer(CampaignVersionSerializer):
    character = int_field(1, bounds.ID_MAX, help_text="The active crew member taking the task.")
    task = serializers.ChoiceField(choices=sorted(TASK_NAMES), help_text="The crew task (core rules).")
    modifier = int_field(-10, 10, required=False, default=0, help_text="Your core rules' modifiers to the roll.")
    face = int_field(1, 6, required=False, allow_null=True, default=None, help_text="Your own D6; omit to roll.")


class CampaignCrewTaskSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    task = serializers.CharField()
    cost = serializers.IntegerField(help_text="Credits paid (Money is Tight, p.32).")
    total = serializers.IntegerField(allow_null=True, help_text="The roll's total for Find a Patron, Recruit, Track; else null.")
    reasons = serializers.ListField(child=serializers.CharField(), help_text="Each modifier and cost, with its page.")


class CrewTaskApi(APIView):
    """Resolve one crew member's task: Money is Tight's cost (p.32) and, for Find a Patron,
    Recruit and Track, 1D6 + your core modifiers + 1 for a Fixer (p.25); logged with reasons."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignCrewTaskInputSerializer, responses=CampaignCrewTaskSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        v = _valid(CampaignCrewTaskInputSerializer, request)
        done = task_services.crew_task(
            user=request.user,
            campaign_id=campaign_id,
            version=v["version"],
            character_id=v["character"],
            task=v["task"],
            modifier=v["modifier"],
            face=v["face"],
        )
        campaign, _ = campaign_for(request.user, campaign_id)
        body = {"version": campaign.version, "task": done.task, "cost": done.cost, "total": done.total}
        return Response({**body, "reasons": list(done.reasons)})


class StartingKitApi(APIView):
    """Take the crew's starting kit before the first turn: 1 credit per crew member, none with
    Meager starting kit (p.34)."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignVersionSerializer, responses=CampaignDetailSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        task_services.starting_kit(user=request.user, campaign_id=campaign_id, **_valid(CampaignVersionSerializer, request))
        return Response(_detail(request.user, campaign_id))


# -- the loan (pp.152-156) --------------------------------------------------------------------------


class CampaignLoanPayInputSerializer(CampaignVersionSerializer):
    credits = int_field(1, bounds.MONEY, help_text="Credits to pay off the loan (at most the crew's credits and the debt).")


class LoanPayApi(APIView):
    """Pay credits off the loan (p.155): a seizure warrant is cancelled, and an impounded ship
    released, once the debt is 10 credits below what was owed when it was issued."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignLoanPayInputSerializer, responses=CampaignDetailSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        loan_services.loan_pay(user=request.user, campaign_id=campaign_id, **_valid(CampaignLoanPayInputSerializer, request))
        return Response(_detail(request.user, campaign_id))


class CampaignQuestStartInputSerializer(CampaignVersionSerializer):
    name = serializers.CharField(max_length=200, help_text="The Quest's name (acquired by the core rules).")


class QuestApi(APIView):
    """Take up a Quest; its progress runs at the turn's Determine Quest Progress step (pp.78-80).
    The campaign's ``quest_step`` shows the pending step, the lasting modifiers and whether the
    Quest Conclusion is unlocked."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignQuestStartInputSerializer, responses=CampaignDetailSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        v = _valid(CampaignQuestStartInputSerializer, request)
        quest_services.quest_start(user=request.user, campaign_id=campaign_id, **v)
        return Response(_detail(request.user, campaign_id))


class QuestPayApi(APIView):
    """Pay the pending Paid information step's cost for 1 Quest Rumor (01-10, p.79)."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignVersionSerializer, responses=CampaignDetailSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        quest_services.quest_pay(user=request.user, campaign_id=campaign_id, **_valid(CampaignVersionSerializer, request))
        return Response(_detail(request.user, campaign_id))


class CampaignSeizureInputSerializer(CampaignVersionSerializer):
    end = serializers.ChoiceField(
        choices=["give_up", "escaped", "caught"],
        help_text="give_up the ship; or, after the Fight it out battle, escaped (someone got away) or caught (nobody did).",
    )


class LoanSeizureApi(APIView):
    """Settle the seizure under way (pp.155-156): give the ship up, or say how the fight went."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=CampaignSeizureInputSerializer, responses=CampaignDetailSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        loan_services.loan_seizure_end(
            user=request.user, campaign_id=campaign_id, **_valid(CampaignSeizureInputSerializer, request)
        )
        return Response(_detail(request.user, campaign_id))


# -- log, slots, members ---------------------------------------------------------------------------


class LogApi(APIView):
    """The campaign log, oldest first, a page at a time: follow ``next`` (``?cursor=``)."""

    permission_classes = [CampaignAccess]
    pagination_class = LogCursorPagination

    class CampaignLogFilterSerializer(serializers.Serializer[Any]):
        kind = choice_filter(selectors.LOG_KINDS)
        turn = int_field(0, bounds.VERSION_MAX, required=False, allow_null=True, default=None)
        q = text_filter()

    @extend_schema(
        parameters=[
            OpenApiParameter("kind", str, description="setup, step, crew, ship, table, member, undo or import."),
            OpenApiParameter("turn", int, description="A campaign turn number."),
            OpenApiParameter("q", str, description="Words in the log line."),
        ],
        responses=CampaignLogLineSerializer(many=True),
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = campaign_for(request.user, campaign_id)
        filters = query_filters(self.CampaignLogFilterSerializer, request)
        entries = selectors.log_list(campaign=campaign, kind=filters["kind"], turn=filters["turn"], search=filters["q"])
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(entries, request, view=self)
        return paginator.get_paginated_response(CampaignLogLineSerializer(page, many=True).data)


class SlotApi(APIView):
    """Map a core-rulebook slot to a table (yours or a shipped one); an empty ``table`` clears
    it. Owner only."""

    permission_classes = [CampaignAccess]
    write_role = Role.OWNER

    class CampaignSlotInputSerializer(CampaignVersionSerializer):
        table = serializers.CharField(allow_blank=True, help_text="The table's slug; empty: results by hand.")

    @extend_schema(request=CampaignSlotInputSerializer, responses=CampaignDetailSerializer)
    def put(self, request: Request, campaign_id: int, slot: str) -> Response:
        v = _valid(self.CampaignSlotInputSerializer, request)
        services.slot_set(user=request.user, campaign_id=campaign_id, version=v["version"], slot_key=slot, table_slug=v["table"])
        return Response(_detail(request.user, campaign_id))


class MemberListApi(APIView):
    """Invite another user as ``editor`` or ``reader`` (again: change their role). Owner only."""

    permission_classes = [CampaignAccess]
    write_role = Role.OWNER

    class CampaignMemberInputSerializer(CampaignVersionSerializer):
        username = serializers.CharField(max_length=150)
        role = serializers.CharField(help_text="editor or reader.")

    @extend_schema(request=CampaignMemberInputSerializer, responses={201: CampaignDetailSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        v = _valid(self.CampaignMemberInputSerializer, request)
        with transaction.atomic():
            _version_checked(request.user, campaign_id, v["version"], Role.OWNER)
            services.member_invite(user=request.user, campaign_id=campaign_id, username=v["username"], role=v["role"])
        return Response(_detail(request.user, campaign_id), status=status.HTTP_201_CREATED)


class MemberDetailApi(APIView):
    """Remove a member (the owner removes anyone; a member may leave)."""

    permission_classes = [CampaignAccess]
    write_role = Role.VIEWER

    @extend_schema(request=CampaignVersionSerializer, responses={204: None})
    def delete(self, request: Request, campaign_id: int, member_id: int) -> Response:
        # Who may remove this member is known before the body is read: the owner, or the member
        # leaving; anyone else is refused before a missing version could be named.
        campaign, role = campaign_for(request.user, campaign_id, at_least=Role.VIEWER)
        leaving = Membership.objects.filter(room=campaign.room, pk=member_id, user_id=int(request.user.pk or 0)).exists()
        if role != Role.OWNER and not leaving:
            raise NotAllowed("Only the owner can remove other members.")
        v = _valid(CampaignVersionSerializer, request)
        with transaction.atomic():
            _version_checked(request.user, campaign_id, v["version"], Role.VIEWER)
            services.member_remove(user=request.user, campaign_id=campaign_id, member_id=member_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- export and import -----------------------------------------------------------------------------


class ExportApi(APIView):
    """Start exporting the campaign (any member may); poll the job for the document."""

    permission_classes = [CampaignAccess]
    write_role = Role.VIEWER

    @extend_schema(request=None, responses={202: CampaignJobSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = campaign_for(request.user, campaign_id)
        job = services.job_start(user=request.user, kind="export", campaign=campaign)
        return Response(_job(job), status=status.HTTP_202_ACCEPTED)


class ImportApi(APIView):
    """Import a campaign export (the JSON document itself as the body, or ``{"text": "<JSON>"}``)
    as a new campaign of yours; poll the job for the new campaign's id."""

    permission_classes = [CampaignAccess]

    @extend_schema(request=OpenApiTypes.OBJECT, responses={202: CampaignJobSerializer})
    def post(self, request: Request) -> Response:
        # Refused before the body is read: the stated length first, the document's own size
        # in job_start (a body sent without a length).
        doc = services.JOBS.document_from_body(request.data, request.META.get("CONTENT_LENGTH"))
        job = services.job_start(user=request.user, kind="import", document=doc)
        return Response(_job(job), status=status.HTTP_202_ACCEPTED)


class JobApi(APIView):
    """An export or import job of yours: state, progress, message, and the result when done."""

    permission_classes = [CampaignAccess]

    @extend_schema(responses=CampaignJobSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        services.job_sweep(user=request.user, job_id=job_id)
        job = CampaignJob.objects.filter(pk=job_id, owner_id=request.user.pk).first()
        if job is None:
            raise NotFound("No such job of yours.", field="job")
        return Response(_job(job))


C = "campaigns/<int:campaign_id>"

urlpatterns = [
    path("campaigns/", CampaignListApi.as_view(), name="api-campaign-list"),
    path("campaigns/import/", ImportApi.as_view(), name="api-campaign-import"),
    path("campaign-jobs/<int:job_id>/", JobApi.as_view(), name="api-campaign-job"),
    path(f"{C}/", CampaignDetailApi.as_view(), name="api-campaign-detail"),
    path(f"{C}/turns/", TurnListApi.as_view(), name="api-campaign-turns"),
    path(f"{C}/turns/current/", TurnCurrentApi.as_view(), name="api-campaign-turn-current"),
    path(f"{C}/turns/current/step/", TurnStepApi.as_view(), name="api-campaign-turn-step"),
    path(f"{C}/turns/current/undo/", TurnUndoApi.as_view(), name="api-campaign-turn-undo"),
    path(f"{C}/undo/", UndoApi.as_view(), name="api-campaign-undo"),
    path(f"{C}/species-roll/", SpeciesRollApi.as_view(), name="api-campaign-species-roll"),
    path(f"{C}/name-roll/", NameRollApi.as_view(), name="api-campaign-name-roll"),
    path(f"{C}/fight-pick/", FightPickApi.as_view(), name="api-campaign-fight-pick"),
    path(f"{C}/crew-task/", CrewTaskApi.as_view(), name="api-campaign-crew-task"),
    path(f"{C}/starting-kit/", StartingKitApi.as_view(), name="api-campaign-starting-kit"),
    path(f"{C}/loan/pay/", LoanPayApi.as_view(), name="api-campaign-loan-pay"),
    path(f"{C}/quest/", QuestApi.as_view(), name="api-campaign-quest"),
    path(f"{C}/quest/pay/", QuestPayApi.as_view(), name="api-campaign-quest-pay"),
    path(f"{C}/loan/seizure/", LoanSeizureApi.as_view(), name="api-campaign-loan-seizure"),
    path(f"{C}/log/", LogApi.as_view(), name="api-campaign-log"),
    path(f"{C}/slots/<slug:slot>/", SlotApi.as_view(), name="api-campaign-slot"),
    path(f"{C}/members/", MemberListApi.as_view(), name="api-campaign-members"),
    path(f"{C}/members/<int:member_id>/", MemberDetailApi.as_view(), name="api-campaign-member"),
    path(f"{C}/export/", ExportApi.as_view(), name="api-campaign-export"),
]
