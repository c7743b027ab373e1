"""Writes for Five Parsecs battles: set a battle up, rename or delete it. Finishing it and handing
the result to the campaign turn is :mod:`battles.result_services`; the battle's live tracker
room (and Street Fights' and a loan's Fight it out) is opened by :mod:`battles.tracker_services`,
play without miniatures is in :mod:`battles.nominis_services`, odds jobs in
:mod:`battles.odds_services`, PvP and co-op battles in :mod:`battles.pvp_services`.

Every write is keyword-only, runs in one transaction, takes the battle ``version`` it was made
against (a stale one is refused with :class:`StaleVersion`, 409) and raises
:class:`DropshipError` naming the field at fault, writing nothing then.

Set-up shape (``Battle.setup``)::

    {"battle": BattleSetup.as_dict(), "enemy": EnemyForce.as_dict(),
     "crew": [{"name", "ref", "reactions", "speed", "combat_skill", "toughness", "savvy", "save",
               "save_kind"?, "second_save"?, "save_from"?,
               "weapons": [{"name", "range", "shots", "damage", "traits"}], "captain", "bot",
               "soulless", "kerin", "psionic", and for a Psionic "powers", "swift", "shrels", "focus",
               "krag"?, "reroll_natural_one"?, "left_out"?, "reminders"?,
               "seize_modifier"?}],  # the ?-keys: campaign battles (see _campaign_crew)
     "options": {CampaignOptions.as_dict() keys plus the battle flags of BATTLE_FLAGS},
     "hit_numbers": {"open", "cover", "source"}, "seed": int, "enemy_weapons": {name: profile},
     "campaign_turn": int, "objective": str, "warnings": [str],
     "core": [fp_setup.CoreRoll.as_dict()],  # the player's own core-rulebook tables, see below
     "psionic_legality": "outlawed" | "unusual" | "common" | "",  # the campaign world's (p.20)
     "rival"?: {"id", "name", "psi_hunter"}}  # the campaign Rival fought (rival_id)

Rulings:

- A campaign battle takes the campaign's options; ``options`` then only carries the battle
  flags (:data:`BATTLE_FLAGS`). Its crew is every active crew member as it is
  (:func:`_campaign_crew`): a kit item is a weapon when the Dramatic Weapons table (pp.88-89)
  names it, other kit is left off the figure; a Psionic's weapons other than Pistol or Melee are
  not fired (p.18, a set-up warning says so); worn armour and screens and the Bot upgrades give
  the Saving Throw and its kind (p.26); a Multi-wave scanner adds +1 to Seize the Initiative in
  the tracker (p.26); a Krag rerolls a natural 1 in a Rival mission (p.12) and the species rules
  the table applies show on the figure (pp.12-15).
- Enemy weapons the Dramatic Weapons table does not name (core-rulebook weapons) need a profile
  in ``enemy["weapon_profiles"]``; without one the figure goes without that weapon and the set-up
  says so in ``setup["warnings"]``.
- No-minis mission: the objective's name when it is one of the no-minis missions (pp.72-73),
  else Fight Off (it only asks the crew to Hold the Field).
- A campaign battle reads its campaign turn: the battle type (``mission_source`` left empty)
  and what the turn's "Determine deployment conditions / notable sights / the objective / the
  enemy" steps came to, rolled on the user's table or typed by hand. Where the turn has not
  come to a part yet and the campaign maps a table to its slot, the set-up rolls that table
  (deployment conditions and notable sights for conventional battles only; the objective
  through ``fp_setup.roll_mission``; the enemy only with ``{"core_table": true}``). Every roll
  of a campaign battle's set-up also goes into the campaign log. A rolled Notable Sight is one
  suspected Location in no-minis play.
- A campaign battle played for this turn's Expanded Connection (``campaigns.engine.connections``,
  pp.80-86) takes its extra enemies, Specialists and lowered Panic range into the enemy profile;
  ``setup["connection"]`` (also among the warnings) lists the Connection's terms.
- A special battle type (p.116) that :mod:`battles.mission_types` lists (Stealth, Salvage, Street fight) is set up by
  its generator after Mission Selection (or the player's ``battle_type``): its card lines join
  the set-up card, ``setup["mission_type"]`` keeps ``{type, kind, setup}``, the enemy category
  is swapped and the force reshaped as the type says, the live tracker is its kind, and a type
  whose set-up says ``no_minis_allowed: false`` refuses no-minis play (``mode``). The core
  objective table is still rolled when mapped, but the type's own objective is the battle's.
- The live tracker gets the enemy type's profile and rank counts; it makes the elite rank
  upgrades, the toggles and progressive Strength (p.30) itself, so the figures progressive
  Strength added at set-up are taken out of the counts it gets. A Bot crew member is a
  cybernetic figure for the casualty tables (p.99). An AI type the tracker does not know
  (Guardian) is played as Tactical there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from django.db import transaction

from battles import mission_types, salvage_kind, street_kind
from battles.engine import fp_combat, fp_enemies, fp_setup, fp_tracker
from battles.models import Battle
from battles.selectors import battle_for
from campaigns import services as campaign_services
from campaigns.crew_services import battle_stats as crew_battle_stats
from campaigns.crew_services import to_engine
from campaigns.engine import characters as ch
from campaigns.engine import connections, quests
from campaigns.engine.difficulty import Reminder
from campaigns.engine.options import CampaignOptions, parse_options
from campaigns.engine.slots import slot as slot_spec
from campaigns.models import Campaign, Rival
from campaigns.permissions import EDITOR, campaign_for
from campaigns.selectors import current_turn, fiveparsecs_tables, slot_tables, turn_table_results
from live.engine.tracker import flag_value
from rules import writes
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable
from rules.errors import DropshipError, rule_errors

#: Battle-level flags that are not campaign options: the no-minis options (p.70 Hectic and
#: Faster Combat, p.71 Battle flow events) and the tracker's Critical Hits and Escalation (p.46).
BATTLE_FLAGS: tuple[str, ...] = ("hectic", "faster", "battle_flow", "critical_hits", "escalating_battles", "escalation_variation")
ENEMY_RANKS = {
    "basic": "regular",
    "specialist": "specialist",
    "lieutenant": "lieutenant",
    "captain": "lieutenant",
    "unique": "lieutenant",
}
STAT_LIMITS = {
    "reactions": (0, 6),
    "speed": (0, 12),
    "combat_skill": (-3, 5),
    "toughness": (1, 10),
    "savvy": (-3, 5),
}


# -- shared helpers ---------------------------------------------------------------------------


def _engine[T](call: Callable[[], T], *, where: str = "") -> T:
    """Run an engine call; its refusals become :class:`DropshipError` naming the same field
    (prefixed with ``where``, e.g. ``enemy.``); impossible dice name ``faces``."""
    with rule_errors(where=where, dice_field="faces"):
        return call()


def _load(user: Any, battle_id: int, version: int | None) -> Battle:
    """The battle locked for writing by ``user``, checked against ``version``."""
    battle = battle_for(user, battle_id, write=True, lock=True)
    writes.check_version(battle, version, message="Someone else changed this battle; reload to see the latest.")
    return battle


def _touch(battle: Battle) -> None:
    writes.bump(battle)


def _int(raw: Any, field: str, low: int, high: int, default: int | None = None) -> int:
    if raw is None or raw == "":
        if default is None:
            raise DropshipError(f"{field} is required: a whole number from {low} to {high}.", field=field)
        return default
    if isinstance(raw, bool):
        raise DropshipError(f"{field} must be a whole number from {low} to {high}; got {raw!r}.", field=field)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise DropshipError(f"{field} must be a whole number from {low} to {high}; got {raw!r}.", field=field) from None
    if not low <= value <= high:
        raise DropshipError(f"{field} must be from {low} to {high}; got {value}.", field=field)
    return value


def _flag(raw: Any, field: str) -> bool:
    with rule_errors():
        return flag_value(raw, field)


def _weapon(
    tables: Mapping[str, RangeTable], raw: Any, field: str, profiles: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """A weapon as a dict: a typed profile, a name in ``profiles`` or the Dramatic Weapons table;
    ``None`` for a name neither knows."""
    if isinstance(raw, Mapping):
        return _engine(
            lambda: fp_combat.Weapon.from_dict({"range": 0, "shots": 0, "damage": 0, **raw}).as_dict(), where=f"{field}."
        )
    name = str(raw or "").strip()
    if not name:
        raise DropshipError(f"{field} must be a weapon name or a profile (name, range, shots, damage, traits).", field=field)
    if profiles and name in profiles:
        return _weapon(tables, {"name": name, **dict(profiles[name])}, field)
    try:
        return fp_combat.weapon(tables, name).as_dict()
    except fp_combat.CombatError:
        return None


# -- crew -------------------------------------------------------------------------------------


def _crew_figure(tables: Mapping[str, RangeTable], raw: Any, index: int) -> dict[str, Any]:
    where = f"crew[{index}]"
    if not isinstance(raw, Mapping):
        raise DropshipError(f"{where} must be a crew figure (name, reactions, speed, combat_skill, toughness).", field=where)
    name = str(raw.get("name") or "").strip()
    if not name:
        raise DropshipError(f"{where}.name is required.", field=f"{where}.name")
    figure: dict[str, Any] = {"name": name[:40], "ref": str(raw.get("ref") or "")}
    for stat, (low, high) in STAT_LIMITS.items():
        default = 0 if stat == "savvy" else None
        figure[stat] = _int(raw.get(stat), f"{where}.{stat}", low, high, default)
    save = raw.get("save")
    figure["save"] = None if save in (None, "", 0) else _int(save, f"{where}.save", 2, 6)
    weapons: list[dict[str, Any]] = []
    for n, item in enumerate(raw.get("weapons") or []):
        made = _weapon(tables, item, f"{where}.weapons[{n}]")
        if made is None:
            raise DropshipError(
                f"{where}.weapons[{n}]: {item!r} is not in the Dramatic Weapons table; type its profile "
                "(name, range, shots, damage, traits).",
                field=f"{where}.weapons[{n}]",
            )
        weapons.append(made)
    figure["weapons"] = weapons
    for key in ("captain", "bot", "soulless", "kerin"):
        figure[key] = _flag(raw.get(key), f"{where}.{key}")
    return figure


def _campaign_crew(campaign: Campaign, tables: Mapping[str, RangeTable]) -> list[dict[str, Any]]:
    """The crew figures of a campaign battle: every active crew member as it is.

    - Weapons: kit the Dramatic Weapons table names (pp.88-89). A Psionic's weapon without the
      Pistol or Melee trait (carried from before the character became a Psionic) is not fired
      (p.18): it is left off the figure and named in ``left_out`` (the set-up warnings say so).
    - Saving Throw (``characters.saving_throw``, p.26): ``save``, ``save_kind`` (armor, screen or
      both) and ``second_save`` from worn armour and screens typed by the player and a Bot's
      built-in Armor save (as typed; a Bot with none typed has none) with Improved armor casing
      (5+, never worse) and the Deflection module (both kinds). Armour and a screen worn together
      give one save per hit, the best the hit leaves standing (Bug Hunt p.178 rolls one die; p.26
      lets a save that is both kinds be made unless the attack negates both), so the better one is
      ``save`` and a worse one of the other kind ``second_save``. ``save_from`` says what gives it.
    - ``seize_modifier``: a Bot's Multi-wave scanner, +1 to Seize the Initiative (p.26).
    - Species (pp.12-15): ``krag`` (Belligerent against Rivals is set by :func:`_crew_for_mission`)
      and ``reminders``, the species rules the table applies (no Dash, terrain, hazards), with
      their pages.
    """
    crew: list[dict[str, Any]] = []
    for member in campaign.characters.filter(status="active"):
        sheet = _engine(partial(to_engine, member), where=f"crew.{member.name}.")
        weapons, left_out = _campaign_weapons(tables, sheet)
        saving = ch.saving_throw(sheet, tables)
        species = member.species.lower().replace("'", "").replace("-", "")
        stats = crew_battle_stats(member, tables)  # after injury penalties (p.101)
        crew.append(
            {
                "name": member.name[:40],
                "ref": str(member.pk),
                "reactions": stats["reactions"],
                "speed": stats["speed"],
                "combat_skill": stats["combat_skill"],
                "toughness": stats["toughness"],
                "savvy": stats["savvy"],
                "save": saving.save,
                "save_kind": saving.kind,
                "second_save": saving.second_save,
                "save_from": list(saving.sources),
                "weapons": weapons,
                "left_out": left_out,
                "captain": member.is_captain,
                "bot": member.kind == "bot",
                "soulless": member.kind == "soulless",
                "kerin": species == "kerin",
                "krag": sheet.species == ch.KRAG,
                "psionic": bool(member.sheet.get("psionic")) and not member.sheet.get("psionics_lost"),
                **_psionic_kit(member),
                "seize_modifier": ch.seize_initiative_bonus(sheet, tables),
                "reminders": list(ch.battle_traits(sheet, tables, against_rivals=False).reminders),
            }
        )
    return crew


#: Psionic gear of the Compendium (p.27) as kit names.
WARDING_SHREL = "warding shrel"
PSIONIC_FOCUS = "psionic focus"
#: The crew figure keys the live tracker reads for a Psionic (battles.engine.fp_tracker.setup.psionic_figure).
PSIONIC_KEYS = ("psionic", "powers", "swift", "shrels", "focus")


def _psionic_kit(member: Any) -> dict[str, Any]:
    """What a campaign Psionic brings to battle (pp.17-27): its powers (name: enhanced), whether it
    is Swift (it Strains more safely, p.20), its Warding Shrels (at most 2 count: two cancel) and
    Psionic Focus. Empty for anyone who is not a Psionic with powers."""
    sheet = member.sheet or {}
    if not sheet.get("psionic") or sheet.get("psionics_lost") or not sheet.get("powers"):
        return {}
    kit = [str(item).strip().lower() for item in sheet.get("equipment", []) or []]
    return {
        "powers": {str(name): bool(enhanced) for name, enhanced in dict(sheet["powers"]).items()},
        "swift": member.species.strip().lower() == "swift",
        "shrels": min(kit.count(WARDING_SHREL), 2),
        "focus": PSIONIC_FOCUS in kit,
    }


def _follow_elite_roll(facts: Mapping[str, Any], enemy: Mapping[str, Any]) -> None:
    """A campaign battle's enemy is what the turn's elite-level enemy roll decided (p.48), once it
    was made (turn fact ``elite``): elite forces (``enemy.elite`` on, with a category) or a
    standard enemy. Raises :class:`DropshipError` naming ``enemy.elite`` otherwise."""
    decided = facts.get("elite")
    if not isinstance(decided, bool):
        return
    wanted = _flag(enemy.get("elite"), "enemy.elite")
    if wanted == decided:
        return
    if decided:
        raise DropshipError(
            "enemy.elite: this turn's elite-level enemy roll (p.48) brought elite enemies: choose the elite enemy and its "
            "category.",
            field="enemy.elite",
        )
    raise DropshipError(
        "enemy.elite: this turn's elite-level enemy roll (p.48) gave standard enemies: type the enemy's profile or take it "
        "from your core table.",
        field="enemy.elite",
    )


def _quest_terms(
    tables: Mapping[str, RangeTable], campaign: Campaign | None, source: str, ai_type: str | None
) -> quests.BattleTerms:
    """The Quest's terms for a campaign's Quest battle (mission ``quest``;
    :func:`campaigns.engine.quests.battle_terms`), none for any other battle. Raises
    :class:`DropshipError` (``ai_type``) when the step sets the enemy AI and another is chosen."""
    if campaign is None or source != quests.QUEST_MISSION:
        return quests.BattleTerms()
    terms = _engine(lambda: quests.battle_terms(campaign.quest_step or {}, tables))
    if terms.ai and ai_type and ai_type.strip().lower() != terms.ai:
        raise DropshipError(
            f"ai_type: the Quest step makes the enemy AI {terms.ai.capitalize()} (p.79); got {ai_type!r}.", field="ai_type"
        )
    return terms


def _quest_force(
    dice: Dice, tables: Mapping[str, RangeTable], force: fp_enemies.EnemyForce, terms: quests.BattleTerms
) -> fp_enemies.EnemyForce:
    """``force`` under the Quest's ``terms``: the pending battle step's numbers and Panic range,
    the lasting Quest modifiers, and for the final battle +1 numbers, a Unique Individual and no
    Morale (pp.79-80)."""
    if not terms.lines:
        return force
    return _engine(
        lambda: fp_enemies.pressed_force(
            dice,
            tables,
            force,
            numbers=terms.numbers,
            panic=terms.panic,
            unique_individual=terms.unique_individual,
            no_morale=terms.no_morale,
            reasons=terms.lines,
        ),
        where="enemy.",
    )


def _connection_force(
    dice: Dice, tables: Mapping[str, RangeTable], force: fp_enemies.EnemyForce, facts: Mapping[str, Any]
) -> fp_enemies.EnemyForce:
    """``force`` with the Unique Individual a played Connection brings (``unique_individuals``,
    pp.83-86), rolled and logged as the Quest's is; unchanged otherwise."""
    found = connections.modifiers(facts.get(connections.FACT))
    if not found or not found["unique"]:
        return force
    fact = facts[connections.FACT]
    why = f"Connection {fact.get('entry')} ({fact.get('page')}): a Unique Individual joins."
    return _engine(lambda: fp_enemies.pressed_force(dice, tables, force, unique_individual=True, reasons=[why]), where="enemy.")


