"""Bug Hunt Contact markers and the enemies behind them (Bug Hunt pp.192-197).

Moving markers (Aggression and Chance dice), Detection ranges, the Contact table, the
"Beep... Sir?" roll at the start of a round, and what a CONTACT! reveals: the mission's enemy
type (D100, once per mission), how many (its Numbers dice, adjusted by the difficulty's encounter
modifier, at least 1), the variant (D6, once per mission, only for a type met earlier in the
campaign) and pack leaders (from the third mission: a pool of three D12).

Directions: the book rolls a direction die. We roll a D12 and read it as a clock face seen from
above the table with 12 o'clock at the far edge ("5 o'clock"); a random battlefield edge reads
the same D12 three faces per edge (11-1 far edge, 2-4 right, 5-7 near, 8-10 left).

Every random number comes from the :class:`~rules.engine.dice.Dice` passed in, or from faces the
player typed (``face=``/``faces=`` arguments); every roll is returned in ``rolls``.
Numbers come from the ``bh-*`` tables passed in as :class:`RangeTable` objects keyed by slug.
Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.engine.dice import Dice, DiceError, Keep, RollRecord, parse
from rules.engine.errors import RuleError
from rules.engine.tables import RangeTable

BANDS: tuple[str, ...] = ("open", "cover")
"""Detection bands, in the order of the bh-contact-detection rows: in sight and not in cover,
or in cover / out of sight (p.192)."""

EDGES: dict[int, str] = {
    **dict.fromkeys((11, 12, 1), "far edge (12 o'clock)"),
    **dict.fromkeys((2, 3, 4), "right edge (3 o'clock)"),
    **dict.fromkeys((5, 6, 7), "near edge (6 o'clock)"),
    **dict.fromkeys((8, 9, 10), "left edge (9 o'clock)"),
}
"""A D12 read as a random battlefield edge, three clock faces per edge."""


class ContactError(RuleError):
    """A Contact or enemy roll the rules refuse; ``field`` names the argument at fault."""


# -- dice helpers -------------------------------------------------------------------------------


def _one(dice: Dice, notation: str, reason: str, face: int | None, *, field: str) -> RollRecord:
    """Roll ``notation`` or record the player's typed ``face`` (a natural total)."""
    if face is None:
        return dice.roll(notation, reason)
    parsed = parse(notation)
    try:
        if parsed.count == 1:
            return Dice.enter(notation, [int(face)], reason)
        return Dice.enter_total(notation, int(face), reason)
    except (DiceError, TypeError, ValueError) as exc:
        raise ContactError(f"{field} must be a {notation} result: {exc}", field=field) from None


def _separate(dice: Dice, count: int, sides: int, reason: str, faces: Sequence[int] | None, *, field: str) -> RollRecord:
    """``count`` separate dice, rolled or typed."""
    if faces is None:
        return dice.separate(count, sides, reason)
    try:
        return Dice.enter(f"{count}D{sides}", list(faces), reason, keep=Keep.SEPARATE)
    except (DiceError, TypeError, ValueError) as exc:
        raise ContactError(f"{field} needs {count} D{sides} face(s): {exc}", field=field) from None


def clock_face(face: int) -> str:
    """A D12 face as a direction: ``5`` -> ``"5 o'clock"``. Raises :class:`ContactError` outside 1-12."""
    if not 1 <= face <= 12:
        raise ContactError(f"A direction is a D12 face from 1 to 12; got {face}.", field="direction")
    return f"{face} o'clock"


def random_direction(dice: Dice, reason: str, *, face: int | None = None) -> tuple[str, RollRecord]:
    """A random direction (the book's direction die) as a D12 clock face: ``("5 o'clock", record)``."""
    record = _one(dice, "D12", reason, face, field="direction")
    return clock_face(int(record.total or 0)), record


