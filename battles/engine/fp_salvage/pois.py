"""Points of Interest (Compendium pp.141-145): the D100 reveal, its Tension adjustment and its
effect, and the markers some reveals leave (a Secure device's lockbox, an Information station).

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_salvage.base import change_tension, err, face, pick, roll, roll_table, rolls
from battles.engine.fp_salvage.forces import add_contact, add_enemies, crew_member, down_contacts, mine
from live.engine.tracker import Action, Event, payload_ints
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

#: Each reveal's key by its name on the table (pp.141-145).
REVEALS: dict[str, str] = {
    "Obstacle": "obstacle",
    "Environmental threat": "environmental",
    "Map readouts": "map",
    "Secure device": "lockbox",
    "The air is thick in here": "plain",
    "Dead spacer": "dead_spacer",
    "We need to hurry": "hurry",
    "Dead end": "plain",
    "Information station": "information",
    "Hot find": "hot_find",
    "Survivors discovered": "survivors",
    "Hornets' nest": "hornets",
    "Lure?": "lure",
    "All clear": "plain",
    "Incursion": "incursion",
    "Cache": "cache",
    "Security bot": "security_bot",
    "Creature": "creature",
    "Rival trap": "rival_trap",
    "Valuable find": "valuable",
    "Interesting find": "interesting",
    "Evac time": "evac",
    "Doomsday protocol": "doomsday",
}


def _poi(state: dict[str, Any], pid: Any) -> dict[str, Any]:
    for poi in state["pois"]:
        if poi["id"] == str(pid):
            if poi["status"] != "hidden":
                raise err(f"Point of Interest {poi['id']} is already {poi['status']}.", "poi")
            return poi  # type: ignore[no-any-return]
    left = ", ".join(f"{p['id']} ({p['where']})" for p in state["pois"] if p["status"] == "hidden") or "none"
    raise err(f"No Point of Interest {pid!r} left to investigate; left: {left}.", "poi")


def _savvy_test(dice: Dice, fig: Mapping[str, Any], what: str, typed: int | None, modifier: int = 0) -> RollRecord:
    return roll(
        dice,
        "D6",
        f"{fig['name']}: 1D6+Savvy, {what}",
        [typed] if typed else None,
        modifier=int(fig["savvy"]) + modifier,
    )


def investigate(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew member comes within 3" and sight of a Point of Interest (p.141): roll D100 (``face``),
    adjust Tension, apply the reveal and remove the marker. ``test_face`` is the D6 of a 1D6+Savvy
    test the reveal asks for; ``faces`` are its other dice (1D3 or 1D6 amounts, random picks)."""
    fig = crew_member(state, action.payload.get("crew"))
    mine(action, fig)
    poi = _poi(state, action.payload.get("poi"))
    rolled = roll_table(tables, "salvage-points-of-interest", dice, face(action, "face", 100), f"Point of Interest {poi['id']}")
    entry = rolled.entry
    poi["status"], poi["result"], poi["round"] = "resolved", entry.result, state["round"]
    extra: list[int] = payload_ints(action, "faces")
    records: list[RollRecord | None] = [rolled.record]
    head = f"{fig['name']} investigates {poi['id']} ({poi['where']}), D100 {rolled.value}: {entry.result}."
    text, more = _reveal(state, REVEALS[entry.result], entry.data, fig, poi, action, dice, extra)
    records.extend(more)
    return [Event("poi", f"{head} {text}", {"poi": poi["id"], "reveal": entry.result, **rolls(*records)})]


def _amount(dice: Dice, notation: str, reason: str, extra: list[int]) -> RollRecord:
    typed = extra[:1]
    del extra[:1]
    return roll(dice, notation, reason, typed or None)


