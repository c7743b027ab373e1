"""Bug Hunt live mission tracker (Bug Hunt pp.173, 181, 184-201): a reducer over a JSON-ready state.

``apply(state, action, dice, tables) -> (new_state, events)`` deep-copies the state, dispatches on
``action.type`` and refuses with :class:`TrackerError` naming the payload field (changing nothing)
when the rules say no. ``initial_state(setup, tables)`` builds the state from a generated mission and
``outcome(state)`` sums it up for the post-battle sequence. Every roll is returned in an event's
``data["roll"]`` or ``data["rolls"]``. Directions are a D12 read as a clock face where the book
uses a direction die (see :mod:`bughunt.engine.contacts`). Pure Python: no Django imports.

State::

    {"mission_number": 3, "difficulty": "Mess Me Up", "encounter": 0, "living_nightmare": False,
     "minimum_contacts": None | 3,            # Living Nightmare top-up at each round's end
     "priority_start": 3, "priority": 3,      # Priority +1 at each drop ship arrival
     "spawn_rating": 2, "spawn_unrevealed": 2, "intel_report": False,
     "round": 1, "phase": "start",            # start | quick | enemy | slow | spawn | over
     "precursor_round": None | 2,             # round a Precursor explorer re-rolled a Reaction die
     "beep_done": True, "contacts_moved": False, "screamers_done": False,
     "reaction_dice": [] | [4, 1, 6],         # this round's Reaction D6, one per unit
     "reaction_pick": {"dice": [{"die": 1, "face": 4, "holder": "u1" | None, "holder_name": "Vasquez"}],
                       "first_free": 2 | None},  # what the die pickers offer (derived)
     "units": [{"id": "u1", "kind": "character" | "team", "name": "Vasquez", "owner": "7" | "",
                "reactions": 1, "formation": False, "die": None | 0 (index), "face": None | 4,
                "slot": None | "quick" | "slow", "bonus": 0 | 1, "held": False, "acted": False,
                "snap_fired": False, "active": True,
                "figures": [{"id": "f1", "name": "Vasquez", "main": True, "speed": 4,
                             "combat_skill": 1, "toughness": 3, "savvy": 0, "save": 5 | None,
                             "special": [], "stun": 0, "wounded": False,
                             "status": "active" | "casualty" | "knocked_out" | "exited" | "evacuated",
                             "package": None | "o4", "three_shots_round": None | 2,
                             "trooper_id": 42 (when the setup gives one), "defeated_by": "Razor lizards",
                             "weapons": [{"name": "Combat rifle", "ones": 0, "malfunctioned": False,
                                          "out_of_ammo": False, "no_malfunction": False,
                                          "temporary": False}]}]}],
     "contacts": [{"id": "c1", "where": "on Objective 2", "placed_round": 1, "moved_round": None,
                   "note": "move 4 inches toward the nearest trooper"}],
     "enemy": None | {...EnemyType.as_dict()}, "variant": None | {"name", "key", "rule"},
     "variant_checked": False, "leader_pool": 3, "enemies_met": ["Razor lizards"],
     "groups": [{"id": "g1", "type": "Razor lizards", "contact": "c1", "round": 2,
                 "figures": [{"id": "e1", "name": "Razor lizard 1", "leader": None | {"name", "key", "rule"},
                              "stun": 0, "wounded": False, "status": "active" | "killed",
                              "placed_round": 2, "note": ""}]}],
     "spawn_points": [{"id": "s1", "where": "edge at 5 o'clock", "countdown": None | 3, "closed": False}],
     "locations": [{"id": "t1", "type": None | "Block", "key": None | "block", "rule": "",
                    "failures": 0, "broken": False, "active": False, "blocked": False,
                    "reopens_after": None | 4}],
     "signals": 0, "signals_investigated": 0,
     "objectives": [{"id": "o2", "position": 2, "rank": "Vital Objective", "value": 2, "type": "Hack",
                     "key": "hack", "completed": False, "completed_round": None,
                     "contacted_round": None, "package": None | "marker" | "f3" | "dropped" | "evacuated" | "lost"}],
     "distract_round": None | 3,              # enemies within 18" skip that round's Enemy Action phase
     "delay_until": None | 5,                 # no new Contact markers up to and including that round
     "evac": {"status": "none" | "pending" | "coming" | "hovering" | "left", "caller": None | "f1",
              "arrives_round": None, "leaves_after": None, "arrivals": 0, "fired_round": None},
     "movie_magic_used": ["Barricade"],       # campaign-wide, including this mission's cards
     "movie_magic_mission": [],               # played during this mission
     "now": "who acts now, in words", "last": None | {"type": ..., "text": ...},
     "next": {"contact": 2, "group": 1, "enemy": 1, "spawn": 1, "unit": 3, "figure": 6}}

Actions (``unit``/``figure``/``contact``/``objective``/``location``/``spawn``/``enemy`` are ids;
``faces`` are typed physical dice, a list or "6, 3"; ``on``/``off`` for flags). The owner is the
referee and may do everything; a player acts only on units whose ``owner`` is their user id:

- table: ``set_player`` {unit, player: user id or ""} (owner only: who plays the unit).
- round: ``beep_sir`` {faces?, direction_faces?} (start of round 2+), ``set_formation`` {unit,
  formation}, ``roll_reactions`` {faces?}, ``assign_reaction`` {unit, die (1-based)},
  ``reroll_reaction`` {die, faces?} (a Precursor explorer on the table, once a round),
  ``hold`` {unit}, ``act`` {unit}, ``next_phase`` {faces?; at the end of the Slow phase
  ``near_<objective>`` (Patrol: a trooper within 6") and ``secure_<objective>`` (a trooper within
  6", no enemy within 6")}, ``end_mission``.
- contacts and enemies: ``move_contacts`` {faces?, direction_faces?, leader_<contact>?},
  ``detect`` {contact, band: open|cover, distance?, spotter?, faces?, move_face?, enemy_face?,
  numbers_faces?, variant_face?, leader_faces?, leader_face?}, ``add_contact`` {where},
  ``remove_contact`` {contact}, ``note_contact`` {contact, where}, ``adjust_enemy`` {enemy,
  stun?, wounded?, status?}, ``caller`` {enemy, faces?}.
- places: ``close_spawn_point`` {spawn, figure, helper?, faces?}, ``investigate`` {location,
  figure?, faces?}, ``activate`` {location, figure, contact?, faces?}, ``investigate_signal``.
- objectives: ``scout``, ``beacon``, ``pick_up`` {objective, figure}, ``drop_package`` {figure},
  ``hack`` {objective, figure, faces?}, ``set_objective`` {objective, completed}, ``survey``
  {figure} (Scientific survey team: one Objective, once).
- evac: ``request_evac`` {figure, faces?}, ``evacuate`` {figure (or unit)}, ``exit_edge`` {figure}.
- figures: ``adjust`` {figure, stun?, wounded?, status?}, ``clear_malfunction`` {figure, weapon,
  faces?}, ``movie_magic`` {card, figure?, weapon?, contact?, support?}.
- combat (through :mod:`bughunt.engine.combat`): ``shoot`` {figure, weapon, enemy?, band, moved?,
  behind_cover?, rapid_fire?, near?, grenade?, faces?}, ``brawl`` {figure, enemy, second_opponent?,
  crash?, faces?}, ``hit`` {figure | enemy, damage, piercing?, area?, ranged?, faces?},
  ``drop_ship_fire`` {enemy, band, enemy2?, band2?, faces?}, ``spitter`` / ``lancer`` {enemy,
  figure, faces?}.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from bughunt.engine import combat
from bughunt.engine import contacts as cx
from live.engine.tracker import (
    Action,
    Event,
    NotYours,
    Role,
    TrackerError,
    payload_faces,
    payload_flag,
    payload_int,
    payload_ints,
    reaction_pick,
    require_owner,
    words,
)
from rules.engine.dice import Dice, DiceError, Keep, RollRecord
from rules.engine.tables import RangeTable, TableError

SOURCE = "Bug Hunt pp.184-201"
PHASES: tuple[str, ...] = ("start", "quick", "enemy", "slow", "spawn")
PHASE_NAMES: dict[str, str] = {
    "start": "Start of round (Reactions)",
    "quick": "Quick Action phase",
    "enemy": "Enemy Action phase",
    "slow": "Slow Action phase",
    "spawn": "Spawn phase (end of round)",
    "over": "Mission over",
}
STATUSES: tuple[str, ...] = ("active", "casualty", "knocked_out", "exited", "evacuated")
ENEMY_STATUSES: tuple[str, ...] = ("active", "killed")
FORMATION_BONUS = 1
"""+1 Reactions for a combat team in formation (p.173): every member within 2" of one chosen figure."""
KNOCKOUT_STUN = 3
"""Three Stun markers knock a figure out (p.178)."""
EVAC_FROM_ROUND = 5
"""Evac may be requested from round 5 (p.201)."""
DEFAULT_WEAPONS: tuple[str, ...] = ("Service pistol", "Combat rifle")
"""Standard load (p.172) plus the usual mission weapon when a setup names none (p.187)."""
TROOPER_ARMOR = 5
"""Trooper armor saves on 5-6 (p.178)."""
POST_BATTLE_CARDS: tuple[str, ...] = ("Escape", "Survived")
SETUP_CARDS: tuple[str, ...] = ("Extra Support",)


# -- tables ---------------------------------------------------------------------------------------------


def _entry_data(tables: Mapping[str, RangeTable], slug: str, result: str) -> Mapping[str, Any]:
    for entry in tables[slug].entries:
        if entry.result == result:
            return entry.data
    raise TrackerError(f"Table {slug} has no row {result!r}.")  # pragma: no cover - shipped tables have them


def _card_names(tables: Mapping[str, RangeTable]) -> list[str]:
    return [e.result for e in tables["bh-movie-magic"].entries]


# -- set-up -----------------------------------------------------------------------------------------------


