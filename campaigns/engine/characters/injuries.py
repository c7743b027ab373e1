"""Injuries and Sick Bay (core rules) and Detailed Post-Battle Injuries (Compendium p.101):
the injury, item hits, lingering injuries and medical facilities.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from campaigns.engine.characters.advancement import character_killed
from campaigns.engine.characters.values import (
    CRITICAL_STRIKE,
    EXTENSIVE_INJURY,
    INJURY_TABLE,
    ITEM_HIT_TABLE,
    LINGERING_INJURY,
    LINGERING_TABLE,
    MEDICAL_TABLE,
    Character,
    CharacterError,
    _alive,
    _table,
    pick_one,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import Entry, RangeTable, TableRoll

# -- injuries and sick bay (core; p.101) ------------------------------------------------------


def injury_apply(character: Character, name: str, sick_bay_turns: int) -> Character:
    """Record an injury: ``name`` (a lasting injury, or ``""`` for none) and campaign turns in
    Sick Bay. Turns do not add up: the longer stay wins (injuries heal side by side). With
    turns above 0 the status becomes ``sick_bay``. Raises :class:`CharacterError`."""
    _alive(character)
    if sick_bay_turns < 0:
        raise CharacterError(f"sick_bay_turns must be 0 or more; got {sick_bay_turns}.", field="sick_bay_turns")
    injuries = (*character.injuries, name.strip()) if name.strip() else character.injuries
    turns = max(character.sick_bay, sick_bay_turns)
    status = "sick_bay" if turns > 0 or _awaiting_treatment(injuries) else character.status
    return replace(character, injuries=injuries, sick_bay=turns, status=status)


def _awaiting_treatment(injuries: Iterable[str]) -> bool:
    return EXTENSIVE_INJURY in injuries


def injury_treat(character: Character, name: str, sick_bay_turns: int | None = None) -> Character:
    """Remove one lasting injury once paid for (p.101). Paying for an Extensive injury starts
    its Sick Bay time: give ``sick_bay_turns`` (the cost rolled). Raises :class:`CharacterError`."""
    if name not in character.injuries:
        listed = ", ".join(character.injuries) or "none"
        raise CharacterError(f"name must be one of {character.name}'s injuries ({listed}); got {name!r}.", field="name")
    index = character.injuries.index(name)
    injuries = character.injuries[:index] + character.injuries[index + 1 :]
    treatments = list(character.treatments)
    paid = next((i for i, (injury, _credits) in enumerate(treatments) if injury == name), None)
    if paid is not None:
        del treatments[paid]
    turns = character.sick_bay
    if name == EXTENSIVE_INJURY:
        if sick_bay_turns is None or sick_bay_turns < 0:
            raise CharacterError(
                "Treating an Extensive injury needs sick_bay_turns (the cost rolled, 0 or more).", field="sick_bay_turns"
            )
        turns = max(turns, sick_bay_turns)
    status = character.status
    if character.status == "sick_bay" and turns == 0 and not _awaiting_treatment(injuries):
        status = "active"
    return replace(character, injuries=injuries, treatments=tuple(treatments), sick_bay=turns, status=status)


def treatment_cost(character: Character, name: str) -> int:
    """Credits of medical treatment ``name`` still waits for on ``character`` (p.101): the cost
    rolled for an Extensive injury, 3 for an Injured arm, leg or torso. Raises
    :class:`CharacterError` (field ``injury``) naming the injuries that wait for treatment when
    ``name`` is not one of them."""
    for injury, credits in character.treatments:
        if injury == name:
            return credits
    waiting = ", ".join(f"{injury} ({credits} credits)" for injury, credits in character.treatments) or "none"
    raise CharacterError(
        f"injury must be one of {character.name}'s injuries awaiting treatment ({waiting}); got {name!r}.", field="injury"
    )


def sick_bay_tick(character: Character) -> Character:
    """One campaign turn passes: one turn less in Sick Bay; back to ``active`` at 0 unless an
    Extensive injury still waits for treatment. Dead or gone characters are unchanged."""
    if not character.alive:
        return character
    turns = max(0, character.sick_bay - 1)
    status = character.status
    if status == "sick_bay" and turns == 0 and not _awaiting_treatment(character.injuries):
        status = "active"
    return replace(character, sick_bay=turns, status=status)


@dataclass(frozen=True)
class DetailedInjury:
    """The outcome of one roll on the Detailed Post-Battle Injuries table (p.101).

    - ``result``: the table row's name; ``roll``: the D100 roll; ``rolls``: every record made.
    - ``pending``: a question still open (``"armor"`` for a Critical strike when the caller did
      not say whether the character wears Armor); nothing else is settled while it is set.
    - ``dead``; ``armor_damaged``.
    - ``sick_bay_turns`` (campaign turns; ``None`` when dead); ``treatment_first``: the stay
      starts only once ``treatment_credits`` are paid (Extensive injury).
    - ``treatment_credits``: credits to remove the lasting penalty or get treated (0 if none).
    - ``lasting``: the injury name to note on the sheet (``""`` if none); ``penalties``: its
      profile effects from the table data.
    - ``xp``: XP gained. ``item`` / ``item_result``: the carried item hit and ``Damaged`` or
      ``Destroyed`` (``None`` when no item or none carried).
    - ``follow_ups``: slugs of tables to roll later (``detailed-injuries-lingering`` before each
      mission, ``detailed-injuries-medical-facilities`` when paying for treatment).
    """

    result: str
    roll: TableRoll
    rolls: tuple[RollRecord, ...]
    pending: str | None = None
    dead: bool = False
    armor_damaged: bool = False
    sick_bay_turns: int | None = 0
    treatment_first: bool = False
    treatment_credits: int = 0
    lasting: str = ""
    penalties: Mapping[str, int] = field(default_factory=dict)
    xp: int = 0
    item: str | None = None
    item_result: str | None = None
    follow_ups: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


_PENALTY_KEYS = ("combat_skill", "speed", "stun_markers_to_knock_out")


def _notation(value: Any) -> str:
    return str(value).replace(" ", "")


def detailed_injury(
    tables: Mapping[str, RangeTable],
    dice: Dice,
    character: Character,
    value: int | None = None,
    *,
    armor: bool | None = None,
    sick_bay_faces: Sequence[int] | None = None,
    cost_faces: Sequence[int] | None = None,
    item_face: int | None = None,
    item_value: int | None = None,
) -> DetailedInjury:
    """Roll the Compendium's Detailed Post-Battle Injuries table (p.101) for an organic
    character and work out what it means from the row's data.

    ``value`` is the player's D100. ``armor`` answers a Critical strike (wearing Armor?).
    ``sick_bay_faces`` / ``cost_faces`` are physical dice for the Sick Bay and treatment-cost
    rolls; ``item_face`` picks the carried item (1..N over ``equipment``), ``item_value`` is the
    D6 on the item-hit table. Raises :class:`CharacterError` for Bots and Soulless (they keep
    the core Bot Injury table) and dice or table errors for impossible faces.
    """
    if character.kind != "biological":
        raise CharacterError(
            f"Detailed injuries are for organic characters; kind must be biological, got {character.kind!r} "
            "(use the core Bot Injury table).",
            field="kind",
        )
    table_roll = _table(tables, INJURY_TABLE).roll_or_enter(dice, value=value, reason=f"Injury: {character.name}")
    entry = table_roll.entry
    data = entry.data
    rolls: list[RollRecord] = [table_roll.record]
    notes: list[str] = []
    follow_ups: list[str] = []

    def roll(notation: Any, reason: str, faces: Sequence[int] | None) -> int:
        record = dice.roll_or_enter(_notation(notation), reason, faces=faces)
        rolls.append(record)
        return record.total or 0

    def base(**kwargs: Any) -> DetailedInjury:
        return DetailedInjury(
            result=entry.result, roll=table_roll, rolls=tuple(rolls), notes=tuple(notes), follow_ups=tuple(follow_ups), **kwargs
        )

    if entry.result == CRITICAL_STRIKE:
        if armor is None:
            notes.append("Is the character wearing Armor? Answer with armor=True or False and the same roll.")
            return base(pending="armor", sick_bay_turns=None)
        if not armor:
            notes.append("No Armor: the character is slain.")
            return base(dead=True, sick_bay_turns=None)
        notes.append("Armor took the blow and is damaged.")
    if data.get("dead"):
        lost = _item_hit(dice, character, rolls, item_face)
        return base(dead=True, sick_bay_turns=None, item=lost, item_result=None if lost is None else "Damaged")

    treatment = 0
    medical = data.get("medical_credits", 0)
    if isinstance(medical, str):
        treatment = roll(medical, "Treatment cost (credits)", cost_faces)
    elif medical:
        treatment = int(medical)
    if data.get("sick_bay_equals_cost"):
        turns: int | None = treatment
    elif data.get("sick_bay_turns") is None:
        turns = None
    else:
        turns = roll(data["sick_bay_turns"], "Sick Bay turns", sick_bay_faces)
    if treatment:
        follow_ups.append(MEDICAL_TABLE)

    item: str | None = None
    item_result: str | None = None
    if data.get("item_roll"):
        item = _item_hit(dice, character, rolls, item_face)
        if item is not None:
            hit = _table(tables, ITEM_HIT_TABLE).roll_or_enter(dice, value=item_value, reason=f"Item hit: {item}")
            rolls.append(hit.record)
            item_result = hit.entry.result
        else:
            notes.append("No carried item to hit.")

    penalties = {k: int(data[k]) for k in _PENALTY_KEYS if k in data}
    lasting = ""
    if penalties or data.get("sick_bay_equals_cost"):
        lasting = entry.result
    if data.get("mission_roll"):
        lasting = entry.result
        follow_ups.append(LINGERING_TABLE)
    return base(
        armor_damaged=entry.result == CRITICAL_STRIKE,
        sick_bay_turns=turns,
        treatment_first=bool(data.get("sick_bay_equals_cost")),
        treatment_credits=treatment,
        lasting=lasting,
        penalties=penalties,
        xp=int(data.get("xp", 0)),
        item=item,
        item_result=item_result,
    )


def _item_hit(dice: Dice, character: Character, rolls: list[RollRecord], face: int | None) -> str | None:
    """A random carried item (its roll goes into ``rolls``), or None when nothing is carried."""
    if not character.equipment:
        return None
    index, record = pick_one(dice, len(character.equipment), "Random carried item", face=face)
    if record is not None:
        rolls.append(record)
    return character.equipment[index]


DAMAGED_SUFFIX = " (damaged)"


def detailed_injury_apply(character: Character, outcome: DetailedInjury) -> Character:
    """Write a :class:`DetailedInjury` onto the character: death, Sick Bay (an Extensive
    injury waits for treatment, see :func:`injury_treat`), the lasting injury, XP and the item
    hit (destroyed items leave ``equipment``; damaged ones get `` (damaged)`` added).
    Raises :class:`CharacterError` while ``outcome.pending`` is set."""
    if outcome.pending:
        raise CharacterError(f"The injury roll still needs an answer: {outcome.pending}.", field=outcome.pending)
    updated = character
    if outcome.item is not None and outcome.item in updated.equipment:
        index = updated.equipment.index(outcome.item)
        kit = list(updated.equipment)
        if outcome.item_result == "Destroyed":
            del kit[index]
        elif outcome.item_result == "Damaged" and not outcome.item.endswith(DAMAGED_SUFFIX):
            kit[index] = outcome.item + DAMAGED_SUFFIX
        updated = replace(updated, equipment=tuple(kit))
    if outcome.dead:
        return character_killed(updated)
    updated = replace(updated, xp=updated.xp + outcome.xp)
    if outcome.lasting and outcome.treatment_credits:
        updated = replace(updated, treatments=(*updated.treatments, (outcome.lasting, outcome.treatment_credits)))
    turns = 0 if outcome.treatment_first else outcome.sick_bay_turns or 0
    return injury_apply(updated, outcome.lasting, turns)


def injury_penalties(character: Character, tables: Mapping[str, RangeTable]) -> dict[str, int]:
    """Summed profile effects of the character's untreated detailed injuries (p.101), e.g.
    ``{"speed": -1}`` for an Injured leg. ``stun_markers_to_knock_out`` is the lowest given.
    Paying for the treatment (:func:`injury_treat`) removes the injury and its penalty."""
    rows = {e.result: e.data for e in _table(tables, INJURY_TABLE).rows()}
    total: dict[str, int] = {}
    for name in character.injuries:
        for key in _PENALTY_KEYS:
            if key in rows.get(name, {}):
                amount = int(rows[name][key])
                if key == "stun_markers_to_knock_out":
                    total[key] = min(total.get(key, amount), amount)
                else:
                    total[key] = total.get(key, 0) + amount
    return total


def lingering_check(
    character: Character, tables: Mapping[str, RangeTable], dice: Dice, values: Sequence[int] | None = None
) -> tuple[Character, tuple[TableRoll, ...], bool]:
    """Before a mission, roll D6 for each Lingering injury (p.101): (character, rolls, sits out).
    A 1 keeps the character out of this battle; a 6 cures that injury. ``values`` gives one
    physical D6 per Lingering injury. Raises :class:`CharacterError` for the wrong count."""
    count = character.injuries.count(LINGERING_INJURY)
    if values is not None and len(values) != count:
        raise CharacterError(f"values needs one D6 per Lingering injury ({count}); got {len(values)}.", field="values")
    table = _table(tables, LINGERING_TABLE)
    results: list[TableRoll] = []
    sits_out = False
    injuries = list(character.injuries)
    for i in range(count):
        result = table.roll_or_enter(dice, value=None if values is None else values[i], reason=f"Lingering injury {i + 1}")
        results.append(result)
        if result.entry.low == table.span[0]:
            sits_out = True
        if result.entry.high == table.span[1]:
            injuries.remove(LINGERING_INJURY)
    return replace(character, injuries=tuple(injuries)), tuple(results), sits_out


def medical_facilities(tables: Mapping[str, RangeTable], dice: Dice, value: int | None = None) -> TableRoll:
    """Roll D6 for medical facilities on the current world when paying for treatment (p.101).
    The entry's data says whether facilities exist, or the Savvy test and extra credits needed."""
    return _table(tables, MEDICAL_TABLE).roll_or_enter(dice, value=value, reason="Medical facilities")


