"""A battle's first state from its set-up: crew, enemy groups and figures, and the set-up options
(Compendium pp.30, 32-33, 49).

Pure Python: no Django imports.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Mapping
from typing import Any

from battles.engine import fp_combat
from battles.engine.fp_tracker.base import (
    AI_TYPES,
    KINDS,
    OPTION_FLAGS,
    RANKS,
    _choice,
    _err,
    _int,
    _need,
    _panic,
    _planned,
    _signed,
    _table_row,
)
from battles.engine.fp_tracker.grid import grid_option, grid_state
from battles.engine.fp_tracker.grid import refresh as grid_refresh
from battles.engine.fp_tracker.lookups import _refresh
from live.engine.tracker import (
    flag_value,
)
from rules.engine.dice import DiceError, parse
from rules.engine.tables import Entry, RangeTable

# -- set-up ----------------------------------------------------------------------------------------------


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
    # The Saving Throw's kind (p.26) and a second save of the other kind: kept only when they
    # are not the defaults (an Armor save alone), so older figures read the same.
    try:
        kind = fp_combat.read_save_kind(raw.get("save_kind"))
    except fp_combat.CombatError as exc:
        raise _err(f"{key}.{exc}", f"{key}.save_kind") from None
    second = raw.get("second_save")
    if out["save"] is not None and kind != fp_combat.ARMOR:
        out["save_kind"] = kind
    if out["save"] is not None and kind != fp_combat.BOTH and second not in (None, "", 0, "0", "none"):
        out["second_save"] = _int(second, f"{key}.second_save", 2, 6)
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


# -- Psionics (pp.17-22; the actions are in battles.engine.fp_tracker.psionics) -------------------

PSIONIC_LEGALITY: tuple[str, ...] = ("outlawed", "unusual", "common")


def psionics_state(setup: Mapping[str, Any]) -> dict[str, Any]:
    """The battle's psionic bookkeeping from the set-up's ``psionic_legality`` (p.20; blank when
    the world's status is not known). Raises :class:`TrackerError` naming ``psionic_legality``."""
    raw = str(setup.get("psionic_legality") or "").strip().lower()
    if raw and raw not in PSIONIC_LEGALITY:
        raise _err(f"psionic_legality must be one of {', '.join(PSIONIC_LEGALITY)} or blank; got {raw!r}.", "psionic_legality")
    return {"legality": raw or None, "uses": 0, "pending": None, "reinforcements": None, "effects": []}


def psionic_figure(raw: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The psionic keys of a crew figure from its set-up entry: ``psionic``, ``powers`` (name:
    enhanced), ``swift``, ``shrels`` (0-2), ``focus``, and the round of its last Psionic Action.
    Raises :class:`TrackerError` naming the key."""
    psionic = flag_value(raw.get("psionic"), f"{key}.psionic")
    powers_raw = raw.get("powers") or {}
    if isinstance(powers_raw, Mapping):
        powers = {str(name): flag_value(enhanced, f"{key}.powers.{name}") for name, enhanced in powers_raw.items()}
    elif isinstance(powers_raw, list | tuple):
        powers = {str(name): False for name in powers_raw}
    else:
        raise _err(f"{key}.powers must be a list of power names or {{name: enhanced}}.", f"{key}.powers")
    if powers and not psionic:
        raise _err(f"{key}.powers: only a Psionic has powers.", f"{key}.powers")
    shrels = raw.get("shrels") or 0
    if not isinstance(shrels, int) or isinstance(shrels, bool) or not 0 <= shrels <= 2:
        raise _err(f"{key}.shrels must be 0, 1 or 2 (Warding Shrels carried); got {shrels!r}.", f"{key}.shrels")
    return {
        "psionic": psionic,
        "powers": powers,
        "swift": flag_value(raw.get("swift"), f"{key}.swift"),
        "shrels": shrels,
        "shrel_spent": False,
        "focus": flag_value(raw.get("focus"), f"{key}.focus"),
        "psionic_round": None,
    }


def _options(setup: Mapping[str, Any], tables: Mapping[str, RangeTable], turn: int) -> dict[str, Any]:
    raw = setup.get("options") or {}
    if not isinstance(raw, Mapping):
        raise _err("options must be a mapping of option names to on/off.", "options")
    known = set(OPTION_FLAGS) | {"progressive", "toggles", "grid"}
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
    grid = grid_option(tables, raw.get("grid"))
    if grid:  # only when on: a battle without it keeps its shape
        options["grid"] = grid
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
      None), save_kind (armor, screen or both; default armor), second_save (the other kind's save
      or None), weapons: [name | {name, range, shots, damage, traits}], captain, kind, owner,
      reroll_natural_one (a Krag fighting Rivals, p.12), reminders (texts for the figure's
      notes)}``; enemy profiles take ``save_kind`` and ``second_save`` too.
    - ``enemies``: list of groups ``{name, count (basic figures), profile: {speed, combat_skill,
      toughness, save?}, weapons, panic ("1-2", 1, 0 = Fearless), specialists, specialist_weapons,
      lieutenants, captains, unique: [{name, speed, combat_skill, toughness, save, weapons, ai}],
      kind, ai, elite, psi_hunters}``; ``psi_hunters``: a Psi-hunter Rival's group (p.21): its
      figures add +1 to hit a crew Psionic and the crew Seize the Initiative at -2.
    - ``options`` (see :data:`OPTION_FLAGS`, ``progressive`` [1, 2], ``toggles`` as in
      CampaignOptions, ``grid`` a grid size such as "3x4" for Grid-based movement, pp.90-93,
      see :mod:`battles.engine.fp_tracker.grid`), ``campaign_turn`` (1-999), ``ai`` (main AI type, :data:`AI_TYPES`),
      ``objective`` (text), ``seize_modifier``, ``seize_allowed``, ``seize_no_modifiers``,
      ``seize_dice`` and ``seize_target`` (core rulebook p.112, the user's numbers),
      ``hit_numbers`` {open, cover} (core rulebook, needed without Dramatic Combat),
      ``planned`` {deployment_face, time_limit}: rolls the set-up card already made, used instead
      of rolling Deployment Variables' D100 or Paying us by the Hour's time limit again (dice the
      player types in the action still win).
    - ``psionic_legality`` (``outlawed``, ``unusual``, ``common``, p.20) and each crew figure's
      ``psionic``, ``powers``, ``swift``, ``shrels``, ``focus`` (:func:`psionic_figure`).

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
        fig = state["crew"][-1]
        _crew_extras(fig, raw, key)
        if flag_value(raw.get("soulless"), f"{key}.soulless"):
            fig["soulless"] = True
        psionic = psionic_figure(raw, key)
        if psionic["psionic"]:  # only a Psionic carries these keys (older battles' states stay as they were)
            fig.update(psionic)
    book = psionics_state(setup)
    if book["legality"] or any(f.get("psionic") for f in state["crew"]):
        state["psionics"] = book
    for n, raw in enumerate(groups_raw):
        _add_group(state, tables, raw, f"enemies[{n}]")
    if any(g.get("psi_hunters") for g in state["groups"]):
        state["seize"]["psi_hunters"] = True  # Seize the Initiative against them at -2 (p.21)
    _apply_setup_options(state, tables)
    terms = connection_state(setup.get("connection_terms"))
    if terms is not None:  # a played Expanded Connection's round limit and late arrivals (pp.82-86)
        state["connection"] = terms
    cache = data_cache_state(setup.get("data_cache"))
    if cache is not None:  # Quest step 54-65 (p.79): nobody begins on the table; they arrive each round
        state["data_cache"] = cache
        state["enemies"] = [f for f in state["enemies"] if f["rank"] == "unique"]
    if options.get("grid"):  # Grid-based movement (pp.90-93): every figure is placed at set-up
        state["grid"] = grid_state(str(options["grid"]))
        for fig in state["crew"] + state["enemies"]:
            fig["square"] = None
    _refresh(state, tables)
    grid_refresh(state)
    return state


def data_cache_state(raw: Any) -> dict[str, Any] | None:
    """The Quest data cache battle (p.79; :mod:`battles.engine.fp_tracker.data_cache`): ``setup["data_cache"]`` (``{"target": 28, "bonus": 1}``; None or absent: not such a
    battle) as the tracker's state. Raises :class:`TrackerError` naming ``data_cache.target``
    (1-99) or ``data_cache.bonus`` (0-6)."""
    if raw in (None, False, ""):
        return None
    if not isinstance(raw, Mapping):
        raise _err("data_cache must be {target, bonus}.", "data_cache")
    return {
        "score": 0,
        "target": _int(raw.get("target"), "data_cache.target", 1, 99, 28),
        "bonus": _int(raw.get("bonus"), "data_cache.bonus", 0, 6, 0),
        "reached": False,
        "rolls": 0,
    }


def connection_state(raw: Any) -> dict[str, Any] | None:
    """A played Expanded Connection's tracker terms (pp.82-86;
    :mod:`battles.engine.fp_tracker.connection`) from ``setup["connection_terms"]``
    (``{"entry", "page", "round_limit", "arrival_round", "reinforcements",
    "specialist_if_at_least"}``), or None when it sets neither a round limit nor late arrivals.
    Raises :class:`TrackerError` naming the ``connection_terms`` field that is out of range."""
    if not raw:
        return None
    if not isinstance(raw, Mapping):
        raise _err("connection_terms must be a mapping.", "connection_terms")
    limit = _int(raw.get("round_limit"), "connection_terms.round_limit", 0, 20, 0)
    arrival = _int(raw.get("arrival_round"), "connection_terms.arrival_round", 0, 20, 0)
    if not limit and not arrival:
        return None
    notation = str(raw.get("reinforcements") or "1D6").upper()
    if notation not in ("1D6", "D6", "1D3", "D3", "2D6"):
        raise _err(
            f"connection_terms.reinforcements must be 1D6, 1D3 or 2D6; got {notation!r}.", "connection_terms.reinforcements"
        )
    return {
        "entry": str(raw.get("entry") or "Connection")[:60],
        "page": str(raw.get("page") or "p.80")[:10],
        "round_limit": limit,
        "in_time": None,
        "arrival_round": arrival,
        "reinforcements": notation,
        "specialist_if_at_least": _int(raw.get("specialist_if_at_least"), "connection_terms.specialist_if_at_least", 0, 12, 0),
        "arrived": False,
    }


def _crew_extras(fig: dict[str, Any], raw: Mapping[str, Any], key: str) -> None:
    """What a campaign crew figure brings beyond its profile: ``reroll_natural_one`` (a Krag
    fighting Rivals, p.12) and ``reminders`` (species rules the table applies, shown with the
    figure's notes). Only set when given, so other figures keep their shape."""
    if flag_value(raw.get("reroll_natural_one"), f"{key}.reroll_natural_one"):
        fig["reroll_natural_one"] = True
    reminders = raw.get("reminders") or []
    if isinstance(reminders, str) or not isinstance(reminders, list | tuple):
        raise _err(f"{key}.reminders must be a list of short texts.", f"{key}.reminders")
    fig["notes"].extend(str(r)[:200] for r in reminders)


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
    if flag_value(raw.get("psi_hunters"), f"{key}.psi_hunters"):
        group["psi_hunters"] = True  # only when on, so other groups keep their shape
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
        if unique.get("powers"):
            _enemy_psionic(fig, unique.get("powers"), f"{ukey}.powers")
    if raw.get("psionic"):
        _mark_enemy_psionic(state, tables, group, raw["psionic"], f"{key}.psionic")
    if any(f.get("psionic") for f in state["enemies"]) and "psionics" not in state:
        state["psionics"] = psionics_state({})


def _enemy_psionic(fig: dict[str, Any], raw: Any, key: str) -> None:
    """Make ``fig`` an enemy Psionic with the powers ``raw`` names (pp.22-23)."""
    if isinstance(raw, str) or not isinstance(raw, list | tuple) or not raw:
        raise _err(f"{key} must be a list of enemy Psionic power names.", key)
    fig["psionic"] = True
    fig["powers"] = [str(p) for p in raw]
    fig["notes"].append(f"Psionic: {', '.join(fig['powers'])}; never Strains, its powers end when it is down (p.23)")


def _mark_enemy_psionic(
    state: dict[str, Any], tables: Mapping[str, RangeTable], group: Mapping[str, Any], raw: Any, key: str
) -> None:
    """The group's Psionic (p.23): the first figure of ``raw["rank"]`` takes the powers, and its
    ``toughness`` and ``weapons`` (a Hand gun and a Blade) when given."""
    if not isinstance(raw, Mapping):
        raise _err(f"{key} must be {{rank, powers, toughness?, weapons?}}.", key)
    rank = _choice(raw.get("rank"), f"{key}.rank", RANKS, "basic")
    fig = next((f for f in state["enemies"] if f["group"] == group["id"] and f["rank"] == rank and not f.get("psionic")), None)
    if fig is None:
        raise _err(f"{key}.rank: the group has no {rank} figure to be its Psionic.", f"{key}.rank")
    _enemy_psionic(fig, raw.get("powers"), f"{key}.powers")
    if raw.get("toughness") not in (None, ""):
        fig["toughness"] = _int(raw.get("toughness"), f"{key}.toughness", 1, 10)
    if raw.get("weapons"):
        fig["weapons"] = _weapons(tables, raw.get("weapons"), f"{key}.weapons")


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
    if group.get("psi_hunters"):
        fig["notes"].append("Psi-hunter: +1 to hit or Brawl a Psionic (p.21)")
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