def random_edge(dice: Dice, reason: str, *, face: int | None = None) -> tuple[str, RollRecord]:
    """The center of a random battlefield edge from a D12, three faces per edge (see :data:`EDGES`)."""
    record = _one(dice, "D12", reason, face, field="direction")
    return EDGES[int(record.total or 0)], record


# -- moving markers (p.192) -----------------------------------------------------------------------


@dataclass(frozen=True)
class ContactMove:
    """How one Contact marker moves: ``outcome`` is ``advance`` (Aggression inches toward the
    nearest trooper), ``random`` (Chance inches toward ``direction``) or ``split`` (stays; a new
    marker appears on it). ``chance`` is ``None`` when a pack Leader within 9" meant only the
    Aggression die was rolled."""

    aggression: int
    chance: int | None
    outcome: str
    inches: int
    direction: str | None
    text: str
    rolls: tuple[RollRecord, ...]


def move_contact(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    leader_near: bool = False,
    faces: Sequence[int] | None = None,
    direction_face: int | None = None,
    label: str = "Contact marker",
) -> ContactMove:
    """Move one Contact marker in the Enemy Action phase (p.192; Leader p.197).

    Two D6: Aggression and Chance (``faces`` = ``[aggression, chance]`` typed from physical dice;
    just ``[aggression]`` when ``leader_near``). Chance higher: move Chance inches in a random
    direction (a D12 clock face, or ``direction_face``); Aggression higher: move Aggression inches
    toward the nearest player figure; equal: the marker stays and a new one is placed on it.
    With a pack Leader within 9" only the Aggression die is rolled, so it always advances.
    Markers stop at the table edge and ignore Difficult ground (the referee moves them).

    Raises :class:`ContactError` (field ``faces``) for faces that are not one/two D6.
    """
    rules = {str(e.data["outcome"]): e for e in tables["bh-contact-movement"].entries}
    count = 1 if leader_near else 2
    record = _separate(dice, count, 6, f"{label}: Aggression{'' if leader_near else ' and Chance'}", faces, field="faces")
    aggression = record.faces[0]
    chance = None if leader_near else record.faces[1]
    rolls = [record]
    if chance is None or aggression > chance:
        why = (
            ' (a pack Leader within 9": Aggression die only)'
            if leader_near
            else f" (Aggression {aggression} beats Chance {chance})"
        )
        text = f"{label}: move {aggression} inches toward the nearest trooper{why}."
        return ContactMove(aggression, chance, str(rules["advance"].data["outcome"]), aggression, None, text, tuple(rolls))
    if chance > aggression:
        direction, where = random_direction(dice, f"{label}: random direction", face=direction_face)
        rolls.append(where)
        text = f"{label}: move {chance} inches toward {direction} (Chance {chance} beats Aggression {aggression})."
        return ContactMove(aggression, chance, str(rules["random"].data["outcome"]), chance, direction, text, tuple(rolls))
    text = f"{label}: stays put and a new Contact marker appears on it (both dice {aggression}); they move apart from next round."
    return ContactMove(aggression, chance, str(rules["split"].data["outcome"]), 0, None, text, tuple(rolls))


# -- detection (p.192) ------------------------------------------------------------------------------


def detection_range(tables: Mapping[str, RangeTable], band: str) -> int:
    """Inches within which a marker is Detected: ``open`` (in sight, not in cover: 6) or
    ``cover`` (in cover or out of sight: 3), from bh-contact-detection (p.192). Line of Sight is
    not needed. Raises :class:`ContactError` (field ``band``) for another band."""
    if band not in BANDS:
        raise ContactError(f"band must be one of {', '.join(BANDS)}; got {band!r}.", field="band")
    rows = sorted(tables["bh-contact-detection"].entries, key=lambda e: e.position)
    return int(rows[BANDS.index(band)].data["inches"])


