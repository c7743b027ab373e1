"""Five Parsecs live battle tracker (Compendium pp.30-49, 99-100; the core rulebook's battle round):
a reducer over a JSON-ready state, in the style of :mod:`bughunt.engine.tracker`.

``apply(state, action, dice, tables) -> (new_state, events)`` deep-copies the state, dispatches on
``action.type`` and refuses with :class:`TrackerError` naming the payload field (changing nothing)
when the rules say no. ``initial_state(setup, tables)`` builds the battle from a set-up mapping and
``outcome(state)`` sums it up for the post-battle sequence. Every roll is returned in an event's
``data["rolls"]`` as RollRecord dicts; players may type the faces they rolled (``faces`` and the
other ``*_faces`` keys), so replaying an action with the same seed gives the same state.

The round: Seize the Initiative before round 1; then each round Reactions (one D6 per crew figure,
assigned freely: at or under the figure's Reactions acts in the Quick Action phase, above it in
the Slow Action phase), Quick Actions, Enemy Actions, Slow Actions, and the End phase where the
round-end rules run in this order: Morale, Respawns, "Movement all over the place" arrivals,
deployment arrivals (Infiltration, Reinforced, Concealed), the Escalation check, the time limit.

What the core rulebook holds (not in our source) is an input, never a number of ours:
the Seize the Initiative dice and target (``seize_dice``, ``seize_target``), the hit numbers when
Dramatic Combat is off (``hit_numbers``), weapon profiles typed by the user, enemy profiles and
Panic ranges (set-up).

Rulings:

- Morale: at the end of a round each enemy group rolls one Morale D6 per figure of that group that
  became a casualty this round (the Compendium counts Morale dice per casualty, pp.49, 56); each die
  within the group's Panic range makes one figure flee. Fearless figures never flee; basic enemies
  flee first, then specialists, then leaders (as p.72 orders it); the owner may swap with ``adjust``.
- Panic range: set-up gives the top of the range ("1-2" is 2, 0 is Fearless). Escalation "Morale
  increase" lowers it by 1 for every group, then the elite Leadership table (p.49, only for groups
  marked ``elite``) reads the lowered range with the highest rank still on the table. A range the
  table does not list is left as it is.
- Escalation triggers (p.46) count enemies removed during the round, including those that fled
  at this round's Morale, which is checked first. "Morale increase" when every group is already
  Fearless becomes "Fighting intensifies". Random picks (an enemy, a flank) use a die of the
  right size and are recorded. New figures copy the group's basic profile and weapons.
- Deployment variables (pp.44-45): failing to Seize the Initiative (or being unable to) rolls the
  D100 deployment table for the main AI type; seizing means Line. "Half" the force is the later
  half of the enemy list, rounded down; Concealed splits the force into three groups in turn.
  The battle does not end on an empty table while Infiltration or Concealed figures are still to
  come; Reinforced ends it when the table is empty after its roll (p.45).
- Progressive difficulty option 1 (p.30): the highest Strength entry at or under the campaign turn
  adds figures to the first enemy group at set-up; the highest Respawn entry replaces that many
  of the first basic enemies to become casualties, at the end of the round they fell. Option 2
  (p.31) switches on the listed options from its campaign turn.
- Casualty tables (pp.99-100, rolled by :func:`battles.engine.fp_combat.casualty`): one roll per
  hit that beat Toughness (knock-outs by Stun markers skip the tables), the Boss column for the
  crew captain, Lieutenants, Captains and Unique Individuals; only the highest applies; Damaged
  and Bleeding add their +1 to later rolls. Critical Hit: one extra roll per such hit whose Hit
  die was a natural 6 (``critical`` in the payload forces one). Wounded halves Speed (rounded
  down) and takes 1 from Combat Skill (not below -1); a second Wounded is a Goner. Dazed / shut
  down figures keep their Stun marker at their next activation.
- Activation: a crew figure's ``act`` or an enemy's ``enemy_act`` removes one Stun marker (unless
  Dazed); Damaged figures roll a D6 as they activate (6 removes them); Bleeding figures roll a D6
  after it (1 ends it, 6 is a Goner).
- Paying by the Hour (p.34): the time limit (2D6 keep the higher, +4) is rolled as the battle
  starts; after that round only Defend and Fight Off objectives can still be won.
- Holding the Field: the crew hold it when the enemy is gone from the table at a round's end (and
  none is still to arrive); not when every crew figure is a casualty; otherwise the owner says so
  with ``end_battle``.

State::

    {"round": 0, "phase": "setup" | "start" | "quick" | "enemy" | "slow" | "end" | "over",
     "ai": "tactical", "campaign_turn": 1, "objective": "Fight Off",
     "options": {"casualty_tables": False, "critical_hits": False, "escalating_battles": False,
                 "escalation_variation": False, "deployment_variables": False, "ai_variations": False,
                 "dramatic_combat": False, "movement_all_over": False, "paying_by_the_hour": False,
                 "actually_specialized": False, "armored_leaders": False, "veteran": False,
                 "progressive": [1, 2], "from_progressive": ["escalating_battles"]},
     "seize": {"dice": "2D6" | None, "target": 10 | None, "modifier": 0, "allowed": True,
               "no_modifiers": False, "result": None | "seized" | "failed" | "not_allowed", "total": None},
     "hit_numbers": None | {"open": 4, "cover": 5},
     "deployment": None | {"name": "Reinforced", "key": "reinforced", "effect": "..."},
     "time_limit": None | 7, "time_up": False,
     "reaction_dice": [4, 1, 6], "reactions_one_round": None | 3,
     "reaction_pick": {"dice": [{"die": 1, "face": 4, "holder": "c1" | None, "holder_name": "Ripley"}], "first_free": 2 | None},
     "panic_shift": 0, "escalation": {"rolls": 0, "seen": ["sniper"], "objective_round": None | 2},
     "respawns": {"allowed": 0, "used": 0}, "movement_arrivals": 0,
     "groups": [{"id": "g1", "name": "Punks", "panic": 2, "elite": False, "kind": "humanoid",
                 "ai": "aggressive", "profile": {...}, "weapons": [...], "specialist_weapons": [...],
                 "save": None}],
     "crew": [{...figure, "side": "crew", "rank": "crew", "reactions": 1, "savvy": 0, "captain": False,
               "owner": "", "die": None | 0, "face": None | 4, "slot": None | "quick" | "slow"}],
     "enemies": [{...figure, "side": "enemy", "group": "g1",
                  "rank": "basic" | "specialist" | "lieutenant" | "captain" | "unique",
                  "waiting": None | "reinforced" | "infiltration" | "concealed1"}],
     "held_field": None | True | False, "now": "...", "last": None | {"type", "text"},
     "next": {"crew": 4, "enemy": 9}}

A figure: ``{"id", "name", "side", "kind": "humanoid" | "cybernetic" | "beasts", "boss", "speed",
"combat_skill", "toughness", "save", "weapons": [{"name", "range", "shots", "damage", "traits"}],
"stun", "wounded", "unwounded" (profile before Wounded), "dazed", "damaged", "bleeding",
"casualty_modifier", "fearless", "acted",
"status": "active" | "casualty" | "fled" | "held", "down_round": None | 2, "notes": []}``.

Actions (``figure`` is a crew id ``c1``…, ``enemy`` an enemy id ``e1``…; faces are lists or "6, 3"):

- set-up: ``seize`` {faces?, modifier?} (rolls the deployment table too when that option is on
  and the crew did not seize; ``deployment_face`` is a typed D100), ``set_player`` {figure, player}.
- round: ``next_phase`` {time_faces? (leaving set-up), morale_faces?, escalation_face?,
  arrival_faces?, edge_faces?, reinforced_face?, placement_face?, feature_faces?, pick_faces?,
  objective_reached?}, ``roll_reactions`` {faces?}, ``assign_reaction`` {figure, die (1-based)},
  ``act`` {figure, faces?}, ``enemy_act`` {enemy, base?, also?, faces?, check_faces?},
  ``objective_reached``, ``end_battle`` {held_field?}.
- figures: ``adjust`` {figure | enemy, stun?, stun_change?, wounded?, status?}.
- combat: ``resolve`` {attacker, target (crew or enemy ids), mode: shot | brawl, weapon?,
  target_weapon?, range?, cover?, moved?, fired_last_round?, faces?, casualty_faces?, critical?}
  through :mod:`battles.engine.fp_combat`.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from battles.engine import fp_combat
from live.engine.tracker import (
    Action,
    Event,
    NotYours,
    Role,
    TrackerError,
    flag_value,
    payload_faces,
    payload_flag,
    payload_int,
    payload_ints,
    payload_words,
    reaction_pick,
    require_owner,
)
from rules.engine.dice import Dice, DiceError, Keep, RollRecord, parse
from rules.engine.tables import Entry, RangeTable, TableError

SOURCE = "Five Parsecs Compendium pp.30-49, 99-100"
PHASES: tuple[str, ...] = ("setup", "start", "quick", "enemy", "slow", "end", "over")
PHASE_NAMES: dict[str, str] = {
    "setup": "Set-up (Seize the Initiative)",
    "start": "Start of round (Reactions)",
    "quick": "Quick Action phase",
    "enemy": "Enemy Action phase",
    "slow": "Slow Action phase",
    "end": "End phase",
    "over": "Battle over",
}
AI_TYPES: tuple[str, ...] = ("aggressive", "cautious", "defensive", "rampage", "tactical", "beast")
"""Main AI types, as the columns of the deployment and escalation tables (pp.44, 46)."""
AI_VARIATION_TYPES: tuple[str, ...] = ("cautious", "aggressive", "tactical", "defensive")
"""AI types with a variation table (pp.42-43); Beast and Rampage act as usual."""
RANKS: tuple[str, ...] = ("basic", "specialist", "lieutenant", "captain", "unique")
KINDS: tuple[str, ...] = ("humanoid", "cybernetic", "beasts")
STATUSES: tuple[str, ...] = ("active", "casualty", "fled")
OPTION_FLAGS: tuple[str, ...] = (
    "casualty_tables",
    "critical_hits",
    "escalating_battles",
    "escalation_variation",
    "deployment_variables",
    "ai_variations",
    "dramatic_combat",
    "movement_all_over",
    "paying_by_the_hour",
    "actually_specialized",
    "armored_leaders",
    "veteran",
    "better_leadership",
    "strength_adjusted_enemies",
    "elite_level_enemies",
)
TIME_OBJECTIVES: tuple[str, ...] = ("Defend", "Fight Off")
"""Objectives still winnable after the time limit (p.34); also in difficulty-toggles data."""
ESCALATION_EDGE: dict[str, str] = {"1-2": "left", "3-4": "right", "5-6": "enemy"}


# -- small helpers --------------------------------------------------------------------------------------


def _err(message: str, field: str | None = None) -> TrackerError:
    return TrackerError(message, field=field)


def _rolls(*records: RollRecord) -> dict[str, Any]:
    """Event data for the rolls: every record under ``rolls``; a lone one also under ``roll`` (the room log shows it)."""
    data: dict[str, Any] = {"rolls": [r.as_dict() for r in records]}
    if len(records) == 1:
        data["roll"] = data["rolls"][0]
    return data


def _roll(dice: Dice, notation: str, reason: str, faces: Sequence[int] | None, *, keep: Keep = Keep.SUM) -> RollRecord:
    """Roll ``notation``, or record the typed ``faces``. Raises :class:`TrackerError` for bad faces."""
    try:
        return dice.roll_or_enter(notation, reason, faces=list(faces) if faces else None, keep=keep)
    except DiceError as exc:
        raise _err(str(exc), "faces") from None


def _planned(raw: Any) -> dict[str, int | None]:
    """Rolls the set-up card already made: ``deployment_face`` (the D100 of Deployment Variables,
    1-100) and ``time_limit`` (the round Paying us by the Hour ends, 1-30); each may be absent."""
    if raw in (None, ""):
        return {"deployment_face": None, "time_limit": None}
    if not isinstance(raw, Mapping):
        raise _err("planned must be {deployment_face, time_limit}: rolls made on the set-up card.", "planned")
    face, limit = raw.get("deployment_face"), raw.get("time_limit")
    return {
        "deployment_face": None if face in (None, "") else _int(face, "planned.deployment_face", 1, 100),
        "time_limit": None if limit in (None, "") else _int(limit, "planned.time_limit", 1, 30),
    }


def _face(action: Action, key: str, sides: int = 6) -> int | None:
    """One typed die face (1..``sides``) under ``key``, or ``None`` when absent or blank."""
    got = payload_faces(action, key, 1, sides)
    return None if got is None else got[0]


def _take(faces: list[int], count: int) -> list[int] | None:
    """The next ``count`` typed faces, or ``None`` when none are left (the app rolls)."""
    if len(faces) < count:
        faces.clear()
        return None
    got = faces[:count]
    del faces[:count]
    return got


def _table_row(table: RangeTable, key: str, value: str) -> Entry:
    for entry in table.entries:
        if entry.data.get(key) == value:
            return entry
    raise _err(f"Table {table.slug} has no row with {key} {value!r}.", "tables")  # pragma: no cover - shipped


def _need(tables: Mapping[str, RangeTable], slug: str) -> RangeTable:
    try:
        return tables[slug]
    except KeyError:
        raise _err(f"The {slug} table is not loaded: run `manage.py load_tables`.", "tables") from None


def _edge(mapping: Mapping[str, str], face: int) -> str:
    for span, edge in mapping.items():
        low, _, high = span.partition("-")
        if int(low) <= face <= int(high or low):
            return edge
    return "enemy"  # pragma: no cover - the maps cover 1-6


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


# -- set-up ----------------------------------------------------------------------------------------------


def _int(raw: Any, key: str, low: int, high: int, default: int | None = None) -> int:
    if raw is None or raw == "":
        if default is None:
            raise _err(f"{key} is required: a whole number from {low} to {high}.", key)
        return default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise _err(f"{key} must be a whole number from {low} to {high}; got {raw!r}.", key) from None
    if not low <= value <= high:
        raise _err(f"{key} must be from {low} to {high}; got {value}.", key)
    return value


def _choice(raw: Any, key: str, allowed: Sequence[str], default: str | None = None) -> str:
    value = default if raw is None or raw == "" else str(raw).strip().lower()
    if value is None or value not in allowed:
        raise _err(f"{key} must be one of {', '.join(allowed)}; got {raw!r}.", key)
    return value


def _panic(raw: Any, key: str) -> int:
    """A Panic range as its top face: "1-2" -> 2, "1" -> 1, 0 / "0" / "Fearless" -> 0."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    else:
        text = str(raw if raw is not None else "").strip().lower()
        if text in ("", "fearless", "0", "-", "none"):
            return 0
        low, _, high = text.partition("-")
        try:
            value = int(high or low)
            if high and int(low) != 1:
                raise ValueError
        except ValueError:
            raise _err(f"{key} must be a Panic range such as 1-2, 1 or 0 (Fearless); got {raw!r}.", key) from None
    if not 0 <= value <= 6:
        raise _err(f"{key} must be a Panic range from 0 (Fearless) to 1-6; got {raw!r}.", key)
    return value