#: The lowest Combat Skill an Injured arm can bring a character to (p.101).
INJURED_ARM_FLOOR = -1


def battle_stats(character: Character, tables: Mapping[str, RangeTable]) -> dict[str, int]:
    """A character's battle profile after the penalties of their untreated detailed injuries
    (p.101): ``{"reactions", "speed", "combat_skill", "toughness", "savvy"}`` (Speed in
    inches).

    - Injured leg: Speed 1" lower (never below 0").
    - Injured arm: Combat Skill 1 lower, never below -1 (nor above what it was). The book
      lowers it for non-Pistol shots and Brawling; a battle figure carries one Combat Skill, so
      our ruling applies it to every attack (a Pistol shot may be read 1 higher by hand).
    - Injured torso (knocked out at 2 Stun markers) changes no stat: see
      :func:`injury_penalties`.

    Characters without penalties get their profile unchanged. Raises :class:`CharacterError`
    when the detailed injuries table is missing.
    """
    penalties = injury_penalties(character, tables)
    profile = character.profile
    skill = profile.combat_skill
    if penalties.get("combat_skill"):
        skill = min(skill, max(INJURED_ARM_FLOOR, skill + penalties["combat_skill"]))
    return {
        "reactions": profile.reactions,
        "speed": max(0, profile.speed + penalties.get("speed", 0)),
        "combat_skill": skill,
        "toughness": profile.toughness,
        "savvy": profile.savvy,
    }


