"""Post-battle steps 1-4 (Bug Hunt pp.202-203): casualties and lost marines, completed
missions, mustering out, and Reputation, retirement and replacements."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from bughunt.engine.campaign.state import (
    CASUALTY,
    LOST_MARINE,
    RAZOR_LIZARDS,
    CampaignError,
    MissionOutcome,
    Result,
    Squad,
    Trooper,
    _check_names,
    _enter,
    _roll,
    _row,
    _table,
    objective_total,
)
from bughunt.engine.characters import CharacterError, create_main_character
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- step 1: casualties and lost marines (pp.202-203) ------------------------------------------


def _validate_outcome(squad: Squad, outcome: MissionOutcome) -> None:
    _check_names(squad, outcome.took_field, "took_field")
    for key in ("casualties", "lost_marines", "evacuated"):
        for name in getattr(outcome, key):
            if name not in outcome.took_field:
                raise CampaignError(f"{key}: {name} did not take the field (took_field: {', '.join(outcome.took_field)}).")
    both = set(outcome.casualties) & set(outcome.lost_marines)
    if both:
        raise CampaignError(f"casualties and lost_marines cannot share names: {', '.join(sorted(both))}.")
    hurt_and_evac = (set(outcome.casualties) | set(outcome.lost_marines)) & set(outcome.evacuated)
    if hurt_and_evac:
        raise CampaignError(f"evacuated cannot include casualties or lost marines: {', '.join(sorted(hurt_and_evac))}.")
    if outcome.priority < 1:
        raise CampaignError(f"priority must be 1 or more; got {outcome.priority}.")
    if outcome.objectives_completed < 0:
        raise CampaignError(f"objectives_completed must be 0 or more; got {outcome.objectives_completed}.")


def clear_one_turn_flags(squad: Squad) -> Squad:
    """Clear what last turn's Military Life set for this turn only (brig, special duties,
    reprimand, the special-duties bonus roll, the Intel Corps Priority shift). Step 1 calls it:
    the mission they were for is over."""
    troopers = tuple(
        replace(t, miss_next_mission=False, no_assignment_next=False, bonus_assignment_roll=False) for t in squad.troopers
    )
    return replace(squad, troopers=troopers, priority_shift_next=0)


def casualties(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    outcome: MissionOutcome,
    dice: Dice,
    *,
    faces: Mapping[str, int] | None = None,
    recovery_faces: Mapping[str, int] | None = None,
    crippled: Collection[str] = (),
    escaped: Collection[str] = (),
    survived: str | None = None,
) -> Result:
    """Step 1 (p.202): D100 on ``bh-casualties`` for each casualty (Casualty column) and each
    trooper who left by a battlefield edge (Lost Marine column). Names in ``escaped`` left by an
    edge under the Escape movie magic card (p.181) and skip the Lost Marine roll; each must be a
    lost marine. ``survived`` names the one character whose roll's effects the Survived card
    cancels (p.181): the card is played after the roll, so the roll must have had an effect to
    ignore (death, crippling or a wound); Knocked out or School of hard knocks is refused, as is
    a name that rolled nothing.

    - Gruesome fate: dead. Death or crippling injury: dead, or ``removed`` for names in
      ``crippled`` (the player tells the story).
    - Wounds: Sick Bay for the row's time (1D3, 1D3+1 or 1 campaign turns); against Razor lizards
      (``outcome.enemy``, p.194) +1 turn on the Casualty column only.
    - School of hard knocks: +1 XP. Knocked out: nothing.

    Also clears last turn's one-turn flags (:func:`clear_one_turn_flags`).

    ``faces`` maps a name to their D100 result; ``recovery_faces`` maps a name to the D3 face
    for the Sick Bay time (so rolls made earlier can be replayed). ``data``: ``{"results":
    {name: {"column", "result", "outcome", "sick_bay", "xp", "roll", "recovery_face"}}}``
    (``roll``: the D100; ``recovery_face``: the D3 face, ``None`` without one). Raises :class:`CampaignError` for names that are not troopers or
    did not take the field, a trooper who was in Sick Bay or told to miss the mission, an
    unknown enemy, or bad faces.
    """
    _validate_outcome(squad, outcome)
    for name in outcome.took_field:
        trooper = squad.get(name, field_name="took_field", active=False)
        if trooper.in_sick_bay:
            raise CampaignError(f"took_field: {name} is in Sick Bay and cannot go on the mission.")
        if trooper.miss_next_mission:
            raise CampaignError(f"took_field: {name} has to miss this mission (brig or special duties).")
    strays = [n for n in escaped if n not in outcome.lost_marines]
    if strays:
        raise CampaignError(
            f"escaped: {', '.join(strays)} did not leave by a battlefield edge (lost marines: {', '.join(outcome.lost_marines) or 'none'}).",
            field="escaped",
        )
    for name in crippled:
        if name not in outcome.casualties:
            raise CampaignError(f"crippled: {name} is not one of the casualties ({', '.join(outcome.casualties) or 'none'}).")
    enemies = {e.result for e in _table(tables, "bh-enemies").entries}
    if outcome.enemy is not None and outcome.enemy not in enemies:
        raise CampaignError(f"enemy must be one of {', '.join(sorted(enemies))}; got {outcome.enemy!r}.")
    razor = outcome.enemy == RAZOR_LIZARDS
    table = _table(tables, "bh-casualties")
    squad = clear_one_turn_flags(squad)
    rolls: list[RollRecord] = []
    lines: list[str] = []
    results: dict[str, dict[str, Any]] = {}
    for column, names in ((CASUALTY, outcome.casualties), (LOST_MARINE, outcome.lost_marines)):
        for name in names:
            trooper = squad.get(name, active=False)
            if not trooper.active:
                lines.append(f"{name} has already left the campaign; no roll.")
                continue
            if column == LOST_MARINE and name in escaped:
                lines.append(f"{name} made it out (Escape card): no Lost Marine roll.")
                results[name] = {"column": column, "result": "Escape", "outcome": "escaped", "sick_bay": 0, "xp": 0}
                continue
            reason = f"{name}: {column} table"
            if faces and name in faces:
                record = _enter("D100", [int(faces[name])], reason, f"faces[{name!r}]")
            else:
                record = dice.d100(reason)
            rolls.append(record)
            entry = table.resolve(record, column=column).entry
            kind = str(entry.data["outcome"])
            detail: dict[str, Any] = {
                "column": column,
                "result": entry.result,
                "outcome": kind,
                "sick_bay": 0,
                "xp": 0,
                "roll": record.total,
                "recovery_face": None,
            }
            head = f"{name} ({column}, rolled {record.total}): {entry.result}"
            if name == survived and kind in ("dead", "dead_or_removed", "injury"):
                detail["outcome"] = "survived"
                lines.append(f"{head}, ignored: the Survived card.")
            elif kind == "dead":
                trooper = replace(trooper, status="dead")
                lines.append(f"{head}, killed.")
            elif kind == "dead_or_removed":
                status = "removed" if name in crippled else "dead"
                trooper = replace(trooper, status=status)
                lines.append(f"{head}, {'crippled and out of the campaign' if status == 'removed' else 'killed'}.")
            elif kind == "injury":
                notation = str(entry.data["sick_bay_turns"])
                if notation.strip().isdigit():
                    turns = int(notation)
                    how = f"{turns}"
                else:
                    base = notation.upper().replace("1D3", "")
                    rec_reason = f"{name}: Sick Bay time ({entry.result})"
                    if recovery_faces and name in recovery_faces:
                        rec = _enter(notation, [int(recovery_faces[name])], rec_reason, f"recovery_faces[{name!r}]")
                    else:
                        rec = dice.roll(notation, rec_reason)
                    rolls.append(rec)
                    detail["recovery_face"] = rec.faces[0]
                    turns = int(rec.total or 0)
                    how = f"{notation}: {rec.natural}{base} = {turns}"
                if razor and column == CASUALTY:
                    turns += 1
                    how += ", +1 for Razor lizards"
                trooper = replace(trooper, sick_bay=trooper.sick_bay + turns)
                detail["sick_bay"] = turns
                lines.append(f"{head}, {turns} campaign turn(s) in Sick Bay ({how}).")
            elif kind == "xp":
                gain = int(entry.data.get("xp", 1))
                trooper = replace(trooper, xp=trooper.xp + gain)
                detail["xp"] = gain
                lines.append(f"{head}, +{gain} XP.")
            else:
                lines.append(f"{head}, no lasting harm.")
            results[name] = detail
            squad = squad.put(trooper)
    if survived is not None and results.get(survived, {}).get("outcome") != "survived":
        got = results.get(survived)
        why = f"rolled {got['result']}, which has no effect to ignore" if got else "made no injury roll"
        raise CampaignError(f"survived: the Survived card changes nothing: {survived} {why} (p.181).", field="survived")
    if not lines:
        lines.append("No casualties or lost marines to roll for.")
    return Result(squad, tuple(rolls), tuple(lines), data={"results": results})


def advanced_care(tables: Mapping[str, RangeTable], squad: Squad, trooper_name: str) -> Result:
    """Advanced care (p.203, ``bh-advanced-care``): 1 Reputation takes 1 campaign turn off a
    trooper's Sick Bay time, once per character per campaign turn.

    Raises :class:`CampaignError` when the trooper is not in Sick Bay, already had care this
    turn, or the squad has no Reputation to spend.
    """
    data = _row(tables, "bh-advanced-care", "Advanced care").data
    cost, change = int(data["reputation"]), int(data["sick_bay_turns"])
    trooper = squad.get(trooper_name)
    if not trooper.in_sick_bay:
        raise CampaignError(f"trooper_name: {trooper.name} is not in Sick Bay.")
    if trooper.advanced_care_turn == squad.turn:
        raise CampaignError(f"trooper_name: {trooper.name} already had advanced care this campaign turn (once per turn).")
    if squad.reputation < cost:
        raise CampaignError(f"reputation: advanced care costs {cost}; the squad has {squad.reputation}.")
    trooper = replace(trooper, sick_bay=max(0, trooper.sick_bay + change), advanced_care_turn=squad.turn)
    squad = squad.put(trooper).with_reputation(-cost)
    line = f"Advanced care for {trooper.name} ({cost} Reputation): {trooper.sick_bay} campaign turn(s) left in Sick Bay."
    return Result(squad, (), (line,), data={"trooper": trooper.name, "sick_bay": trooper.sick_bay})


# -- step 2: completed missions (p.203) --------------------------------------------------------


def update_completed_missions(squad: Squad, outcome: MissionOutcome) -> Result:
    """Step 2 (p.203): +1 Completed Missions for each active trooper who took the field and is
    not in Sick Bay after step 1 (a wound that lays a trooper up does not count the mission).
    The mission also counts toward the operation and toward the next R&R (p.206).

    Reading (p.203): a casualty sent to Sick Bay by step 1 gets no Completed Mission. Step 2
    keeps a character in Sick Bay from adding to their count, and step 1 (which puts wounded
    casualties there) comes first. The muster-out row (5-7 needs 9+ for a casualty
    or a lost marine) does not contradict this: it still meets casualties who came out of step
    1 without Sick Bay time (Knocked out, School of hard knocks) and every surviving lost
    marine (the Lost Marine column has no Sick Bay results at all).

    ``data``: ``{"counted": [names]}``.
    """
    _validate_outcome(squad, outcome)
    counted: list[str] = []
    for name in outcome.took_field:
        trooper = squad.get(name, field_name="took_field", active=False)
        if trooper.active and not trooper.in_sick_bay:
            squad = squad.put(
                replace(trooper, completed_missions=trooper.completed_missions + 1, mission_counted_turn=squad.turn)
            )
            counted.append(name)
    op = squad.operation
    squad = replace(squad, operation=replace(op, missions=op.missions + 1, missions_since_rr=op.missions_since_rr + 1))
    lines = [f"{n}: {squad.get(n).completed_missions} Completed Missions." for n in counted] or [
        "No trooper adds this mission to their tally."
    ]
    return Result(squad, (), tuple(lines), data={"counted": counted})


# -- step 3: mustering out (p.203) -------------------------------------------------------------


def muster_out(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    outcome: MissionOutcome,
    dice: Dice,
    *,
    faces: Mapping[str, Sequence[int]] | None = None,
) -> Result:
    """Step 3 (p.203): every trooper whose tally went up in step 2 checks ``bh-muster-out``
    for their Completed Missions: 2D6 at or over the target and they leave (status
    ``mustered_out``). The 5-7 row only applies to a casualty or lost marine; 15+ leaves
    without a roll.

    ``faces`` maps a name to their two D6. ``data``: ``{"left": [names], "checks": {name:
    {"target", "total"}}}``.
    """
    rows = [e.data for e in _table(tables, "bh-muster-out").entries]
    hurt = set(outcome.casualties) | set(outcome.lost_marines)
    rolls: list[RollRecord] = []
    lines: list[str] = []
    left: list[str] = []
    checks: dict[str, dict[str, Any]] = {}
    for trooper in squad.active:
        if trooper.mission_counted_turn != squad.turn:
            continue
        n = trooper.completed_missions
        row = next(
            (r for r in rows if int(r["min_missions"]) <= n and (r["max_missions"] is None or n <= int(r["max_missions"]))),
            None,
        )
        if row is None:
            continue
        if row.get("automatic"):
            squad = squad.put(replace(trooper, status="mustered_out"))
            left.append(trooper.name)
            lines.append(f"{trooper.name} has {n} Completed Missions and musters out.")
            continue
        if row.get("target") is None or (row.get("only_if_casualty") and trooper.name not in hurt):
            lines.append(f"{trooper.name} ({n} Completed Missions) stays: no chance of mustering out yet.")
            continue
        target = int(row["target"])
        record = _roll(
            dice, "2D6", f"{trooper.name}: muster out check", (faces or {}).get(trooper.name), f"faces[{trooper.name!r}]"
        )
        rolls.append(record)
        total = int(record.total or 0)
        checks[trooper.name] = {"target": target, "total": total}
        if total >= target:
            squad = squad.put(replace(trooper, status="mustered_out"))
            left.append(trooper.name)
            lines.append(f"{trooper.name} rolled {total} against {target}+ ({n} Completed Missions): musters out.")
        else:
            lines.append(f"{trooper.name} rolled {total} against {target}+ ({n} Completed Missions): stays.")
    return Result(
        squad, tuple(rolls), tuple(lines) or ("Nobody checks for mustering out.",), data={"left": left, "checks": checks}
    )


# -- step 4: Reputation, retirement, replacements (p.203) --------------------------------------


def determine_reputation(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    outcome: MissionOutcome,
    dice: Dice,
    *,
    faces: Sequence[int] | None = None,
) -> Result:
    """Step 4 (p.203, ``bh-reputation-awards``): +1 Reputation for an Objective total of 2+,
    then one D6 per Objective point, each 5-6 adding +1.

    ``faces``: the player's D6, one per Objective point. ``data``: ``{"objectives", "automatic",
    "from_dice", "gained"}``.
    """
    table = _table(tables, "bh-reputation-awards")
    auto_row = next(e.data for e in table.entries if "min_objectives" in e.data)
    dice_row = next(e.data for e in table.entries if "success_on" in e.data)
    total, why = objective_total(tables, outcome)
    automatic = int(auto_row["reputation"]) if total >= int(auto_row["min_objectives"]) else 0
    rolls: list[RollRecord] = []
    from_dice = 0
    if total:
        if faces is not None:
            if len(faces) != total:
                raise CampaignError(f"faces must hold {total} D6 (one per Objective point); got {len(faces)}.")
            record = _enter(f"{total}D6", faces, "Reputation for Objectives", "faces")
        else:
            record = dice.separate(total, 6, "Reputation for Objectives")
        rolls.append(record)
        from_dice = sum(int(dice_row["reputation"]) for f in record.faces if f >= int(dice_row["success_on"]))
    gained = automatic + from_dice
    squad = squad.with_reputation(gained)
    parts = [why]
    if automatic:
        parts.append(f"+{automatic} Reputation for 2 or more.")
    if rolls:
        parts.append(
            f"One D6 per Objective point: {', '.join(map(str, rolls[0].faces))}, "
            f"+{from_dice} for the {int(dice_row['success_on'])}s and 6s."
        )
    parts.append(f"Reputation is now {squad.reputation}.")
    return Result(
        squad,
        tuple(rolls),
        (" ".join(parts),),
        data={"objectives": total, "automatic": automatic, "from_dice": from_dice, "gained": gained},
    )


def retire(squad: Squad, trooper_name: str) -> Result:
    """Retire an injured trooper (p.203): only a trooper in Sick Bay may be retired; they leave
    the roster (status ``retired``) and can be replaced. Raises :class:`CampaignError` otherwise."""
    trooper = squad.get(trooper_name)
    if not trooper.in_sick_bay:
        raise CampaignError(f"trooper_name: only injured troopers in Sick Bay may retire; {trooper.name} is fit.")
    squad = squad.put(replace(trooper, status="retired"))
    return Result(squad, (), (f"{trooper.name} retires from the squad.",), data={"trooper": trooper.name})


def vacancies(squad: Squad) -> tuple[str, ...]:
    """Departed troopers (dead, mustered out, retired, removed) not yet replaced."""
    return tuple(t.name for t in squad.troopers if not t.active and t.replaced_by is None)


def replacement(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    departed: str,
    name: str,
    dice: Dice,
    *,
    entered: Mapping[str, int] | None = None,
) -> Result:
    """Roll up a new main character (pp.170-172, :func:`create_main_character`) to replace
    ``departed`` (p.203). The newcomer's Reputation joins the squad pool.

    ``entered`` maps a background table slug to the player's D100. ``data``: the new
    character's ``as_dict()``. Raises :class:`CampaignError` when ``departed`` is not a
    departed, unreplaced trooper or ``name`` is blank or already used.
    """
    open_slots = vacancies(squad)
    if departed not in open_slots:
        raise CampaignError(f"departed must be one of {', '.join(open_slots) or 'nobody (no vacancy)'}; got {departed!r}.")
    if name.strip() in {t.name for t in squad.troopers}:
        raise CampaignError(f"name: {name.strip()!r} is already on the roster; choose another name.")
    try:
        character = create_main_character(name, tables, dice, entered=entered)
    except CharacterError as exc:
        raise CampaignError(str(exc)) from exc
    newcomer = Trooper(
        name=character.name,
        profile=character.profile,
        xp=character.xp,
        completed_missions=character.completed_missions,
    )
    squad = squad.put(replace(squad.get(departed, active=False), replaced_by=character.name))
    squad = replace(squad, troopers=(*squad.troopers, newcomer)).with_reputation(character.reputation)
    line = (
        f"{character.name} joins to replace {departed}: {character.origin}, {character.basic_training}, "
        f"{character.service_history}; {character.xp} XP, {character.completed_missions} Completed Missions"
        + (f", +{character.reputation} Reputation." if character.reputation else ".")
    )
    return Result(squad, character.rolls, (line,), data=character.as_dict())