@dataclass(frozen=True)
class ContactRoll:
    """The Contact table result (p.193): ``outcome`` is ``remove`` (Stay frosty), ``move_and_add``
    (movement all over the place) or ``enemies`` (CONTACT!); ``result`` is the row's name."""

    face: int
    outcome: str
    result: str
    record: RollRecord


def roll_contact(tables: Mapping[str, RangeTable], dice: Dice, *, face: int | None = None, label: str = "Contact") -> ContactRoll:
    """Roll (or enter) the D6 on the Contact table for a Detected marker (p.193)."""
    table = tables["bh-contact-results"]
    record = _one(dice, "D6", f"{label}: Contact table", face, field="faces")
    looked = table.resolve(record)
    return ContactRoll(int(record.total or 0), str(looked.entry.data["outcome"]), looked.entry.result, record)


def minimum_contacts(tables: Mapping[str, RangeTable]) -> int:
    """Stay frosty tops the table back up below this many markers (3, p.193)."""
    for entry in tables["bh-contact-results"].entries:
        if entry.data.get("minimum_contacts") is not None:
            return int(entry.data["minimum_contacts"])
    raise ContactError("bh-contact-results has no minimum_contacts row.")  # pragma: no cover - shipped table has it


# -- "Beep... Sir?" (p.193) ------------------------------------------------------------------------


@dataclass(frozen=True)
class BeepResult:
    """The start-of-round roll: ``sixes`` among the Priority D6, ``placed`` new markers and their
    ``edges`` (clock faces where they come in), ``bonus_fire_in`` inches for the free shots."""

    sixes: int
    placed: int
    edges: tuple[str, ...]
    bonus_fire_in: int
    text: str
    rolls: tuple[RollRecord, ...]


def beep_sir(
    tables: Mapping[str, RangeTable],
    priority: int,
    dice: Dice,
    *,
    living_nightmare: bool = False,
    faces: Sequence[int] | None = None,
    direction_faces: Sequence[int] | None = None,
) -> BeepResult:
    """From round 2, at the start of each round: roll Priority D6 (``faces`` typed if wanted).
    Any 6 places one new Contact marker at the edge point a random direction (D12 clock face)
    from the table center points to; on Living Nightmare one per 6 (p.193). The tracker then
    checks Detection; a marker Detected at once lets every figure within 12" fire at the revealed
    enemies as a free bonus action.

    Raises :class:`ContactError` for a Priority below 1 or faces that are not Priority D6.
    """
    if priority < 1:
        raise ContactError(f"priority must be 1 or more; got {priority}.", field="priority")
    rule = tables["bh-beep-sir"].entries[0].data
    record = _separate(dice, priority, 6, '"Beep... Sir?"', faces, field="faces")
    success = int(rule["success_on"])
    sixes = sum(1 for f in record.faces if f >= success)
    placed = sixes if living_nightmare else min(sixes, int(rule["contacts"]))
    rolls = [record]
    edges: list[str] = []
    given = list(direction_faces or [])
    for index in range(placed):
        direction, where = random_direction(
            dice, '"Beep... Sir?" marker direction', face=given[index] if index < len(given) else None
        )
        edges.append(direction)
        rolls.append(where)
    shown = ", ".join(map(str, record.faces))
    if not placed:
        text = f'"Beep... Sir?": {priority} D6 rolled ({shown}), no 6: no new Contact marker.'
    else:
        where_text = ", ".join(f"the edge at {e}" for e in edges)
        many = "one new Contact marker" if placed == 1 else f"{placed} new Contact markers"
        text = (
            f'"Beep... Sir?": {priority} D6 rolled ({shown}): {many} at {where_text}. '
            f"If one is Detected at once, every figure within {int(rule['bonus_fire_in'])} inches may fire at the revealed enemies as a free bonus action."
        )
    return BeepResult(sixes, placed, tuple(edges), int(rule["bonus_fire_in"]), text, tuple(rolls))


# -- enemies (pp.194-197) --------------------------------------------------------------------------


