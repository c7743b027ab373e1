"""Whole forces: an elite force (Compendium pp.48-65) and a standard force from a core-rulebook
profile.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from battles.engine.fp_enemies.base import (
    BOUNTY_TABLE,
    CORE_CATEGORY,
    GEAR_TABLE,
    PRESENCE_ELITE_ROLL,
    PRESENCE_STANDARD,
    REPLACEMENT_TABLE,
    SQUAD_RANKS,
    EnemyError,
    EnemyForce,
    EnemyProfile,
)
from battles.engine.fp_enemies.building import (
    _apply_gear,
    _apply_replacements,
    _apply_toggles,
    _armament,
    _base_numbers,
    _better_leadership_boost,
    _composition,
    _difficulty,
    _elite_figure,
    _leadership,
    _plain_figure,
    _presence_row,
    _rank_rows,
    _reward_texts,
    _seize,
    _toggle,
    _type_rows,
    _unique_figure,
)
from battles.engine.fp_enemies.profiles import _canon, _category_row, _check_count, _Fig, _Roller, _table, profile_from_entry
from campaigns.engine.options import CampaignOptions
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable

# -- elite forces ---------------------------------------------------------------------------


def roll_elite_enemy(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    *,
    crew_size: int,
    options: CampaignOptions,
    campaign_turn: int = 1,
    category: str | None = None,
    faces: Sequence[int] | None = None,
    core: Mapping[str, RangeTable] | None = None,
    mission: str = "",
    profile: EnemyProfile | None = None,
    base_numbers: int | None = None,
    weapons: Mapping[str, str] | None = None,
    quest: bool = False,
    rival: bool = False,
    rival_hates_you: bool = False,
    unique_always: bool = False,
) -> EnemyForce:
    """Build an elite-level enemy force (pp.48-65) for ``crew_size`` crew fielded.

    - ``category``: "Criminal Elements", "Hired Muscle", "Interested Parties" or "Roving
      Threats"; ``None`` rolls ``core["enemy-category"]`` (column ``mission`` when the table has
      columns), else :class:`EnemyError` (field ``category``) says that table is needed.
    - ``profile``: a profile from :func:`custom_enemy` or :func:`core_profile` instead of the
      D100 type roll (elite rules, the profile's own numbers; type kit applies when its name is an
      elite type's). Its category is used when ``category`` is ``None``.
    - Numbers: Strength-adjusted Enemies (p.32), ``base_numbers`` or ``core["enemy-numbers"]``
      (see the module docstring), plus the type's Numbers, +1 during a ``quest`` against
      Interested Parties, +1 as a ``rival`` for types with Grudge, +1 when a Criminal Elements
      Rival ``rival_hates_you`` (Gang feuds); at least 4 figures (p.49).
    - ``weapons``: ``{"basic": name, "specialist": name}`` from the core weapon roll, else
      ``core["enemy-weapons"]``, else placeholders.
    - Options: the difficulty toggles and progressive difficulty in effect on ``campaign_turn``
      (:func:`campaigns.engine.difficulty.turn_difficulty`); Insanity from ``difficulty_mode``.
      Elite or not is the caller's choice (see ``difficulty.elite_check``).
    - ``unique_always``: a Unique Individual comes with the force without the 2D6 roll (a co-op
      battle's Wave 3, p.40), where its category may have one.

    Rolls, in order: category (core), type D100, numbers (core), weapons (core), Criminal
    Elements bounty D6, Unique Individual 2D6, its D100, Better Leadership's random figure.
    Raises :class:`EnemyError` for a bad input (field named) or a missing table.
    """
    crew_size = _check_count("crew_size", crew_size, 1)
    diff = _difficulty(options, campaign_turn, tables)
    roller = _Roller(dice, faces)
    lines: list[str] = []

    if category is None and profile is not None:
        category = profile.category
    if category is None:
        if not core or CORE_CATEGORY not in core:
            raise EnemyError(
                "category is needed: name one of the elite categories, or add the core rulebook's 'enemy-category' table.",
                field="category",
            )
        table = core[CORE_CATEGORY]
        if table.columns and mission not in table.columns:
            raise EnemyError(f"mission must be one of {', '.join(table.columns)}; got {mission!r}.", field="mission")
        rolled = roller.table(table, "Enemy category", column=mission if table.columns else "")
        category = str(rolled.entry.data.get("category") or rolled.entry.result)
    cat_entry = _category_row(tables, category)
    category = cat_entry.result
    cat = cat_entry.data

    if profile is None:
        type_table = _table(tables, str(cat["table_slug"]))
        rolled = roller.table(type_table, f"Elite {category} type")
        profile = profile_from_entry(rolled.entry, category, source=type_table.title)
        lines.append(f"{category}: {profile.name} (D100 {rolled.value}).")
    else:
        profile = replace(profile, category=category)
        lines.append(f"{category}: {profile.name} (profile {profile.source or 'given'}).")

    base = _base_numbers(roller, diff, crew_size, base_numbers, core, lines)
    size = base + profile.numbers
    if quest and cat.get("quest_numbers_modifier"):
        size += int(cat["quest_numbers_modifier"])
        lines.append(f"On the trail (Quest mission): +{cat['quest_numbers_modifier']} numbers.")
    if rival and profile.data.get("rival_numbers_modifier"):
        size += int(profile.data["rival_numbers_modifier"])
        lines.append(f"Grudge (Rival): +{profile.data['rival_numbers_modifier']} numbers.")
    if rival_hates_you and cat.get("hated_numbers_modifier"):
        size += int(cat["hated_numbers_modifier"])
        lines.append(f"Gang feud (they hate you): +{cat['hated_numbers_modifier']} numbers.")
    size, counts = _composition(tables, size)
    lines.append(
        f"Squad of {size}: {counts['basic']} basic, {counts['specialist']} specialist, "
        f"{counts['lieutenant']} Lieutenant, {counts['captain']} Captain (p.49)."
    )
    extras = {"basic": diff.extra_basic, "specialist": diff.extra_specialists, "lieutenant": diff.extra_lieutenants}
    if any(extras.values()):
        for rank, extra in extras.items():
            counts[rank] += extra
        lines.append(
            f"Progressive Strength {diff.strength_level}: +{extras['basic']} basic, +{extras['specialist']} specialist, "
            f"+{extras['lieutenant']} Lieutenant (p.30)."
        )

    basic, specialist = _armament(roller, profile, weapons, core, lines)
    ranks = _rank_rows(tables)
    figs: list[_Fig] = []
    for rank in SQUAD_RANKS:
        for number in range(1, counts[rank] + 1):
            figs.append(_elite_figure(profile, rank, number, ranks, basic, specialist))
    if cat.get("leader_armor_save") is not None:
        for fig in figs:
            if fig.rank in ("lieutenant", "captain"):
                fig.save = int(cat["leader_armor_save"])
        lines.append(f"Well supplied: Lieutenants and Captains save on {cat['leader_armor_save']}+.")
    _apply_replacements(figs, _type_rows(tables, REPLACEMENT_TABLE, profile), lines)
    _apply_gear(figs, _type_rows(tables, GEAR_TABLE, profile), lines)
    _apply_toggles(figs, diff, tables, lines, elite=True)

    bounty: int | None = None
    if cat.get("bounty_pay_dice"):
        rolled = roller.table(_table(tables, BOUNTY_TABLE), "Bounty pay")
        bounty = int(rolled.entry.data.get("credits") or 0)
        lines.append(f"Bounty pay: {bounty} credit(s) if you Hold the Field (p.50).")

    # Unique Individual (p.49, pp.50-60 adjustments, p.33 Better Leadership).
    unique: _Fig | None = None
    unique_panic = 0
    insanity = "insanity" in options.difficulty_mode.lower()
    allowed = bool(cat.get("unique_individuals", True)) or insanity
    better = diff.has("better_leadership")
    target = int(_presence_row(tables, PRESENCE_ELITE_ROLL)["target"])
    if better:
        target = min(target, int(_toggle(tables, "better_leadership")["unique_individual_target"]))
    modifier = int(cat.get("unique_individual_roll_modifier") or 0)
    if allowed and (profile.data.get("unique_individual_automatic") or crew_size > len(figs) or unique_always):
        why = "always with them" if profile.data.get("unique_individual_automatic") or unique_always else "you outnumber them"
        lines.append(f"A Unique Individual is present: {why}.")
        unique, unique_panic = _unique_figure(roller, tables, profile, lines)
    elif allowed or better:
        roll = roller.roll("2D6", f"Unique Individual on {target}+", modifier=modifier)
        success = (roll.total or 0) >= target
        if allowed:
            lines.append(f"Unique Individual roll {roll.total} against {target}+: {'present' if success else 'none'}.")
            if success:
                unique, unique_panic = _unique_figure(roller, tables, profile, lines)
        else:
            lines.append(f"{category} have no Unique Individual; Better Leadership roll {roll.total} against {target}+.")
            if success:
                _better_leadership_boost(roller, tables, figs, lines)
    else:
        lines.append(f"{category} have no Unique Individual (except on Insanity).")
    if unique is not None:
        figs.append(unique)

    panic, leadership = _leadership(tables, profile.panic, figs, lines, unique, unique_panic)
    seize = _seize(cat, profile, lines)
    canon = _canon(tables)
    frozen = tuple(f.freeze(canon) for f in figs)
    rules = tuple(str(r) for r in cat.get("special_rules", ())) + profile.special_rules
    return EnemyForce(
        category=category,
        type=profile.name,
        figures=frozen,
        panic=panic,
        leadership=tuple(leadership),
        unique_individual=frozen[-1] if unique is not None else None,
        rewards=tuple(_reward_texts(tables, profile, bounty)),
        rolls=roller.finish(),
        lines=tuple(lines),
        elite=True,
        numbers=size,
        seize_initiative_modifier=seize,
        bounty_credits=bounty,
        special_rules=rules,
        profile=profile,
        basic_weapon=basic,
        specialist_weapon=specialist,
    )


# -- standard (core) forces ---------------------------------------------------------------------


def core_enemy(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    profile: EnemyProfile,
    *,
    crew_size: int,
    options: CampaignOptions,
    specialists: int,
    lieutenants: int,
    campaign_turn: int = 1,
    base_numbers: int | None = None,
    weapons: Mapping[str, str] | None = None,
    core: Mapping[str, RangeTable] | None = None,
    faces: Sequence[int] | None = None,
) -> EnemyForce:
    """A standard (not elite) force from a core-rulebook ``profile`` (:func:`custom_enemy` or
    :func:`core_profile`).

    The core rulebook sets how many figures are specialists and Lieutenants and what those ranks
    carry; we do not have it, so ``specialists`` and ``lieutenants`` are inputs and the figures
    keep the printed profile. Numbers as in :func:`roll_elite_enemy` (no minimum of 4); the
    Compendium rules that still apply: Strength-adjusted Enemies (p.32), Veteran, Actually
    Specialized, Armored Leaders (p.33), Better Leadership's Unique Individual target (7+ not 9+,
    reported in ``lines``; the Unique Individual itself comes from the core tables) and
    progressive Strength (p.30).

    Raises :class:`EnemyError` for bad counts (more ranked figures than the force has) or
    missing inputs, naming the field.
    """
    crew_size = _check_count("crew_size", crew_size, 1)
    specialists = _check_count("specialists", specialists)
    lieutenants = _check_count("lieutenants", lieutenants)
    if not isinstance(profile, EnemyProfile):
        raise EnemyError("profile must be an EnemyProfile (see custom_enemy).", field="profile")
    diff = _difficulty(options, campaign_turn, tables)
    roller = _Roller(dice, faces)
    lines = [f"{profile.category}: {profile.name} (standard enemy, profile {profile.source or 'given'})."]
    size = _base_numbers(roller, diff, crew_size, base_numbers, core, lines) + profile.numbers
    if specialists + lieutenants > size:
        raise EnemyError(
            f"specialists plus lieutenants ({specialists + lieutenants}) cannot exceed the {size} figures of the force.",
            field="specialists",
        )
    counts = {"basic": size - specialists - lieutenants, "specialist": specialists, "lieutenant": lieutenants}
    extras = {"basic": diff.extra_basic, "specialist": diff.extra_specialists, "lieutenant": diff.extra_lieutenants}
    if any(extras.values()):
        for rank, extra in extras.items():
            counts[rank] += extra
        lines.append(f"Progressive Strength {diff.strength_level}: extra figures added (p.30).")
    basic, specialist = _armament(roller, profile, weapons, core, lines)
    figs = [
        _plain_figure(profile, rank, n, basic, specialist)
        for rank in ("basic", "specialist", "lieutenant")
        for n in range(1, counts[rank] + 1)
    ]
    _apply_toggles(figs, diff, tables, lines, elite=False)
    data = _presence_row(tables, PRESENCE_STANDARD)
    target = int(data["target"])
    if diff.has("better_leadership"):
        target = min(target, int(_toggle(tables, "better_leadership")["unique_individual_target"]))
    lines.append(f"Unique Individual (core rules): roll {data['dice']}, present on {target}+.")
    panic = profile.panic
    if panic == "0":
        lines.append("Panic 0: the enemy is Fearless.")
    canon = _canon(tables)
    return EnemyForce(
        category=profile.category,
        type=profile.name,
        figures=tuple(f.freeze(canon) for f in figs),
        panic=panic,
        rolls=roller.finish(),
        lines=tuple(lines),
        elite=False,
        numbers=size,
        special_rules=profile.special_rules,
        profile=profile,
        basic_weapon=basic,
        specialist_weapon=specialist,
    )
