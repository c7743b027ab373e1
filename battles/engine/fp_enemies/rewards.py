"""After the battle: elite rewards and type rules that pay out (p.50), and Elite Rivals following
the crew (p.49).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_enemies.base import REWARDS_TABLE, RIVAL_FOLLOWS_TABLE, UNIQUE_TABLE, EliteRewards, EnemyError, EnemyForce
from battles.engine.fp_enemies.profiles import _category_row, _Roller, _table
from rules.engine.dice import Dice, Keep, RollRecord
from rules.engine.tables import RangeTable

# -- after the battle ---------------------------------------------------------------------------


def elite_rewards(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    force: EnemyForce,
    *,
    held_field: bool,
    killed_any: bool = False,
    killed_leader: bool = False,
    killed_unique: bool = False,
    patron_job: bool = False,
    quest_finished: bool = False,
    crew_all_casualties: bool = False,
    rival_roll: bool = False,
    faces: Sequence[int] | None = None,
) -> EliteRewards:
    """What an elite battle pays after it (p.50 and the type rules, pp.50-65).

    - Elite-level Rewards: Better Loot (one extra Loot roll, drop one item), Patron Pay (+1
      credit Danger Pay on a ``patron_job`` when ``killed_any``), Quest Rewards (+1 Loot item when
      ``quest_finished``), Brutal Fight (+1 XP when ``crew_all_casualties``).
    - ``held_field``: pays the Criminal Elements bounty rolled at set-up and the types' extra
      Loot and Battlefield Finds rolls (Secret Agents' Costly Loot also adds a Rival).
    - Intrigue types roll 2D6 (+1 when ``killed_leader``: a Lieutenant, Captain or Unique
      Individual): 9+ is a Quest Rumor. A Corporate Spook ``killed_unique`` gives a Rumor and a
      Rival.
    - Rivals: Roving Threats never, Enforcers always; ``rival_roll`` (the core rules call for a
      Rival roll) against Criminal Elements rolls 2D6 for Gang feuds: any 1 makes them Rivals,
      double 1 means they hate you.

    Raises :class:`EnemyError` when ``force`` is not elite, or for a missing table.
    """
    if not force.elite:
        raise EnemyError("force must be an elite force; standard enemies use the core rulebook's rewards.", field="force")
    roller = _Roller(dice, faces)
    lines: list[str] = []
    loot = loot_items = xp = danger = finds = quest_rumors = rumors = extra_rivals = 0
    for entry in _table(tables, REWARDS_TABLE).entries:
        d = entry.data
        if entry.result == "Better Loot":
            loot += int(d.get("extra_loot_rolls") or 0)
            lines.append(f"Better Loot: roll Loot {d.get('extra_loot_rolls')} extra time, then drop one item of your choice.")
        elif d.get("requires_kill"):
            if patron_job and killed_any:
                danger += int(d.get("credits") or 0)
                lines.append(f"Patron Pay: +{d.get('credits')} credit Danger Pay.")
        elif d.get("loot_items"):
            if quest_finished:
                loot_items += int(d["loot_items"])
                lines.append(f"Quest Rewards: +{d['loot_items']} Loot item.")
        elif d.get("xp") and crew_all_casualties:
            xp += int(d["xp"])
            lines.append(f"Brutal Fight: +{d['xp']} XP for one crew member of your choice.")

    profile_data: Mapping[str, Any] = force.profile.data if force.profile else {}
    bounty = 0
    if held_field:
        if force.bounty_credits:
            bounty = force.bounty_credits
            lines.append(f"Bounty pay: +{bounty} credits.")
        if profile_data.get("extra_loot_rolls"):
            loot += int(profile_data["extra_loot_rolls"])
            lines.append(f"{force.type}: +{profile_data['extra_loot_rolls']} Loot roll for Holding the Field.")
            if force.type == "Secret Agents":
                extra_rivals += 1
                lines.append("Costly Loot: add an unnamed Rival.")
        if profile_data.get("extra_battlefield_finds"):
            finds += int(profile_data["extra_battlefield_finds"])
            lines.append(f"Scavengers: +{profile_data['extra_battlefield_finds']} Battlefield Finds roll.")
    if profile_data.get("battlefield_finds_rolls"):
        lines.append(f"Scavengers: Battlefield Finds, when allowed, are rolled {profile_data['battlefield_finds_rolls']} times.")
        finds += int(profile_data["battlefield_finds_rolls"]) - 1
    if profile_data.get("intrigue_dice"):
        modifier = int(profile_data.get("intrigue_kill_modifier") or 0) if killed_leader else 0
        target = int(profile_data["intrigue_target"])
        roll = roller.roll(str(profile_data["intrigue_dice"]), f"Intrigue: Quest Rumor on {target}+", modifier=modifier)
        if (roll.total or 0) >= target:
            quest_rumors += 1
        lines.append(
            f"Intrigue roll {roll.total} against {target}+: {'a Quest Rumor' if (roll.total or 0) >= target else 'nothing'}."
        )

    unique = force.unique_individual
    if killed_unique and unique is not None and unique.name == "Corporate Spook":
        data = next((e.data for e in _table(tables, UNIQUE_TABLE).entries if e.result == unique.name), {})
        rumors += int(data.get("rumors") or 1)
        extra_rivals += 1
        lines.append("Employee evaluation: +1 Rumor and a Rival.")

    cat = _category_row(tables, force.category).data
    rival: bool | None = None
    hates = False
    if cat.get("can_be_rivals") is False:
        rival = False
        lines.append(f"{force.category} never become Rivals.")
    elif profile_data.get("always_rivals"):
        rival = True
        lines.append(f"{force.type} always become Rivals.")
    elif rival_roll and cat.get("rival_dice"):
        roll = roller.roll(str(cat["rival_dice"]), "Gang feuds: a 1 on either die makes Rivals", keep=Keep.SEPARATE)
        rival = 1 in roll.faces
        hates = roll.faces.count(1) == len(roll.faces)
        lines.append(
            f"Gang feuds ({', '.join(map(str, roll.faces))}): "
            + ("they hate you: Rivals with +1 numbers in every battle." if hates else ("Rivals." if rival else "no Rivals."))
        )
    return EliteRewards(
        credits=bounty + danger,
        bounty_credits=bounty,
        danger_pay_credits=danger,
        extra_loot_rolls=loot,
        loot_items=loot_items,
        xp=xp,
        battlefield_finds_rolls=finds,
        quest_rumors=quest_rumors,
        rumors=rumors,
        rival=rival,
        rival_hates_you=hates,
        extra_rivals=extra_rivals,
        rolls=roller.finish(),
        lines=tuple(lines),
    )


def elite_rival_follows(
    dice: Dice, tables: Mapping[str, RangeTable], rivals: Sequence[str], *, faces: Sequence[int] | None = None
) -> tuple[dict[str, bool], tuple[RollRecord, ...]]:
    """When the crew travels, roll D6 for each Elite Rival named in ``rivals`` (p.49): 4+
    follows. Returns ``({name: follows}, rolls)``. Raises :class:`EnemyError` for repeated
    names or a missing table."""
    names = [str(r) for r in rivals]
    if len(set(names)) != len(names):
        raise EnemyError("rivals must be distinct names.", field="rivals")
    roller = _Roller(dice, faces)
    table = _table(tables, RIVAL_FOLLOWS_TABLE)
    result = {name: bool(roller.table(table, f"Elite Rival {name} follows?").entry.data.get("follows")) for name in names}
    return result, roller.finish()
