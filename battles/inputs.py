"""The input of each Five Parsecs battle write, shared by its HTML view and its API view
(:mod:`rules.inputs`): validate with the serializer here, then call the service with the values."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from rules import bounds
from rules.bounds import int_field


class YesNoField(serializers.BooleanField):
    """Yes, no or not said (``None``): JSON ``true``/``false``/``null``, or a form's ``yes``/``no``
    radio buttons, where none ticked (or an empty choice) is not said."""

    default_empty_html = serializers.empty  # a form without the field: its default, not False

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("default", None)
        super().__init__(**kwargs)


class FpBattleVersionSerializer(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The battle version this write was made against.")


class FpBattleFinishInputSerializer(FpBattleVersionSerializer):
    """:func:`battles.result_services.battle_finish`: the battle's result by hand (``held_field``,
    ``won``: ``None`` decides from the tracker) and the elite rewards' facts."""

    held_field = YesNoField()
    won = YesNoField()
    casualties = serializers.ListField(child=serializers.CharField(), required=False, allow_null=True, default=None)
    killed_any = serializers.BooleanField(default=False, help_text="Elite rewards, a battle played by hand: an enemy fell.")
    killed_leader = serializers.BooleanField(default=False, help_text="... a Lieutenant, Captain or Unique Individual fell.")
    killed_unique = serializers.BooleanField(default=False, help_text="... the Unique Individual fell.")
    quest_finished = serializers.BooleanField(default=False, help_text="Elite rewards: this battle finished a Quest.")
    rival_roll = serializers.BooleanField(default=False, help_text="Elite rewards: the core rules call for a Rival roll.")
    psionic_uses = serializers.IntegerField(default=0, min_value=0, max_value=99, help_text="Powers the crew's Psionics used.")
