"""The alarm and its reinforcements (p.122), detection (the spotting roll, p.121) and the enemy's
Stealth-round moves (patrols, blocked moves, p.120).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from battles.engine.fp_setup import EDGES
from battles.engine.fp_stealth.tracker.base import FEATURE, MOVE_MODIFIERS, OBSCURED, SCANNING, SHROUD, _need_stealth, _pick, _s
from battles.engine.fp_tracker.base import _err, _roll, _rolls
from battles.engine.fp_tracker.flow import _new_round
from battles.engine.fp_tracker.lookups import _crew, _enemy, _names, _on_table, _phase
from battles.engine.fp_tracker.setup import _add_enemy
from live.engine.tracker import (
    Action,
    Event,
    payload_faces,
    payload_flag,
    payload_int,
    payload_ints,
    payload_words,
    require_owner,
)
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

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
