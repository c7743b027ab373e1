"""No-minis combat resolution (Compendium pp.66-73), assisted and automatic.

A battle fought without miniatures: no positions, only an abstract battle space with Locations.
Each battle round runs (p.66): 1. Battle flow events (optional, p.71), 2. Initiative, 3. Firefight,
then the end of the round (stun removal p.70, enemy Morale and crew Retreat p.72).

The engine is a reducer over a stored action log: :func:`apply` takes a JSON-ready ``dict`` state, an
action ``dict``, a seeded :class:`~rules.engine.dice.Dice` and the rule tables, and returns a new
state and a list of events; it never mutates its input. Replaying the stored ``(action, seed)``
pairs from the state :func:`new_battle` made gives the same final state.

Rules implemented (page cited at each step in the code)
-------------------------------------------------------
- Initiative (p.67): the crew roll one Reaction die fewer than normal and the player assigns them; the
  captain and every character whose die is at or below their Reactions take one Initiative Action.
- Initiative Actions (pp.67-68), with the 2D6 Battlefield Test numbers and modifiers read from the
  ``no-minis-initiative-actions`` table: Scout for Locations, Move Up, Carry Out Task, Charge, Optimal
  Shot, Support, Take Cover, Keep Distance. A character may claim one +1 for an ability or item that
  logically helps (p.67): ``"bonus": true`` on the action, or the figure's ``bonus_actions`` list.
- Locations (p.68): objectives and Notable Sights start suspected; one character per Location;
  enemies never use them. A Firing Position (battle flow event) shoots at targets as in the open.
- The Firefight (pp.69-70): 3 random enemies (4 when 7 or more remain), resolved in the player's
  order, each against a random crew figure; weapon-range order; melee-only and mixed engagements;
  Taking Cover; one shot per round; Area and Terrifying ignored; all Stun markers cleared at the end
  of the round; a Stunned figure cannot start a Brawl. Hectic and Faster Combat are options.
- Battle flow events (p.71), read from the ``no-minis-battle-flow-events`` D100 table.
- Morale and Retreat (p.72) and the notes for every core mission (pp.72-73).

Shooting and Brawls use :mod:`battles.engine.fp_combat`; hit numbers come in as a
:class:`~battles.engine.fp_combat.HitNumbers` (the Dramatic Combat numbers or the user's core ones).

Inputs taken from the core rulebook (which this project does not hold)
-----------------------------------------------------------------------
- The enemy Panic range (``enemy_panic``, e.g. ``"1-2"``; ``"0"`` or ``""`` for none). The core Morale
  test is applied as: at the end of a round in which enemies became casualties, one D6 per such
  casualty, and each die inside the Panic range removes one enemy (p.72 then picks who goes).
- The normal number of Reaction dice: one per crew figure in the battle, changed by
  ``NoMinisOptions.reaction_dice_modifier`` for anything in the core rules that adds or removes dice.
- Objective rolls (Carry Out Task, p.68): ``mission_setup["task"] = {"dice": "1D6", "stat": "savvy",
  "target": 6}``; without one, the task needs no roll.
- Patrol's number of objectives (``mission_setup["patrol_points"]``, required), the Move Through
  number of figures that must exit (``mission_setup["exits_needed"]``, default 1), the Protect VIP
  profile (``mission_setup["vip"]``, required) and escort, the Deliver carrier, the Eliminate target.

Rulings (where the pages leave it open)
---------------------------------------
- Ruling: the Battlefield Test is rolled first; a random enemy is picked for Charge and Optimal Shot
  only when it passes. The player then decides to Brawl (Charge) or picks the range (Optimal Shot).
- Ruling: "one die fewer" never goes below zero dice; the captain acts even with no die.
- Ruling: a figure's gun is its longest-ranged usable ranged weapon (ties: more Shots, then Damage);
  its Brawl weapon is its most damaging Melee weapon, else a Pistol, else none. A weapon with the
  Melee trait counts as a Melee weapon for the mixed-weapons rule; Pistol-trait weapons never do.
- Ruling: an Area weapon with no Shots fires 1 Shot (Area is ignored, p.70). A Single-use weapon
  leaves the figure's kit once fired. Spare hits after a target falls are lost (no positions).
- Ruling: "hit only on a natural 6" is resolved by asking the resolver for a 6+ with no Combat Skill
  and no to-hit modifiers (Pistol, Snap Shot, Shrapnel, Heavy); Critical still counts a natural 6.
- Ruling: Duck Back and Lunge (Dramatic Combat) have no meaning without positions and are not used.
- Ruling: the once-per-round fire limit (p.70) covers fire in the Initiative and Firefight phases
  (including the enemy's shot at a charging figure); battle flow event shots never count (p.71).
  Overheat counts every shot.
- Ruling: a weapon needs a range of at least 6" for the 6" shots of the melee-only rule and of
  Charge; under Kill zone every shot is at the Kill zone range instead, and Optimal Shot's chosen range
  is replaced by it.
- Ruling: Keep Distance limits both figures to weapons over 12" in every exchange that character is
  in this round, including its own Charge or Optimal Shot; enemies without such a weapon cannot pick
  it as a Firefight target.
- Ruling: the enemy who fired during Optimal Shot is left out of the Firefight draw; the enemy chosen
  for Careful maneuvering stays in the draw but does not attack (its wording says "cannot attack").
- Ruling: under Separated an out-ranged enemy carrying a Melee weapon shoots instead of Brawling, a
  gun-armed enemy still shoots at a melee-only crew figure (6" rule) and no Brawl follows.
- Ruling: a Stunned figure may still shoot; a Stunned brawl-seeker (melee-only figure, an enemy
  charging a figure Taking Cover, a Charging crew member) does not start its Brawl.
- Ruling: in the Faster Combat option the "first exchange" is the first engagement of the Firefight
  phase in which a shot is fired; Optimal Shot (Initiative phase) is not part of it.
- Ruling: in Hectic Combat a figure that already fired this round fires again when engaged, hitting
  only on natural 6s; the natural-6 limit applies to shots, not to Brawls.
- Ruling: Find shortcut moves without taking a Move Up action, so Taking Cover is kept.
- Ruling: Morale removes regulars first, then Specialists, then Lieutenants and other leaders, each
  picked at random within its rank; an Eliminate target goes only when it is the last enemy (p.73).
- Ruling: Acquire: reaching the item picks it up; the objective is met when its carrier retreats.
  Deliver: Carry Out Task at the delivery point by the carrier (captain unless named). A carrier
  who falls (or, in Deliver, leaves the field) drops the item, which becomes a known Location;
  reaching it picks it up again.
- Ruling: Move Through: Carry Out Task at the known exit takes the figure off the battlefield.
- Ruling: Patrol: a Location is checked when a crew figure reaches it; all checked meets the objective.
- Ruling: Protect: the VIP travels with its escort (captain unless named) and cannot be targeted; the
  objective is met when the escort, or the VIP acting alone, reaches the objective Location. If the
  escort falls, the VIP joins the crew as a regular figure; if the VIP falls, the objective fails.
- Ruling: Secure: a round counts when the same crew figure holds the centre at the end of the round
  without having been in a Brawl that round; 2 such rounds in a row meet the objective.
- Ruling: Search: Carry Out Task at a search site searches it. The site holding the item is drawn at
  random among the 5 at the first search; finding it meets the objective (the core rules may ask more).
- Ruling: Defend and Fight Off have no extra notes (p.72); we report the objective as met when the
  crew Hold the Field. Check it against your core rulebook's objective.
- Ruling: every crew casualty is listed in both ``crew_casualties`` and ``crew_injured``: the core
  post-battle injury roll decides what became of them. The battle ends when one side has no figure
  left on the field.

State (JSON-ready ``dict``)::

    {"version": 1, "mode": "assisted" | "automatic", "mission": "access", "options": {...},
     "numbers": {"open": 5, "cover": 6, "source": "..."}, "enemy_panic": "1-2",
     "round": 1, "phase": "flow" | "initiative" | "assign" | "actions" | "firefight" | "end" | "retreat" | "over",
     "crew": [{"name", "reactions", "speed", "combat_skill", "toughness", "savvy", "save", "weapons": [...],
               "captain", "bot", "kerin", "soulless", "special_movement", "bonus_actions": [...], "vip",
               "status": "active" | "attached" | "casualty" | "retreated" | "exited", "stun", "location",
               "taking_cover", "keep_distance", "supports": [names], "fired", "heat", "heat_last",
               "brawled", "die", "eligible", "acted"}],
     "enemies": [{"name", "combat_skill", "toughness", "speed", "save", "weapons", "rank", "target",
                  "status": "active" | "casualty" | "fled", "stun", "fired", "heat", "heat_last", "no_attack"}],
     "locations": [{"name", "kind", "known", "occupant", "checked"}],
     "objective": {...mission progress...}, "flags": {...this round...}, "initiative_dice": [d6, ...],
     "firefight": {"selected": [names], "resolved": [names]}, "pending": None | {"kind": ..., ...},
     "enemy_casualties_round": 0, "finished": False, "end_reason": ""}

Actions (``{"type": ...}``)
---------------------------
- ``roll_flow_event`` {value?: entered D100}; ``roll_initiative`` {faces?: [d6, ...]};
  ``assign_initiative`` {assignments: {name: face}}
- ``initiative_action`` {actor, action, location?, ally?, weapon?, bonus?, faces?: [d6, d6]}
- ``end_initiative``; ``engage`` {enemy}; ``end_round``; ``retreat`` {names: [...]}
- ``decide`` answers the pending question: fleeting_shot {target | None}, find_shortcut {location | None},
  careful_maneuvering {enemy}, covered_retreat {names}, charge {engage: bool}, optimal_shot
  {range: inches | None}, support {supporter | None}, respond {fire: bool, brawl: bool}
- ``auto``: let :func:`auto_action` choose this step.

Pure Python: no Django imports.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from battles.engine import fp_combat
from rules.engine.dice import ALLOWED_SIDES, Dice, DiceError, RollRecord, parse
from rules.engine.errors import RuleError
from rules.engine.tables import RangeTable, TableError

State = dict[str, Any]
Event = dict[str, Any]
Tables = Mapping[str, RangeTable]

ACTIONS_TABLE = "no-minis-initiative-actions"
FIREFIGHT_TABLE = "no-minis-firefight"
FLOW_TABLE = "no-minis-battle-flow-events"
END_TABLE = "no-minis-end-of-round"
NOTES_TABLE = "no-minis-mission-notes"

SCOUT = "Scout for Locations"
MOVE_UP = "Move Up"
TASK = "Carry Out Task"
CHARGE = "Charge"
OPTIMAL_SHOT = "Optimal Shot"
SUPPORT = "Support"
TAKE_COVER = "Take Cover"
KEEP_DISTANCE = "Keep Distance"
ACTIONS: tuple[str, ...] = (SCOUT, MOVE_UP, TASK, CHARGE, OPTIMAL_SHOT, SUPPORT, TAKE_COVER, KEEP_DISTANCE)

MISSIONS: dict[str, str] = {
    "access": "Access",
    "acquire": "Acquire",
    "defend": "Defend",
    "deliver": "Deliver",
    "eliminate": "Eliminate",
    "fight_off": "Fight Off",
    "move_through": "Move Through",
    "patrol": "Patrol",
    "protect": "Protect",
    "secure": "Secure",
    "search": "Search",
}
MODES: tuple[str, ...] = ("assisted", "automatic")
RANKS: tuple[str, ...] = ("regular", "specialist", "lieutenant")

SEARCH_SITES = 5
"""p.73: Search has 5 suspected Locations (also ``suspected_locations`` in the mission-notes table;
:func:`new_battle` has no tables, so it keeps this copy)."""

KEEP_DISTANCE_IN = 12
"""p.68: Keep Distance leaves the figure open only to weapons over this range (inches); the same
number is ``min_enemy_range_in`` in the initiative-actions table, kept here because the Firefight
helpers run without tables."""

NATURAL_SIX = fp_combat.HitNumbers(open=6, cover=6, source="p.70 natural 6 only")
_HIT_TRAITS = frozenset({"pistol", "snap_shot", "shrapnel", "heavy"})
_IGNORED_TRAITS = frozenset({"area", "terrifying"})  # p.70


class NoMinisError(RuleError):
    """An action or set-up the no-minis rules refuse; ``field`` names the bad key."""


@dataclass(frozen=True)
class NoMinisOptions:
    """Options for a no-minis battle.

    - ``hectic`` (p.70): figures shoot every time they are engaged; later shots in the round hit only
      on natural 6s.
    - ``faster`` (p.70): the first exchange of fire of each Firefight phase is in the open.
    - ``dramatic`` (p.87): Dramatic Combat is in use (recorded for screens: its hit numbers come in
      through ``numbers``; Duck Back and Lunge need positions and are not used, ruling).
    - ``battle_flow`` (p.71): roll a Battle flow event at the start of each round.
    - ``reaction_dice_modifier``: dice added to (or taken from) the core rulebook's normal Reaction
      roll before the no-minis "one die fewer" (p.67).
    """

    hectic: bool = False
    faster: bool = False
    dramatic: bool = False
    battle_flow: bool = False
    reaction_dice_modifier: int = 0

    @classmethod
    def from_campaign(cls, campaign: Any, **overrides: Any) -> NoMinisOptions:
        """Options from a :class:`campaigns.engine.options.CampaignOptions` (its ``dramatic_combat``)
        plus ``overrides``."""
        values: dict[str, Any] = {"dramatic": bool(getattr(campaign, "dramatic_combat", False))}
        values.update(overrides)
        return cls(**values)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoMinisOptions:
        known = {k: data[k] for k in ("hectic", "faster", "dramatic", "battle_flow", "reaction_dice_modifier") if k in data}
        return cls(**known)


# -- set-up -----------------------------------------------------------------------------------------


def _int(raw: Mapping[str, Any], key: str, where: str, *, default: int | None = None, low: int = -10, high: int = 99) -> int:
    value = raw.get(key, default)
    if value is None:
        raise NoMinisError(f"{where}: {key} is required (a whole number from {low} to {high}).", field=key)
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise NoMinisError(f"{where}: {key} must be a whole number from {low} to {high}; got {value!r}.", field=key) from None
    if not low <= number <= high:
        raise NoMinisError(f"{where}: {key} must be from {low} to {high}; got {number}.", field=key)
    return number


def _trait_key(trait: str) -> str:
    return str(trait).strip().lower().replace("-", "_").replace(" ", "_")


def weapon_dict(weapon: fp_combat.Weapon | Mapping[str, Any], where: str = "weapon") -> dict[str, Any]:
    """A weapon as stored in the state: ``{"name", "range" (inches, 0 = Brawl only), "shots",
    "damage", "traits": [keys]}``. Area and Terrifying are dropped (p.70); an Area weapon with no
    Shots gets 1 (ruling). Raises :class:`NoMinisError` for a bad field."""
    if isinstance(weapon, fp_combat.Weapon):
        raw: Mapping[str, Any] = {
            "name": weapon.name,
            "range": weapon.range,
            "shots": weapon.shots,
            "damage": weapon.damage,
            "traits": sorted(weapon.traits),
            "no_damage": weapon.no_damage,
        }
    elif isinstance(weapon, Mapping):
        raw = weapon
    else:
        raise NoMinisError(f"{where} must be a mapping with name, range, shots, damage and traits.", field="weapons")
    name = str(raw.get("name") or "").strip()
    if not name:
        raise NoMinisError(f"{where}: name is required.", field="weapons")
    traits = [_trait_key(t) for t in raw.get("traits") or []]
    area = "area" in traits
    traits = sorted({t for t in traits if t not in _IGNORED_TRAITS})
    rng = _int(raw, "range", f"{where} {name}", default=0, low=0, high=120)
    shots = _int(raw, "shots", f"{where} {name}", default=0 if rng == 0 else 1, low=0, high=10)
    if rng > 0 and shots == 0 and area:
        shots = 1
    damage = _int(raw, "damage", f"{where} {name}", default=0, low=0, high=10)
    stored: dict[str, Any] = {"name": name, "range": rng, "shots": shots, "damage": damage, "traits": traits}
    if raw.get("no_damage"):
        stored["no_damage"] = True
    return stored


def _figure(raw: Mapping[str, Any], side: str, index: int) -> dict[str, Any]:
    name = str(raw.get("name") or "").strip()
    where = f"{side}[{index}]"
    if not name:
        raise NoMinisError(f"{where}: name is required.", field="name")
    where = f"{side} {name}"
    save_raw = raw.get("save")
    save = None if save_raw in (None, "", 0) else _int(raw, "save", where, low=2, high=6)
    weapons = [weapon_dict(w, f"{where} weapon") for w in raw.get("weapons") or []]
    figure: dict[str, Any] = {
        "name": name,
        "reactions": _int(raw, "reactions", where, default=1, low=0, high=6),
        "speed": _int(raw, "speed", where, default=4, low=0, high=12),
        "combat_skill": _int(raw, "combat_skill", where, default=0, low=-3, high=5),
        "toughness": _int(raw, "toughness", where, default=3, low=1, high=10),
        "savvy": _int(raw, "savvy", where, default=0, low=-3, high=5),
        "save": save,
        "weapons": weapons,
        "bot": bool(raw.get("bot", False)),
        "kerin": bool(raw.get("kerin", False)),
        "status": "active",
        "stun": 0,
        "fired": False,
        "heat": False,
        "heat_last": False,
    }
    return figure


def _crew_figure(raw: Mapping[str, Any], index: int) -> dict[str, Any]:
    figure = _figure(raw, "crew", index)
    bonus = [str(a) for a in raw.get("bonus_actions") or []]
    for action in bonus:
        if action not in ACTIONS:
            raise NoMinisError(
                f"crew {figure['name']}: bonus action {action!r} is not one of {', '.join(ACTIONS)}.", field="bonus_actions"
            )
    figure.update(
        {
            "captain": bool(raw.get("captain", False)),
            "soulless": bool(raw.get("soulless", False)),
            "special_movement": bool(raw.get("special_movement", False)),
            "bonus_actions": bonus,
            "vip": False,
            "location": None,
            "taking_cover": False,
            "keep_distance": False,
            "supports": [],
            "brawled": False,
            "die": None,
            "eligible": False,
            "acted": False,
        }
    )
    return figure


def _enemy_figure(raw: Mapping[str, Any], index: int) -> dict[str, Any]:
    figure = _figure(raw, "enemies", index)
    rank = str(raw.get("rank") or "").lower()
    if not rank:
        rank = "lieutenant" if raw.get("lieutenant") else "specialist" if raw.get("specialist") else "regular"
    if rank not in RANKS:
        raise NoMinisError(f"enemies {figure['name']}: rank must be one of {', '.join(RANKS)}; got {rank!r}.", field="rank")
    figure.update({"rank": rank, "target": bool(raw.get("target", False)), "no_attack": False, "optimal_fired": False})
    return figure


def _location(name: str, kind: str, *, known: bool = False) -> dict[str, Any]:
    return {"name": name, "kind": kind, "known": known, "occupant": None, "checked": False}


def _task_spec(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise NoMinisError("mission_setup task must be {dice, stat, target}.", field="task")
    dice = str(raw.get("dice") or "1D6")
    try:
        parse(dice)
    except DiceError as exc:
        raise NoMinisError(f"mission_setup task dice: {exc}", field="task") from exc
    stat = raw.get("stat")
    if stat not in (None, "", "savvy", "combat_skill", "reactions", "speed", "toughness"):
        raise NoMinisError(
            "mission_setup task stat must be savvy, combat_skill, reactions, speed, toughness or empty.", field="task"
        )
    return {"dice": dice, "stat": stat or None, "target": _int(raw, "target", "mission_setup task", low=1, high=30)}


def new_battle(
    *,
    crew: Sequence[Mapping[str, Any]],
    enemies: Sequence[Mapping[str, Any]],
    mission: str,
    numbers: fp_combat.HitNumbers,
    options: NoMinisOptions,
    enemy_panic: str = "1-2",
    mode: str = "assisted",
    mission_setup: Mapping[str, Any] | None = None,
) -> State:
    """A new no-minis battle, ready for round 1 (JSON-ready state; see the module docstring).

    ``crew``/``enemies``: figure mappings (name, reactions, speed in inches, combat_skill, toughness,
    savvy, save (D6 target or None), weapons (see :func:`weapon_dict`), bot, kerin; crew also captain,
    soulless, special_movement (e.g. a Jump Belt), bonus_actions (actions the figure's gear logically
    helps, p.67); enemies also rank ``regular``/``specialist``/``lieutenant`` (or the ``specialist`` /
    ``lieutenant`` flags) and ``target`` (the Eliminate target)). ``mission``: a key of
    :data:`MISSIONS` or its name. ``enemy_panic``: the core Panic range, ``"1-2"``, ``"1"`` or ``"0"``.
    ``mission_setup``: the core inputs named in the module docstring and ``notable_sights`` (names or
    a count; each is a suspected Location, p.68).

    Raises :class:`NoMinisError` naming the bad field.
    """
    setup = dict(mission_setup or {})
    key = str(mission).strip().lower().replace(" ", "_")
    by_name = {v.lower().replace(" ", "_"): k for k, v in MISSIONS.items()}
    key = by_name.get(key, key)
    if key not in MISSIONS:
        raise NoMinisError(f"mission must be one of {', '.join(MISSIONS.values())}; got {mission!r}.", field="mission")
    if mode not in MODES:
        raise NoMinisError(f"mode must be one of {', '.join(MODES)}; got {mode!r}.", field="mode")
    if not isinstance(numbers, fp_combat.HitNumbers):
        raise NoMinisError("numbers must be a fp_combat.HitNumbers.", field="numbers")
    _panic_faces(enemy_panic)
    crew_figs = [_crew_figure(c, i) for i, c in enumerate(crew)]
    enemy_figs = [_enemy_figure(e, i) for i, e in enumerate(enemies)]
    if not crew_figs:
        raise NoMinisError("crew must have at least one figure.", field="crew")
    if not enemy_figs:
        raise NoMinisError("enemies must have at least one figure.", field="enemies")
    names = [f["name"] for f in crew_figs + enemy_figs]
    if len(set(names)) != len(names):
        raise NoMinisError("every figure needs a different name (crew and enemies together).", field="name")
    captains = [f for f in crew_figs if f["captain"]]
    if len(captains) > 1:
        raise NoMinisError("only one crew figure can be the captain.", field="captain")

    locations: list[dict[str, Any]] = []
    objective: dict[str, Any] = {
        "mission": key,
        "achieved": False,
        "failed": False,
        "detail": "",
        "task": _task_spec(setup.get("task")),
    }
    lead = captains[0]["name"] if captains else crew_figs[0]["name"]

    def crew_name(field: str, default: str) -> str:
        value = str(setup.get(field) or default)
        if value not in {f["name"] for f in crew_figs}:
            raise NoMinisError(f"mission_setup {field} must name a crew figure; got {value!r}.", field=field)
        return value

    if key == "access":
        locations.append(_location("Console", "console"))
    elif key == "acquire":
        locations.append(_location("Item", "item"))
        objective["carrier"] = None
    elif key == "deliver":
        locations.append(_location("Delivery point", "delivery"))
        objective["carrier"] = crew_name("carrier", lead)
    elif key == "eliminate":
        flagged = [e["name"] for e in enemy_figs if e["target"]]
        chosen = str(setup.get("target") or (flagged[0] if flagged else ""))
        if not chosen:
            for rank in ("lieutenant", "specialist", "regular"):
                ranked = [e["name"] for e in enemy_figs if e["rank"] == rank]
                if ranked:
                    chosen = ranked[0]
                    break
        if chosen not in {e["name"] for e in enemy_figs}:
            raise NoMinisError(f"mission_setup target must name an enemy; got {chosen!r}.", field="target")
        for e in enemy_figs:
            e["target"] = e["name"] == chosen
        objective["target"] = chosen
    elif key == "move_through":
        locations.append(_location("Exit", "exit"))
        objective["exited"] = []
        objective["needed"] = _int(setup, "exits_needed", "mission_setup", default=1, low=1, high=len(crew_figs))
    elif key == "patrol":
        count = _int(setup, "patrol_points", "mission_setup (the core rulebook's Patrol objectives)", low=1, high=10)
        locations.extend(_location(f"Patrol point {i}", "patrol") for i in range(1, count + 1))
    elif key == "protect":
        vip_raw = setup.get("vip")
        if not isinstance(vip_raw, Mapping):
            raise NoMinisError("mission_setup vip is required for Protect: the VIP's profile as a figure mapping.", field="vip")
        vip = _crew_figure(vip_raw, len(crew_figs))
        if vip["name"] in names:
            raise NoMinisError("the VIP needs a name no other figure has.", field="vip")
        vip.update({"vip": True, "status": "attached", "captain": False})
        objective["escort"] = crew_name("escort", lead)
        objective["vip"] = vip["name"]
        crew_figs.append(vip)
        locations.append(_location("Objective", "objective"))
    elif key == "secure":
        locations.append(_location("Centre", "centre"))
        objective.update({"holder": None, "rounds": 0})
    elif key == "search":
        locations.extend(_location(f"Search site {i}", "search") for i in range(1, SEARCH_SITES + 1))
        objective["item_site"] = None
    sights = setup.get("notable_sights") or ()
    if isinstance(sights, int):
        sights = [f"Notable Sight {i}" for i in range(1, sights + 1)]
    for sight in sights:
        locations.append(_location(str(sight), "sight"))

    return {
        "version": 1,
        "mode": mode,
        "mission": key,
        "options": asdict(options),
        "numbers": {"open": numbers.open, "cover": numbers.cover, "source": numbers.source},
        "enemy_panic": str(enemy_panic),
        "round": 1,
        "phase": "flow" if options.battle_flow else "initiative",
        "crew": crew_figs,
        "enemies": enemy_figs,
        "locations": locations,
        "objective": objective,
        "flags": _fresh_flags(),
        "initiative_dice": [],
        "firefight": {"selected": [], "resolved": []},
        "pending": None,
        "enemy_casualties_round": 0,
        "enemies_killed": 0,
        "finished": False,
        "end_reason": "",
        "flow_event": None,
    }


def _fresh_flags() -> dict[str, Any]:
    return {
        "kill_zone": None,
        "open_ground": False,
        "separated": False,
        "firefight_delta": 0,
        "exchanges": 0,
    }


# -- small helpers --------------------------------------------------------------------------------


def _table(tables: Tables, slug: str) -> RangeTable:
    table = tables.get(slug)
    if table is None:
        raise NoMinisError(f"the {slug!r} table is needed; pass the fiveparsecs tables.", field="tables")
    return table


def _entry_data(tables: Tables, slug: str, result: str) -> Mapping[str, Any]:
    for entry in _table(tables, slug).entries:
        if entry.result == result:
            return entry.data
    raise NoMinisError(f"table {slug!r} has no row {result!r}.", field="tables")


def _copy_state(state: Mapping[str, Any]) -> State:
    """A deep copy of a JSON-ready state (dicts, lists and scalars; anything else through
    ``copy.deepcopy``), several times faster than ``copy.deepcopy`` on the whole."""
    return {key: _copy_value(value) for key, value in state.items()}


def _copy_value(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copy_value(item) for key, item in value.items()}
    if kind is list:
        return [_copy_value(item) for item in value]
    if kind in (str, int, bool, float) or value is None:
        return value
    return copy.deepcopy(value)


def _opts(st: Mapping[str, Any]) -> NoMinisOptions:
    options = st["options"]
    return _options(tuple(options.get(k, d) for k, d in _OPTION_DEFAULTS))


_OPTION_DEFAULTS: tuple[tuple[str, Any], ...] = tuple((k, v) for k, v in asdict(NoMinisOptions()).items())


@lru_cache(maxsize=64)
def _options(values: tuple[Any, ...]) -> NoMinisOptions:
    # Read on every step of every battle; a battle has one set of options.
    return NoMinisOptions(**{k: v for (k, _), v in zip(_OPTION_DEFAULTS, values, strict=True)})


def _numbers(st: Mapping[str, Any]) -> fp_combat.HitNumbers:
    n = st["numbers"]
    return fp_combat.HitNumbers(open=int(n["open"]), cover=int(n["cover"]), source=str(n["source"]))


def _crew(st: Mapping[str, Any], name: Any, field: str = "actor") -> dict[str, Any]:
    for figure in st["crew"]:
        if figure["name"] == name:
            return figure  # type: ignore[no-any-return]
    raise NoMinisError(f"{field} must name a crew figure; got {name!r}.", field=field)


def _enemy(st: Mapping[str, Any], name: Any, field: str = "enemy") -> dict[str, Any]:
    for figure in st["enemies"]:
        if figure["name"] == name:
            return figure  # type: ignore[no-any-return]
    raise NoMinisError(f"{field} must name an enemy figure; got {name!r}.", field=field)


def _active_crew(st: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [c for c in st["crew"] if c["status"] == "active"]


def _active_enemies(st: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [e for e in st["enemies"] if e["status"] == "active"]


def _location_of(st: Mapping[str, Any], name: Any, field: str = "location") -> dict[str, Any]:
    for loc in st["locations"]:
        if loc["name"] == name:
            return loc  # type: ignore[no-any-return]
    raise NoMinisError(f"{field} must name a Location; got {name!r}.", field=field)


def _event(kind: str, text: str, rolls: Sequence[RollRecord] = (), **data: Any) -> Event:
    event: Event = {"kind": kind, "text": text, "rolls": [r.as_dict() for r in rolls]}
    event.update(data)
    return event


def _pick(dice: Dice, items: Sequence[Any], reason: str) -> tuple[Any, list[RollRecord]]:
    """One item at random, by a die as at the table: a die whose faces split evenly over the items
    when there is one, else the smallest die that covers them, rerolling faces past the last item."""
    count = len(items)
    if count == 0:
        raise NoMinisError(f"nothing to pick for {reason}.", field="state")
    if count == 1:
        return items[0], []
    even = [s for s in ALLOWED_SIDES if s % count == 0 and s >= count]
    records: list[RollRecord] = []
    if even:
        sides = even[0]
        record = dice.roll(f"D{sides}", reason)
        records.append(record)
        return items[(record.faces[0] - 1) // (sides // count)], records
    sides = next(s for s in ALLOWED_SIDES if s >= count)
    while True:
        record = dice.roll(f"D{sides}", reason)
        records.append(record)
        if record.faces[0] <= count:
            return items[record.faces[0] - 1], records


def _panic_faces(panic: str) -> set[int]:
    text = str(panic).strip()
    if text in ("", "0", "-", "none"):
        return set()
    match = re.fullmatch(r"(\d)(?:\s*-\s*(\d))?", text)
    if not match:
        raise NoMinisError(
            f"enemy_panic must be a D6 range such as '1-2', '1' or '0' for none; got {panic!r}.", field="enemy_panic"
        )
    low = int(match[1])
    high = int(match[2] or low)
    if not 1 <= low <= high <= 6:
        raise NoMinisError(f"enemy_panic must lie within 1-6; got {panic!r}.", field="enemy_panic")
    return set(range(low, high + 1))


# -- weapons ---------------------------------------------------------------------------------------


def _w(weapon: Mapping[str, Any], *, strip: frozenset[str] = frozenset()) -> fp_combat.Weapon:
    return _weapon(
        weapon["name"], weapon["range"], weapon["shots"], weapon["damage"], tuple(weapon["traits"]),
        weapon.get("no_damage", False), strip,
    )  # fmt: skip


@lru_cache(maxsize=512)
def _weapon(
    name: Any, range_: Any, shots: Any, damage: Any, traits: tuple[str, ...], no_damage: Any, strip: frozenset[str]
) -> fp_combat.Weapon:
    # Every shot and brawl needs its weapon's numbers; each weapon of a battle is built once.
    return fp_combat.Weapon(
        name=str(name),
        range=int(range_),
        shots=int(shots),
        damage=int(damage),
        traits=frozenset(t for t in traits if t in fp_combat.TRAITS and t not in strip),
        no_damage=bool(no_damage),
    )


def _guns(
    figure: Mapping[str, Any], *, over: int | None = None, reach: int | None = None, no_heavy: bool = False
) -> list[dict[str, Any]]:
    """Ranged weapons usable under the limits: range over ``over``, at least ``reach``, no Heavy;
    longest range first."""
    return sorted(_usable(figure, over=over, reach=reach, no_heavy=no_heavy), key=_gun_rank, reverse=True)


def _usable(
    figure: Mapping[str, Any], *, over: int | None = None, reach: int | None = None, no_heavy: bool = False
) -> list[dict[str, Any]]:
    guns = []
    for weapon in figure["weapons"]:
        if weapon["range"] <= 0 or weapon["shots"] <= 0:
            continue
        if over is not None and weapon["range"] <= over:
            continue
        if reach is not None and weapon["range"] < reach:
            continue
        if no_heavy and "heavy" in weapon["traits"]:
            continue
        guns.append(weapon)
    return guns


def _best_gun(figure: Mapping[str, Any], **limits: Any) -> dict[str, Any] | None:
    guns = _usable(figure, **limits)
    # The first of the longest-ranged: what _guns would list first (its sort is stable).
    return max(guns, key=_gun_rank) if guns else None


def _gun_rank(weapon: Mapping[str, Any]) -> tuple[int, int, int]:
    return weapon["range"], weapon["shots"], weapon["damage"]


def _gun_named(figure: Mapping[str, Any], name: Any) -> dict[str, Any]:
    for weapon in _guns(figure):
        if weapon["name"] == name:
            return weapon
    raise NoMinisError(f"weapon must name a ranged weapon {figure['name']} carries; got {name!r}.", field="weapon")


def _melee_weapon(figure: Mapping[str, Any]) -> dict[str, Any] | None:
    melee = [w for w in figure["weapons"] if "melee" in w["traits"] and "pistol" not in w["traits"]]
    return max(melee, key=lambda w: w["damage"]) if melee else None


def _brawl_weapon(figure: Mapping[str, Any]) -> dict[str, Any] | None:
    melee = _melee_weapon(figure)
    if melee is not None:
        return melee
    pistols = [w for w in figure["weapons"] if "pistol" in w["traits"]]
    return max(pistols, key=lambda w: w["damage"]) if pistols else None


def _melee_only(figure: Mapping[str, Any]) -> bool:
    return not any(w["range"] > 0 and w["shots"] > 0 for w in figure["weapons"])


def _fighter(figure: Mapping[str, Any], *, natural_six: bool = False) -> fp_combat.Fighter:
    return fp_combat.Fighter(
        name=str(figure["name"]),
        combat_skill=0 if natural_six else int(figure["combat_skill"]),
        toughness=int(figure["toughness"]),
        speed=int(figure["speed"]),
        reactions=int(figure["reactions"]),
        savvy=int(figure["savvy"]),
        save=figure["save"],
        bot=bool(figure["bot"]),
        kerin=bool(figure["kerin"]),
        stun_markers=int(figure["stun"]),
    )


# -- figures leaving -------------------------------------------------------------------------------


def _free_location(st: State, figure: Mapping[str, Any]) -> None:
    for loc in st["locations"]:
        if loc["occupant"] == figure["name"]:
            loc["occupant"] = None


def _remove_crew(st: State, figure: dict[str, Any], status: str, events: list[Event]) -> None:
    figure["status"] = status
    figure["stun"] = 0
    _free_location(st, figure)
    figure["location"] = None
    for other in st["crew"]:
        if figure["name"] in other["supports"]:
            other["supports"].remove(figure["name"])
    figure["supports"] = []
    objective = st["objective"]
    mission = st["mission"]
    if mission in ("acquire", "deliver") and objective.get("carrier") == figure["name"] and not objective["achieved"]:
        if status == "casualty" or mission == "deliver":
            objective["carrier"] = None
            st["locations"].append(_location("Dropped item", "dropped", known=True))
            events.append(_event("objective", f"{figure['name']} drops the item: it becomes a known Location (pp.72-73)."))
        elif status == "retreated" and mission == "acquire":
            objective["achieved"] = True
            objective["detail"] = f"{figure['name']} got the item off the battlefield."
            events.append(_event("objective", f"{figure['name']} leaves with the item: Acquire achieved (p.72)."))
    if mission == "protect":
        vip = _crew(st, objective["vip"], "vip")
        if figure["name"] == objective["escort"] and vip["status"] == "attached":
            if status == "casualty":
                vip["status"] = "active"
                events.append(_event("objective", f"{figure['name']} falls: the VIP {vip['name']} now acts alone (p.73)."))
            else:
                vip["status"] = status
                events.append(_event("objective", f"The VIP {vip['name']} leaves the battle with {figure['name']}."))
        if figure["name"] == vip["name"] and status == "casualty" and not objective["achieved"]:
            objective["failed"] = True
            objective["detail"] = "The VIP became a casualty."
    if mission == "move_through" and status == "exited":
        objective["exited"].append(figure["name"])
        if len(objective["exited"]) >= objective["needed"]:
            objective["achieved"] = True
            objective["detail"] = f"{', '.join(objective['exited'])} moved through."


def _casualty(st: State, figure: dict[str, Any], events: list[Event]) -> None:
    if figure in st["enemies"]:
        figure["status"] = "casualty"
        figure["stun"] = 0
        st["enemy_casualties_round"] += 1
        st["enemies_killed"] += 1
        if st["mission"] == "eliminate" and figure["target"]:
            st["objective"]["achieved"] = True
            st["objective"]["detail"] = f"{figure['name']} was taken out."
        events.append(_event("casualty", f"{figure['name']} is a casualty."))
    else:
        _remove_crew(st, figure, "casualty", events)
        events.append(_event("casualty", f"{figure['name']} is a casualty."))


# -- shooting and brawling ------------------------------------------------------------------------


def _shoot(
    st: State,
    dice: Dice,
    shooter: dict[str, Any],
    target: dict[str, Any],
    weapon: Mapping[str, Any],
    *,
    range_in: int,
    cover: bool,
    moved: bool,
    natural_six: bool,
    why: str,
    events: list[Event],
    tables: Tables,
    apply_result: bool = True,
) -> fp_combat.ShotResult:
    """One shooting attack through the combat resolver. ``natural_six`` asks for a natural 6 to hit."""
    result = fp_combat.resolve_shot(
        dice,
        shooter=_fighter(shooter, natural_six=natural_six),
        target=_fighter(target),
        weapon=_w(weapon, strip=_HIT_TRAITS if natural_six else frozenset()),
        numbers=NATURAL_SIX if natural_six else _numbers(st),
        range_in=range_in,
        cover=cover,
        moved=False if natural_six else moved,
        fired_last_round=bool(shooter["heat_last"]),
        dramatic=False,
        tables=tables,
    )
    shooter["heat"] = True
    if result.single_use and weapon in shooter["weapons"]:
        shooter["weapons"].remove(weapon)
    where = "in Cover" if cover else "in the open"
    six = ", natural 6s only" if natural_six else ""
    text = (
        f'{shooter["name"]} fires {weapon["name"]} at {target["name"]} ({range_in}", {where}{six}): {why}. {result.hits} hit(s).'
    )
    events.append(_event("shot", text, result.rolls, lines=list(result.lines)))
    if apply_result:
        _apply_shot(st, target, result, events)
    return result


def _apply_shot(st: State, target: dict[str, Any], result: fp_combat.ShotResult, events: list[Event]) -> None:
    if target["status"] not in ("active", "attached"):
        return
    target["stun"] = int(result.target.stun_markers)
    if result.removed:
        _casualty(st, target, events)


def _brawl(
    st: State,
    dice: Dice,
    crew: dict[str, Any],
    enemy: dict[str, Any],
    *,
    crew_weapon: Mapping[str, Any] | None,
    enemy_weapon: Mapping[str, Any] | None,
    why: str,
    events: list[Event],
    tables: Tables,
) -> None:
    result = fp_combat.resolve_brawl(
        dice,
        a=_fighter(crew),
        b=_fighter(enemy),
        a_weapon=_w(crew_weapon) if crew_weapon else None,
        b_weapon=_w(enemy_weapon) if enemy_weapon else None,
        tables=tables,
    )
    winner = result.winner or "nobody (a draw)"
    cw = crew_weapon["name"] if crew_weapon else "bare hands"
    ew = enemy_weapon["name"] if enemy_weapon else "bare hands"
    text = f"Brawl: {crew['name']} ({cw}) against {enemy['name']} ({ew}): {why}. Winner: {winner}."
    events.append(_event("brawl", text, result.rolls, lines=list(result.lines)))
    crew["brawled"] = True
    crew["taking_cover"] = False  # p.68: Brawling ends Taking Cover
    _engaged(st, crew)
    dead_crew, dead_enemy = result.a_removed, result.b_removed
    crew["stun"] = int(result.a.stun_markers)
    enemy["stun"] = int(result.b.stun_markers)
    if dead_crew:
        _casualty(st, crew, events)
    if dead_enemy:
        _casualty(st, enemy, events)


def _engaged(st: State, crew: dict[str, Any]) -> None:
    """p.68: a Supporting character loses all its Supports when engaged for any reason."""
    crew["supports"] = []


def _cover_for(st: State, shooter: Mapping[str, Any], base_cover: bool) -> bool:
    """A crew shooter at a Firing Position treats ranged targets as in the open (p.71)."""
    if shooter in st["crew"] and shooter.get("location"):
        loc = _location_of(st, shooter["location"])
        if loc["kind"] == "firing_position":
            return False
    return base_cover


# -- round flow -------------------------------------------------------------------------------------


def _start_round(st: State) -> None:
    st["flags"] = _fresh_flags()
    st["initiative_dice"] = []
    st["firefight"] = {"selected": [], "resolved": []}
    st["enemy_casualties_round"] = 0
    st["flow_event"] = None
    for figure in st["crew"]:
        figure.update({"keep_distance": False, "die": None, "eligible": False, "acted": False, "fired": False, "brawled": False})
        figure["heat_last"], figure["heat"] = figure["heat"], False
    for figure in st["enemies"]:
        figure.update({"fired": False, "no_attack": False, "optimal_fired": False})
        figure["heat_last"], figure["heat"] = figure["heat"], False
    st["phase"] = "flow" if _opts(st).battle_flow else "initiative"


def _check_end(st: State, events: list[Event]) -> None:
    if st["finished"]:
        return
    crew_left = _active_crew(st)
    if not _active_enemies(st):
        st["finished"] = True
        st["phase"] = "over"
        st["pending"] = None
        st["end_reason"] = "no enemies left" if crew_left else "both sides gone"
    elif not crew_left:
        st["finished"] = True
        st["phase"] = "over"
        st["pending"] = None
        st["end_reason"] = "no crew left on the battlefield"
    if st["finished"]:
        if st["mission"] in ("defend", "fight_off") and crew_left:
            st["objective"]["achieved"] = True
            st["objective"]["detail"] = "The crew Hold the Field."
        events.append(_event("end", f"The battle is over: {st['end_reason']}."))


def _arrive(st: State, crew: dict[str, Any], loc: dict[str, Any], events: list[Event]) -> None:
    """Move ``crew`` to ``loc`` (known, free) and apply what reaching it does (pp.72-73)."""
    _free_location(st, crew)
    loc["occupant"] = crew["name"]
    crew["location"] = loc["name"]
    objective = st["objective"]
    mission = st["mission"]
    text = f"{crew['name']} reaches {loc['name']}."
    if loc["kind"] in ("item", "dropped") and mission in ("acquire", "deliver") and objective.get("carrier") is None:
        objective["carrier"] = crew["name"]
        if loc["kind"] == "dropped":
            st["locations"].remove(loc)
            crew["location"] = None
        else:
            loc["checked"] = True
        text += f" {crew['name']} picks up the item (pp.72-73)."
    elif loc["kind"] == "patrol" and not loc["checked"]:
        loc["checked"] = True
        text += " The patrol objective is checked (p.73)."
        if all(lc["checked"] for lc in st["locations"] if lc["kind"] == "patrol"):
            objective["achieved"] = True
            objective["detail"] = "Every patrol objective was checked."
    elif loc["kind"] == "objective" and mission == "protect" and not objective["failed"]:
        vip = _crew(st, objective["vip"], "vip")
        if (crew["name"] == objective["escort"] and vip["status"] == "attached") or crew["name"] == vip["name"]:
            objective["achieved"] = True
            objective["detail"] = "The VIP reached the objective."
            text += " The VIP reaches the objective (ruling)."
    elif loc["kind"] == "sight" and not loc["checked"]:
        loc["checked"] = True
        text += " Resolve the Notable Sight as the core rules say."
    events.append(_event("move", text))


# -- flow events -------------------------------------------------------------------------------------


def _flow(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    table = _table(tables, FLOW_TABLE)
    value = action.get("value")
    try:
        roll = table.roll_or_enter(dice, value=None if value is None else int(value), reason="Battle flow event (p.71)")
    except (TableError, ValueError) as exc:
        raise NoMinisError(f"value: {exc}", field="value") from exc
    name = roll.entry.result
    st["flow_event"] = name
    rolls = [roll.record]
    flags = st["flags"]
    text = f"Battle flow event: {name} ({roll.entry.effect})"
    st["phase"] = "initiative"
    crew = _active_crew(st)
    foes = _active_enemies(st)
    if name == "Fleeting shot":
        shooters = [c for c in crew if _guns(c)]
        if shooters:
            shooter, recs = _pick(dice, crew, "Fleeting shot: which crew figure")
            rolls += recs
            if _guns(shooter):
                st["pending"] = {"kind": "fleeting_shot", "crew": shooter["name"]}
                text += f" {shooter['name']} may shoot."
            else:
                text += f" {shooter['name']} has no gun."
    elif name == "Running firefight":
        events.append(_event("flow", text, rolls))
        _running_firefight(st, dice, tables, events)
        return
    elif name == "Stumble into each other":
        events.append(_event("flow", text, rolls))
        c, r1 = _pick(dice, _targets(st, None), "Stumble: which crew figure")
        e, r2 = _pick(dice, foes, "Stumble: which enemy")
        events.append(_event("flow", f"{c['name']} and {e['name']} stumble into each other.", r1 + r2))
        _brawl(
            st,
            dice,
            c,
            e,
            crew_weapon=_brawl_weapon(c),
            enemy_weapon=_brawl_weapon(e),
            why="Stumble into each other (p.71)",
            events=events,
            tables=tables,
        )
        return
    elif name == "Exposed!":
        events.append(_event("flow", text, rolls))
        e, r1 = _pick(dice, foes, "Exposed!: which enemy")
        c, r2 = _pick(dice, _targets(st, None), "Exposed!: which crew figure")
        gun = _best_gun(e)
        if gun is None:
            events.append(_event("flow", f"{e['name']} has no gun and cannot fire.", r1 + r2))
            return
        events.append(_event("flow", f"{e['name']} fires on {c['name']}.", r1 + r2))
        _shoot(
            st,
            dice,
            e,
            c,
            gun,
            range_in=gun["range"],
            cover=True,
            moved=False,
            natural_six=bool(c["taking_cover"]),
            why="Exposed! at maximum range, stationary, against Cover (p.71)",
            events=events,
            tables=tables,
        )
        return
    elif name == "Spot Firing Position":
        count = sum(1 for loc in st["locations"] if loc["kind"] == "firing_position") + 1
        st["locations"].append(_location(f"Firing Position {count}", "firing_position", known=True))
    elif name == "Find shortcut":
        mover, recs = _pick(dice, crew, "Find shortcut: which crew figure")
        rolls += recs
        if _free_known(st, mover):
            st["pending"] = {"kind": "find_shortcut", "crew": mover["name"]}
            text += f" {mover['name']} may move to a known Location."
        else:
            text += f" {mover['name']} has no free known Location to move to."
    elif name == "Discover Location":
        suspected = [loc for loc in st["locations"] if not loc["known"]]
        if suspected:
            loc, recs = _pick(dice, suspected, "Discover Location: which one")
            rolls += recs
            loc["known"] = True
            text += f" {loc['name']} is now known."
    elif name == "Difficult sight-lines" or name == "Intense fight":
        flags["firefight_delta"] += int(roll.entry.data.get("firefight_enemies", 0))
    elif name == "Kill zone":
        kill = dice.roll(str(roll.entry.data.get("range_in", "1D6+10")), "Kill zone range in inches (p.71)")
        rolls.append(kill)
        flags["kill_zone"] = kill.total
        text += f' All gunfire this round is at {kill.total}".'
    elif name == "Open ground":
        flags["open_ground"] = True
    elif name == "Careful maneuvering":
        st["pending"] = {"kind": "careful_maneuvering"}
    elif name == "Covered retreat":
        st["pending"] = {"kind": "covered_retreat"}
    elif name == "Separated":
        flags["separated"] = True
    events.append(_event("flow", text, rolls))


def _running_firefight(st: State, dice: Dice, tables: Tables, events: list[Event]) -> None:
    """p.71: both shoot at once at the shorter weapon's range, both moving, targets in Cover."""
    c, r1 = _pick(dice, _targets(st, None), "Running firefight: which crew figure")
    e, r2 = _pick(dice, _active_enemies(st), "Running firefight: which enemy")
    cg, eg = _best_gun(c), _best_gun(e)
    ranges = [g["range"] for g in (cg, eg) if g]
    events.append(_event("flow", f"{c['name']} and {e['name']} trade fire on the move.", r1 + r2))
    if not ranges:
        events.append(_event("flow", "Neither can fire."))
        return
    rng = min(ranges)
    six = bool(c["taking_cover"])
    results = []
    for shooter, target, gun in ((c, e, cg), (e, c, eg)):
        if gun is None:
            continue
        cover = _cover_for(st, shooter, True)
        result = _shoot(
            st,
            dice,
            shooter,
            target,
            gun,
            range_in=rng,
            cover=cover,
            moved=True,
            natural_six=six,
            why="Running firefight, simultaneous (p.71)",
            events=events,
            tables=tables,
            apply_result=False,
        )
        results.append((target, result))
    for target, result in results:
        _apply_shot(st, target, result, events)


