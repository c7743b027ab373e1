"""The guided campaign turn (Compendium p.9): start a turn, resolve its steps one by one, undo
the last one.

A turn's plan comes from ``campaigns.engine.turn.plan_turn``. Each step is resolved in one of
four ways: ``roll`` (the app rolls the step's table, or runs its rule), ``enter`` (the player's
own roll, ``value``), ``manual`` (the result typed by hand, with any credits or Story Points it
gave) or ``skip`` (a step that does not apply this time). Steps whose condition fails are
skipped on their own. Every step keeps the campaign as it was before it, so undo puts that back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from django.db import transaction

from campaigns import crew_services, documents, turn_rules
from campaigns.engine import connections, difficulty, turn
from campaigns.engine import ship as ship_engine
from campaigns.engine.slots import slot as slot_spec
from campaigns.engine.turn import StepResult, StepSpec, post_battle, salvage
from campaigns.engine.turn import battle as battle_engine
from campaigns.engine.view import BattleView, CampaignView, Change, FactionView, RivalView, WorldView
from campaigns.models import Campaign, Ship, Turn, TurnStep
from campaigns.selectors import current_turn, fiveparsecs_tables, slot_tables
from campaigns.services import apply_changes, current_world, load, log, options_of, touch
from campaigns.turn_rules import engine as _engine
from rules import bounds
from rules.engine.dice import Dice
from rules.errors import DropshipError

MODES = ("roll", "enter", "manual", "skip")


def build_view(campaign: Campaign, current: Turn | None = None, number: int | None = None) -> CampaignView:
    """The engine's view of ``campaign`` (``number``: the turn being played)."""
    world = current_world(campaign)
    ship = Ship.objects.filter(campaign=campaign).first()
    battle = (current.facts.get("battle") if current else None) or None
    return CampaignView(
        turn=number if number is not None else campaign.turn,
        options=options_of(campaign),
        crew=tuple(crew_services.crew_views(campaign)),
        credits=campaign.credits,
        story_points=campaign.story_points,
        rivals=tuple(
            RivalView(name=r.name, kind=r.kind, elite=r.elite, psi_hunter=r.psi_hunter, collector=r.collector)
            for r in campaign.rivals.all()
        ),
        patrons=tuple(p.name for p in campaign.patrons.all()),
        rumors=len(campaign.rumors),
        quest=campaign.quest,
        world=WorldView(
            name=world.name,
            traits=tuple(world.traits),
            psionic_legality=world.psionic_legality,
            instability=world.instability,
            invaded=world.invaded,
            unstable=world.unstable,
            strife=str(world.strife.get("last", "")),
            arrived_turn=world.arrived_turn,
        )
        if world
        else WorldView(),
        ship_components=tuple(str(c.get("name") if isinstance(c, dict) else c) for c in (ship.components if ship else [])),
        has_ship=ship is not None,
        loan_balance=int(campaign.loan["balance"]) if campaign.loan.get("balance") is not None else None,
        battle=BattleView(**{**battle, "casualties": tuple(battle.get("casualties", ()))}) if battle else None,
        loan_terms=campaign.loan or None,
        factions=tuple(FactionView(**f) for f in campaign.factions),
        quest_step=dict(campaign.quest_step or {}),
        connection_history=_connection_history(campaign, current),
    )


def _connection_history(campaign: Campaign, current: Turn | None) -> tuple[bool, ...]:
    """Earlier turns' Connection checks, oldest first: True when a Connection was played (p.80)."""
    earlier = campaign.turns.order_by("number").only("facts")
    if current is not None:
        earlier = earlier.exclude(pk=current.pk)
    return tuple(connections.played(t.facts[connections.FACT]) for t in earlier if connections.FACT in t.facts)


def _spec(data: Mapping[str, Any]) -> StepSpec:
    return StepSpec(
        **{
            **data,
            "inputs": tuple((n, k, tuple(c)) for n, k, c in data.get("inputs", [])),
            "optional_inputs": tuple(data.get("optional_inputs", [])),
        }
    )


def _condition_words(condition: str) -> str:
    """``"factions&not_invaded"`` as ``"factions and not invaded"``."""
    return " and ".join(term.replace("not_", "not ").replace("_", " ") for term in condition.split("&") if term)


