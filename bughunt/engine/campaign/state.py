"""The squad between missions as frozen dataclasses (Bug Hunt pp.182-206), the helpers the
steps share, and mission success (p.201)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bughunt.engine.characters import PROFILE_KEYS, Profile
from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, RollRecord
from rules.engine.errors import RuleError
from rules.engine.tables import Entry, RangeTable

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

    - ``priority``: the mission's Priority Rating as generated (p.186, after Reputation,
      Vital/Critical and Intel Corps shifts), before any drop ship raised it in play (p.201);
      see :func:`bughunt.engine.campaign.award_experience` for why.
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
        raise CampaignError(f"{field_name}: {exc}", field=field_name.split("[", 1)[0]) from exc


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
