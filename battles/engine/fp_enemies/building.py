"""The building blocks of an enemy force: the numbers against the crew, armament, elite squad
composition and ranks (p.49), weapon swaps and extra kit (pp.51-59), difficulty toggles
(pp.32-33), leadership, the Unique Individual (pp.49, 62-65) and the reward texts (p.50).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_enemies.base import (
    _ALL,
    _WEAPON_CODE,
    COMPOSITION_TABLE,
    CORE_NUMBERS,
    CORE_WEAPONS,
    LEADERSHIP_TABLE,
    PISTOL_WEAPONS,
    PRESENCE_TABLE,
    RANK_LABELS,
    RANK_TABLE,
    RANKS,
    REWARDS_TABLE,
    SQUAD_RANKS,
    TOGGLE_TABLE,
    UNIQUE_TABLE,
    EnemyError,
    EnemyProfile,
    weapon_code,
)
from battles.engine.fp_enemies.profiles import _check_count, _Fig, _ints, _key, _panic_text, _panic_top, _Roller, _table
from campaigns.engine.difficulty import TurnDifficulty, turn_difficulty
from campaigns.engine.options import CampaignOptions
from rules.engine.tables import RangeTable

# -- building blocks --------------------------------------------------------------------------


def _difficulty(options: CampaignOptions, campaign_turn: int, tables: Mapping[str, RangeTable]) -> TurnDifficulty:
    if not isinstance(options, CampaignOptions):
        raise EnemyError("options must be CampaignOptions.", field="options")
    try:
        return turn_difficulty(options, campaign_turn, tables)
    except ValueError as exc:
        raise EnemyError(str(exc), field=getattr(exc, "field", "options")) from exc


def _toggle(tables: Mapping[str, RangeTable], toggle: str) -> Mapping[str, Any]:
    for entry in _table(tables, TOGGLE_TABLE).entries:
        if entry.data.get("toggle") == toggle:
            return entry.data
    raise EnemyError(f"Table {TOGGLE_TABLE!r} has no row for {toggle!r}.", field="tables")


def _base_numbers(
    roller: _Roller,
    diff: TurnDifficulty,
    crew_size: int,
    base_numbers: int | None,
    core: Mapping[str, RangeTable] | None,
    lines: list[str],
) -> int:
    if diff.has("strength_adjusted_enemies"):
        lines.append(f"Strength-adjusted Enemies: numbers start from the {crew_size} crew fielded (p.32).")
        return crew_size
    if base_numbers is not None:
        value = _check_count("base_numbers", base_numbers)
        lines.append(f"Numbers roll (core rules, entered): {value}.")
        return value
    if core and CORE_NUMBERS in core:
        table = core[CORE_NUMBERS]
        column = str(crew_size) if str(crew_size) in table.columns else ""
        rolled = roller.table(table, f"Enemy numbers (crew of {crew_size})", column=column)
        value = int(rolled.entry.data.get("enemies", rolled.value))
        lines.append(f"Numbers roll on the core table: {value}.")
        return value
    raise EnemyError(
        "The core rulebook's enemy numbers roll is needed: give base_numbers, a core 'enemy-numbers' table, "
        "or use the Strength-adjusted Enemies toggle.",
        field="base_numbers",
    )


def _armament(
    roller: _Roller,
    profile: EnemyProfile,
    weapons: Mapping[str, str] | None,
    core: Mapping[str, RangeTable] | None,
    lines: list[str],
) -> tuple[str, str]:
    code = weapon_code(profile.weapons) or profile.weapons.strip()
    if not _WEAPON_CODE.match(code):
        natural = "" if code in ("", "-") else code
        if weapons is not None:
            lines.append(f"{profile.name} carry {natural or 'no rolled weapon'}: the entered weapons are not used.")
        return natural, natural
    if weapons is not None:
        unknown = sorted(set(weapons) - {"basic", "specialist"})
        if unknown or "basic" not in weapons:
            raise EnemyError("weapons must give 'basic' and optionally 'specialist' weapon names.", field="weapons")
        basic = str(weapons["basic"]).strip()
        specialist = str(weapons.get("specialist") or basic).strip()
        lines.append(f"Weapons {code} (entered): basic {basic}, specialist {specialist}.")
        return basic, specialist
    if core and CORE_WEAPONS in core:
        table = core[CORE_WEAPONS]
        column = code if code in table.columns else ""
        rolled = roller.table(table, f"Enemy weapons ({code})", column=column)
        basic = str(rolled.entry.data.get("basic") or rolled.entry.result)
        specialist = str(rolled.entry.data.get("specialist") or basic)
        lines.append(f"Weapons {code} on the core table: basic {basic}, specialist {specialist}.")
        return basic, specialist
    lines.append(f"Roll weapons {code} on the core rulebook's enemy weapon tables; swaps then apply as noted.")
    return f"Basic weapon ({code})", f"Specialist weapon ({code})"


def _rank_rows(tables: Mapping[str, RangeTable]) -> dict[str, Mapping[str, Any]]:
    rows = {str(e.data.get("rank")): e.data for e in _table(tables, RANK_TABLE).entries}
    missing = [r for r in SQUAD_RANKS if r not in rows]
    if missing:
        raise EnemyError(f"Table {RANK_TABLE!r} has no row for {missing[0]!r}.", field="tables")
    return rows


def _composition(tables: Mapping[str, RangeTable], size: int) -> tuple[int, dict[str, int]]:
    """Squad size after the minimum, and figures per rank (p.49)."""
    rows = list(_table(tables, COMPOSITION_TABLE).entries)
    smallest = min(int(e.data["squad_size_min"]) for e in rows)
    size = max(size, smallest)
    for entry in rows:
        low = int(entry.data["squad_size_min"])
        high = entry.data.get("squad_size_max")
        if low <= size and (high is None or size <= int(high)):
            d = entry.data
            counts = {
                "basic": int(d["basic_enemies"]) + (size - low if d.get("extra_figures_are_basic") else 0),
                "specialist": int(d["specialists"]),
                "lieutenant": int(d["lieutenants"]),
                "captain": int(d["captains"]),
            }
            return size, counts
    raise EnemyError(f"Table {COMPOSITION_TABLE!r} has no row for a squad of {size}.", field="tables")


def _is_cowardly(profile: EnemyProfile) -> bool:
    return any(str(rule).lower().startswith("cowardly") for rule in profile.special_rules)


def _elite_figure(
    profile: EnemyProfile,
    rank: str,
    number: int,
    ranks: Mapping[str, Mapping[str, Any]],
    basic: str,
    specialist: str,
) -> _Fig:
    up = ranks[rank]
    weapons = []
    for item in up.get("weapons", ()):
        if item == "basic weapon":
            weapons.append(basic)
        elif item == "specialist weapon":
            weapons.append(specialist)
        else:
            weapons.append(str(item))
    combat_skill = profile.combat_skill + int(up.get("combat_skill_bonus") or 0)
    if rank == "specialist":
        combat_skill += int(profile.data.get("specialist_combat_skill_bonus") or 0)
    if up.get("combat_skill_min") is not None:
        combat_skill = max(combat_skill, int(up["combat_skill_min"]))
    toughness = profile.toughness
    if up.get("toughness_min") is not None:
        toughness = max(toughness, int(up["toughness_min"]))
    save = profile.save
    notes: list[str] = []
    if up.get("armor_save_if_unarmored") is not None:
        improved = None if save is None else max(2, save - int(up.get("armor_save_improvement") or 0))
        save = int(up["armor_save_if_unarmored"]) if improved is None else improved
    fearless = bool(up.get("fearless")) or profile.panic == "0" or bool(profile.data.get("fearless"))
    if bool(up.get("fearless")) and _is_cowardly(profile):
        fearless = profile.panic == "0"
        notes.append("Cowardly: takes Morale dice as normal")
    label = RANK_LABELS[rank]
    return _Fig(
        name=f"{label} {number}" if rank in ("basic", "specialist") else label,
        rank=rank,
        speed=profile.speed,
        combat_skill=combat_skill,
        toughness=toughness,
        save=save,
        weapons=weapons,
        notes=notes,
        ai=profile.ai,
        fearless=fearless,
    )


def _plain_figure(profile: EnemyProfile, rank: str, number: int, basic: str, specialist: str) -> _Fig:
    """A standard (core) figure: the profile as printed, with its group's weapon."""
    label = RANK_LABELS[rank]
    weapon = specialist if rank == "specialist" else basic
    return _Fig(
        name=f"{label} {number}" if rank in ("basic", "specialist") else label,
        rank=rank,
        speed=profile.speed,
        combat_skill=profile.combat_skill,
        toughness=profile.toughness,
        save=profile.save,
        weapons=[weapon],
        ai=profile.ai,
        fearless=profile.panic == "0",
    )