def _reveal(
    state: dict[str, Any],
    key: str,
    data: Mapping[str, Any],
    fig: dict[str, Any],
    poi: dict[str, Any],
    action: Action,
    dice: Dice,
    extra: list[int],
) -> tuple[str, list[RollRecord | None]]:
    """The reveal's effect (pp.141-145): the words for the log and the rolls it made."""
    tension = int(data.get("tension") or 0)
    finds = state["finds"]
    test = face(action, "test_face")
    if key == "obstacle":
        state["hazards"]["obstacles"].append(poi["id"])
        return (
            f'A hazard fills 2" around the marker for the rest of the battle: every figure inside takes a Damage 0 hit '
            f"ignoring Screens; enemies will not enter it. {change_tension(state, tension)}",
            [],
        )
    if key == "environmental":
        record = _savvy_test(dice, fig, "stop the leak (5+)", test)
        if int(record.total or 0) >= int(data["savvy_target"]):
            return f"{fig['name']} stops the leak ({record.total}). {change_tension(state, tension)}", [record]
        radius = _amount(dice, "D6", "Environmental threat: radius in inches", extra)
        return (
            f'The leak sprays ({record.total}): {fig["name"]} and every figure within {radius.total}" take a Damage 1 hit '
            f"ignoring Screens. {change_tension(state, tension)}",
            [record, radius],
        )
    if key == "map":
        hidden = [p for p in state["pois"] if p["status"] == "hidden"]
        if not hidden:
            return f"No Point of Interest is left to move. {change_tension(state, tension)}", []
        moved, picked = pick(dice, hidden, "Map readouts: which Point of Interest", extra)
        return f'Move {moved["id"]} ({moved["where"]}) 4" in any direction. {change_tension(state, tension)}', [picked]
    if key in ("lockbox", "information"):
        marker = {"id": f"m{state['next']['marker']}", "kind": key, "poi": poi["id"]}
        state["next"]["marker"] += 1
        state["markers"].append(marker)
        said = (
            "A lockbox stays here: a crew member in contact may test 1D6+Savvy, 5+ opens it for a Loot roll now, each failure Tension +1."
            if key == "lockbox"
            else "An information station stays here: a crew member in contact may test 1D6+Savvy and lower Tension by the total."
        )
        return f"{said} (marker {marker['id']}) {change_tension(state, tension)}", []
    if key == "dead_spacer":
        finds["loot_now"] += 1
        return f"One Loot roll now; what is found can be used at once. {change_tension(state, tension)}", []
    if key == "hurry":
        left = sum(1 for p in state["pois"] if p["status"] == "hidden")
        return (
            f"{left} Point(s) of Interest still out there. {change_tension(state, left * int(data['tension_per_remaining_poi']))}",
            [],
        )
    if key in ("hot_find", "cache"):
        record = _amount(dice, "D3", f"{poi['id']}: Salvage units found", extra)
        units = int(record.total or 0)
        state["salvage"]["units"] += units
        tension = units * int(data.get("tension_per_salvage") or 0)
        return f"{units} Salvage unit(s) found. {change_tension(state, tension)}", [record]
    if key == "survivors":
        record = _amount(dice, "D3", "Survivors: Hardened Colonists", extra)
        added = add_enemies(
            state,
            "Hardened Colonist",
            {"basic": int(record.total or 0)},
            side="ally",
            note="Survivor: fights for the crew; if any survives or leaves the table, +1 Story Point (p.143)",
        )
        for ally in added:
            ally["survivor"] = True
        return f"{len(added)} Hardened Colonist(s) join the crew (core rulebook p.172). {change_tension(state, tension)}", [
            record
        ]
    if key == "hornets":
        contact = add_contact(state, f"near {fig['name']}")
        return f"Contact {contact['id']} placed near {fig['name']}. {change_tension(state, tension)}", []
    if key == "lure":
        contact = add_contact(state, f'6" from {fig["name"]} in a random direction', lure=True)
        return (
            f'Lure: Contact {contact["id"]} placed 6" from {fig["name"]}; touching it rolls 1D6 (1-3 that many Contacts, '
            f"4-6 that many Salvage units). {change_tension(state, tension)}",
            [],
        )
    if key in ("incursion", "rival_trap"):
        return _arrival(state, key, data, dice, extra, tension)
    if key == "security_bot":
        record = _savvy_test(dice, fig, "shut the Security bot down (6+)", test)
        natural = record.faces[0]
        if natural == 6:
            add_enemies(
                state, "Mk II Security Bot", {"basic": 1}, side="ally", note="Reprogrammed: AI-controlled, on your side (p.144)"
            )
            said = "Natural 6: the Mk II Security Bot is reprogrammed and fights for you (AI-controlled)."
        elif int(record.total or 0) >= int(data["savvy_target"]):
            said = f"Shut down in time ({record.total})."
        else:
            add_enemies(
                state,
                "Mk II Security Bot",
                {"basic": 1},
                side="third",
                note="Shoots at both sides, moves first in each Enemy Actions phase (p.144)",
            )
            said = f"It wakes ({record.total}): a Mk II Security Bot (core rulebook p.107) shoots at both sides."
        return f"{said} {change_tension(state, tension)}", [record]
    if key == "creature":
        mods = data["modifiers"]
        mod = (int(mods["bot"]) if fig["bot"] else 0) + (int(mods["soulless"]) if fig["soulless"] else 0)
        mod += int(mods["swift"]) if fig["swift"] else 0
        record = _savvy_test(dice, fig, "befriend the Sand Runner (5+)", test, modifier=mod)
        if int(record.total or 0) >= int(data["savvy_target"]):
            add_enemies(
                state, "Sand Runner", {"basic": 1}, side="ally", note="Likes you: fights for the crew, Reactions 3 (p.144)"
            )
            said = f"The Sand Runner likes {fig['name']} ({record.total}) and fights for the crew."
        else:
            add_enemies(state, "Sand Runner", {"basic": 1}, side="third", note="Attacks both sides (p.144)")
            said = f"The Sand Runner turns hostile ({record.total}) and attacks both sides."
        return f"{said} {change_tension(state, tension)}", [record]
    if key == "valuable":
        record = _amount(dice, "D3", "Valuable find: credits", extra)
        credits = int(record.total or 0) + 1
        finds["credits"] += credits
        return f"Goods worth {credits} credits (1D3+1). {change_tension(state, tension)}", [record]
    if key == "interesting":
        finds["loot_after"] += 1
        return f"One Loot roll after the mission. {change_tension(state, tension)}", []
    if key == "evac":
        state["hazards"]["evac"] = {"radius": int(data["radius_in"]), "from_round": state["round"]}
        return (
            f'Evac time: a danger zone of 1" radius here grows 1D6" at the end of every later round; figures and Contacts '
            f"caught are casualties, Points of Interest caught are destroyed. {change_tension(state, tension)}",
            [],
        )
    if key == "doomsday":
        state["hazards"]["swarms"] += 1
        return (
            f"Doomsday protocol: a nano-swarm here moves 1D6\" toward the nearest figure or Contact at every round's end; "
            f"what it touches is destroyed and becomes another swarm. Run! {change_tension(state, tension)}",
            [],
        )
    return change_tension(state, tension), []  # plain reveals: only the Tension change


