"""Advancement (core upgrade table, Compendium p.32), Advanced Training (p.25) and Bot upgrades
(p.26).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from campaigns.engine.characters.species import _has_training
from campaigns.engine.characters.values import (
    BOT_UPGRADES_TABLE,
    BUILT_IN_WEAPON,
    FIXER,
    INSTRUCTOR,
    NAME_LIMIT,
    SLOWER_PROGRESSION_TABLE,
    STATS,
    TRAINING_TABLE,
    Character,
    CharacterError,
    _alive,
    _check_stat,
    _key,
    _row,
    _table,
)
from campaigns.engine.options import CampaignOptions
from rules.engine.tables import RangeTable

# -- advancement (core upgrade table / p.32) --------------------------------------------------


def upgrade_costs(options: CampaignOptions, tables: Mapping[str, RangeTable], core_costs: RangeTable | None) -> RangeTable:
    """The upgrade table in force: Slower Progression's (p.32) when that toggle is on, else
    the player's core upgrade table (slot ``advancement_costs``). Raises
    :class:`CharacterError` (field ``advancement_costs``) when neither is there."""
    if options.has("slower_progression"):
        slug = SLOWER_PROGRESSION_TABLE
        if "difficulty-toggles" in tables:
            for entry in tables["difficulty-toggles"].rows():
                if entry.data.get("toggle") == "slower_progression":
                    slug = str(entry.data.get("upgrade_table", slug))
        return _table(tables, slug)
    if core_costs is None:
        raise CharacterError(
            "No upgrade costs: add your core rulebook upgrade table (one row per stat with stat, xp and maximum) "
            "to the 'Character upgrade costs' slot, or switch on Slower Progression.",
            field="advancement_costs",
        )
    return core_costs


def upgrade_cost(costs: RangeTable, stat: str) -> tuple[int, int]:
    """(XP cost, maximum) of raising ``stat`` by one in ``costs``. Raises :class:`CharacterError`."""
    _check_stat(stat)
    listed = []
    for entry in costs.rows():
        listed.append(str(entry.data.get("stat")))
        if entry.data.get("stat") == stat:
            return int(entry.data["xp"]), int(entry.data["maximum"])
    raise CharacterError(f"stat must be one of {', '.join(listed)} in {costs.title}; got {stat!r}.", field="stat")


def advance(character: Character, stat: str, costs: RangeTable) -> Character:
    """Spend XP to raise ``stat`` by 1 (Speed by 1") using ``costs`` (see :func:`upgrade_costs`).

    Raises :class:`CharacterError` when XP is short, the stat is at its maximum, or a Psionic
    tries to raise Combat Skill (p.18).
    """
    _alive(character)
    xp, maximum = upgrade_cost(costs, stat)
    if stat == "combat_skill" and character.psionic:
        raise CharacterError(
            "A Psionic cannot raise Combat Skill with XP (p.18); stat must be one of "
            + ", ".join(s for s in STATS if s != "combat_skill")
            + ".",
            field="stat",
        )
    current = character.profile.get(stat)
    if current >= maximum:
        raise CharacterError(f"{stat} is already at its maximum of {maximum}.", field="stat")
    if character.xp < xp:
        raise CharacterError(f"Raising {stat} costs {xp} XP; {character.name} has {character.xp}.", field="xp")
    return replace(character, xp=character.xp - xp, profile=character.profile.with_stat(stat, current + 1))


def mark_profile_rolled(character: Character) -> Character:
    """Record that the creation tables have been applied to the profile (see p.17)."""
    return replace(character, profile_rolled=True)


# -- training (p.25) --------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingCost:
    """Price of an Advanced Training course in credits: ``course_credits`` plus the
    application ``fee``; ``availability_roll`` says whether the core availability roll is due."""

    course: str
    course_credits: int
    fee: int
    total: int
    availability_roll: bool


def training_cost(
    course: str,
    tables: Mapping[str, RangeTable],
    crew_training: Iterable[str],
    *,
    credits: int | None = None,
) -> TrainingCost:
    """What a course costs (p.25). Compendium courses read their credits from
    ``compendium-advanced-training``; a core course needs ``credits`` (the price the player
    enters). The core application fee (the Instructor row's ``fee_waived_credits``, 1) and the
    availability roll are skipped when anyone in the crew has Instructor (``crew_training``:
    every course anyone in the crew holds). Raises :class:`CharacterError` for an unknown
    Compendium course without ``credits`` or a negative price.
    """
    table = _table(tables, TRAINING_TABLE)
    instructor = _row(table, INSTRUCTOR, field_name="course").data
    compendium = {e.result.lower(): e for e in table.rows()}
    entry = compendium.get(course.strip().lower())
    if entry is not None:
        price = int(entry.data["credits"])
        name = entry.result
    elif credits is not None:
        price, name = credits, course.strip()
        if not name:
            raise CharacterError("course needs a name.", field="course")
    else:
        names = ", ".join(e.result for e in table.rows())
        raise CharacterError(
            f"course must be one of {names}, or a core course with its credits entered; got {course!r}.", field="course"
        )
    if price < 0:
        raise CharacterError(f"credits must be 0 or more; got {price}.", field="credits")
    has_instructor = any(_key(t) == _key(INSTRUCTOR) for t in crew_training)
    fee = 0 if has_instructor else int(instructor["fee_waived_credits"])
    skip_roll = has_instructor and bool(instructor.get("skip_availability_roll"))
    return TrainingCost(course=name, course_credits=price, fee=fee, total=price + fee, availability_roll=not skip_roll)


def training_add(character: Character, course: str) -> Character:
    """Add a course the character has bought (p.25). Raises :class:`CharacterError` if it is
    already held, the name is empty or the character is dead or gone."""
    _alive(character)
    name = course.strip()
    if not name or len(name) > NAME_LIMIT:
        raise CharacterError(f"course must be 1 to {NAME_LIMIT} characters; got {course!r}.", field="course")
    if _has_training(character, name):
        raise CharacterError(f"{character.name} already has {name}.", field="course")
    return replace(character, training=(*character.training, name))


def crew_action_bonus(character: Character, action: str, tables: Mapping[str, RangeTable]) -> int:
    """Roll bonus from the Fixer course (p.25): +``roll_bonus`` (1) to the crew actions it
    lists (Find a Patron, Recruit, Track); 0 otherwise."""
    if not _has_training(character, FIXER):
        return 0
    data = _row(_table(tables, TRAINING_TABLE), FIXER, field_name="course").data
    actions = {_key(a) for a in data.get("crew_actions", ())}
    return int(data.get("roll_bonus", 0)) if _key(action) in actions else 0


# -- Bot upgrades (p.26) ----------------------------------------------------------------------


def bot_upgrade_price(
    upgrade: str,
    tables: Mapping[str, RangeTable],
    *,
    shots: int | None = None,
    damage: int | None = None,
    cost_reduction: int = 0,
) -> int:
    """Credits for one Bot upgrade (p.26). The built-in weapon costs ``credits_per_shot`` (3)
    per Shot plus ``credits_per_damage`` (1) per Damage point of the weapon; ``cost_reduction``
    is what the Bot technician training takes off (never below 0). Raises :class:`CharacterError`."""
    entry = _row(_table(tables, BOT_UPGRADES_TABLE), upgrade, field_name="upgrade")
    data = entry.data
    if data.get("credits") is None:
        if shots is None or damage is None:
            raise CharacterError(
                f"{entry.result} needs the weapon's shots and damage.", field="shots" if shots is None else "damage"
            )
        if shots < 0 or damage < 0:
            raise CharacterError(f"shots and damage must be 0 or more; got {shots} and {damage}.", field="shots")
        price = shots * int(data["credits_per_shot"]) + damage * int(data["credits_per_damage"])
    else:
        price = int(data["credits"])
    if cost_reduction < 0:
        raise CharacterError(f"cost_reduction must be 0 or more; got {cost_reduction}.", field="cost_reduction")
    return max(0, price - cost_reduction)


def bot_upgrade(
    character: Character,
    upgrade: str,
    tables: Mapping[str, RangeTable],
    turn: int,
    shots: int | None = None,
    damage: int | None = None,
    cost_reduction: int = 0,
) -> tuple[Character, int]:
    """Install a Bot upgrade in Purchase Items (p.26): (new character, credits to pay).

    Bots only (not Soulless); one install per campaign ``turn``; one of each upgrade. Raises
    :class:`CharacterError` naming the field when any of these fails.
    """
    _alive(character)
    if character.kind != "bot":
        why = "Soulless cannot use Bot upgrades" if character.kind == "soulless" else "only Bots take Bot upgrades"
        raise CharacterError(f"{why} (p.26); kind must be bot, got {character.kind!r}.", field="kind")
    entry = _row(_table(tables, BOT_UPGRADES_TABLE), upgrade, field_name="upgrade")
    if entry.result in character.bot_upgrades:
        raise CharacterError(f"{character.name} already has {entry.result}; one of each upgrade.", field="upgrade")
    if character.bot_upgrade_turn is not None and character.bot_upgrade_turn == turn:
        raise CharacterError(
            f"{character.name} already had an upgrade installed in turn {turn}; one per campaign turn.", field="turn"
        )
    credits = bot_upgrade_price(entry.result, tables, shots=shots, damage=damage, cost_reduction=cost_reduction)
    return replace(character, bot_upgrades=(*character.bot_upgrades, entry.result), bot_upgrade_turn=turn), credits


def revert_built_in_weapon(character: Character, tables: Mapping[str, RangeTable]) -> tuple[Character, int]:
    """Take a built-in weapon back out for normal use (p.26): (new character, ``revert_credits``)."""
    entry = _row(_table(tables, BOT_UPGRADES_TABLE), BUILT_IN_WEAPON, field_name="upgrade")
    if entry.result not in character.bot_upgrades:
        raise CharacterError(f"{character.name} has no {entry.result}.", field="upgrade")
    remaining = tuple(u for u in character.bot_upgrades if u != entry.result)
    return replace(character, bot_upgrades=remaining), int(entry.data["revert_credits"])


def character_killed(character: Character) -> Character:
    """Mark the character dead. A Bot's upgrades go with it and cannot move to another Bot (p.26)."""
    return replace(character, status="dead", sick_bay=0, bot_upgrades=(), bot_upgrade_turn=None)
