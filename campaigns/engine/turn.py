"""The guided campaign turn: the updated turn sequence (Compendium p.9), its optional steps,
and the engine rules that resolve the Compendium's own steps.

:func:`plan_turn` lists the turn's steps in order (:class:`StepSpec`), built from the
``campaign-turn-sequence`` and ``new-world-arrival-steps`` tables; :func:`applies` says
whether a step applies once it is reached; :func:`resolve` runs a step's engine rule.

Step keys are ``<phase>.<name>``: ``travel.*``, ``arrival.*`` (the New World Arrival
steps, part of the travel phase), ``world.*``, ``battle.*`` and ``post.*``.

Which steps appear (:func:`plan_turn`)
-------------------------------------
- Core steps always appear; a step whose core table the player can map has a ``slot``.
- Compendium steps appear only with their option: Loans (``world.loan_enforcement``),
  Expanded Factions (``travel.factions_fleeing``, ``arrival.factions``, ``world.faction_job``,
  ``post.faction_loyalty``, ``post.faction_activity``, ``post.faction_event``), Fringe World
  Strife (``arrival.instability``, ``post.instability``), Psionics ``crew`` or ``both``
  (``arrival.psionic_legality``, ``post.psionic_detection``). Salvage steps always appear,
  with the condition ``salvage``.
- Added by us: ``arrival.world`` (name the new world, pp.157-158), ``travel.research`` (a ship
  with the Scientific Research System, p.27), ``battle.elite`` (elite enemies not ``never``,
  or Progressive Difficulty option 2, which can switch them on; p.48), ``battle.brief`` and
  ``battle.record``, ``post.story_track`` (Story Track option, core p.153) and, on turn 5 of
  the Introductory Campaign, ``post.tutorial_done`` (p.109).

Introductory Campaign (p.104-109; option on, turns 1-5)
-------------------------------------------------------
The ``introductory-campaign-turns`` row of the turn keeps only the listed core step numbers
per phase (``None`` = the full sequence). The numbers are the core rulebook's: the updated
sequence without the Compendium-only steps (so "Get paid" is post-battle step 4).
Our ruling for the Compendium-only steps: each one follows the core step it hangs on (the
nearest core step before it in its phase; New World Arrival steps hang on travel step 4): it
is kept exactly when that step is kept, except the Salvage steps, which turns 1-4 drop (their
missions are set by the tutorial). The Story Track step waits for turn 6, since the book
starts the Story Track when the tutorial ends. The battle phase has no numbered list: turns 1-4
drop Connections and the elite check (the tutorial sets the enemies), keep
Deployment Conditions and Notable Sights only when the row says so. "Your First Fight" (turn 0)
is played at set-up and is not a campaign turn: :func:`plan_turn` refuses turn 0.

Conditions (:func:`applies`)
----------------------------
``condition`` is ``""`` (always) or terms joined by ``&``; a term may start with ``not_``.
Terms: ``traveled`` (facts), ``new_world`` (traveled, or the campaign has no world yet),
``krag_colony``, ``invaded`` (facts, else the world), ``salvage`` and ``opportunity`` (the
mission), ``battle_fought``, ``won``, ``held_field``, ``psionic_used`` (Psionic powers used
in the battle), ``outlawed`` (Psionics outlawed here), ``unstable`` (the world tracks
Instability), ``loan`` (the campaign has a loan), ``factions`` (Factions on this world),
``faction_job_won`` (the crew won a job for a Faction).

Facts (the turn's record): engine rules return them in :attr:`StepResult.facts`; the service
merges them and adds its own: ``invaded`` (from Check for invasion), ``loan_balance_before``
(debt in credits before the Upkeep payment and interest, used by loan enforcement).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from campaigns.engine import world
from campaigns.engine.options import CampaignOptions, OptionError
from campaigns.engine.view import BattleView, CampaignView, Change, FactionView
from rules.engine.dice import Dice, DiceError, RollRecord
from rules.engine.tables import RangeTable, TableError

PHASES: tuple[str, ...] = ("travel", "world", "battle", "post-battle")
MISSIONS: tuple[str, ...] = ("patron", "rival", "quest", "opportunity", "salvage")
YES_NO: tuple[str, ...] = ("yes", "no")
KRAG_VISIT: tuple[str, ...] = ("no", "known", "new")
RESEARCH_COMPONENT = "Scientific Research System"

#: Rules this module resolves with :func:`resolve`.
ENGINE_RULES: tuple[str, ...] = (
    "travel_decide",
    "research",
    "factions_fleeing",
    "new_world",
    "rivals_follow",
    "factions_generate",
    "world_stability",
    "psionic_legality",
    "loan_enforcement",
    "faction_job",
    "battle_type",
    "battle_record",
    "psionic_detection",
    "faction_loyalty",
    "faction_activity",
    "instability",
    "faction_event",
    "tutorial_done",
)
#: Rules the service layer resolves (they need its other engines or the player's tables).
SERVICE_RULES: tuple[str, ...] = ("upkeep", "elite_check", "battle_brief", "injuries", "xp", "training", "purchase")
#: Condition terms understood by :func:`applies` (each may also be written ``not_<term>``).
CONDITION_TERMS: tuple[str, ...] = (
    "traveled",
    "new_world",
    "krag_colony",
    "invaded",
    "salvage",
    "opportunity",
    "battle_fought",
    "won",
    "held_field",
    "psionic_used",
    "outlawed",
    "unstable",
    "loan",
    "factions",
    "faction_job_won",
)


class TurnError(OptionError):
    """A turn step given something the rules do not allow; ``field`` names the input."""


Input = tuple[str, str, tuple[str, ...]]


@dataclass(frozen=True)
class StepSpec:
    """One step of the campaign turn.

    - ``key``: stable id (``"travel.decide"``); ``phase``: one of :data:`PHASES`.
    - ``title``: what the step is called; ``source``: ``"p.21"``, ``"core"`` or ``"core p.153"``.
    - ``option``: the :class:`CampaignOptions` field that brings the step (``""`` for core steps).
    - ``slot``: a ``slots.SLOT_KEYS`` key when a user table can roll this step.
    - ``table``: a Compendium table slug the engine rolls; ``rule``: the rule that resolves the
      step (one of :data:`ENGINE_RULES` or :data:`SERVICE_RULES`), ``""`` when the service rolls
      the slot table or takes a manual result.
    - ``condition``: when the step applies (see the module docstring), checked on reaching it.
    - ``inputs``: ``(name, kind, choices)`` asked of the player. Kinds: ``choice`` (one of
      ``choices``), ``count`` (whole number 0+), ``int``, ``text``, ``crew_ids`` (list of crew
      ids), ``faction`` (a Faction name on this world). ``optional_inputs`` may be left out.
    - ``core_step``: the core rulebook's number of this step in its phase (New World Arrival
      steps carry travel step 4); None for Compendium-only steps.
    - ``note``: a remark for this turn (e.g. the tutorial's limits), in our words.
    """

    key: str
    phase: str
    title: str
    source: str = "core"
    option: str = ""
    slot: str = ""
    table: str = ""
    rule: str = ""
    condition: str = ""
    inputs: tuple[Input, ...] = ()
    core_step: int | None = None
    optional_inputs: tuple[str, ...] = ()
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (inputs as lists)."""
        data = asdict(self)
        data["inputs"] = [[n, k, list(c)] for n, k, c in self.inputs]
        data["optional_inputs"] = list(self.optional_inputs)
        return data


@dataclass(frozen=True)
class StepResult:
    """What a rule did: ``text`` (our words), ``rolls``, ``changes`` for the service to apply,
    ``facts`` to merge into the turn's facts, and ``needs``: required inputs still missing
    (when not empty, nothing was rolled or changed)."""

    text: str
    rolls: tuple[RollRecord, ...] = ()
    changes: tuple[Change, ...] = ()
    facts: Mapping[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "rolls": [r.as_dict() for r in self.rolls],
            "changes": [c.as_dict() for c in self.changes],
            "facts": dict(self.facts),
            "needs": list(self.needs),
        }


# -- the catalogue -----------------------------------------------------------------------

#: Campaign-turn-sequence option names that add Compendium-only steps -> CampaignOptions field
#: ("" for Salvage Jobs: a mission type, so those steps carry the ``salvage`` condition).
ADDING_OPTIONS: dict[str, str] = {
    "Expanded Factions": "expanded_factions",
    "Loans: Who Do You Owe?": "loans",
    "Psionics": "psionics",
    "Fringe World Strife": "fringe_world_strife",
    "Salvage Jobs": "",
}
#: Page for a Compendium-only row whose table entry gives none.
_FALLBACK_PAGES: dict[str, str] = {"Salvage Jobs": "p.137"}
#: Per-mission options that only change how a core step is done (noted on the step).
VARIANT_OPTIONS: tuple[str, ...] = ("Expanded Connections", "Expanded Missions", "Terrain Generation")

_BATTLE_RECORD_INPUTS: tuple[Input, ...] = (
    ("won", "choice", YES_NO),
    ("held_field", "choice", YES_NO),
    ("psionic_uses", "count", ()),
    ("casualties", "crew_ids", ()),
    ("enemy", "text", ()),
    ("elite", "choice", YES_NO),
    ("roving_threat", "choice", YES_NO),
    ("faction_job", "faction", ()),
    ("affiliated", "choice", YES_NO),
    ("faction_enemy", "faction", ()),
)

_TURN_ROWS: dict[tuple[str, str], dict[str, Any]] = {
    ("travel", "flee invasion"): {"key": "travel.flee_invasion", "condition": "invaded"},
    ("travel", "check for factions fleeing"): {
        "key": "travel.factions_fleeing",
        "rule": "factions_fleeing",
        "table": "faction-mechanics",
        "condition": "invaded",
    },
    ("travel", "decide whether to travel"): {
        "key": "travel.decide",
        "rule": "travel_decide",
        "inputs": (("travel", "choice", YES_NO), ("krag_colony", "choice", KRAG_VISIT)),
        "optional_inputs": ("krag_colony",),
    },
    ("travel", "starship travel event"): {"key": "travel.event", "slot": "starship_travel_events", "condition": "traveled"},
    ("world", "upkeep and ship repairs"): {"key": "world.upkeep", "rule": "upkeep"},
    ("world", "check for loan enforcement consequences"): {
        "key": "world.loan_enforcement",
        "rule": "loan_enforcement",
        "table": "loan-enforcement",
        "condition": "loan",
        "inputs": (("balance_before", "int", ()),),
        "optional_inputs": ("balance_before",),
    },
    ("world", "assign and resolve crew tasks"): {"key": "world.crew_tasks"},
    ("world", "determine job offers"): {"key": "world.jobs", "slot": "patron_jobs"},
    ("world", "assign equipment"): {"key": "world.equipment"},
    ("world", "resolve any rumors"): {"key": "world.rumors"},
    ("world", "choose your battle"): {"key": "world.choose_battle"},
    ("battle", "determine battle type"): {
        "key": "battle.type",
        "rule": "battle_type",
        "inputs": (("mission", "choice", MISSIONS),),
    },
    ("battle", "check for connections"): {"key": "battle.connections", "condition": "opportunity"},
    ("battle", "determine deployment conditions"): {
        "key": "battle.deployment",
        "slot": "deployment_conditions",
        "condition": "not_salvage",
    },
    ("battle", "determine notable sights"): {"key": "battle.sights", "slot": "notable_sights", "condition": "not_salvage"},
    ("battle", "determine the objective"): {"key": "battle.objective", "slot": "objectives"},
    ("battle", "determine the enemy"): {"key": "battle.enemy", "slot": "enemy_encounters"},
    ("battle", "set up the battlefield"): {"key": "battle.setup"},
    ("battle", "place points of interest and salvage"): {"key": "battle.salvage_poi", "condition": "salvage"},
    ("post-battle", "resolve rival status"): {"key": "post.rivals"},
    ("post-battle", "check for illegal psionic usage"): {
        "key": "post.psionic_detection",
        "rule": "psionic_detection",
        "table": "psionic-detection",
        "condition": "psionic_used&outlawed",
    },
    ("post-battle", "resolve patron status"): {"key": "post.patrons"},
    ("post-battle", "determine quest progress"): {"key": "post.quest"},
    ("post-battle", "get paid"): {"key": "post.paid"},
    ("post-battle", "trade salvage"): {"key": "post.trade_salvage", "condition": "salvage"},
    ("post-battle", "battlefield finds"): {"key": "post.finds", "slot": "battlefield_finds", "condition": "held_field"},
    ("post-battle", "check for salvage mission points of interest"): {"key": "post.salvage_poi", "condition": "salvage"},
    ("post-battle", "check for invasion"): {"key": "post.invasion", "slot": "invasion"},
    ("post-battle", "check for instability"): {
        "key": "post.instability",
        "rule": "instability",
        "table": "fringe-world-strife",
        "condition": "unstable",
    },
    ("post-battle", "gather the loot"): {"key": "post.loot", "slot": "loot"},
    ("post-battle", "determine injuries and recovery"): {"key": "post.injuries", "rule": "injuries", "slot": "injuries"},
    ("post-battle", "experience and character upgrades"): {"key": "post.xp", "rule": "xp"},
    ("post-battle", "invest in advanced training"): {"key": "post.training", "rule": "training"},
    ("post-battle", "purchase items"): {"key": "post.purchase", "rule": "purchase"},
    ("post-battle", "roll for a campaign event"): {"key": "post.campaign_event", "slot": "campaign_events"},
    ("post-battle", "roll for a character event"): {"key": "post.character_event", "slot": "character_events"},
    ("post-battle", "check for galactic war progress"): {"key": "post.galactic_war", "slot": "galactic_war"},
}
_ARRIVAL_ROWS: dict[str, dict[str, Any]] = {
    "check for rivals": {
        "key": "arrival.rivals",
        "rule": "rivals_follow",
        "table": "elite-rival-follows",
        "condition": "traveled",
    },
    "dismiss patrons": {"key": "arrival.patrons", "condition": "traveled"},
    "check for licensing requirements": {"key": "arrival.licensing", "condition": "traveled"},
    "world traits": {"key": "arrival.world_traits", "slot": "world_traits", "condition": "new_world&not_krag_colony"},
    "check for instability": {
        "key": "arrival.instability",
        "rule": "world_stability",
        "table": "fringe-world-stability",
        "condition": "new_world",
        "inputs": (("calm", "choice", YES_NO),),
        "optional_inputs": ("calm",),
    },
    "check for psionic legality status": {
        "key": "arrival.psionic_legality",
        "rule": "psionic_legality",
        "table": "psionic-legality",
        "condition": "new_world",
    },
}
_ARRIVAL_ROW_TITLE = "new world arrival steps"


def _extra_steps(view: CampaignView) -> dict[str, tuple[str, StepSpec]]:
    """Steps not in the sequence tables: key -> (placement, spec). Placement is
    ``"after:<key>"``, ``"before:<key>"`` or ``"first:arrival"`` / ``"end"``."""
    options = view.options
    record_inputs = tuple(
        item
        for item in _BATTLE_RECORD_INPUTS
        if (item[0] != "psionic_uses" or options.crew_psionics)
        and (item[0] != "roving_threat" or options.fringe_world_strife)
        and (item[0] not in ("faction_job", "affiliated", "faction_enemy") or options.expanded_factions)
    )
    return {
        "arrival.world": (
            "first:arrival",
            StepSpec(
                "arrival.world",
                "travel",
                "Name the new world",
                "pp.157-158",
                rule="new_world",
                table="names-world-1",
                condition="new_world",
                inputs=(("name", "text", ()),),
                optional_inputs=("name",),
            ),
        ),
        "travel.research": (
            "after:travel.decide",
            StepSpec(
                "travel.research",
                "travel",
                "Scientific Research System",
                "p.27",
                rule="research",
                table="scientific-research-system",
                condition="traveled",
            ),
        ),
        "arrival.factions": (
            "after:arrival.world_traits",
            StepSpec(
                "arrival.factions",
                "travel",
                "Generate Factions",
                "p.110",
                option="expanded_factions",
                rule="factions_generate",
                table="faction-type",
                condition="new_world",
            ),
        ),
        "world.faction_job": (
            "before:world.crew_tasks",
            StepSpec(
                "world.faction_job",
                "world",
                "Check for a Faction job",
                "p.111",
                option="expanded_factions",
                rule="faction_job",
                condition="factions",
                inputs=(("faction", "faction", ()),),
                optional_inputs=("faction",),
            ),
        ),
        "battle.elite": (
            "before:battle.enemy",
            StepSpec(
                "battle.elite",
                "battle",
                "Elite-level enemies?",
                "p.48",
                option="elite_enemies",
                rule="elite_check",
                table="elite-encounter-roll",
                condition="not_salvage",
            ),
        ),
        "battle.brief": (
            "end:battle",
            StepSpec("battle.brief", "battle", "Battle brief: this battle's adjustments", "p.9", rule="battle_brief"),
        ),
        "battle.record": (
            "end:battle",
            StepSpec(
                "battle.record",
                "battle",
                "Record the battle",
                "p.9",
                rule="battle_record",
                inputs=record_inputs,
                optional_inputs=tuple(n for n, _k, _c in record_inputs if n not in ("won", "held_field")),
            ),
        ),
        "post.faction_loyalty": (
            "after:post.patrons",
            StepSpec(
                "post.faction_loyalty",
                "post-battle",
                "Faction Loyalty",
                "p.112",
                option="expanded_factions",
                rule="faction_loyalty",
                condition="faction_job_won",
            ),
        ),
        "post.faction_activity": (
            "after:post.invasion",
            StepSpec(
                "post.faction_activity",
                "post-battle",
                "Faction activities",
                "p.113",
                option="expanded_factions",
                rule="faction_activity",
                table="faction-activity",
                condition="factions&not_invaded",
            ),
        ),
        "post.faction_event": (
            "after:post.character_event",
            StepSpec(
                "post.faction_event",
                "post-battle",
                "Faction event",
                "p.114",
                option="expanded_factions",
                rule="faction_event",
                table="faction-events",
                condition="factions",
            ),
        ),
        "post.story_track": (
            "end:post-battle",
            StepSpec("post.story_track", "post-battle", "Story Track", "core p.153", option="story_track"),
        ),
        "post.tutorial_done": (
            "end:post-battle",
            StepSpec(
                "post.tutorial_done",
                "post-battle",
                "Tutorial complete",
                "p.109",
                option="introductory_campaign",
                rule="tutorial_done",
                table="introductory-campaign-turns",
            ),
        ),
    }


def _option_on(options: CampaignOptions, name: str) -> bool:
    if not name:
        return True
    if name == "psionics":
        return options.crew_psionics
    if name == "elite_enemies":
        return options.elite_enemies != "never" or 2 in options.progressive
    return bool(getattr(options, name))


def _rows(tables: Mapping[str, RangeTable], slug: str) -> list[Any]:
    try:
        found = tables[slug]
    except KeyError:
        raise TurnError(f"The rule table {slug!r} is not loaded; load the Compendium fixtures.", field="tables") from None
    return sorted(found.entries, key=lambda e: (PHASES.index(e.data.get("phase", "travel")), int(e.data.get("step", 0))))


def _from_row(phase: str, entry: Any, template: Mapping[str, Any], core_step: int | None) -> StepSpec:
    option_name = str(entry.data.get("option") or "")
    page = str(entry.data.get("page") or "")
    spec: dict[str, Any] = dict(template)
    note = ""
    if option_name in ADDING_OPTIONS:
        spec["option"] = ADDING_OPTIONS[option_name]
        page = page or _FALLBACK_PAGES.get(option_name, "")
    elif option_name in VARIANT_OPTIONS:
        note = f"May use {option_name} ({page})."
        page = ""
    elif option_name:
        known = ", ".join([*ADDING_OPTIONS, *VARIANT_OPTIONS])
        raise TurnError(f"Turn sequence option {option_name!r} is not known; known options are {known}.", field="tables")
    return StepSpec(
        phase=phase,
        title=entry.result,
        source=page if page and core_step is None else "core",
        core_step=core_step,
        note=note,
        **spec,
    )


def intro_turn(view: CampaignView, tables: Mapping[str, RangeTable]) -> Mapping[str, Any] | None:
    """The introductory-campaign-turns row data for this turn (p.104-109), or None when the
    option is off or the turn is past the tutorial."""
    if not view.options.introductory_campaign:
        return None
    for entry in _rows(tables, "introductory-campaign-turns"):
        if int(entry.data.get("turn", -1)) == view.turn:
            return dict(entry.data)
    return None


def plan_turn(view: CampaignView, tables: Mapping[str, RangeTable]) -> tuple[StepSpec, ...]:
    """The whole campaign turn ``view.turn`` in order (p.9), with the steps the options bring.

    See the module docstring for what is added and for the Introductory Campaign ruling.
    Raises :class:`TurnError` (field ``turn``) for a turn below 1 and (field ``tables``) when
    the sequence tables are missing or name an unknown option.
    """
    if view.turn < 1:
        raise TurnError(
            f"turn must be 1 or more; got {view.turn} (the Introductory Campaign's first fight is part of set-up).",
            field="turn",
        )
    steps: list[StepSpec] = []
    core_counter = {phase: 0 for phase in PHASES}
    arrival_parent = 0
    for entry in _rows(tables, "campaign-turn-sequence"):
        phase = str(entry.data["phase"])
        title = entry.result.strip().lower()
        compendium_only = bool(entry.data.get("optional")) and str(entry.data.get("option") or "") in ADDING_OPTIONS
        core_step = None
        if not compendium_only:
            core_counter[phase] += 1
            core_step = core_counter[phase]
        if phase == "travel" and title == _ARRIVAL_ROW_TITLE:
            arrival_parent = core_step or 0
            for sub in _rows(tables, "new-world-arrival-steps"):
                sub_title = sub.result.strip().lower()
                if sub_title not in _ARRIVAL_ROWS:
                    raise TurnError(f"New world arrival step {sub.result!r} is not known.", field="tables")
                sub_only = bool(sub.data.get("optional")) and str(sub.data.get("option") or "") in ADDING_OPTIONS
                steps.append(_from_row("travel", sub, _ARRIVAL_ROWS[sub_title], None if sub_only else arrival_parent))
            continue
        if (phase, title) not in _TURN_ROWS:
            raise TurnError(f"Turn sequence step {entry.result!r} ({phase}) is not known.", field="tables")
        steps.append(_from_row(phase, entry, _TURN_ROWS[(phase, title)], core_step))

    for placement, spec in _extra_steps(view).values():
        where, _, target = placement.partition(":")
        if where == "first":
            index = next(i for i, s in enumerate(steps) if s.key.startswith(f"{target}."))
        elif where == "end":
            index = max(i for i, s in enumerate(steps) if s.phase == target) + 1
        else:
            index = [s.key for s in steps].index(target) + (1 if where == "after" else 0)
        steps.insert(index, spec)
    anchors = _anchors(steps, arrival_parent)

    options = view.options
    intro = intro_turn(view, tables)
    tutorial_over = intro is None or bool(intro.get("full_sequence"))
    kept: list[StepSpec] = []
    for spec in steps:
        if not _option_on(options, spec.option):
            continue
        if spec.key == "travel.research" and RESEARCH_COMPONENT not in view.ship_components:
            continue
        if spec.key == "post.tutorial_done" and not (intro is not None and intro.get("full_sequence")):
            continue
        if spec.key == "post.story_track" and options.introductory_campaign and view.turn <= 5:
            continue
        if not tutorial_over and intro is not None and not _intro_keeps(spec, anchors.get(spec.key, -1), intro):
            continue
        kept.append(_intro_note(spec, intro) if intro is not None and not tutorial_over else spec)
    return tuple(kept)


def _anchors(steps: Sequence[StepSpec], arrival_parent: int) -> dict[str, int]:
    """The core step each step hangs on: its own number, travel step 4 for arrival steps, else
    the nearest core step before it in its phase (0 when none)."""
    anchors: dict[str, int] = {}
    last = dict.fromkeys(PHASES, 0)
    for spec in steps:
        if spec.key.startswith("arrival."):
            anchors[spec.key] = arrival_parent
        elif spec.core_step is not None:
            anchors[spec.key] = last[spec.phase] = spec.core_step
        else:
            anchors[spec.key] = last[spec.phase]
    return anchors


_INTRO_LISTS = {"travel": "travel_steps", "world": "world_steps", "post-battle": "post_battle_steps"}


def _intro_keeps(spec: StepSpec, anchor: int, intro: Mapping[str, Any]) -> bool:
    if "salvage" in spec.condition.split("&"):
        return False  # the tutorial sets every mission, never a Salvage job
    if spec.phase == "battle":
        if spec.key in ("battle.connections", "battle.salvage_poi", "battle.elite"):
            return False
        if spec.key == "battle.deployment":
            return bool(intro.get("deployment_conditions"))
        if spec.key == "battle.sights":
            return bool(intro.get("notable_sights"))
        return True
    listed = intro.get(_INTRO_LISTS[spec.phase])
    if listed is None:
        return True
    return anchor in {int(n) for n in listed}


def _intro_note(spec: StepSpec, intro: Mapping[str, Any]) -> StepSpec:
    turn = intro.get("turn")
    notes: list[str] = []
    if spec.key == "world.upkeep" and intro.get("world_step_1_only"):
        notes.append(f"Tutorial turn {turn}: {intro['world_step_1_only']} only.")
    if spec.key == "world.crew_tasks" and intro.get("crew_tasks"):
        notes.append(f"Tutorial turn {turn}: tasks limited to {', '.join(intro['crew_tasks'])}.")
    if spec.key == "travel.decide" and intro.get("travel_steps"):
        notes.append(
            f"Tutorial turn {turn}: you travel this turn"
            + (", free of travel costs." if intro.get("travel_cost_waived") else ".")
        )
    if spec.key in ("battle.type", "battle.objective") and intro.get("mission"):
        notes.append(f"Tutorial turn {turn}: mission {intro['mission']}.")
    if spec.key == "battle.enemy" and intro.get("enemy_combat_skill_max") is not None:
        notes.append(f"Tutorial turn {turn}: enemy Combat Skill at most +{intro['enemy_combat_skill_max']}.")
    if spec.key == "battle.setup":
        modifier = intro.get("seize_initiative_modifier")
        if modifier:
            notes.append(f"Tutorial turn {turn}: Seize the Initiative {int(modifier):+d}.")
        if not intro.get("unique_individuals"):
            notes.append("No Unique Individuals.")
        if intro.get("enemies_start_in_cover"):
            notes.append("Enemies start in Cover.")
    if spec.key == "post.finds":
        notes.append("Only if you Held the Field.")
    if spec.key == "battle.enemy" and int(turn or 0) <= 3:
        notes.append(f"Tutorial turn {turn}: use the tutorial's enemies.")
        spec = replace(spec, table="introductory-campaign-enemies")
    if not notes:
        return spec
    return replace(spec, note=" ".join([spec.note, *notes]).strip())


# -- conditions ----------------------------------------------------------------------------


def _battle(view: CampaignView, facts: Mapping[str, Any]) -> Mapping[str, Any] | None:
    found = facts.get("battle")
    if isinstance(found, Mapping):
        return found
    if view.battle is not None:
        return asdict(view.battle)
    return None


def _term(term: str, view: CampaignView, facts: Mapping[str, Any]) -> bool:
    battle = _battle(view, facts)
    mission = str(facts.get("mission") or (battle or {}).get("mission") or "")
    if term == "traveled":
        return bool(facts.get("traveled"))
    if term == "new_world":
        if "new_world" in facts:
            return bool(facts["new_world"])
        return bool(facts.get("traveled")) or not view.world.name
    if term == "krag_colony":
        return bool(facts.get("krag_colony"))
    if term == "invaded":
        return bool(facts.get("invaded", view.world.invaded))
    if term in ("salvage", "opportunity"):
        return mission == term
    if term == "battle_fought":
        return battle is not None
    if term in ("won", "held_field"):
        return bool((battle or {}).get(term))
    if term == "psionic_used":
        return int((battle or {}).get("psionic_uses") or 0) > 0
    if term == "outlawed":
        return str(facts.get("psionic_legality", view.world.psionic_legality)) == "outlawed"
    if term == "unstable":
        return bool(facts.get("unstable", view.world.unstable))
    if term == "loan":
        return view.loan_balance is not None
    if term == "factions":
        return int(facts.get("factions_count", len(view.factions))) > 0
    if term == "faction_job_won":
        return bool(facts.get("faction_job")) and bool((battle or {}).get("won"))
    raise TurnError(
        f"Unknown condition {term!r}; conditions are {', '.join(CONDITION_TERMS)} (or not_<term>).", field="condition"
    )


def applies(step: StepSpec, view: CampaignView, facts: Mapping[str, Any]) -> bool:
    """Whether ``step`` applies now, given the ``facts`` recorded by this turn's earlier steps.

    Raises :class:`TurnError` (field ``condition``) for a condition term not in
    :data:`CONDITION_TERMS`.
    """
    if not step.condition:
        return True
    for raw in step.condition.split("&"):
        term = raw.strip()
        negate = term.startswith("not_")
        result = _term(term[4:] if negate else term, view, facts)
        if result == negate:
            return False
    return True


# -- resolving ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Ctx:
    step: StepSpec
    view: CampaignView
    tables: Mapping[str, RangeTable]
    dice: Dice
    value: int | None
    inputs: Mapping[str, Any]
    facts: Mapping[str, Any]

    @property
    def faces(self) -> list[int] | None:
        raw = self.inputs.get("faces")
        if raw in (None, "", []):
            return None
        items = [raw] if isinstance(raw, (int, str)) else list(raw)
        try:
            return [int(v) for v in items]
        except (TypeError, ValueError):
            raise TurnError(f"faces must be whole numbers (die faces in the order asked); got {raw!r}.", field="faces") from None

    def missing(self) -> tuple[str, ...]:
        return tuple(
            name
            for name, _kind, _choices in self.step.inputs
            if name not in self.step.optional_inputs and self.inputs.get(name) in (None, "")
        )

    def battle(self) -> Mapping[str, Any]:
        return _battle(self.view, self.facts) or {}


def _yes_no(name: str, raw: Any, default: bool = False) -> bool:
    if raw is None or raw == "":
        return default
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("yes", "true", "1", "on", "y"):
        return True
    if text in ("no", "false", "0", "off", "n"):
        return False
    raise TurnError(f"{name} must be one of yes, no; got {raw!r}.", field=name)


def _choice(name: str, raw: Any, choices: Sequence[str], default: str = "") -> str:
    if raw is None or raw == "":
        if default:
            return default
        raise TurnError(f"{name} must be one of {', '.join(choices)}; got nothing.", field=name)
    text = str(raw).strip().lower()
    if text not in choices:
        raise TurnError(f"{name} must be one of {', '.join(choices)}; got {raw!r}.", field=name)
    return text


def _count(name: str, raw: Any) -> int:
    if raw is None or raw == "":
        return 0
    try:
        number = int(raw)
    except (TypeError, ValueError):
        number = -1
    if number < 0 or isinstance(raw, bool):
        raise TurnError(f"{name} must be a whole number, 0 or more; got {raw!r}.", field=name)
    return number


def _faction(ctx: _Ctx, name: str) -> FactionView | None:
    raw = ctx.inputs.get(name)
    if raw in (None, ""):
        return None
    for faction in ctx.view.factions:
        if faction.name.lower() == str(raw).strip().lower():
            return faction
    known = ", ".join(f.name for f in ctx.view.factions) or "none"
    raise TurnError(f"{name} must be one of the Factions here ({known}); got {raw!r}.", field=name)


def _rule_travel_decide(ctx: _Ctx) -> StepResult:
    traveled = _yes_no("travel", ctx.inputs.get("travel"))
    visit = _choice("krag_colony", ctx.inputs.get("krag_colony"), KRAG_VISIT, "no")
    changes: list[Change] = []
    if visit != "no" and not traveled:
        raise TurnError("krag_colony needs travel: yes (visiting a Krag colony is a journey).", field="krag_colony")
    text = "You travel to a new world." if traveled else "You stay on this world."
    if visit != "no":
        colony = world.krag_colony(ctx.tables)
        text = "You travel to a known Krag colony (Busy Markets and Vendetta System)."
        if visit == "new":
            cost = int(colony.get("story_points", 1))
            if ctx.view.story_points < cost:
                raise TurnError(
                    f"krag_colony 'new' costs {cost} story point(s); you have {ctx.view.story_points}. Choose no or known.",
                    field="krag_colony",
                )
            changes.append(Change("story_points", {"amount": -cost}))
            text = f"You add a Krag colony to your known worlds ({cost} story point) and travel there."
    facts = {"traveled": traveled, "krag_colony": visit != "no", "new_world": traveled or not ctx.view.world.name}
    return StepResult(text, changes=tuple(changes), facts=facts)


def _rule_research(ctx: _Ctx) -> StepResult:
    if RESEARCH_COMPONENT not in ctx.view.ship_components:
        raise TurnError(f"ship_components lacks the {RESEARCH_COMPONENT}.", field="ship_components")
    roller = world.Roller(ctx.dice, ctx.faces)
    roll = roller.table(ctx.tables, "scientific-research-system", value=ctx.value, reason="Scientific Research System")
    data = roll.entry.data
    changes: list[Change] = []
    if int(data.get("credits") or 0):
        changes.append(Change("credits", {"amount": int(data["credits"])}))
    for _ in range(int(data.get("quest_rumors") or 0)):
        changes.append(Change("rumor_add", {"text": "Quest Rumor from the Scientific Research System"}))
    return StepResult(f"Research: {roll.entry.result}.", tuple(roller.records), tuple(changes))


def _rule_new_world(ctx: _Ctx) -> StepResult:
    name = str(ctx.inputs.get("name") or "")
    made = world.new_world(ctx.tables, ctx.dice, name=name, is_krag_colony=bool(ctx.facts.get("krag_colony")))
    text = f"You arrive at {made.name}."
    if made.traits:
        text += f" A Krag colony: {', '.join(made.traits)}."
    return StepResult(text, made.rolls, (made.change(),), {"world_name": made.name})


def _rule_rivals_follow(ctx: _Ctx) -> StepResult:
    roller = world.Roller(ctx.dice, ctx.faces)
    changes: list[Change] = []
    lines: list[str] = []
    elite = [r for r in ctx.view.rivals if r.elite and not r.collector]
    for index, rival in enumerate(elite):
        roll = roller.table(
            ctx.tables, "elite-rival-follows", value=ctx.value if index == 0 else None, reason=f"Does {rival.name} follow?"
        )
        if roll.entry.data.get("follows"):
            lines.append(f"{rival.name} (elite) follows you.")
        else:
            lines.append(f"{rival.name} (elite) stays behind.")
            changes.append(Change("rival_remove", {"name": rival.name}))
    collectors = [r.name for r in ctx.view.rivals if r.collector]
    if collectors:
        lines.append(f"Loan collection squads always follow: {', '.join(collectors)}.")
    others = [r.name for r in ctx.view.rivals if not r.elite and not r.collector]
    if others:
        lines.append(f"Other Rivals ({', '.join(others)}): check them with the core rules.")
    if not lines:
        lines.append("You have no Rivals to check.")
    return StepResult(" ".join(lines), tuple(roller.records), tuple(changes))


def _rule_factions_fleeing(ctx: _Ctx) -> StepResult:
    out = world.factions_flee(ctx.view.factions, ctx.tables, ctx.dice, faces=_front(ctx))
    return StepResult(out.text, out.rolls, out.changes, out.facts)


def _front(ctx: _Ctx) -> list[int] | None:
    """``value`` in front of the typed faces (rules whose first die is not a table roll)."""
    faces = ctx.faces or []
    if ctx.value is not None:
        faces = [ctx.value, *faces]
    return faces or None


def _rule_factions_generate(ctx: _Ctx) -> StepResult:
    traveled = bool(ctx.facts.get("traveled"))
    fled = set(ctx.facts.get("factions_fled") or ())
    changes: list[Change] = []
    kept: list[str] = []
    for faction in ctx.view.factions:
        if traveled and faction.name not in fled:
            changes.append(Change("faction_remove", {"name": faction.name}))
        else:
            kept.append(faction.name)
    out = world.factions_generate(ctx.tables, ctx.dice, taken=kept, faces=_front(ctx))
    made = list(out.facts.get("factions", ()))
    text = out.text
    if not traveled:
        text += " Starting here, you may put one of them at Loyalty 1."
    facts = {"factions_count": len(kept) + len(made), "native_loyalty_choice": not traveled}
    return StepResult(text, out.rolls, tuple(changes) + out.changes, facts)


def _rule_world_stability(ctx: _Ctx) -> StepResult:
    calm = _yes_no("calm", ctx.inputs.get("calm"))
    found = world.world_stability(ctx.tables, ctx.dice, value=ctx.value, calm=calm)
    text = (
        f"The world is Unstable (Instability {found.instability})."
        if found.unstable
        else f"The world is stable (needed {found.target}+)."
    )
    change = Change("world", {"unstable": found.unstable, "instability": found.instability, "strife": ""})
    return StepResult(text, (found.roll,), (change,), {"unstable": found.unstable, "instability": found.instability})


def _rule_psionic_legality(ctx: _Ctx) -> StepResult:
    status, roll = world.psionic_legality(ctx.tables, ctx.dice, value=ctx.value)
    text = f"Psionics here: {roll.entry.result}. {roll.entry.effect}".strip()
    return StepResult(text, (roll.record,), (Change("world", {"psionic_legality": status}),), {"psionic_legality": status})


def _rule_loan_enforcement(ctx: _Ctx) -> StepResult:
    if ctx.view.loan_terms is None:
        raise TurnError("loan_terms are missing: roll the loan at set-up (Loans option) first.", field="loan_terms")
    raw_before = ctx.inputs.get("balance_before", ctx.facts.get("loan_balance_before"))
    if raw_before in (None, ""):
        return StepResult("How much did you owe before this turn's Upkeep?", needs=("balance_before",))
    try:
        before = int(raw_before)
    except (TypeError, ValueError):
        raise TurnError(f"balance_before must be whole credits; got {raw_before!r}.", field="balance_before") from None
    terms = world.LoanTerms.from_dict(ctx.view.loan_terms)
    after = ctx.view.loan_balance or 0
    out = world.loan_enforcement(
        terms, before, after, ctx.tables, ctx.dice, values=() if ctx.value is None else (ctx.value,), faces=ctx.faces
    )
    facts = {"loan_enforcement": list(out.methods), "loan_balance": out.balance}
    return StepResult(out.text, out.rolls, out.changes, facts)


def _rule_faction_job(ctx: _Ctx) -> StepResult:
    faction = _faction(ctx, "faction")
    if faction is None:
        return StepResult("No Faction job check this turn.")
    offered, record, text = world.faction_job_check(faction, ctx.tables, ctx.dice, turn=ctx.view.turn, value=ctx.value)
    rolls = () if record is None else (record,)
    return StepResult(text, rolls, facts={"faction_job_offer": faction.name if offered else ""})


def _rule_battle_type(ctx: _Ctx) -> StepResult:
    mission = _choice("mission", ctx.inputs.get("mission"), MISSIONS)
    return StepResult(f"This turn's battle: a {mission.capitalize()} mission.", facts={"mission": mission})


def _rule_battle_record(ctx: _Ctx) -> StepResult:
    inputs = ctx.inputs
    mission = str(ctx.facts.get("mission") or (ctx.view.battle.mission if ctx.view.battle else "opportunity"))
    won = _yes_no("won", inputs.get("won"))
    held = _yes_no("held_field", inputs.get("held_field"))
    uses = _count("psionic_uses", inputs.get("psionic_uses"))
    if uses and not any(c.psionic for c in ctx.view.active_crew):
        raise TurnError(f"psionic_uses must be 0: nobody in the crew is a Psionic; got {uses}.", field="psionic_uses")
    raw_casualties = inputs.get("casualties") or ()
    casualties = tuple(str(c) for c in ([raw_casualties] if isinstance(raw_casualties, str) else raw_casualties))
    crew_ids = {c.id for c in ctx.view.crew}
    unknown = [c for c in casualties if crew_ids and c not in crew_ids]
    if unknown:
        raise TurnError(f"casualties must be crew ids ({', '.join(sorted(crew_ids))}); got {unknown[0]!r}.", field="casualties")
    enemy = str(inputs.get("enemy") or "").strip()
    battle = BattleView(
        mission=mission,
        won=won,
        held_field=held,
        psionic_uses=uses,
        elite=_yes_no("elite", inputs.get("elite")),
        enemy=enemy,
        casualties=casualties,
    )
    facts: dict[str, Any] = {"battle": {**asdict(battle), "casualties": list(casualties)}}
    changes: list[Change] = []
    facts["roving_threat"] = _yes_no("roving_threat", inputs.get("roving_threat"))
    job = _faction(ctx, "faction_job")
    facts["faction_job"] = job.name if job else ""
    facts["affiliated"] = _yes_no("affiliated", inputs.get("affiliated"))
    target = _faction(ctx, "faction_enemy")
    if target is not None:
        changes.append(Change("faction", {"name": target.name, "attacked_turn": ctx.view.turn}))
    outcome = "won" if won else "lost"
    text = f"{mission.capitalize()} mission {outcome}" + (", field held." if held else ".")
    if uses:
        text += f" Psionic powers used {uses} time(s)."
    return StepResult(text, changes=tuple(changes), facts=facts)


def _rule_psionic_detection(ctx: _Ctx) -> StepResult:
    uses = int(ctx.battle().get("psionic_uses") or 0)
    legality = str(ctx.facts.get("psionic_legality", ctx.view.world.psionic_legality))
    if uses <= 0 or legality != "outlawed":
        return StepResult("No risk of detection: no powers used here, or Psionics are not outlawed.")
    rows = sorted(world.table(ctx.tables, "psionic-detection").entries, key=lambda e: e.position)
    if len(rows) < 2:
        raise TurnError("Table 'psionic-detection' needs its once and several-times rows.", field="tables")
    chosen = rows[0] if uses == 1 else rows[1]
    roller = world.Roller(ctx.dice, _front(ctx))
    record = roller.roll(str(chosen.data.get("roll", "D6")), "Psionic detection")
    limit = int(chosen.data["detected_max"])
    if (record.total or 0) > limit:
        text = f"Detection roll {record.total} (detected on {'1' if limit == 1 else f'1-{limit}'}): nobody noticed."
        return StepResult(text, tuple(roller.records), facts={"psionic_detected": False})
    hunters = roller.table(ctx.tables, "psi-hunter-rivals", reason="Psi-hunter type")
    kind = hunters.entry.result
    notes = f"Psi-hunters; generate them as {kind} (core p.{hunters.entry.data.get('core_page', '')})."
    change = Change("rival_add", {"name": f"{kind} (psi-hunters)", "kind": kind, "psi_hunter": True, "notes": notes})
    text = f"Detected! Psi-hunters are on your tail: {kind}."
    return StepResult(text, tuple(roller.records), (change,), {"psionic_detected": True})


def _rule_faction_loyalty(ctx: _Ctx) -> StepResult:
    name = str(ctx.facts.get("faction_job") or "")
    if not name or not ctx.battle().get("won"):
        return StepResult("No Faction job won this turn.")
    faction = next((f for f in ctx.view.factions if f.name == name), None)
    if faction is None:
        raise TurnError(f"faction_job {name!r} is not a Faction here.", field="faction_job")
    gained, record = world.faction_loyalty_gain(
        faction, ctx.tables, ctx.dice, affiliated=bool(ctx.facts.get("affiliated")), value=ctx.value
    )
    changes = (Change("faction", {"name": name, "loyalty": gained}),) if gained else ()
    text = f"Loyalty with {name} +{gained}." if gained else f"Loyalty with {name} stays at {faction.loyalty}."
    return StepResult(text, (record,), changes)


def _rule_faction_activity(ctx: _Ctx) -> StepResult:
    out = world.faction_activity(
        ctx.view.factions,
        ctx.tables,
        ctx.dice,
        turn=ctx.view.turn,
        job_faction=str(ctx.facts.get("faction_job") or ""),
        affiliated=bool(ctx.facts.get("affiliated")),
        job_won=bool(ctx.battle().get("won")),
        strife=ctx.view.world.strife,
        value=ctx.value,
        faces=ctx.faces,
    )
    return StepResult(out.text, out.rolls, out.changes, out.facts)


def _rule_instability(ctx: _Ctx) -> StepResult:
    battle = ctx.battle()
    mission = str(ctx.facts.get("mission") or battle.get("mission") or "")
    out = world.instability_check(
        int(ctx.facts.get("instability", ctx.view.world.instability)),
        ctx.tables,
        ctx.dice,
        rivals_here=len(ctx.view.rivals),
        patron_job=mission == "patron" and bool(battle.get("won")),
        held_vs_roving=bool(ctx.facts.get("roving_threat")) and bool(battle.get("held_field")),
        factions=ctx.view.factions if ctx.view.options.expanded_factions else (),
        strife_value=ctx.value,
        faces=ctx.faces,
    )
    facts = {"instability": out.after, "strife": out.strife, "unstable": not out.stops_tracking}
    return StepResult(out.text, out.rolls, out.changes, facts)


def _rule_faction_event(ctx: _Ctx) -> StepResult:
    out = world.faction_event(
        ctx.view.factions,
        ctx.tables,
        ctx.dice,
        turn=ctx.view.turn,
        rival_names=[r.name for r in ctx.view.rivals],
        value=ctx.value,
        faces=ctx.faces,
    )
    return StepResult(out.text, out.rolls, out.changes, out.facts)


def _rule_tutorial_done(ctx: _Ctx) -> StepResult:
    intro = intro_turn(ctx.view, ctx.tables) or {}
    points = int(intro.get("story_points") or 0)
    changes = (Change("story_points", {"amount": points}),) if points else ()
    text = f"Tutorial complete: +{points} story points."
    if ctx.view.options.story_track and intro.get("story_track_ticks"):
        text += f" Set the Story Track clock to {intro['story_track_ticks']} Ticks."
    return StepResult(text, changes=changes)


_RULES: dict[str, Callable[[_Ctx], StepResult]] = {
    "travel_decide": _rule_travel_decide,
    "research": _rule_research,
    "factions_fleeing": _rule_factions_fleeing,
    "new_world": _rule_new_world,
    "rivals_follow": _rule_rivals_follow,
    "factions_generate": _rule_factions_generate,
    "world_stability": _rule_world_stability,
    "psionic_legality": _rule_psionic_legality,
    "loan_enforcement": _rule_loan_enforcement,
    "faction_job": _rule_faction_job,
    "battle_type": _rule_battle_type,
    "battle_record": _rule_battle_record,
    "psionic_detection": _rule_psionic_detection,
    "faction_loyalty": _rule_faction_loyalty,
    "faction_activity": _rule_faction_activity,
    "instability": _rule_instability,
    "faction_event": _rule_faction_event,
    "tutorial_done": _rule_tutorial_done,
}


def resolve(
    step: StepSpec,
    view: CampaignView,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    value: int | None = None,
    inputs: Mapping[str, Any] | None = None,
    facts: Mapping[str, Any] | None = None,
) -> StepResult:
    """Run ``step``'s engine rule.

    ``value`` is the player's physical roll (natural total) for the step's main table; other
    dice of the rule may be typed in ``inputs["faces"]`` in the order the rule asks for them
    (see each rule; for rules whose first die is not the main table, ``value`` is that first
    die). ``inputs`` holds the step's inputs (see :attr:`StepSpec.inputs`); ``facts`` the facts
    recorded earlier this turn. When a required input is missing the result lists it in
    ``needs`` and nothing is rolled.

    Raises :class:`TurnError` naming the field and allowed values for a bad input, an input the
    step does not take, a roll the dice cannot show, or a step whose rule is not an engine rule
    (service rules: :data:`SERVICE_RULES`).
    """
    if step.rule in SERVICE_RULES:
        raise TurnError(f"Step {step.key} ({step.rule}) is resolved by the service, not the turn engine.", field="rule")
    handler = _RULES.get(step.rule)
    if handler is None:
        raise TurnError(
            f"Step {step.key} has no engine rule; rules are {', '.join(ENGINE_RULES)}; got {step.rule!r}.", field="rule"
        )
    given = dict(inputs or {})
    allowed = {name for name, _k, _c in step.inputs} | {"faces"}
    unknown = sorted(set(given) - allowed)
    if unknown:
        raise TurnError(f"Step {step.key} takes inputs {', '.join(sorted(allowed))}; got {unknown[0]!r}.", field=unknown[0])
    ctx = _Ctx(step, view, tables, dice, value, given, dict(facts or {}))
    needs = ctx.missing()
    if needs:
        return StepResult(f"{step.title}: needs {', '.join(needs)}.", needs=needs)
    try:
        return handler(ctx)
    except world.WorldError as exc:
        raise TurnError(exc.message, field="value" if exc.field == "faces" and ctx.value is not None else exc.field) from exc
    except (TableError, DiceError) as exc:
        raise TurnError(str(exc), field="value") from exc