def _type_rows(tables: Mapping[str, RangeTable], slug: str, profile: EnemyProfile) -> list[Mapping[str, Any]]:
    table = tables.get(slug)
    if table is None:
        return []
    return [
        e.data
        for e in table.entries
        if _key(str(e.data.get("enemy", ""))) == _key(profile.name)
        and str(e.data.get("category", "")).lower() == profile.category.lower()
    ]


def _in_order(figs: list[_Fig]) -> list[_Fig]:
    order = {r: i for i, r in enumerate(RANKS)}
    return sorted(figs, key=lambda f: order[f.rank])


def _apply_replacements(figs: list[_Fig], rows: list[Mapping[str, Any]], lines: list[str]) -> None:
    for row in rows:
        replaces = [str(r) for r in row.get("replaces", ())]
        replacement = str(row.get("replacement", ""))
        who = str(row.get("who", "any"))
        count = _ALL if row.get("count") == "all" else int(row.get("count") or 0)
        slot_only = any(r.lower() in ("any", "all normal weapons") for r in replaces)
        keys = {_key(r) for r in replaces}
        done = 0
        for fig in _in_order(figs):
            if done >= count:
                break
            if fig.rank == "unique" or (who != "any" and fig.rank != who):
                continue
            for index, weapon in enumerate(fig.weapons):
                if done >= count:
                    break
                if slot_only:
                    if index == 0 and fig.rolled_slot:
                        fig.weapons[0] = replacement
                        fig.rolled_slot = False
                        done += 1
                    break
                if weapon and _key(weapon) in keys:
                    fig.weapons[index] = replacement
                    done += 1
        if done:
            lines.append(f"{replacement} swapped in for {done} weapon(s).")


