"""The campaign turn's service rules (Compendium p.9; six of ``turn.SERVICE_RULES``): the steps the
turn engine leaves to the service because they read or change the campaign's rows: Upkeep and
Ship Repairs with loan interest (p.32, p.154, core p.76), the elite-level enemy check (p.48),
the battle brief, post-battle injuries (p.101 or the campaign's injury table), the pre-battle
Lingering injury rolls (p.101) and XP. :func:`campaigns.turn_services.step_resolve` calls them
inside its transaction; each returns a :class:`~campaigns.engine.turn.StepResult` whose changes
the service applies, and the two injury rules also store the crew sheets they change.

Every function raises :class:`~rules.errors.DropshipError` naming the input at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from campaigns import crew_services
from campaigns.engine import characters as ch
from campaigns.engine import connections, difficulty, quests
from campaigns.engine import ship as ship_engine
from campaigns.engine import world as world_engine
from campaigns.engine.options import CampaignOptions
from campaigns.engine.turn import StepResult, StepSpec, post_battle
from campaigns.engine.view import CampaignView, Change
from campaigns.models import Campaign, Ship
from campaigns.selectors import fiveparsecs_tables, slot_tables
from campaigns.services import engine_call
from rules import bounds
from rules.engine.dice import Dice, RollRecord
from rules.errors import DropshipError


def engine[T](call: Callable[[], T]) -> T:
    """Engine refusals as :class:`DropshipError`; impossible dice name ``value``."""
    return engine_call(call, dice_field="value")


def crew_fielded(view: CampaignView, inputs: Mapping[str, Any]) -> int:
    """The crew fielded this battle: the typed ``crew_fielded`` (0 up to the stat cap), else the
    active crew's count. Raises :class:`DropshipError` naming ``crew_fielded`` for anything else."""
    raw = str(inputs.get("crew_fielded") or "").strip()
    if raw:
        if not (raw.isdecimal() and int(raw) <= bounds.STAT):
            raise DropshipError(f"crew_fielded {bounds.range_message(0, bounds.STAT)}; got {raw!r}.", field="crew_fielded")
        return int(raw)
    return len([c for c in view.crew if c.status == "active"])


def _typed_whole(inputs: Mapping[str, Any], field: str, low: int, high: int) -> int | None:
    """``inputs[field]`` as a whole number from ``low`` to ``high``, ``None`` when not given.
    Raises :class:`DropshipError` naming ``field`` and the range."""
    raw = inputs.get(field)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    text = str(raw).strip()
    if isinstance(raw, bool) or not (text.isdecimal() and low <= int(text) <= high):
        raise DropshipError(f"{field} {bounds.range_message(low, high)}; got {raw!r}.", field=field)
    return int(text)


def upkeep_cost(campaign: Campaign, view: CampaignView, inputs: Mapping[str, Any]) -> tuple[int | None, int]:
    """(upkeep in credits or None while the core figure is not given, crew counted) (p.32 or core p.76)."""
    crew = len([c for c in view.crew if c.status in ("active", "sick_bay")])
    core = _typed_whole(inputs, "core_upkeep", 0, bounds.MONEY)  # a JSON 0 is a typed upkeep of 0 credits
    return engine(lambda: difficulty.upkeep(view.options, max(crew, 1), core, tables=fiveparsecs_tables())), crew


def loan_interest(campaign: Campaign, dice: Dice) -> tuple[list[Change], list[RollRecord], list[str], dict[str, Any]]:
    """The loan's interest at Upkeep (p.154), after the turn's payments: (changes, rolls, words,
    facts with ``loan_balance_before``). Nothing without a loan. It applies however the Upkeep
    step was resolved (rolled, typed by hand or skipped)."""
    if not campaign.loan.get("origin"):
        return [], [], [], {}
    terms = world_engine.LoanTerms.from_dict(campaign.loan)
    owed = int(campaign.loan.get("balance", 0))
    interest, record = world_engine.loan_interest(terms, owed, dice)
    changes = [Change("loan", {"balance": interest})] if interest else []
    words = [f"loan interest +{interest} credits owed (p.154)"] if interest else ["no loan interest this turn"]
    return changes, [record] if record is not None else [], words, {"loan_balance_before": owed}