@dataclass(frozen=True)
class EnemyType:
    """One row of the Enemy table (pp.194-195): Numbers dice, Speed (inches), Combat Skill,
    Toughness, Damage, the special rule in our words and a save (D6 target) where it has one."""

    name: str
    numbers: str
    speed: int
    combat_skill: int
    toughness: int
    damage: int
    rule: str
    saving_throw: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "numbers": self.numbers,
            "speed": self.speed,
            "combat_skill": self.combat_skill,
            "toughness": self.toughness,
            "damage": self.damage,
            "rule": self.rule,
            "saving_throw": self.saving_throw,
        }


def _enemy_from(entry: Any) -> EnemyType:
    d = entry.data
    return EnemyType(
        name=entry.result,
        numbers=str(d["numbers"]),
        speed=int(d["speed"]),
        combat_skill=int(d["combat_skill"]),
        toughness=int(d["toughness"]),
        damage=int(d["damage"]),
        rule=entry.effect,
        saving_throw=None if d.get("saving_throw") is None else int(d["saving_throw"]),
    )


def _named(tables: Mapping[str, RangeTable], slug: str, name: str, field: str) -> Any:
    """The row of ``slug`` whose result is ``name`` (case-insensitive). Raises
    :class:`ContactError` for ``field`` naming every row."""
    for entry in tables[slug].entries:
        if entry.result.lower() == str(name).strip().lower():
            return entry
    names = ", ".join(e.result for e in tables[slug].entries)
    raise ContactError(f"{field} must be one of: {names}; got {name!r}.", field=field)


def enemy_type(tables: Mapping[str, RangeTable], name: str) -> EnemyType:
    """The enemy type called ``name`` (case-insensitive). Raises :class:`ContactError` (field
    ``enemy``) naming the sixteen types."""
    return _enemy_from(_named(tables, "bh-enemies", name, "enemy"))


def roll_enemy_type(tables: Mapping[str, RangeTable], dice: Dice, *, face: int | None = None) -> tuple[EnemyType, RollRecord]:
    """D100 on the Enemy table the first time a Contact is revealed in a mission (p.194)."""
    record = _one(dice, "D100", "Enemy type", face, field="enemy_face")
    return _enemy_from(tables["bh-enemies"].resolve(record).entry), record


def roll_numbers(
    enemy: EnemyType, dice: Dice, *, encounter: int = 0, faces: Sequence[int] | None = None
) -> tuple[int, RollRecord]:
    """How many enemies a revealed Contact holds: the type's Numbers dice plus the difficulty's
    encounter modifier (-1 I'm Too Pretty to Die, +1 Mega-violence / Living Nightmare), at least 1
    (pp.186, 194). Returns ``(count, record)``; the record's total already includes the modifier."""
    try:
        record = (
            dice.roll(enemy.numbers, f"{enemy.name}: Numbers", modifier=encounter)
            if faces is None
            else Dice.enter(enemy.numbers, list(faces), f"{enemy.name}: Numbers", modifier=encounter)
        )
    except (DiceError, TypeError, ValueError) as exc:
        raise ContactError(f"numbers_faces must be the faces of {enemy.numbers}: {exc}", field="numbers_faces") from None
    return max(1, int(record.total or 0)), record


@dataclass(frozen=True)
class Variant:
    """An enemy variant (p.196): ``key`` is the data name (spitters, ambushers, toughs, swarmers,
    runners, screamers)."""

    name: str
    key: str
    rule: str
    data: Mapping[str, Any] = field(default_factory=dict)


def _variant_from(entry: Any) -> Variant:
    return Variant(entry.result, str(entry.data["variant"]), entry.effect, dict(entry.data))


def variant(tables: Mapping[str, RangeTable], name: str) -> Variant:
    """The variant called ``name``. Raises :class:`ContactError` naming the six variants."""
    return _variant_from(_named(tables, "bh-enemy-variants", name, "variant"))


