"""Expanded Connections (Compendium pp.80-86) in the campaign turn.

With the ``expanded_connections`` option, the turn's "Check for connections" step (battle
step 2, Opportunity missions only: never Quest, Rival or Patron missions, p.80) runs
:func:`rule_check`: 1D6 on ``expanded-connections-check`` (5-6: a Connection), then the D6
``expanded-connections`` table, then the D6 subtable it names; a personal Connection (and
"Secret reason", p.83) picks a random crew member who is not the captain. Rulings:

- The first check the campaign makes with the option on has a Connection without a roll (the
  book's first game after adopting the expansion, p.80).
- ``connections_no_roll`` (p.81): no check die; a Connection happens when the previous
  Opportunity mission had none (a declined Connection counts as none).

An entry marked * in the book (``can_decline``) adds "Take the Connection's job?"
(:func:`rule_accept`, input ``accept`` yes/no). Turning it down plays a random Opportunity
mission with no Connection and pays what the entry says (``decline_story_points``,
``decline_credits``, ``decline_hand_over``: the crew member leaves the roster).

A Connection that is played changes the battle: :func:`brief_lines` for the battle brief and
:func:`adjust_enemy` for the campaign battle's set-up (``basic_enemies`` and ``numbers`` add
to the enemy's Numbers, ``specialists`` add Specialists, ``panic`` lowers the Panic range,
never below ``panic_floor`` (1 unless the entry says 0); ``unique_individuals`` adds a Unique
Individual to the force and :func:`tracker_terms` hands the round limit and late arrivals to
the live tracker). After the battle, "Connection rewards" (:func:`rule_rewards`)
pays Story Points, Quest Rumors, credits and XP on a win (``reward_if``: a further condition,
asked as ``condition_met``), and the loss penalty of "Old friend in trouble" (p.82).

The turn fact :data:`FACT` holds ``{"had", "automatic", "kind", "subtable", "page", "entry",
"effect", "data", "can_decline", "accepted", "crew_id", "crew_name"}`` (``had`` False: no
Connection, nothing else).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from campaigns.engine.turn.steps import YES_NO, StepResult, StepSpec, TurnError
from campaigns.engine.view import CampaignView, Change, CrewView
from campaigns.engine.wording import plural
from campaigns.engine.world import Roller
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

CHECK_TABLE = "expanded-connections-check"
TABLE = "expanded-connections"
#: The turn fact holding this turn's Connection (module docstring).
FACT = "connection"
#: Subtable slug -> (kind, page).
SUBTABLES: dict[str, tuple[str, str]] = {
    "expanded-connections-person": ("person", "p.82"),
    "expanded-connections-place": ("place", "p.83"),
    "expanded-connections-job": ("job", "p.84"),
    "expanded-connections-faction": ("faction", "p.85"),
    "expanded-connections-personal": ("personal", "p.86"),
}
#: Condition terms (``campaigns.engine.turn.conditions``): a Connection that may still be turned
#: down, and a Connection being played this turn.
CONDITIONS: tuple[str, ...] = ("connection_offer", "connection")

ACCEPT_STEP = StepSpec(
    "battle.connection_accept",
    "battle",
    "Take the Connection's job?",
    "p.81",
    option="expanded_connections",
    rule="connection_accept",
    condition="connection_offer",
    inputs=(("accept", "choice", YES_NO),),
)
REWARDS_STEP = StepSpec(
    "post.connection",
    "post-battle",
    "Connection rewards",
    "pp.82-86",
    option="expanded_connections",
    rule="connection_rewards",
    condition="connection&battle_fought",
    inputs=(("condition_met", "choice", YES_NO),),
    optional_inputs=("condition_met",),
)
#: The steps the option adds: key -> (placement as ``catalogue._extra_steps`` reads it, spec).
EXTRA_STEPS: dict[str, tuple[str, StepSpec]] = {
    ACCEPT_STEP.key: ("after:battle.connections", ACCEPT_STEP),
    REWARDS_STEP.key: ("after:post.paid", REWARDS_STEP),
}


class Context(Protocol):
    """What a rule reads (``campaigns.engine.turn.resolving`` passes its step context)."""

    @property
    def view(self) -> CampaignView: ...
    @property
    def tables(self) -> Mapping[str, RangeTable]: ...
    @property
    def dice(self) -> Dice: ...
    @property
    def value(self) -> int | None: ...
    @property
    def inputs(self) -> Mapping[str, Any]: ...
    @property
    def facts(self) -> Mapping[str, Any]: ...
    @property
    def faces(self) -> list[int] | None: ...

    def battle(self) -> Mapping[str, Any]: ...


def check_step(spec: StepSpec) -> StepSpec:
    """The core "Check for connections" step run by :func:`rule_check` (option on)."""
    return replace(spec, rule="connections", table=TABLE, source="p.80", note="Expanded Connections (pp.80-86).")


def played(fact: Any) -> bool:
    """Whether a turn's :data:`FACT` is a Connection that was played (not none, not declined)."""
    return isinstance(fact, Mapping) and bool(fact.get("had")) and fact.get("accepted") is not False


