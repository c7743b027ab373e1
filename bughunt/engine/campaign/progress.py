"""Post-battle steps 5-9 (Bug Hunt pp.204-206): experience and advances, Operational Progress,
Military Life, R&R, and getting ready for another campaign turn."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from bughunt.engine.campaign.losses import _validate_outcome
from bughunt.engine.campaign.state import (
    PROFILE_NAMES,
    CampaignError,
    MissionOutcome,
    Offer,
    Operation,
    Result,
    Squad,
    Trooper,
    _ensure_next_turn_in_sick_bay,
    _enter,
    _pick,
    _raise_stat,
    _row,
    _table,
    mission_success,
    objective_total,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- step 5: experience and advances (p.204) ---------------------------------------------------


def award_experience(
    tables: Mapping[str, RangeTable], squad: Squad, outcome: MissionOutcome, *, mvp: str | None = None
) -> Result:
    """Step 5 (p.204, ``bh-experience-awards``): each active trooper who took the field gets
    +1 XP if a casualty or lost marine, else +2 (Objective total 0-1) or +3 (2+); +1 more when
    Priority was 4+; +1 to the MVP (``mvp`` or ``outcome.mvp``), who must be an active trooper
    who took the field. The dead earn nothing.

    Reading of "Mission Priority was 4+" (p.204): ``outcome.priority`` is the Priority the
    mission was generated with (p.186), not the one drop ship arrivals raised in play. A drop
    ship raises Priority "for the remainder of the mission" (p.201), an effect on the table
    that ends with it; and Evac, which lands a drop ship, is how nearly every mission ends, so
    counting the raise would make the 4+ reward a 3+ one in practice.

    ``data``: ``{"xp": {name: points}}``. Raises :class:`CampaignError` for a bad MVP.
    """
    _validate_outcome(squad, outcome)
    rows = {e.result: e.data for e in _table(tables, "bh-experience-awards").entries}
    hurt_xp = int(rows["Became a casualty or lost marine"]["xp"])
    low = next(d for d in rows.values() if "max_objectives" in d)
    high = next(d for d in rows.values() if "min_objectives" in d)
    prio = next(d for d in rows.values() if "min_priority" in d)
    mvp_xp = int(rows["MVP"]["xp"])
    total, _ = objective_total(tables, outcome)
    present = [n for n in outcome.took_field if squad.get(n, field_name="took_field", active=False).active]
    mvp = mvp if mvp is not None else outcome.mvp
    if mvp is not None and mvp not in present:
        raise CampaignError(
            f"mvp must be one of {', '.join(present) or 'nobody'} (active troopers who took the field); got {mvp!r}."
        )
    hurt = set(outcome.casualties) | set(outcome.lost_marines)
    awards: dict[str, int] = {}
    lines: list[str] = []
    for name in present:
        parts: list[str] = []
        if name in hurt:
            points = hurt_xp
            parts.append(f"+{hurt_xp} for leaving play other than by Evac")
        elif total <= int(low["max_objectives"]):
            points = int(low["xp"])
            parts.append(f"+{points} for Evac with {total} Objective point(s)")
        else:
            points = int(high["xp"])
            parts.append(f"+{points} for Evac with {total} Objective points")
        if outcome.priority >= int(prio["min_priority"]):
            points += int(prio["xp"])
            parts.append(f"+{int(prio['xp'])} for Priority {outcome.priority}")
        if name == mvp:
            points += mvp_xp
            parts.append(f"+{mvp_xp} as MVP")
        trooper = squad.get(name)
        squad = squad.put(replace(trooper, xp=trooper.xp + points))
        awards[name] = points
        lines.append(f"{name}: {', '.join(parts)} = {points} XP (now {trooper.xp + points}).")
    return Result(squad, (), tuple(lines) or ("No surviving trooper earns XP.",), data={"xp": awards})


@dataclass(frozen=True)
class Advance:
    """An advance bought with XP: the trooper after it, the stat, the XP paid and a line."""

    trooper: Trooper
    stat: str
    cost: int
    text: str


def advancement_cost(tables: Mapping[str, RangeTable], stat: str) -> tuple[int, int]:
    """``(xp_cost, maximum)`` for ``stat`` from ``bh-advancement`` (p.204). Raises
    :class:`CampaignError` naming the five stats."""
    for entry in _table(tables, "bh-advancement").entries:
        if entry.data["stat"] == stat:
            return int(entry.data["xp"]), int(entry.data["maximum"])
    allowed = ", ".join(str(e.data["stat"]) for e in tables["bh-advancement"].entries)
    raise CampaignError(f"stat must be one of {allowed}; got {stat!r}.")


def advance(tables: Mapping[str, RangeTable], trooper: Trooper, stat: str, *, cost: int | None = None) -> Advance:
    """Spend XP to raise ``stat`` by 1 (Speed by 1"), p.204: the cost and the maximum come from
    ``bh-advancement``; ``cost`` overrides the price (Military Life offers 5 XP) but not the
    maximum. Raises :class:`CampaignError` for an unknown stat, a stat at its maximum or too
    little XP."""
    table_cost, maximum = advancement_cost(tables, stat)
    price = table_cost if cost is None else cost
    current = getattr(trooper.profile, stat)
    label = PROFILE_NAMES[stat]
    if not trooper.active:
        raise CampaignError(f"trooper: {trooper.name} is no longer on the roster.")
    if current >= maximum:
        raise CampaignError(f"stat: {trooper.name}'s {label} is already at its maximum of {maximum}.")
    if trooper.xp < price:
        raise CampaignError(f"xp: raising {label} costs {price} XP; {trooper.name} has {trooper.xp}.")
    raised = replace(_raise_stat(trooper, stat, 1), xp=trooper.xp - price)
    text = f"{trooper.name} spends {price} XP: {label} {current} -> {current + 1} ({raised.xp} XP left)."
    return Advance(trooper=raised, stat=stat, cost=price, text=text)


def advance_trooper(tables: Mapping[str, RangeTable], squad: Squad, trooper_name: str, stat: str) -> Result:
    """:func:`advance` for a trooper of the squad; returns the new squad."""
    bought = advance(tables, squad.get(trooper_name), stat)
    return Result(
        squad.put(bought.trooper), (), (bought.text,), data={"trooper": trooper_name, "stat": stat, "cost": bought.cost}
    )


# -- step 6: Operational Progress (p.205) ------------------------------------------------------

_CONDITIONS = {
    "fewer than 2 Objectives last mission": False,
    "2 or more Objectives last mission": True,
}


def _new_operation(old: Operation, tables: Mapping[str, RangeTable], *, rr: bool) -> Operation:
    need = int(_row(tables, "bh-rest-and-recreation", "Earned R&R").data["missions"])
    owed = rr or old.rr_earned or old.missions_since_rr >= need
    return Operation(number=old.number + 1, rr_earned=owed)


def operational_progress(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    outcome: MissionOutcome,
    dice: Dice,
    *,
    face: int | None = None,
    pick: str | None = None,
    pick_face: int | None = None,
) -> Result:
    """Step 6 (p.205): D100 plus the operation's running modifier, read unclamped.

    - Below 1 (``bh-operational-progress-beyond``): disaster; the next mission is the last of
      the operation with two extra Contact markers. After that mission this step resets the
      table (a new operation) instead of rolling.
    - Above 100: parade; +1 Reputation, R&R is owed (step 8), every result is reset.
    - 1-100 (``bh-operational-progress``): -5/+5 to the running modifier (Heavy pressure only
      with an Objective total under 2, Gaining ground only with 2+), an extra Contact marker
      or Support roll for every future mission, or Vital operation: +1 XP per Objective point
      to a random active trooper who took the field (``pick`` or ``pick_face`` let the player
      choose or enter the die).

    ``face``: the player's D100. ``data``: ``{"total", "result", "reset"}``.
    """
    op = squad.operation
    if op.disaster_pending:
        squad = replace(squad, operation=_new_operation(op, tables, rr=False))
        line = f"Operation {op.number} ends in disaster after its last mission; the table is reset for operation {op.number + 1}."
        return Result(squad, (), (line,), data={"total": None, "result": "Operation ended", "reset": True})
    reason = "Operational Progress"
    if face is not None:
        record = _enter("D100", [face], reason, "face", modifier=op.modifier)
    else:
        record = dice.roll("D100", reason, modifier=op.modifier)
    total = int(record.total or 0)
    rolls: list[RollRecord] = [record]
    shown = f"Rolled {record.natural}" + (f" {op.modifier:+d} = {total}" if op.modifier else "")
    success = mission_success(tables, outcome)
    if total < 1 or total > 100:
        beyond = _table(tables, "bh-operational-progress-beyond")
        entry = next(e for e in beyond.entries if ("total_below" in e.data) == (total < 1))
        if total < 1:
            contacts = int(entry.data.get("contacts", 0))
            new = replace(op, disaster_pending=True, extra_contacts=op.extra_contacts + contacts)
            squad = replace(squad, operation=new)
            line = f"{shown}: {entry.result}. One last mission with {contacts} extra Contact markers, then the table resets."
            return Result(squad, tuple(rolls), (line,), data={"total": total, "result": entry.result, "reset": False})
        rep = int(entry.data.get("reputation", 0))
        squad = replace(
            squad, operation=_new_operation(op, tables, rr=bool(entry.data.get("rest_and_recreation")))
        ).with_reputation(rep)
        line = f"{shown}: {entry.result} The operation is won: +{rep} Reputation, R&R is due and the table resets."
        return Result(squad, tuple(rolls), (line,), data={"total": total, "result": entry.result, "reset": True})
    entry = _table(tables, "bh-operational-progress").lookup(total)
    data = entry.data
    change = int(data.get("progress_modifier", 0))
    condition = data.get("condition")
    effects: list[str] = []
    if condition is not None:
        if condition not in _CONDITIONS:
            raise CampaignError(f"Table 'bh-operational-progress' row {entry.result!r} has an unknown condition {condition!r}.")
        if _CONDITIONS[condition] != success:
            change = 0
            effects.append(f"no change ({'2 or more' if success else 'fewer than 2'} Objective points last mission)")
    new = replace(
        op,
        modifier=op.modifier + change,
        extra_contacts=op.extra_contacts + int(data.get("contacts", 0)),
        extra_support_rolls=op.extra_support_rolls + int(data.get("support_rolls", 0)),
    )
    if change:
        effects.append(f"future rolls {change:+d} (running modifier {new.modifier:+d})")
    if data.get("contacts"):
        effects.append(f"+{int(data['contacts'])} enemy Contact marker in future missions")
    if data.get("support_rolls"):
        effects.append(f"+{int(data['support_rolls'])} Support roll in future missions")
    squad = replace(squad, operation=new)
    if data.get("xp_per_objective"):
        objectives, _ = objective_total(tables, outcome)
        present = [n for n in outcome.took_field if squad.get(n, field_name="took_field", active=False).active]
        if present:
            chosen, pick_rolls = _pick(
                dice, present, "Vital operation: who gets the XP", chosen=pick, face=pick_face, field_name="pick"
            )
            rolls.extend(pick_rolls)
            gain = int(data["xp_per_objective"]) * objectives
            trooper = squad.get(chosen)
            squad = squad.put(replace(trooper, xp=trooper.xp + gain))
            effects.append(f"{chosen} gains {gain} XP ({objectives} Objective point(s))")
        else:
            effects.append("nobody from the last mission is left to reward")
    if not effects:
        effects.append("no effect")
    line = f"{shown}: {entry.result}; {', '.join(effects)}."
    return Result(squad, tuple(rolls), (line,), data={"total": total, "result": entry.result, "reset": False})


# -- step 7: Military Life (p.206) -------------------------------------------------------------


def military_life(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    dice: Dice,
    *,
    pick: str | None = None,
    pick_face: int | None = None,
    face: int | None = None,
    fight_face: int | None = None,
) -> Result:
    """Step 7 (p.206): a random active main character (Sick Bay included; ``pick`` is the
    player's own pick, ``pick_face`` their die) rolls D100 on ``bh-military-life``
    (``face``: their D100) and the row is applied:

    - Reputation +1/-1 (never below 0); lose 2 unspent XP (not below 0); +1 XP.
    - fight: 1D6 + Combat Skill (``fight_face``), under 5 means next turn in Sick Bay.
    - Intel Corps: ``priority_shift_next`` = 1; brig: -1 Reputation, ``miss_next_mission``.
    - recommendation: +2 ``assignment_bonus``; reprimand: ``no_assignment_next``.
    - fit: -1 Sick Bay turn, or +1 XP if not in Sick Bay; sick: next turn in Sick Bay.
    - special duties: ``miss_next_mission`` and ``bonus_assignment_roll``.
    - tinkering, raise Speed / Combat Skill for 5 XP, cash in a favor: returned as an
      :class:`Offer` for :func:`accept_offer`.

    ``data``: ``{"trooper", "result"}``.
    """
    names = [t.name for t in squad.active]
    chosen, rolls_picked = _pick(dice, names, "Military Life: who", chosen=pick, face=pick_face, field_name="pick")
    rolls: list[RollRecord] = list(rolls_picked)
    table = _table(tables, "bh-military-life")
    record = (
        _enter("D100", [face], f"{chosen}: Military Life", "face") if face is not None else dice.d100(f"{chosen}: Military Life")
    )
    rolls.append(record)
    entry = table.resolve(record).entry
    data = entry.data
    trooper = squad.get(chosen)
    effects: list[str] = []
    offers: list[Offer] = []
    rep = int(data.get("reputation", 0))
    xp = int(data.get("xp", 0))
    if rep:
        squad = squad.with_reputation(rep)
        effects.append(f"Reputation {rep:+d} (now {squad.reputation})")
    if xp > 0:
        trooper = replace(trooper, xp=trooper.xp + xp)
        effects.append(f"+{xp} XP")
    elif xp < 0:
        lost = min(trooper.xp, -xp)
        trooper = replace(trooper, xp=trooper.xp - lost)
        effects.append(f"loses {lost} unspent XP")
    if "target" in data and "roll" in data:  # the fight
        target = int(data["target"])
        reason = f"{chosen}: fight, 1D6+Combat Skill"
        cs = trooper.profile.combat_skill
        fight = (
            _enter("D6", [fight_face], reason, "fight_face", modifier=cs)
            if fight_face is not None
            else dice.roll("D6", reason, modifier=cs)
        )
        rolls.append(fight)
        score = int(fight.total or 0)
        if score < target:
            trooper = _ensure_next_turn_in_sick_bay(trooper)
            effects.append(f"fight roll {fight.natural} {cs:+d} Combat Skill = {score}, under {target}: next turn in Sick Bay")
        else:
            effects.append(f"fight roll {fight.natural} {cs:+d} Combat Skill = {score}: walks away fine")
    elif data.get("priority"):
        squad = replace(squad, priority_shift_next=int(data["priority"]))
        effects.append(f"next mission's Priority may move {int(data['priority'])} up or down")
    elif data.get("special_assignment_bonus"):
        trooper = replace(trooper, assignment_bonus=trooper.assignment_bonus + int(data["special_assignment_bonus"]))
        effects.append(f"+{int(data['special_assignment_bonus'])} on the next Special Assignments roll")
    elif data.get("no_special_assignment"):
        trooper = replace(trooper, no_assignment_next=True)
        effects.append("no Special Assignment next turn")
    elif "xp_if_healthy" in data:  # feeling fit
        if trooper.in_sick_bay:
            trooper = replace(trooper, sick_bay=max(0, trooper.sick_bay + int(data["sick_bay_turns"])))
            effects.append(f"one turn less in Sick Bay ({trooper.sick_bay} left)")
        else:
            trooper = replace(trooper, xp=trooper.xp + int(data["xp_if_healthy"]))
            effects.append(f"+{int(data['xp_if_healthy'])} XP (no Sick Bay time to cut)")
    elif data.get("sick_bay_turns") == "1":  # got sick
        trooper = _ensure_next_turn_in_sick_bay(trooper)
        effects.append("next turn in Sick Bay")
    if data.get("miss_missions"):
        trooper = replace(trooper, miss_next_mission=True)
        effects.append("misses the next mission")
    if data.get("special_assignment_rolls"):
        trooper = replace(trooper, bonus_assignment_roll=True)
        effects.append("one extra Special Assignments roll next turn")
    if data.get("range_in"):
        offers.append(Offer(kind="tinkering", trooper=chosen, range_in=int(data["range_in"])))
        effects.append(f'may pick a personal weapon for +{int(data["range_in"])}" range')
    if data.get("stat"):
        stat, cost = str(data["stat"]), int(data["cost_xp"])
        offers.append(Offer(kind="raise_stat", trooper=chosen, stat=stat, cost_xp=cost))
        effects.append(f"may raise {PROFILE_NAMES[stat]} by 1 for {cost} XP")
    if data.get("max_reputation_spent"):
        offers.append(
            Offer(
                kind="cash_in_favor",
                trooper=chosen,
                max_reputation=int(data["max_reputation_spent"]),
                xp_per_reputation=int(data["xp_per_reputation"]),
                bonus_per_reputation=int(data["special_assignment_bonus_per_reputation"]),
            )
        )
        effects.append(f"may spend up to {int(data['max_reputation_spent'])} Reputation on XP or assignment bonuses")
    squad = squad.put(trooper)
    line = (
        f"{chosen} (Military Life, rolled {record.total}): {entry.result.rstrip('.')}; "
        + ("; ".join(effects) or "no effect")
        + "."
    )
    return Result(squad, tuple(rolls), (line,), tuple(offers), data={"trooper": chosen, "result": entry.result})


def accept_offer(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    offer: Offer,
    *,
    weapon: str | None = None,
    xp_points: int = 0,
    bonus_points: int = 0,
) -> Result:
    """Take a Military Life :class:`Offer` (p.206).

    - ``raise_stat``: pay ``cost_xp`` and raise the stat (maximum from ``bh-advancement``).
    - ``tinkering``: ``weapon`` (required) gets a range note.
    - ``cash_in_favor``: ``xp_points`` + ``bonus_points`` Reputation spent (at most
      ``max_reputation``), each XP point giving ``xp_per_reputation`` XP and each bonus point
      +``bonus_per_reputation`` on the next Special Assignments roll.

    Raises :class:`CampaignError` for an unknown kind, a missing weapon, too much Reputation or
    XP asked for, or a stat at its maximum.
    """
    trooper = squad.get(offer.trooper, field_name="offer.trooper")
    if offer.kind == "raise_stat":
        if offer.stat is None:
            raise CampaignError("offer.stat is required for raise_stat.")
        bought = advance(tables, trooper, offer.stat, cost=offer.cost_xp)
        return Result(squad.put(bought.trooper), (), (bought.text,), data=offer.as_dict())
    if offer.kind == "tinkering":
        if not weapon or not weapon.strip():
            raise CampaignError("weapon is required: name the personal weapon that gains range.")
        note = f'+{offer.range_in}" range: {weapon.strip()}'
        trooper = replace(trooper, weapon_notes=(*trooper.weapon_notes, note))
        return Result(squad.put(trooper), (), (f"{trooper.name} tinkers: {note}.",), data=offer.as_dict())
    if offer.kind == "cash_in_favor":
        spent = xp_points + bonus_points
        if xp_points < 0 or bonus_points < 0 or spent > offer.max_reputation:
            raise CampaignError(
                f"xp_points + bonus_points must be 0 to {offer.max_reputation} (each 0 or more); got {xp_points} + {bonus_points}."
            )
        if spent > squad.reputation:
            raise CampaignError(f"xp_points + bonus_points: the squad has only {squad.reputation} Reputation; asked for {spent}.")
        gained_xp = xp_points * offer.xp_per_reputation
        gained_bonus = bonus_points * offer.bonus_per_reputation
        trooper = replace(trooper, xp=trooper.xp + gained_xp, assignment_bonus=trooper.assignment_bonus + gained_bonus)
        squad = squad.put(trooper).with_reputation(-spent)
        line = (
            f"{trooper.name} cashes in {spent} Reputation: +{gained_xp} XP, +{gained_bonus} on the next Special Assignments roll."
        )
        return Result(squad, (), (line,), data=offer.as_dict())
    raise CampaignError(f"offer.kind must be one of raise_stat, tinkering, cash_in_favor; got {offer.kind!r}.")


# -- step 8: R&R (p.206) -----------------------------------------------------------------------


def rest_and_recreation(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    dice: Dice,
    *,
    pay_reputation: bool = False,
    pick: str | None = None,
    pick_face: int | None = None,
    face: int | None = None,
    fight_face: int | None = None,
) -> Result:
    """Step 8 (p.206, ``bh-rest-and-recreation``): after 4 missions in the operation since the
    last R&R (or when a parade made it due) the squad takes R&R: every trooper crosses off one
    extra Sick Bay turn and one more Military Life roll is made (``pick``/``pick_face``/
    ``face``/``fight_face`` as in :func:`military_life`). Without entitlement,
    ``pay_reputation`` buys it for 1 Reputation (light duties at HQ); this may be called at any
    time for that.

    ``data``: ``{"taken", "paid", "military_life"}``. Raises :class:`CampaignError` when paying
    with no Reputation.
    """
    earned = _row(tables, "bh-rest-and-recreation", "Earned R&R").data
    bought = _row(tables, "bh-rest-and-recreation", "Light duties at HQ").data
    op = squad.operation
    need = int(earned["missions"])
    entitled = op.rr_earned or op.missions_since_rr >= need
    paid = False
    if entitled:
        head = "R&R earned"
        rule = earned
    elif pay_reputation:
        cost = int(bought["reputation"])
        if squad.reputation < cost:
            raise CampaignError(f"pay_reputation: light duties cost {cost} Reputation; the squad has {squad.reputation}.")
        squad = squad.with_reputation(-cost)
        paid = True
        head = f"R&R on light duties for {cost} Reputation"
        rule = bought
    else:
        line = f"No R&R yet: {op.missions_since_rr} of {need} missions played since the last one."
        return Result(squad, (), (line,), data={"taken": False, "paid": False, "military_life": None})
    change = int(rule["sick_bay_turns"])
    healed: list[str] = []
    for trooper in squad.active:
        if trooper.in_sick_bay:
            squad = squad.put(replace(trooper, sick_bay=max(0, trooper.sick_bay + change)))
            healed.append(trooper.name)
    squad = replace(squad, operation=replace(squad.operation, missions_since_rr=0, rr_earned=False))
    lines = [f"{head}: " + (f"one Sick Bay turn off for {', '.join(healed)}." if healed else "nobody is in Sick Bay.")]
    rolls: list[RollRecord] = []
    offers: list[Offer] = []
    life_data: list[Mapping[str, Any]] = []
    for _ in range(int(rule["military_life_rolls"])):
        life = military_life(tables, squad, dice, pick=pick, pick_face=pick_face, face=face, fight_face=fight_face)
        squad = life.squad
        rolls.extend(life.rolls)
        lines.extend(life.lines)
        offers.extend(life.offers)
        life_data.append(life.data)
    return Result(
        squad,
        tuple(rolls),
        tuple(lines),
        tuple(offers),
        data={"taken": True, "paid": paid, "military_life": life_data[0] if life_data else None},
    )


# -- step 9: ready for another campaign turn (p.206) -------------------------------------------


def ready_for_next_turn(squad: Squad) -> Result:
    """Step 9 (p.206): close the campaign turn. Sick Bay time is counted down here: each
    trooper laid up this turn crosses off one turn. Then the turn number goes up and troopers
    with time left are marked laid up for the new turn (as :func:`campaign_turn_start` does).

    ``data``: ``{"turn", "recovered": [names], "sick_bay": {name: turns}}``.
    """
    recovered: list[str] = []
    troopers: list[Trooper] = []
    for trooper in squad.troopers:
        if trooper.active and trooper.laid_up:
            left = max(0, trooper.sick_bay - 1)
            if left == 0 and trooper.sick_bay > 0:
                recovered.append(trooper.name)
            trooper = replace(trooper, sick_bay=left)
        troopers.append(replace(trooper, laid_up=trooper.active and trooper.sick_bay > 0))
    squad = replace(squad, troopers=tuple(troopers), turn=squad.turn + 1)
    still = {t.name: t.sick_bay for t in squad.active if t.in_sick_bay}
    lines = [f"Ready for campaign turn {squad.turn}."]
    if recovered:
        lines.append(f"Back from Sick Bay: {', '.join(recovered)}.")
    if still:
        lines.append("Still in Sick Bay: " + ", ".join(f"{n} ({k} turn(s))" for n, k in still.items()) + ".")
    return Result(squad, (), tuple(lines), data={"turn": squad.turn, "recovered": recovered, "sick_bay": still})
