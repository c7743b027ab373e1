"""The Stealth mission tracker (Compendium pp.117-122): the Five Parsecs battle tracker's state
(:mod:`battles.engine.fp_tracker`) with a ``stealth`` part, and a reducer that plays Stealth
rounds until the alarm and normal battle rounds after it.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from battles.engine import fp_tracker
from battles.engine.fp_setup import EDGES
from battles.engine.fp_stealth.generate import MIN_CANDIDATES, OBJECTIVE_KEYS, SOURCE
from battles.engine.fp_tracker.base import _copy_state, _err, _roll, _rolls
from battles.engine.fp_tracker.flow import _new_round
from battles.engine.fp_tracker.lookups import _crew, _crew_up, _enemy, _mine, _names, _on_table, _phase, _refresh
from battles.engine.fp_tracker.reducer import _HANDLERS as _BATTLE_HANDLERS
from battles.engine.fp_tracker.setup import _add_enemy, _figure
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
    payload_words,
    require_owner,
)
from rules.engine.dice import Dice, DiceError, RollRecord
from rules.engine.tables import RangeTable

#: Weapons that can be fired without raising the alarm (p.122).
SILENT_WEAPONS: tuple[str, ...] = ("hand gun", "handgun", "needle rifle")
#: Psionic powers aimed at an enemy that raise the alarm unless it leaves play (p.122).
LOUD_POWERS: tuple[str, ...] = ("grab", "shock", "psionic scare")
#: The Stealth round's movement (p.120): Quick Actions +1", Slow Actions -1", enemies -1".
MOVE_MODIFIERS: Mapping[str, int] = {"quick": 1, "slow": -1, "enemy": -1}
#: Spotting modifiers (p.121).
SCANNING, OBSCURED, FEATURE, SHROUD = -1, -2, -1, -2
OUTSIDE_VISION_BONUS = 2  # p.122
EXFILTRATE_FACE = 6  # p.117
STEPS: Mapping[str, tuple[str, ...]] = {
    "locate_retrieve": ("pick_up",),
    "retrieve_package": ("pick_up",),
    "deliver": ("deliver",),
    "locate_contact": ("contact",),
    "transmit": ("transmit",),
    "rescue": ("rescue",),
}
STATUSES: tuple[str, ...] = (*fp_tracker.STATUSES, "exfiltrated")


def initial_state(setup: Mapping[str, Any], tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The battle tracker's first state (:func:`fp_tracker.initial_state`, the same ``setup``)
    with the mission's ``stealth`` part from ``setup["stealth"]`` (``StealthSetup.as_dict()``:
    ``objective``, ``individual``, ``candidates``). Enemy Deployment Variables and Grid-based
    Movement are switched off (p.117); Escalating Battles wait until the second battle round
    after the alarm. Raises :class:`TrackerError` naming the key at fault."""
    raw = setup.get("stealth")
    if not isinstance(raw, Mapping) or not isinstance(raw.get("objective"), Mapping):
        raise _err("stealth is required: the Stealth mission set-up (objective, individual, candidates).", "stealth")
    objective = raw["objective"]
    key = str(objective.get("key") or OBJECTIVE_KEYS.get(str(objective.get("name")), ""))
    if key not in STEPS:
        raise _err(f"stealth.objective.key must be one of {', '.join(STEPS)}; got {key!r}.", "stealth.objective.key")
    options = dict(setup.get("options") or {})
    wanted = bool(options.get("escalating_battles"))
    options.pop("grid", None)
    options["deployment_variables"] = False
    state = fp_tracker.initial_state({**setup, "options": options}, tables)
    state["options"]["deployment_variables"] = False  # progressive difficulty may not switch it on (p.117)
    state["options"]["escalating_battles"] = False
    individual = raw.get("individual")
    must_locate = bool(objective.get("must_locate"))
    state["stealth"] = {
        "alarm": False,
        "alarm_round": None,
        "alarm_cause": "",
        "reinforcement_edge": None,
        "first_battle_round": None,
        "escalating_battles": wanted,
        "objective": {
            "key": key,
            "name": str(objective.get("name") or key)[:40],
            "effect": str(objective.get("effect") or "")[:200],
            "must_locate": must_locate,
            "located": not must_locate,
            "candidates": max(MIN_CANDIDATES, int(raw.get("candidates") or MIN_CANDIDATES)) if must_locate else 0,
            "searched": 0,
            "carrier": "c1" if key == "deliver" else None,
            "achieved": False,
            "failed": False,
        },
        "individual": (
            {
                "name": str(individual.get("name") or "Individual")[:40],
                "profile": {k: int(individual.get(k) or 0) for k in ("reactions", "speed", "combat_skill", "toughness", "savvy")},
                "joined": None,
                "gone": False,
            }
            if isinstance(individual, Mapping)
            else None
        ),
        "exfiltrated_round": None,
        "handed_round": None,
        "patrolled_round": None,
        "sentry": None,
        "blocked": [],
        "stay_down": {},
        "distracted": [],
        "suspicious": None,
        "finished": None,
    }
    state["now"] = _now(state)
    return state