def _data_cache(campaign: Campaign | None, figures: Sequence[Mapping[str, Any]], terms: quests.BattleTerms) -> dict[str, Any]:
    """``{"data_cache": {"target", "bonus"}}`` for the Quest step "Cache in a bad place" (54-65,
    p.79): the round score to reach and the +1 a fielded Engineer adds to each roll; empty for
    any other battle."""
    if campaign is None or not terms.score_target:
        return {}
    refs = [int(f["ref"]) for f in figures if str(f.get("ref") or "").isdigit()]
    engineer = any(
        species.strip().lower() == ch.ENGINEER
        for species in campaign.characters.filter(pk__in=refs).values_list("species", flat=True)
    )
    return {"data_cache": {"target": terms.score_target, "bonus": terms.engineer_bonus if engineer else 0}}


#: The Psi-hunter adjustments (p.21) as the battle brief shows them.
PSI_HUNTER_REMINDER = Reminder(
    key="psi_hunters",
    title="Psi-hunters",
    text="Seize the Initiative against them at -2; one more Specialist is in their force; they add +1 to hit or Brawl a Psionic.",
    source="p.21",
)


def _battle_rival(campaign: Campaign | None, rival_id: int | None) -> Rival | None:
    """The campaign's Rival ``rival_id`` the battle is fought against, or None when not given.
    Raises :class:`DropshipError` naming ``rival_id`` for a standalone battle or an id that is not
    one of this campaign's Rivals."""
    if rival_id is None:
        return None
    if campaign is None:
        raise DropshipError("rival_id: only a campaign battle is fought against one of its Rivals.", field="rival_id")
    found = campaign.rivals.filter(pk=rival_id).first()
    if found is None:
        raise DropshipError(f"rival_id: no Rival {rival_id} in this campaign.", field="rival_id")
    return found