def _advance(campaign: Campaign, current: Turn) -> None:
    """Skip the steps whose condition fails from the current position on; end the turn after
    its last step."""
    view = build_view(campaign, current)
    while current.position < len(current.plan):
        spec = _spec(current.plan[current.position])
        if turn.applies(spec, view, current.facts):
            break
        TurnStep.objects.create(
            turn=current,
            index=current.position,
            key=spec.key,
            title=spec.title,
            phase=spec.phase,
            mode="skipped",
            text=f"Does not apply this turn (it needs: {_condition_words(spec.condition)}).",
        )
        current.position += 1
    if current.position >= len(current.plan) and not current.finished:
        current.finished = True
        log(campaign, "step", f"Campaign turn {current.number} is over.")
    current.save()


@transaction.atomic
def turn_start(*, user: Any, campaign_id: int, version: int | None) -> Turn:
    """Start the next campaign turn with its plan (p.9, with the optional steps the campaign's
    options bring). Raises :class:`DropshipError` while a turn is still being played."""
    campaign = load(user, campaign_id, version)
    if current_turn(campaign) is not None:
        raise DropshipError(f"Turn {campaign.turn} is still being played; finish or undo its steps first.", field="turn")
    number = campaign.turn + 1
    view = build_view(campaign, number=number)
    plan = _engine(lambda: turn.plan_turn(view, fiveparsecs_tables()))
    campaign.turn = number
    current = Turn.objects.create(campaign=campaign, number=number, plan=[s.as_dict() for s in plan])
    log(campaign, "step", f"Campaign turn {number} begins ({len(plan)} steps planned).")
    _advance(campaign, current)
    touch(campaign)
    return current


#: Turn facts ``table:<step key>`` hold the entry a step rolled on the user's table.
TABLE_FACT = "table:"


#: Turn facts that add to a step's roll: a co-op battle's Invasion check modifier (p.41).
ROLL_MODIFIERS: dict[str, str] = {"post.invasion": "invasion_modifier"}


def _roll_table(
    spec: StepSpec, campaign: Campaign, value: int | None, dice: Dice, facts: Mapping[str, Any] | None = None
) -> StepResult | None:
    """Roll the step's Compendium table, or the table mapped to its slot; None without one.
    A fact named by :data:`ROLL_MODIFIERS` for the step is added to the roll (and said)."""
    user = slot_tables(campaign).get(spec.slot) if spec.slot else None
    modifier = int((facts or {}).get(ROLL_MODIFIERS.get(spec.key, ""), 0) or 0)
    if user is not None:
        engine = user.to_engine()
        if engine.is_reference:
            return None
        reason = spec.title + (f" (+{modifier}, co-op battle waves with the Invasion Threat trait, p.41)" if modifier else "")
        result = _engine(lambda: engine.roll_or_enter(dice, value=value, modifier=modifier, reason=reason))
        text = f"{result.entry.result}" + (f": {result.entry.effect}" if result.entry.effect else "") + f" ({user.title})"
        # The entry itself, for what reads the turn later (a battle set-up takes the objective,
        # the enemy, the deployment conditions and the notable sights from here).
        rolled_entry = {
            "result": result.entry.result,
            "effect": result.entry.effect,
            "data": dict(result.entry.data),
            "table": user.title,
        }
        return StepResult(text, (result.record,), facts={f"{TABLE_FACT}{spec.key}": rolled_entry})
    tables = fiveparsecs_tables()
    if spec.table and spec.table in tables and not tables[spec.table].is_reference:
        result = _engine(lambda: tables[spec.table].roll_or_enter(dice, value=value, reason=spec.title))
        text = f"{result.entry.result}" + (f": {result.entry.effect}" if result.entry.effect else "")
        return StepResult(text, (result.record,))
    return None