def _meets(fig: _Fig, condition: str) -> bool:
    text = condition.strip().lower()
    for lead in ("if armed with a ", "if armed with ", "if carrying a ", "if carrying "):
        if text.startswith(lead):
            wanted = text[len(lead) :]
            if "pistol-type" in wanted:
                return any(_key(w) in PISTOL_WEAPONS for w in fig.weapons)
            return fig.has_weapon(wanted)
    return True


def _apply_gear(figs: list[_Fig], rows: list[Mapping[str, Any]], lines: list[str]) -> None:
    for row in rows:
        carriers = [str(c) for c in row.get("carriers", ())]
        item = str(row.get("item", ""))
        count = _ALL if row.get("count") == "all" else int(row.get("count") or 0)
        condition = str(row.get("condition") or "")
        conditional = condition.lower().startswith("if ")
        given = 0
        for fig in _in_order(figs):
            if given >= count:
                break
            if fig.rank == "unique" or ("any" not in carriers and fig.rank not in carriers):
                continue
            if conditional and not _meets(fig, condition):
                continue
            if "sight" in item.lower():
                fig.gear.append(item)
            else:
                fig.weapons.append(item)
            if condition and not conditional and condition.lower() != "chosen at random":
                fig.notes.append(f"{item}: {condition}")
            given += 1
        if given:
            lines.append(f"{item} for {given} figure(s).")


