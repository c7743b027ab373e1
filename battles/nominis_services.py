"""Five Parsecs battles played without miniatures (Compendium pp.66-73): start the no-minis
reducer on a battle's set-up, play it assisted (one action at a time) or automatically, replay
and undo it.

Every write is keyword-only, runs in one transaction, takes the battle ``version`` it was made
against (a stale one is refused with :class:`StaleVersion`, 409) and raises
:class:`DropshipError` naming the field at fault, writing nothing then. The battle's set-up
comes from :mod:`battles.services`; its result goes to the campaign through
:func:`battles.result_services.battle_finish`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from battles.engine import fp_combat, nominis
from battles.models import Battle
from battles.services import ENEMY_RANKS, _engine, _load, _touch
from campaigns.selectors import fiveparsecs_tables
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.errors import DropshipError

NOMINIS_MODES = nominis.MODES
# A no-minis state is a few kB: one kept every ten actions bounds undo to ten steps of replay
# while the stored battle grows by a tenth of a state per action.
NOMINIS_CHECKPOINT_EVERY = 10


def nominis_mission(setup: Mapping[str, Any]) -> str:
    """The no-minis mission key (``nominis.MISSIONS``) a battle set-up plays: its objective when
    it is one of the no-minis missions (pp.72-73), else ``fight_off``."""
    key = str(setup.get("objective") or "").strip().lower().replace(" ", "_")
    return key if key in nominis.MISSIONS else "fight_off"


def _is_sight(core: Mapping[str, Any]) -> bool:
    """Whether a Notable Sights result puts something on the table: not when its row says
    ``location: false`` or its name starts with "nothing" (a "nothing special" row)."""
    data = core.get("data") or {}
    return data.get("location", True) is not False and not str(core.get("result", "")).strip().lower().startswith("nothing")


def _nominis_stance(stance: Any) -> str:
    value = nominis.DEFAULT_STANCE if stance in (None, "") else stance
    if value not in nominis.STANCES:
        raise DropshipError(f"stance must be one of {', '.join(nominis.STANCES)}; got {stance!r}.", field="stance")
    return str(value)


def _nominis_enemy(figure: Mapping[str, Any], name: str, weapons: Mapping[str, Any]) -> dict[str, Any]:
    """One enemy figure of the set-up's force for ``nominis.new_battle``, with its elite and
    Psionic details (Fearless, Captain, Unique Individual, powers, gear)."""
    made: dict[str, Any] = {
        "name": name,
        "speed": figure["speed"],
        "combat_skill": figure["combat_skill"],
        "toughness": figure["toughness"],
        "save": figure["save"],
        "weapons": [weapons[w] for w in figure["weapons"] if w in weapons],
        "rank": ENEMY_RANKS.get(figure["rank"], "regular"),
    }
    extras = {
        "fearless": bool(figure.get("fearless")),
        "captain": figure["rank"] == "captain",
        "unique": figure["name"] if figure["rank"] == "unique" else "",
        "psionic_powers": list(figure.get("psionic_powers") or []),
        "gear": list(figure.get("gear") or []),
    }
    made.update({k: v for k, v in extras.items() if v})
    return made


def nominis_initial(
    battle: Battle,
    *,
    mode: str = "assisted",
    mission_setup: Mapping[str, Any] | None = None,
    stance: str | None = None,
) -> dict[str, Any]:
    """A fresh no-minis state (``nominis.new_battle``) for ``battle``: ``stance`` (one of
    ``nominis.STANCES``, default steady) for automatic play; the set-up's Casualty tables option
    (p.99) and Critical Hit flag; an elite force's type rules and its figures' Fearless, rank,
    Unique Individual and Psionic powers (pp.22-23, 48-65). Raises :class:`DropshipError`."""
    setup = battle.setup
    special = (setup.get("mission_type") or {}).get("setup") or {}
    if special.get("no_minis_allowed") is False:
        raise DropshipError(f"mode: {special.get('no_minis') or 'this mission type needs miniatures.'}", field="mode")
    flags = setup["options"]
    weapons = setup.get("enemy_weapons", {})
    crew_names = {c["name"] for c in setup["crew"]}
    enemies = []
    seen: set[str] = set(crew_names)
    for figure in setup["enemy"]["figures"]:
        name = figure["name"]
        n = 2
        while name in seen:
            name = f"{figure['name']} {n}"
            n += 1
        seen.add(name)
        enemies.append(_nominis_enemy(figure, name, weapons))
    mission = nominis_mission(setup)
    options = nominis.NoMinisOptions(
        hectic=bool(flags.get("hectic")),
        faster=bool(flags.get("faster")),
        dramatic=bool(flags.get("dramatic_combat")),
        battle_flow=bool(flags.get("battle_flow")),
        stance=_nominis_stance(stance),
        casualty_tables=bool(flags.get("casualty_tables")),
        critical_hits=bool(flags.get("critical_hits")),
    )
    force = setup["enemy"]
    profile = force.get("profile") or {}
    enemy_rules = None
    if force.get("elite") and profile:
        enemy_rules = {
            "type": str(force.get("type") or ""),
            "category": str(force.get("category") or ""),
            "normal_panic": str(profile.get("panic") or "0"),
            "data": dict(profile.get("data") or {}),
        }
    kind = str(setup.get("enemy_kind") or "humanoid")
    hit = setup["hit_numbers"]
    numbers = fp_combat.HitNumbers(open=int(hit["open"]), cover=int(hit["cover"]), source=str(hit.get("source") or ""))
    crew = [{k: v for k, v in c.items() if k != "ref"} for c in setup["crew"]]
    mission_setup = dict(mission_setup or {})
    if "notable_sights" not in mission_setup:
        sights = [c["result"] for c in setup.get("core", []) if c["part"] == "notable_sights" and _is_sight(c)]
        if sights:
            mission_setup["notable_sights"] = sights
    return _engine(
        lambda: nominis.new_battle(
            crew=crew,
            enemies=enemies,
            mission=mission,
            numbers=numbers,
            options=options,
            enemy_panic=str(setup["enemy"].get("panic") or "0"),
            mode=mode,
            mission_setup=mission_setup,
            enemy_rules=enemy_rules,
            enemy_kind=kind if kind in fp_combat.CASUALTY_KINDS else "humanoid",
            psi_hunters=bool(force.get("psi_hunters")),
        ),
        where="",
    )


@transaction.atomic
def nominis_start(
    *,
    user: Any,
    battle_id: int,
    version: int | None,
    mode: str,
    mission_setup: Mapping[str, Any] | None = None,
    stance: str | None = None,
) -> Battle:
    """Start resolving the battle without miniatures (pp.66-73), ``mode`` ``assisted`` (the
    player picks each choice) or ``automatic`` (the app plays it; see :func:`nominis_auto`).
    ``mission_setup``: the core-rulebook mission inputs ``nominis.new_battle`` names (Patrol
    points, the VIP ...). ``stance``: how readily automatic play withdraws the crew (p.72),
    ``cautious``, ``steady`` (default) or ``reckless``. Raises :class:`DropshipError` naming
    ``mode`` or ``stance``, or ``status`` when the battle is tracked live or finished."""
    battle = _load(user, battle_id, version)
    if mode not in NOMINIS_MODES:
        raise DropshipError(f"mode must be one of {', '.join(NOMINIS_MODES)}; got {mode!r}.", field="mode")
    if battle.status not in ("setup", "nominis"):
        raise DropshipError(
            f"The battle is {battle.get_status_display().lower()}; it cannot be resolved without miniatures.", field="status"
        )
    state = nominis_initial(battle, mode=mode, mission_setup=mission_setup, stance=stance)
    battle.nominis = {"mode": mode, "initial": state, "actions": [], "state": state, "events": []}
    battle.status = "nominis"
    _touch(battle)
    return battle


def _playing(battle: Battle) -> dict[str, Any]:
    if battle.status != "nominis" or not battle.nominis:
        raise DropshipError("Start the no-minis battle first.", field="status")
    return battle.nominis


def _step(data: dict[str, Any], action: Mapping[str, Any], seed: int, tables: Mapping[str, RangeTable]) -> None:
    state, events = _engine(lambda: nominis.apply(data["state"], action, Dice(seed=seed), tables), where="action.")
    data["state"] = state
    data["actions"].append({"action": dict(action), "seed": seed})
    data["events"].extend(events)
    if len(data["actions"]) % NOMINIS_CHECKPOINT_EVERY == 0:
        checkpoints = data.setdefault("checkpoints", [])
        checkpoints.append({"at": len(data["actions"]), "state": state, "events": len(data["events"])})


@transaction.atomic
def nominis_act(*, user: Any, battle_id: int, version: int | None, action: Mapping[str, Any], dice: Dice | None = None) -> Battle:
    """Apply one no-minis action (one of ``nominis.choices``, with its optional ``bonus`` or
    ``faces``, or ``{"type": "auto"}``); the action and its dice seed are stored and its events
    added. Raises :class:`DropshipError` naming the action's field when the rules refuse it."""
    battle = _load(user, battle_id, version)
    data = dict(_playing(battle))
    if not isinstance(action, Mapping) or not action.get("type"):
        raise DropshipError("action must be a mapping with a type (see the choices).", field="action.type")
    clean = {k: v for k, v in action.items() if k != "label"}
    seed = (dice or Dice()).seed
    assert seed is not None
    _step(data, clean, seed, fiveparsecs_tables())
    battle.nominis = data
    _touch(battle)
    return battle


