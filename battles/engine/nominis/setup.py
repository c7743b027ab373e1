"""No-minis battles: set-up of a new battle, its figures, weapons and mission Locations
(Compendium pp.68, 72-73)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from battles.engine import fp_combat
from battles.engine.nominis.state import (
    _IGNORED_TRAITS,
    ACTIONS,
    MISSIONS,
    MODES,
    RANKS,
    SEARCH_SITES,
    STANCES,
    NoMinisError,
    NoMinisOptions,
    State,
    _panic_faces,
)
from rules.engine.dice import DiceError, parse

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
    figure.update(_save_extras(raw, save, where))
    if raw.get("reroll_natural_one"):
        figure["reroll_natural_one"] = True
    return figure


def _save_extras(raw: Mapping[str, Any], save: int | None, where: str) -> dict[str, Any]:
    """``save_kind`` (armor, screen or both, p.26) and ``second_save`` (the other kind's save),
    kept only when they differ from an Armor save alone so older figures read the same."""
    try:
        kind = fp_combat.read_save_kind(raw.get("save_kind"))
    except fp_combat.CombatError as exc:
        raise NoMinisError(f"{where}: {exc}", field="save_kind") from None
    extras: dict[str, Any] = {}
    if save is not None and kind != fp_combat.ARMOR:
        extras["save_kind"] = kind
    if save is not None and kind != fp_combat.BOTH and raw.get("second_save") not in (None, "", 0):
        extras["second_save"] = _int(raw, "second_save", where, low=2, high=6)
    return extras


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
    if raw.get("psionic"):
        figure["psionic"] = True  # Psi-hunters add +1 to hit it (p.21)
        powers = raw.get("powers") or {}
        if powers:  # its powers, played by :mod:`battles.engine.nominis.psionics` (pp.17-20)
            if isinstance(powers, Mapping):
                figure["powers"] = {str(k): bool(v) for k, v in powers.items()}
            else:
                figure["powers"] = {str(name): False for name in powers}
            for key in ("swift", "focus"):
                if raw.get(key):
                    figure[key] = True
            shrels = raw.get("shrels") or 0
            if shrels not in (0, 1, 2):
                raise NoMinisError(f"crew {figure['name']}: shrels must be 0, 1 or 2; got {shrels!r}.", field="shrels")
            if shrels:
                figure["shrels"] = int(shrels)
    return figure


def _enemy_figure(raw: Mapping[str, Any], index: int) -> dict[str, Any]:
    figure = _figure(raw, "enemies", index)
    rank = str(raw.get("rank") or "").lower()
    if not rank:
        rank = "lieutenant" if raw.get("lieutenant") else "specialist" if raw.get("specialist") else "regular"
    if rank not in RANKS:
        raise NoMinisError(f"enemies {figure['name']}: rank must be one of {', '.join(RANKS)}; got {rank!r}.", field="rank")
    figure.update({"rank": rank, "target": bool(raw.get("target", False)), "no_attack": False, "optimal_fired": False})
    # Elite-level and Psionic details (pp.22-23, 48-65), kept only when present.
    if raw.get("fearless"):
        figure["fearless"] = True
    if raw.get("captain"):
        figure["captain"] = True
    if raw.get("unique"):
        figure["unique"] = str(raw["unique"])
    for key in ("psionic_powers", "gear"):
        items = [str(p) for p in raw.get(key) or ()]
        if items:
            figure[key] = items
    return figure


def _enemy_rules(raw: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The enemy type's rules as stored: ``{"type", "category", "normal_panic", "data"}``."""
    if not raw:
        return None
    if not isinstance(raw, Mapping):
        raise NoMinisError("enemy_rules must be {type, category, normal_panic, data}.", field="enemy_rules")
    normal = raw.get("normal_panic")
    if normal not in (None, ""):
        _panic_faces(str(normal))
    data = raw.get("data") or {}
    if not isinstance(data, Mapping):
        raise NoMinisError("enemy_rules data must be the type's table row data.", field="enemy_rules")
    return {
        "type": str(raw.get("type") or ""),
        "category": str(raw.get("category") or ""),
        "normal_panic": None if normal in (None, "") else str(normal),
        "data": dict(data),
    }


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
    enemy_rules: Mapping[str, Any] | None = None,
    enemy_kind: str = "humanoid",
    psi_hunters: bool = False,
) -> State:
    """A new no-minis battle, ready for round 1 (JSON-ready state; see the module docstring).

    ``crew``/``enemies``: figure mappings (name, reactions, speed in inches, combat_skill, toughness,
    savvy, save (D6 target or None), save_kind (armor, screen or both, p.26; default armor),
    second_save (the other kind's save), reroll_natural_one (a Krag fighting Rivals, p.12),
    weapons (see :func:`weapon_dict`), bot, kerin; crew also captain,
    soulless, special_movement (e.g. a Jump Belt), bonus_actions (actions the figure's gear logically
    helps, p.67); enemies also rank ``regular``/``specialist``/``lieutenant`` (or the ``specialist`` /
    ``lieutenant`` flags) and ``target`` (the Eliminate target)). ``mission``: a key of
    :data:`MISSIONS` or its name. ``enemy_panic``: the core Panic range, ``"1-2"``, ``"1"`` or ``"0"``.
    ``mission_setup``: the core inputs named in the module docstring and ``notable_sights`` (names or
    a count; each is a suspected Location, p.68).

    Elite-level enemies (pp.48-65): an enemy figure may also carry ``fearless``, ``captain`` (an
    elite Captain, for Leadership), ``unique`` (its Unique Individual's name), ``psionic_powers``
    (enemy Psionic powers, p.23) and ``gear``; ``enemy_rules`` is ``{"type", "category",
    "normal_panic" (the Panic range before Leadership, p.49), "data" (the type's table row
    data)}``: the rules :mod:`battles.engine.nominis.elite` applies. ``enemy_kind``: the enemies'
    casualty table (p.99), humanoid, cybernetic or beasts. ``options.stance`` must be one of
    :data:`STANCES`. ``psi_hunters``: the enemies are a Psi-hunter Rival's, +1 to hit or Brawl a
    crew figure marked ``psionic`` (p.21); a no-minis battle has no Seize the Initiative roll, so
    their -2 to it has nothing to act on.

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
    if options.stance not in STANCES:
        raise NoMinisError(f"stance must be one of {', '.join(STANCES)}; got {options.stance!r}.", field="stance")
    rules = _enemy_rules(enemy_rules)
    if enemy_kind not in fp_combat.CASUALTY_KINDS:
        raise NoMinisError(
            f"enemy_kind must be one of {', '.join(fp_combat.CASUALTY_KINDS)}; got {enemy_kind!r}.", field="enemy_kind"
        )
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

    state: State = {
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
    if rules is not None:
        state["enemy_rules"] = rules
    if enemy_kind != "humanoid":
        state["enemy_kind"] = enemy_kind
    if psi_hunters:
        state["psi_hunters"] = True
    return state


def _fresh_flags() -> dict[str, Any]:
    return {
        "kill_zone": None,
        "open_ground": False,
        "separated": False,
        "firefight_delta": 0,
        "exchanges": 0,
    }