def roll_variant(tables: Mapping[str, RangeTable], dice: Dice, *, face: int | None = None) -> tuple[Variant, RollRecord]:
    """D6 on the Enemy Variants table (p.196): only when the type was met earlier in the campaign,
    once per mission, at the first enemy seen."""
    record = _one(dice, "D6", "Enemy variant", face, field="variant_face")
    entry = tables["bh-enemy-variants"].resolve(record).entry
    return _variant_from(entry), record


@dataclass(frozen=True)
class PackLeader:
    """A pack leader (p.197): ``key`` is leader, lancer, caller, assassin, bruiser or driver."""

    name: str
    key: str
    rule: str
    data: Mapping[str, Any] = field(default_factory=dict)


def _leader_from(entry: Any) -> PackLeader:
    return PackLeader(entry.result, str(entry.data["leader"]), entry.effect, dict(entry.data))


def leader_rules(tables: Mapping[str, RangeTable]) -> Mapping[str, Any]:
    """The pack leader check numbers: ``dice`` (3), ``sides`` (12), ``from_mission`` (3),
    ``max_per_mission`` (3) from bh-pack-leader-check (p.197)."""
    return tables["bh-pack-leader-check"].entries[0].data


@dataclass(frozen=True)
class LeaderCheck:
    """The D12 pool roll: ``present`` when any die is at or under the enemies revealed; the pool
    then loses one die (``pool_after``). ``leader`` is rolled on the Pack Leaders table."""

    present: bool
    pool_after: int
    leader: PackLeader | None
    text: str
    rolls: tuple[RollRecord, ...]


def check_pack_leader(
    tables: Mapping[str, RangeTable],
    pool: int,
    revealed: int,
    dice: Dice,
    *,
    faces: Sequence[int] | None = None,
    leader_face: int | None = None,
) -> LeaderCheck:
    """From the third mission of a campaign, on each reveal (p.197): roll the pool's D12 (three at
    the start of the mission); if any is at or under ``revealed`` one pack leader is present, one
    D12 leaves the pool, and a D6 on the Pack Leaders table says which kind. An empty pool rolls
    nothing. Raises :class:`ContactError` for a negative pool or bad faces."""
    if pool < 0:
        raise ContactError(f"pool must be 0 or more; got {pool}.", field="pool")
    if pool == 0:
        return LeaderCheck(False, 0, None, "No pack leader dice are left this mission.", ())
    rules = leader_rules(tables)
    record = _separate(dice, pool, int(rules["sides"]), "Pack leader check", faces, field="leader_faces")
    shown = ", ".join(map(str, record.faces))
    if not any(f <= revealed for f in record.faces):
        text = f"Pack leader check: D12 {shown}, none at or under {revealed}: no pack leader."
        return LeaderCheck(False, pool, None, text, (record,))
    kind = _one(dice, "D6", "Pack leader type", leader_face, field="leader_face")
    entry = tables["bh-pack-leaders"].resolve(kind).entry
    leader = _leader_from(entry)
    text = (
        f"Pack leader check: D12 {shown}, one at or under {revealed}: a pack leader joins them, placed farthest "
        f"from the troopers ({leader.name}: {leader.rule.rstrip('.')}). One D12 leaves the pool ({pool - 1} left)."
    )
    return LeaderCheck(True, pool - 1, leader, text, (record, kind))


@dataclass(frozen=True)
class Reveal:
    """What a CONTACT! reveals (pp.193-197).

    ``enemy`` is the mission's type (``type_rolled`` when this reveal rolled it), ``count`` the
    figures of that type placed within 1" of the marker (Numbers, encounter modifier, Swarmers
    +1), ``variant`` the mission's variant if any (``variant_rolled`` when rolled now),
    ``leader`` a pack leader placed in addition (or ``None``), ``leader_pool`` the D12 left,
    ``notes`` special placement rules in words.
    """

    enemy: EnemyType
    type_rolled: bool
    count: int
    variant: Variant | None
    variant_rolled: bool
    leader: PackLeader | None
    leader_pool: int
    notes: tuple[str, ...]
    text: str
    rolls: tuple[RollRecord, ...]