def _psionic_legality(campaign: Campaign | None) -> str:
    """The current world's Psionic legality for the tracker (p.20): ``outlawed``, ``unusual``,
    ``common``, or blank when there is no campaign or it was never rolled."""
    world = campaign_services.current_world(campaign) if campaign is not None else None
    status = world.psionic_legality if world is not None else ""
    return {"outlawed": "outlawed", "unusual": "unusual", "who_cares": "common"}.get(status, "")


def _campaign_weapons(tables: Mapping[str, RangeTable], sheet: ch.Character) -> tuple[list[dict[str, Any]], list[str]]:
    """The weapons a crew member fires (kit the Dramatic Weapons table names) and the names of
    those a Psionic may not use (no Pistol or Melee trait, p.18)."""
    weapons: list[dict[str, Any]] = []
    left_out: list[str] = []
    for item in sheet.equipment:
        made = _weapon(tables, item, "crew.weapons")
        if made is None:
            continue
        if sheet.psionic and not sheet.psionics_lost and not ch.weapon_allowed(sheet, made["traits"], tables):
            left_out.append(made["name"])
            continue
        weapons.append(made)
    return weapons, left_out


def _crew_for_mission(figures: list[dict[str, Any]], source: str) -> None:
    """What the mission changes on campaign crew figures: in a Rival mission a Krag rerolls a
    natural 1 on its firing or Brawl dice, once (Belligerent, p.12); the resolver does it."""
    for figure in figures:
        if figure.get("krag"):
            figure["reroll_natural_one"] = source == "rival"