def _ship_repair(
    campaign: Campaign, options: CampaignOptions, inputs: Mapping[str, Any], credits: int
) -> tuple[list[Change], list[str]]:
    """Ship repairs at Upkeep and Ship Repairs (core p.76): ``repair_points`` Hull Points (0 to
    what the hull lacks; by default the free point, none with Money is Tight, p.32), the free
    point first (:func:`ship_engine.hull_repair`), and the rest paid: ``repair_cost`` credits,
    the core rulebook's price for them, typed by the player (0 to ``credits``, what the crew
    holds after Upkeep). Returns (changes, words).

    Raises :class:`DropshipError` naming ``repair_points`` (out of range, or no ship) or
    ``repair_cost`` (missing for paid points, more than the crew holds, or given when every
    point is free)."""
    ship = Ship.objects.filter(campaign=campaign).first()
    lacking = 0 if ship is None else max(0, ship.max_hull - ship.hull)
    if ship is None or not lacking:
        if _typed_whole(inputs, "repair_points", 0, bounds.SMALL_MAX):
            why = "the crew has no ship" if ship is None else f"the hull is whole ({ship.hull}/{ship.max_hull})"
            raise DropshipError(f"repair_points must be 0: {why}; got {inputs['repair_points']!r}.", field="repair_points")
        return [], []
    free = ship_engine.free_repair_points(options)
    wanted = _typed_whole(inputs, "repair_points", 0, lacking)
    points = min(free, lacking) if wanted is None else wanted
    current = crew_services.ship_engine_of(ship)
    mended, paid_points = engine_call(lambda: ship_engine.hull_repair(current, points, options))
    repaired = mended.hull - ship.hull
    cost = _typed_whole(inputs, "repair_cost", 0, bounds.MONEY)
    if paid_points and cost is None:
        raise DropshipError(
            f"repair_cost: {paid_points} of the {repaired} Hull Points are paid for"
            + (" (Money is Tight: no free repair, p.32)" if not free else "")
            + "; type what your core rulebook charges for them (0 to "
            + f"{max(credits, 0)} credits, what the crew has after Upkeep).",
            field="repair_cost",
        )
    if not paid_points and cost:
        raise DropshipError(
            f"repair_cost must be 0: the {repaired} Hull Point(s) repaired are free; got {cost}.", field="repair_cost"
        )
    cost = cost or 0
    if cost > credits:
        raise DropshipError(
            f"repair_cost must be from 0 to {max(credits, 0)}: the crew has {max(credits, 0)} credits after Upkeep; got {cost}.",
            field="repair_cost",
        )
    if not repaired:
        return [], []
    changes = [Change("ship", {"hull_damage": -repaired})]
    if cost:
        changes.insert(0, Change("credits", {"amount": -cost}))
    plural = "s" if repaired != 1 else ""
    if not paid_points:
        return changes, [f"{repaired} Hull Point{plural} repaired for free"]
    split = f"{repaired - paid_points} free, {paid_points} paid" if repaired > paid_points else "all paid"
    return changes, [f"{repaired} Hull Point{plural} repaired ({split}: {cost} credits)"]


def rule_upkeep(campaign: Campaign, view: CampaignView, spec: StepSpec, inputs: Mapping[str, Any], dice: Dice) -> StepResult:
    """Upkeep (Money is Tight, p.32, or the core figure typed in), ship repairs (the free Hull
    Point and any paid ones, :func:`_ship_repair`), and the loan's interest (p.154).

    Upkeep the crew cannot pay in full is refused by Upkeep and Ship Repairs (core p.76) until
    ``upkeep_paid`` says what the crew pays (0 to what it has): the rest is logged as unpaid for
    the core rules to settle (their consequence is not in our sources). Loan interest applies
    either way."""
    options = view.options
    cost, crew = upkeep_cost(campaign, view, inputs)
    if cost is None:
        raise DropshipError("core_upkeep: type the upkeep your core rulebook gives for this crew.", field="core_upkeep")
    paid = post_battle.upkeep_payment(cost, campaign.credits, inputs.get("upkeep_paid"))
    changes: list[Change] = [Change("credits", {"amount": -paid})] if paid else []
    words = [f"Upkeep {cost} credits for {crew} crew" + (" (Money is Tight)" if options.has("money_is_tight") else "")]
    if paid < cost:
        words.append(f"paid {paid}, {cost - paid} unpaid: settle it by the core rules on Upkeep (core p.76)")
    rolls: list[RollRecord] = []
    repair_changes, repair_words = _ship_repair(campaign, options, inputs, campaign.credits - paid)
    changes += repair_changes
    words += repair_words
    loan_changes, loan_rolls, loan_words, facts = loan_interest(campaign, dice)
    changes += loan_changes
    rolls += loan_rolls
    words += loan_words
    if paid < cost:
        facts["upkeep_unpaid"] = cost - paid
    return StepResult("; ".join(words) + ".", tuple(rolls), tuple(changes), facts)


def elite_fact(facts: Mapping[str, Any] | None) -> bool | None:
    """What this turn's elite-level enemy roll decided (p.48), or ``None`` before it was made."""
    value = (facts or {}).get("elite")
    return value if isinstance(value, bool) else None