@transaction.atomic
def nominis_auto(
    *,
    user: Any,
    battle_id: int,
    version: int | None,
    dice: Dice | None = None,
    limit: int = 2000,
    stance: str | None = None,
) -> Battle:
    """Play automatic choices (``{"type": "auto"}``) until the battle is over, storing each one
    with its own seed (drawn from ``dice``'s seed), so undo and replay work action by action.
    ``stance`` (``cautious``, ``steady``, ``reckless``): first change the stance the automatic
    choices follow, as a ``set_stance`` action of the log; ``None`` keeps the battle's.
    Raises :class:`DropshipError` naming ``stance``, or ``action.type`` when the battle is over."""
    battle = _load(user, battle_id, version)
    data = dict(_playing(battle))
    if data["state"]["finished"]:
        raise DropshipError("The battle is over.", field="action.type")
    seeds = random.Random((dice or Dice()).seed)
    tables = fiveparsecs_tables()
    if stance not in (None, "") and stance != data["state"]["options"].get("stance"):
        _step(data, {"type": "set_stance", "stance": _nominis_stance(stance)}, seeds.getrandbits(63), tables)
    for _ in range(limit):
        if data["state"]["finished"]:
            break
        _step(data, {"type": "auto"}, seeds.getrandbits(63), tables)
    battle.nominis = data
    _touch(battle)
    return battle


