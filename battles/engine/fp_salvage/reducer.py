"""The Salvage job reducer ``apply(state, action, dice, tables)``: the round and the Tension track
(p.138), Salvage markers, corrections, the end of the mission and its post-game rewards
(pp.146-147), and the outcome for the campaign turn.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from battles.engine.fp_salvage import forces, pois
from battles.engine.fp_salvage.base import SETUP_NOW, STATUSES, change_tension, err, face, roll, roll_table, rolls, take
from battles.engine.fp_salvage.forces import add_enemies, crew_member, hostiles_on_table, mine
from live.engine.tracker import Action, Event, payload_ints, require_owner
from rules.engine.dice import Dice, DiceError, RollRecord
from rules.engine.state import copy_state
from rules.engine.tables import RangeTable, TableError

Handler = Callable[[dict[str, Any], Action, Dice, Mapping[str, RangeTable]], list[Event]]


def apply(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[dict[str, Any], list[Event]]:
    """The reducer: ``(state, action, dice, tables) -> (new_state, events)``; ``tables`` are the
    Five Parsecs tables by slug (the ``salvage-*`` ones). Raises :class:`TrackerError` (or
    :class:`NotYours`) naming the payload field, changing nothing, when the rules refuse."""
    handler = _HANDLERS.get(action.type)
    if handler is None:
        raise err(f"Unknown action {action.type!r}; use one of {', '.join(sorted(_HANDLERS))}.", "type")
    if state["phase"] == "over" and action.type != "set_player":
        raise err("The mission is over.", "type")
    if state["phase"] == "setup" and action.type not in ("start", "set_player"):
        raise err("Start round 1 first.", "type")
    new: dict[str, Any] = copy_state(state)
    try:
        events = handler(new, action, dice, tables)
    except (DiceError, TableError) as exc:
        raise err(str(exc), "faces") from None
    refresh(new)
    if events:
        new["last"] = {"type": events[-1].type, "text": " ".join(e.text for e in events)}
    return new, events


# -- the round ------------------------------------------------------------------------------------


def _round_kind(state: Mapping[str, Any]) -> str:
    """A battle round with Contacts or enemies on the table, else an Exploration Round (p.138)."""
    return "battle" if state["contacts"] or hostiles_on_table(state) else "exploration"


def _start(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Round 1 begins. There is no Seize the Initiative roll, and no Tension roll before Tension is
    set at the end of round 1 (p.138)."""
    require_owner(action)
    if state["phase"] != "setup":
        raise err("The mission has started.", "type")
    state["phase"], state["round"] = "round", 1
    state["round_kind"] = _round_kind(state)
    return [Event("round", "Round 1: an Exploration Round. Move the crew in any order; no Dashing, no equipment.", {"round": 1})]