def reveal(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    *,
    enemy: str | None,
    variant_name: str | None,
    variant_checked: bool,
    enemies_met: Sequence[str],
    mission_number: int,
    encounter: int,
    leader_pool: int,
    enemy_face: int | None = None,
    numbers_faces: Sequence[int] | None = None,
    variant_face: int | None = None,
    leader_faces: Sequence[int] | None = None,
    leader_face: int | None = None,
) -> Reveal:
    """Replace a Detected marker with enemies (CONTACT!, pp.193-197).

    ``enemy``: the type already known this mission (``None``: roll D100, or use ``enemy_face``).
    ``variant_name``/``variant_checked``: the variant rolled this mission, and whether the once-
    per-mission variant check was made. A variant is rolled only when the type is in
    ``enemies_met`` (types met in earlier missions). Numbers: the type's dice + ``encounter``
    (minimum 1), +1 for Swarmers. Pack leaders from mission 3 (``mission_number``) while
    ``leader_pool`` D12 remain. Converted infiltration teams set one figure on the closest
    Objective; Ambushers go in or behind terrain within 4". The enemies do nothing this round.

    Raises :class:`ContactError` naming a bad enemy/variant name or bad typed faces.
    """
    rolls: list[RollRecord] = []
    notes: list[str] = []
    sentences: list[str] = []
    if enemy:
        kind = enemy_type(tables, enemy)
        type_rolled = False
    else:
        kind, record = roll_enemy_type(tables, dice, face=enemy_face)
        rolls.append(record)
        type_rolled = True
        sentences.append(f"Enemy type rolled {record.total} on D100: {kind.name}; every enemy this mission is of this type.")
    met = {name.lower() for name in enemies_met}
    chosen = variant(tables, variant_name) if variant_name else None
    variant_rolled = False
    if not variant_checked and kind.name.lower() in met:
        chosen, record = roll_variant(tables, dice, face=variant_face)
        rolls.append(record)
        variant_rolled = True
        sentences.append(f"{kind.name} were met before: variant roll {record.total}, {chosen.name} ({chosen.rule.rstrip('.')}).")
    count, record = roll_numbers(kind, dice, encounter=encounter, faces=numbers_faces)
    rolls.append(record)
    adjust = f" {encounter:+d} difficulty" if encounter else ""
    how_many = f"Numbers {kind.numbers} rolled {int(record.total or 0) - encounter}{adjust}"
    if int(record.total or 0) < 1:
        how_many += " (at least 1)"
    if chosen is not None and chosen.key == "swarmers":
        count += 1
        how_many += ", +1 Swarmers"
    sentences.append(f"CONTACT! {how_many}: {count} {kind.name} placed within 1 inch of the marker; they do nothing this round.")
    if kind.name == "Converted infiltration team":
        notes.append("One of them is set up on the closest Objective instead.")
    if chosen is not None and chosen.key == "ambushers":
        notes.append(
            f"Ambushers: place them in or behind the nearest terrain within {chosen.data.get('range_in', 4)} inches, not touching a trooper."
        )
    leader = None
    pool = leader_pool
    if mission_number >= int(leader_rules(tables)["from_mission"]):
        check = check_pack_leader(tables, leader_pool, count, dice, faces=leader_faces, leader_face=leader_face)
        rolls.extend(check.rolls)
        leader, pool = check.leader, check.pool_after
        sentences.append(check.text)
    sentences.extend(notes)
    return Reveal(kind, type_rolled, count, chosen, variant_rolled, leader, pool, tuple(notes), " ".join(sentences), tuple(rolls))