def _resolve(
    campaign: Campaign, current: Turn, spec: StepSpec, mode: str, value: int | None, inputs: Mapping[str, Any], dice: Dice
) -> StepResult:
    view = build_view(campaign, current)
    if spec.rule in turn.ENGINE_RULES:
        result: StepResult = _engine(
            lambda: turn.resolve(
                spec,
                view,
                fiveparsecs_tables(),
                dice,
                value=value if mode == "enter" else None,
                inputs=inputs,
                facts=current.facts,
            )
        )
        if result.needs:
            raise DropshipError(f"{spec.title} needs {_needs_words(spec, result.needs)}.", field=result.needs[0])
        return result
    if spec.rule == "upkeep":
        return turn_rules.rule_upkeep(campaign, view, spec, inputs, dice)
    if spec.rule == "elite_check":
        return turn_rules.rule_elite_check(view, value if mode == "enter" else None, dice)
    if spec.rule == "battle_brief":
        return turn_rules.rule_battle_brief(view, inputs, current.facts)
    if spec.rule == "injuries":
        return turn_rules.rule_injuries(campaign, view, inputs, value if mode == "enter" else None, dice)
    if spec.rule == "xp":
        return turn_rules.rule_xp(campaign, inputs)
    if spec.rule == "pre_battle_injuries":
        return turn_rules.rule_pre_battle_injuries(campaign, value if mode == "enter" else None, dice)
    if spec.rule in ("training", "purchase"):
        return StepResult(f"{spec.title}: done on the crew and ship pages.")
    pay = _salvage_pay(current, spec)
    if pay is not None:
        if spec.key == "post.paid":
            return _engine(lambda: salvage.get_paid(pay, inputs))
        if spec.key == "post.salvage_poi":
            return salvage.poi_finds(pay)
        units = int(current.facts.get(salvage.UNITS, pay.get("units") or 0))
        return _engine(lambda: salvage.trade(pay, units, inputs))
    rolled = _roll_table(spec, campaign, value if mode == "enter" else None, dice, current.facts)
    if rolled is None:
        where = f" or map a table to the {slot_spec(spec.slot).title} slot" if spec.slot else ""
        raise DropshipError(f"{spec.title} has no table to roll here: record the result by hand{where}.", field="mode")
    return rolled


#: The steps a finished Salvage job's pay resolves (:mod:`campaigns.engine.turn.salvage`, p.147).
SALVAGE_STEPS = ("post.paid", "post.trade_salvage", "post.salvage_poi")


def _salvage_pay(current: Turn, spec: StepSpec) -> Mapping[str, Any] | None:
    """What the turn's Salvage job pays, when ``spec`` is a step it resolves; else None."""
    pay = current.facts.get(salvage.FACT)
    return pay if spec.key in SALVAGE_STEPS and isinstance(pay, Mapping) else None


#: The turn fact naming the finished battle a "Record the battle" step took its result from.
BATTLE_SOURCE = "battle_source"


def turn_battle(campaign: Campaign, current: Turn) -> battle_engine.BattleRecord | None:
    """The finished battle whose result this turn's "Record the battle" step records, or None.

    The latest finished battle set up in this turn; else the latest finished one set up before
    any turn began, or between the previous turn's "Record the battle" and this turn, that no
    turn has recorded yet. Battles are read through the campaign's reverse relation (the
    battles app builds on campaigns, never the other way); each keeps its record in
    ``result["record"]`` (:meth:`BattleRecord.as_dict`)."""
    taken = {int((t.facts.get(BATTLE_SOURCE) or {}).get("id") or 0) for t in campaign.turns.exclude(pk=current.pk).only("facts")}
    previous = campaign.turns.filter(number=current.number - 1).first()
    recorded_at = (
        previous.steps.filter(key="battle.record").order_by("-id").values_list("created", flat=True).first()
        if previous is not None
        else None
    )
    earlier: Any = None
    for row in campaign.battles.filter(status="finished").order_by("-id"):
        data = (row.result or {}).get("record")
        if not data or row.pk in taken:
            continue
        if row.turn_number == current.number:
            return _engine(partial(battle_engine.BattleRecord.from_dict, data))
        between = row.turn_number is None or (
            row.turn_number == current.number - 1 and recorded_at is not None and row.created >= recorded_at
        )
        if earlier is None and between and not row.reported:
            earlier = data
    return None if earlier is None else _engine(lambda: battle_engine.BattleRecord.from_dict(earlier))


def crew_names(campaign: Campaign) -> dict[str, str]:
    """Crew ids (as text) to names."""
    return {str(pk): name for pk, name in campaign.characters.values_list("pk", "name")}