def condition(term: str, facts: Mapping[str, Any]) -> bool:
    """The :data:`CONDITIONS` terms, read from the turn's facts."""
    fact = facts.get(FACT)
    if term == "connection_offer":
        return isinstance(fact, Mapping) and bool(fact.get("can_decline")) and fact.get("accepted") is None
    return played(fact)


def _yes(name: str, raw: Any) -> bool:
    text = str(raw if raw is not None else "").strip().lower()
    if text not in YES_NO:
        raise TurnError(f"{name} must be one of {', '.join(YES_NO)}; got {raw!r}.", field=name)
    return text == "yes"


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise TurnError(f"The rule table {slug!r} is not loaded; load the Compendium fixtures.", field="tables") from None


def _front(ctx: Context) -> list[int] | None:
    faces = list(ctx.faces or [])
    if ctx.value is not None:
        faces = [ctx.value, *faces]
    return faces or None


def rule_check(ctx: Context) -> StepResult:
    """Check for a Connection (p.80): see the module docstring. ``value`` is the first die
    rolled (the check die, or the Connections table die when none is rolled); ``faces`` the
    later dice in order. Facts: :data:`FACT`. Raises :class:`TurnError` for a missing table."""
    view = ctx.view
    roller = Roller(ctx.dice, _front(ctx))
    history = view.connection_history
    if not history:
        had, automatic = True, True
        words = ["First Connection check since Expanded Connections was switched on: a Connection happens (p.80)."]
    elif view.options.connections_no_roll:
        had, automatic = not history[-1], True
        last = "had one" if history[-1] else "had none"
        words = [f"No-roll option: the last Opportunity mission {last} (p.81)."]
    else:
        _table(ctx.tables, CHECK_TABLE)
        rolled = roller.table(ctx.tables, CHECK_TABLE, reason="Check for a Connection (5-6)")
        had, automatic = bool(rolled.entry.data.get("connection")), False
        words = [f"Connection check {rolled.record.total}: {rolled.entry.result}."]
    if not had:
        return StepResult(" ".join(words), tuple(roller.records), facts={FACT: {"had": False, "automatic": automatic}})
    _table(ctx.tables, TABLE)
    kind = roller.table(ctx.tables, TABLE, reason="Expanded Connections table")
    slug = str(kind.entry.data.get("subtable") or "")
    sub = _table(ctx.tables, slug)
    found = roller.table(ctx.tables, slug, reason=f"Connections {sub.title}")
    entry = found.entry
    data = dict(entry.data)
    kind_name, page = SUBTABLES.get(slug, ("", ""))
    fact: dict[str, Any] = {
        "had": True,
        "automatic": automatic,
        "kind": kind_name,
        "subtable": slug,
        "page": page,
        "entry": entry.result,
        "effect": entry.effect,
        "data": data,
        "can_decline": bool(data.get("can_decline")),
        "accepted": None if data.get("can_decline") else True,
        "crew_id": "",
        "crew_name": "",
    }
    words.append(f"{kind.entry.result}: {entry.result} ({page}). {entry.effect}")
    if data.get("crew_member"):
        member = _pick_crew(roller, view.crew)
        if member is None:
            words.append("No crew member other than the captain can be chosen.")
        else:
            fact["crew_id"], fact["crew_name"] = member.id, member.name
            words.append(f"It concerns {member.name}.")
    if fact["can_decline"]:
        words.append("You may turn it down (next step).")
    return StepResult(" ".join(words), tuple(roller.records), facts={FACT: fact})


