"""Bug Hunt campaign turn and post-battle sequence (Bug Hunt pp.182-183, 201-206).

A campaign turn runs in three stages (p.182): Special Assignments, the mission, and the nine
post-battle steps (p.202). This module holds the squad between missions as frozen dataclasses
(:class:`Trooper`, :class:`Operation`, :class:`Squad`) and one function per rule, each taking
the state and returning a :class:`Result` with the new state, every roll made and plain-words
lines. The service layer calls the steps in order so the players can choose between them;
:func:`post_battle` runs all nine with a :class:`PostBattleChoices`.

The life of a campaign turn, as the functions see it:

- :func:`campaign_turn_start` marks who spends this turn in Sick Bay (``laid_up``) and lists
  who may apply for Special Assignments and who may go on the mission.
- :func:`special_assignment` (p.183) for each trooper who applies.
- the mission (``bughunt.engine.missions`` and the live tracker); it reports a
  :class:`MissionOutcome`. :func:`court_martial` when no Objective was completed (p.201).
- post-battle steps 1-9 (pp.202-206). Step 1 (:func:`casualties`) also clears the one-turn
  flags set by last turn's Military Life (brig, reprimand, special duties, Intel Corps),
  because the mission they were for is over.
- Sick Bay time counts down in step 9 (:func:`ready_for_next_turn`): every trooper who spent
  this turn in Sick Bay (``laid_up``) crosses off one turn there; a trooper hurt in this
  mission starts counting down at the end of the next turn, so "1D3 turns" means 1D3 missed
  turns.

Numbers come from the ``bh-*`` rule tables passed in as :class:`RangeTable` objects keyed by
slug. Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, RollRecord
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable

from .characters import PROFILE_KEYS, CharacterError, Profile, create_main_character

STATUSES = ("active", "dead", "mustered_out", "retired", "removed")
PROFILE_NAMES = {
    "reactions": "Reactions",
    "speed": "Speed",
    "combat_skill": "Combat Skill",
    "toughness": "Toughness",
    "savvy": "Savvy",
}
RAZOR_LIZARDS = "Razor lizards"
CASUALTY, LOST_MARINE = "Casualty", "Lost Marine"
LEADERSHIP = "Leadership training"


class CampaignError(RuleError):
    """A campaign step asked for something the rules do not allow; the message names the field
    and what is allowed."""


# -- state -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trooper:
    """A main character between missions.

    - ``status``: active | dead | mustered_out | retired | removed (court martial, crippling).
    - ``sick_bay``: campaign turns still to spend in Sick Bay, counting the current turn when
      ``laid_up``. A trooper with ``sick_bay > 0`` cannot apply for Special Assignments or go
      on a mission.
    - ``laid_up``: spends the current campaign turn in Sick Bay (set at the start of a turn).
    - ``assignments``: Special Assignments completed, once each per career (p.183).
    - ``assignment_bonus``: added to the next Special Assignments roll, then spent
      (recommendation +2, cashed-in favors +1 each; p.206).
    - ``no_assignment_next``: reprimand, no Special Assignment in the coming turn.
    - ``bonus_assignment_roll``: detached on special duties, one extra Special Assignments roll
      in the coming turn.
    - ``miss_next_mission``: brig or special duties, sits out the coming mission.
    - ``weapon_notes``: range bonuses from Time tinkering, e.g. ``'+1" range: Combat rifle'``.
    - ``advanced_care_turn``: the campaign turn advanced care was last bought (once per turn).
    - ``assignment_turn`` / ``assignment_rolls``: Special Assignments rolls made in that turn.
    - ``mission_counted_turn``: the turn whose mission was added to Completed Missions (step 2;
      step 3 checks exactly those troopers for mustering out).
    - ``replaced_by``: the name of the replacement rolled up for a departed trooper.
    """

    name: str
    profile: Profile
    xp: int = 0
    completed_missions: int = 0
    status: str = "active"
    sick_bay: int = 0
    laid_up: bool = False
    assignments: tuple[str, ...] = ()
    assignment_bonus: int = 0
    no_assignment_next: bool = False
    bonus_assignment_roll: bool = False
    miss_next_mission: bool = False
    weapon_notes: tuple[str, ...] = ()
    advanced_care_turn: int | None = None
    assignment_turn: int | None = None
    assignment_rolls: int = 0
    mission_counted_turn: int | None = None
    replaced_by: str | None = None

    @property
    def active(self) -> bool:
        return self.status == "active"

    @property
    def in_sick_bay(self) -> bool:
        return self.sick_bay > 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form; :meth:`from_dict` reads it back."""
        return {
            "name": self.name,
            "profile": self.profile.as_dict(),
            "xp": self.xp,
            "completed_missions": self.completed_missions,
            "status": self.status,
            "sick_bay": self.sick_bay,
            "laid_up": self.laid_up,
            "assignments": list(self.assignments),
            "assignment_bonus": self.assignment_bonus,
            "no_assignment_next": self.no_assignment_next,
            "bonus_assignment_roll": self.bonus_assignment_roll,
            "miss_next_mission": self.miss_next_mission,
            "weapon_notes": list(self.weapon_notes),
            "advanced_care_turn": self.advanced_care_turn,
            "assignment_turn": self.assignment_turn,
            "assignment_rolls": self.assignment_rolls,
            "mission_counted_turn": self.mission_counted_turn,
            "replaced_by": self.replaced_by,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trooper:
        """Inverse of :meth:`as_dict`; missing keys take their defaults. Raises
        :class:`CampaignError` for an unknown status or a profile without the five scores."""
        profile = data.get("profile") or {}
        missing = [k for k in PROFILE_KEYS if k not in profile]
        if missing:
            raise CampaignError(f"profile must have {', '.join(PROFILE_KEYS)}; missing {', '.join(missing)}.")
        status = str(data.get("status", "active"))
        if status not in STATUSES:
            raise CampaignError(f"status must be one of {', '.join(STATUSES)}; got {status!r}.")

        def opt_int(key: str) -> int | None:
            value = data.get(key)
            return None if value is None else int(value)

        return cls(
            name=str(data["name"]),
            profile=Profile(**{k: int(profile[k]) for k in PROFILE_KEYS}),
            xp=int(data.get("xp", 0)),
            completed_missions=int(data.get("completed_missions", 0)),
            status=status,
            sick_bay=int(data.get("sick_bay", 0)),
            laid_up=bool(data.get("laid_up", False)),
            assignments=tuple(str(a) for a in data.get("assignments") or ()),
            assignment_bonus=int(data.get("assignment_bonus", 0)),
            no_assignment_next=bool(data.get("no_assignment_next", False)),
            bonus_assignment_roll=bool(data.get("bonus_assignment_roll", False)),
            miss_next_mission=bool(data.get("miss_next_mission", False)),
            weapon_notes=tuple(str(w) for w in data.get("weapon_notes") or ()),
            advanced_care_turn=opt_int("advanced_care_turn"),
            assignment_turn=opt_int("assignment_turn"),
            assignment_rolls=int(data.get("assignment_rolls", 0)),
            mission_counted_turn=opt_int("mission_counted_turn"),
            replaced_by=None if data.get("replaced_by") is None else str(data["replaced_by"]),
        )


@dataclass(frozen=True)
class Operation:
    """Operational Progress (p.205), cumulative until the operation ends.

    - ``number``: which operation this is (1 for the first).
    - ``modifier``: added to future Operational Progress rolls (steps of 5).
    - ``extra_contacts``: extra enemy Contact markers in every future mission (includes the
      two of a disaster's last mission).
    - ``extra_support_rolls``: extra Support rolls in every future mission.
    - ``missions``: missions played in this operation.
    - ``missions_since_rr``: missions since the last R&R (R&R is earned every 4; p.206).
    - ``disaster_pending``: the operation is a disaster; the next mission is its last.
    - ``rr_earned``: R&R is owed at the next step 8 (a parade, or an operation that ended with
      R&R already earned).
    """

    number: int = 1
    modifier: int = 0
    extra_contacts: int = 0
    extra_support_rolls: int = 0
    missions: int = 0
    missions_since_rr: int = 0
    disaster_pending: bool = False
    rr_earned: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "modifier": self.modifier,
            "extra_contacts": self.extra_contacts,
            "extra_support_rolls": self.extra_support_rolls,
            "missions": self.missions,
            "missions_since_rr": self.missions_since_rr,
            "disaster_pending": self.disaster_pending,
            "rr_earned": self.rr_earned,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Operation:
        return cls(
            number=int(data.get("number", 1)),
            modifier=int(data.get("modifier", 0)),
            extra_contacts=int(data.get("extra_contacts", 0)),
            extra_support_rolls=int(data.get("extra_support_rolls", 0)),
            missions=int(data.get("missions", 0)),
            missions_since_rr=int(data.get("missions_since_rr", 0)),
            disaster_pending=bool(data.get("disaster_pending", False)),
            rr_earned=bool(data.get("rr_earned", False)),
        )


@dataclass(frozen=True)
class Squad:
    """The squad between missions: the shared Reputation pool, the main characters (departed
    ones stay in the tuple with their status), the current operation and the campaign turn.

    ``priority_shift_next``: a friend in the Intel Corps (p.206) lets the player move the
    coming mission's Priority by up to this many steps either way (0 or 1).
    """

    reputation: int
    troopers: tuple[Trooper, ...]
    operation: Operation = field(default_factory=Operation)
    turn: int = 1
    priority_shift_next: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "reputation": self.reputation,
            "troopers": [t.as_dict() for t in self.troopers],
            "operation": self.operation.as_dict(),
            "turn": self.turn,
            "priority_shift_next": self.priority_shift_next,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Squad:
        return cls(
            reputation=int(data.get("reputation", 0)),
            troopers=tuple(Trooper.from_dict(t) for t in data.get("troopers") or ()),
            operation=Operation.from_dict(data.get("operation") or {}),
            turn=int(data.get("turn", 1)),
            priority_shift_next=int(data.get("priority_shift_next", 0)),
        )

    @property
    def active(self) -> tuple[Trooper, ...]:
        """The troopers still on the roster."""
        return tuple(t for t in self.troopers if t.active)

    def get(self, name: str, *, field_name: str = "trooper_name", active: bool = True) -> Trooper:
        """The trooper called ``name``. Raises :class:`CampaignError` naming the troopers
        allowed (active ones unless ``active`` is False)."""
        pool = self.active if active else self.troopers
        for trooper in pool:
            if trooper.name == name:
                return trooper
        allowed = ", ".join(t.name for t in pool) or "nobody"
        raise CampaignError(f"{field_name} must be one of {allowed}; got {name!r}.")

    def put(self, trooper: Trooper) -> Squad:
        """This squad with the trooper of the same name replaced by ``trooper``."""
        return replace(self, troopers=tuple(trooper if t.name == trooper.name else t for t in self.troopers))

    def with_reputation(self, delta: int) -> Squad:
        """Reputation changed by ``delta``, never below 0."""
        return replace(self, reputation=max(0, self.reputation + delta))


@dataclass(frozen=True)
class MissionOutcome:
    """What the mission tracker reports for the post-battle sequence (names are main
    characters).

    - ``priority``: the mission's final Priority.
    - ``objectives_completed``: completed Objectives with Vital counted 2 and Critical 3.
    - ``took_field``: who was on the table; ``casualties``: taken out by the enemy;
      ``lost_marines``: left by a battlefield edge; ``evacuated``: left by drop ship.
    - ``mvp``: the player's MVP pick (may also be given in the choices).
    - ``enemy``: the enemy type met (``bh-enemies`` result, e.g. "Razor lizards").
    - ``signals_initial`` / ``signals_investigated``: for the 4+ Signals rule (p.201).
    - ``in_charge``: the character in charge (court martial, p.201).
    """

    priority: int
    objectives_completed: int
    took_field: tuple[str, ...]
    casualties: tuple[str, ...] = ()
    lost_marines: tuple[str, ...] = ()
    evacuated: tuple[str, ...] = ()
    mvp: str | None = None
    enemy: str | None = None
    signals_initial: int = 0
    signals_investigated: int = 0
    in_charge: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "priority": self.priority,
            "objectives_completed": self.objectives_completed,
            "took_field": list(self.took_field),
            "casualties": list(self.casualties),
            "lost_marines": list(self.lost_marines),
            "evacuated": list(self.evacuated),
            "mvp": self.mvp,
            "enemy": self.enemy,
            "signals_initial": self.signals_initial,
            "signals_investigated": self.signals_investigated,
            "in_charge": self.in_charge,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MissionOutcome:
        def names(key: str) -> tuple[str, ...]:
            return tuple(str(n) for n in data.get(key) or ())

        return cls(
            priority=int(data["priority"]),
            objectives_completed=int(data["objectives_completed"]),
            took_field=names("took_field"),
            casualties=names("casualties"),
            lost_marines=names("lost_marines"),
            evacuated=names("evacuated"),
            mvp=data.get("mvp"),
            enemy=data.get("enemy"),
            signals_initial=int(data.get("signals_initial", 0)),
            signals_investigated=int(data.get("signals_investigated", 0)),
            in_charge=data.get("in_charge"),
        )


@dataclass(frozen=True)
class Offer:
    """A Military Life result that waits for the player's decision (p.206), taken with
    :func:`accept_offer`.

    - ``kind="raise_stat"``: raise ``stat`` by 1 for ``cost_xp`` XP (up to the table maximum).
    - ``kind="tinkering"``: pick a personal weapon for +``range_in``" range.
    - ``kind="cash_in_favor"``: spend 0 to ``max_reputation`` Reputation, each point buying
      ``xp_per_reputation`` XP or +``bonus_per_reputation`` on a Special Assignments roll.
    """

    kind: str
    trooper: str
    stat: str | None = None
    cost_xp: int = 0
    range_in: int = 0
    max_reputation: int = 0
    xp_per_reputation: int = 0
    bonus_per_reputation: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "trooper": self.trooper,
            "stat": self.stat,
            "cost_xp": self.cost_xp,
            "range_in": self.range_in,
            "max_reputation": self.max_reputation,
            "xp_per_reputation": self.xp_per_reputation,
            "bonus_per_reputation": self.bonus_per_reputation,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Offer:
        return cls(
            kind=str(data["kind"]),
            trooper=str(data["trooper"]),
            stat=data.get("stat"),
            cost_xp=int(data.get("cost_xp", 0)),
            range_in=int(data.get("range_in", 0)),
            max_reputation=int(data.get("max_reputation", 0)),
            xp_per_reputation=int(data.get("xp_per_reputation", 0)),
            bonus_per_reputation=int(data.get("bonus_per_reputation", 0)),
        )


@dataclass(frozen=True)
class Result:
    """What every step returns: the new squad, every roll made (in order), one plain-words line
    per thing that happened, offers waiting for a decision and structured details in ``data``
    (JSON-ready; keys documented on each function)."""

    squad: Squad
    rolls: tuple[RollRecord, ...] = ()
    lines: tuple[str, ...] = ()
    offers: tuple[Offer, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return " ".join(self.lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "squad": self.squad.as_dict(),
            "rolls": [r.as_dict() for r in self.rolls],
            "lines": list(self.lines),
            "offers": [o.as_dict() for o in self.offers],
            "data": dict(self.data),
        }


# -- small helpers -----------------------------------------------------------------------------


def _table(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise CampaignError(f"tables must include {slug!r}.") from None


def _row(tables: Mapping[str, RangeTable], slug: str, result: str) -> Entry:
    for entry in _table(tables, slug).entries:
        if entry.result == result:
            return entry
    raise CampaignError(f"Table {slug!r} has no row {result!r}.")


def _enter(notation: str, faces: Sequence[int], reason: str, field_name: str, *, modifier: int = 0) -> RollRecord:
    try:
        return Dice.enter(notation, list(faces), reason, modifier=modifier)
    except DiceError as exc:
        raise CampaignError(f"{field_name}: {exc}") from exc


def _roll(
    dice: Dice, notation: str, reason: str, faces: Sequence[int] | None, field_name: str, *, modifier: int = 0
) -> RollRecord:
    if faces is not None:
        return _enter(notation, faces, reason, field_name, modifier=modifier)
    return dice.roll(notation, reason, modifier=modifier)


def _pick(
    dice: Dice, names: Sequence[str], reason: str, *, chosen: str | None, face: int | None, field_name: str
) -> tuple[str, tuple[RollRecord, ...]]:
    """A random name from ``names``: the player's own pick (``chosen``, "any appropriate
    method"), or the smallest die with at least that many faces, rerolling faces past the last
    whole multiple of ``len(names)``; face ``f`` picks ``names[(f - 1) % len(names)]``."""
    if not names:
        raise CampaignError(f"{field_name}: there is nobody to pick from.")
    if chosen is not None:
        if chosen not in names:
            raise CampaignError(f"{field_name} must be one of {', '.join(names)}; got {chosen!r}.")
        return chosen, ()
    if len(names) == 1:
        return names[0], ()
    sides = next(s for s in ALLOWED_SIDES if s >= len(names)) if len(names) <= 100 else 100
    usable = sides - sides % len(names)
    rolls: list[RollRecord] = []
    if face is not None:
        if not 1 <= face <= usable:
            raise CampaignError(f"{field_name}_face must be 1 to {usable} on the D{sides} for {len(names)} names; got {face}.")
        record = _enter(f"D{sides}", [face], reason, f"{field_name}_face")
        return names[(face - 1) % len(names)], (record,)
    while True:
        record = dice.roll(f"D{sides}", reason)
        rolls.append(record)
        value = int(record.total or 0)
        if value <= usable:
            return names[(value - 1) % len(names)], tuple(rolls)


def _raise_stat(trooper: Trooper, stat: str, amount: int) -> Trooper:
    return replace(trooper, profile=trooper.profile.plus({stat: amount}))


def _sick_bay_owed(trooper: Trooper) -> int:
    """Sick Bay turns still owed after the current one."""
    return max(0, trooper.sick_bay - (1 if trooper.laid_up else 0))


def _ensure_next_turn_in_sick_bay(trooper: Trooper) -> Trooper:
    """At least the coming campaign turn in Sick Bay (fight, sickness; p.206)."""
    return replace(trooper, sick_bay=max(trooper.sick_bay, 1 + (1 if trooper.laid_up else 0)))


def _check_names(squad: Squad, names: Iterable[str], field_name: str) -> None:
    for name in names:
        squad.get(name, field_name=field_name, active=False)


# -- mission success (p.201) -------------------------------------------------------------------


def objective_total(tables: Mapping[str, RangeTable], outcome: MissionOutcome) -> tuple[int, str]:
    """The Objective total used after the battle (p.201): Objectives completed (Vital 2,
    Critical 3), minus 1 when the mission began with 4+ Signals and fewer than 2 were
    investigated before Evac (``bh-tactical-location-placement``). Never below 0.

    Returns ``(total, explanation)``.
    """
    rule = _row(tables, "bh-tactical-location-placement", "Signals investigated before Evac").data
    total = outcome.objectives_completed
    if outcome.signals_initial >= int(rule["signals"]) and outcome.signals_investigated < int(rule["required_investigated"]):
        reduced = max(0, total + int(rule["objective_penalty"]))
        return reduced, (
            f"{total} Objective points, {int(rule['objective_penalty']):+d} because only {outcome.signals_investigated} of "
            f"{outcome.signals_initial} Signals were investigated: {reduced}."
        )
    return total, f"{total} Objective points."


def mission_success(tables: Mapping[str, RangeTable], outcome: MissionOutcome) -> bool:
    """A mission succeeds with an Objective total of 2 or more (``bh-mission-success``, p.201)."""
    need = int(_row(tables, "bh-mission-success", "Success").data["objectives"])
    return objective_total(tables, outcome)[0] >= need


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
    edge under the Escape movie magic card (p.181) and skip the Lost Marine roll; ``survived``
    names the one character whose roll's effects the Survived card cancels (p.181).

    - Gruesome fate: dead. Death or crippling injury: dead, or ``removed`` for names in
      ``crippled`` (the player tells the story).
    - Wounds: Sick Bay for the row's time (1D3, 1D3+1 or 1 campaign turns); against Razor lizards
      (``outcome.enemy``, p.194) +1 turn on the Casualty column only.
    - School of hard knocks: +1 XP. Knocked out: nothing.

    Also clears last turn's one-turn flags (:func:`clear_one_turn_flags`).

    ``faces`` maps a name to their D100 result; ``recovery_faces`` maps a name to the D3 face
    for the Sick Bay time. ``data``: ``{"results": {name: {"column", "result", "outcome",
    "sick_bay", "xp"}}}``. Raises :class:`CampaignError` for names that are not troopers or
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
            detail: dict[str, Any] = {"column": column, "result": entry.result, "outcome": kind, "sick_bay": 0, "xp": 0}
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


# -- step 5: experience and advances (p.204) ---------------------------------------------------


def award_experience(
    tables: Mapping[str, RangeTable], squad: Squad, outcome: MissionOutcome, *, mvp: str | None = None
) -> Result:
    """Step 5 (p.204, ``bh-experience-awards``): each active trooper who took the field gets
    +1 XP if a casualty or lost marine, else +2 (Objective total 0-1) or +3 (2+); +1 more when
    Priority was 4+; +1 to the MVP (``mvp`` or ``outcome.mvp``), who must be an active trooper
    who took the field. The dead earn nothing.

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


# -- the whole sequence ------------------------------------------------------------------------


@dataclass(frozen=True)
class PostBattleChoices:
    """The player's decisions for :func:`post_battle`.

    - ``mvp``: MVP (else ``outcome.mvp``). ``crippled``: Death-or-crippling casualties who
      leave crippled rather than dead. ``escaped``: lost marines covered by the Escape card;
      ``survived``: the character the Survived card saves from an injury roll's effects.
    - ``advanced_care``: troopers to buy advanced care for after step 1 (1 Reputation each,
      skipped with a line when not possible).
    - ``retire``: injured troopers to retire in step 4.
    - ``replacement_names``: names for replacements, used in order for the open vacancies.
    - ``advances``: ``(name, stat)`` pairs bought after step 5.
    - ``accept_offers``: take Military Life offers (``tinker_weapon`` for tinkering;
      ``favor_xp`` / ``favor_bonus`` Reputation for a cashed-in favor).
    - ``spend_reputation_on_rr``: buy R&R in step 8 when not entitled.
    - ``pay_court_martial``: pay 3 Reputation if the court martial finds guilty.
    - ``military_life_pick`` / ``vital_operation_pick``: the player's own random picks.
    """

    mvp: str | None = None
    crippled: tuple[str, ...] = ()
    escaped: tuple[str, ...] = ()
    survived: str | None = None
    advanced_care: tuple[str, ...] = ()
    retire: tuple[str, ...] = ()
    replacement_names: tuple[str, ...] = ()
    advances: tuple[tuple[str, str], ...] = ()
    accept_offers: bool = False
    tinker_weapon: str = "Service pistol"
    favor_xp: int = 0
    favor_bonus: int = 0
    spend_reputation_on_rr: bool = False
    pay_court_martial: bool = False
    military_life_pick: str | None = None
    vital_operation_pick: str | None = None


@dataclass(frozen=True)
class PostBattle:
    """The whole sequence: the final squad, every roll in order, and each step's
    ``(step number, title, Result)``; step 0 is the court martial when there was one."""

    squad: Squad
    rolls: tuple[RollRecord, ...]
    steps: tuple[tuple[int, str, Result], ...]

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(line for _, _, result in self.steps for line in result.lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "squad": self.squad.as_dict(),
            "rolls": [r.as_dict() for r in self.rolls],
            "steps": [{"step": n, "title": title, **result.as_dict()} for n, title, result in self.steps],
        }


def post_battle(
    tables: Mapping[str, RangeTable],
    squad: Squad,
    outcome: MissionOutcome,
    dice: Dice,
    choices: PostBattleChoices | None = None,
) -> PostBattle:
    """Run the court martial (when no Objective was completed and ``outcome.in_charge`` is
    set, p.201) and the nine post-battle steps (pp.202-206, ``bh-post-battle-sequence``) in
    order with ``choices``. Advanced care, advances and offers the squad cannot afford are
    skipped with a line saying why; other errors are raised as by the step functions.
    """
    choices = choices or PostBattleChoices()
    titles = {int(e.data["step"]): e.result for e in _table(tables, "bh-post-battle-sequence").entries}
    steps: list[tuple[int, str, Result]] = []

    def keep(step: int, title: str, result: Result) -> Squad:
        steps.append((step, title, result))
        return result.squad

    def try_step(step: int, title: str, attempt: Callable[..., Result], *args: Any, **kwargs: Any) -> None:
        nonlocal squad
        try:
            squad = keep(step, title, attempt(*args, **kwargs))
        except CampaignError as exc:
            steps.append((step, title, Result(squad, (), (f"Skipped: {exc}",))))

    if outcome.objectives_completed == 0 and outcome.in_charge:
        squad = keep(
            0,
            "Court martial",
            court_martial(tables, squad, outcome.in_charge, dice, pay_reputation=choices.pay_court_martial),
        )
    squad = keep(
        1,
        titles[1],
        casualties(tables, squad, outcome, dice, crippled=choices.crippled, escaped=choices.escaped, survived=choices.survived),
    )
    for name in choices.advanced_care:
        try_step(1, "Advanced care", advanced_care, tables, squad, name)
    squad = keep(2, titles[2], update_completed_missions(squad, outcome))
    squad = keep(3, titles[3], muster_out(tables, squad, outcome, dice))
    squad = keep(4, titles[4], determine_reputation(tables, squad, outcome, dice))
    for name in choices.retire:
        squad = keep(4, "Retirement", retire(squad, name))
    for departed, new_name in zip(vacancies(squad), choices.replacement_names, strict=False):
        squad = keep(4, "Replacement", replacement(tables, squad, departed, new_name, dice))
    mvp = choices.mvp if choices.mvp is not None else outcome.mvp
    if mvp is not None and not squad.get(mvp, field_name="mvp", active=False).active:
        mvp = None
    squad = keep(5, titles[5], award_experience(tables, squad, replace(outcome, mvp=None), mvp=mvp))
    for name, stat in choices.advances:
        try_step(5, "Advance", advance_trooper, tables, squad, name, stat)
    squad = keep(6, titles[6], operational_progress(tables, squad, outcome, dice, pick=choices.vital_operation_pick))

    def offers_of(result: Result) -> None:
        if not choices.accept_offers:
            return
        for offer in result.offers:
            try_step(
                7,
                "Offer taken",
                accept_offer,
                tables,
                squad,
                offer,
                weapon=choices.tinker_weapon,
                xp_points=choices.favor_xp,
                bonus_points=choices.favor_bonus,
            )

    life = military_life(tables, squad, dice, pick=choices.military_life_pick)
    squad = keep(7, titles[7], life)
    offers_of(life)
    rr = rest_and_recreation(tables, squad, dice, pay_reputation=choices.spend_reputation_on_rr)
    squad = keep(8, titles[8], rr)
    offers_of(rr)
    squad = keep(9, titles[9], ready_for_next_turn(squad))
    rolls = tuple(r for _, _, result in steps for r in result.rolls)
    return PostBattle(squad=squad, rolls=rolls, steps=tuple(steps))


__all__ = [
    "Advance",
    "AssignmentOptions",
    "CampaignError",
    "MissionOutcome",
    "Offer",
    "Operation",
    "PostBattle",
    "PostBattleChoices",
    "Result",
    "Squad",
    "Trooper",
    "TurnStart",
    "accept_offer",
    "advance",
    "advance_trooper",
    "advanced_care",
    "advancement_cost",
    "assignments_available",
    "award_experience",
    "campaign_turn_start",
    "casualties",
    "clear_one_turn_flags",
    "court_martial",
    "determine_reputation",
    "military_life",
    "mission_success",
    "muster_out",
    "objective_total",
    "operational_progress",
    "post_battle",
    "ready_for_next_turn",
    "replacement",
    "rest_and_recreation",
    "retire",
    "special_assignment",
    "update_completed_missions",
    "vacancies",
]