def _field(
    name: str,
    kind: str,
    *,
    required: bool = False,
    choices: Sequence[Any] = (),
    minimum: int | None = None,
    maximum: int | None = None,
    note: str = "",
) -> dict[str, Any]:
    return {
        "name": name,
        "kind": kind,
        "required": required,
        "choices": [str(c) for c in choices],
        "minimum": minimum,
        "maximum": maximum,
        "decided": None,
        "note": note,
    }


def step_fields(campaign: Campaign, current: Turn, spec: StepSpec, view: CampaignView | None = None) -> list[dict[str, Any]]:
    """Every input the step reads: ``{name, kind, required, choices, minimum, maximum, decided,
    note}``. Kinds: ``choice`` (one of ``choices``), ``count`` and ``int`` (whole numbers within
    ``minimum``/``maximum`` where given), ``text``, ``crew_id`` (one crew id of ``choices``),
    ``crew_ids`` (a list of them), ``faction`` (a Faction name of ``choices``), ``rival`` (a
    Rival name of ``choices``). ``decided`` is the value a finished battle decided (the step
    takes it; see :func:`turn_battle`)."""
    view = view or build_view(campaign, current)
    crew = [c for c in view.crew if c.status in ("active", "sick_bay")]
    fields: list[dict[str, Any]] = []
    for name, kind, choices in spec.inputs:
        made = _field(name, kind, required=name not in spec.optional_inputs, choices=choices)
        if kind == "count":
            made["minimum"] = 0
        elif kind == "crew_ids":
            made["choices"] = [c.id for c in crew]
        elif kind == "faction":
            made["choices"] = [f.name for f in view.factions]
        elif kind == "rival":
            made["choices"] = [r.name for r in view.rivals]
        fields.append(made)
    if spec.rule == "battle_record":
        record = turn_battle(campaign, current)
        if record is not None:
            decided = record.inputs()
            for made in fields:
                if made["name"] in decided:
                    made["decided"], made["required"] = decided[made["name"]], False
            fields.append(
                _field(
                    battle_engine.OVERRIDE,
                    "choice",
                    choices=("yes", "no"),
                    note=f"Record something other than the finished battle {record.title} (logged).",
                )
            )
    elif spec.rule == "upkeep":
        cost, _crew = turn_rules.upkeep_cost(campaign, view, {})
        tight = view.options.has("money_is_tight")
        fields.append(
            _field(
                "core_upkeep",
                "int",
                required=not tight,
                minimum=0,
                maximum=bounds.MONEY,
                note="Upkeep from your core rulebook; not read with Money is Tight (p.32).",
            )
        )
        short = cost is not None and cost > campaign.credits
        fields.append(
            _field(
                "upkeep_paid",
                "int",
                required=short,
                minimum=0,
                maximum=max(0, min(cost, campaign.credits)) if cost is not None else max(0, campaign.credits),
                note=f"{post_battle.UPKEEP_RULE} wants the Upkeep paid: when the crew cannot pay it all, say what it "
                "pays and settle the rest by the core rules.",
            )
        )
        ship = Ship.objects.filter(campaign=campaign).first()
        if ship is not None and ship.hull < ship.max_hull:
            free = ship_engine.free_repair_points(view.options)
            fields += [
                _field(
                    "repair_points",
                    "int",
                    minimum=0,
                    maximum=ship.max_hull - ship.hull,
                    note=f"Hull Points to repair (hull {ship.hull}/{ship.max_hull}); default "
                    + (f"the {free} free point." if free else "none: Money is Tight gives no free repair (p.32)."),
                ),
                _field(
                    "repair_cost",
                    "int",
                    minimum=0,
                    maximum=bounds.MONEY,
                    note="Credits your core rulebook charges for the points that are not free"
                    + (" (the first is free)." if free else " (every point, with Money is Tight, p.32)."),
                ),
            ]
    elif (pay := _salvage_pay(current, spec)) is not None:
        fields += _salvage_fields(spec, pay, int(current.facts.get(salvage.UNITS, pay.get("units") or 0)))
    elif spec.rule in ("connection_accept", "connection_rewards"):
        connections.field_notes(fields, current.facts)
    elif spec.rule == "battle_brief":
        fields.append(_field("crew_fielded", "count", minimum=0, maximum=bounds.STAT, note="Default: the active crew."))
    elif spec.rule == "injuries":
        casualties = [str(c) for c in (view.battle.casualties if view.battle else ())]
        if difficulty.injury_exemption(view.options, casualties):
            fields.append(
                _field("exempt", "crew_id", required=True, choices=casualties, note="Reduced Lethality (p.34): spared the roll.")
            )
        if view.options.detailed_injuries:
            fields.append(_field("armored", "crew_ids", choices=casualties, note="Wearing armor (p.101)."))
    elif spec.rule == "xp":
        earners = campaign.characters.filter(status__in=("active", "sick_bay")).exclude(kind__in=post_battle.NO_XP_KINDS)
        for member in earners.order_by("id"):
            fields.append(
                _field(
                    f"xp_{member.pk}",
                    "count",
                    required=member.status == "active",
                    minimum=0,
                    maximum=bounds.XP,
                    note=f"{member.name}'s XP from this battle (core rules).",
                )
            )
    return fields