# -- small helpers -------------------------------------------------------------------------------------------


#: Die sizes the dice helpers roll (rules.engine.dice).
_DIE_SIZES: tuple[int, ...] = (3, 6, 10, 12, 20, 100)


def _pick(dice: Dice, faces: list[int], figs: Sequence[dict[str, Any]], reason: str) -> tuple[dict[str, Any], list[RollRecord]]:
    """A random figure of ``figs``: the smallest die whose size the count divides (a D6 read 1-3 /
    4-6 for two), else a D100 read in equal bands; ``faces`` holds a typed face."""
    size = len(figs)
    if size == 1:
        return figs[0], []
    sides = next((s for s in _DIE_SIZES if s % size == 0), 100)
    record = _roll(dice, f"D{sides}", f"{reason} (D{sides})", [faces.pop(0)] if faces else None)
    return figs[(int(record.total or 1) - 1) * size // sides], [record]


def _s(state: Mapping[str, Any]) -> dict[str, Any]:
    return state["stealth"]  # type: ignore[no-any-return]


def _stealthy(state: Mapping[str, Any]) -> bool:
    return not _s(state)["alarm"]


def _need_stealth(state: Mapping[str, Any], what: str) -> None:
    if not _stealthy(state):
        raise _err(f"{what} is only for Stealth rounds; the alarm has gone off (p.122).", "type")


def _actor(action: Action) -> None:
    if action.role == Role.VIEWER:
        raise NotYours("Viewers cannot act at this table.")


def _sync(state: dict[str, Any]) -> None:
    """Escalating Battles only from the second battle round after the alarm (p.117)."""
    s = _s(state)
    first = s["first_battle_round"]
    state["options"]["escalating_battles"] = bool(s["escalating_battles"] and first is not None and state["round"] > first)


def _now(state: Mapping[str, Any]) -> str:
    s = _s(state)
    if s["finished"]:
        return f"Mission over: {s['finished']['why']}"
    head = "Stealth round" if not s["alarm"] else "Battle round (alarm raised)"
    return f"{head}. {state['now']}"


# -- the alarm ---------------------------------------------------------------------------------------------


def _reinforcements(state: dict[str, Any], action: Action, dice: Dice) -> Event:
    """At the start of each battle round after the alarm: 2D6, each 6 brings a basic enemy (p.122)."""
    record = _roll(dice, "2D6", "Stealth reinforcements (p.122)", payload_faces(action, "reinforcement_faces", 2))
    sixes = sum(1 for f in record.faces if f == 6)
    added = []
    for _ in range(sixes):
        fig = _add_enemy(state, state["groups"][0], "basic", note="Reinforcement: cannot act the round it arrives (p.122)")
        fig["acted"] = True
        added.append(fig)
    edge = _s(state)["reinforcement_edge"]
    text = f"Reinforcements (2D6: {', '.join(map(str, record.faces))}): " + (
        f"{_names(added)} arrive at the centre of the {edge}; they cannot act this round." if added else "none arrive."
    )
    return Event("reinforcements", text, _rolls(record))


def _raise_alarm(state: dict[str, Any], action: Action, dice: Dice, cause: str) -> list[Event]:
    """The alarm (p.122): the Stealth round ends at once, a random edge is rolled for the enemy
    reinforcements (D12 clock face, as the set-up's edges) and a normal battle round begins."""
    s = _s(state)
    if s["alarm"]:
        return []
    record = _roll(dice, "D12", "Alarm: the reinforcements' edge (p.122)", payload_faces(action, "edge_faces", 1, 12))
    s.update(
        alarm=True,
        alarm_round=state["round"],
        alarm_cause=cause,
        reinforcement_edge=EDGES[int(record.total or 12)],
        sentry=None,
        blocked=[],
        distracted=[],
        suspicious=None,
        stay_down={},
    )
    events = [
        Event(
            "alarm",
            f"ALARM! {cause} The Stealth round ends now; reinforcements will come from the {s['reinforcement_edge']} "
            f"(D12 {record.total}, p.122).",
            _rolls(record),
        )
    ]
    events.extend(_new_round(state))
    s["first_battle_round"] = state["round"]
    events.append(_reinforcements(state, action, dice))
    return events


# -- detection (p.121) -----------------------------------------------------------------------------------


def _targets(state: Mapping[str, Any], action: Action, enemies: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    raw = action.payload.get("targets")
    if raw in (None, "") and action.payload.get("figure"):  # one target from a form's flat fields
        raw = [{k: action.payload.get(k) for k in ("figure", "distance", "obscured", "features", "shroud")}]
    if not isinstance(raw, list | tuple) or not raw:
        raise _err(
            "targets is required: the crew figures at risk, [{figure, distance, obscured?, features?, shroud?, enemy?}].",
            "targets",
        )
    out = []
    for n, item in enumerate(raw):
        key = f"targets[{n}]"
        if not isinstance(item, Mapping):
            raise _err(f"{key} must be {{figure, distance, obscured?, features?, shroud?}}.", key)
        fig = _crew(state, item.get("figure"), field=f"{key}.figure")
        enemy = enemies[0]
        if len(enemies) > 1 or item.get("enemy"):
            enemy = _enemy(state, item.get("enemy"), field=f"{key}.enemy")
            if enemy not in enemies:
                raise _err(f"{key}.enemy must be one of the spotting enemies: {_names(enemies)}.", f"{key}.enemy")
        sub = Action(action.type, item, action.actor, action.role)
        try:
            distance = int(float(str(item.get("distance"))))  # fractions round down (p.121)
        except (TypeError, ValueError):
            raise _err(f"{key}.distance is required: inches from the enemy, 0 to 72.", f"{key}.distance") from None
        if not 0 <= distance <= 72:
            raise _err(f"{key}.distance must be from 0 to 72 inches; got {distance}.", f"{key}.distance")
        obscured = payload_flag(sub, "obscured")
        mods: list[tuple[int, str]] = []
        if obscured:
            mods.append((OBSCURED, "partly obscured"))
        features = payload_int(sub, "features", low=0, high=6, default=0)
        if features:
            mods.append((FEATURE * features, f"{features} feature(s) between"))
        if payload_flag(sub, "shroud"):
            mods.append((SHROUD, "Shroud"))
        if fig["id"] in _s(state)["stay_down"] and obscured and int(fig.get("savvy") or 0) > 0:
            mods.append((-int(fig["savvy"]), "Stay Down (Savvy)"))
        out.append({"figure": fig, "enemy": enemy, "distance": distance, "mods": mods})
    return out


def _spot_roll(
    state: dict[str, Any], action: Action, dice: Dice, enemies: Sequence[dict[str, Any]], scanning: bool
) -> list[Event]:
    """One 2D6 spotting roll for ``enemies`` (one unless a Lure) against the targets (p.121)."""
    targets = _targets(state, action, enemies)
    who = _names(enemies)
    records: list[RollRecord] = []
    first = _roll(dice, "2D6", f"Spotting: {who}", payload_faces(action, "faces", 2))
    records.append(first)
    total = int(first.total or 0)
    if payload_flag(action, "predict"):  # Predict: roll twice, the crew keeps the better one (p.122)
        second = _roll(dice, "2D6", f"Spotting: {who}, Predict's second roll", payload_faces(action, "predict_faces", 2))
        records.append(second)
        total = min(total, int(second.total or 0))
    value = total + (SCANNING if scanning else 0)
    lines = [f"{who} rolls to spot: {total}{' -1 scanning' if scanning else ''} = spotting value {value}."]
    spotted, equal = [], []
    for t in targets:
        mine = value + sum(m for m, _ in t["mods"])
        said = "; ".join(f"{m:+d} {why}" for m, why in t["mods"])
        verdict = "spotted" if mine > t["distance"] else "suspicious" if mine == t["distance"] else "unseen"
        lines.append(f'{t["figure"]["name"]} at {t["distance"]}": {mine}{f" ({said})" if said else ""}: {verdict}.')
        if verdict == "spotted":
            spotted.append(t)
        elif verdict == "suspicious":
            equal.append(t)
    s = _s(state)
    data = {"value": value, **_rolls(*records)}
    if spotted:
        s["suspicious"] = None
        event = Event("spot", " ".join(lines), data)
        return [
            event,
            *_raise_alarm(state, action, dice, f"{spotted[0]['figure']['name']} is spotted by {spotted[0]['enemy']['name']}."),
        ]
    if equal:
        picked, extra = _pick(dice, payload_ints(action, "pick_faces"), [t["figure"] for t in equal], "Suspicious: which figure")
        records.extend(extra)
        target = next(t for t in equal if t["figure"] is picked)
        s["suspicious"] = {"enemy": target["enemy"]["id"], "toward": picked["id"]}
        lines.append(
            f'{target["enemy"]["name"]} is suspicious: it moves 1" toward {picked["name"]}, faces them and rolls again '
            "(not scanning, p.121)."
        )
        return [Event("spot", " ".join(lines), {"value": value, **_rolls(*records)})]
    s["suspicious"] = None
    lines.append("Nobody is spotted.")
    return [Event("spot", " ".join(lines), data)]


def _spot(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A spotting roll (p.121): ``enemy`` (or ``enemies`` after a Lure), ``scanning`` (-1),
    ``targets`` [{figure, distance (inches, rounded down), obscured (-2), features (-1 each),
    shroud (-2)}] (or one target's keys at the top of the payload, as a form sends them), ``faces`` (2D6), ``predict`` / ``predict_faces`` (the Predict power's second
    roll, the lower counts), ``pick_faces``. Over the distance: spotted, the alarm goes off;
    equal (nobody spotted): suspicious, the enemy steps 1" closer and must roll again, not
    scanning; under every distance: unseen."""
    require_owner(action)
    _need_stealth(state, "A spotting roll")
    _phase(state, "quick", "enemy", "slow", what="A spotting roll")
    many = payload_words(action, "enemies")
    enemies = [_enemy(state, e, field="enemies") for e in many] if many else [_enemy(state, action.payload.get("enemy"))]
    scanning = payload_flag(action, "scanning")
    pending = _s(state)["suspicious"]
    if pending and pending["enemy"] in [e["id"] for e in enemies] and scanning:
        raise _err("A suspicious enemy's next roll is not a scan (p.121); send scanning off.", "scanning")
    return _spot_roll(state, action, dice, enemies, scanning)


# -- the enemy in a Stealth round (p.120) ------------------------------------------------------------------


def _patrol(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The Stealth round's Enemy phase (p.120): one random enemy stays and scans all round, then
    faces a random way; the others move base Speed -1" in a random direction (D12 clock faces,
    ``faces`` in order, ``pick_faces`` for the sentry); a distracted enemy stays looking where it
    was turned. Every enemy on the table counts as having acted."""
    require_owner(action)
    _need_stealth(state, "Stealth patrol moves")
    _phase(state, "enemy", what="Stealth patrol moves")
    s = _s(state)
    if s["patrolled_round"] == state["round"]:
        raise _err("The enemy has already moved this Stealth round.", "type")
    enemies = [e for e in _on_table(state) if not e["acted"]]
    if not enemies:
        raise _err("No enemy on the table is still to act.", "type")
    records: list[RollRecord] = []
    distracted = [e for e in enemies if e["id"] in s["distracted"]]
    free = [e for e in enemies if e["id"] not in s["distracted"]]
    lines = [f"{e['name']} stays put, looking where it was turned (Distraction, p.122)." for e in distracted]
    faces = payload_ints(action, "faces")
    if free:
        sentry, extra = _pick(dice, payload_ints(action, "pick_faces"), free, "Stealth round: the enemy that scans (p.120)")
        records.extend(extra)
        s["sentry"] = sentry["id"]
        for fig in free:
            record = _roll(dice, "D12", f"{fig['name']}: random direction", [faces.pop(0)] if faces else None)
            records.append(record)
            if fig is sentry:
                lines.insert(
                    0, f"{fig['name']} stays, scans all round (spot with scanning on), then faces {record.total} o'clock."
                )
            else:
                move = max(0, int(fig["speed"]) + MOVE_MODIFIERS["enemy"])
                lines.append(f"{fig['name']} moves {move}\" toward {record.total} o'clock, facing that way.")
    for fig in enemies:
        fig["acted"] = True
    s["distracted"] = []
    s["patrolled_round"] = state["round"]
    lines.append("An enemy that would walk into a wall, feature or the edge stays, scans and faces away (blocked).")
    return [Event("patrol", " ".join(lines), _rolls(*records))]


def _blocked(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """An enemy whose patrol move was blocked stays, scans all round and faces away (p.120)."""
    require_owner(action)
    _need_stealth(state, "A blocked patrol")
    _phase(state, "enemy", what="A blocked patrol")
    fig = _enemy(state, action.payload.get("enemy"))
    if _s(state)["patrolled_round"] != state["round"]:
        raise _err("Roll the patrol moves first (patrol).", "type")
    if fig["id"] not in _s(state)["blocked"]:
        _s(state)["blocked"].append(fig["id"])
    return [Event("blocked", f"{fig['name']} is blocked: it stays, scans all round (spot with scanning on), faces away.", {})]


# -- tools and tricks (pp.121-122) --------------------------------------------------------------------------


def _tool_figure(state: dict[str, Any], action: Action, what: str) -> dict[str, Any]:
    _need_stealth(state, what)
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what=what)
    if fig["slot"] != state["phase"] or fig["acted"]:
        raise _err(f"{what} is done in {fig['name']}'s own activation, staying put (p.121).", "figure")
    return fig


def _stay_down(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Stay Down (p.121): until the figure activates again, spotting against it loses its
    Savvy when it is at least partly obscured."""
    fig = _tool_figure(state, action, "Stay Down")
    _s(state)["stay_down"][fig["id"]] = state["round"]
    return [Event("stay_down", f"{fig['name']} stays down: spotting rolls lose {int(fig.get('savvy') or 0)} while obscured.", {})]


def _distraction(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Distraction (p.122): an enemy within 6"; 1D6+Savvy 6+ turns it the chosen way and it only
    watches at its next activation; a natural 1 turns it toward the figure and it rolls to spot
    (``spot`` next, not scanning)."""
    fig = _tool_figure(state, action, "Distraction")
    enemy = _enemy(state, action.payload.get("enemy"))
    record = _roll(dice, "D6", f"{fig['name']}: Distraction (1D6+Savvy)", payload_faces(action, "faces", 1))
    face = int(record.total or 0)
    total = face + int(fig.get("savvy") or 0)
    if face == 1:
        _s(state)["suspicious"] = {"enemy": enemy["id"], "toward": fig["id"]}
        text = f"Distraction: a natural 1. {enemy['name']} turns to face {fig['name']} and rolls to spot (not scanning)."
    elif total >= 6:
        _s(state)["distracted"].append(enemy["id"])
        text = f"Distraction: {face}+{fig.get('savvy') or 0} = {total}: {enemy['name']} turns where you chose and only watches next time."
    else:
        text = f"Distraction: {face}+{fig.get('savvy') or 0} = {total}: {enemy['name']} is not fooled."
    return [Event("distraction", text, _rolls(record))]


def _lure(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Lure (p.122): every enemy within 8" (``enemies``) moves 1D6" toward the figure (``faces``,
    one per enemy); then one spotting roll applies to all of them (``spot`` with ``enemies``)."""
    fig = _tool_figure(state, action, "Lure")
    enemies = [_enemy(state, e, field="enemies") for e in payload_words(action, "enemies")]
    if not enemies:
        raise _err('enemies is required: the enemies within 8" of the luring figure.', "enemies")
    faces = payload_ints(action, "faces")
    records = [_roll(dice, "D6", f"Lure: {e['name']} moves (inches)", [faces.pop(0)] if faces else None) for e in enemies]
    moves = ", ".join(f'{e["name"]} {r.total}"' for e, r in zip(enemies, records, strict=True))
    text = f"{fig['name']} lures: {moves} toward them; now one spotting roll for all of them (spot with enemies)."
    return [Event("lure", text, _rolls(*records))]


# -- the objective (pp.117-119) ----------------------------------------------------------------------------


def _search(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Finding the target (p.118): a crew figure within 6" and sight of a candidate rolls 1D6+Savvy;
    6+ finds it, else the candidate is empty; the last candidate always holds it."""
    _actor(action)
    objective = _s(state)["objective"]
    if not objective["must_locate"] or objective["located"]:
        raise _err("Nothing needs finding: the target's place is known.", "type")
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="Searching")
    left = objective["candidates"] - objective["searched"]
    if left <= 1:
        objective["located"] = True
        return [Event("search", f"{fig['name']} reaches the last candidate: the target is there (p.118).", {})]
    record = _roll(dice, "D6", f"{fig['name']}: Finding the target (1D6+Savvy)", payload_faces(action, "faces", 1))
    total = int(record.total or 0) + int(fig.get("savvy") or 0)
    if total >= 6:
        objective["located"] = True
        text = f"{fig['name']} rolls {total}: the target is found; place it at the far side of the feature (p.118)."
    else:
        objective["searched"] += 1
        left -= 1
        text = f"{fig['name']} rolls {total}: not here. {left} candidate(s) left" + (
            " (the last one holds it)." if left == 1 else "."
        )
        if left == 1:
            objective["located"] = True
    return [Event("search", text, _rolls(record))]


def _objective(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A step of the objective by a crew figure (pp.118-119): ``step`` pick_up (an item, once found),
    deliver (the carrier at the objective), contact / transmit (within 3" and sight of the
    Individual) or rescue (the Individual joins the crew and must be exfiltrated)."""
    _actor(action)
    s = _s(state)
    objective = s["objective"]
    allowed = STEPS[objective["key"]]
    step = str(action.payload.get("step") or allowed[0]).strip().lower()
    if step not in allowed:
        raise _err(f"step must be one of {', '.join(allowed)} for {objective['name']}; got {step!r}.", "step")
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="Working on the objective")
    if objective["achieved"] or objective["failed"]:
        raise _err("The objective is settled already.", "step")
    if not objective["located"]:
        raise _err("Find the target first (search).", "step")
    if step == "pick_up":
        if objective["carrier"]:
            raise _err("Someone carries the item already.", "step")
        objective["carrier"] = fig["id"]
        return [Event("objective", f"{fig['name']} picks up the item: exfiltrate with it (p.118).", {})]
    if step == "deliver":
        if objective["carrier"] != fig["id"]:
            raise _err("Only the figure carrying the item can deliver it.", "figure")
        objective.update(achieved=True, carrier=None)
        return [Event("objective", f"{fig['name']} delivers the item: objective done; now exfiltrate (p.118).", {})]
    if step in ("contact", "transmit"):
        objective["achieved"] = True
        return [Event("objective", f"{fig['name']} reaches the Individual: objective done; now exfiltrate (p.118).", {})]
    individual = s["individual"]
    if individual is None or individual["joined"] or individual["gone"]:
        raise _err("There is no Individual to rescue here.", "step")
    fid = f"c{state['next']['crew']}"
    state["next"]["crew"] += 1
    profile = individual["profile"]
    joined = _figure(
        fid,
        individual["name"],
        "crew",
        {**profile, "save": None},
        [],
        rank="crew",
        captain=False,
        owner=fig.get("owner") or "",
        die=None,
        face=None,
        slot=None,
    )
    joined["notes"].append("Rescued: unarmed; must be exfiltrated (p.118)")
    state["crew"].append(joined)
    individual["joined"] = fid
    return [
        Event("objective", f"{fig['name']} reaches {individual['name']}, who joins the crew: get them off the table (p.118).", {})
    ]


def _hand_off(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hand the item to a crew figure within 1" (p.118), once per battle round."""
    _actor(action)
    objective, s = _s(state)["objective"], _s(state)
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    _phase(state, "quick", "slow", what="Handing off the item")
    to = _crew(state, action.payload.get("to"), field="to")
    if objective["carrier"] != fig["id"]:
        raise _err(f"{fig['name']} does not carry the item.", "figure")
    if to is fig:
        raise _err("Hand the item to another crew figure.", "to")
    if s["handed_round"] == state["round"]:
        raise _err("The item was handed off this round already (once per round, p.118).", "figure")
    objective["carrier"], s["handed_round"] = to["id"], state["round"]
    return [Event("hand_off", f"{fig['name']} hands the item to {to['name']}.", {})]


def _pick_up(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Pick up a dropped item by moving into contact (p.118); ``destroyed`` on when it fell in
    hazardous terrain: it is lost and the objective fails."""
    _actor(action)
    objective = _s(state)["objective"]
    if objective["carrier"] or not objective.get("dropped"):
        raise _err("No item lies on the ground.", "type")
    if payload_flag(action, "destroyed"):
        require_owner(action)
        objective.update(failed=True, dropped=False)
        return [Event("item", "The item fell into hazardous terrain and is destroyed: the objective fails (p.118).", {})]
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    objective.update(carrier=fig["id"], dropped=False)
    return [Event("item", f"{fig['name']} picks the item up.", {})]


def _exfiltrate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew figure leaves the battle for good (p.117): over a table edge in its own activation,
    or, once Reactions are rolled, one figure given a 6 each round. The carrier takes the item
    with it; a rescued Individual leaving completes the Rescue."""
    _actor(action)
    fig = _crew(state, action.payload.get("figure"))
    _mine(action, fig)
    s = _s(state)
    if state["phase"] == "start":
        if fig["face"] != EXFILTRATE_FACE:
            raise _err(f"Only a figure given a {EXFILTRATE_FACE} when Reactions are rolled can slip away now (p.117).", "figure")
        if s["exfiltrated_round"] == state["round"]:
            raise _err("One figure given a 6 has slipped away this round already (p.117).", "figure")
        s["exfiltrated_round"] = state["round"]
        how = "slips away on a 6"
    else:
        _phase(state, "quick", "slow", what="Leaving over a table edge")
        if fig["slot"] != state["phase"]:
            raise _err(f"{fig['name']} leaves in their own activation.", "figure")
        how = "leaves over a table edge"
    fig["status"], fig["die"], fig["face"], fig["slot"] = "exfiltrated", None, None, None
    fig["down_round"] = state["round"]
    texts = [f"{fig['name']} {how}: exfiltrated."]
    objective = s["objective"]
    if objective["carrier"] == fig["id"]:
        objective["carrier"] = None
        if objective["key"] in ("locate_retrieve", "retrieve_package"):
            objective["achieved"] = True
            texts.append("The item is out: objective done.")
    individual = s["individual"]
    if individual and individual["joined"] == fig["id"] and objective["key"] == "rescue":
        objective["achieved"] = True
        texts.append(f"{individual['name']} is rescued: objective done.")
    return [Event("exfiltrate", " ".join(texts), {"figure": fig["id"]})]


def _individual_off(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The Individual wandered off the table (p.119): a Rescue counts as done, any other
    objective fails."""
    require_owner(action)
    s = _s(state)
    individual = s["individual"]
    if individual is None or individual["joined"] or individual["gone"]:
        raise _err("No wandering Individual is on the table.", "type")
    individual["gone"] = True
    objective = s["objective"]
    if objective["achieved"]:
        return [Event("individual", f"{individual['name']} wanders off the table.", {})]
    if objective["key"] == "rescue":
        objective["achieved"] = True
        return [Event("individual", f"{individual['name']} wanders off the table: they rescued themselves (p.119).", {})]
    objective["failed"] = True
    return [Event("individual", f"{individual['name']} wanders off the table: the objective fails (p.119).", {})]


def _alarm(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Raise the alarm by hand (an attack or power the tracker did not see, p.122): ``cause``."""
    require_owner(action)
    _need_stealth(state, "Raising the alarm")
    _phase(state, "start", "quick", "enemy", "slow", "end", what="Raising the alarm")
    cause = str(action.payload.get("cause") or "The alarm is raised.").strip()[:120]
    return _raise_alarm(state, action, dice, cause)


# -- wrapped battle-tracker actions ------------------------------------------------------------------------


def _delegate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    new, events = fp_tracker.apply(state, action, dice, tables)
    state.clear()
    state.update(new)
    return events


def _next_phase(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The round (p.120): Stealth rounds run Reactions, Quick, Enemy (the patrol) and Slow; their
    End phase has no Morale or Escalation (ruling: the enemy has not noticed anything). After the
    alarm every round is the battle tracker's, and starts with the reinforcement roll. The
    Individual moves 4" at random at the end of every Enemy phase (``individual_faces``, D12)."""
    require_owner(action)
    s = _s(state)
    phase = state["phase"]
    if phase == "slow" and not s["alarm"]:
        state["phase"] = "end"
        return [
            Event("phase", f"End of Stealth round {state['round']}: the enemy noticed nothing, so no Morale or Escalation.", {})
        ]
    extra: list[Event] = []
    if phase == "enemy":
        individual = s["individual"]
        if individual and not individual["joined"] and not individual["gone"]:
            record = _roll(
                dice, "D12", f"{individual['name']}: random move (p.119)", payload_faces(action, "individual_faces", 1, 12)
            )
            extra.append(
                Event(
                    "individual",
                    f"{individual['name']} moves {individual['profile']['speed']}\" toward {record.total} o'clock, halting "
                    "at danger (p.119).",
                    _rolls(record),
                )
            )
    events = _delegate(state, action, dice, tables)
    if state["phase"] == "start" and phase in ("end", "setup"):
        s.update(sentry=None, blocked=[], suspicious=None)
        if s["alarm"]:
            events.append(_reinforcements(state, action, dice))
    if state["phase"] == "over" and state["held_field"] and _crew_up(state):
        # The enemy is gone, but the mission ends with the crew's exfiltration (p.117).
        state["phase"], state["held_field"] = "end", None
        events.append(Event("phase", "The enemy is off the table; the crew must still get out (p.117).", {}))
    return extra + events


def _loud(state: Mapping[str, Any], action: Action, before: Mapping[str, Any]) -> str:
    """Why an attack raised the alarm (p.122), or ``""``."""
    attacker = next((f for f in before["crew"] + before["enemies"] if f["id"] == str(action.payload.get("attacker"))), None)
    target_id = str(action.payload.get("target"))
    target = next((f for f in state["crew"] + state["enemies"] if f["id"] == target_id), None)
    if attacker is None or target is None:
        return ""
    if attacker["side"] == "enemy":
        return f"{attacker['name']} attacks."
    weapons = attacker["weapons"]
    name = str(action.payload.get("weapon") or (weapons[0]["name"] if weapons else "")).strip().lower()
    mode = str(action.payload.get("mode") or "shot").strip().lower()
    if mode == "shot" and name not in SILENT_WEAPONS:
        return f"{attacker['name']} fires a {name or 'weapon'}, which is not silent."
    if mode == "brawl" and "ripper" in name:
        return f"{attacker['name']} uses a Ripper sword."
    if target["side"] == "enemy" and target["status"] == "active":
        return f"{target['name']} is not knocked out by the attack."
    return ""


def _resolve(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """An attack (the battle tracker's ``resolve``). In a Stealth round ``unseen`` on gives +2 to
    the crew attacker's shot or Brawl from outside the enemy's Field of Vision (p.122, added to
    its Combat Skill for this attack); the attack raises the alarm when the weapon is not a Hand
    gun or Needle rifle, a Ripper sword is used, or the enemy target is not knocked out."""
    stealthy = _stealthy(state)
    unseen = stealthy and payload_flag(action, "unseen")
    before = _copy_state(state)
    attacker = next((f for f in state["crew"] if f["id"] == str(action.payload.get("attacker"))), None)
    if unseen and attacker is not None:
        attacker["combat_skill"] += OUTSIDE_VISION_BONUS
    try:
        events = _delegate(state, action, dice, tables)
    finally:
        if unseen and attacker is not None:
            fig = next(f for f in state["crew"] if f["id"] == attacker["id"])
            fig["combat_skill"] -= OUTSIDE_VISION_BONUS
    if unseen and attacker is not None:
        events = [
            Event(e.type, f"(+{OUTSIDE_VISION_BONUS} from outside the Field of Vision, p.122) {e.text}", e.data) for e in events
        ]
    if stealthy:
        cause = _loud(state, action, before)
        if cause:
            events.extend(_raise_alarm(state, action, dice, cause))
    return events


def _psionic(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew Psionic power (the battle tracker's ``psionic``). In a Stealth round Grab, Shock or
    Psionic Scare on an enemy raises the alarm unless it leaves play (p.122)."""
    events = _delegate(state, action, dice, tables)
    power = str(action.payload.get("power") or "").strip().lower()
    target = next((f for f in state["enemies"] if f["id"] == str(action.payload.get("target"))), None)
    if _stealthy(state) and power in LOUD_POWERS and target is not None and target["status"] == "active":
        events.extend(_raise_alarm(state, action, dice, f"{power.title()} on {target['name']}, who stays in play."))
    return events


def _enemy_act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """In Stealth rounds enemies do not use their AI (p.120): use ``patrol``; after the alarm, the
    battle tracker's ``enemy_act``."""
    _need_stealth_not(state)
    return _delegate(state, action, dice, tables)


def _need_stealth_not(state: Mapping[str, Any]) -> None:
    if _stealthy(state):
        raise _err("In Stealth rounds enemies do not use their AI: roll the patrol instead (p.120).", "type")


def _act(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew activation (the battle tracker's ``act``); it ends a Stay Down made in an earlier round."""
    fid = str(action.payload.get("figure"))
    events = _delegate(state, action, dice, tables)
    downs = _s(state)["stay_down"]
    if fid in downs and downs[fid] < state["round"]:
        del downs[fid]
    return events


Handler = Callable[[dict[str, Any], Action, Dice, Mapping[str, RangeTable]], list[Event]]
_OWN: dict[str, Handler] = {
    "spot": _spot,
    "patrol": _patrol,
    "blocked": _blocked,
    "stay_down": _stay_down,
    "distraction": _distraction,
    "lure": _lure,
    "search": _search,
    "objective": _objective,
    "hand_off": _hand_off,
    "pick_up": _pick_up,
    "exfiltrate": _exfiltrate,
    "individual_off": _individual_off,
    "alarm": _alarm,
    "next_phase": _next_phase,
    "resolve": _resolve,
    "psionic": _psionic,
    "enemy_act": _enemy_act,
    "act": _act,
}
#: Every action type the Stealth tracker takes: its own and the battle tracker's.
ACTIONS: tuple[str, ...] = tuple(sorted({*_OWN, *_BATTLE_HANDLERS}))


def _settle(state: dict[str, Any]) -> list[Event]:
    """Drop the item of a fallen carrier (p.118); end the mission when no crew figure is left on
    the table (exfiltrated or down)."""
    s = _s(state)
    events: list[Event] = []
    objective = s["objective"]
    carrier = next((f for f in state["crew"] if f["id"] == objective["carrier"]), None)
    if carrier is not None and carrier["status"] not in ("active", "exfiltrated"):
        objective.update(carrier=None, dropped=True)
        events.append(Event("item", f"{carrier['name']} falls and drops the item where they lie (p.118).", {}))
    joined = s["individual"] and s["individual"]["joined"]
    if joined and objective["key"] == "rescue" and not objective["achieved"]:
        fig = next(f for f in state["crew"] if f["id"] == joined)
        if fig["status"] == "casualty":
            objective["failed"] = True
    if state["round"] and not _crew_up(state) and not s["finished"]:
        state["phase"] = "over"
        state["held_field"] = not _on_table(state)
        won = bool(objective["achieved"]) and not objective["failed"]
        why = f"no crew figure is left on the table; the objective ({objective['name']}) is {'done' if won else 'not done'}."
        s["finished"] = {"won": won, "why": why}
        events.append(Event("mission_over", f"Mission over: {why}", {"won": won}))
    elif state["phase"] == "over" and not s["finished"]:
        won = bool(objective["achieved"]) and not objective["failed"]
        s["finished"] = {"won": won, "why": f"the battle was ended; the objective is {'done' if won else 'not done'}."}
    return events


def apply(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The Stealth mission reducer: ``(state, action, dice, tables) -> (new_state, events)``.

    Its own actions (``spot``, ``patrol``, ``blocked``, ``stay_down``, ``distraction``, ``lure``,
    ``search``, ``objective``, ``hand_off``, ``pick_up``, ``exfiltrate``, ``individual_off``,
    ``alarm``) and the battle tracker's (:func:`fp_tracker.apply`), some wrapped for the Stealth
    rules (``next_phase``, ``resolve``, ``psionic``, ``enemy_act``, ``act``). Raises
    :class:`TrackerError` naming the payload field, changing nothing, when the rules refuse."""
    if "stealth" not in state:
        raise _err("This is not a Stealth mission's state.", "state")
    if _s(state)["finished"] and action.type not in ("adjust", "set_player"):
        raise _err("The mission is over; only corrections (adjust) are allowed.", "type")
    new: dict[str, Any] = _copy_state(state)
    handler = _OWN.get(action.type)
    try:
        events = handler(new, action, dice, tables) if handler else _delegate(new, action, dice, tables)
    except DiceError as exc:
        raise _err(str(exc), "faces") from None
    except TrackerError:
        raise
    events.extend(_settle(new))
    _sync(new)
    _refresh(new, tables)
    new["now"] = _now(new)
    if events:
        new["last"] = {"type": events[-1].type, "text": " ".join(e.text for e in events)}
    return new, events


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The mission summed up as a standard battle's result (:func:`fp_tracker.outcome`) plus
    ``won`` (the objective done, pp.117-119), ``mission`` ("stealth") and ``stealth``
    ({objective, achieved, alarm, alarm_round, exfiltrated})."""
    made = fp_tracker.outcome(state)
    s = _s(state)
    objective = s["objective"]
    made["won"] = bool(objective["achieved"]) and not objective["failed"]
    made["mission"] = "stealth"
    made["stealth"] = {
        "objective": objective["name"],
        "achieved": made["won"],
        "alarm": s["alarm"],
        "alarm_round": s["alarm_round"],
        "exfiltrated": [f["name"] for f in state["crew"] if f["status"] == "exfiltrated"],
        "source": SOURCE,
    }
    return made


def release(state: dict[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's actions that hand ``player``'s crew figures back (the battle tracker's)."""
    return fp_tracker.release(state, player)


def stealth_moves(state: Mapping[str, Any]) -> dict[str, int]:
    """Each crew figure's move this Stealth round (p.120): base Speed +1" in the Quick Action
    phase, -1" in the Slow; no Dashing. Empty after the alarm."""
    if not _stealthy(state):
        return {}
    return {
        f["id"]: max(0, int(f["speed"]) + MOVE_MODIFIERS[f["slot"]])
        for f in _crew_up(state)
        if f.get("slot") in ("quick", "slow")
    }