def _next_round(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End this round and begin the next (p.138): at the end of round 1 Tension is set; an Evac
    zone grows 1D6" (``evac_face``) and each nano-swarm moves 1D6" (``swarm_faces``) after the round
    they appeared (pp.144-145). The new round brings waiting arrivals, then rolls the Tension D6
    (``face``): above Tension raises it by 1; at or under lowers it by the roll and spawns a Contact."""
    require_owner(action)
    events: list[Event] = []
    rnd = state["round"]
    track = state["tension"]
    if not track["set"]:
        track["set"] = True
        if not track["locked"]:
            track["value"] = track["start"]
        events.append(
            Event("tension", f"End of round 1: Tension is set to {track['value']} (crew halved, rounded up; p.138).", {})
        )
    evac = state["hazards"]["evac"]
    if evac is not None and evac["from_round"] < rnd + 1:
        record = roll(dice, "D6", "Evac time: the danger zone grows", [f] if (f := face(action, "evac_face")) else None)
        evac["radius"] += int(record.total or 0)
        events.append(
            Event(
                "hazard",
                f'The danger zone grows {record.total}" to a {evac["radius"]}" radius: remove what it catches.',
                rolls(record),
            )
        )
    swarm_faces = payload_ints(action, "swarm_faces")
    for n in range(state["hazards"]["swarms"]):
        record = roll(dice, "D6", f"Nano-swarm {n + 1} moves", take(swarm_faces, 1))
        events.append(
            Event("hazard", f'Nano-swarm {n + 1} moves {record.total}" toward the nearest figure or Contact.', rolls(record))
        )
    state["round"] = rnd + 1
    state["scanner_done"] = False
    for contact in state["contacts"]:
        contact.pop("move", None)
    for arrival in [a for a in state["arrivals"] if a["round"] <= state["round"]]:
        state["arrivals"].remove(arrival)
        added = add_enemies(state, arrival["name"], arrival["counts"], side=arrival["side"], note=arrival["note"])
        for fig in added:
            fig["acts_from"] = state["round"]
        events.append(
            Event("arrival", f"{', '.join(f['name'] for f in added)} arrive at the centre of the {arrival['edge']} edge.", {})
        )
    events.extend(_tension_roll(state, action, dice))
    state["round_kind"] = _round_kind(state)
    kind = (
        "a battle round: roll Reactions as usual"
        if state["round_kind"] == "battle"
        else "an Exploration Round: no Reactions, move in any order, no Dashing, no equipment"
    )
    events.append(Event("round", f"Round {state['round']}: {kind}.", {"round": state["round"]}))
    return events


def _tension_roll(state: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    track = state["tension"]
    if track["locked"]:
        return [Event("tension", "Tension is held at 0 by the Rival trap: no Tension roll.", {})]
    record = roll(dice, "D6", f"Tension roll (Tension {track['value']})", [f] if (f := face(action, "face")) else None)
    value = int(record.total or 0)
    if value > track["value"]:
        return [Event("tension", f"Tension roll {value}, above Tension: {change_tension(state, 1)}", rolls(record))]
    said = change_tension(state, -value)
    contact = forces.add_contact(state, "near a random crew member")
    return [
        Event(
            "tension",
            f"Tension roll {value}, at or under Tension: {said} Contact {contact['id']} spawns: place it at the nearest "
            'point out of sight and over 6" from a random crew member (p.139).',
            rolls(record),
        )
    ]


# -- Salvage markers, figures --------------------------------------------------------------------------


def _pick_up(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew member moves into contact with a Salvage marker: 1 Salvage unit, never lost (p.138)."""
    fig = crew_member(state, action.payload.get("crew"))
    mine(action, fig)
    if state["salvage"]["markers"] <= 0:
        raise err("No Salvage marker is left on the table.", "crew")
    state["salvage"]["markers"] -= 1
    state["salvage"]["units"] += 1
    return [Event("salvage", f"{fig['name']} picks up Salvage: {state['salvage']['units']} unit(s) so far.", {"crew": fig["id"]})]


def _grab(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Free for all! (p.139): an enemy within one move of a Salvage marker goes to it; the marker and
    the enemy leave the table."""
    require_owner(action)
    kind = state["hostiles"]["type"]
    if not kind or not kind.get("grabs_salvage"):
        raise err("Only Free for all! looters take Salvage markers.", "enemy")
    if state["salvage"]["markers"] <= 0:
        raise err("No Salvage marker is left on the table.", "enemy")
    enemy = _enemy(state, action.payload.get("enemy"))
    state["salvage"]["markers"] -= 1
    enemy["status"], enemy["down_round"] = "removed", state["round"]
    return [Event("salvage", f"{enemy['name']} grabs a Salvage marker: both leave the table.", {"enemy": enemy["id"]})]


def _enemy(state: Mapping[str, Any], eid: Any) -> dict[str, Any]:
    for fig in state["enemies"]:
        if fig["id"] == str(eid) and fig["status"] == "active":
            return fig  # type: ignore[no-any-return]
    known = ", ".join(f"{e['id']} ({e['name']})" for e in state["enemies"] if e["status"] == "active") or "none"
    raise err(f"No figure {eid!r} on the table; figures: {known}.", "enemy")


def _adjust(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Set a figure's ``status`` (active, casualty, fled, exited): ``figure`` a crew id (its player
    may), or ``enemy`` an enemy or ally id (owner only). Fights are played at the table."""
    status = str(action.payload.get("status") or "")
    if status not in STATUSES[:4]:
        raise err(f"status must be one of {', '.join(STATUSES[:4])}; got {status!r}.", "status")
    if action.payload.get("enemy"):
        require_owner(action)
        eid = str(action.payload["enemy"])
        fig = next((e for e in state["enemies"] if e["id"] == eid and e["status"] != "removed"), None)
        if fig is None:
            raise err(f"No figure {eid!r}; figures: {', '.join(e['id'] for e in state['enemies']) or 'none'}.", "enemy")
    else:
        fid = str(action.payload.get("figure") or "")
        fig = next((c for c in state["crew"] if c["id"] == fid), None)
        if fig is None:
            raise err(f"No crew figure {fid!r}; crew: {', '.join(c['id'] for c in state['crew'])}.", "figure")
        mine(action, fig)
    fig["status"] = status
    fig["down_round"] = None if status == "active" else state["round"]
    return [Event("adjust", f"{fig['name']}: {status}.", {"figure": fig["id"]})]


def _caught(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Evac time and Doomsday protocol (p.145): ``target`` (a crew or enemy id, a Contact ``k…`` or a
    Point of Interest ``p…``) caught by the danger zone (``by`` evac) or touched by a nano-swarm
    (``by`` swarm). Figures become casualties, Contacts are removed, Points of Interest destroyed;
    a swarm that touches something makes another swarm."""
    require_owner(action)
    by = str(action.payload.get("by") or "")
    if by == "evac" and state["hazards"]["evac"] is None:
        raise err("No Evac danger zone is on the table.", "by")
    if by == "swarm" and not state["hazards"]["swarms"]:
        raise err("No nano-swarm is on the table.", "by")
    if by not in ("evac", "swarm"):
        raise err(f"by must be evac or swarm; got {by!r}.", "by")
    target = str(action.payload.get("target") or "")
    poi = next((p for p in state["pois"] if p["id"] == target and p["status"] == "hidden"), None)
    contact = next((c for c in state["contacts"] if c["id"] == target), None)
    fig = next((f for f in state["crew"] + state["enemies"] if f["id"] == target and f["status"] == "active"), None)
    if poi is not None:
        if by == "swarm":
            raise err("A nano-swarm hunts figures and Contacts, not Points of Interest.", "target")
        poi["status"] = "destroyed"
        name = f"Point of Interest {poi['id']}"
    elif contact is not None:
        forces.down_contacts(state, [contact])
        name = f"Contact {contact['id']}"
    elif fig is not None:
        fig["status"], fig["down_round"] = "casualty", state["round"]
        name = fig["name"]
    else:
        raise err(f"No figure, Contact or hidden Point of Interest {target!r} on the table.", "target")
    text = f"{name} is caught by the danger zone." if by == "evac" else f"A nano-swarm destroys {name}."
    if by == "swarm":
        state["hazards"]["swarms"] += 1
        text += f" Another swarm forms ({state['hazards']['swarms']} now)."
    return [Event("hazard", text, {"target": target})]


def _set_player(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """Hand a crew figure to a player (user id as text), or back to the owner with ``""``."""
    require_owner(action)
    fid = str(action.payload.get("figure") or "")
    fig = next((c for c in state["crew"] if c["id"] == fid), None)
    if fig is None:
        raise err(f"No crew figure {fid!r}; crew: {', '.join(c['id'] for c in state['crew'])}.", "figure")
    player = str(action.payload.get("player") or "").strip()
    if player and not player.isdigit():
        raise err(f"player must be a member's user id, or empty for the owner; got {player!r}.", "player")
    fig["owner"] = player
    return [Event("set_player", f"{fig['name']} is now played by {'a player' if player else 'the owner'}.", {"figure": fid})]


def release(state: Mapping[str, Any], player: str) -> list[tuple[str, dict[str, Any]]]:
    """The owner's ``set_player`` actions that hand ``player``'s crew figures back."""
    return [("set_player", {"figure": f["id"], "player": ""}) for f in state["crew"] if f.get("owner") == player]


# -- the end -------------------------------------------------------------------------------------------


def _end(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """End the mission (p.146): the crew leave across any edge, or none is left standing. Won when
    every Point of Interest was resolved. Then the post-game rolls: a D6 per resolved Point of
    Interest (``poi_faces``), a D100 per Discovery (``discovery_faces``, then a D3 for trinkets in
    ``faces``), the Illegal job's D6 (``illegal_face``, p.138), and the Scrappers' three prices in
    Salvage units (``scrapper_faces``, a 1 counts as 2; p.147)."""
    require_owner(action)
    for fig in state["crew"]:
        if fig["status"] == "active":
            fig["status"] = "exited"
    state["phase"] = "over"
    state["won"] = all(p["status"] == "resolved" for p in state["pois"])
    standing = any(c["status"] == "exited" for c in state["crew"])
    state["held_field"] = standing and not hostiles_on_table(state)
    survivors = [e for e in state["enemies"] if e.get("survivor") and e["status"] in ("active", "exited")]
    if survivors:
        state["finds"]["story_points"] += 1
    post: dict[str, Any] = {"finds": [], "discoveries": [], "illegal": None, "scrappers": [], "salvage": 0}
    records: list[RollRecord | None] = []
    poi_faces, discovery_faces, extra = (
        payload_ints(action, "poi_faces"),
        payload_ints(action, "discovery_faces"),
        payload_ints(action, "faces"),
    )
    for poi in [p for p in state["pois"] if p["status"] == "resolved"]:
        found = roll_table(tables, "salvage-poi-finds", dice, _one(poi_faces), f"{poi['id']}: what you found")
        records.append(found.record)
        post["finds"].append({"poi": poi["id"], "roll": found.value, "result": found.entry.result})
        post["salvage"] += int(found.entry.data.get("salvage") or 0)
        if found.entry.data.get("discovery"):
            records.extend(_discovery(state, post, dice, tables, discovery_faces, extra))
    state["salvage"]["units"] += post["salvage"]
    if state["options"]["illegal"]:
        check = roll_table(tables, "salvage-illegal-job-check", dice, face(action, "illegal_face"), "Illegal job: the law")
        records.append(check.record)
        post["illegal"] = {
            "roll": check.value,
            "caught": bool(check.entry.data["caught"]),
            "result": check.entry.result,
            "fine": check.value,
        }
    scrapper_faces = payload_ints(action, "scrapper_faces")
    for n in range(3):
        price = roll(dice, "D6", f"Scrappers: Salvage units for Loot roll {n + 1}", take(scrapper_faces, 1))
        records.append(price)
        post["scrappers"].append(max(2, int(price.total or 0)))
    state["post_game"] = post
    return [Event("mission_over", _end_words(state), rolls(*records))]


def _one(faces: list[int]) -> int | None:
    got = take(faces, 1)
    return got[0] if got else None


def _discovery(
    state: dict[str, Any], post: dict[str, Any], dice: Dice, tables: Mapping[str, RangeTable], faces: list[int], extra: list[int]
) -> list[RollRecord]:
    found = roll_table(tables, "salvage-discoveries", dice, _one(faces), "Discovery")
    data = found.entry.data
    records = [found.record]
    credits = 0
    if data.get("credits"):
        amount = roll(dice, str(data["credits"]), "Valuable trinkets: credits", take(extra, 1))
        records.append(amount)
        credits = int(amount.total or 0)
    finds = state["finds"]
    finds["loot_after"] += int(data.get("loot_rolls") or 0)
    finds["quest_rumors"] += int(data.get("quest_rumors") or 0)
    finds["credits"] += credits
    post["salvage"] += int(data.get("salvage") or 0)
    post["discoveries"].append({"roll": found.value, "result": found.entry.result, "credits": credits})
    return records


def _end_words(state: Mapping[str, Any]) -> str:
    post, finds = state["post_game"], state["finds"]
    done = sum(1 for p in state["pois"] if p["status"] == "resolved")
    head = (
        "Mission won: every Point of Interest resolved."
        if state["won"]
        else f"Mission lost: {done} of {len(state['pois'])} Points of Interest resolved."
    )
    parts = [
        head,
        f"Salvage: {state['salvage']['units']} unit(s) (post-game {post['salvage']:+d}).",
        f"Credits {finds['credits']}, Loot rolls now {finds['loot_now']} and after {finds['loot_after']}, "
        f"Quest Rumors {finds['quest_rumors']}, Story Points {finds['story_points']}.",
        f"Scrappers ask {', '.join(map(str, post['scrappers']))} Salvage units for three Loot rolls.",
    ]
    if post["illegal"]:
        parts.append(
            f"Illegal job D6 {post['illegal']['roll']}: "
            + (
                "the law is on your trail: pay a fine of that many credits, hand over the Salvage, or add an Enforcer Rival."
                if post["illegal"]["caught"]
                else "you got away with it."
            )
        )
    return " ".join(parts)


def outcome(state: Mapping[str, Any]) -> dict[str, Any]:
    """The mission summed up for the post-battle sequence, in the keys of the standard battle's
    outcome (``held_field``, ``casualties``, ``enemies_killed``, ``enemies_fled``, ``rounds``,
    ``objective``, ``objective_possible``, ``escalations``, ``deployment``, ``psionic_uses``) plus
    ``won`` (every Point of Interest resolved, p.146) and ``salvage``: ``units`` (Salvage units),
    ``credit_value`` (a unit is 1 credit only toward ship repairs, ship modules and Bot upgrades,
    p.147), ``credits`` (cash found), ``loot_now`` / ``loot_after`` (Loot rolls), ``quest_rumors``,
    ``story_points``, ``scrappers`` (prices in units of three Loot rolls), ``illegal``, and the
    chapter's no-gos: ``normal_loot``, ``battlefield_finds`` and ``invasion_check`` all False."""
    finds = state["finds"]
    post = state["post_game"] or {}
    return {
        "held_field": state["held_field"],
        "won": state["won"],
        "casualties": [c["name"] for c in state["crew"] if c["status"] == "casualty"],
        "enemies_killed": sum(1 for e in state["enemies"] if e["status"] == "casualty" and e["side"] != "ally"),
        "enemies_fled": sum(1 for e in state["enemies"] if e["status"] == "fled" and e["side"] != "ally"),
        "rounds": state["round"],
        "objective": "Salvage job",
        "objective_possible": any(p["status"] != "destroyed" for p in state["pois"]),
        "escalations": [],
        "deployment": None,
        "psionic_uses": 0,
        "salvage": {
            "units": state["salvage"]["units"],
            "credit_value": state["salvage"]["units"],
            "credit_uses": ["ship repairs", "ship modules", "Bot upgrades"],
            "credits": finds["credits"],
            "loot_now": finds["loot_now"],
            "loot_after": finds["loot_after"],
            "quest_rumors": finds["quest_rumors"],
            "story_points": finds["story_points"],
            "poi_resolved": sum(1 for p in state["pois"] if p["status"] == "resolved"),
            "poi_total": len(state["pois"]),
            "finds": post.get("finds", []),
            "discoveries": post.get("discoveries", []),
            "scrappers": post.get("scrappers", []),
            "illegal": post.get("illegal"),
            "normal_loot": False,
            "battlefield_finds": False,
            "invasion_check": False,
            "source": "pp.146-147",
        },
    }


# -- what the screens read ------------------------------------------------------------------------------


def refresh(state: dict[str, Any]) -> None:
    """The "now" sentence for the screens."""
    if state["phase"] == "setup":
        state["now"] = SETUP_NOW
        return
    if state["phase"] == "over":
        state["now"] = "The mission is over: " + ("won." if state["won"] else "not every Point of Interest was resolved.")
        return
    left = sum(1 for p in state["pois"] if p["status"] == "hidden")
    kind = "Battle round" if state["round_kind"] == "battle" else "Exploration Round"
    state["now"] = (
        f"Round {state['round']} ({kind}): Tension {state['tension']['value']}, {len(state['contacts'])} Contact(s), "
        f"{len(hostiles_on_table(state))} hostile figure(s), {left} Point(s) of Interest to reveal."
    )


_HANDLERS: dict[str, Handler] = {
    "start": _start,
    "next_round": _next_round,
    "reveal_contact": forces.reveal,
    "scanner_check": forces.scanner_check,
    "investigate": pois.investigate,
    "use_marker": pois.use_marker,
    "pick_up_salvage": _pick_up,
    "grab_salvage": _grab,
    "adjust": _adjust,
    "caught": _caught,
    "set_player": _set_player,
    "end_mission": _end,
}