def _setup_int(setup: Mapping[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    raw = setup.get(key, default)
    if raw is None or raw == "":
        if default is None:
            raise TrackerError(f"{key} is required: a whole number from {low} to {high}.", field=key)
        raw = default
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise TrackerError(f"{key} must be a whole number from {low} to {high}; got {raw!r}.", field=key) from None
    if not low <= value <= high:
        raise TrackerError(f"{key} must be from {low} to {high}; got {value}.", field=key)
    return value


def _setup_bool(setup: Mapping[str, Any], key: str, default: bool = False) -> bool:
    raw = setup.get(key, default)
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("on", "true", "1", "yes"):
        return True
    if text in ("off", "false", "0", "no", "", "none"):
        return False
    raise TrackerError(f"{key} must be true or false; got {raw!r}.", field=key)


def _setup_list(setup: Mapping[str, Any], key: str) -> list[Any]:
    raw = setup.get(key, [])
    if raw is None:
        return []
    if isinstance(raw, str):
        return [part.strip() for part in raw.split(",") if part.strip()]
    if not isinstance(raw, list | tuple):
        raise TrackerError(f"{key} must be a list; got {raw!r}.", field=key)
    return list(raw)


def _weapon_names(tables: Mapping[str, RangeTable], raw: Any, key: str) -> list[str]:
    known = {e.result.lower(): e.result for e in tables["bh-weapons"].entries}
    names = [raw] if isinstance(raw, str) else list(raw or [])
    out = []
    for name in names:
        if str(name).strip().lower() not in known:
            raise TrackerError(f"{key}: unknown weapon {name!r}; choose from {', '.join(known.values())}.", field=key)
        out.append(known[str(name).strip().lower()])
    return out


def _new_weapon(name: str, *, no_malfunction: bool = False, temporary: bool = False) -> dict[str, Any]:
    return {
        "name": name,
        "ones": 0,
        "malfunctioned": False,
        "out_of_ammo": False,
        "no_malfunction": no_malfunction,
        "temporary": temporary,
    }


def _new_figure(
    fid: str,
    name: str,
    profile: Mapping[str, Any],
    *,
    main: bool,
    save: int | None,
    weapons: Sequence[str],
    special: Sequence[str],
) -> dict[str, Any]:
    return {
        "id": fid,
        "name": name,
        "main": main,
        "speed": int(profile["speed"]),
        "combat_skill": int(profile["combat_skill"]),
        "toughness": int(profile["toughness"]),
        "savvy": int(profile["savvy"]),
        "save": save,
        "special": list(special),
        "stun": 0,
        "wounded": False,
        "status": "active",
        "package": None,
        "three_shots_round": None,
        "weapons": [_new_weapon(w) for w in weapons],
    }


def _profile(raw: Mapping[str, Any], base: Mapping[str, Any], key: str) -> dict[str, int]:
    profile: dict[str, int] = {}
    for stat, (low, high) in {
        "reactions": (0, 6),
        "speed": (0, 12),
        "combat_skill": (-3, 6),
        "toughness": (1, 10),
        "savvy": (-3, 6),
    }.items():
        value = raw.get(stat, base.get(stat))
        try:
            number = int(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise TrackerError(
                f"{key}.{stat} must be a whole number from {low} to {high}; got {value!r}.", field=f"{key}.{stat}"
            ) from None
        if not low <= number <= high:
            raise TrackerError(f"{key}.{stat} must be from {low} to {high}; got {number}.", field=f"{key}.{stat}")
        profile[stat] = number
    return profile


def _save(raw: Mapping[str, Any], default: int | None, key: str) -> int | None:
    value = raw.get("save", default)
    if value in (None, "", 0):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise TrackerError(f"{key}.save must be a D6 target from 2 to 6 or none; got {value!r}.", field=f"{key}.save") from None
    if not 2 <= number <= 6:
        raise TrackerError(f"{key}.save must be a D6 target from 2 to 6 or none; got {number}.", field=f"{key}.save")
    return number


def initial_state(setup: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """A mission ready for round 1 from ``setup`` (the generated mission, see the brief's shape):
    ``priority`` (1-6) is required and ``main_characters`` (names, or dicts with name, reactions,
    speed, combat_skill, toughness, savvy, save, weapons, owner). Missing values come from the
    tables: the base profile (bh-base-profile, p.170), trooper armor 5+, service pistol and
    combat rifle; the free Fire team (bh-support) when ``combat_teams`` is absent; Spawn Rating
    from Priority (p.187); the difficulty's encounter modifier and Living Nightmare top-up
    (bh-difficulty-settings, p.186); six Tactical Locations less Signals; one Contact on each
    Objective and the center Contact(s) adjusted by difficulty (p.190).

    ``tables`` are the ``bh-*`` rule tables by slug (the caller reads them; the engine loads
    nothing). Raises :class:`TrackerError` naming the bad key.
    """
    if not isinstance(setup, Mapping):
        raise TrackerError("setup must be a mapping of mission values.", field="setup")
    settings = {e.result: e.data for e in tables["bh-difficulty-settings"].entries}
    difficulty = str(setup.get("difficulty") or "Mess Me Up")
    if difficulty not in settings:
        raise TrackerError(f"difficulty must be one of: {', '.join(settings)}; got {difficulty!r}.", field="difficulty")
    setting = settings[difficulty]
    priority = _setup_int(setup, "priority", 1, 6)
    mission_number = _setup_int(setup, "mission_number", 1, 999, default=1)
    spawn = _setup_int(setup, "spawn_rating", 0, 3, default=max(0, min(priority - 1, 3)))
    encounter = _setup_int(setup, "encounter", -3, 3, default=int(setting["encounter"]))
    living = _setup_bool(setup, "living_nightmare", default=bool(setting.get("minimum_contacts")))
    minimum = int(setting.get("minimum_contacts") or cx.minimum_contacts(tables)) if living else None
    base = dict(tables["bh-base-profile"].entries[0].data)
    fire_team = _entry_data(tables, "bh-support", "Fire team")

    state: dict[str, Any] = {
        "mission_number": mission_number,
        "difficulty": difficulty,
        "encounter": encounter,
        "living_nightmare": living,
        "minimum_contacts": minimum,
        "priority_start": priority,
        "priority": priority,
        "spawn_rating": spawn,
        "spawn_unrevealed": spawn,
        "intel_report": _setup_bool(setup, "intel_report"),
        "round": 1,
        "phase": "start",
        "beep_done": True,
        "contacts_moved": False,
        "screamers_done": False,
        "reaction_dice": [],
        "units": [],
        "contacts": [],
        "enemy": None,
        "variant": None,
        "variant_checked": False,
        "leader_pool": int(cx.leader_rules(tables)["dice"]),
        "enemies_met": [str(n) for n in _setup_list(setup, "enemies_met")],
        "groups": [],
        "spawn_points": [],
        "locations": [],
        "signals": 0,
        "signals_investigated": 0,
        "objectives": [],
        "distract_round": None,
        "delay_until": None,
        "evac": {
            "status": "none",
            "caller": None,
            "arrives_round": None,
            "leaves_after": None,
            "arrivals": 0,
            "fired_round": None,
        },
        "movie_magic_used": [],
        "movie_magic_mission": [],
        "now": "",
        "last": None,
        "next": {"contact": 1, "group": 1, "enemy": 1, "spawn": 1, "unit": 1, "figure": 1},
    }
    cards = _card_names(tables)
    for card in _setup_list(setup, "movie_magic_used"):
        if card not in cards:
            raise TrackerError(
                f"movie_magic_used: unknown card {card!r}; cards are {', '.join(cards)}.", field="movie_magic_used"
            )
        state["movie_magic_used"].append(card)
    if setup.get("enemy"):
        try:
            state["enemy"] = cx.enemy_type(tables, str(setup["enemy"])).as_dict()
        except cx.ContactError as exc:
            raise TrackerError(exc.message, field="enemy") from None

    # main characters
    mains = _setup_list(setup, "main_characters")
    if not mains:
        raise TrackerError(
            "main_characters is required: at least one main character (a name or a profile).", field="main_characters"
        )
    for index, raw in enumerate(mains):
        key = f"main_characters[{index}]"
        data: Mapping[str, Any] = {"name": raw} if isinstance(raw, str) else raw
        if not isinstance(data, Mapping) or not str(data.get("name", "")).strip():
            raise TrackerError(f"{key} needs a name.", field=key)
        profile = _profile(data, base, key)
        weapons = _weapon_names(tables, data.get("weapons", DEFAULT_WEAPONS), f"{key}.weapons")
        _add_unit(
            state,
            kind="character",
            name=str(data["name"]).strip()[:60],
            owner=str(data.get("owner") or ""),
            reactions=profile["reactions"],
            figures=1,
            profile=profile,
            save=_save(data, TROOPER_ARMOR, key),
            weapons=weapons,
            special=[str(s) for s in data.get("special", []) or []],
        )
        if data.get("trooper_id") not in (None, ""):
            state["units"][-1]["figures"][0]["trooper_id"] = data["trooper_id"]
    # combat teams
    teams = _setup_list(setup, "combat_teams") if "combat_teams" in setup else [{"name": "Fire team"}]
    for index, raw in enumerate(teams):
        key = f"combat_teams[{index}]"
        if not isinstance(raw, Mapping) or not str(raw.get("name", "")).strip():
            raise TrackerError(f"{key} needs a name.", field=key)
        known = {e.result: e.data for e in tables["bh-support"].entries if e.data.get("profile")}
        template = known.get(str(raw["name"]), fire_team)
        base_team = dict(template["profile"])
        profile = _profile(raw, base_team, key)
        figures = _setup_int(raw, "figures", 1, 12, default=int(template.get("figures") or 1))
        weapons = _weapon_names(tables, raw.get("weapons", template.get("weapons", [])), f"{key}.weapons")
        special = [str(s) for s in raw.get("special", []) or []]
        if (template.get("brawl_dice") or "kerin" in special) and combat.BRAWL_BEST_OF_TWO not in special:
            special.append(combat.BRAWL_BEST_OF_TWO)
        if template.get("reaction_rerolls") and "precursor" not in special:
            special.append("precursor")
        if template.get("objective_at_center") and "scientists" not in special:
            special.append("scientists")
        _add_unit(
            state,
            kind="team",
            name=str(raw["name"]).strip()[:60],
            owner=str(raw.get("owner") or ""),
            reactions=profile["reactions"],
            figures=figures,
            profile=profile,
            save=_save(raw, template.get("armor_save"), key),
            weapons=weapons,
            special=special,
        )

    # objectives
    types = {e.result: e.data for e in tables["bh-mission-objectives"].entries}
    for index, raw in enumerate(_setup_list(setup, "objectives")):
        key = f"objectives[{index}]"
        if not isinstance(raw, Mapping):
            raise TrackerError(f"{key} must be a mapping with position, rank, value and type.", field=key)
        kind = str(raw.get("type", ""))
        if kind not in types:
            raise TrackerError(f"{key}.type must be one of {', '.join(types)}; got {kind!r}.", field=f"{key}.type")
        position = _setup_int(raw, "position", 1, 6, default=index + 1)
        if any(o["position"] == position for o in state["objectives"]):
            raise TrackerError(f"{key}.position {position} is used twice.", field=f"{key}.position")
        state["objectives"].append(
            {
                "id": f"o{position}",
                "position": position,
                "rank": str(raw.get("rank") or "Objective"),
                "value": _setup_int(raw, "value", 1, 3, default=1),
                "type": kind,
                "key": str(types[kind]["objective"]),
                "completed": False,
                "completed_round": None,
                "contacted_round": None,
                "package": "marker" if types[kind]["objective"] == "retrieve" else None,
            }
        )

    # markers
    signals = _setup_int(setup, "signals", 0, 6, default=0)
    state["signals"] = signals
    for number in range(1, _setup_int(setup, "tactical_locations", 0, 12, default=6 - signals) + 1):
        state["locations"].append(
            {
                "id": f"t{number}",
                "type": None,
                "key": None,
                "rule": "",
                "failures": 0,
                "broken": False,
                "active": False,
                "blocked": False,
                "reopens_after": None,
            }
        )
    on_objectives = _setup_int(setup, "contacts_on_objectives", 0, 6, default=len(state["objectives"]))
    objective_names = [f"on Objective {o['position']}" for o in state["objectives"]]
    for index in range(on_objectives):
        _place(state, objective_names[index] if index < len(objective_names) else "on an Objective")
    center = _setup_int(setup, "contacts_at_center", 0, 6, default=max(0, 1 + int(setting["initial_contacts"])))
    center += _setup_int(setup, "extra_contacts", 0, 6, default=0)
    for _ in range(center):
        _place(state, "at the table center")
    _refresh(state)
    return state


def _add_unit(
    state: dict[str, Any],
    *,
    kind: str,
    name: str,
    owner: str,
    reactions: int,
    figures: int,
    profile: Mapping[str, Any],
    save: int | None,
    weapons: Sequence[str],
    special: Sequence[str],
) -> dict[str, Any]:
    uid = f"u{state['next']['unit']}"
    state["next"]["unit"] += 1
    unit: dict[str, Any] = {
        "id": uid,
        "kind": kind,
        "name": name,
        "owner": owner,
        "reactions": reactions,
        "formation": False,
        "die": None,
        "face": None,
        "slot": None,
        "bonus": 0,
        "held": False,
        "acted": False,
        "snap_fired": False,
        "active": True,
        "figures": [],
    }
    for number in range(1, figures + 1):
        fid = f"f{state['next']['figure']}"
        state["next"]["figure"] += 1
        label = name if kind == "character" else f"{name} {number}"
        unit["figures"].append(
            _new_figure(fid, label, profile, main=kind == "character", save=save, weapons=weapons, special=special)
        )
    state["units"].append(unit)
    return unit


def _place(state: dict[str, Any], where: str) -> dict[str, Any]:
    """Put a new Contact marker on the table (no Delay check: callers check)."""
    cid = f"c{state['next']['contact']}"
    state["next"]["contact"] += 1
    contact = {"id": cid, "where": where, "placed_round": state["round"], "moved_round": None, "note": ""}
    state["contacts"].append(contact)
    return contact


def _delayed(state: Mapping[str, Any]) -> bool:
    """True while a Delay Tactical Location forbids new Contact markers (p.191)."""
    until = state.get("delay_until")
    return until is not None and state["round"] <= int(until)


def _new_contact(state: dict[str, Any], where: str, why: str) -> tuple[dict[str, Any] | None, str]:
    """Place a marker unless Delay is in force; returns the marker (or ``None``) and a sentence."""
    if _delayed(state):
        return None, f"Delay is in force: no new Contact marker {where} ({why})."
    contact = _place(state, where)
    return contact, f"New Contact marker {contact['id']} {where} ({why}); check it for Detection."


# -- lookups and checks --------------------------------------------------------------------------------


def _units(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(state["units"])


def _all_figures(state: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(unit, fig) for unit in state["units"] for fig in unit["figures"]]


def _unit(state: Mapping[str, Any], uid: Any, *, field: str = "unit") -> dict[str, Any]:
    for unit in state["units"]:
        if unit["id"] == str(uid):
            return unit  # type: ignore[no-any-return]
    known = ", ".join(f"{u['id']} ({u['name']})" for u in state["units"]) or "none"
    raise TrackerError(f"No unit {uid!r}; units: {known}.", field=field)


def _figure(
    state: Mapping[str, Any], fid: Any, *, field: str = "figure", active: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    for unit, fig in _all_figures(state):
        if fig["id"] == str(fid):
            if active and fig["status"] != "active":
                raise TrackerError(f"{fig['name']} is not on the table ({fig['status'].replace('_', ' ')}).", field=field)
            return unit, fig
    known = ", ".join(f"{f['id']} ({f['name']})" for _, f in _all_figures(state) if f["status"] == "active") or "none"
    raise TrackerError(f"No figure {fid!r} on the table; figures: {known}.", field=field)


def _enemy(
    state: Mapping[str, Any], eid: Any, *, field: str = "enemy", active: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    for group in state["groups"]:
        for fig in group["figures"]:
            if fig["id"] == str(eid):
                if active and fig["status"] != "active":
                    raise TrackerError(f"{fig['name']} is already {fig['status']}.", field=field)
                return group, fig
    known = (
        ", ".join(f"{f['id']} ({f['name']})" for g in state["groups"] for f in g["figures"] if f["status"] == "active") or "none"
    )
    raise TrackerError(f"No enemy {eid!r}; enemies on the table: {known}.", field=field)


def _find(items: Sequence[dict[str, Any]], key: Any, field: str, what: str) -> dict[str, Any]:
    for item in items:
        if item["id"] == str(key):
            return item
    known = ", ".join(i["id"] for i in items) or "none"
    raise TrackerError(f"No {what} {key!r}; {what}s: {known}.", field=field)


def _mine(action: Action, unit: Mapping[str, Any]) -> None:
    """Refuse unless the actor is the owner (referee) or plays ``unit``."""
    if action.role == Role.VIEWER or (action.role == Role.PLAYER and (not unit["owner"] or unit["owner"] != action.actor)):
        raise NotYours(f"{unit['name']} is not one of your figures.")


def _not_viewer(action: Action) -> None:
    if action.role == Role.VIEWER:
        raise NotYours("Viewers cannot act at this table.")


def _choice(action: Action, key: str, allowed: Sequence[str], *, default: str | None = None) -> str:
    raw = action.payload.get(key)
    value = default if raw is None or raw == "" else str(raw).strip()
    if value is None or value not in allowed:
        shown = "nothing" if raw is None or raw == "" else repr(raw)
        raise TrackerError(f"{key} must be one of {', '.join(allowed)}; got {shown}.", field=key)
    return value


def _text(action: Action, key: str, *, limit: int = 80, required: bool = True) -> str:
    value = str(action.payload.get(key, "") or "").strip()
    if required and not value:
        raise TrackerError(f"{key} is required.", field=key)
    return value[:limit]


def _face(action: Action, key: str, sides: int = 6) -> int | None:
    got = payload_faces(action, key, 1, sides)
    return None if got is None else got[0]


def _roll(dice: Dice, notation: str, reason: str, face: int | None, *, modifier: int = 0) -> RollRecord:
    """One die (rolled, or the typed ``face``) plus ``modifier``."""
    if face is None:
        return dice.roll(notation, reason, modifier=modifier)
    return Dice.enter(notation, [face], reason, modifier=modifier)


def _rolls(*records: RollRecord) -> dict[str, Any]:
    return {"rolls": [r.as_dict() for r in records]}


def _phase(state: Mapping[str, Any], *allowed: str, what: str) -> None:
    if state["phase"] not in allowed:
        names = " or ".join(PHASE_NAMES[p] for p in allowed)
        raise TrackerError(f"{what} happens in the {names}; it is now the {PHASE_NAMES[state['phase']]}.", field="type")


def _contact_error(exc: cx.ContactError) -> TrackerError:
    return TrackerError(exc.message, field=exc.field)


def _active_enemies(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [f for g in state["groups"] for f in g["figures"] if f["status"] == "active"]


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"-{-n}"


# -- the reducer ----------------------------------------------------------------------------------------


def apply(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice, tables) -> (new_state, events)``.

    Raises :class:`TrackerError` (or :class:`NotYours`) naming the payload field, and changes
    nothing, when the action is refused. ``tables`` are the ``bh-*`` rule tables by slug.
    """
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise TrackerError(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", field="type")
    if state.get("phase") == "over" and action.type not in ("set_objective", "adjust"):
        raise TrackerError("The mission is over; only corrections (set_objective, adjust) are allowed.", field="type")
    new = copy.deepcopy(state)
    try:
        events = handler(new, action, dice, tables)
    except cx.ContactError as exc:
        raise _contact_error(exc) from None
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    except (DiceError, TableError) as exc:
        raise TrackerError(str(exc), field="faces") from None
    _refresh(new)
    if events:
        new["last"] = {"type": events[-1].type, "text": " ".join(e.text for e in events)}
    return new, events


Handler = Callable[[dict[str, Any], Action, Dice, Mapping[str, RangeTable]], list[Event]]


# -- who acts now ----------------------------------------------------------------------------------------


def _refresh(state: dict[str, Any]) -> None:
    """Recompute each unit's Reaction slot and the "who acts now" sentence."""
    for unit in state["units"]:
        alive = [f for f in unit["figures"] if f["status"] == "active"]
        unit["active"] = bool(alive)
        unit["bonus"] = FORMATION_BONUS if unit["kind"] == "team" and unit["formation"] and len(alive) >= 2 else 0
        if unit["face"] is None:
            unit["slot"] = None
        else:
            unit["slot"] = "quick" if unit["face"] <= unit["reactions"] + unit["bonus"] else "slow"
    state["reaction_pick"] = reaction_pick(state["reaction_dice"], state["units"])
    state["now"] = _now(state)


def _names(units: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(u["name"] for u in units) or "nobody"


def _now(state: Mapping[str, Any]) -> str:
    phase = state["phase"]
    units = [u for u in state["units"] if u["active"]]
    if phase == "over":
        return "The mission is over."
    if phase == "start":
        steps = []
        if not state["beep_done"]:
            steps.append('roll "Beep... Sir?"')
        if not state["reaction_dice"]:
            steps.append("check formations and roll Reactions")
        elif any(u["die"] is None for u in units):
            steps.append(f"assign Reaction dice to {_names([u for u in units if u['die'] is None])}")
        else:
            steps.append("start the Quick Action phase")
        return f"Round {state['round']}: " + ", then ".join(steps) + "."
    if phase == "quick":
        waiting = [u for u in units if u["slot"] == "quick" and not u["acted"] and not u["held"]]
        if not waiting:
            return "Quick Action phase: everyone here has acted or holds; go on to the Enemy Action phase."
        return f"Quick Action phase: {_names(waiting)} may act (or hold for Snap Fire)."
    if phase == "enemy":
        held = [u for u in units if u["held"] and not u["acted"]]
        parts = ["Enemy Action phase: enemies act, nearest a trooper first"]
        if state.get("distract_round") == state["round"]:
            parts.append('enemies within 18" of the Distract location skip this phase')
        if not state["contacts_moved"] and state["contacts"]:
            parts.append("then move the Contact markers")
        if held:
            parts.append(f"Snap Fire ready: {_names(held)}")
        return "; ".join(parts) + "."
    if phase == "slow":
        waiting = [u for u in units if (u["slot"] == "slow" or u["held"]) and not u["acted"]]
        held = [u for u in waiting if u["held"]]
        tail = f" ({_names(held)} held: move or fire, not both)" if held else ""
        if not waiting:
            return "Slow Action phase: every trooper has acted; end the round."
        return f"Slow Action phase: {_names(waiting)} to act{tail}."
    return "Spawn phase: end of round done; start the next round when ready."


# -- round flow --------------------------------------------------------------------------------------------


def _beep_sir(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """ "Beep... Sir?" at the start of each round from round 2 (p.193): Priority D6, a 6 places one
    marker (Living Nightmare: one per 6) at an edge a random direction from the center."""
    require_owner(action)
    _phase(state, "start", what='"Beep... Sir?"')
    if state["beep_done"]:
        raise TrackerError(
            f'"Beep... Sir?" is already rolled this round (or not needed in round {state["round"]}).', field="type"
        )
    priority = int(state["priority"])
    result = cx.beep_sir(
        tables,
        priority,
        dice,
        living_nightmare=state["living_nightmare"],
        faces=payload_faces(action, "faces", priority),
        direction_faces=payload_ints(action, "direction_faces") or None,
    )
    state["beep_done"] = True
    texts = [result.text]
    for edge in result.edges:
        contact, sentence = _new_contact(state, f"at the edge at {edge}", '"Beep... Sir?"')
        if contact is not None:
            contact["beep_round"] = state["round"]
        texts.append(sentence)
    return [Event("beep_sir", " ".join(texts), {**_rolls(*result.rolls), "placed": result.placed})]


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand every unit ``player`` (a user id as text) plays back to the referee."""
    return [("set_player", {"unit": u["id"], "player": ""}) for u in state["units"] if u.get("owner") == player]


def _set_player(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hand a unit to a player at the table (their user id as text), or back to the referee with
    ``""`` (co-op: the crew is split between the players, p.166). Only the owner does this."""
    require_owner(action)
    unit = _unit(state, action.payload.get("unit"))
    player = str(action.payload.get("player") or "").strip()
    if player and not player.isdigit():
        raise TrackerError(f"player must be a member's user id, or empty for the referee; got {player!r}.", field="player")
    unit["owner"] = player
    who = "a player" if player else "the referee"
    return [Event("set_player", f"{unit['name']} is now played by {who}.", {"unit": unit["id"], "player": player})]


def _set_formation(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Team formation (p.173): a combat team whose members are all within 2" of one chosen member
    gets +1 Reactions this round. One-figure teams and main characters never do."""
    unit = _unit(state, action.payload.get("unit"))
    _mine(action, unit)
    _phase(state, "start", what="Checking formation")
    formation = payload_flag(action, "formation", default=True)
    alive = [f for f in unit["figures"] if f["status"] == "active"]
    if formation and (unit["kind"] != "team" or len(alive) < 2):
        raise TrackerError(f"{unit['name']} cannot be in formation: only combat teams of two or more figures are.", field="unit")
    unit["formation"] = formation
    text = f"{unit['name']} is in formation: +1 Reactions this round." if formation else f"{unit['name']} is not in formation."
    return [Event("formation", text, {"unit": unit["id"]})]


def _roll_reactions(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """One D6 per main character and combat team still on the table (p.198), to be assigned."""
    require_owner(action)
    _phase(state, "start", what="Rolling Reactions")
    if not state["beep_done"]:
        raise TrackerError('Roll "Beep... Sir?" first: it comes at the start of the round.', field="type")
    if state["reaction_dice"]:
        raise TrackerError("Reactions are already rolled this round.", field="type")
    units = [u for u in state["units"] if u["active"]]
    if not units:
        raise TrackerError("No trooper is left on the table.", field="type")
    faces = payload_faces(action, "faces", len(units))
    record = (
        Dice.enter(f"{len(units)}D6", faces, "Reactions", keep=Keep.SEPARATE)
        if faces
        else dice.separate(len(units), 6, "Reactions")
    )
    state["reaction_dice"] = list(record.faces)
    shown = ", ".join(map(str, record.faces))
    text = f"Reactions: {len(units)} D6 rolled ({shown}); assign one to each of {_names(units)}. At or under Reactions acts Quick, above it Slow."
    return [Event("reactions", text, {"roll": record.as_dict()})]


def _assign_reaction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Give a unit one of this round's free Reaction dice (``die``, 1-based; any order, p.198).

    A die another unit holds is refused, naming the die and its holder, unless the referee asks
    to ``reassign`` it (``on``): then the holder is left without a die and the log says so. A
    player asking to reassign is refused (:class:`NotYours`)."""
    unit = _unit(state, action.payload.get("unit"))
    _mine(action, unit)
    _phase(state, "start", what="Assigning Reaction dice")
    if not state["reaction_dice"]:
        raise TrackerError("Roll Reactions first.", field="type")
    if not unit["active"]:
        raise TrackerError(f"{unit['name']} has no figure on the table.", field="unit")
    reassign = payload_flag(action, "reassign")
    if reassign:
        require_owner(action)
    index = payload_int(action, "die", low=1, high=len(state["reaction_dice"])) - 1
    holder = next((other for other in state["units"] if other["die"] == index and other is not unit), None)
    taken = ""
    if holder is not None:
        if not reassign:
            raise TrackerError(
                f"Die {index + 1} (a {state['reaction_dice'][index]}) is {holder['name']}'s; pick a free die"
                " (only the referee can reassign a die).",
                field="die",
            )
        holder["die"], holder["face"] = None, None
        taken = f" (taken from {holder['name']}, who now has no die)"
    unit["die"], unit["face"] = index, state["reaction_dice"][index]
    _refresh(state)
    target = unit["reactions"] + unit["bonus"]
    form = " in formation" if unit["bonus"] else ""
    slot = "Quick" if unit["slot"] == "quick" else "Slow"
    text = f"{unit['name']} takes the {unit['face']}{taken} against Reactions {target}{form}: acts in the {slot} Action phase."
    data: dict[str, Any] = {"unit": unit["id"], "face": unit["face"]}
    if holder is not None:
        data["taken_from"] = holder["id"]
    return [Event("reaction_assigned", text, data)]


def _hold(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hold a Quick action for Snap Fire in the Enemy Action phase (p.198): firing then means no
    move this round; unused, the unit may move or fire (not both) in the Slow phase."""
    unit = _unit(state, action.payload.get("unit"))
    _mine(action, unit)
    _phase(state, "quick", what="Holding for Snap Fire")
    if unit["slot"] != "quick" or unit["acted"] or unit["held"]:
        raise TrackerError(f"{unit['name']} is not waiting to act in the Quick Action phase.", field="unit")
    unit["held"] = True
    return [
        Event(
            "hold",
            f"{unit['name']} holds for Snap Fire: may fire when an enemy moves (then no move this round).",
            {"unit": unit["id"]},
        )
    ]


def _act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Mark a unit as having acted (move, then a Combat Action, p.198). Each Stunned figure of the
    unit loses one Stun marker (it could move or act, not both). In the Enemy Action phase only
    a unit holding for Snap Fire may act (it fired, so it cannot move this round)."""
    unit = _unit(state, action.payload.get("unit"))
    _mine(action, unit)
    phase = state["phase"]
    if unit["acted"]:
        raise TrackerError(f"{unit['name']} has already acted this round.", field="unit")
    if phase == "quick":
        if unit["slot"] != "quick" or unit["held"]:
            raise TrackerError(f"{unit['name']} acts in the Slow Action phase this round.", field="unit")
        how = "acts in the Quick Action phase"
    elif phase == "enemy":
        if not unit["held"]:
            raise TrackerError(
                f"Only units holding for Snap Fire act in the Enemy Action phase; {unit['name']} is not.", field="unit"
            )
        unit["snap_fired"] = True
        how = "takes Snap Fire (no move this round)"
    elif phase == "slow":
        if unit["slot"] not in ("slow", "quick"):
            raise TrackerError(f"{unit['name']} has no Reaction die this round.", field="unit")
        if unit["slot"] == "quick" and not unit["held"]:
            raise TrackerError(
                f"{unit['name']} acted in the Quick Action phase.", field="unit"
            )  # pragma: no cover - quick units are acted or held
        how = "acts in the Slow Action phase" + (" (held: move or fire, not both)" if unit["held"] else "")
    else:
        raise TrackerError(
            f"Troopers act in the Quick, Enemy (Snap Fire) or Slow phases; it is the {PHASE_NAMES[phase]}.", field="type"
        )
    unit["acted"] = True
    calmer = []
    for fig in unit["figures"]:
        if fig["status"] == "active" and fig["stun"] > 0:
            fig["stun"] -= 1
            calmer.append(f"{fig['name']} (Stunned: move or act, not both) now has {fig['stun']} Stun marker(s)")
    tail = f" {'; '.join(calmer)}." if calmer else ""
    return [Event("act", f"{unit['name']} {how}.{tail}", {"unit": unit["id"]})]


def _next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Advance the round: start -> Quick -> Enemy -> Slow -> Spawn (end of round) -> next round (p.198)."""
    require_owner(action)
    phase = state["phase"]
    if phase == "start":
        return _to_quick(state)
    if phase == "quick":
        held = []
        for unit in state["units"]:
            if unit["active"] and unit["slot"] == "quick" and not unit["acted"] and not unit["held"]:
                unit["held"] = True
                held.append(unit)
        state["phase"] = "enemy"
        tail = (
            f" {_names(held)} did not act and hold their action (Snap Fire, or move or fire in the Slow phase)." if held else ""
        )
        distract = (
            ' Distracted enemies (within 18" of the Distract location) do nothing this phase.'
            if state.get("distract_round") == state["round"]
            else ""
        )
        return [
            Event(
                "phase",
                f"Enemy Action phase: enemies act nearest a trooper first, then Contact markers move.{distract}{tail}",
                {"phase": "enemy"},
            )
        ]
    if phase == "enemy":
        return _to_slow(state, action, dice, tables)
    if phase == "slow":
        return _end_of_round(state, action, dice, tables)
    return _new_round(state, action, dice, tables)


def _to_quick(state: dict[str, Any]) -> list[Event]:
    if not state["beep_done"]:
        raise TrackerError('Roll "Beep... Sir?" first (start of every round from round 2).', field="type")
    if not state["reaction_dice"]:
        raise TrackerError("Roll Reactions first.", field="type")
    missing = [u for u in state["units"] if u["active"] and u["die"] is None]
    if missing:
        raise TrackerError(f"Assign a Reaction die to {_names(missing)} first.", field="unit")
    state["phase"] = "quick"
    quick = [u for u in state["units"] if u["active"] and u["slot"] == "quick"]
    slow = [u for u in state["units"] if u["active"] and u["slot"] == "slow"]
    return [Event("phase", f"Quick Action phase: {_names(quick)} act now; {_names(slow)} in the Slow phase.", {"phase": "quick"})]


def _to_slow(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End of the Enemy Action phase: Stunned enemies that stayed put lose one Stun marker (p.198);
    Screamers roll a D10 (p.196)."""
    events: list[Event] = []
    calmed = 0
    for group in state["groups"]:
        for fig in group["figures"]:
            if fig["status"] == "active" and fig["stun"] > 0 and fig["placed_round"] < state["round"]:
                fig["stun"] -= 1
                calmed += 1
    if state["variant"] and state["variant"]["key"] == "screamers" and not state["screamers_done"]:
        on_table = len(_active_enemies(state))
        record = _roll(dice, "D10", "Screamers", _face(action, "faces", 10))
        state["screamers_done"] = True
        if int(record.total or 0) <= on_table and state["groups"]:
            fig = _add_enemy(state, state["groups"][-1], note="placed at the table center by Screamers; cannot act this round")
            text = f"Screamers: D10 rolled {record.total}, at or under the {on_table} enemies on the table: {fig['name']} appears at the table center (it cannot act this round)."
        else:
            text = f"Screamers: D10 rolled {record.total}, above the {on_table} enemies on the table: none comes."
        events.append(Event("screamers", text, {"roll": record.as_dict()}))
    state["phase"] = "slow"
    tail = f" {calmed} Stunned enemy figure(s) stayed put and lose one Stun marker." if calmed else ""
    events.insert(0, Event("phase", f"Slow Action phase: the remaining troopers act.{tail}", {"phase": "slow"}))
    return events


def _new_round(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    state["round"] += 1
    state["phase"] = "start"
    state["beep_done"] = state["round"] < int(tables["bh-beep-sir"].entries[0].data["from_round"])
    state["contacts_moved"] = False
    state["screamers_done"] = False
    state["reaction_dice"] = []
    for unit in state["units"]:
        unit.update({"die": None, "face": None, "held": False, "acted": False, "snap_fired": False})
        for fig in unit["figures"]:
            for weapon in fig["weapons"]:
                weapon["ones"] = 0
    need = ' Roll "Beep... Sir?", then' if not state["beep_done"] else ""
    return [
        Event("round", f"Round {state['round']} begins.{need} check formations and roll Reactions.", {"round": state["round"]})
    ]


# -- end of round (pp.185, 186, 191, 195, 199, 201) ------------------------------------------------------------


def _end_of_round(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Everything that happens as a round closes, in order: Objectives (Scout, Patrol, Secure),
    enemy rules (Horde, Strangle worms, Dimensional distorts), Block rolls, the Living Nightmare
    top-up, the Spawn phase, then Evac (ship leaves, arrives, or the pending call is re-rolled).

    Payload: ``near_<objective>`` on for a Patrol Objective with a trooper within 6" (optional
    ``patrol_face_<objective>``), ``secure_<objective>`` on for a Secure Objective with a trooper
    within 6" and no enemy within 6". Faces for other end-of-round dice are rolled.
    """
    events: list[Event] = []
    rnd = state["round"]
    for unit in state["units"]:
        unit["acted"] = True
    # Objectives (p.185)
    patrol = tables["bh-mission-objectives"]
    patrol_rule = next(e.data for e in patrol.entries if e.data["objective"] == "patrol")
    for obj in state["objectives"]:
        if obj["completed"]:
            continue
        if obj["key"] == "scout" and obj["contacted_round"] == rnd:
            _complete(state, obj)
            events.append(
                Event(
                    "objective",
                    f"Objective {obj['position']} (Scout) is completed: a trooper reached it this round.",
                    {"objective": obj["id"]},
                )
            )
        elif obj["key"] == "patrol" and payload_flag(action, f"near_{obj['id']}"):
            record = _roll(dice, "D6", f"Patrol Objective {obj['position']}", _face(action, f"patrol_face_{obj['id']}"))
            target = int(patrol_rule["target"])
            if int(record.total or 0) >= target:
                _complete(state, obj)
                text = f"Objective {obj['position']} (Patrol): a trooper is within {patrol_rule['radius_in']} inches; rolled {record.total} against {target}+: completed."
            else:
                text = f"Objective {obj['position']} (Patrol): a trooper is within {patrol_rule['radius_in']} inches; rolled {record.total} against {target}+: not yet."
            events.append(Event("objective", text, {"objective": obj["id"], "roll": record.as_dict()}))
        elif obj["key"] == "secure" and payload_flag(action, f"secure_{obj['id']}"):
            _complete(state, obj)
            events.append(
                Event(
                    "objective",
                    f"Objective {obj['position']} (Secure) is completed: a trooper within 6 inches and no enemy within 6 inches.",
                    {"objective": obj["id"]},
                )
            )
    # Enemy rules at the end of the round (p.195)
    events.extend(_enemy_round_end(state, dice))
    # Block (p.191)
    for loc in state["locations"]:
        if not loc["blocked"]:
            continue
        if loc["reopens_after"] is not None:
            if loc["reopens_after"] <= rnd:
                loc["blocked"] = False
                loc["reopens_after"] = None
                events.append(
                    Event(
                        "block",
                        f"Tactical Location {loc['id']}: the Block opens again; enemies and Contacts may pass.",
                        {"location": loc["id"]},
                    )
                )
            continue
        reopen_on = int(_entry_data(tables, "bh-tactical-locations", "Block")["reopen_on"])
        record = dice.d6(f"Block at {loc['id']}")
        if int(record.total or 0) >= reopen_on:
            loc["reopens_after"] = rnd + 1
            text = f"Tactical Location {loc['id']} Block: rolled {record.total}: it opens again at the end of next round."
        else:
            text = f"Tactical Location {loc['id']} Block: rolled {record.total}: it holds."
        events.append(Event("block", text, {"location": loc["id"], "roll": record.as_dict()}))
    # Living Nightmare (p.186)
    minimum = state.get("minimum_contacts")
    if minimum is not None and len(state["contacts"]) < int(minimum):
        if _delayed(state):
            events.append(
                Event("nightmare", f"Living Nightmare: fewer than {minimum} Contact markers, but Delay stops a new one.", {})
            )
        else:
            edge, record = cx.random_edge(dice, "Living Nightmare edge")
            contact = _place(state, f"at the center of the {edge}")
            events.append(
                Event(
                    "nightmare",
                    f"Living Nightmare: fewer than {minimum} Contact markers, so {contact['id']} comes in at the center of the {edge}.",
                    {"roll": record.as_dict()},
                )
            )
    # Spawn phase (p.199)
    events.extend(_spawn_phase(state, dice, tables))
    # Evac (p.201)
    events.extend(_evac_round_end(state, dice, tables))
    if state["delay_until"] is not None and state["delay_until"] == rnd:
        events.append(Event("delay", "The Delay ends: new Contact markers can be placed from next round.", {}))
    state["phase"] = "spawn"
    events.insert(0, Event("phase", f"End of round {rnd}.", {"phase": "spawn"}))
    return events


def _enemy_round_end(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Horde invasion force, Strangle worms and Dimensional distorts at a round's end (p.195)."""
    events: list[Event] = []
    enemy = state["enemy"]
    if not enemy or not _active_enemies(state):
        return events
    name = enemy["name"]
    if name == "Horde invasion force":
        edge, record = cx.random_edge(dice, "Horde arrival edge")
        fig = _add_enemy(state, state["groups"][-1], note=f"arrived at the center of the {edge}")
        events.append(Event("horde", f"Horde: {fig['name']} arrives at the center of the {edge}.", {"roll": record.as_dict()}))
    elif name == "Strangle worms":
        worms = _active_enemies(state)
        record = dice.separate(len(worms), 6, "Strangle worms")
        born = []
        for worm, face in zip(worms, record.faces, strict=True):
            if face == 6:
                group = next(g for g in state["groups"] if worm in g["figures"])
                born.append(_add_enemy(state, group, note=f"placed next to {worm['name']}")["name"])
        shown = ", ".join(map(str, record.faces))
        tail = f"a 6 places {', '.join(born)} next to its parent" if born else "no 6, no new Worm"
        events.append(Event("worms", f"Strangle worms: one D6 per Worm ({shown}): {tail}.", {"roll": record.as_dict()}))
    elif name == "Dimensional distorts":
        events.append(Event("distorts", "Dimensional distorts: pick one Distort at random and move it to the table center.", {}))
    return events


def _spawn_phase(state: dict[str, Any], dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Spawn phase (p.199), when the Spawn Rating is above 0: (1) reveal one unrevealed Spawn Point
    at the edge a random direction from the center; (2) from round 2, count every Countdown down
    by 1, at 0 a Contact marker appears on that Spawn Point (unless Delay); (3) each open Spawn
    Point without a Countdown rolls on bh-spawn-countdown (1-4: that Countdown; 5-6: none)."""
    events: list[Event] = []
    if state["spawn_rating"] <= 0:
        return events
    if state["spawn_unrevealed"] > 0:
        direction, record = cx.random_direction(dice, "Spawn Point direction")
        sid = f"s{state['next']['spawn']}"
        state["next"]["spawn"] += 1
        state["spawn_points"].append({"id": sid, "where": f"edge at {direction}", "countdown": None, "closed": False})
        state["spawn_unrevealed"] -= 1
        events.append(
            Event("spawn_revealed", f"Spawn Point {sid} is revealed at the edge at {direction}.", {"roll": record.as_dict()})
        )
    open_points = [s for s in state["spawn_points"] if not s["closed"]]
    if state["round"] > 1:
        for point in open_points:
            if point["countdown"] is None:
                continue
            point["countdown"] -= 1
            if point["countdown"] <= 0:
                point["countdown"] = None
                _, sentence = _new_contact(state, f"on Spawn Point {point['id']}", "its Countdown ran out")
                events.append(
                    Event("spawn_contact", f"Spawn Point {point['id']} Countdown reaches 0. {sentence}", {"spawn": point["id"]})
                )
            else:
                events.append(
                    Event("countdown", f"Spawn Point {point['id']} Countdown: {point['countdown']}.", {"spawn": point["id"]})
                )
    table = tables["bh-spawn-countdown"]
    for point in open_points:
        if point["countdown"] is not None:
            continue
        rolled = table.roll(dice, reason=f"Spawn Point {point['id']} countdown")
        value = rolled.entry.data.get("countdown")
        point["countdown"] = None if value is None else int(value)
        text = (
            f"Spawn Point {point['id']}: rolled {rolled.record.total}, Countdown {value}."
            if value is not None
            else f"Spawn Point {point['id']}: rolled {rolled.record.total}, no Countdown this round."
        )
        events.append(Event("countdown", text, {"spawn": point["id"], "roll": rolled.record.as_dict()}))
    return events


def _evac_round_end(state: dict[str, Any], dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Evac at a round's end (p.201): a hovering ship that has stayed 3 rounds leaves; a ship due
    this round lands (Priority +1); a pending call rolls again (10+: lands at the end of next round)."""
    events: list[Event] = []
    evac = state["evac"]
    rnd = state["round"]
    if evac["status"] == "hovering" and evac["leaves_after"] is not None and rnd >= evac["leaves_after"]:
        evac.update({"status": "left", "arrives_round": None, "leaves_after": None})
        events.append(Event("evac", "The drop ship has waited 3 rounds and leaves; call Evac again to bring it back.", {}))
    if evac["status"] == "coming" and evac["arrives_round"] == rnd:
        ship = {e.result: e.data for e in tables["bh-drop-ship"].entries}
        loiter = int(ship["Loiter time"]["rounds"])
        rise = int(ship["They are coming!"]["priority"])
        evac.update({"status": "hovering", "leaves_after": rnd + loiter, "arrivals": evac["arrivals"] + 1, "fired_round": None})
        state["priority"] += rise
        events.append(
            Event(
                "evac",
                f"The drop ship lands: place its marker anywhere. Troopers within {ship['Landing zone']['inches']} inches may leave; "
                f"it stays {loiter} rounds and gives supporting fire each round. Priority rises to {state['priority']}.",
                {"priority": state["priority"]},
            )
        )
    elif evac["status"] == "pending":
        events.append(_evac_roll(state, dice, tables, None, why="roll again at the end of the round"))
    return events


def _objectives_done(state: Mapping[str, Any]) -> int:
    return sum(int(o["value"]) for o in state["objectives"] if o["completed"])


def _packages_held(state: Mapping[str, Any]) -> int:
    held = {f["package"] for _, f in _all_figures(state) if f["status"] == "active" and f["package"]}
    return sum(int(o["value"]) for o in state["objectives"] if o["id"] in held and not o["completed"])


def _evac_roll(state: dict[str, Any], dice: Dice, tables: Mapping[str, RangeTable], face: list[int] | None, *, why: str) -> Event:
    """2D6 + Objectives completed (packages held count) + 1 if the caller has Savvy +1 or more, on bh-evac."""
    evac = state["evac"]
    caller = None
    for _, fig in _all_figures(state):
        if fig["id"] == evac["caller"]:
            caller = fig
    done, held = _objectives_done(state), _packages_held(state)
    savvy = 1 if caller is not None and caller["savvy"] >= 1 else 0
    modifier = done + held + savvy
    record = Dice.enter("2D6", face, "Evac", modifier=modifier) if face else dice.roll("2D6", "Evac", modifier=modifier)
    looked = tables["bh-evac"].resolve(record)
    parts = [f"2D6 {record.natural}"]
    if done:
        parts.append(f"+{done} Objectives")
    if held:
        parts.append(f"+{held} packages held")
    if savvy:
        parts.append(f"+1 {caller['name'] if caller else 'caller'}'s Savvy")
    sums = " ".join(parts) + f" = {record.total}"
    if looked.entry.data.get("arrives"):
        evac.update({"status": "coming", "arrives_round": state["round"] + 1})
        text = f"Evac ({why}): {sums}, 10+: the drop ship lands at the end of round {state['round'] + 1}."
    else:
        evac["status"] = "pending"
        text = f"Evac ({why}): {sums}, under 10: no ship yet; roll again at the end of each round."
    return Event("evac", text, {"roll": record.as_dict()})


# -- contacts and enemies (pp.192-197) -----------------------------------------------------------------------


def _leader_near(action: Action, contact_id: str) -> bool:
    return payload_flag(action, f"leader_{contact_id}") or contact_id in words(action.payload.get("leader"))


def _move_contacts(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Move every Contact marker in the Enemy Action phase, after the enemies (p.192), nearest a
    trooper first (list order; the referee may reorder by moving them one at a time in that
    order). A marker split off this round stays put. ``leader_<contact>`` on: a pack Leader is
    within 9", so only Aggression is rolled. ``faces``: two D6 per marker (Aggression, Chance),
    one for Leader-led ones, in list order."""
    require_owner(action)
    _phase(state, "enemy", what="Moving Contact markers")
    if state["contacts_moved"]:
        raise TrackerError("Contact markers have already moved this round.", field="type")
    movers = [c for c in state["contacts"] if c.get("split_round") != state["round"]]
    if not movers:
        raise TrackerError("There are no Contact markers to move.", field="type")
    need = sum(1 if _leader_near(action, c["id"]) else 2 for c in movers)
    typed = payload_faces(action, "faces", need)
    directions = payload_ints(action, "direction_faces")
    events: list[Event] = []
    cursor = 0
    for contact in movers:
        leader = _leader_near(action, contact["id"])
        count = 1 if leader else 2
        faces = typed[cursor : cursor + count] if typed else None
        cursor += count
        face = directions[0] if directions else None
        move = cx.move_contact(
            tables, dice, leader_near=leader, faces=faces, direction_face=face, label=f"Contact {contact['id']}"
        )
        if move.outcome == "random" and directions:
            directions.pop(0)
        contact["moved_round"] = state["round"]
        text = move.text
        if move.outcome == "split":
            if _delayed(state):
                text += " Delay is in force, so no new marker appears."
            else:
                new = _place(state, f"with {contact['id']} ({contact['where']})")
                new["split_round"] = state["round"]
                text += f" The new marker is {new['id']}."
        elif move.outcome == "advance":
            contact["note"] = f"moved {move.inches} inches toward the nearest trooper in round {state['round']}"
        else:
            contact["note"] = f"moved {move.inches} inches toward {move.direction} in round {state['round']}"
        events.append(
            Event("contact_moved", text + " Check it for Detection.", {"contact": contact["id"], **_rolls(*move.rolls)})
        )
    state["contacts_moved"] = True
    return events


def _detect(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A marker is Detected (p.192): within 6" in sight and not in cover (``band`` open) or 3" in
    cover or out of sight (``cover``); Line of Sight is not needed. Roll the Contact table (p.193)
    at once: Stay frosty, movement all over the place, or CONTACT! (see :func:`contacts.reveal`)."""
    _not_viewer(action)
    contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
    band = _choice(action, "band", cx.BANDS, default="open")
    reach = cx.detection_range(tables, band)
    if action.payload.get("distance") not in (None, ""):
        distance = payload_int(action, "distance", low=0, high=72)
        if distance > reach:
            where = "in sight and in the open" if band == "open" else "in cover or out of sight"
            raise TrackerError(
                f"A marker {where} is Detected within {reach} inches; {distance} inches is too far.", field="distance"
            )
    rolled = cx.roll_contact(tables, dice, face=_face(action, "faces"), label=f"Contact {contact['id']}")
    rolls = [rolled.record]
    spotter = ""
    if action.payload.get("spotter"):
        _, fig = _figure(state, action.payload.get("spotter"), field="spotter")
        spotter = fig["name"]
    by = f" by {spotter}" if spotter else ""
    head = f"Contact {contact['id']} Detected{by} ({reach}-inch range): rolled {rolled.face}, {rolled.result}."
    texts = [head]
    if rolled.outcome == "remove":
        state["contacts"].remove(contact)
        minimum = cx.minimum_contacts(tables)
        texts.append("The marker is removed.")
        if len(state["contacts"]) < minimum:
            _, sentence = _new_contact(state, "at the edge point farthest from the spotter", f"fewer than {minimum} markers")
            texts.append(sentence)
        return [Event("detect", " ".join(texts), {"contact": contact["id"], **_rolls(*rolls)})]
    if rolled.outcome == "move_and_add":
        move = _roll(dice, "D6", f"Contact {contact['id']} moves away", _face(action, "move_face"))
        rolls.append(move)
        contact["note"] = f"moved {move.total} inches straight away from the spotter"
        texts.append(f"It moves {move.total} inches straight away from the spotter.")
        _, sentence = _new_contact(state, "at the edge point nearest the spotter", "movement all over the place")
        texts.append(sentence)
        return [Event("detect", " ".join(texts), {"contact": contact["id"], **_rolls(*rolls)})]
    revealed = cx.reveal(
        tables,
        dice,
        enemy=state["enemy"]["name"] if state["enemy"] else None,
        variant_name=state["variant"]["name"] if state["variant"] else None,
        variant_checked=state["variant_checked"],
        enemies_met=state["enemies_met"],
        mission_number=state["mission_number"],
        encounter=state["encounter"],
        leader_pool=state["leader_pool"],
        enemy_face=_face(action, "enemy_face", 100),
        numbers_faces=payload_ints(action, "numbers_faces") or None,
        variant_face=_face(action, "variant_face"),
        leader_faces=payload_ints(action, "leader_faces") or None,
        leader_face=_face(action, "leader_face"),
    )
    rolls.extend(revealed.rolls)
    state["enemy"] = revealed.enemy.as_dict()
    state["variant_checked"] = True
    if revealed.variant is not None:
        state["variant"] = {"name": revealed.variant.name, "key": revealed.variant.key, "rule": revealed.variant.rule}
    state["leader_pool"] = revealed.leader_pool
    state["contacts"].remove(contact)
    group = {
        "id": f"g{state['next']['group']}",
        "type": revealed.enemy.name,
        "contact": contact["id"],
        "round": state["round"],
        "figures": [],
    }
    state["next"]["group"] += 1
    state["groups"].append(group)
    for index in range(revealed.count):
        note = "set up on the closest Objective" if index == 0 and revealed.enemy.name == "Converted infiltration team" else ""
        _add_enemy(state, group, note=note)
    if revealed.leader is not None:
        leader = _add_enemy(state, group, note="pack leader: placed farthest from the troopers")
        leader["leader"] = {"name": revealed.leader.name, "key": revealed.leader.key, "rule": revealed.leader.rule}
        leader["name"] = f"{revealed.enemy.name} {revealed.leader.name}"
    texts.append(revealed.text)
    if state.get("distract_round") == state["round"] and state["phase"] in ("start", "quick", "enemy"):
        texts.append('Any of them within 18" of the Distract location are Distracted too.')
    if contact.get("beep_round") == state["round"] and state["phase"] == "start":
        texts.append('It came with "Beep... Sir?": every figure within 12 inches may fire at them now as a free bonus action.')
    elif spotter:
        texts.append(f"{spotter} may now fire at them if able.")
    return [Event("detect", " ".join(texts), {"contact": contact["id"], "group": group["id"], **_rolls(*rolls)})]


def _add_enemy(state: dict[str, Any], group: dict[str, Any], *, note: str = "") -> dict[str, Any]:
    eid = f"e{state['next']['enemy']}"
    state["next"]["enemy"] += 1
    number = sum(1 for g in state["groups"] for _ in g["figures"]) + 1
    fig = {
        "id": eid,
        "name": f"{group['type']} {number}",
        "leader": None,
        "stun": 0,
        "wounded": False,
        "status": "active",
        "placed_round": state["round"],
        "note": note,
    }
    group["figures"].append(fig)
    return fig


def _add_contact(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The referee places a Contact marker by hand (``where`` in words); Delay still forbids it."""
    require_owner(action)
    where = _text(action, "where", limit=60)
    if _delayed(state):
        raise TrackerError(
            f"Delay is in force until the end of round {state['delay_until']}: no new Contact markers.", field="where"
        )
    contact = _place(state, where)
    return [
        Event("contact_added", f"Contact {contact['id']} placed {where}; check it for Detection.", {"contact": contact["id"]})
    ]


def _remove_contact(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    require_owner(action)
    contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
    state["contacts"].remove(contact)
    return [Event("contact_removed", f"Contact {contact['id']} is taken off the table.", {"contact": contact["id"]})]


def _note_contact(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    require_owner(action)
    contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
    contact["where"] = _text(action, "where", limit=60)
    return [Event("contact_noted", f"Contact {contact['id']} is {contact['where']}.", {"contact": contact["id"]})]


def _adjust_enemy(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Referee correction of one enemy figure: Stun markers, Wounded, killed."""
    require_owner(action)
    _, fig = _enemy(state, action.payload.get("enemy"), active=False)
    if "stun" in action.payload:
        fig["stun"] = payload_int(action, "stun", low=0, high=KNOCKOUT_STUN)
    if "wounded" in action.payload:
        fig["wounded"] = payload_flag(action, "wounded")
    if "status" in action.payload:
        fig["status"] = _choice(action, "status", ENEMY_STATUSES)
    if fig["stun"] >= KNOCKOUT_STUN:
        fig["status"] = "killed"
    text = f"{fig['name']}: {fig['status']}, {fig['stun']} Stun marker(s){', Wounded' if fig['wounded'] else ''}."
    return [Event("enemy_adjusted", text, {"enemy": fig["id"]})]


def _caller(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Caller pack leader activates (p.197): 1D6 above the Contact markers on the table places
    a new one next to it."""
    require_owner(action)
    _, fig = _enemy(state, action.payload.get("enemy"))
    if not fig["leader"] or fig["leader"]["key"] != "caller":
        raise TrackerError(f"{fig['name']} is not a Caller.", field="enemy")
    record = _roll(dice, "D6", "Caller", _face(action, "faces"))
    count = len(state["contacts"])
    if int(record.total or 0) > count:
        _, sentence = _new_contact(state, f"next to {fig['name']}", "the Caller")
        text = f"{fig['name']} calls: rolled {record.total}, above the {count} Contact markers. {sentence}"
    else:
        text = f"{fig['name']} calls: rolled {record.total}, not above the {count} Contact markers: nothing comes."
    return [Event("caller", text, {"enemy": fig["id"], "roll": record.as_dict()})]


# -- Spawn Points, Tactical Locations, Signals (pp.190-191, 199) ---------------------------------------------


def _close_spawn_point(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Close a Spawn Point (p.199): a trooper within 3" and not firing rolls 1D6+Savvy, 6+ removes
    it and its Countdown; one helper within 1" (also not firing) adds +1."""
    point = _find(state["spawn_points"], action.payload.get("spawn"), "spawn", "Spawn Point")
    if point["closed"]:
        raise TrackerError(f"Spawn Point {point['id']} is already closed.", field="spawn")
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    rule = tables["bh-close-spawn-point"].entries[0].data
    helper = None
    if action.payload.get("helper"):
        _, helper = _figure(state, action.payload.get("helper"), field="helper")
        if helper is fig:
            raise TrackerError("helper must be another trooper within 1 inch of the worker.", field="helper")
    bonus = int(rule["helper_bonus"]) if helper else 0
    record = _roll(dice, "D6", f"Close Spawn Point {point['id']}", _face(action, "faces"), modifier=fig["savvy"] + bonus)
    target = int(rule["target"])
    parts = f"rolled {record.natural} {_signed(fig['savvy'])} Savvy" + (f" +{bonus} {helper['name']} helping" if helper else "")
    if int(record.total or 0) >= target:
        point["closed"] = True
        point["countdown"] = None
        text = f"{fig['name']} works on Spawn Point {point['id']}: {parts} = {record.total} against {target}+: closed, with its Countdown."
    else:
        text = f"{fig['name']} works on Spawn Point {point['id']}: {parts} = {record.total} against {target}+: still open."
    return [Event("close_spawn_point", text + " They cannot fire this action.", {"spawn": point["id"], "roll": record.as_dict()})]


def _investigate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Investigate a Tactical Location (p.191): a figure ending its move within 3" without firing or
    Brawling rolls D6 on bh-tactical-locations to learn what it is."""
    loc = _find(state["locations"], action.payload.get("location"), "location", "Tactical Location")
    who = "A trooper"
    if action.payload.get("figure"):
        unit, fig = _figure(state, action.payload.get("figure"))
        _mine(action, unit)
        who = fig["name"]
    else:
        require_owner(action)
    if loc["type"] is not None:
        raise TrackerError(f"Tactical Location {loc['id']} is already known: {loc['type']}.", field="location")
    rolled = tables["bh-tactical-locations"].resolve(_roll(dice, "D6", f"Tactical Location {loc['id']}", _face(action, "faces")))
    loc.update({"type": rolled.entry.result, "key": str(rolled.entry.data["advantage"]), "rule": rolled.entry.effect})
    text = f"{who} investigates Tactical Location {loc['id']}: rolled {rolled.record.total}, {loc['type']} ({loc['rule']}). Any figure within 3 inches not firing or Brawling may try to activate it."
    return [Event("investigate", text, {"location": loc["id"], "roll": rolled.record.as_dict()})]


def _activate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Activate a Tactical Location (p.191): 1D6+Savvy 5+ (+1 with an Intel report). A failure
    marks it; a second failure breaks it for the mission. Effects: Distract (enemies within 18"
    skip the next Enemy Action phase), Block (Impassable to enemies and Contacts within 2"; D6 each
    round's end, 6 opens it at the end of the next round), Neutralize (remove one Contact marker,
    ``contact``), Delay (no new Contact markers this round and the next two)."""
    loc = _find(state["locations"], action.payload.get("location"), "location", "Tactical Location")
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    if loc["type"] is None:
        raise TrackerError(f"Investigate Tactical Location {loc['id']} first.", field="location")
    if loc["broken"]:
        raise TrackerError(f"Tactical Location {loc['id']} is broken after two failures.", field="location")
    if loc["active"]:
        raise TrackerError(f"Tactical Location {loc['id']} is already activated.", field="location")
    rule = _entry_data(tables, "bh-tactical-location-activation", "Activate")
    target = int(rule["target"])
    intel = 1 if state["intel_report"] else 0
    contact = None
    if loc["key"] == "neutralize" and state["contacts"]:
        contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
    record = _roll(dice, "D6", f"Activate {loc['id']}", _face(action, "faces"), modifier=fig["savvy"] + intel)
    sums = (
        f"rolled {record.natural} {_signed(fig['savvy'])} Savvy"
        + (" +1 Intel report" if intel else "")
        + f" = {record.total} against {target}+"
    )
    if int(record.total or 0) < target:
        loc["failures"] += 1
        if loc["failures"] > int(rule["failures_allowed"]):
            loc["broken"] = True
            text = f"{fig['name']} tries to activate {loc['type']} ({loc['id']}): {sums}: failed again, it is broken for the rest of the mission."
        else:
            text = f"{fig['name']} tries to activate {loc['type']} ({loc['id']}): {sums}: failed; one more failure breaks it."
        return [Event("activate", text, {"location": loc["id"], "roll": record.as_dict()})]
    loc["active"] = True
    effect = ""
    rnd = state["round"]
    if loc["key"] == "distract":
        state["distract_round"] = rnd if state["phase"] in ("start", "quick") else rnd + 1
        effect = f"Enemies within 18 inches are Distracted and skip the Enemy Action phase of round {state['distract_round']}."
    elif loc["key"] == "block":
        loc["blocked"] = True
        effect = "Within 2 inches is Impassable to enemies and Contact markers (not troopers); roll each round's end to see if it opens."
    elif loc["key"] == "neutralize":
        if contact is None:
            effect = "There is no Contact marker to remove."
        else:
            state["contacts"].remove(contact)
            effect = f"Contact {contact['id']} is removed."
    elif loc["key"] == "delay":
        rounds = int(_entry_data(tables, "bh-tactical-locations", "Delay")["rounds"])
        state["delay_until"] = rnd + rounds
        effect = f"No new Contact markers this round or the next {rounds} (until the end of round {state['delay_until']})."
    text = f"{fig['name']} activates {loc['type']} ({loc['id']}): {sums}: success. {effect}"
    return [Event("activate", text, {"location": loc["id"], "roll": record.as_dict()})]


def _investigate_signal(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Count one Signal investigated (p.201: with 4+ Signals, fewer than 2 investigated costs one
    Objective). How a Signal is investigated is outside our pages; the referee records it."""
    require_owner(action)
    if state["signals_investigated"] >= state["signals"]:
        raise TrackerError(f"All {state['signals']} Signals are already investigated.", field="type")
    state["signals_investigated"] += 1
    return [Event("signal", f"Signal investigated: {state['signals_investigated']} of {state['signals']}.", {})]


# -- Objectives (p.185) --------------------------------------------------------------------------------------


def _objective(state: Mapping[str, Any], action: Action, *, key: str | None = None) -> dict[str, Any]:
    obj = _find(state["objectives"], action.payload.get("objective"), "objective", "Objective")
    if key is not None and obj["key"] != key:
        raise TrackerError(f"Objective {obj['position']} is {obj['type']}, not {key.title()}.", field="objective")
    if obj["completed"]:
        raise TrackerError(f"Objective {obj['position']} is already completed.", field="objective")
    return obj


def _complete(state: dict[str, Any], obj: dict[str, Any]) -> None:
    obj["completed"] = True
    obj["completed_round"] = state["round"]


def _worker(state: dict[str, Any], action: Action) -> dict[str, Any]:
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    return fig


def _scout(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Scout (p.185): a trooper moved into contact; completed at the end of this round."""
    obj = _objective(state, action, key="scout")
    fig = _worker(state, action)
    obj["contacted_round"] = state["round"]
    return [
        Event(
            "scout",
            f"{fig['name']} reaches Objective {obj['position']} (Scout): it is completed at the end of this round.",
            {"objective": obj["id"]},
        )
    ]


def _hack(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hack (p.185): a trooper in contact spends a Combat Action and rolls 1D6+Savvy, 6+."""
    obj = _objective(state, action, key="hack")
    fig = _worker(state, action)
    rule = next(e.data for e in tables["bh-mission-objectives"].entries if e.data["objective"] == "hack")
    target = int(rule["target"])
    record = _roll(dice, "D6", f"Hack Objective {obj['position']}", _face(action, "faces"), modifier=fig["savvy"])
    sums = f"rolled {record.natural} {_signed(fig['savvy'])} Savvy = {record.total} against {target}+"
    if int(record.total or 0) >= target:
        _complete(state, obj)
        text = f"{fig['name']} hacks Objective {obj['position']}: {sums}: completed."
    else:
        text = f"{fig['name']} hacks Objective {obj['position']}: {sums}: not yet (try again with another Combat Action)."
    return [Event("hack", text, {"objective": obj["id"], "roll": record.as_dict()})]


def _pick_up(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Retrieve (p.185): a trooper in contact spends a Combat Action to take the package; it counts
    only when carried out at Evac."""
    obj = _objective(state, action, key="retrieve")
    fig = _worker(state, action)
    if obj["package"] not in ("marker", "dropped"):
        raise TrackerError(
            f"The package of Objective {obj['position']} is not lying on the table ({obj['package']}).", field="objective"
        )
    if fig["package"]:
        raise TrackerError(f"{fig['name']} already carries a package.", field="figure")
    obj["package"] = fig["id"]
    fig["package"] = obj["id"]
    return [
        Event(
            "pick_up",
            f"{fig['name']} takes the package of Objective {obj['position']}: carry it out at Evac to complete it.",
            {"objective": obj["id"]},
        )
    ]


def _drop_package(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    fig = _worker(state, action)
    if not fig["package"]:
        raise TrackerError(f"{fig['name']} carries no package.", field="figure")
    obj = _find(state["objectives"], fig["package"], "objective", "Objective")
    obj["package"], fig["package"] = "dropped", None
    return [
        Event("drop_package", f"{fig['name']} puts down the package of Objective {obj['position']}.", {"objective": obj["id"]})
    ]


def _beacon(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Beacon (p.185): a trooper touches it once every Hack, Secure and Scout Objective is done."""
    obj = _objective(state, action, key="beacon")
    fig = _worker(state, action)
    open_ones = [o for o in state["objectives"] if o["key"] in ("hack", "secure", "scout") and not o["completed"]]
    if open_ones:
        names = ", ".join(f"{o['position']} ({o['type']})" for o in open_ones)
        raise TrackerError(
            f"The Beacon needs every Hack, Secure and Scout Objective done first; still open: {names}.", field="objective"
        )
    _complete(state, obj)
    return [
        Event("beacon", f"{fig['name']} sets the Beacon at Objective {obj['position']}: completed.", {"objective": obj["id"]})
    ]


def _set_objective(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Referee correction: mark an Objective completed or not."""
    require_owner(action)
    obj = _find(state["objectives"], action.payload.get("objective"), "objective", "Objective")
    done = payload_flag(action, "completed", default=True)
    obj["completed"] = done
    obj["completed_round"] = state["round"] if done else None
    return [
        Event(
            "objective",
            f"Objective {obj['position']} ({obj['type']}) is marked {'completed' if done else 'not completed'}.",
            {"objective": obj["id"]},
        )
    ]


def _reroll_reaction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Precursor explorer lets the squad re-roll one Reaction die each round (p.189): ``die``
    (1-based), ``faces`` optional. Any assignment of that die is kept with the new face."""
    require_owner(action)
    _phase(state, "start", what="Re-rolling a Reaction die")
    if not any(
        u["active"] and "precursor" in f["special"] for u in state["units"] for f in u["figures"] if f["status"] == "active"
    ):
        raise TrackerError("Only a Precursor explorer on the table allows a Reaction re-roll.", field="type")
    if state.get("precursor_round") == state["round"]:
        raise TrackerError("One Reaction die may be re-rolled each round; it is done.", field="type")
    if not state["reaction_dice"]:
        raise TrackerError("Roll Reactions first.", field="type")
    index = payload_int(action, "die", low=1, high=len(state["reaction_dice"])) - 1
    old = state["reaction_dice"][index]
    record = _roll(dice, "D6", "Reaction re-roll (Precursor explorer)", _face(action, "faces"))
    state["reaction_dice"][index] = int(record.total or 0)
    state["precursor_round"] = state["round"]
    for unit in state["units"]:
        if unit["die"] == index:
            unit["face"] = state["reaction_dice"][index]
    return [
        Event(
            "reaction_reroll",
            f"Precursor explorer: die {index + 1} re-rolled from {old} to {record.total}.",
            {"roll": record.as_dict()},
        )
    ]


def _survey(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A scientist of a Scientific survey team spent a whole round at the table center (p.188):
    it counts as one completed Objective, once per mission."""
    fig = _worker(state, action)
    if "scientists" not in fig["special"]:
        raise TrackerError(f"{fig['name']} is not a scientist of a Scientific survey team.", field="figure")
    if any(o["key"] == "survey" for o in state["objectives"]):
        raise TrackerError("The survey counts only once per mission.", field="type")
    state["objectives"].append(
        {
            "id": "survey",
            "position": 0,
            "rank": "Objective",
            "value": 1,
            "type": "Survey",
            "key": "survey",
            "completed": True,
            "completed_round": state["round"],
            "contacted_round": None,
            "package": None,
        }
    )
    return [
        Event(
            "survey", f"{fig['name']} completes the survey at the table center: one Objective completed.", {"figure": fig["id"]}
        )
    ]


# -- Evac and leaving the table (p.201) ---------------------------------------------------------------------


def _request_evac(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Call Evac (p.201), from round 5: a stationary, un-Stunned character who takes no other action
    rolls 2D6 + Objectives completed (packages held count) + 1 with Savvy +1 or more; 10+ lands the
    drop ship at the end of the next round, otherwise roll again at the end of every round."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    if state["round"] < EVAC_FROM_ROUND:
        raise TrackerError(f"Evac can be called from round {EVAC_FROM_ROUND}; this is round {state['round']}.", field="type")
    if state["evac"]["status"] not in ("none", "left"):
        raise TrackerError(f"Evac is already {state['evac']['status']}.", field="type")
    if fig["stun"]:
        raise TrackerError(f"{fig['name']} is Stunned and cannot call Evac.", field="figure")
    state["evac"]["caller"] = fig["id"]
    event = _evac_roll(
        state, dice, tables, payload_faces(action, "faces", 2), why=f"{fig['name']} calls, standing still and doing nothing else"
    )
    return [event]


def _leave(state: dict[str, Any], fig: dict[str, Any], status: str) -> str:
    """Take a figure off the table; a carried package is dropped (casualty), carried out (Evac)
    or lost with a trooper leaving by an edge. Returns a sentence about the package, or ''."""
    fig["status"] = status
    if not fig["package"]:
        return ""
    obj = _find(state["objectives"], fig["package"], "objective", "Objective")
    fig["package"] = None
    if status == "evacuated":
        obj["package"] = "evacuated"
        _complete(state, obj)
        return f" The package of Objective {obj['position']} is carried out: completed."
    if status == "exited":
        obj["package"] = "lost"
        return f" The package of Objective {obj['position']} leaves the table with them and does not count."
    obj["package"] = "dropped"
    return f" The package of Objective {obj['position']} is dropped where they fell."


def _evacuate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Troopers within 3" of the landed drop ship leave the table safely (p.201). ``figure`` is a
    figure id, or a unit id for all its figures."""
    if state["evac"]["status"] != "hovering":
        raise TrackerError("The drop ship is not on the ground: call Evac and wait for it to land.", field="type")
    target = str(action.payload.get("figure") or action.payload.get("unit") or "")
    unit = next((u for u in state["units"] if u["id"] == target), None)
    if unit is not None:
        _mine(action, unit)
        figs = [f for f in unit["figures"] if f["status"] == "active"]
        if not figs:
            raise TrackerError(f"{unit['name']} has no figure on the table.", field="figure")
    else:
        unit, fig = _figure(state, target)
        _mine(action, unit)
        figs = [fig]
    texts = []
    for fig in figs:
        texts.append(f"{fig['name']} boards the drop ship.{_leave(state, fig, 'evacuated')}")
    return [Event("evacuate", " ".join(texts), {"figures": [f["id"] for f in figs]})]


def _exit_edge(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A trooper leaves by a battlefield edge (p.200): off the table, a Lost Marine roll after the battle."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    tail = _leave(state, fig, "exited")
    return [
        Event(
            "exit_edge",
            f"{fig['name']} leaves by a battlefield edge and will roll on the Lost Marine column.{tail}",
            {"figure": fig["id"]},
        )
    ]


def _end_mission(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End the mission (everyone is off the table, or the referee calls it)."""
    require_owner(action)
    state["phase"] = "over"
    left = [f["name"] for _, f in _all_figures(state) if f["status"] == "active"]
    tail = f" Still on the table: {', '.join(left)}." if left else ""
    done = _objectives_done_final(state)
    return [
        Event(
            "end_mission",
            f"The mission ends after round {state['round']} with {done} Objective(s) completed.{tail}",
            {"objectives": done},
        )
    ]


# -- figures ----------------------------------------------------------------------------------------------


def _adjust(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Referee correction of a trooper: Stun markers (3 knock out), Wounded, status."""
    require_owner(action)
    _, fig = _figure(state, action.payload.get("figure"), active=False)
    tail = ""
    if "stun" in action.payload:
        fig["stun"] = payload_int(action, "stun", low=0, high=KNOCKOUT_STUN)
    if "wounded" in action.payload:
        fig["wounded"] = payload_flag(action, "wounded")
    if "status" in action.payload:
        status = _choice(action, "status", STATUSES)
        if status != "active" and fig["status"] == "active":
            tail = _leave(state, fig, status)
        fig["status"] = status
    if fig["stun"] >= KNOCKOUT_STUN and fig["status"] == "active":
        tail = _leave(state, fig, "knocked_out")
    text = f"{fig['name']}: {fig['status'].replace('_', ' ')}, {fig['stun']} Stun marker(s){', Wounded' if fig['wounded'] else ''}.{tail}"
    return [Event("adjusted", text, {"figure": fig["id"]})]


def _weapon_of(fig: Mapping[str, Any], action: Action) -> dict[str, Any]:
    name = str(action.payload.get("weapon") or "").strip().lower()
    for weapon in fig["weapons"]:
        if weapon["name"].lower() == name:
            return weapon  # type: ignore[no-any-return]
    have = ", ".join(w["name"] for w in fig["weapons"]) or "none"
    raise TrackerError(f"{fig['name']} carries no weapon {action.payload.get('weapon')!r}; weapons: {have}.", field="weapon")


def _clear_malfunction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Clear a malfunctioned weapon (p.178): a Combat Action and 1D6+Savvy, 7+ (combat helper)."""
    fig = _worker(state, action)
    weapon = _weapon_of(fig, action)
    if not weapon["malfunctioned"]:
        raise TrackerError(f"{fig['name']}'s {weapon['name']} works.", field="weapon")
    check = combat.clear_malfunction(fig["savvy"], dice, tables=tables, faces=payload_faces(action, "faces", 1))
    if check.success:
        weapon["malfunctioned"] = False
    text = f"{fig['name']} works on the {weapon['name']} (a Combat Action): {check.text}"
    return [Event("clear_malfunction", text, {"figure": fig["id"], **_rolls(*check.rolls)})]


# -- Movie magic (p.181) -------------------------------------------------------------------------------------


def _movie_magic(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Play a Movie magic card (p.181), each once per campaign. Where the tracker acts: Evac (after
    a failed Evac roll: lands at the end of next round, no roll), Remove Contact (``contact``),
    Reinforcements (``support``: a Support option placed at the center of an edge), Double-Up
    (``figure`` gains an Incinerator that never malfunctions), Lucky Find (``figure``, ``weapon``:
    no malfunctions, gone after the mission), You want some too? (``figure`` fires three times
    this round without malfunction). Barricade is noted; Escape and Survived are post-battle cards
    recorded for :func:`outcome`; Extra Support belongs to mission set-up and is refused here."""
    cards = _card_names(tables)
    card = _choice(action, "card", cards)
    if card in state["movie_magic_used"]:
        raise TrackerError(f"{card} is already used in this campaign.", field="card")
    if card in SETUP_CARDS:
        raise TrackerError(
            f"{card} is played while rolling for Support before the mission; use it in the mission set-up.", field="card"
        )
    data = _entry_data(tables, "bh-movie-magic", card)
    figure_cards = ("Double-Up", "Lucky Find", "You want some too?")
    if card in figure_cards:
        unit, fig = _figure(state, action.payload.get("figure"))
        _mine(action, unit)
    else:
        require_owner(action)
    text = ""
    magic_rolls: list[RollRecord] = []
    if card == "Barricade":
        text = f"Barricade: place a straight barrier up to {data['width_in']} inches wide; nothing can cross it (Contact markers too) for the rest of the battle."
    elif card == "Double-Up":
        fig["weapons"].append(_new_weapon(str(data["weapon"]), no_malfunction=True, temporary=True))
        text = f"Double-Up: {fig['name']} gains an Incinerator that never malfunctions and may fire it or their own weapon each round."
    elif card == "Escape":
        text = "Escape: troopers who left by a battlefield edge skip the Lost Marine roll after the battle."
    elif card == "Evac":
        if state["evac"]["status"] != "pending":
            raise TrackerError("The Evac card is played after a failed Evac roll; no call is waiting.", field="card")
        state["evac"].update({"status": "coming", "arrives_round": state["round"] + 1})
        text = f"Evac: the drop ship lands at the end of round {state['round'] + 1} with no roll."
    elif card == "Lucky Find":
        name = _weapon_names(tables, str(action.payload.get("weapon") or ""), "weapon")[0] if action.payload.get("weapon") else ""
        if not name:
            raise TrackerError("weapon is required: a weapon from the Weapons table.", field="weapon")
        fig["weapons"].append(_new_weapon(name, no_malfunction=True, temporary=True))
        text = f"Lucky Find: {fig['name']} gets a {name} that never malfunctions (gone after the mission)."
    elif card == "Reinforcements":
        support = {e.result: e.data for e in tables["bh-support"].entries if e.data.get("profile")}
        choice = _choice(action, "support", list(support))
        option = support[choice]
        new = _add_unit(
            state,
            kind="team",
            name=choice,
            owner=str(action.payload.get("owner") or ""),
            reactions=int(option["profile"]["reactions"]),
            figures=int(option["figures"]),
            profile=option["profile"],
            save=option.get("armor_save"),
            weapons=list(option.get("weapons") or []),
            special=[combat.BRAWL_BEST_OF_TWO] if option.get("brawl_dice") else [],
        )
        text = f"Reinforcements: {new['name']} ({option['figures']} figure(s)) enters at the center of a battlefield edge of your choice, no roll needed."
        if state["phase"] == "start" and state["reaction_dice"]:
            record = dice.d6(f"Reactions for {new['name']}")
            state["reaction_dice"].append(int(record.total or 0))
            text += f" Their Reaction die ({record.total}) joins this round's dice as die {len(state['reaction_dice'])}."
            magic_rolls.append(record)
        elif state["phase"] != "start":
            text += " They roll Reactions from next round."
    elif card == "Remove Contact":
        contact = _find(state["contacts"], action.payload.get("contact"), "contact", "Contact marker")
        state["contacts"].remove(contact)
        text = f"Remove Contact: Contact {contact['id']} is taken off the table."
    elif card == "Survived":
        text = "Survived: one character may ignore an injury roll after the battle."
    elif card == "You want some too?":
        fig["three_shots_round"] = state["round"]
        text = f"You want some too?: {fig['name']} moves normally, then fires three times with no risk of malfunction this round."
    state["movie_magic_used"].append(card)
    state["movie_magic_mission"].append(card)
    return [Event("movie_magic", text + " The card is used for the campaign.", {"card": card, **_rolls(*magic_rolls)})]


# -- combat (pp.177-181, 194-197, 201) through bughunt.engine.combat ----------------------------------------


def _combat_error(exc: combat.CombatError) -> TrackerError:
    message = str(exc)
    field = next((f for f in ("faces", "band", "grenade", "weapon", "damage") if f in message), None)
    return TrackerError(message, field=field)


def _trooper(fig: Mapping[str, Any]) -> combat.Combatant:
    return combat.Combatant(
        name=fig["name"],
        combat_skill=int(fig["combat_skill"]),
        toughness=int(fig["toughness"]),
        savvy=int(fig["savvy"]),
        save=fig["save"],
        stun_markers=int(fig["stun"]),
        wounded=bool(fig["wounded"]),
        weapons=tuple(w["name"] for w in fig["weapons"]),
        special=frozenset(fig["special"]),
    )


def _foe(
    state: Mapping[str, Any], tables: Mapping[str, RangeTable], group: Mapping[str, Any], fig: Mapping[str, Any]
) -> combat.Combatant:
    base = combat.enemy_combatant(
        tables,
        group["type"],
        variant=state["variant"]["name"] if state["variant"] else None,
        leader=fig["leader"]["name"] if fig["leader"] else None,
        name=fig["name"],
    )
    return replace(base, stun_markers=int(fig["stun"]), wounded=bool(fig["wounded"]))


def _apply_to_trooper(
    state: dict[str, Any], fig: dict[str, Any], hit: combat.HitResult, *, by: str | None = None, dice: Dice | None = None
) -> list[str]:
    """Copy a Hit's result onto a trooper; a removed figure leaves the table (package dropped).
    Shambling reanimations replace a defeated grunt with a new Reanimation (p.194)."""
    fig["stun"] = hit.target.stun_markers
    fig["wounded"] = hit.target.wounded
    notes: list[str] = []
    if hit.removed:
        tail = _leave(state, fig, hit.outcome)
        if by:
            fig["defeated_by"] = by
        if tail:
            notes.append(tail.strip())
        if by == "Shambling reanimations" and not fig["main"] and state["groups"]:
            new = _add_enemy(state, state["groups"][-1], note=f"rose where {fig['name']} fell")
            notes.append(f"{new['name']} rises in {fig['name']}'s place.")
        if by == "Razor lizards":
            notes.append("Razor lizards: their injury recovery takes 1 campaign turn longer.")
    return notes


def _apply_to_enemy(
    state: dict[str, Any],
    tables: Mapping[str, RangeTable],
    group: dict[str, Any],
    fig: dict[str, Any],
    after: combat.Combatant,
    removed: bool,
    dice: Dice,
) -> tuple[list[str], list[RollRecord]]:
    """Copy a fight's result onto an enemy figure; on death, Acid blobs split (p.195) and
    Shatter-forms burst (the referee resolves the Damage 0 hits on figures within 2")."""
    fig["stun"] = after.stun_markers
    fig["wounded"] = after.wounded
    notes: list[str] = []
    rolls: list[RollRecord] = []
    if not removed:
        return notes, rolls
    fig["status"] = "killed"
    if group["type"] == "Acid blobs":
        split = combat.acid_blob_death(dice, tables=tables)
        rolls.extend(split.rolls)
        for _ in range(split.new_blobs):
            _add_enemy(state, group, note=f"split from {fig['name']}")
        notes.append(split.text)
    if group["type"] == "Shatter-forms":
        notes.append(f"{fig['name']} shatters: every figure within 2 inches takes a Damage 0 hit (use Hit for each).")
    return notes, rolls


def _shoot(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A trooper fires one weapon (pp.177-179) at an enemy figure (``enemy``; optional for Area and
    Stun weapons aimed at a point): ``band`` close (3+), open (5+) or cover (6+); ``moved``,
    ``behind_cover`` (Vent-crawlers), ``rapid_fire`` (default on), ``near`` (other figures within
    2" of an Area/Stun point), ``grenade`` (Launcher), ``faces``. The weapon's natural 1s this
    round are counted toward a Malfunction; Area ammunition can run out. Movie magic weapons
    and "You want some too?" (three shots) never malfunction."""
    unit, fig = _figure(state, action.payload.get("figure"))
    _mine(action, unit)
    weapon = _weapon_of(fig, action)
    if weapon["malfunctioned"]:
        raise TrackerError(f"{fig['name']}'s {weapon['name']} has malfunctioned: clear it first (1D6+Savvy 7+).", field="weapon")
    if weapon["out_of_ammo"]:
        raise TrackerError(f"{fig['name']}'s {weapon['name']} is out of ammunition for this battle.", field="weapon")
    group = target = None
    if action.payload.get("enemy"):
        group, target = _enemy(state, action.payload.get("enemy"))
    three = fig.get("three_shots_round") == state["round"]
    band = _choice(action, "band", ("close", "open", "cover"), default="open")
    try:
        shot = combat.resolve_shot(
            tables,
            _trooper(fig),
            weapon["name"],
            _foe(state, tables, group, target) if group is not None and target is not None else None,
            dice,
            band=band,
            moved=payload_flag(action, "moved"),
            target_behind_cover=payload_flag(action, "behind_cover"),
            ones_this_round=int(weapon["ones"]),
            take_rapid_fire=payload_flag(action, "rapid_fire", default=True),
            no_malfunction=bool(weapon["no_malfunction"]) or three,
            figures_near_point=payload_int(action, "near", low=0, high=20, default=0),
            grenade=str(action.payload.get("grenade") or "") or None,
            shots=3 if three else None,
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    weapon["ones"] = shot.ones_this_round
    weapon["malfunctioned"] = weapon["malfunctioned"] or shot.malfunctioned
    weapon["out_of_ammo"] = weapon["out_of_ammo"] or shot.out_of_ammo
    if three:
        fig["three_shots_round"] = None
    texts = [shot.text]
    rolls = list(shot.rolls)
    if group is not None and target is not None and shot.target is not None:
        removed = any(h.removed for h in shot.hits)
        notes, extra = _apply_to_enemy(state, tables, group, target, shot.target, removed, dice)
        texts.extend(notes)
        rolls.extend(extra)
    if shot.spare_hits:
        texts.append(
            f"{shot.spare_hits} hit(s) left over: put them on a figure within 3 inches with Hit (not for Focused weapons)."
        )
    return [Event("shoot", " ".join(texts), {"figure": fig["id"], **_rolls(*rolls)})]


def _brawl(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Brawl between a trooper (``figure``) and an enemy (``enemy``) (pp.177-180): both 1D6 +
    Combat Skill with the trooper's weapon bonus; lower total takes a Hit, a draw hits both.
    ``second_opponent`` (+1 to the second enemy met at once), ``crash`` (a random move: both +0,
    no modifiers), ``faces``. Results are applied to both figures."""
    unit, fig = _figure(state, action.payload.get("figure"))
    if action.role == Role.PLAYER:
        _mine(action, unit)
    else:
        _not_viewer(action)
    group, enemy = _enemy(state, action.payload.get("enemy"))
    try:
        fight = combat.resolve_brawl(
            tables,
            _trooper(fig),
            _foe(state, tables, group, enemy),
            dice,
            second_opponent=payload_flag(action, "second_opponent"),
            crash=payload_flag(action, "crash"),
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    texts = [fight.text]
    rolls = list(fight.rolls)
    enemy_removed = any(h.removed and h.target.is_enemy for h in fight.hits)
    fig["stun"], fig["wounded"] = fight.trooper.stun_markers, fight.trooper.wounded
    fallen = next((h for h in fight.hits if h.removed and not h.target.is_enemy), None)
    if fallen is not None:
        texts.extend(_apply_to_trooper(state, fig, fallen, by=group["type"]))
    notes, extra = _apply_to_enemy(state, tables, group, enemy, fight.enemy, enemy_removed, dice)
    texts.extend(notes)
    rolls.extend(extra)
    return [Event("brawl", " ".join(texts), {"figure": fig["id"], "enemy": enemy["id"], **_rolls(*rolls)})]


def _hit(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Resolve one Hit by hand (p.178) on a trooper (``figure``) or an enemy (``enemy``): splash
    hits, spare hits, a Shatter-form burst, a fall. ``damage`` 0-5, ``piercing``, ``area``,
    ``ranged`` (default on), ``faces`` (save die if any, then the Hit die)."""
    require_owner(action)
    damage = payload_int(action, "damage", low=0, high=5, default=0)
    piercing, area = payload_flag(action, "piercing"), payload_flag(action, "area")
    ranged = payload_flag(action, "ranged", default=True)
    faces = payload_ints(action, "faces") or None
    try:
        if action.payload.get("enemy"):
            group, enemy = _enemy(state, action.payload.get("enemy"))
            foe = _foe(state, tables, group, enemy)
            result = combat.resolve_hit(tables, foe, damage, dice, piercing=piercing, area=area, ranged=ranged, faces=faces)
            notes, extra = _apply_to_enemy(state, tables, group, enemy, result.target, result.removed, dice)
            return [Event("hit", " ".join([result.text, *notes]), {"enemy": enemy["id"], **_rolls(*result.rolls, *extra)})]
        _, fig = _figure(state, action.payload.get("figure"))
        result = combat.resolve_hit(tables, _trooper(fig), damage, dice, piercing=piercing, area=area, ranged=ranged, faces=faces)
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    notes = _apply_to_trooper(state, fig, result)
    return [Event("hit", " ".join([result.text, *notes]), {"figure": fig["id"], **_rolls(*result.rolls)})]


def _enemy_attack(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable], kind: str) -> list[Event]:
    require_owner(action)
    group, enemy = _enemy(state, action.payload.get("enemy"))
    _, fig = _figure(state, action.payload.get("figure"))
    faces = payload_ints(action, "faces") or None
    try:
        if kind == "spitter":
            if not state["variant"] or state["variant"]["key"] != "spitters":
                raise TrackerError("Only the Spitters variant spits (p.196).", field="enemy")
            foe = _foe(state, tables, group, enemy)
            attack = combat.spitter_attack(_trooper(fig), dice, tables=tables, attacker_special=foe.special, faces=faces)
        else:
            if not enemy["leader"] or enemy["leader"]["key"] != "lancer":
                raise TrackerError(f"{enemy['name']} is not a Lancer (p.197).", field="enemy")
            attack = combat.lancer_dart(_trooper(fig), dice, tables=tables, faces=faces)
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    notes = _apply_to_trooper(state, fig, attack.result, by=group["type"]) if attack.result is not None else []
    return [Event(kind, " ".join([f"{enemy['name']}: {attack.text}", *notes]), {"figure": fig["id"], **_rolls(*attack.rolls)})]


def _spitter(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Spitter ends its move within 6" and sight of a trooper (p.196): 1D6, a 6 hits, Damage 1, armor applies."""
    return _enemy_attack(state, action, dice, tables, "spitter")


def _lancer(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Lancer's dart after its move (p.197): 5+ hits, Damage 1, ignores armor."""
    return _enemy_attack(state, action, dice, tables, "lancer")


def _drop_ship_fire(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The hovering drop ship's supporting fire, once in each hovering round including the arrival
    round (p.201): two Light Machine Guns at +1 Combat Skill that never malfunction, at ``enemy``
    (``band``) and optionally ``enemy2`` (``band2``) for the second gun."""
    require_owner(action)
    evac = state["evac"]
    if evac["status"] != "hovering":
        raise TrackerError("The drop ship is not hovering over the table.", field="type")
    if evac["fired_round"] == state["round"]:
        raise TrackerError("The drop ship has already fired this round.", field="type")
    group, enemy = _enemy(state, action.payload.get("enemy"))
    second = None
    if action.payload.get("enemy2"):
        second = _enemy(state, action.payload.get("enemy2"), field="enemy2")
    bands = ("close", "open", "cover")
    try:
        fire = combat.drop_ship_fire(
            tables,
            _foe(state, tables, group, enemy),
            dice,
            band=_choice(action, "band", bands, default="open"),
            second_target=_foe(state, tables, *second) if second else None,
            second_band=_choice(action, "band2", bands, default="open") if second else None,
            faces=payload_ints(action, "faces") or None,
        )
    except combat.CombatError as exc:
        raise _combat_error(exc) from None
    evac["fired_round"] = state["round"]
    texts = [f"Drop ship supporting fire: {fire.text}"]
    rolls = list(fire.rolls)
    targets = [(group, enemy)] + ([second] if second else [])
    for shot in fire.shots:
        if shot.target is None:
            continue
        for grp, foe in targets:
            if foe["name"] == shot.target.name and foe["status"] == "active":
                notes, extra = _apply_to_enemy(state, tables, grp, foe, shot.target, any(h.removed for h in shot.hits), dice)
                texts.extend(notes)
                rolls.extend(extra)
    return [Event("drop_ship_fire", " ".join(texts), {"enemy": enemy["id"], **_rolls(*rolls)})]


# -- outcome --------------------------------------------------------------------------------------------


def _objectives_done_final(state: Mapping[str, Any]) -> int:
    """Completed Objectives (Vital 2, Critical 3; a Retrieve only if its package was carried out at
    Evac), one less when 4+ Signals were placed and fewer than 2 investigated (p.201)."""
    total = _objectives_done(state)
    if state["signals"] >= 4 and state["signals_investigated"] < 2:
        total = max(0, total - 1)
    return total


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The mission summed up for the post-battle sequence (pp.201-202).

    ``casualties``, ``lost_marines`` (left by an edge), ``evacuated`` and ``on_table`` are lists of
    ``{"name", "main", "unit", "trooper_id", "defeated_by"}`` (trooper_id from the setup, if given); ``took_field`` the main characters' names. ``objectives_completed``
    follows :func:`_objectives_done_final`; ``success`` is 2 or more, ``court_martial`` 0.
    """

    def who(statuses: tuple[str, ...]) -> list[dict[str, Any]]:
        return [
            {
                "name": f["name"],
                "main": f["main"],
                "unit": u["name"],
                "trooper_id": f.get("trooper_id"),
                "defeated_by": f.get("defeated_by"),
            }
            for u, f in _all_figures(state)
            if f["status"] in statuses
        ]

    done = _objectives_done_final(state)
    return {
        "priority_start": state["priority_start"],
        "priority": state["priority"],
        "objectives_completed": done,
        "success": done >= 2,
        "court_martial": done == 0,
        "took_field": [u["name"] for u in state["units"] if u["kind"] == "character"],
        "casualties": who(("casualty", "knocked_out")),
        "lost_marines": who(("exited",)),
        "evacuated": who(("evacuated",)),
        "on_table": who(("active",)),
        "enemy": state["enemy"]["name"] if state["enemy"] else None,
        "variant": state["variant"]["name"] if state["variant"] else None,
        "movie_magic_used": list(state["movie_magic_used"]),
        "movie_magic_mission": list(state["movie_magic_mission"]),
        "signals_initial": state["signals"],
        "signals_investigated": state["signals_investigated"],
        "rounds": state["round"],
    }


_HANDLERS: dict[str, Handler] = {
    "beep_sir": _beep_sir,
    "set_formation": _set_formation,
    "set_player": _set_player,
    "roll_reactions": _roll_reactions,
    "assign_reaction": _assign_reaction,
    "hold": _hold,
    "act": _act,
    "next_phase": _next_phase,
    "end_mission": _end_mission,
    "move_contacts": _move_contacts,
    "detect": _detect,
    "add_contact": _add_contact,
    "remove_contact": _remove_contact,
    "note_contact": _note_contact,
    "adjust_enemy": _adjust_enemy,
    "caller": _caller,
    "close_spawn_point": _close_spawn_point,
    "investigate": _investigate,
    "activate": _activate,
    "investigate_signal": _investigate_signal,
    "scout": _scout,
    "hack": _hack,
    "pick_up": _pick_up,
    "drop_package": _drop_package,
    "beacon": _beacon,
    "set_objective": _set_objective,
    "reroll_reaction": _reroll_reaction,
    "survey": _survey,
    "request_evac": _request_evac,
    "evacuate": _evacuate,
    "exit_edge": _exit_edge,
    "adjust": _adjust,
    "clear_malfunction": _clear_malfunction,
    "movie_magic": _movie_magic,
    "shoot": _shoot,
    "brawl": _brawl,
    "hit": _hit,
    "spitter": _spitter,
    "lancer": _lancer,
    "drop_ship_fire": _drop_ship_fire,
}
