"""REST API for a Five Parsecs campaign's crew and ship: the crew list and each character (edit,
advance, Psionic powers, training, Bot upgrades, implants, equipment, protection, injuries and
their treatment, character-creation results), and the ship with its components.

As in :mod:`campaigns.apis`: one view per operation with its own input and output
serializers; every write goes through :mod:`campaigns.crew_services` and carries the campaign
``version`` it was made against (a stale one gets 409 with the current version). Reading needs
the reader role, writing the editor role; an outsider gets 404.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import crew_services
from campaigns.apis import (
    C,
    CampaignCharacterSerializer,
    CampaignShipSerializer,
    CampaignVersionSerializer,
    _faces,
    _valid,
)
from campaigns.models import Character, Ship
from campaigns.permissions import CampaignAccess, campaign_for
from rules import bounds
from rules.bounds import int_field
from rules.errors import NotFound

# What one character's creation tables can give (a stat change, Patrons, Rivals, credits rolls)
# is a handful; each Patron or Rival becomes a row, so a count is capped well before it is work.
CREATION_MAX = 10

CH = f"{C}/characters/<int:character_id>"

# -- crew ------------------------------------------------------------------------------------------


class CharacterListApi(APIView):
    """The crew; or add a crew member (Krag and Skulker by the Compendium, other species from
    the starting profiles slot or a typed ``profile``; ``psionic`` rolls two powers)."""

    permission_classes = [CampaignAccess]

    class CampaignCharacterCreateInputSerializer(CampaignVersionSerializer):
        name = serializers.CharField(max_length=60)
        species = serializers.CharField(max_length=40, required=False, default="human")
        kind = serializers.CharField(required=False, allow_null=True, default=None, help_text="biological, bot or soulless.")
        profile = serializers.DictField(
            child=int_field(-bounds.STAT, bounds.STAT),
            required=False,
            allow_null=True,
            default=None,
            help_text="reactions, speed, combat_skill, toughness, savvy (and luck), typed from your book.",
        )
        psionic = serializers.BooleanField(default=False)
        payment = serializers.CharField(
            required=False, allow_null=True, default=None, help_text="story_points or credits, for a Psionic recruit."
        )
        captain = serializers.BooleanField(default=False)
        power_faces = _faces()
        duplicate_choice = serializers.CharField(required=False, allow_null=True, default=None)
        predict_swap = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=0, max_value=1)

    @extend_schema(responses=CampaignCharacterSerializer(many=True))
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = campaign_for(request.user, campaign_id)
        return Response(CampaignCharacterSerializer(campaign.characters.all(), many=True).data)

    @extend_schema(request=CampaignCharacterCreateInputSerializer, responses={201: CampaignCharacterSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        member = crew_services.character_create(
            user=request.user, campaign_id=campaign_id, **_valid(self.CampaignCharacterCreateInputSerializer, request)
        )
        return Response(CampaignCharacterSerializer(member).data, status=status.HTTP_201_CREATED)


def _character(user: Any, campaign_id: int, character_id: int) -> Character:
    campaign, _ = campaign_for(user, campaign_id)
    member = campaign.characters.filter(pk=character_id).first()
    if member is None:
        raise NotFound(f"No crew member {character_id} in this campaign.", field="character")
    return member


class CharacterDetailApi(APIView):
    """A crew member: read, or edit by hand (name, notes, captain, stats and XP in ``values``)."""

    permission_classes = [CampaignAccess]

    class CampaignCharacterUpdateInputSerializer(CampaignVersionSerializer):
        name = serializers.CharField(max_length=60, required=False)
        notes = serializers.CharField(required=False, allow_blank=True)
        captain = serializers.BooleanField(required=False)
        values = serializers.DictField(
            child=serializers.IntegerField(),
            required=False,
            help_text="reactions, speed, combat_skill, toughness, savvy, luck or xp -> the new number.",
        )

        def validate_values(self, values: dict[str, int]) -> dict[str, int]:
            for key, value in values.items():
                low, high = (0, bounds.XP) if key == "xp" else (-bounds.STAT, bounds.STAT)
                if not low <= value <= high:
                    raise serializers.ValidationError(f"{key} {bounds.range_message(low, high)}; got {value}.")
            return values

    @extend_schema(responses=CampaignCharacterSerializer)
    def get(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return Response(CampaignCharacterSerializer(_character(request.user, campaign_id, character_id)).data)

    @extend_schema(request=CampaignCharacterUpdateInputSerializer, responses=CampaignCharacterSerializer)
    def patch(self, request: Request, campaign_id: int, character_id: int) -> Response:
        v = _valid(self.CampaignCharacterUpdateInputSerializer, request)
        member = crew_services.character_update(
            user=request.user,
            campaign_id=campaign_id,
            version=v.pop("version"),
            character_id=character_id,
            name=v.get("name"),
            notes=v.get("notes"),
            captain=v.get("captain"),
            values=v.get("values"),
        )
        return Response(CampaignCharacterSerializer(member).data)


class _CharacterActionApi(APIView):
    """Base for ``characters/<id>/<action>/``: validate ``Input``, call ``service`` with the
    fields, answer with the crew member (and the campaign's new version)."""

    permission_classes = [CampaignAccess]
    Input: type[serializers.Serializer[Any]] = CampaignVersionSerializer
    service: Callable[..., Character]

    def act(self, request: Request, campaign_id: int, character_id: int) -> Response:
        v = _valid(self.Input, request)
        member = type(self).service(user=request.user, campaign_id=campaign_id, character_id=character_id, **v)
        return Response(CampaignCharacterSerializer(member).data)


class CampaignAdvanceInputSerializer(CampaignVersionSerializer):
    stat = serializers.CharField(help_text="reactions, speed, combat_skill, toughness, savvy or luck.")


class CharacterAdvanceApi(_CharacterActionApi):
    """Spend XP to raise a stat by one (costs from the upgrade table or Slower Progression)."""

    Input = CampaignAdvanceInputSerializer
    service = staticmethod(crew_services.character_advance)

    @extend_schema(request=CampaignAdvanceInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignPowerInputSerializer(CampaignVersionSerializer):
    action = serializers.CharField(help_text="acquire (12 XP, D10) or enhance (6 XP), p.19.")
    power = serializers.CharField(required=False, allow_blank=True, default="", help_text="The power to enhance.")
    face = int_field(0, bounds.FACE_MAX, required=False, allow_null=True, default=None, help_text="Your own D10 for acquire.")
    choice = serializers.CharField(required=False, allow_null=True, default=None)


class CharacterPowerApi(_CharacterActionApi):
    """Acquire or enhance a psionic power (p.19)."""

    Input = CampaignPowerInputSerializer
    service = staticmethod(crew_services.character_power)

    @extend_schema(request=CampaignPowerInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignTrainingInputSerializer(CampaignVersionSerializer):
    course = serializers.CharField()
    credits = int_field(0, bounds.MONEY, required=False, allow_null=True, default=None, help_text="The price of a core course.")


class CharacterTrainingApi(_CharacterActionApi):
    """Buy an Advanced Training course (p.25, or a core course at its price)."""

    Input = CampaignTrainingInputSerializer
    service = staticmethod(crew_services.character_training)

    @extend_schema(request=CampaignTrainingInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignBotUpgradeInputSerializer(CampaignVersionSerializer):
    upgrade = serializers.CharField()
    shots = int_field(0, bounds.STAT, required=False, allow_null=True, default=None)
    damage = int_field(0, bounds.STAT, required=False, allow_null=True, default=None)
    cost_reduction = int_field(0, bounds.MONEY, required=False, default=0)


class CharacterBotUpgradeApi(_CharacterActionApi):
    """Install a Bot upgrade (p.26)."""

    Input = CampaignBotUpgradeInputSerializer
    service = staticmethod(crew_services.character_bot_upgrade)

    @extend_schema(request=CampaignBotUpgradeInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignImplantInputSerializer(CampaignVersionSerializer):
    implant = serializers.CharField(help_text="An implant, or Nullification surgery (p.27).")


class CharacterImplantApi(_CharacterActionApi):
    """Give an implant (a Psionic loses their powers, p.18)."""

    Input = CampaignImplantInputSerializer
    service = staticmethod(crew_services.character_implant)

    @extend_schema(request=CampaignImplantInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignEquipInputSerializer(CampaignVersionSerializer):
    item = serializers.CharField()
    traits = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    remove = serializers.BooleanField(default=False, help_text="Take the item back instead.")


class CharacterEquipApi(_CharacterActionApi):
    """Hand an item to a crew member, or take it back."""

    Input = CampaignEquipInputSerializer
    service = staticmethod(crew_services.character_equip)

    @extend_schema(request=CampaignEquipInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignProtectionInputSerializer(CampaignVersionSerializer):
    name = serializers.CharField(max_length=80, help_text="The armour or screen, as your core rulebook names it.")
    kind = serializers.CharField(required=False, allow_blank=True, default="", help_text="armor or screen.")
    saving_throw = int_field(
        2, 6, required=False, allow_null=True, default=None, help_text="Its Saving Throw as a D6 target (5 = 5+)."
    )
    remove = serializers.BooleanField(default=False, help_text="Take the gear called name off instead.")


class CharacterProtectionApi(_CharacterActionApi):
    """Worn armour or a screen typed by the player (kind armor or screen, Saving Throw 2-6), or
    take it off; a battle gives the figure its best Saving Throw of each kind (p.26)."""

    Input = CampaignProtectionInputSerializer
    service = staticmethod(crew_services.character_protection)

    @extend_schema(request=CampaignProtectionInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignBotSaveInputSerializer(CampaignVersionSerializer):
    bot_save = int_field(
        2, 6, allow_null=True, help_text="The Bot's built-in Armor Saving Throw from your core rulebook, or null."
    )


class CharacterBotSaveApi(_CharacterActionApi):
    """A Bot's built-in Armor Saving Throw (the core rulebook's number); Improved armor casing and
    the Deflection module (p.26) build on it in battle."""

    Input = CampaignBotSaveInputSerializer
    service = staticmethod(crew_services.character_bot_save)

    @extend_schema(request=CampaignBotSaveInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignInjuryInputSerializer(CampaignVersionSerializer):
    injury = serializers.CharField(required=False, allow_blank=True, default="")
    sick_bay = int_field(0, bounds.TURNS, required=False, default=0, help_text="Campaign turns in Sick Bay.")
    status = serializers.CharField(required=False, allow_blank=True, default="", help_text="active, sick_bay, dead or gone.")


class CharacterInjuryApi(_CharacterActionApi):
    """Record an injury with its Sick Bay turns, or a new status."""

    Input = CampaignInjuryInputSerializer
    service = staticmethod(crew_services.character_injury)

    @extend_schema(request=CampaignInjuryInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignTreatInputSerializer(CampaignVersionSerializer):
    injury = serializers.CharField(max_length=80, help_text="The injury awaiting treatment (Extensive injury, Injured arm ...).")
    searcher = int_field(
        1,
        bounds.ID_MAX,
        required=False,
        allow_null=True,
        help_text="Crew id of who looks for an off-worlder; default best Savvy.",
    )
    facilities_value = int_field(
        1, 6, required=False, allow_null=True, help_text="Your own D6 for the world's medical facilities; omit to roll."
    )
    search_face = int_field(
        1, 6, required=False, allow_null=True, help_text="Your own D6 for the 1D6+Savvy search; omit to roll."
    )


class CharacterTreatApi(_CharacterActionApi):
    """Pay for the medical treatment of a lasting injury (p.101): refused with the cost when the
    crew cannot pay; on a world without facilities a crew member searches for an off-worlder."""

    Input = CampaignTreatInputSerializer
    service = staticmethod(crew_services.character_treat)

    @extend_schema(request=CampaignTreatInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


class CampaignCreationResultsInputSerializer(CampaignVersionSerializer):
    stat_changes = serializers.DictField(child=int_field(-CREATION_MAX, CREATION_MAX), required=False, default=dict)
    credits_results = int_field(
        0, CREATION_MAX, required=False, default=0, help_text='How many "1D6 credits" results the creation tables gave.'
    )
    credits_faces = _faces()
    patrons = int_field(0, CREATION_MAX, required=False, default=0)
    rivals = int_field(0, CREATION_MAX, required=False, default=0)


class CharacterCreationResultsApi(_CharacterActionApi):
    """What the core creation tables gave (stats, credits, Patrons, Rivals), after the species
    rules (pp.12, 14). Once per crew member."""

    Input = CampaignCreationResultsInputSerializer
    service = staticmethod(crew_services.character_creation_results)

    @extend_schema(request=CampaignCreationResultsInputSerializer, responses=CampaignCharacterSerializer)
    def post(self, request: Request, campaign_id: int, character_id: int) -> Response:
        return self.act(request, campaign_id, character_id)


# -- ship ------------------------------------------------------------------------------------------


class ShipApi(APIView):
    """The crew's ship: read it, or set its name, hull points and debt (or get one)."""

    permission_classes = [CampaignAccess]

    class CampaignShipInputSerializer(CampaignVersionSerializer):
        name = serializers.CharField(max_length=80)
        hull = int_field(0, bounds.SMALL_MAX)
        max_hull = int_field(0, bounds.SMALL_MAX)
        debt = int_field(0, bounds.MONEY, required=False, default=0, help_text="Credits.")

    @extend_schema(responses=CampaignShipSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = campaign_for(request.user, campaign_id)
        ship = Ship.objects.filter(campaign=campaign).first()
        if ship is None:
            raise NotFound("The crew has no ship.", field="ship")
        return Response(CampaignShipSerializer(ship).data)

    @extend_schema(request=CampaignShipInputSerializer, responses=CampaignShipSerializer)
    def put(self, request: Request, campaign_id: int) -> Response:
        ship = crew_services.ship_update(
            user=request.user, campaign_id=campaign_id, **_valid(self.CampaignShipInputSerializer, request)
        )
        return Response(CampaignShipSerializer(Ship.objects.select_related("campaign").get(pk=ship.pk)).data)


class ShipComponentApi(APIView):
    """Buy a ship component (p.27 parts at their price, core parts at ``core_cost``), or
    ``retrofit`` the miniaturized mod on one the ship has."""

    permission_classes = [CampaignAccess]

    class CampaignComponentInputSerializer(CampaignVersionSerializer):
        name = serializers.CharField(max_length=80)
        core_cost = int_field(0, bounds.MONEY, required=False, allow_null=True, default=None)
        miniaturized = serializers.BooleanField(default=False)
        retrofit = serializers.BooleanField(default=False)

    @extend_schema(request=CampaignComponentInputSerializer, responses=CampaignShipSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        ship = crew_services.ship_component(
            user=request.user, campaign_id=campaign_id, **_valid(self.CampaignComponentInputSerializer, request)
        )
        return Response(CampaignShipSerializer(Ship.objects.select_related("campaign").get(pk=ship.pk)).data)


urlpatterns = [
    path(f"{C}/characters/", CharacterListApi.as_view(), name="api-campaign-characters"),
    path(f"{CH}/", CharacterDetailApi.as_view(), name="api-campaign-character"),
    path(f"{CH}/advance/", CharacterAdvanceApi.as_view(), name="api-campaign-character-advance"),
    path(f"{CH}/power/", CharacterPowerApi.as_view(), name="api-campaign-character-power"),
    path(f"{CH}/training/", CharacterTrainingApi.as_view(), name="api-campaign-character-training"),
    path(f"{CH}/bot-upgrade/", CharacterBotUpgradeApi.as_view(), name="api-campaign-character-bot-upgrade"),
    path(f"{CH}/implant/", CharacterImplantApi.as_view(), name="api-campaign-character-implant"),
    path(f"{CH}/equip/", CharacterEquipApi.as_view(), name="api-campaign-character-equip"),
    path(f"{CH}/protection/", CharacterProtectionApi.as_view(), name="api-campaign-character-protection"),
    path(f"{CH}/bot-save/", CharacterBotSaveApi.as_view(), name="api-campaign-character-bot-save"),
    path(f"{CH}/injury/", CharacterInjuryApi.as_view(), name="api-campaign-character-injury"),
    path(f"{CH}/treat/", CharacterTreatApi.as_view(), name="api-campaign-character-treat"),
    path(f"{CH}/creation-results/", CharacterCreationResultsApi.as_view(), name="api-campaign-character-creation-results"),
    path(f"{C}/ship/", ShipApi.as_view(), name="api-campaign-ship"),
    path(f"{C}/ship/components/", ShipComponentApi.as_view(), name="api-campaign-ship-components"),
]