def nominis_replay(
    initial: Mapping[str, Any], actions: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The state and events the stored ``actions`` (``{"action", "seed"}``) give from ``initial``."""
    tables = fiveparsecs_tables()
    state: dict[str, Any] = dict(initial)
    events: list[dict[str, Any]] = []
    for stored in actions:
        state, made = nominis.apply(state, stored["action"], Dice(seed=int(stored["seed"])), tables)
        events.extend(made)
    return state, events


@transaction.atomic
def nominis_undo(*, user: Any, battle_id: int, version: int | None) -> Battle:
    """Take back the last no-minis action: replay the actions after the last checkpoint before
    it (at most :data:`NOMINIS_CHECKPOINT_EVERY`, whatever the log's length; from the start for
    a battle stored before checkpoints). Raises :class:`DropshipError` when there is nothing to
    undo, :class:`StaleVersion` for a stale ``version``."""
    battle = _load(user, battle_id, version)
    data = dict(_playing(battle))
    if not data["actions"]:
        raise DropshipError("Nothing to undo.", field="action")
    actions = data["actions"][:-1]
    checkpoints = [c for c in data.get("checkpoints", []) if c["at"] <= len(actions)]
    start = checkpoints[-1] if checkpoints else {"at": 0, "state": data["initial"], "events": 0}
    state, events = nominis_replay(start["state"], actions[start["at"] :])
    events = data["events"][: start["events"]] + events
    battle.nominis = {**data, "actions": actions, "state": state, "events": events, "checkpoints": checkpoints}
    _touch(battle)
    return battle
