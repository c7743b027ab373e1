"""Bug Hunt mission generation (Bug Hunt pp.184-190): Objectives, difficulty, Priority, Spawn
Rating, force strength (Fire Team plus Support rolls), Signals, Tactical Locations and the
initial Contact markers.

Numbers come from the ``bh-*`` tables passed in as engine :class:`RangeTable` objects keyed by
slug. Pure Python: no Django imports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.engine.dice import Dice, DiceError, FedDice, Keep, RollRecord, fed
from rules.engine.errors import RuleError
from rules.engine.tables import RangeTable

PRIORITY_MIN, PRIORITY_MAX = 1, 6
RANKS = {1: "Objective", 2: "Vital Objective", 3: "Critical Objective"}


class MissionError(RuleError):
    """A mission step asked for something the rules do not allow; the message says what is."""


@dataclass(frozen=True)
class Objective:
    """One Objective marker: its table position (1-6), rank, the value it counts when completed
    (1, Vital 2, Critical 3) and its type from the D6 Objective table (Patrol, Scout ...)."""

    position: int
    rank: str
    value: int
    type: str
    rule: str

    def as_dict(self) -> dict[str, Any]:
        return {"position": self.position, "rank": self.rank, "value": self.value, "type": self.type, "rule": self.rule}


@dataclass(frozen=True)
class ObjectiveRoll:
    objectives: tuple[Objective, ...]
    rolls: tuple[RollRecord, ...]

    @property
    def has_vital(self) -> bool:
        return any(o.rank == RANKS[2] for o in self.objectives)

    @property
    def has_critical(self) -> bool:
        return any(o.rank == RANKS[3] for o in self.objectives)


def roll_objectives(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    faces: Sequence[int] | None = None,
    type_faces: Sequence[int] | None = None,
) -> ObjectiveRoll:
    """Step 2 (p.185): three D6 against six numbered markers; each number rolled keeps its
    marker, rolled twice it is Vital, three times Critical. Then a D6 on the Objective table for
    each kept marker. ``faces`` are the player's own three D6, if they rolled them;
    ``type_faces`` their D6 for the Objective table, one per kept marker from the lowest number.

    Raises :class:`MissionError` when ``faces`` are not three D6 faces, and :class:`DiceError`
    naming ``objective_type_faces`` when ``type_faces`` are not one D6 face per kept marker.
    """
    try:
        positions = Dice.enter("3D6", list(faces), "Objective positions", keep=Keep.SEPARATE) if faces is not None else None
    except DiceError as exc:
        raise MissionError(f"objective_faces must be three D6 faces: {exc}", field="objective_faces") from exc
    record = positions or dice.separate(3, 6, "Objective positions")
    kinds = fed(dice, type_faces, field="objective_type_faces")
    rolls = [record]
    objectives = []
    ranks = {int(e.data["matching_dice"]): e for e in tables["bh-objective-placement"].entries}
    for position, count in sorted(Counter(record.faces).items()):
        kind = tables["bh-mission-objectives"].roll(kinds, reason=f"Objective at marker {position}")
        rolls.append(kind.record)
        rank = ranks[count]
        objectives.append(
            Objective(
                position=position, rank=rank.result, value=int(rank.data["value"]), type=kind.entry.result, rule=kind.entry.effect
            )
        )
    if isinstance(kinds, FedDice):
        kinds.check_used()
    return ObjectiveRoll(objectives=tuple(objectives), rolls=tuple(rolls))


@dataclass(frozen=True)
class Difficulty:
    """A difficulty setting (p.186): adjustments to the initial Contact markers, to the enemy
    numbers of every revealed Contact, and to Support points."""

    name: str
    initial_contacts: int
    encounter: int
    support_points: int
    minimum_contacts: int | None = None


def difficulty(tables: Mapping[str, RangeTable], name: str) -> Difficulty:
    """The setting called ``name``. Raises :class:`MissionError` naming the five settings."""
    for entry in tables["bh-difficulty-settings"].entries:
        if entry.result == name:
            d = entry.data
            return Difficulty(
                name=entry.result,
                initial_contacts=int(d["initial_contacts"]),
                encounter=int(d["encounter"]),
                support_points=int(d["support_points"]),
                minimum_contacts=d.get("minimum_contacts"),
            )
    names = ", ".join(e.result for e in tables["bh-difficulty-settings"].entries)
    raise MissionError(f"difficulty must be one of: {names}.")


@dataclass(frozen=True)
class PriorityResult:
    priority: int
    spawn_rating: int
    record: RollRecord | None
    explanation: str


def spawn_rating(priority: int) -> int:
    """Step 5 (p.187): Priority minus 1, at most 3."""
    return max(0, min(priority - 1, 3))


def determine_priority(
    dice: Dice,
    *,
    vital: bool,
    critical: bool,
    reputation_spent: int = 0,
    faces: Sequence[int] | None = None,
) -> PriorityResult:
    """Step 4 (p.187): the lower of 2D6, +1 with a Vital and +2 with a Critical Objective on the
    table, then up to 2 Reputation spent to move it one step each way (``reputation_spent`` is
    -2..2: negative lowers); clamped to 1-6. ``faces`` are the player's own two D6.

    Raises :class:`MissionError` for more than 2 Reputation or bad faces.
    """
    if not -2 <= reputation_spent <= 2:
        raise MissionError("reputation_spent must be from -2 to 2 (up to 2 Reputation, each moving Priority by 1).")
    try:
        record = (
            Dice.enter("2D6", list(faces), "Priority", keep=Keep.LOWEST) if faces is not None else dice.lowest(2, 6, "Priority")
        )
    except DiceError as exc:
        raise MissionError(f"priority_faces must be two D6 faces: {exc}", field="priority_faces") from exc
    base = int(record.total or 0)
    value = base + (1 if vital else 0) + (2 if critical else 0) + reputation_spent
    priority = max(PRIORITY_MIN, min(PRIORITY_MAX, value))
    parts = [f"lower of {record.faces[0]} and {record.faces[1]} is {base}"]
    if vital:
        parts.append("+1 for a Vital Objective")
    if critical:
        parts.append("+2 for a Critical Objective")
    if reputation_spent:
        parts.append(f"{reputation_spent:+d} for Reputation spent")
    explanation = ", ".join(parts) + f": Priority {priority}" + (" (kept within 1-6)" if priority != value else "")
    return PriorityResult(priority=priority, spawn_rating=spawn_rating(priority), record=record, explanation=explanation)


def escalation_priority(tables: Mapping[str, RangeTable], mission_number: int) -> PriorityResult:
    """The campaign escalation option (p.187): fixed Priority for missions 1-8.

    Raises :class:`MissionError` past the eighth mission, which the book leaves open.
    """
    for entry in tables["bh-campaign-escalation"].entries:
        if int(entry.data["mission"]) == mission_number:
            priority = int(entry.data["priority"])
            return PriorityResult(
                priority,
                int(entry.data["spawn_rating"]),
                None,
                f"Campaign escalation, mission {mission_number}: Priority {priority}",
            )
    raise MissionError(f"The escalation sequence covers missions 1 to 8; roll Priority for mission {mission_number}.")


def support_points(priority: int, setting: Difficulty, *, reputation_for_support: bool = False) -> int:
    """Step 7 (p.187): Support points equal Priority, plus the difficulty's bonus, plus 1 when a
    point of Reputation is spent on it."""
    return priority + setting.support_points + (1 if reputation_for_support else 0)


@dataclass(frozen=True)
class SupportRequest:
    option: str
    target: int
    granted: bool
    record: RollRecord | None
    data: Mapping[str, Any] = field(default_factory=dict)


def request_support(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    option: str,
    *,
    already: Sequence[str] = (),
    faces: Sequence[int] | None = None,
    free: bool = False,
) -> SupportRequest:
    """Spend one Support point on ``option`` (p.187): 2D6 equal to or over its target grants it,
    otherwise the point is lost. Each option may be requested once per mission. ``free`` grants
    it without a roll (the Extra Support movie magic card, p.181; ``record`` is then ``None``).

    Raises :class:`MissionError` for an unknown option (naming them) or a repeat request.
    """
    entries = {e.result: e for e in tables["bh-support"].entries}
    if option not in entries:
        raise MissionError(f"option must be one of: {', '.join(entries)}.")
    if option in already:
        raise MissionError(f"{option} was already requested for this mission; each option once.")
    target = int(entries[option].data["target"])
    if free:
        return SupportRequest(option=option, target=target, granted=True, record=None, data=entries[option].data)
    try:
        record = (
            Dice.enter("2D6", list(faces), f"Support: {option}") if faces is not None else dice.roll("2D6", f"Support: {option}")
        )
    except DiceError as exc:
        raise MissionError(f"faces must be two D6 faces: {exc}", field="faces") from exc
    return SupportRequest(
        option=option, target=target, granted=int(record.total or 0) >= target, record=record, data=entries[option].data
    )


@dataclass(frozen=True)
class Markers:
    """Step 8 (pp.190): Signals, Tactical Locations and initial Contact markers."""

    signals: int
    tactical_locations: int
    contacts_on_objectives: int
    contacts_at_center: int
    rolls: tuple[RollRecord, ...]


def place_markers(objectives: int, setting: Difficulty, dice: Dice, *, use_signals: bool) -> Markers:
    """Without Signals, six Tactical Locations; with them, 1D6 Signals and Tactical Locations up
    to six markers in all. One Contact marker on each Objective and one at the table center,
    adjusted by the difficulty (never below 0)."""
    rolls: list[RollRecord] = []
    signals = 0
    if use_signals:
        record = dice.d6("Signals")
        rolls.append(record)
        signals = int(record.total or 0)
    return Markers(
        signals=signals,
        tactical_locations=6 - signals,
        contacts_on_objectives=objectives,
        contacts_at_center=max(0, 1 + setting.initial_contacts),
        rolls=tuple(rolls),
    )


def center_contacts(setup: Mapping[str, Any]) -> int:
    """Contact markers placed at the table center when the mission starts (p.190, step 8): the
    difficulty's number plus the extra ones from Operational Progress (p.205). ``setup`` is a
    stored mission set-up (``contacts_at_center``, ``extra_contacts``; missing keys count 0)."""
    return int(setup.get("contacts_at_center") or 0) + int(setup.get("extra_contacts") or 0)


def starting_contacts(setup: Mapping[str, Any]) -> int:
    """All Contact markers on the table when the mission starts (p.190, step 8): one on each
    Objective (``contacts_on_objectives``) and those at the center (:func:`center_contacts`)."""
    return int(setup.get("contacts_on_objectives") or 0) + center_contacts(setup)
