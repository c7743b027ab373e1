"""Resolving a step: :func:`resolve` runs the engine rule named by a step (the rules listed in
:data:`~campaigns.engine.turn.steps.ENGINE_RULES`), calling the world rules of
:mod:`campaigns.engine.world`.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from campaigns.engine import connections, quests, world
from campaigns.engine.turn.catalogue import intro_turn
from campaigns.engine.turn.conditions import _battle
from campaigns.engine.turn.steps import (
    ENGINE_RULES,
    KRAG_VISIT,
    MISSIONS,
    RESEARCH_COMPONENT,
    SERVICE_RULES,
    StepResult,
    StepSpec,
    TurnError,
)
from campaigns.engine.view import BattleView, CampaignView, Change, FactionView
from campaigns.engine.wording import plural, sentence, with_article
from rules.engine.dice import Dice, DiceError
from rules.engine.tables import RangeTable, TableError

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
    text = f"Psionics here: {sentence(roll.entry.result)} {roll.entry.effect}".strip()
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
    # Collectors and seizure warrants already on the crew's tail come first (p.155); typed
    # ``faces`` go to them, in the order they roll, and the rest to enforcement fees.
    checks = world.loan_checks(
        ctx.view.loan_terms,
        ctx.tables,
        ctx.dice,
        turns_on_world=max(0, ctx.view.turn - ctx.view.world.arrived_turn + 1),
        credits=ctx.view.credits,
        faces=ctx.faces,
    )
    used = sum(len(r.faces) for r in checks.rolls)
    fines = sum(int(c.data.get("balance") or 0) for c in checks.changes if c.kind == "loan")
    after = (ctx.view.loan_balance or 0) + fines
    out = world.loan_enforcement(
        terms,
        before,
        after,
        ctx.tables,
        ctx.dice,
        values=() if ctx.value is None else (ctx.value,),
        faces=(ctx.faces or [])[used:] or None,
    )
    facts = {"loan_enforcement": list(out.methods), "loan_balance": out.balance, "loan_seizure": checks.seizing}
    text = " ".join([*checks.lines, out.text])
    return StepResult(text, checks.rolls + out.rolls, checks.changes + out.changes, facts)


def _rule_faction_job(ctx: _Ctx) -> StepResult:
    faction = _faction(ctx, "faction")
    if faction is None:
        return StepResult("No Faction job check this turn.")
    offered, record, text = world.faction_job_check(faction, ctx.tables, ctx.dice, turn=ctx.view.turn, value=ctx.value)
    rolls = () if record is None else (record,)
    return StepResult(text, rolls, facts={"faction_job_offer": faction.name if offered else ""})


def _rule_battle_type(ctx: _Ctx) -> StepResult:
    """The turn's battle type; a Rival mission names the Rival it fights (input ``rival``, one of
    the campaign's Rivals; taken without asking when there is only one), so the battle set up
    for this turn is fought against it. Raises :class:`TurnError` on ``rival`` when several
    Rivals could be meant and none is named, or a Rival is named for another mission."""
    mission = _choice("mission", ctx.inputs.get("mission"), MISSIONS)
    raw = str(ctx.inputs.get("rival") or "").strip()
    names = [r.name for r in ctx.view.rivals]
    if raw and mission != "rival":
        raise TurnError(f"rival is named only for a Rival mission; this is {with_article(mission)} mission.", field="rival")
    rival = ""
    if mission == "rival" and raw:
        rival = next((n for n in names if n.lower() == raw.lower()), "")
        if not rival:
            raise TurnError(f"rival must be one of your Rivals ({', '.join(names) or 'none'}); got {raw!r}.", field="rival")
    elif mission == "rival" and len(names) == 1:
        rival = names[0]
    elif mission == "rival" and len(names) > 1:
        raise TurnError(f"rival: name the Rival this mission fights ({', '.join(names)}).", field="rival")
    facts: dict[str, Any] = {"mission": mission}
    text = f"This turn's battle: {with_article(mission.capitalize())} mission."
    if mission == "pvp":  # against another player's crew (pp.35-37): no enemy to roll, no Deployment Conditions
        text = "This turn's battle: a PvP battle against another player's crew (pp.35-37); Rivals do not interfere."
    if mission == "coop":  # with another player's crew against waves (pp.39-41): the meeting rolls the enemy
        text = (
            "This turn's battle: an expanded co-op battle with another player's crew (pp.39-41); "
            "neither crew is attacked by Rivals while pursuing it."
        )
    if rival:
        facts["rival"] = rival
        text = f"This turn's battle: a Rival mission against {rival}."
    return StepResult(text, facts=facts)


def _rule_battle_record(ctx: _Ctx) -> StepResult:
    inputs = ctx.inputs
    mission = str(ctx.facts.get("mission") or (ctx.view.battle.mission if ctx.view.battle else "opportunity"))
    won = _yes_no("won", inputs.get("won"))
    held = _yes_no("held_field", inputs.get("held_field"))
    uses = _count("psionic_uses", inputs.get("psionic_uses"))
    if uses:
        _check_psionic_uses(ctx.view, uses)
    kills = inputs.get("kills")
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
    if kills not in (None, ""):
        facts["battle_kills"] = _count("kills", kills)
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
    if casualties:
        names = {c.id: c.name for c in ctx.view.crew}
        fallen = ", ".join(names.get(c, c) for c in casualties)
        text += f" {plural(len(casualties), 'casualty', 'casualties')}: {fallen}."
    if "battle_kills" in facts:
        text += f" {plural(facts['battle_kills'], 'enemy', 'enemies')} killed."
    if uses:
        text += f" Psionic powers used {plural(uses, 'time')}."
    return StepResult(text, changes=tuple(changes), facts=facts)


def _check_psionic_uses(view: CampaignView, uses: int) -> None:
    """Only an active Psionic who fought uses powers (pp.17-18): one in Sick Bay sat the battle
    out. Raises :class:`TurnError` (field ``psionic_uses``) when no active crew member is a
    Psionic."""
    if any(c.psionic and c.status == "active" for c in view.crew):
        return
    resting = [c.name for c in view.crew if c.psionic and c.status == "sick_bay"]
    if resting:
        raise TurnError(
            f"psionic_uses must be 0: {' and '.join(resting)} {'is' if len(resting) == 1 else 'are'} in Sick Bay and "
            f"did not fight; only active Psionics who fought use powers (p.17); got {uses}.",
            field="psionic_uses",
        )
    raise TurnError(f"psionic_uses must be 0: nobody in the crew is a Psionic; got {uses}.", field="psionic_uses")


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


def _rule_quest_progress(ctx: _Ctx) -> StepResult:
    """Determine Quest Progress (post-battle step 3) with the Expanded Quest Progression and its
    Conclusion (pp.78-80): :func:`campaigns.engine.quests.progress`. ``value``: the first die the
    rule rolls (the research D6 while Analyze the data is pending, else the progress D6); more
    dice in ``faces``."""
    if not ctx.view.quest:
        return StepResult("No active Quest to progress.")
    out = quests.progress(ctx.view, ctx.tables, ctx.dice, battle=ctx.battle(), faces=_front(ctx))
    return StepResult(out.text, out.rolls, out.changes, dict(out.facts or {}))


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
    "quest_progress": _rule_quest_progress,
    # Looked up when called: campaigns.engine.connections imports this package.
    "connections": lambda ctx: connections.rule_check(ctx),
    "connection_accept": lambda ctx: connections.rule_accept(ctx),
    "connection_rewards": lambda ctx: connections.rule_rewards(ctx),
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