def _salvage_fields(spec: StepSpec, pay: Mapping[str, Any], units: int) -> list[dict[str, Any]]:
    """Get paid asks for the Illegal job's penalty when the law caught the crew (p.138); Trade
    Salvage for the Scrappers' offers bought and the units cashed in (p.147)."""
    if spec.key == "post.salvage_poi":
        return []
    if spec.key == "post.paid":
        if not salvage.caught(pay):
            return []
        face = (pay.get("illegal") or {}).get("roll")
        note = (
            f"The law is on your trail (D6 {face}): a fine of {face} credits, every Salvage unit, or an Enforcer Rival (p.138)."
        )
        return [_field("illegal_penalty", "choice", required=True, choices=salvage.PENALTIES, note=note)]
    prices = ", ".join(str(p) for p in pay.get("scrappers") or [])
    return [
        _field("scrappers", "text", note=f"Offers bought, by number (prices {prices} Salvage units; you hold {units})."),
        _field(
            "salvage_cashed",
            "count",
            minimum=0,
            maximum=units,
            note=f"Units cashed in at 1 credit each, ONLY for {salvage.CASH_USES} (p.147).",
        ),
    ]


#: What each kind of step input takes, in words (see ``StepSpec.inputs``).
_KIND_WORDS = {
    "count": "a whole number, 0 or more",
    "int": "a whole number",
    "text": "words",
    "crew_ids": "crew ids",
    "faction": "a Faction on this world",
}


def _needs_words(spec: StepSpec, needs: Sequence[str]) -> str:
    """The inputs a step still needs, each with what it takes: ``"held_field (one of yes, no)"``."""
    asked = {name: (kind, choices) for name, kind, choices in spec.inputs}
    words = []
    for name in needs:
        kind, choices = asked.get(name, ("", ()))
        allowed = f"one of {', '.join(choices)}" if choices else _KIND_WORDS.get(kind, "")
        words.append(f"{name} ({allowed})" if allowed else name)
    return ", ".join(words)


def _check_fields(campaign: Campaign, spec: StepSpec, fields: Sequence[Mapping[str, Any]], given: Mapping[str, Any]) -> None:
    """Refuse a service-rule step with a required input missing, or XP for a Bot (whose
    ``xp_<id>`` is not among the step's inputs). Other inputs the step does not read are left
    aside, as the engine steps do. Raises :class:`DropshipError` naming the input."""
    for made in fields:
        if made["required"] and made["name"] not in given:
            allowed = (
                f"one of {', '.join(made['choices'])}"
                if made["choices"]
                else bounds.range_message(made["minimum"] or 0, made["maximum"] or bounds.MONEY)
            )
            raise DropshipError(f"{spec.title} needs {made['name']} ({allowed}). {made['note']}".strip(), field=made["name"])
    if spec.rule != "xp":
        return
    for name, value in given.items():
        if not (name.startswith("xp_") and name[3:].isdecimal()):
            continue
        bot = campaign.characters.filter(pk=int(name[3:]), kind__in=post_battle.NO_XP_KINDS).first()
        if bot is not None:
            _engine(partial(post_battle.xp_refusal, bot.name, bot.kind, _whole(value), name))


def _whole(value: Any) -> int:
    text = str(value).strip()
    return int(text) if text.isdecimal() else 1