def _pick_crew(roller: Roller, crew: Sequence[CrewView]) -> CrewView | None:
    eligible = [c for c in crew if c.status == "active" and not c.captain]
    if not eligible:
        return None
    return roller.pick(eligible, "Crew member of the Connection (not the captain)")


def _fact(ctx: Context, field: str) -> dict[str, Any]:
    fact = ctx.facts.get(FACT)
    if not isinstance(fact, Mapping) or not fact.get("had"):
        raise TurnError(f"{field}: this turn has no Connection (check for connections first).", field=field)
    return dict(fact)


def rule_accept(ctx: Context) -> StepResult:
    """Take or turn down a * Connection (input ``accept``: yes/no, p.81). Turned down: a random
    Opportunity mission without a Connection, and the entry's price for declining. Taking
    "Encrypted intel" (p.84) discards the Quest Rumors. Raises :class:`TurnError` (field
    ``accept``) for another value or when the Connection cannot be turned down."""
    fact = _fact(ctx, "accept")
    if not fact.get("can_decline"):
        raise TurnError(f"accept: {fact.get('entry')} cannot be turned down.", field="accept")
    accepted = _yes("accept", ctx.inputs.get("accept"))
    data = fact.get("data") or {}
    view = ctx.view
    changes: list[Change] = []
    if accepted:
        words = [f"You take the job: {fact.get('entry')}."]
        if data.get("discard_rumors"):
            if view.rumors:
                changes.append(Change("rumor_remove", {"count": view.rumors}))
            words.append(f"All Quest Rumors are discarded; {data.get('reward_note') or 'begin a Quest'} (campaign page).")
    else:
        words = [f"You turn down {fact.get('entry')}: play a random Opportunity mission with no Connection (p.81)."]
        lost = -int(data.get("decline_story_points") or 0)
        if lost:
            taken = min(lost, view.story_points)
            if taken:
                changes.append(Change("story_points", {"amount": -taken}))
            words.append(f"Your friend is lost: -{lost} Story Point" + ("" if taken else " (you have none left)") + ".")
        if int(data.get("decline_credits") or 0):
            changes.append(Change("credits", {"amount": int(data["decline_credits"])}))
            words.append(f"You sell the intel for {int(data['decline_credits'])} credits.")
        if data.get("decline_hand_over") and fact.get("crew_id"):
            changes.append(Change("character", {"id": fact["crew_id"], "status": "gone"}))
            words.append(f"{fact.get('crew_name')} is handed over and leaves the crew.")
        if data.get("decline_note"):
            words.append(f"By hand: {data['decline_note']}.")
    return StepResult(" ".join(words), changes=tuple(changes), facts={FACT: {**fact, "accepted": accepted}})


def field_notes(fields: Sequence[dict[str, Any]], facts: Mapping[str, Any]) -> None:
    """Say on the ``accept`` and ``condition_met`` input fields (``{name, required, note, ...}``,
    as ``campaigns.turn_services.step_fields`` lists them) what this turn's Connection asks:
    the job and the price of turning it down; the further condition of its reward, which makes
    ``condition_met`` required (it is not read otherwise)."""
    fact = facts.get(FACT)
    if not isinstance(fact, Mapping) or not fact.get("had"):
        return
    data = fact.get("data") or {}
    for made in fields:
        if made["name"] == "accept":
            price = [
                f"-{-int(data['decline_story_points'])} Story Point" if data.get("decline_story_points") else "",
                f"+{int(data['decline_credits'])} credits for the intel" if data.get("decline_credits") else "",
                f"{fact.get('crew_name')} is handed over" if data.get("decline_hand_over") and fact.get("crew_name") else "",
                str(data.get("decline_note") or ""),
            ]
            said = "; ".join(p for p in price if p)
            made["note"] = f"{fact.get('entry')} ({fact.get('page')}). No: a random Opportunity mission" + (
                f" ({said})." if said else "."
            )
        elif made["name"] == "condition_met":
            made["required"] = bool(data.get("reward_if"))
            made["note"] = f"Rewarded only if {data['reward_if']}." if data.get("reward_if") else "Not asked for this Connection."


