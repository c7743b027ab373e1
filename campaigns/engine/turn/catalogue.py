"""The catalogue of turn steps: :func:`plan_turn` builds a turn's steps from the
``campaign-turn-sequence`` and ``new-world-arrival-steps`` tables (Compendium p.9) and the
Introductory Campaign's ``introductory-campaign-turns`` rows (pp.104-109).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from campaigns.engine import connections
from campaigns.engine.options import CampaignOptions
from campaigns.engine.turn.steps import KRAG_VISIT, MISSIONS, PHASES, RESEARCH_COMPONENT, YES_NO, Input, StepSpec, TurnError
from campaigns.engine.view import CampaignView
from rules.engine.tables import RangeTable

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
    ("kills", "count", ()),
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
        "inputs": (("mission", "choice", MISSIONS), ("rival", "rival", ())),
        "optional_inputs": ("rival",),
    },
    ("battle", "check for connections"): {"key": "battle.connections", "condition": "opportunity"},
    ("battle", "determine deployment conditions"): {
        "key": "battle.deployment",
        "slot": "deployment_conditions",
        "condition": "not_salvage&not_pvp",  # none in a PvP battle (p.36)
    },
    ("battle", "determine notable sights"): {"key": "battle.sights", "slot": "notable_sights", "condition": "not_salvage"},
    ("battle", "determine the objective"): {"key": "battle.objective", "slot": "objectives"},
    # The meeting rolls the enemy of a PvP battle (the other crew) and of a co-op battle (its waves, p.40).
    ("battle", "determine the enemy"): {"key": "battle.enemy", "slot": "enemy_encounters", "condition": "not_pvp&not_coop"},
    ("battle", "set up the battlefield"): {"key": "battle.setup"},
    ("battle", "place points of interest and salvage"): {"key": "battle.salvage_poi", "condition": "salvage"},
    ("post-battle", "resolve rival status"): {"key": "post.rivals", "condition": "not_pvp"},  # PvP makes no Rivals (p.37)
    ("post-battle", "check for illegal psionic usage"): {
        "key": "post.psionic_detection",
        "rule": "psionic_detection",
        "table": "psionic-detection",
        "condition": "psionic_used&outlawed",
    },
    ("post-battle", "resolve patron status"): {"key": "post.patrons"},
    ("post-battle", "determine quest progress"): {
        "key": "post.quest",
        "rule": "quest_progress",
        "table": "expanded-quest-progression",
    },
    ("post-battle", "get paid"): {"key": "post.paid"},
    ("post-battle", "trade salvage"): {"key": "post.trade_salvage", "condition": "salvage"},
    ("post-battle", "battlefield finds"): {
        "key": "post.finds",
        "slot": "battlefield_finds",
        "condition": "held_field&not_salvage&not_pvp",  # none after a Salvage job (p.146) or a PvP battle (p.37)
    },
    ("post-battle", "check for salvage mission points of interest"): {"key": "post.salvage_poi", "condition": "salvage"},
    # A Salvage job has no Battlefield Finds and no Invasion check (pp.146-147).
    ("post-battle", "check for invasion"): {"key": "post.invasion", "slot": "invasion", "condition": "not_salvage"},
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
        "battle.injuries": (
            "before:battle.setup",
            StepSpec(
                "battle.injuries",
                "battle",
                "Injuries before the battle",
                "p.101",
                option="detailed_injuries",
                rule="pre_battle_injuries",
                table="detailed-injuries-lingering",
                condition="injured_crew",
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
        **connections.EXTRA_STEPS,
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
        "post.pvp_loot": (
            "after:post.loot",
            StepSpec(
                "post.pvp_loot",
                "post-battle",
                "Bonus Loot roll (PvP: the opponent's Power Rating was 5+; co-op: the shared roll, both crews take the item)",
                "pp.37, 41",
                slot="loot",
                condition="pvp_bonus_loot",
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
        if spec.key == "battle.connections" and options.expanded_connections:
            spec = connections.check_step(spec)
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