def _panic_text(value: int) -> str:
    return "Fearless" if value <= 0 else ("1" if value == 1 else f"1-{value}")


def _weapon(tables: Mapping[str, RangeTable], raw: Any, key: str) -> dict[str, Any]:
    """A weapon as a dict: typed ``{name, range, shots, damage, traits}`` (core profiles) or a name
    from the Dramatic Weapons table (pp.88-89)."""
    try:
        if isinstance(raw, Mapping):
            made = fp_combat.Weapon.from_dict({"range": 0, "shots": 0, "damage": 0, **raw})
        else:
            made = fp_combat.weapon(tables, str(raw))
    except fp_combat.CombatError as exc:
        raise _err(f"{key}: {exc}", key) from None
    return made.as_dict()


def _weapons(tables: Mapping[str, RangeTable], raw: Any, key: str) -> list[dict[str, Any]]:
    items = [raw] if isinstance(raw, str | Mapping) else list(raw or [])
    return [_weapon(tables, item, f"{key}[{n}]") for n, item in enumerate(items)]


def _stats(raw: Mapping[str, Any], key: str, *, crew: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "speed": _int(raw.get("speed"), f"{key}.speed", 0, 12),
        "combat_skill": _int(raw.get("combat_skill"), f"{key}.combat_skill", -3, 6),
        "toughness": _int(raw.get("toughness"), f"{key}.toughness", 1, 10),
    }
    if crew:
        out["reactions"] = _int(raw.get("reactions"), f"{key}.reactions", 0, 6)
        out["savvy"] = _int(raw.get("savvy"), f"{key}.savvy", -3, 6, 0)
    save = raw.get("save")
    out["save"] = None if save in (None, "", 0, "0", "none") else _int(save, f"{key}.save", 2, 6)
    return out