def step_guide(campaign: Campaign, current: Turn) -> dict[str, Any] | None:
    """What the turn page shows for the step to play: its spec, whether the app can roll it,
    the mapped table, its inputs and a preview of service rules."""
    if current.position >= len(current.plan):
        return None
    spec = _spec(current.plan[current.position])
    mapped = slot_tables(campaign).get(spec.slot) if spec.slot else None
    tables = fiveparsecs_tables()
    fixture = tables.get(spec.table) if spec.table else None
    rollable = (
        bool(spec.rule)
        or (mapped is not None and bool(mapped.die))
        or (fixture is not None and not fixture.is_reference)
        or _salvage_pay(current, spec) is not None
    )
    die = mapped.die if mapped is not None else (fixture.die if fixture is not None else "")
    view = build_view(campaign, current)
    preview = ""
    if spec.rule == "battle_brief":
        brief = difficulty.battle_brief(
            view.options, view.turn, tables, turn_rules.crew_fielded(view, {}), elite=turn_rules.elite_fact(current.facts)
        )
        preview = "; ".join([*(r.title for r in brief), *connections.brief_lines(current.facts)[:1]])
    elif spec.rule == "upkeep":
        crew = len([c for c in view.crew if c.status in ("active", "sick_bay")])
        cost = difficulty.upkeep(view.options, max(crew, 1), None, tables=tables)
        preview = f"Money is Tight: {cost} credits." if cost is not None else "Type the upkeep from your core rulebook."
        if cost is not None and cost > campaign.credits:
            preview += f" The crew has {campaign.credits}: say what it pays (core p.76)."
    coop = bool(current.facts.get("coop"))
    if coop and spec.key == "post.paid":
        preview = f"Co-op battle: +{int(current.facts.get('pay_bonus') or 1)} when you roll for credits (p.41)."
    elif coop and spec.key == "post.invasion" and current.facts.get("invasion_modifier"):
        preview = f"Co-op battle: +{current.facts['invasion_modifier']} to this roll, one per wave with the Invasion Threat trait (p.41)."
    pay = _salvage_pay(current, spec)
    if pay is not None and spec.key == "post.paid":
        preview = f"The Salvage job: {pay.get('units', 0)} Salvage units, {pay.get('credits', 0)} credits found (pp.146-147)."
    elif pay is not None and spec.key == "post.salvage_poi":
        preview = "The tracker rolled these when the job ended (p.146)."
    elif pay is not None:
        prices = ", ".join(str(p) for p in pay.get("scrappers") or [])
        preview = f"The Scrappers' three Loot rolls cost {prices} Salvage units (p.147)."
    record = turn_battle(campaign, current) if spec.rule == "battle_record" else None
    fields = step_fields(campaign, current, spec, view)
    return {
        "spec": spec,
        "mapped": mapped,
        "die": die,
        "table_title": fixture.title if fixture is not None else "",
        "rollable": rollable,
        "inputs": list(spec.inputs),
        "optional": set(spec.optional_inputs),
        "crew": [c for c in campaign.characters.all() if c.status in ("active", "sick_bay")],
        "factions": [f.get("name") for f in campaign.factions],
        "rivals": next((f["choices"] for f in fields if f["kind"] == "rival"), []),
        "preview": preview,
        "remaining": len(current.plan) - current.position,
        "fields": fields,
        "battle": record,
        "salvage": _salvage_pay(current, spec) is not None,
        "battle_words": battle_engine.record_words(record, crew_names(campaign)) if record is not None else "",
        "decided": {f["name"] for f in fields if f["decided"] is not None},
        "xp_crew": [
            c for c in campaign.characters.filter(status__in=("active", "sick_bay")) if c.kind not in post_battle.NO_XP_KINDS
        ],
    }


