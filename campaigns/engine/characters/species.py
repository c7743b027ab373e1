"""Species rules (Compendium pp.12-16): profiles, Primary Aliens, creation contacts and credits,
the fight pick, Krag armor; hazards and survival checks (pp.14-15, p.25).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from campaigns.engine.characters.values import (
    ENGINEER,
    HAZARD_KINDS,
    KRAG,
    SKULKER,
    SURVIVAL_COURSE,
    TABLE_SPECIES,
    TRAINING_TABLE,
    Character,
    CharacterError,
    Profile,
    _key,
    _row,
    _table,
    pick_one,
)
from campaigns.engine.credits import credits_roll
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import Entry, RangeTable, TableRoll

# -- species (pp.12-16) ----------------------------------------------------------------------


def species_kind(species: str) -> str:
    """The default ``kind`` for a species key: ``soulless``, ``bot`` or ``biological``."""
    key = _key(species)
    if key == _key("soulless"):
        return "soulless"
    if key == "bot":
        return "bot"
    return "biological"


def species_profile(species: str, tables: Mapping[str, RangeTable], presets: Mapping[str, Mapping[str, int]]) -> Profile:
    """Base profile of a species (pp.12, 14).

    Krag and Skulker read the ``profile`` row of ``krag-profile`` / ``skulker-profile``; any
    other species reads ``presets`` (the player's starting-profiles table: species key ->
    reactions, speed in inches, combat_skill, toughness, savvy and optional luck). The
    Compendium table wins over a preset for Krag and Skulker. Luck is 0 unless a preset gives
    it. Raises :class:`CharacterError` (field ``species``) naming the known species.
    """
    key = species.strip().lower()
    if key in TABLE_SPECIES:
        table = _table(tables, f"{key}-profile")
        for entry in table.rows():
            if entry.data.get("kind") == "profile":
                return Profile.from_dict(entry.data, where=f"{key}-profile")
        raise CharacterError(f"Table {key}-profile has no profile row.", field="tables")
    lowered = {str(k).strip().lower(): v for k, v in presets.items()}
    if key in lowered:
        return Profile.from_dict(lowered[key], where=f"presets.{key}")
    known = sorted({*TABLE_SPECIES, *lowered})
    raise CharacterError(
        f"species must be one of {', '.join(known)}; got {species!r}. Add its row to your starting profiles table.",
        field="species",
    )


def new_character(
    name: str,
    species: str,
    tables: Mapping[str, RangeTable],
    presets: Mapping[str, Mapping[str, int]],
    *,
    kind: str | None = None,
) -> Character:
    """A fresh crew member with the species base profile (see :func:`species_profile`);
    ``kind`` defaults from the species key (:func:`species_kind`). Raises :class:`CharacterError`."""
    key = species.strip().lower()
    return Character(name=name, species=key, kind=kind or species_kind(key), profile=species_profile(key, tables, presets))


def primary_alien(tables: Mapping[str, RangeTable], dice: Dice, value: int | None = None) -> tuple[str, TableRoll]:
    """Roll the new Primary Alien table (p.16, D100): species key and the roll. ``value`` is
    the player's D100 (1-100). Raises :class:`rules.engine.tables.TableError` for a bad value."""
    result = _table(tables, "primary-alien").roll_or_enter(dice, value=value, reason="Primary Alien")
    return str(result.entry.data["species"]), result


def _species_rows(tables: Mapping[str, RangeTable], species: str) -> list[Entry]:
    slug = f"{species}-profile"
    return _table(tables, slug).rows() if slug in tables else []


def can_dash(character: Character, tables: Mapping[str, RangeTable] | None = None) -> bool:
    """Whether the figure may take a Dash move: never for Krag (p.12). With ``tables``, any
    species table row with ``can_dash`` false decides it."""
    if tables is not None:
        rows = _species_rows(tables, character.species)
        if rows:
            return all(entry.data.get("can_dash", True) for entry in rows)
    return character.species != KRAG


#: Species rules of the table that act on the battlefield but need the table to apply them
#: (movement, terrain, hazards and drugs): the battle figure shows them as reminders.
BATTLE_REMINDERS: Mapping[str, tuple[str, ...]] = {
    KRAG: ("Stocky",),
    SKULKER: ("Agile", "Climber", "Biological resistance", "Drug resistance"),
}
#: The pages of each species' rules (the sources of krag-profile and skulker-profile).
SPECIES_PAGES: Mapping[str, str] = {KRAG: "pp.12-13", SKULKER: "pp.14-15"}


@dataclass(frozen=True)
class BattleTraits:
    """What a character's species does in a battle (pp.12-15). ``reroll_natural_one``: a natural
    1 on its firing or Brawl dice is rolled again, once (a Krag fighting Rivals, p.12; the
    combat resolver applies it); ``reminders``: species rules the players apply at the table,
    each with its page."""

    reroll_natural_one: bool
    reminders: tuple[str, ...]