def _crew_warnings(figures: Sequence[Mapping[str, Any]]) -> list[str]:
    """Set-up warnings about the crew: a Psionic's weapons left out of the battle (p.18)."""
    return [
        f"{f['name']} is a Psionic and may use only Pistol or Melee weapons (p.18): "
        f"{', '.join(f['left_out'])} stay{'s' if len(f['left_out']) == 1 else ''} out of this battle."
        for f in figures
        if f.get("left_out")
    ]


def crew_seize_modifier(crew: Sequence[Mapping[str, Any]]) -> int:
    """What the crew adds to Seize the Initiative: +1 when it fields a Bot with a Multi-wave
    scanner (p.26). The page makes it cumulative with a Motion Tracker only, so two scanners
    still give +1 (the best ``seize_modifier`` of the figures)."""
    return max((int(c.get("seize_modifier") or 0) for c in crew), default=0)


# -- enemy ------------------------------------------------------------------------------------


def _check_enemy_weapons(tables: Mapping[str, RangeTable], enemy: Mapping[str, Any]) -> None:
    """Refuse typed enemy weapons that do not parse, before anything is built: a typed profile's
    ``weapons`` must be a core code (1A-3C, "1 a" reads as 1A), "-" or a weapon the Dramatic
    Weapons table or ``weapon_profiles`` names; a typed profile's code needs the weapons rolled
    for it (``basic_weapon``, the core rulebook's weapon roll); ``basic_weapon`` and
    ``specialist_weapon`` must be weapons those name. Raises :class:`DropshipError` naming the
    field and the text, so that no battle is set up with unarmed enemies."""
    profiles = enemy.get("weapon_profiles") if isinstance(enemy.get("weapon_profiles"), Mapping) else None
    wanted = "a core weapon code (1A to 3C), a Dramatic Weapons name, - for none, or a weapon whose profile you add"
    typed = [] if _flag(enemy.get("elite"), "enemy.elite") else [("enemy.weapons", str(enemy.get("weapons") or "").strip())]
    for field, text in typed:
        code = _engine(partial(fp_enemies.weapon_code, text, field=field))
        if code is not None and not enemy.get("basic_weapon"):
            raise DropshipError(
                f"enemy.basic_weapon: weapons {code} are rolled on the core rulebook's enemy weapon tables; type the "
                "basic (and specialist) weapon you rolled.",
                field="enemy.basic_weapon",
            )
        if code is None and text not in ("", "-") and _weapon(tables, text, "enemy.weapon_profiles", profiles) is None:
            raise DropshipError(
                f"{field}: {text!r} is not a weapon the app knows; write {wanted} in weapon_profiles "
                "(Name | range | shots | damage | traits).",
                field=field,
            )
    for key in ("basic_weapon", "specialist_weapon"):
        text = str(enemy.get(key) or "").strip()
        if text and _weapon(tables, text, "enemy.weapon_profiles", profiles) is None:
            raise DropshipError(
                f"enemy.{key}: {text!r} is not a weapon the app knows; name a Dramatic Weapons weapon or add its "
                "profile in weapon_profiles (Name | range | shots | damage | traits).",
                field=f"enemy.{key}",
            )


