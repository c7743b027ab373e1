"""Expanded Factions (Compendium pp.110-115): generating Factions, jobs, loyalty, favors,
fleeing, the Faction activity and event tables.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from campaigns.engine.view import Change, FactionView
from campaigns.engine.world.common import Roller, WorldError, table
from campaigns.engine.world.strife import strife_blocks_factions
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

# -- Expanded Factions (pp.110-115) ---------------------------------------------------------


@dataclass
class _Live:
    """A Faction being changed inside one rule (mutable working copy)."""

    name: str
    type: str
    influence: int
    power: int
    loyalty: int
    no_job_turn: int = 0
    no_activity_turn: int = 0
    attacked_turn: int = 0
    gone: bool = False

    @classmethod
    def of(cls, view: FactionView) -> _Live:
        return cls(
            view.name,
            view.type,
            view.influence,
            view.power,
            view.loyalty,
            view.no_job_turn,
            view.no_activity_turn,
            view.attacked_turn,
        )


@dataclass(frozen=True)
class FactionOutcome:
    """What a Faction rule did: text, rolls, changes (``faction``, ``faction_add``,
    ``faction_remove`` and others) and facts for the turn."""

    text: str
    rolls: tuple[RollRecord, ...] = ()
    changes: tuple[Change, ...] = ()
    facts: Mapping[str, Any] = field(default_factory=dict)


class _Board:
    """The Factions of a world while a rule runs; turns the result into changes."""

    def __init__(self, factions: Iterable[FactionView], roller: Roller, tables: Mapping[str, RangeTable]) -> None:
        self.original = {f.name: f for f in factions}
        self.live = {name: _Live.of(f) for name, f in self.original.items()}
        self.roller = roller
        self.tables = tables
        self.lines: list[str] = []
        self.extra: list[Change] = []

    def alive(self) -> list[_Live]:
        return [f for f in self.live.values() if not f.gone]

    def get(self, name: str, field_name: str = "faction") -> _Live:
        found = self.live.get(name)
        if found is None or found.gone:
            known = ", ".join(f.name for f in self.alive()) or "none"
            raise WorldError(f"{field_name} must be one of the Factions here ({known}); got {name!r}.", field=field_name)
        return found

    def pick(self, reason: str, among: Sequence[_Live] | None = None) -> _Live:
        return self.roller.pick(list(self.alive() if among is None else among), reason)

    def others(self, faction: _Live) -> list[_Live]:
        return [f for f in self.alive() if f is not faction]

    def lower_or_higher(self, faction: _Live, *, higher: bool, tie: str = "random") -> str:
        """Which score is higher (or lower); ties go ``random`` or to ``power``."""
        if faction.influence == faction.power:
            if tie == "power":
                return "power"
            return self.roller.pick(["influence", "power"], f"{faction.name}: which score")
        bigger = "influence" if faction.influence > faction.power else "power"
        smaller = "power" if bigger == "influence" else "influence"
        return bigger if higher else smaller

    def adjust(self, faction: _Live, score: str, delta: int) -> None:
        setattr(faction, score, getattr(faction, score) + delta)

    def settle(self, *, struggle_winner: _Live | None = None, job_faction: str = "") -> None:
        """Remove Factions at 0 Power or Influence (p.115) and apply what follows a destruction."""
        mech = {str(e.data.get("step")): e.data for e in table(self.tables, "faction-mechanics").entries}
        while True:
            dead = [f for f in self.alive() if f.influence <= 0 or f.power <= 0]
            if not dead:
                return
            for faction in dead:
                faction.gone = True
                self.lines.append(f"{faction.name} is destroyed.")
                if struggle_winner is not None and not struggle_winner.gone:
                    rule = mech.get("destroyed_struggle", {})
                    if struggle_winner.loyalty >= int(rule.get("min_loyalty", 4)):
                        self.extra.append(
                            Change(
                                "rival_add",
                                {
                                    "name": f"{faction.name} remnants",
                                    "kind": "Hired Muscle",
                                    "notes": "Roll the type on the Hired Muscle table (core p.96).",
                                },
                            )
                        )
                        self.lines.append(f"Remnants of {faction.name} come after you as a Rival.")
                    if job_faction == struggle_winner.name:
                        struggle_winner.loyalty += int(rule.get("loyalty", 2))
                        self.lines.append(f"Loyalty to {struggle_winner.name} +{rule.get('loyalty', 2)}.")
                survivors = self.alive()
                if survivors:
                    after = mech.get("after_destroyed", {})
                    scores = {
                        s.name: self.roller.roll(
                            str(after.get("dice", "1D6")), f"{s.name} after a destruction", modifier=s.power
                        ).total
                        or 0
                        for s in survivors
                    }
                    top = max(scores.values())
                    for s in survivors:
                        if scores[s.name] == top:
                            s.influence += int(after.get("influence", 1))
                            self.lines.append(f"{s.name} fills the gap: Influence +{after.get('influence', 1)}.")

    def changes(self) -> list[Change]:
        out: list[Change] = []
        for name, faction in self.live.items():
            before = self.original.get(name)
            if faction.gone:
                if before is not None:
                    out.append(Change("faction_remove", {"name": name}))
                continue
            if before is None:
                out.append(
                    Change(
                        "faction_add",
                        {
                            "name": name,
                            "type": faction.type,
                            "influence": faction.influence,
                            "power": faction.power,
                            "loyalty": faction.loyalty,
                        },
                    )
                )
                continue
            data: dict[str, Any] = {"name": name}
            for score in ("influence", "power", "loyalty"):
                delta = getattr(faction, score) - getattr(before, score)
                if delta:
                    data[score] = delta
            for turn_field in ("no_job_turn", "no_activity_turn", "attacked_turn"):
                if getattr(faction, turn_field) != getattr(before, turn_field):
                    data[turn_field] = getattr(faction, turn_field)
            if len(data) > 1:
                out.append(Change("faction", data))
        return out + self.extra

    def outcome(self, text: str = "", facts: Mapping[str, Any] | None = None) -> FactionOutcome:
        body = " ".join(([text] if text else []) + self.lines)
        return FactionOutcome(body, tuple(self.roller.records), tuple(self.changes()), dict(facts or {}))


def _mechanic(tables: Mapping[str, RangeTable], step: str) -> Mapping[str, Any]:
    for entry in table(tables, "faction-mechanics").entries:
        if entry.data.get("step") == step:
            return entry.data
    raise WorldError(f"Table 'faction-mechanics' has no {step!r} row.", field="tables")


def _unique_name(base: str, taken: Iterable[str]) -> str:
    used = set(taken)
    if base not in used:
        return base
    number = 2
    while f"{base} {number}" in used:
        number += 1
    return f"{base} {number}"


def faction_generate(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    name: str = "",
    small: bool = False,
    taken: Iterable[str] = (),
    value: int | None = None,
    faces: Sequence[int] | None = None,
) -> tuple[FactionView, tuple[RollRecord, ...]]:
    """One new Faction (p.110): D100 type, then Influence and Power of 1D3+1 each plus the type's
    modifiers; ``small`` (a New Faction event, p.114) rolls 1D3 instead. Without ``name`` it is
    named after its type (numbered past names in ``taken``). Loyalty starts at 0. ``value`` is
    the typed D100; ``faces`` the two typed D3 (Influence, then Power)."""
    roller = Roller(dice, faces)
    kind = roller.table(tables, "faction-type", value=value, reason="Faction type")
    mech = _mechanic(tables, "generate")
    notation = "1D3" if small else str(mech.get("influence", "1D3+1"))
    influence = (roller.roll(notation, "Faction Influence").total or 0) + int(kind.entry.data.get("influence_mod", 0))
    notation = "1D3" if small else str(mech.get("power", "1D3+1"))
    power = (roller.roll(notation, "Faction Power").total or 0) + int(kind.entry.data.get("power_mod", 0))
    chosen = name.strip() or _unique_name(kind.entry.result, taken)
    return FactionView(name=chosen, type=kind.entry.result, influence=influence, power=power), tuple(roller.records)


def factions_generate(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    taken: Iterable[str] = (),
    faces: Sequence[int] | None = None,
) -> FactionOutcome:
    """The Factions of a new world (p.110): 1D3+1 of them, each by :func:`faction_generate`.
    ``faces`` are typed dice in order: the count die, then per Faction its D100 type, D3 and D3.
    Changes: one ``faction_add`` per Faction; facts ``factions`` (names)."""
    roller = Roller(dice, faces)
    count = roller.roll(str(_mechanic(tables, "generate").get("factions", "1D3+1")), "How many Factions").total or 0
    board = _Board((), roller, tables)
    used = list(taken)
    made: list[str] = []
    for _ in range(count):
        faction, _rolls = faction_generate(tables, dice, taken=used, faces=_drain(roller, 3))
        roller.records.extend(_rolls)
        board.live[faction.name] = _Live.of(faction)
        used.append(faction.name)
        made.append(f"{faction.name} (Influence {faction.influence}, Power {faction.power})")
    return board.outcome(f"{count} Factions: {'; '.join(made)}.", {"factions": [n for n in board.live]})


def _drain(roller: Roller, count: int) -> list[int]:
    """Hand the next ``count`` typed faces to a nested rule."""
    taken, roller.queue = roller.queue[:count], roller.queue[count:]
    return taken


def faction_job_check(
    faction: FactionView, tables: Mapping[str, RangeTable], dice: Dice, *, turn: int, value: int | None = None
) -> tuple[bool, RollRecord | None, str]:
    """Captain's Faction job check (p.111): 1D6 at or under the Faction's Influence offers a job.
    A Faction silenced for this ``turn`` (Shoot out) offers none and no die is rolled.
    Returns (offered, roll or None, text)."""
    if faction.no_job_turn == turn:
        return False, None, f"{faction.name} cannot offer a job this turn."
    mech = _mechanic(tables, "job_check")
    record = Roller(dice, None if value is None else [value], field_name="value").roll(
        str(mech.get("dice", "1D6")), f"Faction job from {faction.name}"
    )
    offered = (record.total or 0) <= faction.influence
    extra = int(_mechanic(tables, "job").get("extra_enemies", 1))
    text = (
        f"{faction.name} has a job (a Patron job without Danger Pay or Benefits; +{extra} standard enemy)."
        if offered
        else f"{faction.name} has no job for you."
    )
    return offered, record, text


def faction_loyalty_gain(
    faction: FactionView, tables: Mapping[str, RangeTable], dice: Dice, *, affiliated: bool = False, value: int | None = None
) -> tuple[int, RollRecord]:
    """After winning a job for a Faction (p.112): 1D6 at or above current Loyalty gives +1; an
    affiliated Patron job needs the target in the data (a 6). Returns (Loyalty gained, roll)."""
    mech = _mechanic(tables, "gain_loyalty")
    record = Roller(dice, None if value is None else [value], field_name="value").roll(
        str(mech.get("dice", "1D6")), f"Loyalty with {faction.name}"
    )
    target = int(mech.get("affiliated_target", 6)) if affiliated else faction.loyalty
    gained = int(mech.get("loyalty", 1)) if (record.total or 0) >= target else 0
    return gained, record


def faction_favor(
    faction: FactionView, tables: Mapping[str, RangeTable], dice: Dice, *, value: int | None = None
) -> tuple[bool, int, RollRecord]:
    """Calling in a favor (p.112, a captain-only crew task): 1D6 at or under Loyalty grants a
    favor (see faction-favors) and costs Loyalty equal to the roll. Returns (granted, Loyalty
    lost, roll)."""
    mech = _mechanic(tables, "favor")
    record = Roller(dice, None if value is None else [value], field_name="value").roll(
        str(mech.get("dice", "1D6")), f"Favor from {faction.name}"
    )
    roll = record.total or 0
    granted = roll <= faction.loyalty
    return granted, roll if granted else 0, record


def factions_flee(
    factions: Sequence[FactionView], tables: Mapping[str, RangeTable], dice: Dice, *, faces: Sequence[int] | None = None
) -> FactionOutcome:
    """The world is invaded (p.114). Each Faction with Power 4 or less rolls 1D6: under its Power
    it flees along with you (-1 Power, -1 Influence, minimum 1 each); otherwise it is gone.
    Power 5+ Factions stay to fight: facts ``galactic_war_bonus`` (+1 each) and ``factions_fled``
    (names). ``faces`` are typed D6s in Faction order."""
    roller = Roller(dice, faces)
    board = _Board(factions, roller, tables)
    weak = _mechanic(tables, "invasion")
    strong = _mechanic(tables, "invasion_fight")
    fled: list[str] = []
    fighters = 0
    for faction in board.alive():
        if faction.power <= int(weak.get("max_power", 4)):
            roll = roller.roll(str(weak.get("dice", "1D6")), f"Does {faction.name} escape?").total or 0
            if roll < faction.power:
                floor = int(weak.get("minimum", 1))
                faction.power = max(floor, faction.power + int(weak.get("power", -1)))
                faction.influence = max(floor, faction.influence + int(weak.get("influence", -1)))
                fled.append(faction.name)
                board.lines.append(f"{faction.name} flees with you.")
            else:
                faction.gone = True
                board.lines.append(f"{faction.name} is scattered by the invasion.")
        elif faction.power >= int(strong.get("min_power", 5)):
            fighters += 1
            board.lines.append(
                f"{faction.name} stays to fight (+{strong.get('galactic_war_bonus', 1)} on Galactic War Progress); it no longer follows you."
            )
            faction.gone = True
    bonus = fighters * int(strong.get("galactic_war_bonus", 1))
    return board.outcome("Factions and the invasion:", {"factions_fled": fled, "galactic_war_bonus": bonus})


def _struggle(
    board: _Board, attacker: _Live, defender: _Live, *, job_faction: str, job_won: bool, bonus: int, label: str
) -> _Live | None:
    """Both roll 1D6+Power (+bonus for a Faction the crew won a job for); the loser drops its
    higher score by 1. Ties: nobody loses (our ruling). Returns the winner or None."""
    scores: dict[str, int] = {}
    for side in (attacker, defender):
        mod = side.power + (bonus if job_won and job_faction == side.name else 0)
        scores[side.name] = board.roller.roll("1D6", f"{label}: {side.name}", modifier=mod).total or 0
    if scores[attacker.name] == scores[defender.name]:
        board.lines.append(f"{label}: {attacker.name} and {defender.name} are even; nothing changes.")
        return None
    winner, loser = (attacker, defender) if scores[attacker.name] > scores[defender.name] else (defender, attacker)
    score = board.lower_or_higher(loser, higher=True)
    board.adjust(loser, score, -1)
    board.lines.append(f"{label}: {winner.name} beats {loser.name} ({loser.name} -1 {score.capitalize()}).")
    return winner


def faction_activity(
    factions: Sequence[FactionView],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    turn: int,
    job_faction: str = "",
    affiliated: bool = False,
    job_won: bool = False,
    strife: str = "",
    value: int | None = None,
    faces: Sequence[int] | None = None,
) -> FactionOutcome:
    """Faction activities at the Check for Invasion step (p.113; the caller skips it on an
    invaded world). After a direct job for ``job_faction`` (not an ``affiliated`` one) that
    Faction first starts a Faction Struggle; then one random Faction rolls D100 on
    faction-activity. Requirements not met, or a Faction silenced this ``turn``, mean nothing
    happens. A Crackdown or Civil War ``strife`` stops all activities (p.114).

    ``value`` is the typed D100; ``faces`` the other typed dice in order (random picks, D6s).
    Changes: ``faction`` deltas, ``faction_remove``, ``credits`` (Office party), ``rival_add``;
    facts ``faction_activity`` (the result name) and ``offers`` (list of words).
    """
    roller = Roller(dice, faces)
    board = _Board(factions, roller, tables)
    if strife_blocks_factions(strife):
        return board.outcome(f"No Faction activities: {strife}.")
    if not board.alive():
        return board.outcome("No Factions on this world.")
    rows = {e.result: e.data for e in table(tables, "faction-activity").entries}
    struggle_data = rows.get("Faction struggle", {})
    bonus = int(struggle_data.get("job_bonus", 1))
    winner: _Live | None = None
    if job_faction and not affiliated:
        starter = board.get(job_faction, "faction_job")
        others = board.others(starter)
        if others:
            target = board.pick(f"{starter.name} struggles against", others)
            winner = _struggle(
                board, starter, target, job_faction=job_faction, job_won=job_won, bonus=bonus, label="Faction struggle"
            )
            board.settle(struggle_winner=winner, job_faction=job_faction)
    facts: dict[str, Any] = {"offers": []}
    if board.alive():
        actor = board.pick("Which Faction acts")
        roll = roller.table(tables, "faction-activity", value=value, reason=f"Faction activity: {actor.name}")
        name, data = roll.entry.result, roll.entry.data
        facts["faction_activity"] = name
        lacks = (
            (data.get("min_influence") is not None and actor.influence < int(data["min_influence"]))
            or (data.get("min_power") is not None and actor.power < int(data["min_power"]))
            or (bool(data.get("requires_successful_job")) and not (job_won and job_faction == actor.name))
        )
        if actor.no_activity_turn == turn:
            board.lines.append(f"{actor.name} would act ({name}) but is laying low this turn.")
        elif lacks:
            board.lines.append(f"{actor.name}: {name}, but it does not meet the requirement; nothing happens.")
        else:
            winner = _activity(board, actor, name, data, facts, job_faction=job_faction, job_won=job_won, bonus=bonus) or winner
            board.settle(struggle_winner=winner if name == "Faction struggle" else None, job_faction=job_faction)
    return board.outcome("Faction activities:", facts)


def _activity(
    board: _Board,
    actor: _Live,
    name: str,
    data: Mapping[str, Any],
    facts: dict[str, Any],
    *,
    job_faction: str,
    job_won: bool,
    bonus: int,
) -> _Live | None:
    roller = board.roller
    dice_notation = str(data.get("dice", "1D6"))
    if name == "Consolidate power base":
        roll = roller.roll(dice_notation, f"{actor.name} consolidates").total or 0
        if roll > actor.power:
            actor.power += int(data.get("power", 1))
            board.lines.append(f"{actor.name} consolidates: Power +1.")
        else:
            board.lines.append(f"{actor.name} tries to consolidate, without result.")
    elif name == "Undermine Faction":
        others = board.others(actor)
        if not others:
            board.lines.append(f"{actor.name} has nobody to undermine.")
            return None
        target = board.pick(f"{actor.name} undermines", others)
        roll = roller.roll(dice_notation, f"{actor.name} undermines {target.name}").total or 0
        if roll >= int(data.get("target", 5)):
            score = board.lower_or_higher(target, higher=True)
            board.adjust(target, score, int(data.get("change", -1)))
            board.lines.append(f"{actor.name} undermines {target.name}: -1 {score.capitalize()}.")
        else:
            board.lines.append(f"{actor.name} fails to undermine {target.name}.")
    elif name == "Hostile take-over":
        others = board.others(actor)
        if not others:
            board.lines.append(f"{actor.name} has nobody to take over.")
            return None
        target = board.pick(f"{actor.name} moves on", others)
        roll = roller.roll(dice_notation, f"{actor.name} takes over {target.name}").total or 0
        if roll > target.influence:
            target.influence += int(data.get("target_influence", -1))
            actor.influence += int(data.get("influence", 1))
            board.lines.append(f"{actor.name} takes ground from {target.name}: Influence moves by 1.")
        else:
            board.lines.append(f"{target.name} resists {actor.name}'s take-over.")
    elif name == "Public relations campaign":
        roll = roller.roll(dice_notation, f"{actor.name} public relations").total or 0
        if roll > actor.influence:
            actor.influence += int(data.get("influence", 1))
            board.lines.append(f"{actor.name} wins hearts: Influence +1.")
        else:
            board.lines.append(f"{actor.name}'s campaign falls flat.")
    elif name == "Capitalize on events":
        score = board.lower_or_higher(actor, higher=False)
        board.adjust(actor, score, int(data.get("change", 1)))
        board.lines.append(f"{actor.name} capitalizes: {score.capitalize()} +1.")
    elif name == "Faction struggle":
        others = board.others(actor)
        if not others:
            board.lines.append(f"{actor.name} has no one to fight.")
            return None
        target = board.pick(f"{actor.name} struggles against", others)
        return _struggle(board, actor, target, job_faction=job_faction, job_won=job_won, bonus=bonus, label="Faction struggle")
    elif name == "Office party":
        if actor.loyalty > 0:
            board.extra.append(Change("credits", {"amount": actor.loyalty}))
        board.lines.append(f"{actor.name} throws an office party: +{actor.loyalty} credits.")
    elif name == "Plans within plans":
        facts["offers"].append(f"{actor.name} offers you a Quest")
        board.extra.append(Change("note", {"text": f"{actor.name} offers you a Quest."}))
        board.lines.append(f"{actor.name} offers you a Quest.")
    elif name == "Day to day operations":
        facts["offers"].append(f"{actor.name} offers a job next turn")
        board.extra.append(Change("note", {"text": f"{actor.name} will offer a job next turn."}))
        board.lines.append(f"{actor.name} will offer you a job next turn.")
    elif name == "Defensive posture":
        board.lines.append(f"{actor.name} digs in: hostile actions against it this turn fail.")
    else:
        board.lines.append(f"{actor.name} lies low.")
    return None


def faction_event(
    factions: Sequence[FactionView],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    turn: int,
    rival_names: Sequence[str] = (),
    value: int | None = None,
    faces: Sequence[int] | None = None,
) -> FactionOutcome:
    """The Faction event after the crew and campaign events (p.114): D100 on faction-events.

    ``turn`` is the current campaign turn ("next turn" effects mark ``turn + 1``);
    ``rival_names`` the crew's Rivals (for "We thought we would do you a favor"). ``value`` is the
    typed D100; ``faces`` the other typed dice in order. Changes: ``faction``, ``faction_add``,
    ``faction_remove``, ``story_points``, ``rival_add`` / ``rival_remove``, ``note``; facts
    ``faction_event``.
    """
    roller = Roller(dice, faces)
    board = _Board(factions, roller, tables)
    roll = roller.table(tables, "faction-events", value=value, reason="Faction event")
    name, data = roll.entry.result, roll.entry.data
    facts = {"faction_event": name}
    alive = board.alive()
    if not alive and name != "New Faction":
        return board.outcome(f"Faction event: {name}, but there are no Factions here.", facts)
    if name == "New Faction":
        faction, rolls = faction_generate(tables, dice, small=True, taken=board.live, faces=_drain(roller, 3))
        roller.records.extend(rolls)
        board.live[faction.name] = _Live.of(faction)
        board.lines.append(
            f"New Faction: {faction.name} (Influence {faction.influence}, Power {faction.power}); it offers you a job next turn."
        )
    elif name == "Shoot out":
        if len(alive) < 2:
            board.lines.append("Shoot out: only one Faction here, so nothing happens.")
        else:
            first = board.pick("Shoot out: first side")
            second = board.pick("Shoot out: second side", board.others(first))
            a = roller.roll(str(data.get("dice", "1D6")), f"Shoot out: {first.name}", modifier=first.power).total or 0
            b = roller.roll(str(data.get("dice", "1D6")), f"Shoot out: {second.name}", modifier=second.power).total or 0
            if a == b:
                board.lines.append(f"Shoot out between {first.name} and {second.name}: a draw, nothing changes.")
            else:
                loser = second if a > b else first
                score = board.lower_or_higher(loser, higher=True, tie="power")
                board.adjust(loser, score, int(data.get("change", -1)))
                loser.no_job_turn = loser.no_activity_turn = turn + 1
                board.lines.append(f"Shoot out: {loser.name} loses (-1 {score.capitalize()}, no job or activity next turn).")
    elif name == "Tensions rising":
        board.extra.append(
            Change("note", {"text": f"Faction jobs next turn: +{data.get('danger_pay_credits', 1)} credit Danger Pay."})
        )
        board.lines.append("Tensions rising: Faction jobs next turn pay more danger money.")
    elif name == "Truce":
        for quiet in alive:
            quiet.no_activity_turn = turn + 1
        board.lines.append("Truce: no Faction activities next turn.")
    elif name == "Power base":
        target = board.pick("Power base")
        score = board.lower_or_higher(target, higher=False)
        board.adjust(target, score, int(data.get("change", 1)))
        board.lines.append(f"Power base: {target.name} {score.capitalize()} +1.")
    elif name == "Tip off":
        target = board.pick("Tip off")
        board.extra.append(Change("note", {"text": f"{target.name} tips you off: +{data.get('quest_clues', 1)} Quest Clue."}))
        board.lines.append(f"Tip off: {target.name} gives you a Quest Clue.")
    elif name == "Befriending the leadership":
        board.extra.append(Change("story_points", {"amount": int(data.get("story_points", 1))}))
        best = max(alive, key=lambda f: f.loyalty)
        board.lines.append(f"Befriending the leadership: {best.name} warms to you, +1 story point.")
    elif name == "New Leadership":
        target = board.pick("New Leadership")
        for score in ("influence", "power"):
            face = roller.roll(str(data.get("dice", "1D6")), f"New leader: {target.name} {score}").total or 0
            if face <= int(data.get("down_on", 1)):
                board.adjust(target, score, -1)
            elif face >= int(data.get("up_on", 6)):
                board.adjust(target, score, 1)
        board.lines.append(f"New Leadership at {target.name}: Influence {target.influence}, Power {target.power}.")
    elif name == "Outside interference":
        target = board.pick("Outside interference")
        face = roller.roll(str(data.get("dice", "1D6")), f"Outside interference: {target.name}").total or 0
        if face > target.power:
            target.influence += int(data.get("influence", -1))
            board.lines.append(f"Outside interference: {target.name} -1 Influence.")
        else:
            board.lines.append(f"Outside interference: {target.name} holds firm.")
    elif name == "Internal struggle":
        target = board.pick("Internal struggle")
        face = roller.roll(str(data.get("dice", "1D6")), f"Internal struggle: {target.name}").total or 0
        if face == 1:
            target.influence += int(data.get("influence", -1))
            board.lines.append(f"Internal struggle: {target.name} -1 Influence.")
        elif face == 6:
            target.power += int(data.get("power", -1))
            board.lines.append(f"Internal struggle: {target.name} -1 Power.")
        else:
            board.lines.append(f"Internal struggle at {target.name} blows over.")
    elif name == "Public display of support":
        target = board.pick("Public display of support")
        target.influence += int(data.get("influence", 1))
        board.lines.append(f"{target.name} gains +1 Influence.")
    elif name == "Armed to the teeth":
        target = board.pick("Armed to the teeth")
        target.power += int(data.get("power", 1))
        board.lines.append(f"{target.name} gains +1 Power.")
    elif name == "A little visit":
        attacked = [f for f in alive if f.attacked_turn and f.attacked_turn >= turn - 1]
        if attacked:
            who = max(attacked, key=lambda f: f.attacked_turn)
            board.extra.append(
                Change("rival_add", {"name": f"{who.name} enforcers", "kind": "Enforcers", "notes": f"Sent by {who.name}."})
            )
            board.lines.append(f"A little visit: {who.name} sends Enforcers after you (new Rival).")
        else:
            board.lines.append("A little visit: you attacked no Faction lately, so nobody comes.")
    elif name == "We thought we would do you a favor":
        loyal = [f for f in alive if f.loyalty >= int(data.get("min_loyalty", 3))]
        if loyal and rival_names:
            friend = board.pick("Which loyal Faction helps", loyal)
            gone = roller.pick(list(rival_names), "Which Rival is removed")
            board.extra.append(Change("rival_remove", {"name": gone}))
            board.lines.append(f"{friend.name} takes care of your Rival {gone}.")
        else:
            board.lines.append("A Faction would do you a favor, but you need Loyalty 3+ and a Rival.")
    elif name == "Dark secrets":
        patron = board.pick("Dark secrets")
        others = board.others(patron)
        target_name = board.pick("Dark secrets target", others).name if others else "an unknown enemy"
        board.extra.append(
            Change(
                "note",
                {
                    "text": f"{patron.name} offers a Quest against {target_name}: success costs the target 1 Influence and 1 Power, +2 Loyalty."
                },
            )
        )
        board.lines.append(f"Dark secrets: {patron.name} sends you on a Quest against {target_name}.")
    board.settle()
    return board.outcome(f"Faction event: {name}.", facts)