def battle_traits(character: Character, tables: Mapping[str, RangeTable], *, against_rivals: bool) -> BattleTraits:
    """The species rules a character takes to a battle, read from ``<species>-profile``
    (krag-profile pp.12-13, skulker-profile pp.14-15): the Belligerent row's
    ``reroll_natural_one`` (``reroll_natural`` 1, ``against`` rivals) when ``against_rivals``, and
    a reminder for each rule of :data:`BATTLE_REMINDERS` (its effect text and the table's pages).
    Other species have none."""
    reroll = False
    reminders: list[str] = []
    rows = _species_rows(tables, character.species)
    wanted = {_key(n) for n in BATTLE_REMINDERS.get(character.species, ())}
    for entry in rows:
        data = entry.data
        if data.get("reroll_natural") == 1 and data.get("against") == "rivals" and against_rivals:
            reroll = True
        if _key(entry.result) in wanted:
            reminders.append(f"{entry.result} ({SPECIES_PAGES[character.species]}): {entry.effect}")
    return BattleTraits(reroll, tuple(reminders))


def creation_contacts(
    species: str, patrons: int, rivals: int, tables: Mapping[str, RangeTable]
) -> tuple[int, int, tuple[str, ...]]:
    """Patrons and Rivals a new character brings after the species rules (pp.12, 14).

    ``patrons`` and ``rivals`` are the counts the core creation tables gave. A Krag with at
    least one Patron adds the ``extra_rivals`` of krag-profile (1, however many Patrons); a
    Skulker drops the first Rival rolled (``ignored_rivals``). Returns (patrons, rivals, notes).
    Raises :class:`CharacterError` for a negative count.
    """
    for name, value in (("patrons", patrons), ("rivals", rivals)):
        if value < 0:
            raise CharacterError(f"{name} must be 0 or more; got {value}.", field=name)
    notes: list[str] = []
    for entry in _species_rows(tables, species.lower()):
        if entry.data.get("kind") != "creation":
            continue
        extra = int(entry.data.get("extra_rivals", 0))
        if extra and patrons >= 1:
            rivals += extra
            notes.append(f"Krag with a Patron: +{extra} Rival (p.12).")
        ignored = int(entry.data.get("ignored_rivals", 0))
        if ignored and rivals:
            dropped = min(ignored, rivals)
            rivals -= dropped
            notes.append(f"Skulker: first Rival rolled at creation ignored (p.14); {dropped} dropped.")
    return patrons, rivals, tuple(notes)


def creation_credits(
    options: CampaignOptions,
    species: str,
    dice: Dice,
    count: int,
    faces: Sequence[int] | None = None,
) -> tuple[int, tuple[RollRecord, ...]]:
    """Roll ``count`` "1D6 credits" results from the core creation tables for one character.

    A Skulker rolls 1D3 each (p.14); Money is Tight takes 1 off, never below 1 (p.32); see
    :func:`campaigns.engine.credits.credits_roll`. ``faces`` gives one physical die per result.
    Returns (total credits, records). Raises :class:`CharacterError` for a bad count or number
    of faces and :class:`rules.engine.dice.DiceError` for an impossible face.
    """
    if count < 0:
        raise CharacterError(f"count must be 0 or more; got {count}.", field="count")
    if faces is not None and len(faces) != count:
        raise CharacterError(f"faces needs one die per credits result ({count}); got {len(faces)}.", field="faces")
    records = tuple(
        credits_roll(
            options,
            dice,
            reason=f"Creation credits {i + 1} of {count}",
            species=species.lower(),
            creation=True,
            faces=None if faces is None else faces[i],
        )
        for i in range(count)
    )
    return sum(r.total or 0 for r in records), records


class CrewMember(Protocol):
    """What :func:`fight_candidate` reads: ``CrewView`` has it."""

    @property
    def id(self) -> str: ...
    @property
    def species(self) -> str: ...
    @property
    def status(self) -> str: ...


@dataclass(frozen=True)
class FightPick:
    """Who got into the fight (p.12). ``story_points_bypass`` is False when a Krag was picked:
    Story Points cannot avoid or reroll it."""

    id: str
    krag: bool
    story_points_bypass: bool
    roll: RollRecord | None


def fight_candidate(crew: Sequence[CrewMember], dice: Dice, *, face: int | None = None) -> FightPick:
    """Pick who is in a crew quarrel event (a random crew member starts a fight or a row).

    Among ``active`` crew, a Krag is always picked if present (random among Krag), else anyone
    at random (p.12). ``face`` is the player's pick, 1..N over the candidate list in order.
    Raises :class:`CharacterError` when nobody is active.
    """
    active = [c for c in crew if c.status == "active"]
    krag = [c for c in active if c.species == KRAG]
    pool = krag or active
    if not pool:
        raise CharacterError("No active crew member can be picked; status must be active.", field="crew")
    index, record = pick_one(dice, len(pool), "Krag in the fight" if krag else "Crew member in the fight", face=face)
    return FightPick(id=pool[index].id, krag=bool(krag), story_points_bypass=not krag, roll=record)


