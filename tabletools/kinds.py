"""The table tools' tracker kinds, registered with the live app by ``TabletoolsConfig.ready()``.

Stacking (``stack``), stress dice (``stress``), mass combat (``mass``) and the combat threat and
action tracker (``threat``): each kind's reducer is its engine's ``apply`` in
:mod:`tabletools.engine`, its initial state comes from :mod:`tabletools.trackers`, and its
template (``templates/tabletools/``) has the ``tracker`` and ``controls`` partials.
"""

from __future__ import annotations

from live.registry import OptionField, TrackerKind, without_tables
from tabletools.engine import mass_combat, stacking, stress, threat
from tabletools.trackers import mass_combat as mass_tracker
from tabletools.trackers import stacking as stack_tracker
from tabletools.trackers import stress as stress_tracker
from tabletools.trackers import threat as threat_tracker

APP = "tabletools"

STACK = TrackerKind(
    kind="stack",
    title="Stacking",
    app=APP,
    reducer=without_tables(stacking.apply),
    release=stacking.release,
    initial_state=stack_tracker.initial_state,
    template="tabletools/stack.html",
    description="A PC and contractors, or a group of identical creatures, make one Loyalty, Combat or Save roll together.",
    options=(
        OptionField(
            "check_die",
            "Check die (roll under the summed stat)",
            "choice",
            "D100",
            choices=tuple((die, die) for die in stacking.CHECK_DICE),
        ),
        OptionField("equal_succeeds", "A roll equal to the target succeeds", "bool", False),
        OptionField(
            "advantage",
            "Advantage and disadvantage",
            "choice",
            "twice",
            choices=(("twice", "Roll twice, keep the better"), ("shift", "Move the target")),
        ),
        OptionField("advantage_shift", "Target moves by (when advantage moves the target)", "int", 10, minimum=0, maximum=100),
        OptionField(
            "remainder",
            "Spread damage that does not divide evenly",
            "choice",
            "target",
            choices=(("target", "The main target takes it"), ("drop", "It is lost")),
        ),
        OptionField(
            "zero_health",
            "At 0 Health",
            "choice",
            "down",
            choices=(("down", "Down"), ("wound", "Take a Wound, Health refills")),
        ),
    ),
)

STRESS = TrackerKind(
    kind="stress",
    title="Stress dice skill checks",
    app=APP,
    reducer=without_tables(stress.apply),
    release=stress.release,
    initial_state=stress_tracker.stress_initial_state,
    template="tabletools/stress.html",
    takes_user=True,
    description="Base and stress dice, pushing, panic rolls, slow and fast actions, encumbrance.",
    options=(
        OptionField(
            "extreme_modifier",
            "Extreme range modifier (not printed; -6 to 0)",
            "int",
            stress.DEFAULT_EXTREME,
            minimum=-6,
            maximum=0,
        ),
        OptionField(
            "panic_table",
            "Panic table (slug of your table)",
            "table",
            "",
            help="The panic effects table is not in our sources: add it as your own table and name it here.",
        ),
    ),
)

MASS = TrackerKind(
    kind="mass",
    title="Mass combat",
    app=APP,
    reducer=without_tables(mass_combat.apply),
    release=mass_combat.release,
    initial_state=mass_tracker.mass_initial_state,
    template="tabletools/mass.html",
    description="Squads and hero units in rounds of priority, action and reposition; siege engines, barriers and magic circles.",
    options=(
        OptionField("side_a", "Heroes' side", "text", "Heroes"),
        OptionField("side_b", "Other side", "text", "Foes"),
        OptionField(
            "save_die",
            "Medic saving throw die",
            "choice",
            "D20",
            choices=tuple((d, d) for d in mass_combat.SAVE_DICE),
            help="The document leaves the die to your game.",
        ),
        OptionField("save_target", "Medic save succeeds on (die + Medic level)", "int", 10, minimum=1, maximum=30),
    ),
)

THREAT = TrackerKind(
    kind="threat",
    title="Combat threat and action tracker",
    app=APP,
    reducer=without_tables(threat.apply),
    initial_state=threat_tracker.threat_initial_state,
    release=threat.release,
    template="tabletools/threat.html",
    system="threat-tracker",
    description="Offense and Defence phases; the combat threat sets the actions per phase.",
    options=(OptionField("threat", "Starting combat threat (1-5)", "int", 3, minimum=1, maximum=5),),
)

KINDS: tuple[TrackerKind, ...] = (STACK, STRESS, MASS, THREAT)