def rule_elite_check(view: CampaignView, value: int | None, dice: Dice) -> StepResult:
    """Whether this battle's enemies are elite-level (p.48): the difficulty's roll, or the
    player's own (``value``); the turn fact ``elite`` keeps the answer."""
    tables = fiveparsecs_tables()
    level = difficulty.turn_difficulty(view.options, view.turn, tables)
    elite, roll = engine(lambda: difficulty.elite_check(level, tables, dice, value=value))
    text = "Elite-level enemies this battle (p.48)." if elite else "Use the standard enemy tables this battle."
    return StepResult(text, (roll.record,) if roll else (), (), {"elite": elite})


def rule_battle_brief(view: CampaignView, inputs: Mapping[str, Any], facts: Mapping[str, Any]) -> StepResult:
    """The battle brief: what the campaign's options change this battle (pp.22-48, 87, 99,
    for ``crew_fielded`` figures), a Quest battle's terms and a Connection's; kept as the turn
    facts ``brief``, ``quest_terms`` and ``brief_connection``."""
    tables = fiveparsecs_tables()
    reminders = difficulty.battle_brief(view.options, view.turn, tables, crew_fielded(view, inputs), elite=elite_fact(facts))
    quest = quests.battle_terms(view.quest_step, tables).lines if facts.get("mission") == quests.QUEST_MISSION else ()
    connection = connections.brief_lines(facts)
    if not reminders and not quest and not connection:
        return StepResult("No option changes this battle.", facts={"brief": []})
    text = " ".join([*(f"{r.title} ({r.source}): {r.text}" for r in reminders), *quest, *connection])
    return StepResult(
        text, facts={"brief": [r.as_dict() for r in reminders], "quest_terms": list(quest), "brief_connection": connection}
    )


def rule_injuries(campaign: Campaign, view: CampaignView, inputs: Mapping[str, Any], value: int | None, dice: Dice) -> StepResult:
    """Injuries for the battle's casualties (detailed table p.101, or the campaign's injury
    table, or typed), Reduced Lethality's exemption (p.34), then recovery: one turn less in
    Sick Bay for everyone already there."""
    tables = fiveparsecs_tables()
    casualties = [str(c) for c in (view.battle.casualties if view.battle else ())]
    exempt = str(inputs.get("exempt") or "").strip()
    allowed = difficulty.injury_exemption(view.options, casualties)
    if exempt:
        if not allowed:
            raise DropshipError(
                "exempt: Reduced Lethality lets one of two or more injured crew skip the roll; not now.", field="exempt"
            )
        if exempt not in casualties:
            raise DropshipError(
                f"exempt must be one of the casualties ({', '.join(casualties)}); got {exempt!r}.", field="exempt"
            )
    raw_armored = inputs.get("armored") or ()
    armored = {str(a) for a in ([raw_armored] if isinstance(raw_armored, str) else raw_armored)}
    rolls: list[RollRecord] = []
    words: list[str] = []
    injured: set[str] = set()
    members = {str(c.pk): c for c in campaign.characters.all()}
    user_table = slot_tables(campaign).get("injuries")
    for member_id in casualties:
        member = members.get(member_id)
        if member is None:
            continue
        if member_id == exempt:
            words.append(f"{member.name}: exempt, full recovery (Reduced Lethality)")
            continue
        sheet = crew_services.to_engine(member)
        if view.options.detailed_injuries and sheet.kind == "biological":
            wears_armor = member_id in armored
            outcome = engine(
                partial(ch.detailed_injury, tables, dice, sheet, value=value if len(casualties) == 1 else None, armor=wears_armor)
            )
            sheet = ch.detailed_injury_apply(sheet, outcome)
            rolls.extend(outcome.rolls)
            said = [outcome.result]
            if outcome.dead:
                said.append("killed")
            elif outcome.sick_bay_turns:
                said.append(f"{outcome.sick_bay_turns} turn(s) in Sick Bay")
            if outcome.lasting:
                said.append(f"lasting: {outcome.lasting}")
            if outcome.treatment_credits:
                said.append(f"treatment {outcome.treatment_credits} credits")
            if outcome.item and outcome.item_result:
                said.append(f"{outcome.item} {outcome.item_result.lower()}")
            words.append(f"{member.name}: " + ", ".join(said))
        elif user_table is not None:
            result = user_table.to_engine().roll_or_enter(
                dice, value=value if len(casualties) == 1 else None, reason=f"Injury: {member.name}"
            )
            rolls.append(result.record)
            words.append(f"{member.name}: {result.entry.result}" + (f" ({result.entry.effect})" if result.entry.effect else ""))
            turns = int(result.entry.data.get("sick_bay", 0) or 0)
            sheet = ch.injury_apply(sheet, result.entry.result, turns) if turns or result.entry.data.get("injury") else sheet
        else:
            words.append(f"{member.name}: roll on your core injury table and record it on their sheet")
        injured.add(member_id)
        crew_services.store(member, sheet)
    for member_id, member in members.items():
        if member_id in injured or member.status != "sick_bay":
            continue
        before = member.sick_bay
        sheet = ch.sick_bay_tick(crew_services.to_engine(member))
        crew_services.store(member, sheet)
        if sheet.sick_bay != before or sheet.status != "sick_bay":
            words.append(
                f"{member.name} recovers: {sheet.sick_bay} turn(s) left in Sick Bay"
                if sheet.sick_bay
                else f"{member.name} leaves Sick Bay"
            )
    return StepResult("; ".join(words) + "." if words else "No injuries to roll.", tuple(rolls))


