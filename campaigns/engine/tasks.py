"""Crew tasks (core rules, campaign turn step "Assign and resolve crew tasks") with what the
Compendium changes about them: the Fixer course's +1 to Find a Patron, Recruit and Track
(p.25) and Money is Tight's 1 credit for Find a Patron and Repair Your Kit (p.32).

The core rules say how each task is read; their numbers are not in our sources. A task whose
core rule rolls a die here (Find a Patron, Recruit, Track) is rolled as 1D6 plus the player's
core modifiers (``modifier``) plus the Compendium's, and the total is what the player reads in
the core rules.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from campaigns.engine.characters import Character, crew_action_bonus
from campaigns.engine.difficulty import CREW_ACTIONS, DifficultyError, crew_action_cost
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

#: Crew tasks rolled here: the ones the Fixer course adds to (p.25).
ROLLED_TASKS: tuple[str, ...] = ("find_a_patron", "recruit", "track")
#: How each task is called on screens and in the log.
TASK_NAMES: Mapping[str, str] = {
    "find_a_patron": "Find a Patron",
    "train": "Train",
    "trade": "Trade",
    "recruit": "Recruit",
    "explore": "Explore",
    "track": "Track",
    "repair_your_kit": "Repair Your Kit",
    "decoy": "Decoy",
    # Only while the Quest's Hard work step is pending (29-38, p.79; campaigns.engine.quests).
    "work_on_the_quest": "Work on the Quest",
}


@dataclass(frozen=True)
class CrewTask:
    """One crew member's task this turn.

    - ``task``: a key of :data:`CREW_ACTIONS`; ``cost``: credits it costs (Money is Tight).
    - ``record``: the 1D6 roll for a task in :data:`ROLLED_TASKS` (``None`` otherwise), its
      ``modifier`` holding the core modifiers and ``bonus`` (the Fixer's +1); ``total``.
    - ``reasons``: each modifier and cost in words, with its page.
    """

    task: str
    cost: int
    bonus: int
    record: RollRecord | None
    reasons: tuple[str, ...]

    @property
    def total(self) -> int | None:
        return None if self.record is None else self.record.total


def crew_task(
    options: CampaignOptions,
    task: str,
    character: Character,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    modifier: int = 0,
    face: int | None = None,
) -> CrewTask:
    """Resolve ``character``'s crew task ``task`` (a key of :data:`CREW_ACTIONS`): its cost in
    credits with Money is Tight (p.32) and, for :data:`ROLLED_TASKS`, a 1D6 roll (``face``: the
    player's die) + ``modifier`` (core modifiers) + the Fixer's +1 (p.25). Paying is the
    caller's job. Raises :class:`DifficultyError` (field ``task``) for an unknown task and
    (field ``modifier``) for a modifier outside -10..10."""
    if task not in CREW_ACTIONS:
        raise DifficultyError(f"task must be one of {', '.join(CREW_ACTIONS)}; got {task!r}.", field="task")
    if not -10 <= modifier <= 10:
        raise DifficultyError(f"modifier must be -10 to 10 (your core rules' modifiers); got {modifier}.", field="modifier")
    cost = crew_action_cost(options, task, tables=tables)
    reasons: list[str] = []
    if cost:
        reasons.append(f"{cost} credit (Money is Tight, p.32)")
    if task not in ROLLED_TASKS:
        return CrewTask(task, cost, 0, None, tuple(reasons))
    bonus = crew_action_bonus(character, TASK_NAMES[task], tables)
    if bonus:
        reasons.append(f"{bonus:+d} Fixer (p.25)")
    if modifier:
        reasons.append(f"{modifier:+d} core modifiers")
    reason = f"{TASK_NAMES[task]}: {character.name}" + (f" ({', '.join(reasons)})" if reasons else "")
    record = dice.roll_or_enter("1D6", reason, faces=face, modifier=modifier + bonus)
    return CrewTask(task, cost, bonus, record, tuple(reasons))