def modifiers(fact: Any) -> dict[str, Any]:
    """The battle changes of a played Connection: ``{"enemies_add", "specialists_add",
    "panic_minus", "panic_floor", "unique", "round_limit", "arrival_round", "reinforcements",
    "specialist_if_at_least", "objective", "enemy"}`` (zeros and
    blanks when none; an empty mapping when no Connection is played)."""
    if not played(fact):
        return {}
    data = fact.get("data") or {}
    return {
        "enemies_add": int(data.get("basic_enemies") or 0) + int(data.get("numbers") or 0),
        "specialists_add": int(data.get("specialists") or 0),
        "panic_minus": -int(data.get("panic") or 0),
        "panic_floor": int(data.get("panic_floor", 1)),
        "unique": int(data.get("unique_individuals") or 0),
        "round_limit": int(data.get("round_limit") or 0),
        "arrival_round": int(data.get("arrival_round") or 0),
        "reinforcements": str(data.get("reinforcements") or ""),
        "specialist_if_at_least": int(data.get("specialist_if_at_least") or 0),
        "objective": str(data.get("objective") or ""),
        "enemy": str(data.get("enemy") or ""),
    }


def brief_lines(facts: Mapping[str, Any]) -> list[str]:
    """The battle brief's words for this turn's Connection (none when none is played)."""
    fact = facts.get(FACT)
    found = modifiers(fact)
    if not found:
        return []
    assert isinstance(fact, Mapping)
    lines = [f"Connection: {fact.get('entry')} ({fact.get('page')}). {fact.get('effect')}".strip()]
    if found["objective"]:
        lines.append(f"Mission: {found['objective']}.")
    if found["enemy"]:
        lines.append(f"Enemy: {found['enemy']}.")
    if found["enemies_add"]:
        lines.append(f"Enemy numbers {found['enemies_add']:+d}.")
    if found["specialists_add"]:
        lines.append(f"{plural(found['specialists_add'], 'extra Specialist')}.")
    if found["panic_minus"]:
        lines.append(f"Enemy Panic range -{found['panic_minus']}.")
    if found["unique"]:
        lines.append("The enemy brings a Unique Individual.")
    if found["round_limit"]:
        lines.append(f"Round limit: {found['round_limit']} (the tracker says whether the objective was reached in time).")
    if found["arrival_round"]:
        lines.append(
            f"After round {found['arrival_round']}, {found['reinforcements'] or '1D6'} more enemies arrive (the tracker rolls them)."
        )
    if fact.get("crew_name"):
        lines.append(f"Crew member concerned: {fact['crew_name']}.")
    return lines


def tracker_terms(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The played Connection's terms the live tracker runs (round limit, late arrivals; see
    :mod:`battles.engine.fp_tracker.connection`), as ``setup["connection_terms"]``; empty when
    no Connection is played or it sets neither."""
    fact = facts.get(FACT)
    found = modifiers(fact)
    if not found or not (found["round_limit"] or found["arrival_round"]):
        return {}
    assert isinstance(fact, Mapping)
    return {
        "entry": str(fact.get("entry") or ""),
        "page": str(fact.get("page") or ""),
        "round_limit": found["round_limit"],
        "arrival_round": found["arrival_round"],
        "reinforcements": found["reinforcements"] or "1D6",
        "specialist_if_at_least": found["specialist_if_at_least"],
    }


def _lower_panic(panic: str, by: int, floor: int) -> str:
    text = str(panic).strip()
    top = 0 if text in ("", "-", "0") else int(text.split("-")[-1])
    if top <= floor:
        return text or "0"
    new = max(floor, top - by)
    return "0" if new <= 0 else ("1" if new == 1 else f"1-{new}")


def adjust_enemy(enemy: Mapping[str, Any], facts: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The campaign battle's ``enemy`` mapping (as ``battles.services.battle_create`` takes it)
    with this turn's Connection applied, and the set-up notes. A typed or core-table profile
    gets the extra Numbers, Specialists and the lowered Panic range; an elite force (rolled by
    its own tables) gets them as notes to add by hand. A mapping without a Connection comes back
    unchanged with no notes."""
    found = modifiers(facts.get(FACT))
    made = dict(enemy)
    if not found:
        return made, []
    notes = [" ".join(brief_lines(facts))]
    if str(made.get("elite") or "").strip().lower() in ("true", "1", "on", "yes"):
        notes.append("Connection: add these to the elite force by hand.")
        return made, notes
    if found["enemies_add"]:
        made["numbers"] = int(made.get("numbers") or 0) + found["enemies_add"]
    if found["specialists_add"]:
        made["specialists"] = int(made.get("specialists") or 0) + found["specialists_add"]
    if found["panic_minus"] and made.get("panic") not in (None, ""):
        made["panic"] = _lower_panic(str(made["panic"]), found["panic_minus"], found["panic_floor"])
    return made, notes


