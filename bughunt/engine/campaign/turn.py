"""The start of a campaign turn (Bug Hunt p.182), Special Assignments (p.183) and the court
martial (p.201)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bughunt.engine.campaign.state import PROFILE_NAMES, CampaignError, Result, Squad, Trooper, _raise_stat, _roll, _table
from rules.engine.dice import Dice
from rules.engine.tables import Entry, RangeTable

# -- campaign turn start (p.182) ---------------------------------------------------------------


@dataclass(frozen=True)
class TurnStart:
    """Who does what this campaign turn.

    - ``available``: may go on the mission (not in Sick Bay, not told to miss it).
    - ``sick_bay``: laid up this turn; ``sitting_out``: brig or special duties.
    - ``may_apply``: may roll for a Special Assignment.
    - ``priority_shift``: Intel Corps steps the player may move Priority (either way).
    - ``extra_contacts`` / ``extra_support_rolls``: from Operational Progress.
    """

    squad: Squad
    available: tuple[str, ...]
    sick_bay: tuple[str, ...]
    sitting_out: tuple[str, ...]
    may_apply: tuple[str, ...]
    priority_shift: int
    extra_contacts: int
    extra_support_rolls: int
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.lines)


def campaign_turn_start(squad: Squad) -> TurnStart:
    """Open campaign turn ``squad.turn`` (p.182): every trooper with Sick Bay time left is laid
    up for this turn (``laid_up``; step 9 counts it off), brig and special duties sit out the
    mission, and reprimanded or laid-up troopers cannot apply for Special Assignments.

    Call it before the mission (step 9 already marks the next turn's laid-up troopers, so it is
    safe to call again before the mission). One-turn flags are not cleared here but in step 1
    (:func:`casualties`), once the mission they were for is over.
    """
    troopers = tuple(replace(t, laid_up=t.sick_bay > 0) if t.active else t for t in squad.troopers)
    squad = replace(squad, troopers=troopers)
    sick = tuple(t.name for t in squad.active if t.in_sick_bay)
    out = tuple(t.name for t in squad.active if not t.in_sick_bay and t.miss_next_mission)
    available = tuple(t.name for t in squad.active if not t.in_sick_bay and not t.miss_next_mission)
    may_apply = tuple(t.name for t in squad.active if not t.in_sick_bay and not t.no_assignment_next)
    lines = [f"Campaign turn {squad.turn}: {', '.join(available) or 'nobody'} may go on the mission."]
    if sick:
        lines.append(f"In Sick Bay: {', '.join(f'{n} ({squad.get(n).sick_bay} turn(s) left)' for n in sick)}.")
    if out:
        lines.append(f"Sitting this mission out: {', '.join(out)}.")
    if squad.priority_shift_next:
        lines.append(f"A friend in the Intel Corps lets you move this mission's Priority by up to {squad.priority_shift_next}.")
    op = squad.operation
    if op.extra_contacts or op.extra_support_rolls:
        lines.append(
            f"Operation {op.number}: {op.extra_contacts} extra Contact marker(s), {op.extra_support_rolls} extra Support roll(s)."
        )
    return TurnStart(
        squad=squad,
        available=available,
        sick_bay=sick,
        sitting_out=out,
        may_apply=may_apply,
        priority_shift=squad.priority_shift_next,
        extra_contacts=op.extra_contacts,
        extra_support_rolls=op.extra_support_rolls,
        lines=tuple(lines),
    )


# -- Special Assignments (p.183) ---------------------------------------------------------------


@dataclass(frozen=True)
class AssignmentOptions:
    """Whether a trooper may roll for a Special Assignment now and which ones.

    - ``may_roll``: False with ``reason`` when laid up, reprimanded or out of rolls this turn.
    - ``available``: assignments whose requirements are met and not yet completed.
    - ``blocked``: assignment -> why not (completed, requirement missing).
    - ``playing_cards``: every assignment is completed; the trooper plays cards in barracks.
    - ``bonus``: what will be added to the next roll.
    """

    trooper: str
    may_roll: bool
    reason: str
    available: tuple[str, ...]
    blocked: Mapping[str, str]
    playing_cards: bool
    bonus: int


def _requirement_problem(entry: Entry, trooper: Trooper, turn: int) -> str | None:
    needs = entry.data.get("requires") or {}
    any_of = needs.get("any_of")
    if any_of and not any(getattr(trooper.profile, stat) >= int(v) for stat, v in any_of.items()):
        wanted = " or ".join(f"{PROFILE_NAMES[s]} {int(v)}+" for s, v in any_of.items())
        return f"needs {wanted}"
    missions = needs.get("completed_missions")
    if missions is not None and trooper.completed_missions < int(missions):
        return f"needs {int(missions)} Completed Missions (has {trooper.completed_missions})"
    before = needs.get("assignment")
    if before:
        if before not in trooper.assignments:
            return f"needs {before} first"
        if trooper.assignments[-1] == before and trooper.assignment_turn == turn:
            return f"needs {before} in an earlier campaign turn"
    return None


def _rolls_allowed(trooper: Trooper, turn: int) -> tuple[int, int]:
    used = trooper.assignment_rolls if trooper.assignment_turn == turn else 0
    return used, 1 + (1 if trooper.bonus_assignment_roll else 0)


def assignments_available(tables: Mapping[str, RangeTable], squad: Squad, trooper_name: str) -> AssignmentOptions:
    """What ``trooper_name`` may apply for this campaign turn (p.183). Raises
    :class:`CampaignError` for an unknown trooper."""
    trooper = squad.get(trooper_name)
    blocked: dict[str, str] = {}
    available: list[str] = []
    entries = _table(tables, "bh-special-assignments").entries
    for entry in entries:
        if entry.result in trooper.assignments:
            blocked[entry.result] = "already completed"
            continue
        problem = _requirement_problem(entry, trooper, squad.turn)
        if problem:
            blocked[entry.result] = problem
        else:
            available.append(entry.result)
    playing_cards = all(e.result in trooper.assignments for e in entries)
    used, allowed = _rolls_allowed(trooper, squad.turn)
    reason = ""
    if trooper.in_sick_bay:
        reason = f"{trooper.name} is in Sick Bay."
    elif trooper.no_assignment_next:
        reason = f"{trooper.name} was reprimanded: no Special Assignment this turn."
    elif used >= allowed:
        reason = f"{trooper.name} has used this turn's Special Assignments roll."
    elif playing_cards:
        reason = f"{trooper.name} has completed every assignment and plays cards in barracks."
    return AssignmentOptions(
        trooper=trooper.name,
        may_roll=not reason,
        reason=reason,
        available=tuple(available),
        blocked=blocked,
        playing_cards=playing_cards,
        bonus=trooper.assignment_bonus,
    )


def special_assignment(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    trooper_name: str,
    assignment: str,
    dice: Dice,
    *,
    faces: Sequence[int] | None = None,
) -> Result:
    """Apply ``trooper_name`` for ``assignment`` (p.183): 2D6 plus the trooper's
    ``assignment_bonus`` (spent by this roll) against the table's target. Success gives the
    training award (each increase only while the score is below its cap), bonus XP and squad
    Reputation, and marks the assignment completed for the career. Failure ends this turn's
    applications, unless the trooper holds a special-duties bonus roll (then one more roll this
    turn, which spends it).

    ``faces``: the player's two D6. ``data``: ``{"trooper", "assignment", "target", "total",
    "success", "training": [stat...], "xp", "reputation"}``.

    Raises :class:`CampaignError` when the trooper may not roll (Sick Bay, reprimand, roll used,
    every assignment done), the assignment is unknown, already completed or its requirement is
    missing, or ``faces`` are not two D6.
    """
    entries = {e.result: e for e in _table(tables, "bh-special-assignments").entries}
    if assignment not in entries:
        raise CampaignError(f"assignment must be one of {', '.join(entries)}; got {assignment!r}.")
    options = assignments_available(tables, squad, trooper_name)
    if not options.may_roll:
        raise CampaignError(f"trooper_name: {options.reason}")
    if assignment in options.blocked:
        raise CampaignError(f"assignment: {trooper_name} cannot take {assignment}: {options.blocked[assignment]}.")
    trooper = squad.get(trooper_name)
    entry = entries[assignment]
    target = int(entry.data["target"])
    bonus = trooper.assignment_bonus
    record = _roll(dice, "2D6", f"{trooper.name}: Special Assignment, {assignment}", faces, "faces", modifier=bonus)
    used, _ = _rolls_allowed(trooper, squad.turn)
    trooper = replace(
        trooper,
        assignment_bonus=0,
        assignment_turn=squad.turn,
        assignment_rolls=used + 1,
        bonus_assignment_roll=trooper.bonus_assignment_roll and used == 0,
    )
    total = int(record.total or 0)
    shown = f"Rolled {record.natural}" + (f" +{bonus} bonus = {total}" if bonus else "")
    data: dict[str, Any] = {"trooper": trooper.name, "assignment": assignment, "target": target, "total": total}
    if total < target:
        squad = squad.put(trooper)
        line = f"{shown} against {target}+ for {assignment}: {trooper.name} was not accepted this turn."
        return Result(squad, (record,), (line,), data={**data, "success": False, "training": [], "xp": 0, "reputation": 0})
    raised: list[str] = []
    for award in entry.data.get("training") or ():
        stat = str(award["stat"])
        if getattr(trooper.profile, stat) < int(award["if_below"]):
            trooper = _raise_stat(trooper, stat, int(award["increase"]))
            raised.append(stat)
    xp, rep = int(entry.data.get("xp", 0)), int(entry.data.get("reputation", 0))
    trooper = replace(trooper, xp=trooper.xp + xp, assignments=(*trooper.assignments, assignment))
    squad = squad.put(trooper).with_reputation(rep)
    gains = [f"+1 {PROFILE_NAMES[s]}" for s in raised] + ([f"+{xp} XP"] if xp else []) + ([f"+{rep} Reputation"] if rep else [])
    line = f"{shown} against {target}+ for {assignment}: {trooper.name} completes it ({', '.join(gains) or 'no change'})."
    return Result(squad, (record,), (line,), data={**data, "success": True, "training": raised, "xp": xp, "reputation": rep})


# -- court martial (p.201) ---------------------------------------------------------------------


def court_martial(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    in_charge: str,
    dice: Dice,
    *,
    pay_reputation: bool,
    objectives_completed: int = 0,
    faces: Sequence[int] | None = None,
) -> Result:
    """Pay the piper (p.201): when no Objective at all was completed, roll D6 on
    ``bh-court-martial`` for the character in charge. Guilty removes them from the campaign
    (status ``removed``) unless ``pay_reputation`` and the squad has the 3 Reputation to call
    in a favor.

    ``data``: ``{"trooper", "guilty", "paid", "removed"}``. Raises :class:`CampaignError` when
    Objectives were completed, for an unknown trooper or a bad face.
    """
    if objectives_completed > 0:
        raise CampaignError(f"objectives_completed must be 0 for a court martial; got {objectives_completed}.")
    trooper = squad.get(in_charge, field_name="in_charge")
    table = _table(tables, "bh-court-martial")
    record = _roll(dice, "D6", f"{trooper.name}: court martial", faces, "faces")
    entry = table.resolve(record).entry
    guilty = bool(entry.data["guilty"])
    cost = int(entry.data.get("avoid_cost_reputation", 0))
    paid = removed = False
    if not guilty:
        line = f"Rolled {record.total} for {trooper.name}'s court martial: not guilty."
    elif pay_reputation and squad.reputation >= cost:
        squad = squad.with_reputation(-cost)
        paid = True
        line = f"Rolled {record.total}: guilty, but {cost} Reputation calls in a favor and {trooper.name} stays."
    else:
        squad = squad.put(replace(trooper, status="removed"))
        removed = True
        why = f" (the squad has only {squad.reputation} Reputation)" if pay_reputation else ""
        line = f"Rolled {record.total}: guilty, {trooper.name} is removed from the campaign{why}."
    return Result(squad, (record,), (line,), data={"trooper": trooper.name, "guilty": guilty, "paid": paid, "removed": removed})