def _free_known(st: State, crew: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [loc for loc in st["locations"] if loc["known"] and loc["occupant"] is None and loc["name"] != crew.get("location")]


def _targets(st: State, enemy: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Crew figures an enemy may pick: on the field, not an attached VIP (p.73), and not Keeping
    Distance unless the enemy has a weapon over 12" (p.68)."""
    found = []
    for crew in _active_crew(st):
        if enemy is not None and crew["keep_distance"] and _best_gun(enemy, over=KEEP_DISTANCE_IN) is None:
            continue
        found.append(crew)
    return found


# -- initiative ---------------------------------------------------------------------------------------


def _roll_initiative(st: State, action: Mapping[str, Any], dice: Dice, events: list[Event]) -> None:
    crew = _active_crew(st)
    count = max(0, len(crew) + _opts(st).reaction_dice_modifier - 1)
    faces = action.get("faces")
    reason = "Reaction roll, one die fewer than normal (p.67)"
    if count == 0:
        record = None
        st["initiative_dice"] = []
    elif faces is not None:
        try:
            record = Dice.enter(f"{count}D6", [int(f) for f in faces], reason)
        except (DiceError, TypeError, ValueError) as exc:
            raise NoMinisError(f"faces: {exc}", field="faces") from exc
        st["initiative_dice"] = list(record.faces)
    else:
        record = dice.separate(count, 6, reason)
        st["initiative_dice"] = list(record.faces)
    st["phase"] = "assign"
    events.append(
        _event(
            "initiative",
            f"Reaction dice: {', '.join(map(str, st['initiative_dice'])) or 'none'} for {len(crew)} crew figures.",
            [record] if record else [],
        )
    )


def suggested_assignment(st: Mapping[str, Any]) -> dict[str, int]:
    """The assignment of Reaction dice that lets the most characters act: lowest Reactions take the
    lowest die that fits; the captain (who acts anyway, p.67) is served last."""
    dice = sorted(st["initiative_dice"])
    crew = sorted(_active_crew(st), key=lambda c: (c["captain"], c["reactions"], c["name"]))
    assignment: dict[str, int] = {}
    used = [False] * len(dice)
    for figure in crew:
        for i, face in enumerate(dice):
            if not used[i] and face <= figure["reactions"]:
                used[i] = True
                assignment[figure["name"]] = face
                break
    spare = [face for i, face in enumerate(dice) if not used[i]]
    for figure in crew:
        if figure["name"] not in assignment and spare:
            assignment[figure["name"]] = spare.pop(0)
    return assignment


def _assign(st: State, action: Mapping[str, Any], events: list[Event]) -> None:
    raw = action.get("assignments")
    if raw is None:
        raw = suggested_assignment(st)
    if not isinstance(raw, Mapping):
        raise NoMinisError("assignments must map crew names to die faces.", field="assignments")
    left = list(st["initiative_dice"])
    for name, face in raw.items():
        figure = _crew(st, name, "assignments")
        if figure["status"] != "active":
            raise NoMinisError(f"assignments: {name} is not on the battlefield.", field="assignments")
        try:
            value = int(face)
        except (TypeError, ValueError):
            raise NoMinisError(f"assignments: {name} needs a die face; got {face!r}.", field="assignments") from None
        if value not in left:
            raise NoMinisError(
                f"assignments: no unassigned die shows {value}; the dice are {st['initiative_dice']}.", field="assignments"
            )
        left.remove(value)
    acting = []
    for figure in _active_crew(st):
        die = raw.get(figure["name"])
        figure["die"] = None if die is None else int(die)
        figure["eligible"] = bool(figure["captain"] or (die is not None and int(die) <= figure["reactions"]))
        if figure["eligible"]:
            acting.append(figure["name"])
    st["phase"] = "actions"
    events.append(_event("initiative", f"Initiative Actions this round: {', '.join(acting) or 'nobody'} (p.67)."))


def _modifiers(
    st: State, tables: Tables, crew: Mapping[str, Any], action: str, *, weapon: Mapping[str, Any] | None = None
) -> list[tuple[int, str]]:
    data = _entry_data(tables, ACTIONS_TABLE, action)
    found = []
    for mod in data.get("modifiers", []):
        condition = str(mod["condition"])
        speed = re.match(r'Speed (\d+)"', condition)
        if speed:
            applies = crew["speed"] >= int(speed[1])
        elif "movement device" in condition:
            applies = bool(crew["special_movement"])
        elif "Heavy" in condition:
            applies = weapon is not None and "heavy" in weapon["traits"]
        elif "Location" in condition:
            applies = crew["location"] is not None
        else:
            applies = False
        if applies:
            found.append((int(mod["modifier"]), condition))
    return found


def _test(
    st: State,
    tables: Tables,
    dice: Dice,
    crew: Mapping[str, Any],
    action_name: str,
    payload: Mapping[str, Any],
    events: list[Event],
    *,
    weapon: Mapping[str, Any] | None = None,
    extra: Sequence[tuple[int, str]] = (),
) -> bool:
    """A 2D6 Battlefield Test (p.67) for ``action_name``; True when it passes or needs no roll."""
    data = _entry_data(tables, ACTIONS_TABLE, action_name)
    target = data.get("target")
    if target is None:
        return True
    mods = _modifiers(st, tables, crew, action_name, weapon=weapon) + list(extra)
    bonus = payload.get("bonus")
    if bonus is None:
        bonus = action_name in crew["bonus_actions"]
    if bonus:
        mods.append((1, "one applicable ability or item (p.67)"))
    total_mod = sum(m for m, _ in mods)
    reason = f"Battlefield Test: {action_name} ({target}+)"
    faces = payload.get("faces")
    if faces is not None:
        try:
            record = Dice.enter("2D6", [int(f) for f in faces], reason, modifier=total_mod)
        except (DiceError, TypeError, ValueError) as exc:
            raise NoMinisError(f"faces: {exc}", field="faces") from exc
    else:
        record = dice.roll("2D6", reason, modifier=total_mod)
    passed = (record.total or 0) >= int(target)
    why = "; ".join(f"{m:+d} {c}" for m, c in mods)
    text = f"{crew['name']} tries {action_name}: needs {target}+, rolls {record.total}{' (' + why + ')' if why else ''}: {'passed' if passed else 'failed'}."
    events.append(_event("test", text, [record]))
    return passed


def _task_location_ok(st: State, crew: Mapping[str, Any]) -> str | None:
    """Why ``crew`` can Carry Out Task here (the Location kind), or None."""
    if st["objective"]["achieved"] or crew["location"] is None:
        return None
    loc = _location_of(st, crew["location"])
    mission = st["mission"]
    kind = loc["kind"]
    if mission == "access" and kind == "console":
        return kind
    if mission == "deliver" and kind == "delivery" and st["objective"].get("carrier") == crew["name"]:
        return kind
    if mission == "move_through" and kind == "exit":
        return kind
    if mission == "search" and kind == "search" and not loc["checked"]:
        return kind
    return None


def _carry_out_task(st: State, dice: Dice, crew: dict[str, Any], events: list[Event]) -> None:
    kind = _task_location_ok(st, crew)
    objective = st["objective"]
    loc = _location_of(st, crew["location"])
    spec = objective.get("task")
    if kind != "exit" and spec:
        stat = int(crew[spec["stat"]]) if spec["stat"] else 0
        record = dice.roll(spec["dice"], f"Objective roll ({MISSIONS[st['mission']]}, core rules)", modifier=stat)
        ok = (record.total or 0) >= spec["target"]
        events.append(
            _event(
                "task",
                f"{crew['name']} attempts the task: {record.total} against {spec['target']}+: {'success' if ok else 'failure'}.",
                [record],
            )
        )
        if not ok:
            return
    if kind == "console":
        objective["achieved"] = True
        objective["detail"] = f"{crew['name']} accessed the console."
        events.append(_event("objective", "Access achieved."))
    elif kind == "delivery":
        objective["achieved"] = True
        objective["detail"] = f"{crew['name']} delivered the item."
        events.append(_event("objective", "Deliver achieved."))
    elif kind == "exit":
        events.append(_event("objective", f"{crew['name']} leaves through the exit (p.73)."))
        _remove_crew(st, crew, "exited", events)
    elif kind == "search":
        loc["checked"] = True
        sites = [lc for lc in st["locations"] if lc["kind"] == "search"]
        rolls: list[RollRecord] = []
        if objective["item_site"] is None:
            site, rolls = _pick(dice, sites, "Search: which site holds the item (drawn at the first search)")
            objective["item_site"] = site["name"]
        found = objective["item_site"] == loc["name"]
        if found:
            objective["achieved"] = True
            objective["detail"] = f"{crew['name']} found the item at {loc['name']}."
        events.append(
            _event("objective", f"{crew['name']} searches {loc['name']}: {'the item is here' if found else 'nothing'}.", rolls)
        )


def _initiative_action(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    crew = _crew(st, action.get("actor"))
    name = action.get("action")
    if name not in ACTIONS:
        raise NoMinisError(f"action must be one of {', '.join(ACTIONS)}; got {name!r}.", field="action")
    if crew["status"] != "active" or not crew["eligible"]:
        raise NoMinisError(f"actor: {crew['name']} may not take an Initiative Action this round (p.67).", field="actor")
    if crew["acted"]:
        raise NoMinisError(f"actor: {crew['name']} has already taken an Initiative Action this round.", field="actor")
    problem = _action_problem(st, crew, name, action, tables)
    if problem:
        raise NoMinisError(problem[1], field=problem[0])
    crew["acted"] = True
    if name == SCOUT:
        loc = _location_of(st, action.get("location"))
        extra = []
        if st["mission"] == "access" and loc["kind"] == "console" and crew["soulless"]:
            extra.append(
                (
                    int(_entry_data(tables, NOTES_TABLE, "Access").get("soulless_scout_bonus", 1)),
                    "Soulless locating the console (p.72)",
                )
            )
        if _test(st, tables, dice, crew, SCOUT, action, events, extra=extra):
            loc["known"] = True
            events.append(_event("location", f"{loc['name']} is now a known Location (p.68)."))
    elif name == MOVE_UP:
        target = action.get("location")
        crew["taking_cover"] = False  # p.68
        if target in (None, "", "battle space"):
            _free_location(st, crew)
            crew["location"] = None
            events.append(_event("move", f"{crew['name']} leaves the Location for the general battle space."))
        else:
            _arrive(st, crew, _location_of(st, target), events)
    elif name == TASK:
        _carry_out_task(st, dice, crew, events)
    elif name == CHARGE:
        if _test(st, tables, dice, crew, CHARGE, action, events):
            enemy, recs = _pick(dice, _active_enemies(st), "Charge: which enemy")
            st["pending"] = {"kind": "charge", "crew": crew["name"], "enemy": enemy["name"]}
            events.append(_event("charge", f"{crew['name']} closes on {enemy['name']}: Brawl or hold back?", recs))
    elif name == OPTIMAL_SHOT:
        weapon = _optimal_weapon(crew, action)
        if _test(st, tables, dice, crew, OPTIMAL_SHOT, action, events, weapon=weapon):
            enemy, recs = _pick(dice, _active_enemies(st), "Optimal Shot: which enemy")
            assert weapon is not None
            st["pending"] = {"kind": "optimal_shot", "crew": crew["name"], "enemy": enemy["name"], "weapon": weapon["name"]}
            events.append(
                _event(
                    "optimal_shot", f'{crew["name"]} lines up on {enemy["name"]}: pick a range up to {weapon["range"]}".', recs
                )
            )
    elif name == SUPPORT:
        ally = _crew(st, action.get("ally"), "ally")
        if ally["name"] not in crew["supports"]:
            crew["supports"].append(ally["name"])
        events.append(_event("support", f"{crew['name']} supports {ally['name']} (p.68)."))
    elif name == TAKE_COVER:
        if _test(st, tables, dice, crew, TAKE_COVER, action, events):
            crew["taking_cover"] = True
            events.append(_event("cover", f"{crew['name']} is Taking Cover: shots by and at them hit only on natural 6s (p.70)."))
    elif name == KEEP_DISTANCE and _test(st, tables, dice, crew, KEEP_DISTANCE, action, events):
        crew["keep_distance"] = True
        events.append(_event("distance", f"{crew['name']} keeps their distance this round (p.68)."))


def _optimal_weapon(crew: Mapping[str, Any], action: Mapping[str, Any]) -> dict[str, Any] | None:
    if action.get("weapon"):
        return _gun_named(crew, action.get("weapon"))
    over = KEEP_DISTANCE_IN if crew["keep_distance"] else None
    return _best_gun(crew, over=over)


def _action_problem(
    st: State, crew: Mapping[str, Any], name: str, action: Mapping[str, Any], tables: Tables
) -> tuple[str, str] | None:
    """(field, message) when ``name`` is not allowed for ``crew`` now, else None."""
    if name == SCOUT:
        not_in = int(_entry_data(tables, ACTIONS_TABLE, SCOUT).get("not_in_round", 1))
        if st["round"] <= not_in:
            return ("action", f"Scout for Locations is not possible in round {not_in} (p.67).")
        loc_name = action.get("location")
        suspected = [loc["name"] for loc in st["locations"] if not loc["known"]]
        if loc_name not in suspected:
            return ("location", f"location must be a suspected Location: {', '.join(suspected) or 'none left'}.")
    elif name == MOVE_UP:
        target = action.get("location")
        if target in (None, "", "battle space"):
            if crew["location"] is None:
                return ("location", f"{crew['name']} is not at a Location; name a known Location to move to.")
        else:
            free = [loc["name"] for loc in _free_known(st, crew)]
            if target not in free:
                return ("location", f"location must be a known Location with nobody there: {', '.join(free) or 'none'}.")
    elif name == TASK:
        if _task_location_ok(st, crew) is None:
            return ("action", f"{crew['name']} is not at a Location where the mission has a task to carry out (p.68).")
    elif name == CHARGE:
        if crew["stun"]:
            return ("action", "a Stunned character cannot start a Brawl (p.70).")
        if st["flags"]["separated"]:
            return ("action", "no Brawling this round (Separated, p.71).")
    elif name == OPTIMAL_SHOT:
        try:
            weapon = _optimal_weapon(crew, action)
        except NoMinisError as exc:
            return ("weapon", exc.message)
        if weapon is None:
            return ("action", f"{crew['name']} has no ranged weapon that can fire (p.68).")
        if crew["keep_distance"] and weapon["range"] <= KEEP_DISTANCE_IN:
            return ("weapon", 'Keep Distance allows only weapons over 12" (p.68).')
    elif name == SUPPORT:
        ally = action.get("ally")
        others = [c["name"] for c in _active_crew(st) if c["name"] != crew["name"]]
        if ally not in others:
            return ("ally", f"ally must name another crew figure on the field: {', '.join(others) or 'none'}.")
    return None


# -- pending decisions in the Initiative phase --------------------------------------------------------


def _charge_decide(
    st: State, pending: Mapping[str, Any], action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]
) -> None:
    crew = _crew(st, pending["crew"])
    enemy = _enemy(st, pending["enemy"])
    if not action.get("engage"):
        events.append(_event("charge", f"{crew['name']} decides not to engage: nothing happens (p.67)."))
        return
    data = _entry_data(tables, ACTIONS_TABLE, CHARGE)
    approach = dice.roll(str(data.get("approach_roll", "1D6")), f'Charge approach against Speed {crew["speed"]}" (p.67)')
    _engaged(st, crew)
    rng = int(data.get("fired_on_range_in", 6))
    text = f'{crew["name"]} charges {enemy["name"]}: rolls {approach.total} against Speed {crew["speed"]}".'
    if (approach.total or 0) > crew["speed"]:
        kz = st["flags"]["kill_zone"]
        gun = _best_gun(enemy, reach=kz or rng, over=KEEP_DISTANCE_IN if crew["keep_distance"] else None)
        if gun is not None and (not enemy["fired"] or _opts(st).hectic):
            events.append(_event("charge", text + " Too slow: the enemy fires first.", [approach]))
            six = bool(crew["taking_cover"]) or (enemy["fired"] and _opts(st).hectic)
            enemy["fired"] = True
            _shoot(
                st,
                dice,
                enemy,
                crew,
                gun,
                range_in=kz or rng,
                cover=not st["flags"]["open_ground"],
                moved=False,
                natural_six=six,
                why="shooting at a charging figure (p.67)",
                events=events,
                tables=tables,
            )
        else:
            events.append(_event("charge", text + " Too slow, but the enemy cannot fire.", [approach]))
    else:
        events.append(_event("charge", text + " Fast enough.", [approach]))
    if crew["status"] != "active" or enemy["status"] != "active":
        return
    if crew["stun"]:
        events.append(_event("charge", f"{crew['name']} is Stunned and cannot start the Brawl (p.70)."))
        return
    _brawl(
        st,
        dice,
        crew,
        enemy,
        crew_weapon=_brawl_weapon(crew),
        enemy_weapon=_brawl_weapon(enemy),
        why="Charge (p.67)",
        events=events,
        tables=tables,
    )


def _optimal_decide(
    st: State, pending: Mapping[str, Any], action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]
) -> None:
    crew = _crew(st, pending["crew"])
    enemy = _enemy(st, pending["enemy"])
    weapon = _gun_named(crew, pending["weapon"])
    chosen = action.get("range")
    if chosen is None:
        events.append(_event("optimal_shot", f"{crew['name']} holds fire."))
        return
    try:
        rng = int(chosen)
    except (TypeError, ValueError):
        raise NoMinisError(f"range must be inches from 1 to {weapon['range']}; got {chosen!r}.", field="range") from None
    if not 1 <= rng <= weapon["range"]:
        raise NoMinisError(f"range must be inches from 1 to {weapon['range']}; got {rng}.", field="range")
    kz = st["flags"]["kill_zone"]
    if kz:
        rng = kz
    keep = KEEP_DISTANCE_IN if crew["keep_distance"] else None
    opts = _opts(st)
    crew_ok = weapon["range"] >= rng and (keep is None or weapon["range"] > keep) and (not crew["fired"] or opts.hectic)
    enemy_gun = _best_gun(enemy, reach=rng, over=keep)
    enemy_ok = enemy_gun is not None and (not enemy["fired"] or opts.hectic)
    _engaged(st, crew)
    if crew_ok:
        six = bool(crew["taking_cover"]) or bool(crew["fired"])
        crew["fired"] = True
        _shoot(
            st,
            dice,
            crew,
            enemy,
            weapon,
            range_in=rng,
            cover=_cover_for(st, crew, True),
            moved=False,
            natural_six=six,
            why="Optimal Shot, crew fires first (p.68)",
            events=events,
            tables=tables,
        )
    if enemy_ok and enemy["status"] == "active" and crew["status"] == "active":
        assert enemy_gun is not None
        six = bool(crew["taking_cover"]) or bool(enemy["fired"])
        enemy["fired"] = True
        _shoot(
            st,
            dice,
            enemy,
            crew,
            enemy_gun,
            range_in=rng,
            cover=True,
            moved=False,
            natural_six=six,
            why="Optimal Shot, the enemy replies (p.68)",
            events=events,
            tables=tables,
        )
        enemy["optimal_fired"] = True
    elif enemy["status"] == "active":
        events.append(_event("optimal_shot", f'{enemy["name"]} cannot reply at {rng}" and stays available for the Firefight.'))


# -- the Firefight -----------------------------------------------------------------------------------


def _select_enemies(st: State, dice: Dice, tables: Tables, events: list[Event]) -> None:
    data = _entry_data(tables, FIREFIGHT_TABLE, "Enemies engaging")
    on_field = _active_enemies(st)
    base = int(data.get("enemies_engaging", 3))
    if len(on_field) >= int(data.get("large_force_min_enemies", 7)):
        base = int(data.get("enemies_engaging_large_force", 4))
    count = max(0, base + int(st["flags"]["firefight_delta"]))
    pool = [e for e in on_field if not e.get("optimal_fired")]
    chosen: list[str] = []
    rolls: list[RollRecord] = []
    while pool and len(chosen) < count:
        enemy, recs = _pick(dice, pool, "Firefight: which enemy engages")
        rolls += recs
        pool.remove(enemy)
        chosen.append(enemy["name"])
    st["firefight"] = {"selected": chosen, "resolved": []}
    st["phase"] = "firefight"
    events.append(
        _event("firefight", f"The Firefight: {', '.join(chosen) or 'no enemy'} engage ({count} to select, pp.69-70).", rolls)
    )


def _engage(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    fight = st["firefight"]
    waiting = [n for n in fight["selected"] if n not in fight["resolved"]]
    name = action.get("enemy")
    if name is None and waiting:
        name = waiting[0]
    if name not in waiting:
        raise NoMinisError(f"enemy must be a selected enemy still to resolve: {', '.join(waiting) or 'none'}.", field="enemy")
    fight["resolved"].append(name)
    enemy = _enemy(st, name)
    if enemy["status"] != "active":
        events.append(_event("firefight", f"{name} is no longer on the battlefield."))
        return
    if enemy["no_attack"]:
        events.append(_event("firefight", f"{name} cannot attack this round (Careful maneuvering, p.71)."))
        return
    if st["flags"]["separated"] and _melee_only(enemy):
        events.append(_event("firefight", f"{name} is melee-only and does not attack (Separated, p.71)."))
        return
    targets = _targets(st, enemy)
    if not targets:
        events.append(_event("firefight", f"{name} finds no crew figure it can target."))
        return
    target, recs = _pick(dice, targets, f"{name} picks a crew target")
    events.append(_event("firefight", f"{name} engages {target['name']}.", recs))
    supporters = [c["name"] for c in _active_crew(st) if target["name"] in c["supports"] and c["name"] != target["name"]]
    if supporters:
        st["pending"] = {"kind": "support", "enemy": name, "crew": target["name"], "supporters": supporters}
        return
    _respond_or_resolve(st, dice, target, enemy, events, tables)


def _plan(st: State, crew: Mapping[str, Any], enemy: Mapping[str, Any]) -> dict[str, Any]:
    """How ``enemy`` and ``crew`` engage (pp.69-70): ``kind`` is ``cover_brawl``, ``brawl``,
    ``enemy_charges`` (crew may shoot first at 6"), ``crew_charges``, ``ranged`` or ``none``;
    with the crew's options ``can_fire`` and ``can_brawl``."""
    flags = st["flags"]
    opts = _opts(st)
    separated = flags["separated"]
    kz = flags["kill_zone"]
    keep = KEEP_DISTANCE_IN if crew["keep_distance"] else None
    crew_melee = _melee_weapon(crew)
    enemy_melee = _melee_weapon(enemy)
    if crew["taking_cover"] and enemy_melee is not None and not separated and not enemy["stun"]:
        return {"kind": "cover_brawl", "can_fire": False, "can_brawl": False}
    crew_gun = _best_gun(crew, over=keep, reach=kz)
    enemy_gun = _best_gun(enemy, over=keep, reach=kz)
    crew_free = not crew["fired"] or opts.hectic
    if _melee_only(enemy) and _melee_only(crew):
        return {"kind": "none" if separated else "brawl", "can_fire": False, "can_brawl": False}
    if _melee_only(enemy) or (
        enemy_melee is not None and not separated and not enemy["stun"] and _outranged(_best_gun(enemy), _best_gun(crew))
    ):
        gun = _best_gun(crew, over=keep, reach=kz or 6, no_heavy=True)
        return {"kind": "enemy_charges", "can_fire": gun is not None and crew_free, "can_brawl": False, "crew_gun": gun}
    if _melee_only(crew):
        return {"kind": "crew_charges", "can_fire": False, "can_brawl": False}
    can_brawl = crew_melee is not None and not separated and not crew["stun"] and _outranged(_best_gun(crew), _best_gun(enemy))
    return {
        "kind": "ranged",
        "can_fire": crew_gun is not None and crew_free,
        "can_brawl": can_brawl,
        "crew_gun": crew_gun,
        "enemy_gun": enemy_gun,
    }


def _outranged(mine: Mapping[str, Any] | None, theirs: Mapping[str, Any] | None) -> bool:
    return mine is not None and theirs is not None and theirs["range"] > mine["range"]


def _respond_or_resolve(
    st: State, dice: Dice, crew: dict[str, Any], enemy: dict[str, Any], events: list[Event], tables: Tables
) -> None:
    _engaged(st, crew)
    plan = _plan(st, crew, enemy)
    if plan["can_fire"] or plan["can_brawl"]:
        st["pending"] = {
            "kind": "respond",
            "enemy": enemy["name"],
            "crew": crew["name"],
            "engagement": plan["kind"],
            "can_fire": plan["can_fire"],
            "can_brawl": plan["can_brawl"],
        }
        return
    _resolve(st, dice, crew, enemy, fire=False, brawl=False, events=events, tables=tables)


def _resolve(
    st: State,
    dice: Dice,
    crew: dict[str, Any],
    enemy: dict[str, Any],
    *,
    fire: bool,
    brawl: bool,
    events: list[Event],
    tables: Tables,
) -> None:
    """Resolve one Firefight engagement (pp.69-70)."""
    plan = _plan(st, crew, enemy)
    flags = st["flags"]
    opts = _opts(st)
    kz = flags["kill_zone"]
    keep = KEEP_DISTANCE_IN if crew["keep_distance"] else None
    open_exchange = opts.faster and flags["exchanges"] == 0
    fired_any = False
    _engaged(st, crew)

    def shot(shooter: dict[str, Any], target: dict[str, Any], gun: Mapping[str, Any], rng: int, cover: bool, why: str) -> None:
        nonlocal fired_any
        six = bool(crew["taking_cover"]) or bool(shooter["fired"])
        shooter["fired"] = True
        fired_any = True
        if open_exchange:
            cover = False
            why += "; Faster Combat: first exchange in the open (p.70)"
        if shooter is crew:
            cover = _cover_for(st, crew, cover)
        _shoot(
            st,
            dice,
            shooter,
            target,
            gun,
            range_in=rng,
            cover=cover,
            moved=False,
            natural_six=six,
            why=why,
            events=events,
            tables=tables,
        )

    def enemy_can_fire() -> bool:
        return not enemy["fired"] or opts.hectic

    def charge(
        charger: dict[str, Any],
        defender: dict[str, Any],
        gun: Mapping[str, Any] | None,
        can_fire: bool,
        fire_why: str,
        brawl_why: str,
    ) -> None:
        """``charger`` closes to Brawl: ``defender`` may fire first with ``gun`` (p.69); then the
        Brawl, unless Separated (p.71) or the charger is Stunned (p.70). A defender who fired
        brawls with that weapon."""
        fired_with = None
        if gun is not None and can_fire:
            fired_with = gun
            shot(defender, charger, gun, kz or 6, not flags["open_ground"], fire_why)
        if enemy["status"] != "active" or crew["status"] != "active":
            return
        if flags["separated"]:
            events.append(_event("firefight", "No Brawl follows (Separated, p.71)."))
        elif charger["stun"]:
            events.append(_event("firefight", f"{charger['name']} is Stunned and cannot start the Brawl (p.70)."))
        else:
            held = _defensive_brawl_weapon(fired_with) if fired_with else _brawl_weapon(defender)
            _brawl(
                st,
                dice,
                crew,
                enemy,
                crew_weapon=held if defender is crew else _brawl_weapon(crew),
                enemy_weapon=held if defender is enemy else _brawl_weapon(enemy),
                why=brawl_why,
                events=events,
                tables=tables,
            )

    kind = plan["kind"]
    if kind == "ranged" and brawl and plan["can_brawl"]:
        kind = "crew_charges"
    if kind == "none":
        events.append(_event("firefight", "Neither can fight: no Brawling this round (Separated)."))
    elif kind in ("cover_brawl", "brawl"):
        why = (
            "an enemy with a Brawling weapon reaches a figure Taking Cover (p.70)"
            if kind == "cover_brawl"
            else "both fight only by Brawling"
        )
        if enemy["stun"]:
            events.append(_event("firefight", f"{enemy['name']} is Stunned and cannot start a Brawl (p.70)."))
        else:
            _brawl(
                st,
                dice,
                crew,
                enemy,
                crew_weapon=_brawl_weapon(crew),
                enemy_weapon=_brawl_weapon(enemy),
                why=why,
                events=events,
                tables=tables,
            )
    elif kind == "enemy_charges":
        charge(
            enemy,
            crew,
            plan.get("crew_gun"),
            fire and plan["can_fire"],
            "defensive fire at a figure coming to Brawl (p.69)",
            "the enemy closes to Brawl (p.69)",
        )
    elif kind == "crew_charges":
        charge(
            crew,
            enemy,
            _best_gun(enemy, over=keep, reach=kz or 6, no_heavy=True),
            enemy_can_fire(),
            "firing at a crew figure coming to Brawl (p.69)",
            "the crew figure closes to Brawl (p.69)",
        )
    else:  # ranged
        crew_gun = plan.get("crew_gun")
        enemy_gun = plan.get("enemy_gun")
        crew_first = enemy_gun is None or (crew_gun is not None and crew_gun["range"] >= enemy_gun["range"])
        order = [("crew", crew_gun), ("enemy", enemy_gun)] if crew_first else [("enemy", enemy_gun), ("crew", crew_gun)]
        for side, gun in order:
            if crew["status"] != "active" or enemy["status"] != "active" or gun is None:
                continue
            if side == "crew":
                if fire and plan["can_fire"]:
                    shot(crew, enemy, gun, kz or gun["range"], True, "both in Cover at maximum range (p.69)")
                elif crew["fired"] and not opts.hectic:
                    events.append(
                        _event("firefight", f"{crew['name']} has already fired this round and cannot fire again (p.70).")
                    )
                else:
                    events.append(_event("firefight", f"{crew['name']} does not fire."))
            elif enemy_can_fire():
                shot(enemy, crew, gun, kz or gun["range"], True, "both in Cover at maximum range (p.69)")
        if crew_gun is None and enemy_gun is None:
            events.append(_event("firefight", "Neither weapon can fire here."))
    if fired_any:
        flags["exchanges"] += 1


def _defensive_brawl_weapon(fired: Mapping[str, Any]) -> dict[str, Any] | None:
    """p.69: after firing in defence the figure Brawls with that weapon: a Pistol keeps its bonus,
    any other gun counts as no weapon (no Melee bonus)."""
    return dict(fired) if "pistol" in fired["traits"] else None


def _after_engagement(st: State, events: list[Event]) -> None:
    _check_end(st, events)
    if st["finished"]:
        return
    fight = st["firefight"]
    if st["phase"] == "firefight" and all(n in fight["resolved"] for n in fight["selected"]) and st["pending"] is None:
        st["phase"] = "end"


# -- end of round ------------------------------------------------------------------------------------


def _end_round(st: State, dice: Dice, tables: Tables, events: list[Event]) -> None:
    for figure in st["crew"] + st["enemies"]:
        figure["stun"] = 0  # p.70
    events.append(_event("end_round", "All Stun markers are removed (p.70)."))
    _morale(st, dice, events)
    _secure_progress(st, tables, events)
    _check_end(st, events)
    if not st["finished"]:
        st["phase"] = "retreat"


def _morale(st: State, dice: Dice, events: list[Event]) -> None:
    casualties = st["enemy_casualties_round"]
    panic = _panic_faces(st["enemy_panic"])
    if casualties <= 0 or not panic or not _active_enemies(st):
        return
    record = dice.separate(casualties, 6, f"Enemy Morale: one D6 per casualty, Panic {st['enemy_panic']}")
    fleeing = sum(1 for f in record.faces if f in panic)
    rolls = [record]
    gone = []
    for _ in range(fleeing):
        left = _active_enemies(st)
        candidates = [e for e in left if not (st["mission"] == "eliminate" and e["target"] and len(left) > 1)]
        for rank in RANKS:
            ranked = [e for e in candidates if e["rank"] == rank]
            if ranked:
                enemy, recs = _pick(dice, ranked, f"Morale: which {rank} flees")
                rolls += recs
                enemy["status"] = "fled"
                gone.append(enemy["name"])
                break
    text = f"Morale: {fleeing} die/dice in the Panic range; {', '.join(gone) or 'nobody'} flee (p.72; regulars first)."
    events.append(_event("morale", text, rolls))


def _secure_progress(st: State, tables: Tables, events: list[Event]) -> None:
    if st["mission"] != "secure" or st["objective"]["achieved"]:
        return
    objective = st["objective"]
    centre = next(loc for loc in st["locations"] if loc["kind"] == "centre")
    holder = centre["occupant"]
    if holder is None:
        objective.update({"holder": None, "rounds": 0})
        return
    crew = _crew(st, holder)
    if holder != objective["holder"]:
        objective.update({"holder": holder, "rounds": 0})
    objective["rounds"] = 0 if crew["brawled"] else objective["rounds"] + 1
    needed = int(_entry_data(tables, NOTES_TABLE, "Secure").get("consecutive_rounds", 2))
    events.append(_event("objective", f"{holder} holds the centre: {objective['rounds']} of {needed} rounds (p.73)."))
    if objective["rounds"] >= needed:
        objective["achieved"] = True
        objective["detail"] = f"{holder} secured the centre."


def _retreat(st: State, names: Sequence[str], dice: Dice, tables: Tables, events: list[Event], *, covered: bool = False) -> None:
    limit = int(_entry_data(tables, END_TABLE, "Retreat").get("max_figures", 2))
    chosen = [_crew(st, n, "names") for n in names]
    if len({c["name"] for c in chosen}) != len(chosen):
        raise NoMinisError("names: each crew figure may be listed once.", field="names")
    for crew in chosen:
        if crew["status"] != "active":
            raise NoMinisError(f"names: {crew['name']} is not on the battlefield.", field="names")
    if not covered and sum(1 for c in chosen if not c["special_movement"]) > limit:
        raise NoMinisError(
            f"names: at most {limit} crew without special movement may try to retreat each round (p.72).", field="names"
        )
    for crew in chosen:
        if covered or crew["special_movement"]:
            why = "Covered retreat (p.71)" if covered else "special movement: leaves automatically (p.72)"
            events.append(_event("retreat", f"{crew['name']} leaves the battle: {why}."))
            _remove_crew(st, crew, "retreated", events)
            continue
        record = dice.roll("1D6", f"Retreat: {crew['name']} needs Speed {crew['speed']} or less (p.72)")
        if (record.total or 0) <= crew["speed"]:
            events.append(_event("retreat", f"{crew['name']} rolls {record.total}: leaves the battle.", [record]))
            _remove_crew(st, crew, "retreated", events)
        else:
            events.append(_event("retreat", f"{crew['name']} rolls {record.total}: cannot get away this round.", [record]))


# -- the reducer --------------------------------------------------------------------------------------


def _decide(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables, events: list[Event]) -> None:
    pending = st["pending"]
    kind = pending["kind"]
    st["pending"] = None
    if kind == "fleeting_shot":
        target = action.get("target")
        if target is None:
            events.append(_event("flow", "No Fleeting shot taken."))
            return
        enemy = _enemy(st, target, "target")
        if enemy["status"] != "active":
            st["pending"] = pending
            raise NoMinisError(f"target: {target} is not on the battlefield.", field="target")
        crew = _crew(st, pending["crew"])
        gun = _best_gun(crew)
        assert gun is not None
        _shoot(
            st,
            dice,
            crew,
            enemy,
            gun,
            range_in=gun["range"],
            cover=_cover_for(st, crew, True),
            moved=True,
            natural_six=bool(crew["taking_cover"]),
            why="Fleeting shot at maximum range, counts as moving, target in Cover, no reply (p.71)",
            events=events,
            tables=tables,
        )
    elif kind == "find_shortcut":
        crew = _crew(st, pending["crew"])
        where = action.get("location")
        if where is None:
            events.append(_event("flow", f"{crew['name']} stays put."))
            return
        free = [loc["name"] for loc in _free_known(st, crew)]
        if where not in free:
            st["pending"] = pending
            raise NoMinisError(f"location must be a free known Location: {', '.join(free) or 'none'}.", field="location")
        _arrive(st, crew, _location_of(st, where), events)
    elif kind == "careful_maneuvering":
        enemy = _enemy(st, action.get("enemy"))
        if enemy["status"] != "active":
            st["pending"] = pending
            raise NoMinisError(f"enemy: {enemy['name']} is not on the battlefield.", field="enemy")
        enemy["no_attack"] = True
        events.append(_event("flow", f"{enemy['name']} cannot attack in this round's Firefight (p.71)."))
    elif kind == "covered_retreat":
        try:
            _retreat(st, [str(n) for n in action.get("names") or []], dice, tables, events, covered=True)
        except NoMinisError:
            st["pending"] = pending
            raise
    elif kind == "charge":
        _charge_decide(st, pending, action, dice, tables, events)
    elif kind == "optimal_shot":
        try:
            _optimal_decide(st, pending, action, dice, tables, events)
        except NoMinisError:
            st["pending"] = pending
            raise
    elif kind == "support":
        supporter = action.get("supporter")
        enemy = _enemy(st, pending["enemy"])
        target = _crew(st, pending["crew"])
        if supporter is not None:
            if supporter not in pending["supporters"]:
                st["pending"] = pending
                raise NoMinisError(f"supporter must be one of {', '.join(pending['supporters'])} or none.", field="supporter")
            target = _crew(st, supporter, "supporter")
            events.append(_event("support", f"{supporter} steps in for {pending['crew']} (p.68)."))
        _respond_or_resolve(st, dice, target, enemy, events, tables)
    elif kind == "respond":
        crew = _crew(st, pending["crew"])
        enemy = _enemy(st, pending["enemy"])
        fire = bool(action.get("fire", True)) and pending["can_fire"]
        brawl = bool(action.get("brawl", False)) and pending["can_brawl"]
        _resolve(st, dice, crew, enemy, fire=fire, brawl=brawl, events=events, tables=tables)


def _apply_mut(st: State, action: Mapping[str, Any], dice: Dice, tables: Tables) -> list[Event]:
    events: list[Event] = []
    if not isinstance(action, Mapping):
        raise NoMinisError("action must be a mapping with a type.", field="type")
    kind = action.get("type")
    if kind == "auto":
        if st["finished"]:
            raise NoMinisError("the battle is over.", field="type")
        action = auto_action(st, tables)
        kind = action["type"]
        events.append(_event("auto", f"Automatic choice: {action.get('label', kind)}."))
    if st["finished"]:
        raise NoMinisError("the battle is over.", field="type")
    pending = st["pending"]
    if pending is not None and kind != "decide":
        raise NoMinisError(
            f"type must be 'decide' to answer the pending {pending['kind'].replace('_', ' ')} question.", field="type"
        )
    phase = st["phase"]
    if kind == "decide":
        if pending is None:
            raise NoMinisError("type: there is no pending question to decide.", field="type")
        _decide(st, action, dice, tables, events)
        if st["phase"] == "firefight":
            _after_engagement(st, events)
        else:
            _check_end(st, events)
        return events
    expected = {
        "flow": ("roll_flow_event",),
        "initiative": ("roll_initiative",),
        "assign": ("assign_initiative",),
        "actions": ("initiative_action", "end_initiative"),
        "firefight": ("engage",),
        "end": ("end_round",),
        "retreat": ("retreat",),
    }[phase]
    if kind not in expected:
        raise NoMinisError(f"type must be one of {', '.join(expected)} in the {phase} step; got {kind!r}.", field="type")
    if kind == "roll_flow_event":
        _flow(st, action, dice, tables, events)
    elif kind == "roll_initiative":
        _roll_initiative(st, action, dice, events)
    elif kind == "assign_initiative":
        _assign(st, action, events)
    elif kind == "initiative_action":
        _initiative_action(st, action, dice, tables, events)
    elif kind == "end_initiative":
        _select_enemies(st, dice, tables, events)
        _after_engagement(st, events)
    elif kind == "engage":
        _engage(st, action, dice, tables, events)
        _after_engagement(st, events)
        return events
    elif kind == "end_round":
        _end_round(st, dice, tables, events)
        return events
    elif kind == "retreat":
        names = action.get("names") or []
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        _retreat(st, [str(n) for n in names], dice, tables, events)
        _check_end(st, events)
        if not st["finished"]:
            st["round"] += 1
            _start_round(st)
            events.append(_event("round", f"Round {st['round']} begins."))
        return events
    _check_end(st, events)
    return events


def apply(state: Mapping[str, Any], action: Mapping[str, Any], dice: Dice, tables: Tables) -> tuple[State, list[Event]]:
    """Apply one ``action`` (see the module docstring) to ``state``; returns ``(new_state, events)``.

    Events are ``{"kind", "text", "rolls": [RollRecord.as_dict()], ...}``. ``state`` is not changed.
    Raises :class:`NoMinisError` (``field`` names the bad key) when the rules refuse the action.
    """
    st = _copy_state(state)
    events = _apply_mut(st, action, dice, tables)
    return st, events


# -- choices and the automatic policy -----------------------------------------------------------------


def choices(state: Mapping[str, Any], tables: Tables) -> list[dict[str, Any]]:
    """The legal actions now, each ``{"type", ..., "label"}``. Initiative Actions are listed without
    the optional ``bonus`` and ``faces`` keys, which the player may add. Empty when the battle is over."""
    st: State = state  # type: ignore[assignment]
    if st["finished"]:
        return []
    pending = st["pending"]
    out: list[dict[str, Any]] = []
    if pending is not None:
        kind = pending["kind"]
        if kind == "fleeting_shot":
            out += [
                {"type": "decide", "target": e["name"], "label": f"Fleeting shot at {e['name']}"} for e in _active_enemies(st)
            ]
            out.append({"type": "decide", "target": None, "label": "No Fleeting shot"})
        elif kind == "find_shortcut":
            crew = _crew(st, pending["crew"])
            out += [
                {"type": "decide", "location": loc["name"], "label": f"{crew['name']} moves to {loc['name']}"}
                for loc in _free_known(st, crew)
            ]
            out.append({"type": "decide", "location": None, "label": "Stay put"})
        elif kind == "careful_maneuvering":
            out += [{"type": "decide", "enemy": e["name"], "label": f"{e['name']} cannot attack"} for e in _active_enemies(st)]
        elif kind == "covered_retreat":
            out.append({"type": "decide", "names": [], "label": "Nobody withdraws"})
            out += [{"type": "decide", "names": [c["name"]], "label": f"{c['name']} withdraws"} for c in _active_crew(st)]
        elif kind == "charge":
            out.append({"type": "decide", "engage": True, "label": f"Brawl {pending['enemy']}"})
            out.append({"type": "decide", "engage": False, "label": "Do not engage"})
        elif kind == "optimal_shot":
            weapon = _gun_named(_crew(st, pending["crew"]), pending["weapon"])
            ranges = sorted({r for r in (6, 12, 18, 24, 30, 36, weapon["range"]) if r <= weapon["range"]})
            out += [{"type": "decide", "range": r, "label": f'Fire at {r}"'} for r in ranges]
            out.append({"type": "decide", "range": None, "label": "Hold fire"})
        elif kind == "support":
            out.append({"type": "decide", "supporter": None, "label": f"{pending['crew']} faces {pending['enemy']}"})
            out += [{"type": "decide", "supporter": s, "label": f"{s} steps in"} for s in pending["supporters"]]
        elif kind == "respond":
            if pending["can_fire"]:
                out.append({"type": "decide", "fire": True, "brawl": False, "label": "Fire"})
            out.append({"type": "decide", "fire": False, "brawl": False, "label": "Hold fire"})
            if pending["can_brawl"]:
                out.append({"type": "decide", "fire": False, "brawl": True, "label": "Close to Brawl instead"})
        return out
    phase = st["phase"]
    if phase == "flow":
        return [{"type": "roll_flow_event", "label": "Roll a Battle flow event (D100)"}]
    if phase == "initiative":
        return [{"type": "roll_initiative", "label": "Roll Reaction dice"}]
    if phase == "assign":
        suggestion = suggested_assignment(st)
        return [
            {
                "type": "assign_initiative",
                "assignments": suggestion,
                "label": "Assign dice: " + ", ".join(f"{k} {v}" for k, v in suggestion.items()),
            }
        ]
    if phase == "actions":
        for crew in _active_crew(st):
            if not crew["eligible"] or crew["acted"]:
                continue
            for name in ACTIONS:
                for extra in _action_params(st, crew, name):
                    action = {"type": "initiative_action", "actor": crew["name"], "action": name, **extra}
                    if _action_problem(st, crew, name, action, tables) is None:
                        detail = " ".join(str(v) for v in extra.values())
                        action["label"] = f"{crew['name']}: {name}{' ' + detail if detail else ''}"
                        out.append(action)
        out.append({"type": "end_initiative", "label": "On to the Firefight"})
        return out
    if phase == "firefight":
        fight = st["firefight"]
        return [{"type": "engage", "enemy": n, "label": f"Resolve {n}"} for n in fight["selected"] if n not in fight["resolved"]]
    if phase == "end":
        return [{"type": "end_round", "label": "End the round: Morale"}]
    if phase == "retreat":
        out.append({"type": "retreat", "names": [], "label": "Nobody retreats"})
        out += [{"type": "retreat", "names": [c["name"]], "label": f"{c['name']} tries to retreat"} for c in _active_crew(st)]
        return out
    return out


def _action_params(st: State, crew: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    if name == SCOUT:
        return [{"location": loc["name"]} for loc in st["locations"] if not loc["known"]]
    if name == MOVE_UP:
        params: list[dict[str, Any]] = [{"location": loc["name"]} for loc in _free_known(st, crew)]
        if crew["location"] is not None:
            params.append({"location": None})
        return params
    if name == SUPPORT:
        return [{"ally": c["name"]} for c in _active_crew(st) if c["name"] != crew["name"]]
    return [{}]


def _needed_location(st: State, crew: Mapping[str, Any]) -> dict[str, Any] | None:
    """A free known Location this crew figure should head for (automatic policy)."""
    mission = st["mission"]
    objective = st["objective"]
    if objective["achieved"] or objective["failed"]:
        return None
    for loc in _free_known(st, crew):
        kind = loc["kind"]
        if kind in ("item", "dropped") and objective.get("carrier") is None:
            return loc
        if kind == "console" or kind == "exit" or (kind == "search" and not loc["checked"]):
            return loc
        if kind == "delivery" and objective.get("carrier") == crew["name"]:
            return loc
        if kind == "patrol" and not loc["checked"]:
            return loc
        if kind == "centre" and not any(lc["kind"] == "centre" and lc["occupant"] for lc in st["locations"]):
            return loc
        if kind == "objective" and mission == "protect" and crew["name"] in (objective["escort"], objective["vip"]):
            return loc
    return None


def auto_action(state: Mapping[str, Any], tables: Tables) -> dict[str, Any]:
    """The default choice for the current step (the automatic policy).

    Policy: roll whatever must be rolled; assign Reaction dice with :func:`suggested_assignment`.
    Each acting character, in crew order, takes the first of: Carry Out Task where it is; Move Up to
    a known Location the mission needs (the carrier to the delivery point, the escort to the
    objective); Scout for a suspected objective Location (from round 2); Optimal Shot if it has a gun
    (fired at the weapon's full range); Charge if it has only Brawling weapons and is not Stunned;
    otherwise Take Cover. It always Brawls after a successful Charge, never uses Support or Keep
    Distance, always fires when able except that a figure with a Melee weapon holds fire at an enemy
    closing to Brawl (so it keeps its Melee bonus, p.69), closes to Brawl instead only with a Melee
    weapon when out-ranged, and resolves enemies in the drawn order. Battle flow choices: the Fleeting shot goes
    at the first enemy (Eliminate target first), Find shortcut goes to a needed Location, Careful
    maneuvering picks the enemy with the most Shots x (Damage + 1), Covered retreat takes the item
    carrier (Acquire) only. At the end of a round it retreats the Acquire carrier holding the item
    (and nobody else). Raises :class:`NoMinisError` when the battle is over.
    """
    st: State = state  # type: ignore[assignment]
    if st["finished"]:
        raise NoMinisError("the battle is over.", field="type")
    pending = st["pending"]
    objective = st["objective"]
    if pending is not None:
        kind = pending["kind"]
        if kind == "fleeting_shot":
            foes = sorted(_active_enemies(st), key=lambda e: not e.get("target"))
            return {"type": "decide", "target": foes[0]["name"], "label": f"Fleeting shot at {foes[0]['name']}"}
        if kind == "find_shortcut":
            loc = _needed_location(st, _crew(st, pending["crew"]))
            return {"type": "decide", "location": loc["name"] if loc else None, "label": "Find shortcut"}
        if kind == "careful_maneuvering":
            worst = max(_active_enemies(st), key=lambda e: max((w["shots"] * (w["damage"] + 1) for w in e["weapons"]), default=0))
            return {"type": "decide", "enemy": worst["name"], "label": f"{worst['name']} cannot attack"}
        if kind == "covered_retreat":
            carrier = objective.get("carrier") if st["mission"] == "acquire" else None
            names = [carrier] if carrier and _crew(st, carrier)["status"] == "active" else []
            return {"type": "decide", "names": names, "label": "Covered retreat"}
        if kind == "charge":
            return {"type": "decide", "engage": True, "label": "Brawl"}
        if kind == "optimal_shot":
            weapon = _gun_named(_crew(st, pending["crew"]), pending["weapon"])
            return {"type": "decide", "range": weapon["range"], "label": f'Fire at {weapon["range"]}"'}
        if kind == "support":
            return {"type": "decide", "supporter": None, "label": "No swap"}
        if kind == "respond":
            brawl = bool(pending["can_brawl"])
            keep_blade = pending["engagement"] == "enemy_charges" and _melee_weapon(_crew(st, pending["crew"])) is not None
            fire = bool(pending["can_fire"]) and not brawl and not keep_blade
            return {"type": "decide", "fire": fire, "brawl": brawl, "label": "Respond"}
    phase = st["phase"]
    if phase == "flow":
        return {"type": "roll_flow_event", "label": "Battle flow event"}
    if phase == "initiative":
        return {"type": "roll_initiative", "label": "Reaction dice"}
    if phase == "assign":
        return {"type": "assign_initiative", "assignments": suggested_assignment(st), "label": "Assign dice"}
    if phase == "actions":
        for crew in _active_crew(st):
            if crew["eligible"] and not crew["acted"]:
                return _auto_initiative(st, crew, tables)
        return {"type": "end_initiative", "label": "On to the Firefight"}
    if phase == "firefight":
        fight = st["firefight"]
        waiting = [n for n in fight["selected"] if n not in fight["resolved"]]
        return {"type": "engage", "enemy": waiting[0], "label": f"Resolve {waiting[0]}"}
    if phase == "end":
        return {"type": "end_round", "label": "End of round"}
    names = []
    if st["mission"] == "acquire" and objective.get("carrier") and not objective["achieved"]:
        carrier = _crew(st, objective["carrier"])
        if carrier["status"] == "active":
            names = [carrier["name"]]
    return {"type": "retreat", "names": names, "label": "Retreat"}


def _auto_initiative(st: State, crew: Mapping[str, Any], tables: Tables) -> dict[str, Any]:
    base = {"type": "initiative_action", "actor": crew["name"]}

    def ok(action: dict[str, Any]) -> bool:
        return _action_problem(st, crew, action["action"], action, tables) is None

    candidates: list[dict[str, Any]] = [{**base, "action": TASK}]
    loc = _needed_location(st, crew)
    if loc is not None:
        candidates.append({**base, "action": MOVE_UP, "location": loc["name"]})
    objective = st["objective"]
    if not objective["achieved"]:
        for suspected in st["locations"]:
            if not suspected["known"] and suspected["kind"] not in ("sight",):
                candidates.append({**base, "action": SCOUT, "location": suspected["name"]})
                break
    candidates += [{**base, "action": OPTIMAL_SHOT}]
    if _melee_only(crew):
        candidates.append({**base, "action": CHARGE})
    candidates.append({**base, "action": TAKE_COVER})
    for action in candidates:
        if ok(action):
            action["label"] = f"{crew['name']}: {action['action']}"
            return action
    return {**base, "action": TAKE_COVER, "label": f"{crew['name']}: {TAKE_COVER}"}


def play_automatic(state: Mapping[str, Any], dice: Dice, tables: Tables, *, limit_rounds: int = 30) -> tuple[State, list[Event]]:
    """Play ``state`` to the end with :func:`auto_action` (or until round ``limit_rounds`` ends;
    the state then stays unfinished). Returns the final state and every event in order."""
    st = _copy_state(state)
    events: list[Event] = []
    while not st["finished"]:
        if st["round"] > limit_rounds:
            events.append(_event("limit", f"Stopped after {limit_rounds} rounds."))
            break
        action = auto_action(st, tables)
        events += _apply_mut(st, action, dice, tables)
    return st, events


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The battle's result: ``{"finished", "held_field", "crew_casualties", "crew_injured",
    "enemies_killed", "enemies_fled", "rounds", "retreated", "exited", "objective": {mission,
    achieved, failed, detail}}``. ``held_field``: the crew still had figures on the field when the
    last enemy went."""
    st: State = state  # type: ignore[assignment]
    casualties = [c["name"] for c in st["crew"] if c["status"] == "casualty"]
    objective = st["objective"]
    return {
        "finished": bool(st["finished"]),
        "held_field": bool(st["finished"] and not _active_enemies(st) and _active_crew(st)),
        "crew_casualties": casualties,
        "crew_injured": list(casualties),
        "enemies_killed": int(st["enemies_killed"]),
        "enemies_fled": sum(1 for e in st["enemies"] if e["status"] == "fled"),
        "rounds": int(st["round"]),
        "retreated": [c["name"] for c in st["crew"] if c["status"] == "retreated"],
        "exited": [c["name"] for c in st["crew"] if c["status"] == "exited"],
        "objective": {
            "mission": MISSIONS[st["mission"]],
            "achieved": bool(objective["achieved"]),
            "failed": bool(objective["failed"]),
            "detail": objective["detail"],
        },
    }


__all__ = [
    "ACTIONS",
    "MISSIONS",
    "NoMinisError",
    "NoMinisOptions",
    "apply",
    "auto_action",
    "choices",
    "new_battle",
    "outcome",
    "play_automatic",
    "suggested_assignment",
    "weapon_dict",
]
