"""The input of each Bug Hunt write, shared by its HTML view and its API view
(:mod:`rules.inputs`): validate with the serializer here, then call the service with the values."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.utils import html

from bughunt.models import Squad
from bughunt.services import MAX_MAIN, MIN_MAIN
from rules import bounds
from rules.bounds import int_field
from rules.inputs import FacesField


class VersionInput(serializers.Serializer[Any]):
    version = int_field(1, bounds.VERSION_MAX, help_text="The squad version this write was made against.")


class AssignmentInput(VersionInput):
    """:func:`bughunt.postbattle_services.special_assignment_apply` (p.183)."""

    trooper = int_field(1, bounds.ID_MAX)
    assignment = serializers.CharField(max_length=60)
    faces = FacesField(help_text='Your own 2D6 (e.g. [5, 4] or "5, 4"); omit to roll.')


class AdvanceInput(VersionInput):
    """:func:`bughunt.postbattle_services.trooper_advance`."""

    trooper = int_field(1, bounds.ID_MAX)
    stat = serializers.CharField(max_length=20)


class OfferInput(VersionInput):
    """:func:`bughunt.postbattle_services.offer_answer`."""

    index = int_field(0, bounds.STAT)
    choice = serializers.CharField(max_length=40)


class NamesField(serializers.ListField):
    """Names: a list (JSON) or a form's one text input with commas (``"Drake, Ferro"``); empty
    items are dropped."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", serializers.CharField(max_length=60))
        kwargs.setdefault("required", False)
        kwargs.setdefault("default", list)
        super().__init__(**kwargs)

    def get_value(self, dictionary: Any) -> Any:
        if html.is_html_input(dictionary):  # a form sends one text input, not a list
            raw = dictionary.get(self.field_name, serializers.empty)
            return serializers.empty if raw is serializers.empty else [n.strip() for n in raw.split(",") if n.strip()]
        return super().get_value(dictionary)


DIFFICULTIES = [d for d, _ in Squad.DIFFICULTIES]


def _difficulty(**kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=DIFFICULTIES, error_messages={"invalid_choice": f"Must be one of: {', '.join(DIFFICULTIES)}."}, **kwargs
    )


class SquadSettingsInput(VersionInput):
    """:func:`bughunt.services.squad_update`: a field left out stays as it is (a form's unticked
    box is ``False``)."""

    name = serializers.CharField(required=False, allow_blank=True, help_text="What the squad is called.")
    difficulty = _difficulty(required=False)
    escalation = serializers.BooleanField(required=False, help_text="Campaign escalation (p.187).")
    signals = serializers.BooleanField(required=False, help_text="Signals (p.190).")


class MissionCreateInput(VersionInput):
    """:func:`bughunt.services.mission_create` (pp.184-190)."""

    difficulty = _difficulty(required=False, allow_null=True, default=None)
    reputation_spent = int_field(-2, 2, default=0)
    priority_shift = int_field(-1, 1, default=0)
    objective_faces = FacesField(help_text="Your own three D6 (1-6) for the Objective markers (p.185); omit to roll.")
    objective_type_faces = FacesField(
        help_text="Your own D6 (1-6) on the Objective table, one per kept marker, lowest marker first (p.185); omit to roll."
    )
    priority_faces = FacesField(help_text="Your own two D6 (1-6) for Priority, the lower counts (p.186); omit to roll.")
    signals_faces = FacesField(help_text="Your own D6 (1-6) for the number of Signals, with the Signals option (p.190).")
    edge_faces = FacesField(help_text="Your own D12 (1-12) for the deployment edge: 1-3 north, 4-6 east, 7-9 south, 10-12 west.")


class MissionSupportInput(VersionInput):
    """:func:`bughunt.services.mission_request_support`, or with ``buy``
    :func:`bughunt.services.mission_buy_support` (p.187)."""

    option = serializers.CharField(max_length=60, required=False, default="")
    buy = serializers.BooleanField(default=False, help_text="Spend 1 Reputation for +1 Support point instead.")
    faces = FacesField(help_text="Your own 2D6 (1-6 each) for the Support request (p.187); omit to roll.")
    extra_support_card = serializers.BooleanField(default=False)


class PrefixedDictField(serializers.DictField):
    """A mapping: a JSON object, or a form's inputs named ``<prefix><key>`` (``weapon_12``);
    with ``skip_blank`` a form's empty choices are left out."""

    def __init__(self, *, form_prefix: str, skip_blank: bool = False, **kwargs: Any) -> None:
        self.form_prefix = form_prefix
        self.skip_blank = skip_blank
        super().__init__(**kwargs)

    def get_value(self, dictionary: Any) -> Any:
        if html.is_html_input(dictionary):
            found = {
                key.removeprefix(self.form_prefix): value
                for key, value in dictionary.items()
                if key.startswith(self.form_prefix) and (value or not self.skip_blank)
            }
            if found or self.required:
                return found
            return serializers.empty
        return super().get_value(dictionary)


