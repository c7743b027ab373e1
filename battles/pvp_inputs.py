"""The input of each PvP meeting write (:mod:`battles.pvp_services`), shared by its HTML view
and its API view (:mod:`rules.inputs`): validate with the serializer here, then call the service
with the values."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from battles.engine import fp_pvp
from battles.engine.fp_pvp import third as fp_third
from rules import bounds
from rules.bounds import int_field


class PvpInviteInputSerializer(serializers.Serializer[Any]):
    campaign = int_field(1, bounds.ID_MAX, help_text="Your campaign that hosts the battle (you must edit it).")
    kind = serializers.ChoiceField(
        choices=("pvp", "coop"),
        default="pvp",
        help_text="pvp: the crews fight each other (pp.35-38); coop: an expanded co-op battle, together against waves (pp.39-41).",
    )


class PvpAcceptInputSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(max_length=16, help_text="The invitation code the host gave you.")
    campaign = int_field(1, bounds.ID_MAX, help_text="Your campaign that accepts (you must edit it).")


class PvpFieldInputSerializer(serializers.Serializer[Any]):
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


class PvpSeizeInputSerializer(serializers.Serializer[Any]):
    dice = serializers.CharField(max_length=12, help_text="Your core rulebook's Seize the Initiative dice, e.g. 2D6.")
    target = int_field(2, 30, help_text="The total that seizes it (core rulebook).")
    faces = serializers.ListField(child=int_field(1, 100), required=False, allow_null=True, default=None, max_length=6)


class PvpSeizeBothSerializer(serializers.Serializer[Any]):
    host = PvpSeizeInputSerializer(required=False, allow_null=True, default=None)
    guest = PvpSeizeInputSerializer(required=False, allow_null=True, default=None)


class PvpSetupFacesSerializer(serializers.Serializer[Any]):
    first_deploy = int_field(1, 6, required=False, allow_null=True, default=None, help_text="D6 when ratings tie: 1-3 host.")
    first_player = int_field(1, 6, required=False, allow_null=True, default=None, help_text="D6 for the token: 1-3 host.")
    third_party = int_field(1, 100, required=False, allow_null=True, default=None, help_text="D100 third party arrival.")
    third_party_round = int_field(1, 6, required=False, allow_null=True, default=None, help_text="D6: its arrival round.")


class PvpSetupInputSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The meeting version this write was made against.")
    reason = serializers.CharField(
        max_length=40, required=False, allow_blank=True, default="", help_text="A picked battle reason key; empty rolls D100."
    )
    reason_face = int_field(1, 100, required=False, allow_null=True, default=None, help_text="Your D100 for the reason.")
    cinematic = serializers.BooleanField(default=False, help_text="Both sides start with 3 initiative points (p.36).")
    seize = PvpSeizeBothSerializer(required=False, default=dict)
    third_party = serializers.BooleanField(default=False, help_text="A three-way battle (p.37).")
    third_party_category = serializers.ChoiceField(
        choices=fp_third.CATEGORIES,
        required=False,
        allow_blank=True,
        default="",
        help_text="The third party's enemy category (its type is rolled on that category's table).",
    )
    third_party_numbers = int_field(
        1, 12, required=False, allow_null=True, default=None, help_text="Enemy numbers from your core rulebook's roll."
    )
    location = serializers.ChoiceField(
        choices=("neutral", "host", "guest"),
        default="neutral",
        help_text="Neutral ground (no world rules, p.35) or the current world of the host's or guest's campaign.",
    )
    faces = PvpSetupFacesSerializer(required=False, default=dict)
    seed = int_field(0, bounds.SEED_MAX, required=False, allow_null=True, default=None, help_text="Seed the set-up dice.")


class CoopForceInputSerializer(serializers.Serializer[Any]):
    category = serializers.ChoiceField(
        choices=fp_third.CATEGORIES, help_text="The enemy category you rolled; the type is rolled on its elite table."
    )
    numbers = int_field(1, 12, help_text="Enemy numbers from your core rulebook's roll (p.40 adds 2).")


class CoopForcesInputSerializer(serializers.Serializer[Any]):
    host = CoopForceInputSerializer(help_text="The enemy the host's player rolls up.")
    guest = CoopForceInputSerializer(help_text="The enemy the guest's player rolls up.")


class CoopRivalFacesInputSerializer(serializers.Serializer[Any]):
    host = int_field(1, 100, required=False, allow_null=True, default=None, help_text="Your die picking the host's Rival.")
    guest = int_field(1, 100, required=False, allow_null=True, default=None, help_text="Your die picking the guest's Rival.")


class CoopSetupInputSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The meeting version this write was made against.")
    forces = CoopForcesInputSerializer(help_text="Each player's enemy; the larger is Wave 1 (p.40).")
    wave3_numbers = int_field(1, 12, help_text="Enemy numbers from your core roll for Wave 3 (Hired Muscle, p.40).")
    order_face = int_field(
        1, 6, required=False, allow_null=True, default=None, help_text="D6 when both forces are equal: 1-3 the host's is Wave 1."
    )
    increased_challenge = serializers.BooleanField(
        default=False, help_text="One more Lieutenant in Waves 1 and 2, two more basic enemies in Wave 3 (p.41)."
    )
    invasion = serializers.ListField(
        child=int_field(1, 3),
        required=False,
        default=list,
        max_length=3,
        help_text="The waves whose type has the Invasion Threat trait (+1 each to the Invasion check, p.41).",
    )
    location = serializers.ChoiceField(
        choices=("neutral", "host", "guest"),
        default="neutral",
        help_text="Neutral ground (no World traits, p.39) or the current world of either campaign, as established there.",
    )
    separate_teams = serializers.BooleanField(
        default=False,
        help_text="Separate Enemy Teams (p.41): each force with its own campaign's difficulty; the host's is Wave 1.",
    )
    rivals = serializers.BooleanField(
        default=False, help_text="A showdown against a coalition of Rivals, one picked at random from each campaign (p.39)."
    )
    rival_faces = CoopRivalFacesInputSerializer(required=False, default=dict, help_text="Typed D100s picking each Rival.")
    seed = int_field(0, bounds.SEED_MAX, required=False, allow_null=True, default=None, help_text="Seed the set-up dice.")


class PvpHitNumbersSerializer(serializers.Serializer[Any]):
    open = int_field(2, 10, help_text="Your core rulebook's hit number in the open.")
    cover = int_field(2, 10, help_text="Your core rulebook's hit number against a target in cover.")


class PvpTrackInputSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The meeting version this write was made against.")
    dramatic_combat = serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="Dramatic Combat (p.87); default: when both campaigns use it."
    )
    hit_numbers = PvpHitNumbersSerializer(
        required=False, allow_null=True, default=None, help_text="Needed without Dramatic Combat."
    )


class PvpVersionInputSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The meeting version this write was made against.")


class PvpRefereeJoinInputSerializer(serializers.Serializer[Any]):
    code = serializers.CharField(max_length=16, help_text="The battle's code, from its host.")


class PvpRefereeInviteInputSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The meeting version this write was made against.")
    username = serializers.CharField(max_length=150, help_text="The user who referees (plays neither campaign).")