def _apply_toggles(
    figs: list[_Fig], diff: TurnDifficulty, tables: Mapping[str, RangeTable], lines: list[str], *, elite: bool
) -> None:
    if diff.has("veteran"):
        data = _toggle(tables, "veteran")
        basics = [f for f in figs if f.rank == "basic"][: int(data["veteran_enemies"])]
        for fig in basics:
            fig.combat_skill += int(data["combat_skill"])
            fig.notes.append(f"Veteran: +{data['combat_skill']} Combat Skill")
        if basics:
            lines.append(f"Veteran: {', '.join(f.name for f in basics)} gains +{data['combat_skill']} Combat Skill (p.33).")
    if diff.has("actually_specialized"):
        data = _toggle(tables, "actually_specialized")
        raised = 0
        for fig in figs:
            if fig.rank != "specialist":
                continue
            before = (fig.combat_skill, fig.toughness)
            fig.combat_skill = max(fig.combat_skill, int(data["combat_skill_min"]))
            fig.toughness = max(fig.toughness, int(data["toughness_min"]))
            raised += (fig.combat_skill, fig.toughness) != before
        lines.append(
            f"Actually Specialized: specialists at least Combat Skill +{data['combat_skill_min']} and Toughness "
            f"{data['toughness_min']} ({raised} raised, p.33)."
        )
    if diff.has("armored_leaders"):
        data = _toggle(tables, "armored_leaders")
        armored = 0
        for fig in figs:
            if fig.rank == "lieutenant" and fig.save is None:
                fig.save = int(data["saving_throw"])
                armored += 1
        if armored:
            lines.append(f"Armored Leaders: {armored} Lieutenant(s) gain a {data['saving_throw']}+ save (p.33).")
        elif elite:
            lines.append("Armored Leaders: elite Lieutenants already have a save; no change (p.33).")


def _leadership(
    tables: Mapping[str, RangeTable],
    panic: str,
    figs: list[_Fig],
    lines: list[str],
    unique: _Fig | None = None,
    unique_panic: int = 0,
) -> tuple[str, list[str]]:
    notes: list[str] = []
    leader = (
        "captain"
        if any(f.rank == "captain" for f in figs)
        else ("lieutenant" if any(f.rank == "lieutenant" for f in figs) else "")
    )
    if leader:
        for entry in _table(tables, LEADERSHIP_TABLE).entries:
            if entry.data.get("rank") == leader and str(entry.data.get("normal_panic")) == panic:
                modified = str(entry.data.get("modified_panic"))
                notes.append(f"{RANK_LABELS[leader]} present: Panic {panic} becomes {modified} while on the battlefield (p.49).")
                panic = modified
                break
    if unique is not None and unique_panic:
        new = _panic_text(_panic_top(panic) + unique_panic)
        notes.append(f"{unique.name}: Panic {panic} becomes {new} while it lives (p.62).")
        panic = new
    if panic == "0":
        notes.append("Panic 0: the enemy is Fearless unless something raises the range.")
    lines.extend(notes)
    return panic, notes