def _battle_inputs(
    campaign: Campaign, record: battle_engine.BattleRecord, mode: str, given: Mapping[str, Any]
) -> tuple[dict[str, Any], str, bool]:
    """The "Record the battle" inputs with the finished battle's result filled in, the log note
    (where the record came from) and whether the player typed over it (``override_battle: yes``). Raises
    :class:`DropshipError` for a typed input that contradicts the battle, or for recording the
    step by hand or skipping it, without the override."""
    names = crew_names(campaign)
    words = battle_engine.record_words(record, names)
    override = _engine(lambda: battle_engine.wants_override(given))
    if mode in ("manual", "skip"):
        if not override:
            raise DropshipError(
                f"mode: the battle {record.title} is finished and recorded {words}. Resolve this step to confirm it, "
                f"or send {battle_engine.OVERRIDE}: yes to {'record it by hand' if mode == 'manual' else 'skip it'} "
                "instead (it is logged).",
                field="mode",
            )
        return dict(given), f" Recorded by hand over the finished battle {record.title}, which recorded {words}.", True
    merged, overridden = _engine(lambda: battle_engine.record_inputs(record, given, names=names))
    if not overridden:
        return merged, f" From the battle {record.title}.", False
    typed = ", ".join(name.replace("_", " ") for name in overridden)
    return merged, f" Typed over the finished battle {record.title} ({typed}), which recorded {words}.", True


@transaction.atomic
def step_resolve(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    mode: str,
    value: int | None = None,
    inputs: Mapping[str, Any] | None = None,
    text: str = "",
    credits: int = 0,
    story_points: int = 0,
    dice: Dice | None = None,
) -> TurnStep:
    """Resolve the turn's current step (see the module docstring for ``mode``). ``inputs`` are
    the step's inputs (travel yes/no, battle type, battle record ...). The result, its rolls and
    its changes land in the log; the turn moves on. Raises :class:`DropshipError` naming the
    missing or bad input; nothing is written then."""
    campaign = load(user, campaign_id, version)
    current = current_turn(campaign)
    if current is None or current.position >= len(current.plan):
        raise DropshipError("No turn is being played; start the next turn first.", field="turn")
    if mode not in MODES:
        raise DropshipError(f"mode must be one of {', '.join(MODES)}; got {mode!r}.", field="mode")
    spec = _spec(current.plan[current.position])
    before = documents.snapshot(campaign, current)
    given = {k: v for k, v in (inputs or {}).items() if v not in (None, "", [])}
    dice = dice or Dice()
    if mode == "enter" and value is None:
        raise DropshipError("value is required: the number your dice show.", field="value")
    record = turn_battle(campaign, current) if spec.rule == "battle_record" else None
    over_battle, overridden = "", False
    if record is not None:
        given, over_battle, overridden = _battle_inputs(campaign, record, mode, given)
    if mode in ("manual", "skip"):
        if mode == "manual" and not text.strip():
            raise DropshipError("text is required: what happened at this step.", field="text")
        changes = [Change("credits", {"amount": credits})] if credits else []
        changes += [Change("story_points", {"amount": story_points})] if story_points else []
        result = StepResult(text.strip() or "Skipped.", (), tuple(changes))
        if spec.rule == "upkeep":
            # Loan interest accrues at Upkeep however the step is resolved (p.154).
            loan_changes, loan_rolls, loan_words, loan_facts = turn_rules.loan_interest(campaign, dice)
            if loan_words:
                result = StepResult(
                    f"{result.text.rstrip('.')}. {'; '.join(loan_words).capitalize()}.",
                    tuple(loan_rolls),
                    (*result.changes, *loan_changes),
                    loan_facts,
                )
    else:
        engine_inputs = {k: v for k, v in given.items() if k in {n for n, _k, _c in spec.inputs} or k == "faces"}
        if spec.rule in turn.ENGINE_RULES:
            result = _resolve(campaign, current, spec, mode, value, engine_inputs, dice)
        else:
            _check_fields(campaign, spec, step_fields(campaign, current, spec), given)
            result = _resolve(campaign, current, spec, mode, value, given, dice)
    if record is not None:
        source = {"id": record.battle_id, "title": record.title, "overridden": overridden}
        paid = {salvage.FACT: dict(record.salvage)} if record.salvage is not None else {}  # for Get paid (p.147)
        facts = {**result.facts, **record.facts(), BATTLE_SOURCE: source, **paid}
        result = StepResult(result.text + over_battle, result.rolls, result.changes, facts)
    if campaign.credits + sum(int(c.data["amount"]) for c in result.changes if c.kind == "credits") < 0 and mode != "manual":
        raise DropshipError(
            f"credits: the crew has {campaign.credits} credits, not enough for this step; record what you did by hand.",
            field="credits",
        )
    if record is not None:  # the battle's result went to this step (read through the reverse relation)
        campaign.battles.filter(pk=record.battle_id).update(reported=True)
    first_log = log(campaign, "step", f"{spec.title}: {result.text}", rolls=result.rolls, changes=result.changes, step=spec.key)
    words = apply_changes(campaign, result.changes)
    if words:
        first_log.text += f" Changes: {'; '.join(words)}."
        first_log.save(update_fields=["text"])
    step = TurnStep.objects.create(
        turn=current,
        index=current.position,
        key=spec.key,
        title=spec.title,
        phase=spec.phase,
        mode={"roll": "rolled" if result.rolls else "rule", "enter": "entered", "manual": "manual", "skip": "skipped"}[mode],
        text=result.text,
        rolls=[r.as_dict() for r in result.rolls],
        changes=[c.as_dict() for c in result.changes],
        snapshot=before,
        log_from=first_log.pk,
    )
    current.facts = {**current.facts, **dict(result.facts)}
    current.position += 1
    campaign.save()
    _advance(campaign, current)
    touch(campaign)
    return step