def _figure(
    fid: str, name: str, side: str, stats: Mapping[str, Any], weapons: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    fig: dict[str, Any] = {
        "id": fid,
        "name": name,
        "side": side,
        "kind": "humanoid",
        "boss": False,
        "reactions": 1,
        "savvy": 0,
        **stats,
        "weapons": weapons,
        "stun": 0,
        "wounded": False,
        "unwounded": None,
        "dazed": False,
        "damaged": False,
        "bleeding": False,
        "casualty_modifier": 0,
        "fearless": False,
        "acted": False,
        "status": "active",
        "down_round": None,
        "notes": [],
    }
    fig.update(extra)
    return fig


def _options(setup: Mapping[str, Any], tables: Mapping[str, RangeTable], turn: int) -> dict[str, Any]:
    raw = setup.get("options") or {}
    if not isinstance(raw, Mapping):
        raise _err("options must be a mapping of option names to on/off.", "options")
    known = set(OPTION_FLAGS) | {"progressive", "toggles"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise _err(f"Unknown option {unknown[0]!r}; options are {', '.join(sorted(known))}.", "options")
    options: dict[str, Any] = {name: flag_value(raw.get(name), f"options.{name}") for name in OPTION_FLAGS}
    for toggle in raw.get("toggles") or []:  # CampaignOptions.toggles
        if toggle in OPTION_FLAGS:
            options[toggle] = True
    progressive = raw.get("progressive") or []
    progressive = [progressive] if isinstance(progressive, int | str) else list(progressive)
    chosen = sorted({_int(p, "options.progressive", 1, 2) for p in progressive})
    options["progressive"] = chosen
    options["from_progressive"] = []
    if 2 in chosen:  # p.31: options switched on from a campaign turn
        for entry in _need(tables, "progressive-difficulty-option-2").entries:
            if int(entry.data["campaign_turn"]) <= turn:
                for name in entry.data.get("enables", []):
                    if name in options and not options[name]:
                        options[name] = True
                        options["from_progressive"].append(name)
    return options


def _progressive_one(tables: Mapping[str, RangeTable], turn: int) -> tuple[Entry | None, Entry | None]:
    """The highest Respawn and Strength rows at or under ``turn`` (p.30)."""
    best: dict[str, Entry] = {}
    for entry in _need(tables, "progressive-difficulty-option-1").entries:
        kind = entry.data["modification"]
        if int(entry.data["campaign_turn"]) <= turn and (kind not in best or entry.data["level"] > best[kind].data["level"]):
            best[kind] = entry
    return best.get("respawn"), best.get("strength")


def initial_state(setup: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """A battle ready for Seize the Initiative from ``setup``:

    - ``crew``: list of ``{name, reactions, speed, combat_skill, toughness, savvy, save (D6 target or
      None), weapons: [name | {name, range, shots, damage, traits}], captain, kind, owner}``.
    - ``enemies``: list of groups ``{name, count (basic figures), profile: {speed, combat_skill,
      toughness, save?}, weapons, panic ("1-2", 1, 0 = Fearless), specialists, specialist_weapons,
      lieutenants, captains, unique: [{name, speed, combat_skill, toughness, save, weapons, ai}],
      kind, ai, elite}``.
    - ``options`` (see :data:`OPTION_FLAGS`, ``progressive`` [1, 2], ``toggles`` as in
      CampaignOptions), ``campaign_turn`` (1-999), ``ai`` (main AI type, :data:`AI_TYPES`),
      ``objective`` (text), ``seize_modifier``, ``seize_allowed``, ``seize_no_modifiers``,
      ``seize_dice`` and ``seize_target`` (core rulebook p.112, the user's numbers),
      ``hit_numbers`` {open, cover} (core rulebook, needed without Dramatic Combat),
      ``planned`` {deployment_face, time_limit}: rolls the set-up card already made, used instead
      of rolling Deployment Variables' D100 or Paying us by the Hour's time limit again (dice the
      player types in the action still win).

    Set-up options applied here: Actually Specialized, Armored Leaders, Veteran (pp.32-33, numbers
    from difficulty-toggles), elite rank upgrades (p.49, elite-rank-upgrades), progressive Strength
    (p.30). Raises :class:`TrackerError` naming the bad key.
    """
    turn = _int(setup.get("campaign_turn"), "campaign_turn", 1, 999, 1)
    options = _options(setup, tables, turn)
    ai = _choice(setup.get("ai"), "ai", AI_TYPES, "tactical")
    crew_raw = setup.get("crew") or []
    if not isinstance(crew_raw, list | tuple) or not crew_raw:
        raise _err("crew is required: a list of crew figures (name, Reactions, Speed, Combat Skill, Toughness, ...).", "crew")
    groups_raw = setup.get("enemies") or []
    if not isinstance(groups_raw, list | tuple) or not groups_raw:
        raise _err("enemies is required: a list of enemy groups (name, count, profile, weapons, panic).", "enemies")
    hit = setup.get("hit_numbers")
    hit_numbers = None
    if hit:
        if not isinstance(hit, Mapping):
            raise _err("hit_numbers must be {open, cover}: your core rulebook's D6 targets.", "hit_numbers")
        hit_numbers = {b: _int(hit.get(b), f"hit_numbers.{b}", 2, 7) for b in ("open", "cover")}
    seize_dice = str(setup.get("seize_dice") or "").strip().upper() or None
    if seize_dice:
        try:
            parse(seize_dice)
        except DiceError as exc:
            raise _err(f"seize_dice: {exc}", "seize_dice") from None
    state: dict[str, Any] = {
        "round": 0,
        "phase": "setup",
        "ai": ai,
        "campaign_turn": turn,
        "objective": str(setup.get("objective") or "").strip()[:40],
        "options": options,
        "seize": {
            "dice": seize_dice,
            "target": None if setup.get("seize_target") in (None, "") else _int(setup.get("seize_target"), "seize_target", 2, 30),
            "modifier": _int(setup.get("seize_modifier"), "seize_modifier", -6, 6, 0),
            "allowed": flag_value(setup.get("seize_allowed", True), "seize_allowed"),
            "no_modifiers": flag_value(setup.get("seize_no_modifiers"), "seize_no_modifiers"),
            "result": None,
            "total": None,
        },
        "hit_numbers": hit_numbers,
        "planned": _planned(setup.get("planned")),
        "deployment": None,
        "time_limit": None,
        "time_up": False,
        "reaction_dice": [],
        "reactions_one_round": None,
        "panic_shift": 0,
        "escalation": {"rolls": 0, "seen": [], "objective_round": None},
        "respawns": {"allowed": 0, "used": 0},
        "movement_arrivals": 0,
        "groups": [],
        "crew": [],
        "enemies": [],
        "held_field": None,
        "now": "",
        "last": None,
        "next": {"crew": 1, "enemy": 1},
    }
    for n, raw in enumerate(crew_raw):
        key = f"crew[{n}]"
        if isinstance(raw, str):
            raw = {"name": raw}
        if not isinstance(raw, Mapping) or not str(raw.get("name") or "").strip():
            raise _err(f"{key}.name is required.", f"{key}.name")
        fid = f"c{state['next']['crew']}"
        state["next"]["crew"] += 1
        state["crew"].append(
            _figure(
                fid,
                str(raw["name"]).strip()[:40],
                "crew",
                _stats(raw, key, crew=True),
                _weapons(tables, raw.get("weapons"), f"{key}.weapons"),
                rank="crew",
                kind=_choice(raw.get("kind"), f"{key}.kind", KINDS, "humanoid"),
                captain=flag_value(raw.get("captain"), f"{key}.captain"),
                boss=flag_value(raw.get("captain"), f"{key}.captain"),
                owner=str(raw.get("owner") or ""),
                bot=flag_value(raw.get("bot"), f"{key}.bot"),
                kerin=flag_value(raw.get("kerin"), f"{key}.kerin"),
                die=None,
                face=None,
                slot=None,
            )
        )
    for n, raw in enumerate(groups_raw):
        _add_group(state, tables, raw, f"enemies[{n}]")
    _apply_setup_options(state, tables)
    _refresh(state, tables)
    return state


def _add_group(state: dict[str, Any], tables: Mapping[str, RangeTable], raw: Any, key: str) -> None:
    if not isinstance(raw, Mapping) or not str(raw.get("name") or "").strip():
        raise _err(f"{key}.name is required: the enemy type.", f"{key}.name")
    profile_raw = raw.get("profile") or raw
    if not isinstance(profile_raw, Mapping):
        raise _err(f"{key}.profile must be {{speed, combat_skill, toughness, save}}.", f"{key}.profile")
    gid = f"g{len(state['groups']) + 1}"
    group = {
        "id": gid,
        "name": str(raw["name"]).strip()[:40],
        "panic": _panic(raw.get("panic"), f"{key}.panic"),
        "elite": flag_value(raw.get("elite"), f"{key}.elite"),
        "kind": _choice(raw.get("kind"), f"{key}.kind", KINDS, "humanoid"),
        "ai": _choice(raw.get("ai"), f"{key}.ai", AI_TYPES, state["ai"]),
        "profile": _stats(profile_raw, f"{key}.profile", crew=False),
        "weapons": _weapons(tables, raw.get("weapons"), f"{key}.weapons"),
        "specialist_weapons": [],
    }
    group["specialist_weapons"] = (
        _weapons(tables, raw.get("specialist_weapons"), f"{key}.specialist_weapons")
        if raw.get("specialist_weapons")
        else group["weapons"]
    )
    state["groups"].append(group)
    counts = {
        "basic": _int(raw.get("count"), f"{key}.count", 0, 30),
        "specialist": _int(raw.get("specialists"), f"{key}.specialists", 0, 10, 0),
        "lieutenant": _int(raw.get("lieutenants", raw.get("lieutenant")), f"{key}.lieutenants", 0, 3, 0),
        "captain": _int(raw.get("captains", raw.get("captain")), f"{key}.captains", 0, 1, 0),
    }
    for rank, count in counts.items():
        for _ in range(count):
            _add_enemy(state, group, rank)
    for m, unique in enumerate(raw.get("unique") or []):
        ukey = f"{key}.unique[{m}]"
        if not isinstance(unique, Mapping) or not str(unique.get("name") or "").strip():
            raise _err(f"{ukey}.name is required.", f"{ukey}.name")
        fig = _add_enemy(state, group, "unique", name=str(unique["name"]).strip()[:40])
        fig.update(_stats(unique, ukey, crew=False))
        if unique.get("weapons"):
            fig["weapons"] = _weapons(tables, unique.get("weapons"), f"{ukey}.weapons")
        fig["ai"] = _choice(unique.get("ai"), f"{ukey}.ai", AI_TYPES, str(group["ai"]))
        fig["notes"].append("Unique Individual: Fearless, rolls its own AI (p.49)")


def _add_enemy(
    state: dict[str, Any], group: Mapping[str, Any], rank: str, *, name: str | None = None, note: str = ""
) -> dict[str, Any]:
    eid = f"e{state['next']['enemy']}"
    state["next"]["enemy"] += 1
    same = sum(1 for e in state["enemies"] if e["group"] == group["id"] and e["rank"] == rank) + 1
    label = {"basic": "", "specialist": " specialist", "lieutenant": " Lieutenant", "captain": " Captain", "unique": ""}[rank]
    weapons = group["specialist_weapons"] if rank == "specialist" else group["weapons"]
    fig = _figure(
        eid,
        name or f"{group['name']}{label} {same}",
        "enemy",
        dict(group["profile"]),
        copy.deepcopy(weapons),
        group=group["id"],
        rank=rank,
        kind=group["kind"],
        boss=rank in ("lieutenant", "captain", "unique"),
        fearless=rank == "unique",
        ai=group["ai"],
        waiting=None,
        arrived_round=state["round"],
    )
    if note:
        fig["notes"].append(note)
    if group.get("elite") and rank != "unique":
        _elite_upgrade(state, fig)
    state["enemies"].append(fig)
    return fig


def _elite_upgrade(state: Mapping[str, Any], fig: dict[str, Any]) -> None:
    """Elite rank upgrades (p.49): numbers from elite-rank-upgrades, copied into ``state["elite_ranks"]`` at set-up."""
    data = state.get("elite_ranks", {}).get(fig["rank"])
    if not data:
        return
    fig["combat_skill"] += int(data.get("combat_skill_bonus") or 0)
    if data.get("combat_skill_min") is not None:
        fig["combat_skill"] = max(fig["combat_skill"], int(data["combat_skill_min"]))
    if data.get("toughness_min") is not None:
        fig["toughness"] = max(fig["toughness"], int(data["toughness_min"]))
    if data.get("fearless"):
        fig["fearless"] = True
    if data.get("armor_save_if_unarmored") is not None:
        fig["save"] = (
            max(2, fig["save"] - int(data.get("armor_save_improvement") or 0))
            if fig["save"]
            else int(data["armor_save_if_unarmored"])
        )
    for name in data.get("weapons", []):
        if name in ("basic weapon", "specialist weapon"):
            continue
        found = state.get("elite_weapons", {}).get(name)
        if found:
            fig["weapons"].append(dict(found))
        fig["notes"].append(f"Elite {fig['rank']}: also carries a {name} (p.49)")


def _apply_setup_options(state: dict[str, Any], tables: Mapping[str, RangeTable]) -> None:
    """Set-up rules that change the enemy force (pp.30, 32-33, 49)."""
    options = state["options"]
    toggles = _need(tables, "difficulty-toggles")
    if any(g["elite"] for g in state["groups"]):
        ranks = {str(e.data["rank"]): dict(e.data) for e in _need(tables, "elite-rank-upgrades").entries}
        state["elite_ranks"] = ranks
        state["elite_weapons"] = {}
        for data in ranks.values():
            for name in data.get("weapons", []):
                with contextlib.suppress(fp_combat.CombatError):  # not in Dramatic Weapons: a note only
                    state["elite_weapons"][name] = fp_combat.weapon(tables, name).as_dict()
        for fig in state["enemies"]:
            if fig["rank"] != "unique" and next(g for g in state["groups"] if g["id"] == fig["group"])["elite"]:
                _elite_upgrade(state, fig)
    if options["actually_specialized"]:
        special = _table_row(toggles, "toggle", "actually_specialized").data
        for fig in state["enemies"]:
            if fig["rank"] == "specialist":
                fig["combat_skill"] = max(fig["combat_skill"], int(special["combat_skill_min"]))
                fig["toughness"] = max(fig["toughness"], int(special["toughness_min"]))
    if options["armored_leaders"]:
        armor = _table_row(toggles, "toggle", "armored_leaders").data
        for fig in state["enemies"]:
            if fig["rank"] == "lieutenant" and not fig["save"]:
                fig["save"] = int(armor["saving_throw"])
    if options["veteran"]:
        veteran = _table_row(toggles, "toggle", "veteran").data
        basics = [f for f in state["enemies"] if f["rank"] == "basic"][: int(veteran["veteran_enemies"])]
        for fig in basics:
            fig["combat_skill"] += int(veteran["combat_skill"])
            fig["name"] += " (veteran)"
            fig["notes"].append(f"Veteran: Combat Skill {_signed(int(veteran['combat_skill']))} (p.33)")
    if 1 in options["progressive"]:
        respawn, strength = _progressive_one(tables, state["campaign_turn"])
        if respawn is not None:
            state["respawns"]["allowed"] = int(respawn.data["respawns"])
        if strength is not None:
            group = state["groups"][0]
            for rank, key in (("basic", "basic_enemies"), ("specialist", "specialists"), ("lieutenant", "lieutenants")):
                for _ in range(int(strength.data.get(key) or 0)):
                    _add_enemy(state, group, rank, note=f"{strength.result} (p.30)")


# -- lookups -----------------------------------------------------------------------------------------------


def _crew(state: Mapping[str, Any], fid: Any, *, field: str = "figure", active: bool = True) -> dict[str, Any]:
    for fig in state["crew"]:
        if fig["id"] == str(fid):
            if active and fig["status"] != "active":
                raise _err(f"{fig['name']} is not on the table ({fig['status']}).", field)
            return fig  # type: ignore[no-any-return]
    known = ", ".join(f"{f['id']} ({f['name']})" for f in state["crew"] if f["status"] == "active") or "none"
    raise _err(f"No crew figure {fid!r} on the table; crew: {known}.", field)


def _enemy(state: Mapping[str, Any], eid: Any, *, field: str = "enemy", active: bool = True) -> dict[str, Any]:
    for fig in state["enemies"]:
        if fig["id"] == str(eid):
            if active and fig["status"] != "active":
                raise _err(f"{fig['name']} is not on the table ({fig['status']}).", field)
            return fig  # type: ignore[no-any-return]
    known = ", ".join(f"{f['id']} ({f['name']})" for f in _on_table(state)) or "none"
    raise _err(f"No enemy {eid!r} on the table; enemies: {known}.", field)


def _any_figure(state: Mapping[str, Any], fid: Any, field: str, *, active: bool = True) -> dict[str, Any]:
    text = str(fid or "")
    if text.startswith("e"):
        return _enemy(state, text, field=field, active=active)
    return _crew(state, text, field=field, active=active)


def _group(state: Mapping[str, Any], gid: str) -> dict[str, Any]:
    return next(g for g in state["groups"] if g["id"] == gid)  # type: ignore[no-any-return]


def _on_table(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for f in state["enemies"] if f["status"] == "active"]


def _crew_up(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for f in state["crew"] if f["status"] == "active"]


def _waiting(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for f in state["enemies"] if f["status"] == "held"]


def _mine(action: Action, fig: Mapping[str, Any]) -> None:
    """Refuse unless the actor is the owner or plays this crew figure."""
    if action.role == Role.VIEWER or (action.role == Role.PLAYER and (not fig.get("owner") or fig["owner"] != action.actor)):
        raise NotYours(f"{fig['name']} is not one of your figures.")


def _phase(state: Mapping[str, Any], *allowed: str, what: str) -> None:
    if state["phase"] not in allowed:
        names = " or ".join(PHASE_NAMES[p] for p in allowed)
        raise _err(f"{what} happens in the {names}; it is now the {PHASE_NAMES[state['phase']]}.", "type")


def panic_range(state: Mapping[str, Any], group: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> int:
    """A group's Panic range now, as its top face (0 = Fearless): the set-up range, less the
    Escalation "Morale increase" shifts (p.47), then the elite Leadership table (p.49) for the highest
    rank of the group still on the table."""
    value = max(0, int(group["panic"]) - int(state["panic_shift"]))
    if not group.get("elite") or value == 0:
        return value
    ranks = {f["rank"] for f in _on_table(state) if f["group"] == group["id"]}
    leader = "captain" if "captain" in ranks else "lieutenant" if "lieutenant" in ranks else None
    if leader is None:
        return value
    for entry in _need(tables, "elite-leadership").entries:
        if entry.data["rank"] == leader and entry.data["normal_panic"] == _panic_text(value).replace("Fearless", "0"):
            return _panic(entry.data["modified_panic"], "elite-leadership")
    return value


# -- the reducer -------------------------------------------------------------------------------------------


Handler = Callable[[dict[str, Any], Action, Dice, Mapping[str, RangeTable]], list[Event]]


def apply(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice, tables) -> (new_state, events)``.

    ``tables`` are the Five Parsecs rule tables by slug. Raises :class:`TrackerError` (or
    :class:`NotYours`) naming the payload field, and changes nothing, when the action is refused.
    The same state, action and dice seed always give the same result (undo replays the log).
    """
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise _err(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", "type")
    if state.get("phase") == "over" and action.type not in ("adjust", "set_player"):
        raise _err("The battle is over; only corrections (adjust) are allowed.", "type")
    new = copy.deepcopy(state)
    try:
        events = handler(new, action, dice, tables)
    except fp_combat.CombatError as exc:
        raise _err(str(exc), getattr(exc, "field", None) or "faces") from None
    except (DiceError, TableError) as exc:
        raise _err(str(exc), "faces") from None
    _refresh(new, tables)
    if events:
        new["last"] = {"type": events[-1].type, "text": " ".join(e.text for e in events)}
    return new, events


def _reactions(state: Mapping[str, Any], fig: Mapping[str, Any]) -> int:
    """Reactions this round: 1 for everyone in the round after "Unconventional tactics" (p.47)."""
    return 1 if state.get("reactions_one_round") == state["round"] else int(fig["reactions"])


def _refresh(state: dict[str, Any], tables: Mapping[str, RangeTable] | None = None) -> None:
    """Recompute each crew figure's phase, each group's Panic range now and the "now" sentence."""
    if tables is not None:
        for group in state["groups"]:
            group["panic_now"] = panic_range(state, group, tables)
    for fig in state["crew"]:
        fig["slot"] = None if fig["face"] is None else ("quick" if fig["face"] <= _reactions(state, fig) else "slow")
    state["reaction_pick"] = reaction_pick(state["reaction_dice"], state["crew"])
    state["now"] = _now(state)


def _names(figs: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f["name"] for f in figs) or "nobody"


def _now(state: Mapping[str, Any]) -> str:
    phase = state["phase"]
    crew = _crew_up(state)
    if phase == "over":
        held = {True: "the crew Hold the Field", False: "the crew did not Hold the Field", None: ""}[state["held_field"]]
        return f"The battle is over after {state['round']} round(s){': ' + held if held else ''}."
    if phase == "setup":
        if state["seize"]["result"] is None:
            return "Set-up: roll to Seize the Initiative, then start round 1."
        return "Set-up done: start round 1."
    if phase == "start":
        if not state["reaction_dice"]:
            return f"Round {state['round']}: roll Reactions (one D6 per crew figure)."
        missing = [f for f in crew if f["die"] is None]
        if missing:
            return f"Round {state['round']}: assign Reaction dice to {_names(missing)}."
        return f"Round {state['round']}: start the Quick Action phase."
    if phase in ("quick", "slow"):
        waiting = [f for f in crew if f["slot"] == phase and not f["acted"]]
        if not waiting:
            return f"{PHASE_NAMES[phase]}: everyone here has acted; go on."
        return f"{PHASE_NAMES[phase]}: {_names(waiting)} to act."
    if phase == "enemy":
        waiting = [f for f in _on_table(state) if not f["acted"]]
        return "Enemy Action phase: " + (f"{_names(waiting)} to act." if waiting else "every enemy has acted; go on.")
    return f"End of round {state['round']}: round-end rules done; start the next round."


# -- set-up and round flow -------------------------------------------------------------------------------


def _seize(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Seize the Initiative before round 1 (core rulebook p.112): ``seize_dice`` plus the set-up
    modifier (and ``modifier`` in the payload) against ``seize_target``, both the user's core
    numbers. With Enemy Deployment Variables on (p.44) a failure (or a force that cannot be seized
    against) rolls D100 on the deployment table for the main AI type (``deployment_face``)."""
    require_owner(action)
    _phase(state, "setup", what="Seize the Initiative")
    seize = state["seize"]
    if seize["result"] is not None:
        raise _err("Seize the Initiative is already rolled.", "type")
    events: list[Event] = []
    if not seize["allowed"]:
        seize["result"] = "not_allowed"
        events.append(Event("seize", "This enemy cannot be seized against: the enemy has the initiative.", {}))
    else:
        notation = str(action.payload.get("dice") or seize["dice"] or "")
        target = action.payload.get("target") or seize["target"]
        if not notation or target in (None, ""):
            raise _err(
                "Seize the Initiative needs your core rulebook's dice and target: set seize_dice and seize_target.",
                "seize_target",
            )
        target = _int(target, "target", 2, 30)
        extra = payload_int(action, "modifier", low=-6, high=6, default=0)
        modifier = 0 if seize["no_modifiers"] else seize["modifier"] + extra
        try:
            count = parse(notation).count
        except DiceError as exc:
            raise _err(f"dice: {exc}", "dice") from None
        faces = payload_faces(action, "faces", count)
        record = _roll(dice, notation, "Seize the Initiative", faces)
        total = int(record.total or 0) + modifier
        seize["total"] = total
        seize["result"] = "seized" if total >= target else "failed"
        mod = f" {_signed(modifier)}" if modifier else ""
        said = "seized: the crew act first (core rulebook p.112)" if total >= target else "failed"
        events.append(
            Event("seize", f"Seize the Initiative: {record.total}{mod} = {total} against {target}+: {said}.", _rolls(record))
        )
    if state["options"]["deployment_variables"]:
        events.append(_deployment(state, action, dice, tables))
    return events


def _deployment(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> Event:
    """Enemy Deployment Variables (pp.44-45): Line after a seized initiative, else the D100 table."""
    effects = _need(tables, "deployment-variable-effects")
    if state["seize"]["result"] == "seized":
        row = _table_row(effects, "deployment", "line")
        state["deployment"] = {"name": row.result, "key": "line", "effect": row.effect}
        return Event("deployment", "Deployment: the crew seized the initiative, so the enemy deploys in a Line (p.44).", {})
    face = _face(action, "deployment_face", 100)
    planned = (state.get("planned") or {}).get("deployment_face") if face is None else None
    reason = f"Deployment ({state['ai'].title()} AI)" + (", the D100 on the set-up card" if planned else "")
    rolled = _need(tables, "deployment-variables").roll_or_enter(
        dice, value=face if planned is None else planned, column=state["ai"].title(), reason=reason
    )
    key = str(rolled.entry.data["deployment"])
    row = _table_row(effects, "deployment", key)
    state["deployment"] = {"name": row.result, "key": key, "effect": row.effect}
    texts = [f"Deployment (D100 {rolled.value}, {state['ai'].title()} AI): {row.result}. {row.effect}"]
    data = row.data
    group = state["groups"][0]
    enemies = _on_table(state)
    if key in ("bolstered_line", "bolstered_flank"):
        added = []
        for _ in range(int(data.get("basic_enemies") or 0)):
            added.append(_add_enemy(state, group, "basic", note="Bolstered deployment (p.45)"))
        specialists = int(data.get("specialists") or 0)
        if key == "bolstered_line" and len(_crew_up(state)) > len(enemies):
            specialists += int(data.get("specialists_if_crew_outnumbers") or 0)
        for _ in range(specialists):
            added.append(_add_enemy(state, group, "specialist", note="Bolstered deployment (p.45)"))
        texts.append(f"Added: {_names(added)}.")
    elif key in ("infiltration", "reinforced"):
        held = enemies[len(enemies) - int(len(enemies) * float(data["fraction_removed"])) :]
        for fig in held:
            fig["status"], fig["waiting"] = "held", key
        texts.append(f"Off the table for now: {_names(held)}.")
    elif key == "concealed":
        groups = int(data["groups"])
        for n, fig in enumerate(enemies):
            fig["status"], fig["waiting"] = "held", f"concealed{n % groups + 1}"
        texts.append(
            f"The whole force is hidden in {groups} groups; they appear at the end of rounds {', '.join(map(str, data['arrival_rounds']))}."
        )
    return Event("deployment", " ".join(texts), _rolls(rolled.record))


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand every crew figure ``player`` (a user id as text) plays back to the owner."""
    return [("set_player", {"figure": f["id"], "player": ""}) for f in state["crew"] if f.get("owner") == player]


def _set_player(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hand a crew figure to a player (their user id as text), or back to the owner with ``""``."""
    require_owner(action)
    fig = _crew(state, action.payload.get("figure"), active=False)
    player = str(action.payload.get("player") or "").strip()
    if player and not player.isdigit():
        raise _err(f"player must be a member's user id, or empty for the owner; got {player!r}.", "player")
    fig["owner"] = player
    return [
        Event("set_player", f"{fig['name']} is now played by {'a player' if player else 'the owner'}.", {"figure": fig["id"]})
    ]


def _next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Advance: set-up -> round 1 -> Quick -> Enemy -> Slow -> End (round-end rules) -> next round."""
    require_owner(action)
    phase = state["phase"]
    if phase == "setup":
        return _begin(state, action, dice, tables)
    if phase == "start":
        if not state["reaction_dice"]:
            raise _err("Roll Reactions first.", "type")
        missing = [f for f in _crew_up(state) if f["die"] is None]
        if missing:
            raise _err(f"Assign a Reaction die to {_names(missing)} first.", "figure")
        state["phase"] = "quick"
        quick = [f for f in _crew_up(state) if f["slot"] == "quick"]
        return [Event("phase", f"Quick Action phase: {_names(quick)} to act.", {"phase": "quick"})]
    if phase == "quick":
        state["phase"] = "enemy"
        return [Event("phase", "Enemy Action phase: each enemy acts in turn.", {"phase": "enemy"})]
    if phase == "enemy":
        state["phase"] = "slow"
        slow = [f for f in _crew_up(state) if f["slot"] == "slow"]
        return [Event("phase", f"Slow Action phase: {_names(slow)} to act.", {"phase": "slow"})]
    if phase == "slow":
        return _end_of_round(state, action, dice, tables)
    return _new_round(state)


def _begin(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    events: list[Event] = []
    if state["options"]["deployment_variables"] and state["deployment"] is None:
        raise _err("Roll to Seize the Initiative first: Enemy Deployment Variables read it (p.44).", "type")
    if state["options"]["paying_by_the_hour"]:
        data = _table_row(_need(tables, "difficulty-toggles"), "toggle", "paying_by_the_hour").data
        typed = payload_faces(action, "time_faces", 2)
        planned = (state.get("planned") or {}).get("time_limit") if typed is None else None
        after = f"after it only {' and '.join(data['objectives_after_limit'])} can still be won."
        if planned:
            # Rolled once, on the set-up card (fp_setup.roll_mission); not rolled again here.
            state["time_limit"] = planned
            events.append(
                Event("time_limit", f"They are Paying us by the Hour: round {planned}, as the set-up card says; {after}", {})
            )
        else:
            record = _roll(dice, "2D6", "Paying by the Hour: time limit", typed, keep=Keep.HIGHEST)
            state["time_limit"] = int(record.total or 0) + int(data["time_limit_bonus"])
            events.append(
                Event(
                    "time_limit",
                    f"They are Paying us by the Hour: higher die {record.total} + {data['time_limit_bonus']} = "
                    f"round {state['time_limit']}; {after}",
                    _rolls(record),
                )
            )
    events.extend(_new_round(state))
    return events


def _new_round(state: dict[str, Any]) -> list[Event]:
    state["round"] += 1
    state["phase"] = "start"
    state["reaction_dice"] = []
    for fig in state["crew"] + state["enemies"]:
        fig["acted"] = False
        if fig["side"] == "crew":
            fig.update({"die": None, "face": None, "slot": None})
    tail = (
        " Every crew member counts as Reactions 1 this round (Unconventional tactics)."
        if state["reactions_one_round"] == state["round"]
        else ""
    )
    return [Event("round", f"Round {state['round']} begins: roll Reactions.{tail}", {"round": state["round"]})]


def _roll_reactions(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """One D6 per crew figure on the table, to be assigned (core round sequence)."""
    require_owner(action)
    _phase(state, "start", what="Rolling Reactions")
    if state["reaction_dice"]:
        raise _err("Reactions are already rolled this round.", "type")
    crew = _crew_up(state)
    if not crew:
        raise _err("No crew figure is left on the table.", "type")
    faces = payload_faces(action, "faces", len(crew))
    record = (
        Dice.enter(f"{len(crew)}D6", faces, "Reactions", keep=Keep.SEPARATE)
        if faces
        else dice.separate(len(crew), 6, "Reactions")
    )
    state["reaction_dice"] = list(record.faces)
    text = (
        f"Reactions: {', '.join(map(str, record.faces))}. Assign one to each of {_names(crew)}: at or under Reactions is Quick."
    )
    return [Event("reactions", text, _rolls(record))]


def _assign_reaction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Give a crew figure one of this round's free Reaction dice (``die``, 1-based).

    A die another figure holds is refused, naming the die and its holder, unless the owner asks
    to ``reassign`` it (``on``): then the holder is left without a die and the log says so. A
    player asking to reassign is refused (:class:`NotYours`)."""
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "start", what="Assigning Reaction dice")
    if not state["reaction_dice"]:
        raise _err("Roll Reactions first.", "type")
    reassign = payload_flag(action, "reassign")
    if reassign:
        require_owner(action)
    index = payload_int(action, "die", low=1, high=len(state["reaction_dice"])) - 1
    holder = next((other for other in state["crew"] if other["die"] == index and other is not fig), None)
    taken = ""
    if holder is not None:
        if not reassign:
            raise _err(
                f"Die {index + 1} (a {state['reaction_dice'][index]}) is {holder['name']}'s; pick a free die"
                " (only the owner can reassign a die).",
                "die",
            )
        holder["die"], holder["face"] = None, None
        taken = f" (taken from {holder['name']}, who now has no die)"
    fig["die"], fig["face"] = index, state["reaction_dice"][index]
    _refresh(state)
    slot = "Quick" if fig["slot"] == "quick" else "Slow"
    text = f"{fig['name']} takes the {fig['face']}{taken} against Reactions {_reactions(state, fig)}: acts in the {slot} Action phase."
    data: dict[str, Any] = {"figure": fig["id"], "face": fig["face"]}
    if holder is not None:
        data["taken_from"] = holder["id"]
    return [Event("reaction_assigned", text, data)]


def _activation(
    fig: dict[str, Any], dice: Dice, faces: list[int], *, before: bool, rnd: int
) -> tuple[list[str], list[RollRecord]]:
    """Casualty-table conditions at activation (p.100): Damaged rolls before, Bleeding after;
    Stun markers go at the end (not when Dazed / shut down)."""
    texts: list[str] = []
    rolls: list[RollRecord] = []
    if before and fig["damaged"]:
        record = _roll(dice, "D6", f"{fig['name']}: Damaged", _take(faces, 1))
        rolls.append(record)
        if record.total == 6:
            _down(fig, "casualty", rnd)
            texts.append(f"{fig['name']} is Damaged and rolls a 6: it falls apart and is removed.")
        else:
            texts.append(f"{fig['name']} is Damaged: rolled {record.total}, holds together.")
    if not before:
        if fig["bleeding"]:
            record = _roll(dice, "D6", f"{fig['name']}: Bleeding", _take(faces, 1))
            rolls.append(record)
            total = int(record.total or 0)
            if total == 6:
                _down(fig, "casualty", rnd)
                texts.append(f"{fig['name']} is Bleeding and rolls a 6: a Goner.")
            elif total == 1:
                fig["bleeding"] = False
                texts.append(f"{fig['name']} rolls a 1: the Bleeding stops.")
            else:
                texts.append(f"{fig['name']} keeps Bleeding (rolled {total}).")
        if fig["status"] == "active" and fig["stun"]:
            if fig["dazed"]:
                fig["dazed"] = False
                texts.append(f"{fig['name']} is Dazed: keeps its Stun marker this time.")
            else:
                fig["stun"] -= 1
                texts.append(f"{fig['name']} loses a Stun marker ({fig['stun']} left).")
    return texts, rolls


def _down(fig: dict[str, Any], status: str, rnd: int) -> None:
    fig["status"] = status
    fig["down_round"] = rnd
    fig["stun"] = 0


def _act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Mark a crew figure's activation done in its phase (Quick or Slow); its Stun marker and
    casualty-table conditions are handled (``faces`` for Damaged / Bleeding dice)."""
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="A crew activation")
    if fig["acted"]:
        raise _err(f"{fig['name']} has already acted this round.", "figure")
    if fig["slot"] != state["phase"]:
        raise _err(f"{fig['name']} acts in the {PHASE_NAMES[fig['slot'] or 'start']} this round.", "figure")
    return [_activate(state, fig, action, dice, "acts")]


def _activate(
    state: dict[str, Any], fig: dict[str, Any], action: Action, dice: Dice, how: str, extra: Sequence[str] = ()
) -> Event:
    faces = payload_ints(action, "check_faces" if fig["side"] == "enemy" else "faces")
    texts, rolls = _activation(fig, dice, faces, before=True, rnd=state["round"])
    fig["acted"] = True
    if fig["status"] == "active":
        texts.insert(0, f"{fig['name']} {how}.")
        texts.extend(extra)
        more, extra_rolls = _activation(fig, dice, faces, before=False, rnd=state["round"])
        texts.extend(more)
        rolls.extend(extra_rolls)
    return Event("act", " ".join(texts), {"figure": fig["id"], **_rolls(*rolls)})


def _enemy_act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """An enemy figure activates in the Enemy Action phase. With AI Variations on (pp.42-43) and a
    Cautious, Aggressive, Tactical or Defensive AI: ``base`` on when its base condition applies,
    else a D6 on the variation table (``faces``); ``also`` lists enemies within 2" that obey the
    same die (group actions). Unique Individuals roll on their own AI."""
    require_owner(action)
    _phase(state, "enemy", what="An enemy activation")
    fig = _enemy(state, action.payload.get("enemy"))
    if fig["acted"]:
        raise _err(f"{fig['name']} has already acted this round.", "enemy")
    others = [_enemy(state, e, field="also") for e in payload_words(action, "also")]
    rolls: list[RollRecord] = []
    ai = str(fig.get("ai") or state["ai"])
    line = ""
    if state["options"]["ai_variations"] and ai in AI_VARIATION_TYPES:
        if payload_flag(action, "base"):
            row = _table_row(_need(tables, "ai-variation-base-conditions"), "ai", ai)
            line = f"{ai.title()} AI base condition: {row.effect}"
        else:
            rolled = _need(tables, "ai-variations").roll_or_enter(
                dice,
                value=_face(action, "faces", 6),
                column=ai.title(),
                reason=f"{fig['name']}: {ai.title()} AI",
            )
            rolls.append(rolled.record)
            line = f"{ai.title()} AI D6 {rolled.value}: {rolled.entry.result}. {rolled.entry.effect}"
    elif state["options"]["ai_variations"]:
        line = f"{ai.title()} AI acts as usual (p.42)."
    event = _activate(state, fig, action, dice, "acts", [line] if line else [])
    texts = [event.text]
    records = [r.as_dict() for r in rolls] + list(event.data.get("rolls", []))
    for other in others:
        if not other["acted"]:
            other["acted"] = True
            more, extra = _activation(other, dice, [], before=False, rnd=state["round"])
            records.extend(r.as_dict() for r in extra)
            texts.append(" ".join([f'{other["name"]} obeys the same die (within 2").', *more]))
    data: dict[str, Any] = {"figure": fig["id"], "also": [o["id"] for o in others], "rolls": records}
    if len(records) == 1:
        data["roll"] = records[0]
    return [Event("enemy_act", " ".join(texts), data)]


def _objective_reached(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew member reached an objective this round (an Escalation trigger, p.46)."""
    if action.role == Role.VIEWER:
        raise NotYours("Viewers cannot act at this table.")
    _phase(state, "quick", "enemy", "slow", what="Reaching an objective")
    state["escalation"]["objective_round"] = state["round"]
    return [Event("objective", f"A crew member reached an objective in round {state['round']}.", {})]


# -- end of round ------------------------------------------------------------------------------------------


def _end_of_round(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The End phase: Morale, battle end on an empty table, Respawns (p.30), Movement all over the
    place (p.34), deployment arrivals (p.45), the Escalation check (p.46), the time limit (p.34)."""
    rnd = state["round"]
    state["phase"] = "end"
    if payload_flag(action, "objective_reached"):
        state["escalation"]["objective_round"] = rnd
    events: list[Event] = [Event("phase", f"End of round {rnd}.", {"phase": "end"})]
    events.extend(_morale(state, action, dice, tables))
    if not _crew_up(state):
        return events + _finish(state, False, "Every crew figure is down.")
    if not _on_table(state) and not _waiting(state):
        return events + _finish(state, True, "The enemy is gone from the table.")
    events.extend(_respawns(state))
    events.extend(_movement(state, action, dice, tables))
    events.extend(_arrivals(state, action, dice, tables))
    if state["deployment"] and state["deployment"]["key"] == "reinforced" and not _on_table(state):
        return events + _finish(state, True, "No enemy is on the table after the reinforcement roll (p.45).")
    removed = sum(1 for f in state["enemies"] if f["down_round"] == rnd)
    events.extend(_escalation(state, action, dice, tables, removed))
    if state["time_limit"] is not None and rnd >= state["time_limit"] and not state["time_up"]:
        state["time_up"] = True
        events.append(
            Event(
                "time_up",
                f"Time is up (round {state['time_limit']}): only {' and '.join(TIME_OBJECTIVES)} objectives can still be won.",
                {},
            )
        )
    return events


def _finish(state: dict[str, Any], held: bool | None, why: str) -> list[Event]:
    state["phase"] = "over"
    state["held_field"] = held
    said = {True: "The crew Hold the Field.", False: "The crew do not Hold the Field.", None: ""}[held]
    return [Event("battle_over", f"{why} The battle is over. {said}".strip(), {"held_field": held})]


def _morale(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    faces = payload_ints(action, "morale_faces")
    events: list[Event] = []
    order = {"basic": 0, "specialist": 1, "lieutenant": 2, "captain": 3, "unique": 4}
    for group in state["groups"]:
        fallen = [
            f
            for f in state["enemies"]
            if f["group"] == group["id"] and f["status"] == "casualty" and f["down_round"] == state["round"]
        ]
        if not fallen:
            continue
        panic = panic_range(state, group, tables)
        if panic == 0:
            events.append(Event("morale", f"{group['name']}: Fearless, no Morale dice.", {"group": group["id"]}))
            continue
        count = len(fallen)
        typed = _take(faces, count)
        record = (
            Dice.enter(f"{count}D6", typed, f"{group['name']}: Morale", keep=Keep.SEPARATE)
            if typed
            else dice.separate(count, 6, f"{group['name']}: Morale")
        )
        failures = sum(1 for face in record.faces if face <= panic)
        can_flee = sorted(
            (f for f in _on_table(state) if f["group"] == group["id"] and not f["fearless"]), key=lambda f: order[f["rank"]]
        )
        fled = can_flee[:failures]
        for fig in fled:
            _down(fig, "fled", state["round"])
        tail = f" {_names(fled)} flee." if fled else " Nobody flees."
        text = f"{group['name']} Morale ({count} D6 for {count} casualties, Panic {_panic_text(panic)}): {', '.join(map(str, record.faces))}.{tail}"
        events.append(Event("morale", text, {"group": group["id"], "fled": [f["id"] for f in fled], **_rolls(record)}))
    return events


def _respawns(state: dict[str, Any]) -> list[Event]:
    spawn = state["respawns"]
    if spawn["used"] >= spawn["allowed"] or not _on_table(state):
        return []
    slain = [
        f
        for f in state["enemies"]
        if f["rank"] == "basic" and f["status"] == "casualty" and f["down_round"] == state["round"] and not f.get("respawned")
    ]
    added = []
    for fig in slain:
        if spawn["used"] >= spawn["allowed"]:
            break
        fig["respawned"] = True
        spawn["used"] += 1
        added.append(
            _add_enemy(state, _group(state, fig["group"]), "basic", note="Respawn: enters at the center of the enemy edge (p.30)")
        )
    if not added:
        return []
    left = spawn["allowed"] - spawn["used"]
    return [Event("respawn", f"Respawn: {_names(added)} enter at the center of the enemy edge ({left} respawn(s) left).", {})]


def _movement(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """There's Movement all over the Place (p.34): D6 at or under the round number brings one enemy."""
    if not state["options"]["movement_all_over"]:
        return []
    data = _table_row(_need(tables, "difficulty-toggles"), "toggle", "movement_all_over").data
    faces = payload_ints(action, "arrival_faces")
    record = _roll(dice, str(data["arrival_roll"]), "Movement all over the place", _take(faces, 1))
    if int(record.total or 0) > state["round"]:
        return [
            Event(
                "movement",
                f"Movement all over the place: rolled {record.total}, above round {state['round']}: nobody comes.",
                _rolls(record),
            )
        ]
    edge_roll = _roll(dice, "D6", "Arrival edge", _take(faces, 1))
    order = list(data["arrival_order"])
    rank = order[min(state["movement_arrivals"], len(order) - 1)]
    state["movement_arrivals"] += 1
    edge = _edge(data["arrival_edge"], int(edge_roll.total or 0))
    fig = _add_enemy(state, state["groups"][0], rank, note=f"Arrived at the center of the {edge} edge (p.34)")
    text = f"Movement all over the place: rolled {record.total}, at or under round {state['round']}: {fig['name']} arrives at the center of the {edge} edge."
    return [Event("movement", text, _rolls(record, edge_roll))]


def _arrivals(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Held deployment figures arriving (p.45): Infiltration (end of round 2, placement D6),
    Reinforced (D6 at or under the round, two extra basic enemies), Concealed (rounds 2-4)."""
    deployment = state["deployment"]
    if not deployment or not _waiting(state):
        return []
    data = _table_row(_need(tables, "deployment-variable-effects"), "deployment", deployment["key"]).data
    rnd = state["round"]
    key = deployment["key"]
    if key == "infiltration" and rnd == int(data["arrival_round"]):
        rolled = _need(tables, str(data["placement_table"])).roll_or_enter(
            dice, value=_face(action, "placement_face", 6), reason="Infiltration placement"
        )
        figs = _release(state, "infiltration")
        return [
            Event(
                "arrival",
                f"Infiltration (D6 {rolled.value}): {_names(figs)} appear: {rolled.entry.effect}",
                _rolls(rolled.record),
            )
        ]
    if key == "reinforced":
        record = _roll(dice, str(data["arrival_roll"]), "Reinforced", payload_faces(action, "reinforced_face", 1))
        if int(record.total or 0) > rnd:
            return [Event("arrival", f"Reinforced: rolled {record.total}, above round {rnd}: they stay away.", _rolls(record))]
        figs = _release(state, "reinforced")
        group = state["groups"][0]
        figs += [_add_enemy(state, group, "basic", note="Reinforced (p.45)") for _ in range(int(data["basic_enemies"]))]
        return [
            Event(
                "arrival",
                f"Reinforced: rolled {record.total}: {_names(figs)} come in at the middle of the enemy edge.",
                _rolls(record),
            )
        ]
    if key == "concealed" and rnd in data["arrival_rounds"]:
        number = list(data["arrival_rounds"]).index(rnd) + 1
        features = int(data["terrain_features"])
        record = _roll(dice, f"D{features}", "Concealed: terrain feature", payload_faces(action, "feature_faces", 1, features))
        figs = _release(state, f"concealed{number}")
        return [
            Event(
                "arrival", f"Concealed group {number} ({_names(figs)}) appears in terrain feature {record.total}.", _rolls(record)
            )
        ]
    return []


def _release(state: dict[str, Any], waiting: str) -> list[dict[str, Any]]:
    figs = [f for f in state["enemies"] if f["status"] == "held" and f["waiting"] == waiting]
    for fig in figs:
        fig["status"], fig["waiting"], fig["arrived_round"] = "active", None, state["round"]
    return figs


def _escalation(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable], removed: int) -> list[Event]:
    """Escalating Battles (pp.46-47): a check when an enemy was removed this round, a crew member
    reached an objective, or the enemy is outnumbered by 3+ at the end of round 1; at most three
    rolls a battle; variation mode ignores a repeated result without counting it."""
    if not state["options"]["escalating_battles"]:
        return []
    esc = state["escalation"]
    check = _need(tables, "escalation-check")
    limit = int(check.entries[0].data["max_rolls_per_battle"])
    outnumbered = _table_row(check, "trigger", "outnumbered").data
    triggers = []
    if removed:
        triggers.append("an enemy was removed")
    if esc["objective_round"] == state["round"]:
        triggers.append("a crew member reached an objective")
    if state["round"] == int(outnumbered["round"]) and len(_crew_up(state)) - len(_on_table(state)) >= int(
        outnumbered["outnumbered_by_min"]
    ):
        triggers.append("the enemy is outnumbered")
    if not triggers or esc["rolls"] >= limit:
        return []
    rolled = _need(tables, "escalating-battles-escalation").roll_or_enter(
        dice,
        value=_face(action, "escalation_face", 100),
        column=state["ai"].title(),
        reason="Escalation check",
    )
    key = str(rolled.entry.data["escalation"])
    head = f"Escalation check ({', '.join(triggers)}; D100 {rolled.value}): {rolled.entry.result}."
    if state["options"]["escalation_variation"] and key in esc["seen"]:
        return [
            Event(
                "escalation",
                f"{head} Already happened this battle: no result, and it does not count (variation mode).",
                _rolls(rolled.record),
            )
        ]
    esc["rolls"] += 1
    esc["seen"].append(key)
    text, extra = _escalate(state, action, dice, tables, key)
    return [
        Event(
            "escalation",
            f"{head} {text} ({esc['rolls']} of {limit} escalations.)",
            {"escalation": key, **_rolls(rolled.record, *extra)},
        )
    ]


def _pick(dice: Dice, faces: list[int], figs: Sequence[dict[str, Any]], reason: str) -> tuple[dict[str, Any], list[RollRecord]]:
    """A random figure: a die with as many faces as figures when one exists, else D100 read by position."""
    size = len(figs)
    if size == 1:
        return figs[0], []
    notation = f"D{size}" if size in (2, 3, 4, 6, 8, 10, 12, 20) else "D100"
    record = _roll(dice, notation, reason, _take(faces, 1))
    index = (int(record.total or 1) - 1) % size
    return figs[index], [record]


def _escalate(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable], key: str
) -> tuple[str, list[RollRecord]]:
    data = _table_row(_need(tables, "escalation-effects"), "escalation", key).data
    group = state["groups"][0]
    faces = payload_ints(action, "pick_faces")
    outnumbered = len(_crew_up(state)) > len(_on_table(state))
    if key == "morale_increase":
        if all(panic_range(state, g, tables) == 0 for g in state["groups"]):
            text, rolls = _escalate(state, action, dice, tables, "fighting_intensifies")
            return f"The enemy is already Fearless, so: {text}", rolls
        state["panic_shift"] -= int(data["panic_shift"])
        ranges = ", ".join(f"{g['name']} {_panic_text(panic_range(state, g, tables))}" for g in state["groups"])
        return f"Panic ranges drop by 1 for the rest of the battle: {ranges}.", []
    if key == "fighting_intensifies":
        if not _on_table(state):
            return "No enemy on the table to toughen.", []
        fig, picked = _pick(dice, faces, _on_table(state), "Fighting intensifies: which enemy")
        fig["combat_skill"] += int(data["combat_skill"])
        fig["toughness"] = min(int(data["toughness_max"]), fig["toughness"] + int(data["toughness"]))
        fig["notes"].append("Fighting intensifies (p.47)")
        return (
            f"{fig['name']} gains Combat Skill +1 and Toughness +1 (now {_signed(fig['combat_skill'])}, {fig['toughness']}).",
            picked,
        )
    if key == "reinforcements":
        edge_roll = _roll(dice, str(data["edge_roll"]), "Reinforcements: edge", _take(faces, 1))
        edge = _edge(data["arrival_edge"], int(edge_roll.total or 0))
        if group["profile"]["combat_skill"] == int(data["weak_enemy_combat_skill"]):
            ranks = ["specialist"] * int(data["weak_enemy_specialists"])
            ranks = ["basic"] * (int(data["weak_enemy_total"]) - len(ranks)) + ranks
        else:
            ranks = ["basic"] * int(data["basic_enemies"])
        added = [_add_enemy(state, group, r, note=f"Reinforcements at the {edge} edge (p.47)") for r in ranks]
        return f"{_names(added)} arrive at the center of the {edge} edge.", [edge_roll]
    if key in ("regroup", "rush_attack"):
        count = int(data["basic_enemies_if_outnumbered"]) if outnumbered else 0
        added = [_add_enemy(state, group, "basic", note=f"{key.replace('_', ' ').title()} (p.47)") for _ in range(count)]
        what = (
            "Every enemy takes a bonus move to Cover with a shot."
            if key == "regroup"
            else "Every enemy makes a full move now, into brawls if it can."
        )
        return what + (f" Outnumbered: {_names(added)} join." if added else ""), []
    if key == "sniper":
        fig = _add_enemy(state, group, "basic", name=f"{group['name']} sniper", note="Sniper! on the tallest terrain (p.47)")
        fig["combat_skill"] = min(int(data["combat_skill_max"]), fig["combat_skill"] + int(data["combat_skill"]))
        try:
            fig["weapons"] = [fp_combat.weapon(tables, str(data["weapon"])).as_dict()]
        except fp_combat.CombatError:  # pragma: no cover - the shipped table has it
            fig["notes"].append(f"Carries a {data['weapon']}")
        return (
            f"{fig['name']} appears on the tallest terrain with a {data['weapon']} (Combat Skill {_signed(fig['combat_skill'])}).",
            [],
        )
    if key == "ambush":
        side_roll = _roll(dice, "D6", "Ambush!: 1-3 left, 4-6 right", _take(faces, 1))
        side = "left" if int(side_roll.total or 0) <= 3 else "right"
        added = [
            _add_enemy(state, group, "basic", note=f"Ambush! on the {side} (p.47)") for _ in range(int(data["basic_enemies"]))
        ]
        return f"{_names(added)} appear half-way between the {side}most crew figure and the {side} edge.", [side_roll]
    if key == "unconventional_tactics":
        state["reactions_one_round"] = state["round"] + 1
        return "Next round every crew member counts as Reactions 1.", []
    return str(_table_row(_need(tables, "escalation-effects"), "escalation", key).effect), []


def _end_battle(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End the battle now. ``held_field`` defaults to whether the enemy is gone (and none waits);
    with both sides still on the table it must be given (the crew withdrew: off)."""
    require_owner(action)
    if state["phase"] == "setup":
        raise _err("The battle has not started.", "type")
    raw = action.payload.get("held_field")
    if raw in (None, ""):
        if not _crew_up(state):
            held = False
        elif not _on_table(state) and not _waiting(state):
            held = True
        else:
            raise _err("held_field is required (on or off): both sides are still on the table.", "held_field")
    else:
        held = payload_flag(action, "held_field")
    return _finish(state, held, f"The battle ends in round {state['round']}.")


# -- figures ---------------------------------------------------------------------------------------------


def _adjust(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Correct a figure (``figure`` crew or ``enemy``): ``stun`` (set, 0-9), ``stun_change`` (+1/-1),
    ``wounded``, ``status`` (active, casualty, fled). Players may change Stun markers on their own figures."""
    key = "enemy" if action.payload.get("enemy") else "figure"
    fig = _any_figure(state, action.payload.get(key), key, active=False)
    if fig["side"] == "enemy" or "status" in action.payload or "wounded" in action.payload:
        require_owner(action)
    else:
        _mine(action, fig)
    changes = []
    if action.payload.get("stun") not in (None, ""):
        fig["stun"] = payload_int(action, "stun", low=0, high=9)
        changes.append(f"Stun {fig['stun']}")
    if action.payload.get("stun_change") not in (None, ""):
        step = payload_int(action, "stun_change", low=-1, high=1)
        if step < 0 and fig["stun"] == 0:
            raise _err(f"{fig['name']} has no Stun marker to remove.", "stun_change")
        fig["stun"] += step
        changes.append(f"Stun {fig['stun']}")
    if action.payload.get("wounded") not in (None, ""):
        wounded = payload_flag(action, "wounded")
        if wounded != fig["wounded"]:
            _set_wounded(fig, wounded)
        changes.append("Wounded" if wounded else "not Wounded")
    if action.payload.get("status") not in (None, ""):
        status = str(action.payload["status"])
        if status not in STATUSES:
            raise _err(f"status must be one of {', '.join(STATUSES)}; got {status!r}.", "status")
        if status == "active":
            fig["status"], fig["down_round"] = "active", None
        elif fig["status"] != status:
            _down(fig, status, state["round"])
        changes.append(status)
    if not changes:
        raise _err("Nothing to change: give stun, stun_change, wounded or status.", "stun")
    return [Event("adjust", f"{fig['name']}: {', '.join(changes)}.", {"figure": fig["id"]})]


def _set_wounded(fig: dict[str, Any], wounded: bool) -> None:
    """Wounded (p.100): half Speed (rounded down) and Combat Skill -1 (not below -1); taking it off
    restores the profile kept in ``unwounded``."""
    if wounded:
        fig["unwounded"] = {"speed": fig["speed"], "combat_skill": fig["combat_skill"]}
        fig["speed"] = fig["speed"] // 2
        fig["combat_skill"] = fig["combat_skill"] - 1 if fig["combat_skill"] > -1 else fig["combat_skill"]
    else:
        before = fig.get("unwounded") or {}
        fig["speed"] = before.get("speed", fig["speed"])
        fig["combat_skill"] = before.get("combat_skill", fig["combat_skill"])
        fig["unwounded"] = None
    fig["wounded"] = wounded


# -- combat ------------------------------------------------------------------------------------------------


def _fighter(fig: Mapping[str, Any]) -> fp_combat.Fighter:
    return fp_combat.Fighter(
        name=fig["name"],
        combat_skill=int(fig["combat_skill"]),
        toughness=int(fig["toughness"]),
        speed=int(fig["speed"]),
        reactions=int(fig.get("reactions") or 1),
        savvy=int(fig.get("savvy") or 0),
        save=fig["save"],
        bot=bool(fig.get("bot")),
        kerin=bool(fig.get("kerin")),
        stun_markers=int(fig["stun"]),
        enemy=fig["side"] == "enemy",
        weapons=tuple(fp_combat.Weapon.from_dict(w) for w in fig["weapons"]),
    )


def _weapon_of(fig: Mapping[str, Any], name: Any, field: str) -> fp_combat.Weapon | None:
    """The named weapon the figure carries (default: its first), ``None`` when it has none."""
    if name in (None, ""):
        return fp_combat.Weapon.from_dict(fig["weapons"][0]) if fig["weapons"] else None
    for carried in fig["weapons"]:
        if carried["name"].lower() == str(name).strip().lower():
            return fp_combat.Weapon.from_dict(carried)
    raise _err(f"{fig['name']} carries no {name!r}; weapons: {', '.join(w['name'] for w in fig['weapons']) or 'none'}.", field)


def _numbers(state: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> fp_combat.HitNumbers:
    dramatic = bool(state["options"]["dramatic_combat"])
    core = None
    if state["hit_numbers"]:
        core = fp_combat.HitNumbers(
            open=state["hit_numbers"]["open"], cover=state["hit_numbers"]["cover"], source="your core rulebook"
        )
    if not dramatic and core is None:
        raise _err(
            "Shooting needs your core rulebook's hit numbers (hit_numbers at set-up) unless Dramatic Combat is on.", "hit_numbers"
        )
    return fp_combat.hit_numbers(tables, dramatic=dramatic, core=core)


def _take_hits(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    dice: Dice,
    fig: dict[str, Any],
    after: fp_combat.Fighter,
    outcomes: Sequence[fp_combat.HitOutcome],
    *,
    force_critical: bool,
    faces: list[int],
) -> tuple[list[str], list[RollRecord]]:
    """Copy Stun markers back and turn casualty outcomes into a casualty, or with the option on a
    casualty-table roll (pp.99-100): one per hit that beat Toughness, plus one per natural-6 Hit
    with Critical Hit on; only the highest applies. Knock-outs by Stun markers skip the tables."""
    fig["stun"] = after.stun_markers
    fallen = [o for o in outcomes if o.result == "casualty"]
    if not fallen:
        return [], []
    tabled = [o for o in fallen if o.beat_toughness]
    if not state["options"]["casualty_tables"] or not tabled:
        _down(fig, "casualty", state["round"])
        said = any("is a casualty" in note for o in fallen for note in o.notes)  # the resolver's words say it already
        return ([] if said else [f"{fig['name']} is a casualty."]), []
    critical = 0
    if state["options"]["critical_hits"]:
        critical = max(sum(1 for o in tabled if o.natural_six), 1 if force_critical else 0)
    rolled = fp_combat.casualty(
        dice,
        tables,
        kind=fig["kind"],
        hits=len(tabled),
        critical=critical,
        boss=bool(fig["boss"]),
        modifier=int(fig["casualty_modifier"]),
        faces=_take(faces, len(tabled) + critical),
    )
    entry = rolled.entry
    text = f"{fig['name']}: casualty table gives {entry.result}."
    name = entry.result.lower()
    if rolled.removed:
        _down(fig, "casualty", state["round"])
    elif name.startswith("wounded"):
        if fig["wounded"]:
            _down(fig, "casualty", state["round"])
            text += " Wounded again: a Goner."
        else:
            _set_wounded(fig, True)
    elif name.startswith(("dazed", "temporary")):
        fig["dazed"] = True
    elif name.startswith(("damaged", "bleeding")):
        flag = "damaged" if name.startswith("damaged") else "bleeding"
        if not fig[flag]:
            fig[flag] = True
            fig["casualty_modifier"] += int(entry.data.get("casualty_roll_modifier") or 0)
    return [*rolled.lines, f"{text} {entry.effect}"], list(rolled.rolls)


def _resolve(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A shot or a brawl between two figures through :mod:`battles.engine.fp_combat`.

    Payload: ``attacker`` and ``target`` (crew or enemy ids), ``mode`` shot | brawl, ``weapon``
    (the attacker's, default the first), ``target_weapon`` (brawl), ``range`` (inches), ``cover``,
    ``moved``, ``fired_last_round``, ``faces`` (the attack's physical D6 in the order the resolver
    asks), ``casualty_faces`` (casualty-table D6), ``critical`` (force the Critical Hit roll).
    Players may resolve for their own crew figures; the owner for anyone."""
    if state["phase"] not in ("quick", "enemy", "slow", "start", "end"):
        raise _err("Attacks happen during a round.", "type")
    attacker = _any_figure(state, action.payload.get("attacker"), "attacker")
    target = _any_figure(state, action.payload.get("target"), "target")
    if attacker is target:
        raise _err("A figure cannot attack itself.", "target")
    if attacker["side"] == "crew":
        _mine(action, attacker)
    else:
        require_owner(action)
    mode = _choice(action.payload.get("mode"), "mode", ("shot", "brawl"), "shot")
    faces = payload_ints(action, "faces") or None
    table_faces = payload_ints(action, "casualty_faces")
    texts: list[str] = []
    if mode == "shot":
        weapon = _weapon_of(attacker, action.payload.get("weapon"), "weapon")
        if weapon is None:
            raise _err(f"{attacker['name']} has no weapon to shoot with.", "weapon")
        shot = fp_combat.resolve_shot(
            dice,
            shooter=_fighter(attacker),
            target=_fighter(target),
            weapon=weapon,
            numbers=_numbers(state, tables),
            range_in=payload_int(action, "range", low=0, high=72, default=12),
            cover=payload_flag(action, "cover"),
            moved=payload_flag(action, "moved"),
            fired_last_round=payload_flag(action, "fired_last_round"),
            dramatic=bool(state["options"]["dramatic_combat"]),
            faces=faces,
            tables=tables,
        )
        rolls = list(shot.rolls)
        texts.extend(shot.lines)
        more, extra = _take_hits(
            state,
            tables,
            dice,
            target,
            shot.target,
            shot.outcomes,
            force_critical=payload_flag(action, "critical"),
            faces=table_faces,
        )
        texts.extend(more)
        rolls.extend(extra)
        return [
            Event(
                "resolve", " ".join(texts), {"attacker": attacker["id"], "target": target["id"], "mode": mode, **_rolls(*rolls)}
            )
        ]
    fight = fp_combat.resolve_brawl(
        dice,
        a=_fighter(attacker),
        b=_fighter(target),
        a_weapon=_weapon_of(attacker, action.payload.get("weapon"), "weapon"),
        b_weapon=_weapon_of(target, action.payload.get("target_weapon"), "target_weapon"),
        faces=faces,
        tables=tables,
    )
    rolls = list(fight.rolls)
    texts.extend(fight.lines)
    critical = payload_flag(action, "critical")
    pairs = [
        (attacker, fight.a, [o for o in fight.outcomes if o.target == fight.a.name]),
        (target, fight.b, [o for o in fight.outcomes if o.target == fight.b.name]),
    ]
    for fig, after, outcomes in pairs:
        more, extra = _take_hits(state, tables, dice, fig, after, outcomes, force_critical=critical, faces=table_faces)
        texts.extend(more)
        rolls.extend(extra)
    return [
        Event("resolve", " ".join(texts), {"attacker": attacker["id"], "target": target["id"], "mode": mode, **_rolls(*rolls)})
    ]


# -- outcome -----------------------------------------------------------------------------------------------


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The battle summed up for the post-battle sequence (core rulebook; Compendium p.100).

    ``held_field`` (None while undecided), ``casualties`` (crew names down as casualties),
    ``enemies_killed`` (enemy casualties), ``enemies_fled``, ``rounds``, ``objective_possible``
    (False when the time limit ran out on an objective other than Defend or Fight Off), and
    ``escalations``. Wounded, Damaged and Bleeding end with the battle (p.100)."""
    objective = str(state.get("objective") or "")
    return {
        "held_field": state["held_field"],
        "casualties": [f["name"] for f in state["crew"] if f["status"] == "casualty"],
        "enemies_killed": sum(1 for f in state["enemies"] if f["status"] == "casualty"),
        "enemies_fled": sum(1 for f in state["enemies"] if f["status"] == "fled"),
        "rounds": state["round"],
        "objective": objective,
        "objective_possible": not state["time_up"] or objective in TIME_OBJECTIVES,
        "escalations": list(state["escalation"]["seen"]),
        "deployment": state["deployment"]["name"] if state["deployment"] else None,
    }


_HANDLERS: dict[str, Handler] = {
    "seize": _seize,
    "set_player": _set_player,
    "next_phase": _next_phase,
    "roll_reactions": _roll_reactions,
    "assign_reaction": _assign_reaction,
    "act": _act,
    "enemy_act": _enemy_act,
    "objective_reached": _objective_reached,
    "end_battle": _end_battle,
    "adjust": _adjust,
    "resolve": _resolve,
}