def rule_rewards(ctx: Context) -> StepResult:
    """A played Connection's rewards after the battle (pp.82-86). Won (the battle record's
    ``won``) and, for an entry with ``reward_if``, ``condition_met: yes``: Story Points, Quest
    Rumors, credits (a number or ``1D6``, rolled and logged), XP for the chosen crew member (or
    the captain for ``xp_to: captain``), extra Loot rolls to make and what else to do by hand.
    Lost: "Old friend in trouble" costs its Story Point (p.82). ``value``: your credits die.
    Raises :class:`TurnError` (field ``condition_met``) for a value other than yes/no; asks for
    it (``needs``) when the entry has a further condition."""
    fact = _fact(ctx, "condition_met")
    data = fact.get("data") or {}
    view = ctx.view
    changes: list[Change] = []
    if not ctx.battle().get("won"):
        words = [f"{fact.get('entry')}: the job was not done, no reward."]
        lost = -int(data.get("decline_story_points") or 0)
        if lost:
            taken = min(lost, view.story_points)
            if taken:
                changes.append(Change("story_points", {"amount": -taken}))
            words.append(f"Your friend is killed: -{lost} Story Point.")
        return StepResult(" ".join(words), changes=tuple(changes))
    if data.get("reward_if"):
        raw = ctx.inputs.get("condition_met")
        if raw in (None, ""):
            return StepResult(f"Was it so: {data['reward_if']}?", needs=("condition_met",))
        if not _yes("condition_met", raw):
            return StepResult(f"{fact.get('entry')}: won, but not so ({data['reward_if']}): no reward.")
    roller = Roller(ctx.dice, _front(ctx))
    words = [f"{fact.get('entry')} done ({fact.get('page')}):"]
    credits = data.get("credits")
    if credits:
        amount = (
            int(roller.roll(str(credits), f"Connection credits ({fact.get('entry')})").total or 0)
            if isinstance(credits, str)
            else int(credits)
        )
        changes.append(Change("credits", {"amount": amount}))
        words.append(f"+{amount} credits.")
    for _ in range(int(data.get("quest_rumors") or 0)):
        changes.append(Change("rumor_add", {"text": f"Quest Rumor from the Connection {fact.get('entry')}"}))
    if data.get("quest_rumors"):
        words.append(f"+{plural(int(data['quest_rumors']), 'Quest Rumor')}.")
    if data.get("story_points"):
        changes.append(Change("story_points", {"amount": int(data["story_points"])}))
        words.append(f"+{plural(int(data['story_points']), 'Story Point')}.")
    xp = int(data.get("xp") or 0)
    if xp:
        member = _xp_earner(view, fact, data)
        if member is None:
            words.append(f"+{xp} XP: give it by hand (nobody to name).")
        else:
            changes.append(Change("character", {"id": member.id, "xp": xp}))
            words.append(f"{member.name} +{xp} XP.")
    if data.get("loot_rolls"):
        words.append(f"Roll {plural(int(data['loot_rolls']), 'extra time')} on the Loot table.")
    if data.get("reward_note"):
        words.append(f"By hand: {data['reward_note']}.")
    if len(words) == 1:
        words.append("nothing more to claim.")
    return StepResult(" ".join(words), tuple(roller.records), tuple(changes))


def _xp_earner(view: CampaignView, fact: Mapping[str, Any], data: Mapping[str, Any]) -> CrewView | None:
    alive = [c for c in view.crew if c.status in ("active", "sick_bay")]
    if data.get("xp_to") == "captain":
        return next((c for c in alive if c.captain), None)
    return next((c for c in alive if c.id == fact.get("crew_id")), None)