@dataclass(frozen=True)
class OffWorlderSearch:
    """The Savvy test to find an off-worlder who treats the crew (p.101): ``found`` on a total
    of ``target`` or more; ``extra_credits`` the fee added to the treatment when found."""

    found: bool
    total: int
    target: int
    extra_credits: int
    record: RollRecord


def off_worlder_search(facilities: Entry, savvy: int, searcher: str, dice: Dice, *, face: int | None = None) -> OffWorlderSearch:
    """On a world without suitable medical facilities (``facilities``: the row
    :func:`medical_facilities` gave), a crew member spends a campaign action on 1D6+Savvy (p.101):
    the row's ``target`` (6) or more finds an off-worlder, for ``credits`` (1) more. ``face`` is
    the player's D6. Raises :class:`CharacterError` when the world has facilities (nothing to
    search for)."""
    data = facilities.data
    if data.get("facilities"):
        raise CharacterError("This world has medical facilities: no off-worlder to look for.", field="searcher")
    reason = f"Find an off-worlder to treat the crew: {searcher}, 1D6+Savvy ({savvy:+d})"
    record = dice.roll_or_enter("1D6", reason, faces=face, modifier=savvy)
    total = record.total or 0
    target = int(data.get("target", 6))
    return OffWorlderSearch(
        found=total >= target, total=total, target=target, extra_credits=int(data.get("credits", 0)), record=record
    )