def _enemy_force(
    dice: Dice,
    tables: Mapping[str, RangeTable],
    enemy: Mapping[str, Any],
    *,
    crew_size: int,
    options: CampaignOptions,
    campaign_turn: int,
    mission: str,
) -> fp_enemies.EnemyForce:
    """Elite (``{"elite": True, "category"}``) or a typed core profile (standard force)."""
    if not isinstance(enemy, Mapping) or not enemy:
        raise DropshipError(
            "enemy is required: {elite: true, category} or a typed profile (name, numbers, panic, speed, combat_skill, "
            "toughness, weapons, save).",
            field="enemy",
        )
    _check_enemy_weapons(tables, enemy)
    weapons = None
    if enemy.get("basic_weapon"):
        weapons = {
            "basic": str(enemy["basic_weapon"]),
            "specialist": str(enemy.get("specialist_weapon") or enemy["basic_weapon"]),
        }
    base = None if enemy.get("base_numbers") in (None, "") else _int(enemy.get("base_numbers"), "enemy.base_numbers", 0, 30)
    if _flag(enemy.get("elite"), "enemy.elite"):
        category = str(enemy.get("category") or "").strip() or None
        return _engine(
            lambda: fp_enemies.roll_elite_enemy(
                dice,
                tables,
                crew_size=crew_size,
                options=options,
                campaign_turn=campaign_turn,
                category=category,
                mission=mission,
                base_numbers=base,
                weapons=weapons,
            ),
            where="enemy.",
        )
    profile = _engine(
        lambda: fp_enemies.custom_enemy(
            str(enemy.get("name") or ""),
            category=str(enemy.get("category") or "Custom enemy"),
            numbers=_int(enemy.get("numbers"), "enemy.numbers", -5, 10, 0),
            panic=str(enemy.get("panic") if enemy.get("panic") not in (None, "") else ""),
            speed=_int(enemy.get("speed"), "enemy.speed", 1, 12),
            combat_skill=_int(enemy.get("combat_skill"), "enemy.combat_skill", -1, 5),
            toughness=_int(enemy.get("toughness"), "enemy.toughness", 1, 8),
            ai=str(enemy.get("ai") or ""),
            weapons=str(enemy.get("weapons") or ""),
            save=None if enemy.get("save") in (None, "", 0) else _int(enemy.get("save"), "enemy.save", 2, 6),
        ),
        where="enemy.",
    )
    return _engine(
        lambda: fp_enemies.core_enemy(
            dice,
            tables,
            profile,
            crew_size=crew_size,
            options=options,
            specialists=_int(enemy.get("specialists"), "enemy.specialists", 0, 10, 0),
            lieutenants=_int(enemy.get("lieutenants"), "enemy.lieutenants", 0, 3, 0),
            campaign_turn=campaign_turn,
            base_numbers=base,
            weapons=weapons,
        ),
        where="enemy.",
    )


def _options(raw: Mapping[str, Any] | None, campaign: Campaign | None) -> tuple[CampaignOptions, dict[str, Any]]:
    """The Compendium options and the battle's own flags; ``grid`` (Grid-based movement,
    pp.90-93) is a size from the grid-battle-space table, chosen per battle even in a campaign."""
    if raw is not None and not isinstance(raw, Mapping):
        raise DropshipError("options must be a mapping of option names to values.", field="options")
    given = dict(raw or {})
    flags: dict[str, Any] = {name: _flag(given.pop(name, False), f"options.{name}") for name in BATTLE_FLAGS}
    grid = given.pop("grid", None)
    flags["grid"] = _engine(lambda: fp_tracker.grid_option(fiveparsecs_tables(), grid))
    if campaign is not None:
        if given:
            first = sorted(given)[0]
            raise DropshipError(
                f"options.{first}: a campaign battle uses the campaign's options; only {', '.join(BATTLE_FLAGS)} and grid are set here.",
                field=f"options.{first}",
            )
        given = dict(campaign.options)
    with rule_errors(where="options."):
        return parse_options(given), flags


