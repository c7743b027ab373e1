"""Bug Hunt campaign turn and post-battle sequence (Bug Hunt pp.182-183, 201-206).

A campaign turn runs in three stages (p.182): Special Assignments, the mission, and the nine
post-battle steps (p.202). This module holds the squad between missions as frozen dataclasses
(:class:`Trooper`, :class:`Operation`, :class:`Squad`) and one function per rule, each taking
the state and returning a :class:`Result` with the new state, every roll made and plain-words
lines. The service layer calls the steps in order so the players can choose between them;
:func:`post_battle` runs all nine with a :class:`PostBattleChoices`.

The life of a campaign turn, as the functions see it:

- :func:`campaign_turn_start` marks who spends this turn in Sick Bay (``laid_up``) and lists
  who may apply for Special Assignments and who may go on the mission.
- :func:`special_assignment` (p.183) for each trooper who applies.
- the mission (``bughunt.engine.missions`` and the live tracker); it reports a
  :class:`MissionOutcome`. :func:`court_martial` when no Objective was completed (p.201).
- post-battle steps 1-9 (pp.202-206). Step 1 (:func:`casualties`) also clears the one-turn
  flags set by last turn's Military Life (brig, reprimand, special duties, Intel Corps),
  because the mission they were for is over.
- Sick Bay time counts down in step 9 (:func:`ready_for_next_turn`): every trooper who spent
  this turn in Sick Bay (``laid_up``) crosses off one turn there; a trooper hurt in this
  mission starts counting down at the end of the next turn, so "1D3 turns" means 1D3 missed
  turns.

Numbers come from the ``bh-*`` rule tables passed in as :class:`RangeTable` objects keyed by
slug. Pure Python: no Django imports.
"""

from __future__ import annotations

from bughunt.engine.campaign.losses import (
    advanced_care,
    casualties,
    clear_one_turn_flags,
    determine_reputation,
    muster_out,
    replacement,
    retire,
    update_completed_missions,
    vacancies,
)
from bughunt.engine.campaign.progress import (
    Advance,
    accept_offer,
    advance,
    advance_trooper,
    advancement_cost,
    award_experience,
    military_life,
    operational_progress,
    ready_for_next_turn,
    rest_and_recreation,
)
from bughunt.engine.campaign.sequence import TYPED_STEPS, PostBattle, PostBattleChoices, post_battle
from bughunt.engine.campaign.state import (
    CASUALTY,
    LEADERSHIP,
    LOST_MARINE,
    PROFILE_NAMES,
    RAZOR_LIZARDS,
    STATUSES,
    CampaignError,
    MissionOutcome,
    Offer,
    Operation,
    Result,
    Squad,
    Trooper,
    mission_success,
    objective_total,
)
from bughunt.engine.campaign.turn import (
    AssignmentOptions,
    TurnStart,
    assignments_available,
    campaign_turn_start,
    court_martial,
    special_assignment,
)

__all__ = [
    "CASUALTY",
    "LEADERSHIP",
    "LOST_MARINE",
    "PROFILE_NAMES",
    "RAZOR_LIZARDS",
    "STATUSES",
    "TYPED_STEPS",
    "Advance",
    "AssignmentOptions",
    "CampaignError",
    "MissionOutcome",
    "Offer",
    "Operation",
    "PostBattle",
    "PostBattleChoices",
    "Result",
    "Squad",
    "Trooper",
    "TurnStart",
    "accept_offer",
    "advance",
    "advance_trooper",
    "advanced_care",
    "advancement_cost",
    "assignments_available",
    "award_experience",
    "campaign_turn_start",
    "casualties",
    "clear_one_turn_flags",
    "court_martial",
    "determine_reputation",
    "military_life",
    "mission_success",
    "muster_out",
    "objective_total",
    "operational_progress",
    "post_battle",
    "ready_for_next_turn",
    "replacement",
    "rest_and_recreation",
    "retire",
    "special_assignment",
    "update_completed_missions",
    "vacancies",
]