def rule_pre_battle_injuries(campaign: Campaign, value: int | None, dice: Dice) -> StepResult:
    """Before the battle (p.101): a D6 for each Lingering injury of the active crew (1: sits
    this battle out, 6: that injury is over), and the injury penalties in play. A character
    who sits out goes to Sick Bay with no turns to serve, so the battle does not field them
    and the recovery at post-battle injuries brings them back. ``value``: your own D6 when
    only one roll is needed."""
    tables = fiveparsecs_tables()
    members = [m for m in campaign.characters.filter(status="active") if m.sheet.get("injuries")]
    needed = sum(list(m.sheet.get("injuries") or ()).count(ch.LINGERING_INJURY) for m in members)
    if value is not None and needed != 1:
        raise DropshipError(f"value: {needed} Lingering injury rolls are needed; type only one when one is.", field="value")
    rolls: list[RollRecord] = []
    words: list[str] = []
    sitting_out: list[str] = []
    for member in members:
        sheet = crew_services.to_engine(member)
        if ch.LINGERING_INJURY in sheet.injuries:
            count = sheet.injuries.count(ch.LINGERING_INJURY)
            faces = None if value is None else [value]
            sheet, results, sits_out = engine(partial(ch.lingering_check, sheet, tables, dice, faces))
            rolls.extend(r.record for r in results)
            said = ", ".join(f"{r.record.total} ({r.entry.result})" for r in results)
            words.append(f"{member.name}'s Lingering injur{'y' if count == 1 else 'ies'}: {said}")
            if sits_out:
                sheet = replace(sheet, status="sick_bay")
                sitting_out.append(str(member.pk))
                words.append(f"{member.name} sits this battle out")
            gone = count - sheet.injuries.count(ch.LINGERING_INJURY)
            if gone:
                words.append(f"{member.name} is over {gone} Lingering injur{'y' if gone == 1 else 'ies'}")
            crew_services.store(member, sheet)
        penalties = ch.injury_penalties(sheet, tables)
        if penalties.get("combat_skill") or penalties.get("speed"):
            stats = ch.battle_stats(sheet, tables)
            words.append(f'{member.name} fights at Combat Skill {stats["combat_skill"]:+d}, Speed {stats["speed"]}"')
        if penalties.get("stun_markers_to_knock_out"):
            words.append(f"{member.name} is knocked out at {penalties['stun_markers_to_knock_out']} Stun markers")
    text = "; ".join(words) + "." if words else "No injury affects this battle."
    return StepResult(text, tuple(rolls), facts={"sitting_out": sitting_out})


def rule_xp(campaign: Campaign, inputs: Mapping[str, Any]) -> StepResult:
    """XP for each crew member, as the core rules award it (typed per crew member, ``xp_<id>``).
    Bots earn none (:func:`campaigns.engine.turn.post_battle.xp_refusal`)."""
    changes: list[Change] = []
    said: list[str] = []
    for member in campaign.characters.filter(status__in=("active", "sick_bay")).order_by("id"):
        name = f"xp_{member.pk}"
        raw = str(inputs.get(name) or "").strip()
        if not raw:
            continue
        if not (raw.isdecimal() and int(raw) <= bounds.XP):
            raise DropshipError(
                f"{name}: {member.name}'s XP {bounds.range_message(0, bounds.XP)}; got {raw!r}.",
                field=name,
            )
        engine(partial(post_battle.xp_refusal, member.name, member.kind, int(raw), name))
        if int(raw):
            changes.append(Change("character", {"id": str(member.pk), "xp": int(raw)}))
            said.append(f"{member.name} +{int(raw)}")
    return StepResult("XP: " + ", ".join(said) + "." if said else "No crew member earned XP this battle.", (), tuple(changes))