def _hit_numbers(tables: Mapping[str, RangeTable], options: CampaignOptions, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    if options.dramatic_combat:
        return _engine(lambda: fp_combat.hit_numbers(tables, dramatic=True).as_dict(), where="hit_numbers.")
    if not raw:
        raise DropshipError(
            "hit_numbers is required without Dramatic Combat: your core rulebook's D6 targets {open, cover}.",
            field="hit_numbers",
        )
    if not isinstance(raw, Mapping):
        raise DropshipError("hit_numbers must be {open, cover}.", field="hit_numbers")
    numbers = fp_combat.HitNumbers(
        open=_int(raw.get("open"), "hit_numbers.open", 1, 6),
        cover=_int(raw.get("cover"), "hit_numbers.cover", 1, 6),
        source=str(raw.get("source") or "core rulebook (typed)")[:60],
    )
    return numbers.as_dict()


#: The battle steps of a campaign turn whose core-rulebook table a campaign can map to a slot.
CORE_PARTS: tuple[tuple[str, str], ...] = (
    ("battle.deployment", "deployment_conditions"),
    ("battle.sights", "notable_sights"),
    ("battle.objective", "objectives"),
    ("battle.enemy", "enemy_encounters"),
)
#: Keys a row of the user's Core enemy encounter table may carry to build the force.
CORE_ENEMY_KEYS: tuple[str, ...] = ("numbers", "panic", "speed", "combat_skill", "toughness", "ai", "weapons", "save")


def _core_parts(
    dice: Dice,
    campaign: Campaign,
    turn_results: Mapping[str, Mapping[str, Any]],
    mapped: Mapping[str, Any],
    *,
    source: str,
    wanted: Sequence[str],
    category: str = "",
    roll: bool = True,
) -> dict[str, fp_setup.CoreRoll]:
    """The core-rulebook parts of a campaign battle (``wanted`` slot keys): what this turn's
    steps already came to (``turn_results``), else (``roll``) a roll on the table ``mapped`` to
    the slot; a part with neither is left out (the player rolls it in the book)."""
    parts: dict[str, fp_setup.CoreRoll] = {}
    for step_key, slot_key in CORE_PARTS:
        if slot_key not in wanted:
            continue
        got = turn_results.get(step_key)
        if got:
            parts[slot_key] = fp_setup.CoreRoll(
                part=slot_key,
                title=slot_spec(slot_key).title,
                result=str(got.get("result") or ""),
                effect=str(got.get("effect") or ""),
                data=dict(got.get("data") or {}),
                origin=f"campaign turn {campaign.turn} ({got.get('table') or 'your table'})",
            )
        elif roll and slot_key in mapped and mapped[slot_key].die:
            parts[slot_key] = _roll_core(dice, mapped[slot_key].to_engine(), slot_key, source, category)
    return parts


def _roll_core(dice: Dice, table: RangeTable, part: str, source: str, category: str) -> fp_setup.CoreRoll:
    columns = (category,) if category else ()
    return _engine(lambda: fp_setup.roll_core_table(dice, table, part=part, source=source, columns=columns))


def _core_enemy(enemy: Mapping[str, Any], part: fp_setup.CoreRoll | None) -> dict[str, Any]:
    """The typed-profile enemy mapping for ``{"core_table": true}``: the row of the campaign's
    Core enemy encounter table (its data keys :data:`CORE_ENEMY_KEYS`), with anything typed in
    ``enemy`` winning. Raises :class:`DropshipError` when there is no row or a stat is missing."""
    if part is None:
        raise DropshipError(
            "enemy.core_table: this campaign has no Core enemy encounter table mapped and its turn has not "
            "determined the enemy; map a table to that slot, or type the enemy's profile.",
            field="enemy.core_table",
        )
    typed = {k: v for k, v in enemy.items() if v not in (None, "") and k != "core_table"}
    made = {**{k: part.data[k] for k in CORE_ENEMY_KEYS if part.data.get(k) not in (None, "")}, **typed}
    made.setdefault("name", part.result)
    made.setdefault("category", part.column or "Core enemy")
    missing = [k for k in ("speed", "combat_skill", "toughness") if made.get(k) in (None, "")]
    if missing:
        raise DropshipError(
            f"enemy.{missing[0]}: {part.result!r} from {part.origin} has no {', '.join(missing)}; type "
            f"{'it' if len(missing) == 1 else 'them'} (or give the table's rows the data keys {', '.join(CORE_ENEMY_KEYS)}).",
            field=f"enemy.{missing[0]}",
        )
    made.setdefault("panic", "0")
    return made


@transaction.atomic
def battle_create(
    *,
    user: Any,
    campaign_id: int | None = None,
    title: str = "",
    theme: str | None = None,
    mission_source: str | None = None,
    patron: bool = False,
    expanded_missions: bool = False,
    deployment_variables: bool = False,
    ai_variations: bool = False,
    ai_type: str | None = None,
    enemy: Mapping[str, Any],
    crew: Sequence[Mapping[str, Any]] | None = None,
    hit_numbers: Mapping[str, int] | None = None,
    options: Mapping[str, Any] | None = None,
    objective: str | None = None,
    battle_type: str | None = None,
    campaign_turn: int | None = None,
    dice: Dice | None = None,
    follow_elite_roll: bool = True,
    rival_id: int | None = None,
) -> Battle:
    """Set a battle up: mission, deployment and terrain (``fp_setup.generate``), the enemy force
    (``enemy``: ``{"elite": true, "category"}`` rolls elite enemies, pp.48-65;
    ``{"core_table": true, "category"?, ...}`` takes a campaign's Core enemy encounter table or
    this turn's enemy, its rows' data keys :data:`CORE_ENEMY_KEYS` giving the profile and typed
    keys winning; a typed profile
    ``{"name", "category", "numbers", "panic", "speed", "combat_skill", "toughness", "weapons",
    "save", "specialists", "lieutenants"}`` builds a standard force from the core rulebook's
    numbers; both take ``base_numbers`` (the core numbers roll), ``basic_weapon``,
    ``specialist_weapon`` and ``weapon_profiles`` {name: {range, shots, damage, traits}}), the crew
    and the hit numbers.

    From a campaign (``campaign_id``; the user must be one of its editors): the crew is its
    active crew, the options are the campaign's (``options`` may only hold :data:`BATTLE_FLAGS`)
    and the turn is the campaign's; ``mission_source`` ``None`` takes the turn's battle type
    (else ``opportunity``), and the core-rulebook parts come from the turn or the campaign's
    table slots (module docstring). Once the turn's elite-level enemy roll is made (p.48), the
    enemy must follow it (``follow_elite_roll``; off only for a battle that is not the turn's
    encounter, such as Fight it out). Otherwise ``crew`` is required (figure mappings: name,
    reactions, speed (inches), combat_skill, toughness, savvy, save, weapons (Dramatic Weapons
    names or typed profiles), captain, bot, soulless, kerin) and ``options`` are Compendium
    options (``campaigns.engine.options``) plus battle flags.

    Hit numbers: Dramatic Combat's (p.87) when that option is on; else ``hit_numbers`` {open,
    cover} from the core rulebook is required.

    ``rival_id``: the campaign's Rival the battle is fought against (a Rival mission; with no
    ``mission_source`` and no battle type on the turn, the source becomes ``rival``); left out
    in a turn whose battle type step named a Rival, that Rival is fought. A
    Psi-hunter Rival (p.21) flags the force ``psi_hunters``, adds one Specialist to it after it
    is generated (:func:`fp_enemies.psi_hunters`) and puts the adjustments in the brief; the
    tracker then rolls Seize the Initiative at -2 and their figures add +1 to hit or Brawl a
    crew Psionic (no-minis play: the +1). Raises :class:`DropshipError` naming the field:
    ``rival_id`` for a standalone battle, a Rival not in this campaign or another mission source.
    """
    tables = fiveparsecs_tables()
    campaign = None
    if campaign_id is not None:
        campaign, _ = campaign_for(user, campaign_id, at_least=EDITOR, lock=True)
    chosen, flags = _options(options, campaign)
    if campaign is not None:
        figures = _campaign_crew(campaign, tables)
        if not figures:
            raise DropshipError("crew: the campaign has no active crew member to field.", field="crew")
        turn = max(campaign.turn, 1)
    else:
        if not crew:
            raise DropshipError("crew is required: the crew figures fielded (name, reactions, speed, ...).", field="crew")
        if not isinstance(crew, Sequence) or isinstance(crew, str):
            raise DropshipError("crew must be a list of crew figures.", field="crew")
        figures = [_crew_figure(tables, raw, i) for i, raw in enumerate(crew)]
        turn = _int(campaign_turn, "campaign_turn", 1, 999, 1)
    names = [f["name"] for f in figures]
    if len(set(names)) != len(names):
        raise DropshipError("crew: every crew figure needs a different name.", field="crew")
    if sum(1 for f in figures if f["captain"]) > 1:
        raise DropshipError("crew: only one crew figure can be the captain.", field="crew")
    numbers = _hit_numbers(tables, chosen, hit_numbers)
    dice = dice or Dice()
    if not isinstance(enemy, Mapping):
        raise DropshipError("enemy must be {elite: true, category}, {core_table: true} or a typed profile.", field="enemy")
    core_enemy = _flag(enemy.get("core_table"), "enemy.core_table")
    if core_enemy and campaign is None:
        raise DropshipError(
            "enemy.core_table: only a campaign battle has table slots; type the enemy's profile.", field="enemy.core_table"
        )
    # A campaign battle reads its turn: the battle type, and the core tables its steps rolled.
    playing = current_turn(campaign) if campaign is not None else None
    turn_results = turn_table_results(campaign) if campaign is not None else {}
    mapped = slot_tables(campaign) if campaign is not None else {}
    rival = _battle_rival(campaign, rival_id)
    turn_facts = (playing.facts or {}) if playing is not None else {}
    source = mission_source or str(turn_facts.get("mission") or "") or ("rival" if rival is not None else "opportunity")
    if source in ("pvp", "coop"):
        what = "a PvP battle against" if source == "pvp" else "an expanded co-op battle with"
        raise DropshipError(
            f"This turn's battle is {what} another player's crew: set it up on the PvP and co-op page (/battles/pvp/).",
            field="mission_source",
        )
    if rival is None and source == "rival" and turn_facts.get("rival") and campaign is not None:
        # The turn's battle type step named the Rival this mission fights.
        rival = campaign.rivals.filter(name__iexact=str(turn_facts["rival"])).first()
    if rival is not None and source != "rival":
        raise DropshipError(
            f"rival_id: a Rival is fought in a Rival mission; this battle's mission source is {source!r}.", field="rival_id"
        )
    if follow_elite_roll and playing is not None:
        _follow_elite_roll(playing.facts or {}, enemy)
    quest_terms = _quest_terms(tables, campaign, source, ai_type)
    if objective is None and quest_terms.objective:
        objective = quest_terms.objective
    ai_type = ai_type or quest_terms.ai or None
    parts: dict[str, fp_setup.CoreRoll] = {}
    if campaign is not None and objective is None:
        parts = _core_parts(dice, campaign, turn_results, mapped, source=source, wanted=("objectives",), roll=False)
        if "objectives" in parts:
            objective = parts["objectives"].result
    core_objectives = None
    if objective is None and "objectives" in mapped and mapped["objectives"].die:
        core_objectives = mapped["objectives"].to_engine()
    setup = _engine(
        lambda: fp_setup.generate(
            dice,
            tables,
            options=chosen,
            campaign_turn=turn,
            crew_size=len(figures),
            theme=theme or None,
            mission_source=source,
            patron=bool(patron),
            expanded_missions=bool(expanded_missions),
            deployment_variables=bool(deployment_variables),
            ai_variations=bool(ai_variations),
            ai_type=ai_type or None,
            objective=objective or None,
            core_objectives=core_objectives,
            battle_type=battle_type or None,
        )
    )
    # A special mission type (p.116) is set up by its own generator (battles.mission_types).
    # A campaign's crew size (4-6, its option) sets a Stealth force (p.122); standalone, the crew fielded.
    size = chosen.crew_size if campaign is not None else len(figures)
    special = _special_setup(dice, tables, setup, crew_size=size, ai_type=ai_type)
    if special is not None and campaign is not None and setup.mission.battle_type == street_kind.MISSION:
        special = street_kind.with_rivals(special, (f"{r.name} {r.kind}" for r in campaign.rivals.all()))
    if special is not None:
        enemy = _swap_category(enemy, special.get("enemy_swaps") or {})
        if setup.mission.battle_type == salvage_kind.MISSION and campaign is not None:  # its Rival trap names them (p.144)
            special["rivals"] = list(campaign.rivals.values_list("name", flat=True)[:20])
    if core_objectives is not None and setup.mission.objectives and not setup.mission.expanded:
        first = setup.mission.objectives[0]
        record = next((r for r in setup.mission.rolls if r.reason == fp_setup.CORE_OBJECTIVE_REASON), None)
        parts["objectives"] = fp_setup.CoreRoll(
            part="objectives",
            title=core_objectives.title,
            result=first.name,
            effect=first.effect,
            origin=core_objectives.title,
            roll=record,
        )
    if campaign is not None and setup.mission.battle_type == "conventional":
        wanted = ("deployment_conditions", "notable_sights")
        parts.update(_core_parts(dice, campaign, turn_results, mapped, source=setup.mission.source, wanted=wanted))
    if core_enemy:
        assert campaign is not None
        category = str(enemy.get("category") or "")
        parts.update(
            _core_parts(
                dice, campaign, turn_results, mapped, source=setup.mission.source, wanted=("enemy_encounters",), category=category
            )
        )
        enemy = _core_enemy(enemy, parts.get("enemy_encounters"))
    # This turn's Expanded Connection (pp.80-86): extra enemies, Specialists, a lower Panic range.
    enemy, connection_notes = (
        connections.adjust_enemy(enemy, playing.facts or {}) if playing is not None and follow_elite_roll else (dict(enemy), [])
    )
    _crew_for_mission(figures, setup.mission.source)
    force = _enemy_force(
        dice,
        tables,
        enemy,
        crew_size=len(figures),
        options=chosen,
        campaign_turn=turn,
        mission=setup.mission.source,
    )
    force = _quest_force(dice, tables, force, quest_terms)
    connection_terms: dict[str, Any] = {}
    if playing is not None and follow_elite_roll:
        force = _connection_force(dice, tables, force, playing.facts or {})
        connection_terms = connections.tracker_terms(playing.facts or {})
    # Enemy psionics (pp.22-23) when the options bring them; the card shows the powers.
    force = _engine(lambda: fp_enemies.enemy_psionics(dice, tables, force, options=chosen), where="enemy.")
    brief: list[dict[str, str]] = []
    if rival is not None and rival.psi_hunter:
        force = _engine(lambda: fp_enemies.psi_hunters(tables, force, options=chosen, campaign_turn=turn), where="enemy.")
        brief.append(PSI_HUNTER_REMINDER.as_dict())
    profiles = enemy.get("weapon_profiles") or {}
    if not isinstance(profiles, Mapping):
        raise DropshipError(
            "enemy.weapon_profiles must map weapon names to {range, shots, damage, traits}.", field="enemy.weapon_profiles"
        )
    enemy_weapons: dict[str, Any] = {}
    warnings: list[str] = []
    for figure in force.figures:
        for name in figure.weapons:
            if name in enemy_weapons or any(w == name for w in warnings):
                continue
            made = _weapon(tables, name, "enemy.weapon_profiles", profiles)
            if made is None:
                warnings.append(name)
            else:
                enemy_weapons[name] = made
    fought = special is None or special.get("enemy_fought", True) is not False  # a Salvage job's is not (p.138)
    objective_name = objective or (setup.mission.objectives[0].name if setup.mission.objectives else "")
    label = title.strip() or f"{force.type or force.category} ({setup.mission.battle_label})"
    card = setup.as_dict()
    card["brief"] = [*card["brief"], *brief]
    force_data = force.as_dict()
    if special is not None:
        card["card"] = [*card["card"], *special.get("card", [])]
        force_data = _reshape_force(force_data, special.get("enemy_counts"))
        named = (special.get("objective") or {}).get("name") if isinstance(special.get("objective"), Mapping) else None
        objective_name = str(named or objective_name)
    battle = Battle.objects.create(
        owner=user,
        campaign=campaign,
        turn_number=campaign.turn if campaign is not None and campaign.turn else None,
        title=label[:80],
        setup={
            "battle": card,
            "enemy": force_data,
            "crew": figures,
            "options": {**chosen.as_dict(), **flags},
            "hit_numbers": numbers,
            "seed": dice.seed,
            "campaign_turn": turn,
            "objective": objective_name,
            "enemy_weapons": enemy_weapons,
            "enemy_kind": str(enemy.get("kind") or "humanoid"),
            "connection": connection_notes,
            "warnings": [
                *connection_notes,
                *_crew_warnings(figures),
                *[f"No profile for the enemy weapon {w!r}: figures go without it." for w in warnings if fought],
            ],
            "core": [parts[k].as_dict() for _, k in CORE_PARTS if k in parts],
            "psionic_legality": _psionic_legality(campaign),
            **({"rival": {"id": rival.pk, "name": rival.name, "psi_hunter": rival.psi_hunter}} if rival is not None else {}),
            **_data_cache(campaign, figures, quest_terms),
            **({"connection_terms": connection_terms} if connection_terms else {}),
            **(
                {
                    "mission_type": {
                        "type": setup.mission.battle_type,
                        "kind": mission_types.kind_of(setup.mission.battle_type),
                        "setup": special,
                    }
                }
                if special is not None
                else {}
            ),
        },
    )
    if campaign is not None:
        rolled = [r for r in setup.rolls] + [r for r in force.rolls] + [p.roll for p in parts.values() if p.roll]
        rolled += [RollRecord.from_dict(r) for r in (special or {}).get("rolls", [])]  # the mission type's own
        campaign_services.log(
            campaign,
            "battle",
            f"Battle set up: {battle.title}. "
            + "; ".join(f"{p.title}: {p.result}" for p in parts.values())
            + (
                f" Against the Rival {rival.name}{' (Psi-hunters: one more Specialist, p.21)' if rival.psi_hunter else ''}."
                if rival
                else ""
            ),
            rolls=rolled,
        )
    return battle


def _special_setup(
    dice: Dice, tables: Mapping[str, RangeTable], setup: fp_setup.BattleSetup, *, crew_size: int, ai_type: str | None
) -> dict[str, Any] | None:
    """The mission type's own set-up (:mod:`battles.mission_types`) when Mission Selection or the
    player picked a special type (p.116); ``None`` for a conventional battle."""
    make = mission_types.generator(setup.mission.battle_type)
    if make is None:
        return None
    return dict(_engine(lambda: make(dice, tables, crew_size=crew_size, ai_type=setup.ai_type or ai_type or None)))


def _swap_category(enemy: Mapping[str, Any], swaps: Mapping[str, str]) -> Mapping[str, Any]:
    """The enemy with its category swapped as the mission type says (Stealth: Roving Threats are
    Hired Muscle, p.122)."""
    category = str(enemy.get("category") or "").strip().lower()
    for old, new in swaps.items():
        if category == old.lower():
            return {**enemy, "category": new}
    return enemy


def _reshape_force(force: dict[str, Any], counts: Mapping[str, int] | None) -> dict[str, Any]:
    """The force's figures remade to ``counts`` by rank (Stealth: crew size +1 with one Lieutenant
    and one Specialist, p.122), each new figure copying the force's first figure of that rank
    (else its first basic one). A Unique Individual stays."""
    if not counts or not force.get("figures"):
        return force
    figures = force["figures"]
    first = next((f for f in figures if f["rank"] == "basic"), figures[0])
    made: list[dict[str, Any]] = []
    for rank in ("lieutenant", "specialist", "basic"):
        like = next((f for f in figures if f["rank"] == rank), first)
        made += [{**like, "rank": rank} for _ in range(int(counts.get(rank) or 0))]
    made += [f for f in figures if f["rank"] == "unique"]
    return {**force, "figures": made}


@transaction.atomic
def battle_update_title(*, user: Any, battle_id: int, version: int | None, title: str) -> Battle:
    """Rename the battle. Raises :class:`DropshipError` for a blank title."""
    battle = _load(user, battle_id, version)
    if not title.strip():
        raise DropshipError("title is required.", field="title")
    battle.title = title.strip()[:80]
    _touch(battle)
    return battle


@transaction.atomic
def battle_delete(*, user: Any, battle_id: int, version: int | None) -> None:
    """Delete the battle, its odds jobs and its tracker room."""
    battle = _load(user, battle_id, version)
    room = battle.room
    battle.delete()
    if room is not None:
        room.delete()
