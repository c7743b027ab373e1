"""Expanded Quest Progression (Compendium pp.78-79) and the Quest Conclusion (p.80), played in
the campaign turn.

The state lives on the campaign (``Campaign.quest_step``, seen as ``CampaignView.quest_step``)::

    {"pending": {...} | absent,   # the Quest step that must be finished first (p.79)
     "numbers": int,              # lasting +enemy numbers of every later Quest battle (81-92)
     "panic": int,                # lasting change to their Panic range, 0 or less (93-100)
     "conclusion": bool}          # the final Quest battle is unlocked (p.80)

A pending step is ``{"kind", "result", "effect", "low", "high"}`` plus, by kind:

- ``pay`` (01-10): ``cost``, the 1D6 credits rolled once when the step is drawn; paying them
  (:func:`pay`) gives 1 Quest Rumor.
- ``research`` (11-20): ``points`` and ``target`` (20); each time the progress step runs the
  crew adds its Savvy total + 1D6 (the first time as the step is drawn); at the target, 1 Quest
  Rumor.
- ``work`` (29-38): ``done`` and ``needed`` (6) Work on the Quest crew tasks (:func:`work`).
- ``battle`` (21-28, 39-53, 54-65, 66-80): ``numbers`` and ``panic`` of that battle (on top of
  the lasting ones, which the 54-65 battle's numbers ignore: ``ignores_massing``) and
  ``hold_field`` (21-28: the Rumor needs Hold the Field; the others need the mission won).

While a step is pending the progress roll is not made (p.79). Ruling: a step finished during
"Determine Quest Progress" (research reaching its target, the step's Quest battle won this
turn) lets the progress roll follow at once, the new Quest Rumor counting in it.

The Quest Conclusion (p.80): once unlocked the progress step rolls nothing more; the turn's Quest
battle is the final one (:func:`battle_terms`: +1 enemy numbers plus the lasting ones, a Unique
Individual, no Morale); winning it pays the rewards (:func:`conclusion`) and ends the Quest.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaigns.engine import world
from campaigns.engine.credits import credits_roll
from campaigns.engine.options import OptionError
from campaigns.engine.ship import quest_roll_bonus
from campaigns.engine.view import CampaignView, Change
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import Entry, RangeTable

PROGRESSION = "expanded-quest-progression"
CHECK = "expanded-quest-progress-check"
CONCLUSION = "expanded-quest-conclusion"
#: The mission key of a Quest battle (``campaigns.engine.turn.steps.MISSIONS``).
QUEST_MISSION = "quest"
#: The crew task a 29-38 step makes available (p.79).
WORK_TASK = "work_on_the_quest"
STEP_KINDS: tuple[str, ...] = ("pay", "research", "work", "battle", "modifier")


class QuestError(OptionError):
    """A Quest action the rules do not allow now; ``field`` names the input."""


@dataclass(frozen=True)
class QuestOutcome:
    """What a Quest rule did: ``text`` (our words, with pages), ``rolls``, ``changes`` for the
    service (a ``quest`` change carries the new state) and ``facts`` for the turn."""

    text: str
    rolls: tuple[RollRecord, ...] = ()
    changes: tuple[Change, ...] = ()
    facts: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class BattleTerms:
    """How a Quest battle is set up: ``numbers`` added to the enemy, ``panic`` (0 or less) added
    to the top of their Panic range, ``unique_individual`` (one always joins), ``no_morale``
    (they never test Morale: Fearless), the step's mission ``objective`` and enemy ``ai`` type
    (``""``: as the battle's own) and ``lines`` saying why, with pages; ``score_target`` (54-65,
    "Cache in a bad place": the round score to reach, 0 for any other battle) and
    ``engineer_bonus`` (added to each round's roll with an Engineer in the crew)."""

    numbers: int = 0
    panic: int = 0
    unique_individual: bool = False
    no_morale: bool = False
    lines: tuple[str, ...] = ()
    objective: str = ""
    ai: str = ""
    score_target: int = 0
    engineer_bonus: int = 0


_INT_KEYS = ("low", "high", "cost", "points", "target", "done", "needed", "numbers", "panic", "score_target", "engineer_bonus")
_FLAG_KEYS = ("hold_field", "ignores_massing")
_TEXT_KEYS = ("kind", "result", "effect", "objective", "ai")


def _whole(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 0


def clean_state(raw: Any) -> dict[str, Any]:
    """``raw`` (a stored or imported state) in the shape of the module docstring: unknown keys
    and a pending step of an unknown kind dropped, numbers made whole, flags made bool."""
    if not isinstance(raw, Mapping):
        return {}
    state: dict[str, Any] = {k: _whole(raw[k]) for k in ("numbers", "panic") if k in raw}
    if raw.get("conclusion"):
        state["conclusion"] = True
    step = raw.get("pending")
    if isinstance(step, Mapping) and step.get("kind") in STEP_KINDS[:-1]:
        pending: dict[str, Any] = {k: str(step.get(k) or "") for k in _TEXT_KEYS[:3]}
        pending |= {k: str(step[k]) for k in _TEXT_KEYS[3:] if step.get(k)}
        pending |= {k: _whole(step[k]) for k in _INT_KEYS if k in step}
        pending |= {k: bool(step[k]) for k in _FLAG_KEYS if k in step}
        state["pending"] = pending
    return state


def _rumor(why: str) -> Change:
    return Change("rumor_add", {"text": f"Quest Rumor: {why}"})


def _state(view: CampaignView) -> dict[str, Any]:
    return clean_state(view.quest_step)


def pending_words(state: Mapping[str, Any]) -> str:
    """The pending step in words (``""`` when none)."""
    step = clean_state(state).get("pending") or {}
    kind = step.get("kind")
    name = f"{step.get('result', 'Quest step')} ({step.get('low', '?')}-{step.get('high', '?')}, p.79)"
    if kind == "pay":
        return f"{name}: pay {step.get('cost', 0)} credits for 1 Quest Rumor."
    if kind == "research":
        return f"{name}: {step.get('points', 0)} of {step.get('target', 20)} research points."
    if kind == "work":
        return f"{name}: {step.get('done', 0)} of {step.get('needed', 6)} Work on the Quest crew tasks done."
    if kind == "battle":
        win = "Hold the Field" if step.get("hold_field") else "win it"
        return f"{name}: fight it as a Quest battle and {win}. {step.get('effect', '')}".strip()
    return ""


def _crew_savvy(view: CampaignView) -> int:
    """Ruling: the crew on the roster (active or in Sick Bay) add their Savvy."""
    return sum(c.savvy for c in view.crew if c.status in ("active", "sick_bay"))


def _research(view: CampaignView, step: dict[str, Any], roller: world.Roller) -> tuple[bool, str]:
    savvy = _crew_savvy(view)
    record = roller.roll("1D6", f"Quest research points (crew Savvy {savvy:+d})", modifier=savvy)
    step["points"] = int(step.get("points", 0)) + (record.total or 0)
    step["target"] = int(step.get("target") or 20)
    done = step["points"] >= step["target"]
    text = f"Research: +{record.total} points ({step['points']} of {step['target']}, p.79)."
    return done, text


def _battle_done(step: Mapping[str, Any], battle: Mapping[str, Any]) -> bool:
    if str(battle.get("mission") or "") != QUEST_MISSION:
        return False
    return bool(battle.get("held_field")) if step.get("hold_field") else bool(battle.get("won"))


def _drawn(entry: Entry, view: CampaignView, state: dict[str, Any], roller: world.Roller) -> tuple[list[Change], list[str]]:
    """Start the step ``entry`` names (p.79): store it as pending, or add a lasting modifier."""
    data = entry.data
    kind = str(data.get("step") or "")
    if kind not in STEP_KINDS:
        raise QuestError(f"Table {PROGRESSION!r} row {entry.result!r} needs data step, one of {', '.join(STEP_KINDS)}.")
    base = {"kind": kind, "result": entry.result, "effect": entry.effect, "low": entry.low, "high": entry.high}
    if kind == "modifier":
        state["numbers"] = int(state.get("numbers", 0)) + int(data.get("numbers") or 0)
        state["panic"] = int(state.get("panic", 0)) + int(data.get("panic") or 0)
        return [_rumor(entry.result)], [f"Every later Quest battle: {lasting_words(state)}. +1 Quest Rumor (p.79)."]
    if kind == "pay":
        record = roller.roll(str(data.get("credits") or "1D6"), "Quest information cost (credits)")
        state["pending"] = {**base, "cost": record.total or 0}
        return [], [f"Pay {record.total} credits (the Pay button beside the Quest Rumors) for 1 Quest Rumor."]
    if kind == "research":
        step = {**base, "points": 0, "target": int(data.get("research_points") or 20)}
        done, text = _research(view, step, roller)
        if done:
            return [_rumor(entry.result)], [text, "Solved: +1 Quest Rumor."]
        state["pending"] = step
        return [], [text]
    if kind == "work":
        state["pending"] = {**base, "done": 0, "needed": int(data.get("tasks") or 6)}
        return [], ["The Work on the Quest crew task is available."]
    state["pending"] = {
        **base,
        "numbers": int(data.get("numbers") or 0),
        "panic": int(data.get("panic") or 0),
        "hold_field": bool(data.get("hold_field")),
        "ignores_massing": bool(data.get("ignores_massing")),
        **({"objective": str(data["objective"])} if data.get("objective") else {}),
        **({"ai": str(data["enemy_ai"]).lower()} if data.get("enemy_ai") else {}),
        **(
            {"score_target": int(data["score_target"]), "engineer_bonus": int(data.get("engineer_bonus") or 0)}
            if data.get("score_target")
            else {}
        ),
    }
    return [], ["Choose the Quest battle when you are ready: its set-up takes these terms."]


def progress(
    view: CampaignView,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    battle: Mapping[str, Any],
    faces: Sequence[int] | None = None,
) -> QuestOutcome:
    """Post-battle step 3, Determine Quest Progress, with the Expanded Quest Progression (p.78).

    In order: the final battle won this turn ends the Quest (:func:`conclusion`); an unlocked
    conclusion rolls nothing; a pending step is worked on (research points, the step's Quest
    battle in ``battle``, the turn's battle record ``{mission, won, held_field}``) and, while
    still pending, stops the Quest; else 1D6 + Quest Rumors (+1 Expanded Database, p.27): 6 or
    less draws the next step on the D100 table (p.79), 7 or more unlocks the conclusion (p.80).
    ``faces``: your own dice in that order (research D6, progress D6, D100, cost D6). Raises
    :class:`QuestError` or ``world.WorldError`` for a missing table or an impossible face."""
    state = _state(view)
    roller = world.Roller(dice, faces)
    changes: list[Change] = []
    lines: list[str] = []
    if state.get("conclusion"):
        if str(battle.get("mission") or "") == QUEST_MISSION and battle.get("won"):
            return conclusion(view, tables, dice)
        return QuestOutcome(
            "The Quest Conclusion is unlocked: fight the final battle as a Quest mission when you choose (p.80).",
            facts={"quest_conclusion": True},
        )
    step = dict(state.get("pending") or {})
    if step:
        done = False
        if step["kind"] == "research":
            done, text = _research(view, step, roller)
            lines.append(text)
        elif step["kind"] == "battle":
            done = _battle_done(step, battle)
        if not done:
            state["pending"] = step
            lines.append(f"Pending: {pending_words(state)} The Quest cannot progress until it is done (p.79).")
            return QuestOutcome(
                " ".join(lines), tuple(roller.records), (Change("quest", {"state": state}),), {"quest_blocked": True}
            )
        state.pop("pending", None)
        changes.append(_rumor(str(step.get("result") or "Quest step")))
        lines.append(f"{step.get('result')} done: +1 Quest Rumor (p.79).")
    rumors = view.rumors + sum(1 for c in changes if c.kind == "rumor_add")
    bonus = quest_roll_bonus(view.ship_components, tables)
    reasons = [f"+{rumors} Quest Rumors"] + ([f"+{bonus} Expanded Database (p.27)"] if bonus else [])
    record = roller.roll("1D6", f"Quest progress: {view.quest} ({', '.join(reasons)})", modifier=rumors + bonus)
    total = record.total or 0
    check = next(
        e
        for e in world.table(tables, CHECK).entries
        if (e.data.get("max_total") is None or total <= int(e.data["max_total"]))
        and (e.data.get("min_total") is None or total >= int(e.data["min_total"]))
    )
    lines.append(f"Quest progress {total} ({record.natural} {' '.join(reasons)}): {check.result} (p.78).")
    facts: dict[str, Any] = {"quest_progress": total}
    if check.data.get("max_total") is not None:
        drawn = roller.table(tables, PROGRESSION, reason="Quest progression step")
        lines.append(f"Next step: {drawn.entry.result}: {drawn.entry.effect} (p.79).")
        more, said = _drawn(drawn.entry, view, state, roller)
        changes += more
        lines += said
        facts["quest_step"] = drawn.entry.result
    else:
        state["conclusion"] = True
        lines.append("The final Quest battle is unlocked (p.80).")
        facts["quest_conclusion"] = True
    changes.append(Change("quest", {"state": state}))
    return QuestOutcome(" ".join(lines), tuple(roller.records), tuple(changes), facts)


def conclusion(view: CampaignView, tables: Mapping[str, RangeTable], dice: Dice) -> QuestOutcome:
    """Completing the Quest (p.80): the battle's Credits rolled twice, the higher + 1 (this is
    the turn's Get Paid roll; Money is Tight applies to each roll), three Loot table rolls (core
    rules: roll them at Gather the Loot), +1 Story Point; the Quest, its Rumors and its state
    are cleared."""
    rows = {e.result: e.data for e in world.table(tables, CONCLUSION).entries}
    paid = rows.get("Credits reward", {})
    rolls = [
        credits_roll(view.options, dice, reason=f"Quest Conclusion credits, roll {n} (p.80)")
        for n in range(1, int(paid.get("credit_rolls") or 2) + 1)
    ]
    amount = max(r.total or 0 for r in rolls) + int(paid.get("credits_bonus") or 1)
    loot = int(rows.get("Loot reward", {}).get("loot_rolls") or 3)
    points = int(rows.get("Story Point reward", {}).get("story_points") or 1)
    changes = (
        Change("credits", {"amount": amount}),
        Change("story_points", {"amount": points}),
        Change("quest", {"state": {}, "end": True}),
    )
    faces = ", ".join(str(r.total) for r in rolls)
    text = (
        f"Quest complete: {view.quest}! Credits {faces}, the higher +1: {amount} credits (the Get Paid roll); "
        f"roll {loot} times on the Loot table; +{points} Story Point (p.80)."
    )
    return QuestOutcome(text, tuple(rolls), changes, {"quest_complete": True, "quest_loot_rolls": loot})


def pay(state: Mapping[str, Any], credits: int) -> tuple[dict[str, Any], list[Change], str]:
    """Pay a pending ``pay`` step's cost (01-10, p.79): (new state, changes, words). Raises
    :class:`QuestError` (``quest``) with no such step, (``credits``) when ``credits`` is short."""
    state = clean_state(state)
    step = dict(state.get("pending") or {})
    if step.get("kind") != "pay":
        raise QuestError("quest: no Quest step is waiting for a payment (Paid information, 01-10, p.79).", field="quest")
    cost = int(step.get("cost") or 0)
    if credits < cost:
        raise QuestError(f"credits: the Quest information costs {cost} credits; the crew has {credits}.", field="credits")
    new = {k: v for k, v in state.items() if k != "pending"}
    changes = [Change("credits", {"amount": -cost}), _rumor(str(step["result"])), Change("quest", {"state": new})]
    return new, changes, f"Paid {cost} credits for Quest information: +1 Quest Rumor (p.79)."


def work(state: Mapping[str, Any], who: str) -> tuple[dict[str, Any], list[Change], str]:
    """One Work on the Quest crew task by ``who`` (29-38, p.79): (new state, changes, words);
    the last of the needed tasks gives 1 Quest Rumor and ends the step. Raises
    :class:`QuestError` (``task``) when the task is not available."""
    state = clean_state(state)
    step = dict(state.get("pending") or {})
    if step.get("kind") != "work":
        raise QuestError(
            "task: Work on the Quest is only available while the Quest's Hard work step (29-38, p.79) is pending.",
            field="task",
        )
    step["done"] = int(step.get("done", 0)) + 1
    if step["done"] >= int(step.get("needed") or 6):
        new = {k: v for k, v in state.items() if k != "pending"}
        return (
            new,
            [_rumor(str(step["result"])), Change("quest", {"state": new})],
            (f"Work on the Quest ({who}): {step['done']} of {step['needed']} done, +1 Quest Rumor (p.79)."),
        )
    new = {**state, "pending": step}
    return new, [Change("quest", {"state": new})], f"Work on the Quest ({who}): {step['done']} of {step['needed']} (p.79)."


def lasting_words(state: Mapping[str, Any]) -> str:
    """The lasting modifiers of every later Quest battle in words."""
    state = clean_state(state)
    numbers, panic = int(state.get("numbers", 0)), int(state.get("panic", 0))
    parts = ([f"+{numbers} enemy numbers"] if numbers else []) + ([f"Panic range {panic}"] if panic else [])
    return ", ".join(parts) or "no change"


def battle_terms(raw: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> BattleTerms:
    """How this campaign's Quest battle is set up now: the final battle once the conclusion is
    unlocked (p.80: +1 numbers, a Unique Individual, no Morale, plus the lasting modifiers), the
    pending battle step's terms (p.79) with the lasting ones (the 54-65 battle ignores Enemy
    massing's numbers), or the lasting ones alone."""
    state = clean_state(raw)
    numbers, panic = int(state.get("numbers", 0)), int(state.get("panic", 0))
    lines = [f"Quest modifiers: {lasting_words(state)} (p.79)."] if numbers or panic else []
    if state.get("conclusion"):
        final = next((e.data for e in world.table(tables, CONCLUSION).entries if e.result == "Final battle"), {})
        extra = int(final.get("numbers") or 1)
        lines.append(f"Quest Conclusion: Straight Up Fight, +{extra} enemy numbers, a Unique Individual, no Morale tests (p.80).")
        return BattleTerms(numbers + extra, panic, True, not final.get("morale", False), tuple(lines))
    step = state.get("pending") or {}
    if step.get("kind") == "battle":
        if step.get("ignores_massing") and numbers:
            lines.append("This Quest battle ignores Enemy massing's numbers (p.79).")
            numbers = 0
        numbers += int(step.get("numbers") or 0)
        panic += int(step.get("panic") or 0)
        lines.append(f"Quest step {step.get('result')}: {step.get('effect')} (p.79).")
        return BattleTerms(
            numbers,
            panic,
            False,
            False,
            tuple(lines),
            str(step.get("objective") or ""),
            str(step.get("ai") or ""),
            int(step.get("score_target") or 0),
            int(step.get("engineer_bonus") or 0),
        )
    return BattleTerms(numbers, panic, False, False, tuple(lines))
