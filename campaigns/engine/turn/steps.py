"""The guided campaign turn, its values: phases, the rules the engine and the services resolve,
condition terms, :class:`TurnError`, :class:`StepSpec` and :class:`StepResult`
(see :mod:`campaigns.engine.turn`).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from campaigns.engine.options import OptionError
from campaigns.engine.view import Change
from rules.engine.dice import RollRecord

PHASES: tuple[str, ...] = ("travel", "world", "battle", "post-battle")
MISSIONS: tuple[str, ...] = ("patron", "rival", "quest", "opportunity", "salvage", "pvp", "coop")
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
    "quest_progress",
    "connections",
    "connection_accept",
    "connection_rewards",
)
#: Rules the service layer resolves (they need its other engines or the player's tables).
SERVICE_RULES: tuple[str, ...] = (
    "upkeep",
    "elite_check",
    "battle_brief",
    "injuries",
    "xp",
    "training",
    "purchase",
    "pre_battle_injuries",
)
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
    "injured_crew",
    "connection_offer",
    "connection",
    "pvp",
    "coop",
    "pvp_bonus_loot",
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
