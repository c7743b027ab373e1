"""The mission tracker's first state, built from a generated mission (Bug Hunt pp.184-190)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bughunt.engine import combat
from bughunt.engine import contacts as cx
from bughunt.engine.tracker.base import DEFAULT_WEAPONS, TROOPER_ARMOR, _card_names, _entry_data, _refresh
from live.engine.tracker import (
    TrackerError,
)
from rules.engine.tables import RangeTable

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
        "combat_round": None,
        "moved_round": None,
        "dashed_round": None,
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


def _figure_weapons(
    tables: Mapping[str, RangeTable], raw: Mapping[str, Any], template: Mapping[str, Any], figures: int, key: str
) -> list[list[str]] | None:
    """A team's weapons figure by figure (pp.188-189): ``figure_weapons`` in the set-up, else the
    Support row's own (a Soulless Recon Team: one Carbine, one Sniper Rifle) when the set-up
    names no ``weapons``; ``None`` when every figure carries the team's weapons."""
    per_figure = raw.get("figure_weapons")
    if per_figure is None and "weapons" not in raw:
        per_figure = template.get("figure_weapons")
    if per_figure is None:
        return None
    if not isinstance(per_figure, list | tuple) or len(per_figure) != figures:
        raise TrackerError(
            f"{key}.figure_weapons must list the weapons of each of its {figures} figures.", field=f"{key}.figure_weapons"
        )
    return [_weapon_names(tables, w, f"{key}.figure_weapons") for w in per_figure]


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
        "bonus_fire": None,
        "pending": None,
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
        per_figure = _figure_weapons(tables, raw, template, figures, key)
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
            figure_weapons=per_figure,
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
    figure_weapons: Sequence[Sequence[str]] | None = None,
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
            _new_figure(
                fid,
                label,
                profile,
                main=kind == "character",
                save=save,
                weapons=figure_weapons[number - 1] if figure_weapons else weapons,
                special=special,
            )
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