def _unique_figure(
    roller: _Roller, tables: Mapping[str, RangeTable], profile: EnemyProfile, lines: list[str]
) -> tuple[_Fig, int]:
    """The Unique Individual's figure and its change to the enemy Panic range."""
    rolled = roller.table(_table(tables, UNIQUE_TABLE), "Elite Unique Individual")
    entry = rolled.entry
    d = entry.data
    base = bool(d.get("uses_enemy_base_profile"))
    speed = profile.speed if d.get("speed") is None else int(d["speed"])
    combat_skill = (profile.combat_skill if d.get("combat_skill") is None else _ints(d["combat_skill"])) + int(
        d.get("combat_skill_modifier") or 0
    )
    toughness = (profile.toughness if d.get("toughness") is None else int(d["toughness"])) + int(d.get("toughness_modifier") or 0)
    weapons: list[str] = []
    for name in d.get("weapons", ()):
        if str(name).lower() == "various" and d.get("weapon_table") in tables:
            weapons.extend(str(e.data.get("weapon", e.result)) for e in tables[str(d["weapon_table"])].rows())
        else:
            weapons.append(str(name))
    gear: list[str] = []
    if d.get("screen_save") is not None:
        gear.append(f"Screen {d['screen_save']}+")
    notes = [str(r) for r in d.get("special_rules", ())]
    save = d.get("armor_save")
    lines.append(f"Unique Individual: {entry.result} (D100 {rolled.value}, pp.62-65).")
    figure = _Fig(
        name=entry.result,
        rank="unique",
        speed=speed,
        combat_skill=combat_skill,
        toughness=toughness,
        save=(profile.save if base else None) if save is None else int(save),
        weapons=weapons,
        gear=gear,
        notes=notes,
        ai=str(d.get("ai") or (profile.ai if base else "")),
        luck=int(d.get("luck") or 0),
        fearless=True,
        rolled_slot=False,
    )
    return figure, int(d.get("panic_modifier") or 0)


def _presence_row(tables: Mapping[str, RangeTable], result: str) -> Mapping[str, Any]:
    for entry in _table(tables, PRESENCE_TABLE).entries:
        if entry.result == result:
            return entry.data
    raise EnemyError(f"Table {PRESENCE_TABLE!r} has no row {result!r}.", field="tables")


def _better_leadership_boost(roller: _Roller, tables: Mapping[str, RangeTable], figs: list[_Fig], lines: list[str]) -> None:
    data = _toggle(tables, "better_leadership")
    pool = [f for f in figs if f.rank != "unique"]
    fig = pool[roller.pick(len(pool), "Better Leadership: random enemy figure")]
    fig.combat_skill = min(fig.combat_skill + int(data["combat_skill"]), int(data["combat_skill_max"]))
    fig.toughness = min(fig.toughness + int(data["toughness"]), int(data["toughness_max"]))
    fig.notes.append(f"Better Leadership: +{data['combat_skill']} Combat Skill, +{data['toughness']} Toughness")
    lines.append(
        f"Better Leadership: {fig.name} is raised to Combat Skill +{fig.combat_skill}, Toughness {fig.toughness} (p.33)."
    )


def _seize(category: Mapping[str, Any], profile: EnemyProfile, lines: list[str]) -> int | None:
    data = profile.data
    if data.get("cannot_seize_initiative"):
        lines.append("The crew cannot Seize the Initiative against them.")
        return None
    if data.get("no_seize_initiative_modifiers"):
        lines.append("No modifiers apply to the Seize the Initiative roll.")
        return 0
    total = int(category.get("seize_initiative_modifier") or 0) + int(data.get("seize_initiative_modifier") or 0)
    if total:
        lines.append(f"Seize the Initiative: {total:+d}.")
    return total


def _reward_texts(tables: Mapping[str, RangeTable], profile: EnemyProfile, bounty: int | None) -> list[str]:
    texts = [f"{e.result}: {e.effect}" for e in _table(tables, REWARDS_TABLE).entries]
    d = profile.data
    if bounty:
        texts.append(f"Bounty pay: +{bounty} credits if you Hold the Field.")
    if d.get("extra_loot_rolls"):
        texts.append(f"+{d['extra_loot_rolls']} Loot roll when you Hold the Field.")
    if d.get("extra_battlefield_finds"):
        texts.append(f"+{d['extra_battlefield_finds']} Battlefield Finds roll when you Hold the Field.")
    if d.get("battlefield_finds_rolls"):
        texts.append(f"Battlefield Finds rolled {d['battlefield_finds_rolls']} times when you may roll them.")
    if d.get("intrigue_dice"):
        texts.append(f"Intrigue: {d['intrigue_dice']} after the battle, {d['intrigue_target']}+ gives a Quest Rumor.")
    return texts