def krag_armor_refit_cost(tables: Mapping[str, RangeTable]) -> int:
    """Credits to make armor fit a Krag, or undo it, in Purchase Items (p.12)."""
    for entry in _table(tables, "krag-profile").rows():
        if entry.data.get("kind") == "campaign" and "credits" in entry.data:
            return int(entry.data["credits"])
    raise CharacterError("Table krag-profile has no Krag-armor row with credits.", field="tables")


def armor_fits(character: Character, krag_armor: bool) -> bool:
    """Whether a suit of armor fits: Krag wear only Krag-armor, Skulkers and Engineers wear
    both, everyone else only non-Krag armor (p.12)."""
    if character.species in (SKULKER, ENGINEER):
        return True
    return krag_armor if character.species == KRAG else not krag_armor


# -- hazards (pp.14-15, p.25) ------------------------------------------------------------------


@dataclass(frozen=True)
class HazardCheck:
    """One defensive roll. ``rule`` is ``skulker_resistance`` or ``survival_course``;
    ``applies`` False means no roll (``roll`` None). ``success``: the effect is shrugged off."""

    rule: str
    applies: bool
    success: bool
    roll: RollRecord | None
    note: str


def hazard_rolls(character: Character, kind: str, *, drug: str | None = None) -> tuple[str, ...]:
    """Which defensive rolls apply to ``kind`` of threat (one of :data:`HAZARD_KINDS`).

    - ``skulker_resistance`` (p.15): Skulkers, for ``bio_hazard`` (poison, toxin, virus, gas)
      and for ``drug`` other than Stim-packs.
    - ``survival_course`` (p.25): anyone with the Survival course, for ``trap``, ``hazard``,
      ``environment`` and ``bio_hazard``; on top of any other defense.
    Raises :class:`CharacterError` for an unknown kind.
    """
    if kind not in HAZARD_KINDS:
        raise CharacterError(f"kind must be one of {', '.join(HAZARD_KINDS)}; got {kind!r}.", field="kind")
    rolls: list[str] = []
    if character.species == SKULKER and (kind == "bio_hazard" or (kind == "drug" and not _stim(drug or ""))):
        rolls.append("skulker_resistance")
    if kind != "drug" and _has_training(character, SURVIVAL_COURSE):
        rolls.append("survival_course")
    return tuple(rolls)


def _stim(drug: str) -> bool:
    return _key(drug) == _key("Stim-pack")


def _has_training(character: Character, course: str) -> bool:
    return any(_key(t) == _key(course) for t in character.training)


def resist_hazard(
    character: Character,
    tables: Mapping[str, RangeTable],
    dice: Dice,
    faces: int | None = None,
    drug: str | None = None,
) -> HazardCheck:
    """Skulker biological resistance (p.15): D6, ``target`` (3)+ shrugs off a bio-hazard, or
    with ``drug`` any drug but Stim-packs (the drug then does nothing). Roll again each round or
    exposure. Non-Skulkers and Stim-packs get no roll. For traps and environmental threats see
    :func:`survival_check`, a separate roll. Raises :class:`rules.engine.dice.DiceError`."""
    rule = "skulker_resistance"
    if character.species != SKULKER:
        return HazardCheck(rule, False, False, None, "Only Skulkers have this roll.")
    if drug is not None and _stim(drug):
        return HazardCheck(rule, False, False, None, "Stim-packs work normally on Skulkers.")
    wanted = "drugs" if drug is not None else None
    for entry in _species_rows(tables, SKULKER):
        data = entry.data
        if "roll" in data and ("drugs" in data) == (wanted == "drugs"):
            record = dice.roll_or_enter(str(data["roll"]), f"Skulker resists {drug or 'bio-hazard'}", faces=faces, modifier=0)
            success = (record.total or 0) >= int(data["target"])
            what = f"{drug} has no effect" if drug is not None else "bio-hazard shrugged off"
            return HazardCheck(rule, True, success, record, what if success else "No resistance this time.")
    raise CharacterError("Table skulker-profile has no resistance row.", field="tables")


def survival_check(character: Character, tables: Mapping[str, RangeTable], dice: Dice, faces: int | None = None) -> HazardCheck:
    """Survival course (p.25): D6, ``target`` (4)+ avoids damage from a trap, hazard or
    environmental threat, as an extra roll on top of other defenses (a Skulker resisting a
    bio-hazard may make both). Characters without the course get no roll."""
    rule = "survival_course"
    if not _has_training(character, SURVIVAL_COURSE):
        return HazardCheck(rule, False, False, None, "Only characters with the Survival course have this roll.")
    data = _row(_table(tables, TRAINING_TABLE), SURVIVAL_COURSE, field_name="course").data
    record = dice.roll_or_enter(str(data["roll"]), "Survival course", faces=faces)
    success = (record.total or 0) >= int(data["target"])
    return HazardCheck(rule, True, success, record, "Damage avoided." if success else "No escape this time.")