def _arrival(
    state: dict[str, Any], key: str, data: Mapping[str, Any], dice: Dice, extra: list[int], tension: int
) -> tuple[str, list[RollRecord | None]]:
    """Incursion (p.144) and Rival trap (p.145): six figures arrive at the start of the next round."""
    counts = {"basic": int(data["basic"]), "specialist": int(data["specialists"]), "lieutenant": int(data["lieutenants"])}
    edge_roll = _amount(dice, "D12", "Arrival edge: 1-3 north, 4-6 east, 7-9 south, 10-12 west", extra)
    edge = ("north", "east", "south", "west")[(int(edge_roll.total or 1) - 1) // 3]
    if key == "incursion":
        state["arrivals"].append(
            {
                "name": "Converted",
                "round": state["round"] + 1,
                "counts": counts,
                "side": "third",
                "edge": edge,
                "note": "Converted Acquisition team: fights both sides, reveals Contacts, ignores Points of Interest (p.144)",
            }
        )
        return (
            f"A Converted Acquisition team (4 basic, 1 specialist, 1 lieutenant) arrives at the centre of the {edge} edge next round. {change_tension(state, tension)}",
            [edge_roll],
        )
    if not state["rivals"]:
        return f"You have no Rivals: nothing springs the trap. {change_tension(state, tension)}", [edge_roll]
    rival, picked = pick(dice, state["rivals"], "Rival trap: which Rival", extra)
    state["arrivals"].append(
        {
            "name": str(rival),
            "round": state["round"] + 1,
            "counts": counts,
            "side": "hostile",
            "edge": edge,
            "note": "Rival trap (p.145)",
        }
    )
    gone = [e for e in state["enemies"] if e["status"] == "active" and e["side"] != "ally"]
    for enemy in gone:
        enemy["status"], enemy["down_round"] = "removed", state["round"]
    contacts = down_contacts(state, list(state["contacts"]))
    state["tension"]["value"], state["tension"]["locked"] = 0, True
    return (
        f"Rival trap! Six of {rival} (4 basic, 1 specialist, 1 lieutenant) arrive at the centre of the {edge} edge next round. "
        f"{len(gone)} enemy figure(s) and {contacts} Contact marker(s) are removed; Tension is 0 for the rest of the mission.",
        [edge_roll, picked],
    )


def use_marker(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A crew member in contact with a lockbox or an information station tests 1D6+Savvy (``face``):
    a lockbox opens on 5+ (a Loot roll now; each failure Tension +1, p.141); an information
    station lowers Tension by the total (p.142) and is used up."""
    fig = crew_member(state, action.payload.get("crew"))
    mine(action, fig)
    mid = str(action.payload.get("marker") or "")
    marker = next((m for m in state["markers"] if m["id"] == mid), None)
    if marker is None:
        known = ", ".join(f"{m['id']} ({m['kind']})" for m in state["markers"]) or "none"
        raise err(f"No marker {mid!r} on the table; markers: {known}.", "marker")
    typed = face(action, "face")
    if marker["kind"] == "lockbox":
        record = _savvy_test(dice, fig, "open the lockbox (5+)", typed)
        if int(record.total or 0) >= 5:
            state["markers"].remove(marker)
            state["finds"]["loot_now"] += 1
            text = f"{fig['name']} opens the lockbox ({record.total}): one Loot roll, usable at once."
        else:
            text = f"{fig['name']} fails to open the lockbox ({record.total}). {change_tension(state, 1)}"
    else:
        record = _savvy_test(dice, fig, "decipher the information station", typed)
        state["markers"].remove(marker)
        text = f"{fig['name']} deciphers it ({record.total}). {change_tension(state, -max(0, int(record.total or 0)))}"
    return [Event("marker", text, {"marker": marker["id"], **rolls(record)})]