@transaction.atomic
def step_undo(*, user: Any, campaign_id: int, version: int | None) -> Turn | None:
    """Take back the last resolved step of the latest turn: the campaign returns to how it was
    before it, its log lines are struck through, and the turn goes back to that step. With no
    step left, undo takes back the start of the turn. Raises :class:`DropshipError` when there
    is nothing to undo."""
    return _undo_step(load(user, campaign_id, version))


def _undo_step(campaign: Campaign) -> Turn | None:
    latest = campaign.turns.order_by("-number").first()
    if latest is None:
        raise DropshipError("Nothing to undo: no turn has been played.", field="turn")
    last = latest.steps.exclude(mode="skipped").order_by("-index", "-id").first()
    if last is None:
        if latest.steps.exists() and latest.finished:
            raise DropshipError("Nothing to undo in this turn.", field="turn")
        latest.delete()
        campaign.turn = max(0, campaign.turn - 1)
        log(campaign, "undo", f"Undid the start of campaign turn {latest.number}.")
        touch(campaign)
        return None
    source = (latest.facts.get(BATTLE_SOURCE) or {}).get("id") if last.key == "battle.record" else None
    if source:  # the battle's result is no longer recorded: the step may take it again
        campaign.battles.filter(pk=int(source)).update(reported=False)
    documents.restore(campaign, last.snapshot, latest)
    campaign.log.filter(id__gte=last.log_from).update(undone=True)
    latest.steps.filter(index__gte=last.index).delete()
    log(campaign, "undo", f"Undid: {last.title} ({last.text[:120]})")
    touch(campaign)
    return latest


@transaction.atomic
def change_undo(*, user: Any, campaign_id: int, version: int | None) -> str:
    """Take back the campaign's last change, whatever it was: a turn step (as :func:`step_undo`)
    or an edit made outside the turn (crew, ship, money, contacts, options), which puts the
    campaign back as it was before it and strikes its log lines through. Returns what was undone,
    in words. Raises :class:`DropshipError` when nothing is left to undo or the last change is
    one that has its own screen (a table slot or a member)."""
    campaign = load(user, campaign_id, version)
    last = campaign.log.filter(undone=False).exclude(kind="undo").order_by("-id").first()
    if last is None:
        raise DropshipError("Nothing to undo.", field="log")
    if last.kind == "step":
        latest = _undo_step(campaign)
        return f"the last step of turn {latest.number}" if latest else "the start of the turn"
    if last.before is None:
        raise DropshipError(
            f"The last change ({last.kind}: {last.text[:80]}) is changed back on its own screen, not undone.", field="log"
        )
    documents.restore(campaign, last.before)
    campaign.log.filter(id__gte=last.pk).update(undone=True)
    log(campaign, "undo", f"Undid: {last.text[:120]}")
    touch(campaign)
    return last.text


def plan_preview(campaign: Campaign) -> Sequence[StepSpec]:
    """The steps the next turn would have (for the campaign page)."""
    view = build_view(campaign, number=campaign.turn + 1)
    return _engine(lambda: turn.plan_turn(view, fiveparsecs_tables()))


__all__ = [
    "build_view",
    "change_undo",
    "crew_names",
    "plan_preview",
    "step_fields",
    "step_guide",
    "step_resolve",
    "step_undo",
    "turn_battle",
    "turn_start",
]