@extend_schema_field({"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]})
class AssignmentsField(serializers.Field):  # type: ignore[type-arg]
    """Who carries a Support weapons option: one text ``"<figure>: <weapon>"`` or a list of them."""

    def to_internal_value(self, data: Any) -> list[str]:
        items = [data] if isinstance(data, str) else data
        if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
            raise serializers.ValidationError('Must be "<figure>: <weapon>" or a list of them.')
        return [i.strip() for i in items if i.strip()]

    def to_representation(self, value: Any) -> Any:
        return value


class ExtrasField(serializers.DictField):
    """Support option -> who carries it: a JSON object, or a form's selects named
    ``extra_<option>`` (several with one name for Grenades); blank choices are left out."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", AssignmentsField())
        super().__init__(**kwargs)

    def get_value(self, dictionary: Any) -> Any:
        if html.is_html_input(dictionary):
            found = {}
            for key in dictionary:
                if key.startswith("extra_"):
                    chosen = [v for v in dictionary.getlist(key) if v]
                    if chosen:
                        found[key.removeprefix("extra_")] = chosen
            return found or serializers.empty
        return super().get_value(dictionary)


class MissionLoadoutInput(VersionInput):
    """:func:`bughunt.services.mission_loadout` (step 6, p.187; Support weapons and arms, p.188)."""

    loadout = PrefixedDictField(
        form_prefix="weapon_",
        child=serializers.CharField(),
        help_text="Trooper id -> Combat rifle, Shot gun or Boarding sword.",
    )
    hand_cannon = serializers.CharField(required=False, allow_null=True, default=None)
    extras = ExtrasField(
        required=False,
        default=dict,
        help_text='Support option -> who carries it: {"Weapons support": "Fire team 2: Plasma rifle", '
        '"Grenades": ["Hicks: Frag grenade", "Fire team 1: Flash grenade"]}.',
    )
    arms = PrefixedDictField(
        form_prefix="arms_",
        skip_blank=True,
        child=serializers.CharField(),
        required=False,
        default=dict,
        help_text='Team -> its arms where the book offers a choice: {"Sarge": "Service pistol + Power claw"}.',
    )


class MissionStartInput(VersionInput):
    """:func:`bughunt.services.mission_start`."""

    guests_can_watch = serializers.BooleanField(default=False)


class MissionCasualtiesInput(VersionInput):
    """:func:`bughunt.postbattle_services.mission_casualties` (post-battle step 1, p.202; Escape, p.181)."""

    escape_card = serializers.BooleanField(
        default=False, help_text="Play Escape: those who left by an edge skip the Lost Marine roll."
    )
    faces = PrefixedDictField(
        form_prefix="faces_",
        skip_blank=True,
        child=serializers.IntegerField(min_value=1, max_value=100),
        required=False,
        default=dict,
        help_text='Your own D100 (1-100) by name: {"Hudson": 42}; the rest are rolled (p.202).',
    )
    recovery_faces = PrefixedDictField(
        form_prefix="recovery_",
        skip_blank=True,
        child=serializers.IntegerField(min_value=1, max_value=3),
        required=False,
        default=dict,
        help_text='Your own D3 (1-3) for Sick Bay time by name: {"Hudson": 2} (p.202).',
    )


def _step_faces(what: str) -> FacesField:
    return FacesField(help_text=f"Your own dice for {what}, in the order they are rolled; omit to roll.")


class MissionFinishInput(VersionInput):
    """:func:`bughunt.postbattle_services.mission_finish` (pp.201-206)."""

    mvp = serializers.CharField(required=False, allow_null=True, default=None)
    in_charge = serializers.CharField(required=False, allow_null=True, default=None)
    advanced_care = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    retire = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    pay_court_martial = serializers.BooleanField(default=False)
    buy_rest = serializers.BooleanField(default=False)
    escape_card = serializers.BooleanField(default=False, help_text="Play the Escape card: no Lost Marine rolls.")
    survived_card = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        default=None,
        help_text="Play Survived for this character, after the casualties are rolled (p.181).",
    )
    replacement_names = NamesField()
    faces = serializers.DictField(
        child=serializers.IntegerField(min_value=1, max_value=100),
        required=False,
        default=dict,
        help_text="Step 1 when the casualties were not rolled before: your own D100 (1-100) by name (p.202).",
    )
    recovery_faces = serializers.DictField(
        child=serializers.IntegerField(min_value=1, max_value=3),
        required=False,
        default=dict,
        help_text="Step 1 when not rolled before: your own D3 (1-3) for Sick Bay time by name (p.202).",
    )
    court_martial_faces = _step_faces("the court martial: one D6, 1-6 (p.201)")
    muster_out_faces = _step_faces("mustering out: two D6 (1-6) per main character who may leave (p.203)")
    reputation_faces = _step_faces("Reputation: one D6 (1-6) per Objective point (p.203)")
    replacement_faces = _step_faces(
        "each replacement: Origin, Basic Training, Service History (D100, 1-100), then two D6 (1-6) for "
        "commendations after a Combat Operation (pp.171-172)"
    )
    progress_faces = _step_faces("Operational Progress: the D100 (1-100), then any die its result asks for (p.205)")
    military_life_faces = _step_faces(
        "Military Life: the die picking who (the smallest die with enough faces), the D100 (1-100), then any die its "
        "result asks for (p.206)"
    )
    rest_faces = _step_faces("R&R: as Military Life, when the squad rests (p.206)")


class NumberedNamesField(serializers.ListField):
    """Names: a list (JSON) or a form's inputs ``<name without "_names">_1`` to ``_<count>``
    (``character_1`` ...); blank inputs are left out."""

    def __init__(self, *, form_count: int, **kwargs: Any) -> None:
        self.form_count = form_count
        super().__init__(**kwargs)

    def get_value(self, dictionary: Any) -> Any:
        if html.is_html_input(dictionary):
            stem = str(self.field_name).removesuffix("_names")
            names = (str(dictionary.get(f"{stem}_{i}", "")).strip() for i in range(1, self.form_count + 1))
            return [n for n in names if n]
        return super().get_value(dictionary)


class CharacterFacesField(serializers.DictField):
    """Main character name -> their own dice: a JSON object, or a form's ``character_faces_<n>``
    inputs beside ``character_<n>`` (blank ones left out)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("child", FacesField(allow_null=False))
        super().__init__(**kwargs)

    def get_value(self, dictionary: Any) -> Any:
        if html.is_html_input(dictionary):
            found = {}
            for i in range(1, MAX_MAIN + 1):
                name = str(dictionary.get(f"character_{i}", "")).strip()
                faces = str(dictionary.get(f"character_faces_{i}", "")).strip()
                if name and faces:
                    found[name] = faces
            return found or serializers.empty
        return super().get_value(dictionary)


@extend_schema_serializer(component_name="SquadCreate")
class SquadCreateInput(serializers.Serializer[Any]):
    """:func:`bughunt.services.squad_create` (p.178): three main characters is standard."""

    _names_message = f"Must hold {MIN_MAIN} to {MAX_MAIN} names (three is standard)."

    name = serializers.CharField(
        max_length=80,
        error_messages={"blank": "Required: what the squad is called.", "required": "Required: what the squad is called."},
    )
    character_names = NumberedNamesField(
        form_count=MAX_MAIN,
        child=serializers.CharField(max_length=60),
        min_length=MIN_MAIN,
        max_length=MAX_MAIN,
        error_messages={"min_length": _names_message, "max_length": _names_message},
    )
    difficulty = _difficulty(default="Mess Me Up")
    escalation = serializers.BooleanField(default=False)
    signals = serializers.BooleanField(default=False)
    regiment_faces = FacesField(
        help_text="Your own dice for the Regiment Flavor table (p.173), in order: title part 1, part 2, uniform color; "
        "a number or color result asks for its die next. Omit to roll."
    )
    character_faces = CharacterFacesField(
        required=False,
        default=dict,
        help_text='Your own dice by name: {"Hicks": [45, 12, 88]}: Origin, Basic Training and Service History (D100, '
        "1-100, pp.171-172), then two D6 (1-6) for commendations after a Combat Operation. Omit a name to roll.",
    )


class MemberInviteInput(VersionInput):
    """:func:`bughunt.member_services.member_invite`: owner only."""

    username = serializers.CharField(max_length=150)
    role = serializers.CharField(
        max_length=10, help_text="editor (plays, commands the marines given to them) or reader (watches)."
    )


class MemberRemoveInput(VersionInput):
    """:func:`bughunt.member_services.member_remove`: the owner, or the member leaving."""


class MarineInput(VersionInput):
    """:func:`bughunt.member_services.marine_give`: owner only."""

    trooper = int_field(1, bounds.ID_MAX, help_text="The main character.")
    player = serializers.CharField(
        max_length=150, allow_blank=True, default="", help_text="An editor's username; empty: the owner commands them."
    )
