"""The input of each Bug Hunt write, shared by its HTML view and its API view
(:mod:`rules.inputs`): validate with the serializer here, then call the service with the values."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from rules import bounds
from rules.bounds import int_field
from rules.inputs import FacesField


class VersionInput(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The squad version this write was made against.")


class AssignmentInput(VersionInput):
    """:func:`bughunt.services.special_assignment_apply` (p.183)."""

    trooper = int_field(1, bounds.ID_MAX)
    assignment = serializers.CharField(max_length=60)
    faces = FacesField(help_text='Your own 2D6 (e.g. [5, 4] or "5, 4"); omit to roll.')


class AdvanceInput(VersionInput):
    """:func:`bughunt.services.trooper_advance`."""

    trooper = int_field(1, bounds.ID_MAX)
    stat = serializers.CharField(max_length=20)


class OfferInput(VersionInput):
    """:func:`bughunt.services.offer_answer`."""

    index = int_field(0, bounds.STAT)
    choice = serializers.CharField(max_length=40)
