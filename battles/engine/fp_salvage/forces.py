"""Contacts, Hostiles! and the figures of a Salvage job (Compendium pp.139-140): finding figures,
placing and removing Contact markers, revealing them, the Hostiles! type and Encounter Number,
and the Scanner Check.

Pure Python: no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battles.engine.fp_salvage.base import change_tension, err, face, roll, roll_table, rolls, row, take
from live.engine.tracker import Action, Event, NotYours, Role, payload_ints, require_owner
from rules.engine.dice import Dice, RollRecord
from rules.engine.tables import RangeTable

#: The Encounter Number table's rows by how many Hostiles! results came up (p.140).
ENCOUNTER_ROWS: tuple[str, ...] = ("1st", "2nd", "3rd", "All subsequent")
RANK_LABELS = {"basic": "", "specialist": " specialist", "lieutenant": " Lieutenant"}


def crew_member(state: Mapping[str, Any], fid: Any, *, field: str = "crew") -> dict[str, Any]:
    """The crew figure ``fid`` still on the table. Raises :class:`TrackerError` naming ``field``."""
    for fig in state["crew"]:
        if fig["id"] == str(fid) and fig["status"] == "active":
            return fig  # type: ignore[no-any-return]
    known = ", ".join(f"{f['id']} ({f['name']})" for f in state["crew"] if f["status"] == "active") or "none"
    raise err(f"No crew figure {fid!r} on the table; crew: {known}.", field)


def mine(action: Action, fig: Mapping[str, Any]) -> None:
    """Refuse unless the actor is the owner or plays this crew figure."""
    if action.role == Role.VIEWER or (action.role == Role.PLAYER and (not fig.get("owner") or fig["owner"] != action.actor)):
        raise NotYours(f"{fig['name']} is not one of your figures.")


def add_contact(state: dict[str, Any], near: str, *, lure: bool = False) -> dict[str, Any]:
    """Place a Contact marker (p.139): the tracker records it; the table places it at the nearest
    point out of sight and over 6" from the crew (ties: nearest a Point of Interest)."""
    contact = {"id": f"k{state['next']['contact']}", "placed_round": state["round"], "near": near[:60], "lure": lure}
    state["next"]["contact"] += 1
    state["contacts"].append(contact)
    return contact


def down_contacts(state: dict[str, Any], gone: list[dict[str, Any]]) -> int:
    """Remove Contact markers; with the harder option each one removed adds 1 Tension (p.147)."""
    for contact in gone:
        state["contacts"].remove(contact)
    if gone and state["options"]["harder"]:
        change_tension(state, len(gone))
    return len(gone)


def add_enemies(state: dict[str, Any], name: str, counts: Mapping[str, int], *, side: str, note: str) -> list[dict[str, Any]]:
    """Put figures on the table: ``counts`` by rank (basic, specialist, lieutenant). They cannot act
    in the round they are placed (p.140), so ``acts_from`` is the next round."""
    added = []
    for rank in ("basic", "specialist", "lieutenant"):
        for _ in range(int(counts.get(rank) or 0)):
            same = sum(1 for e in state["enemies"] if e["name"].startswith(name) and e["rank"] == rank) + 1
            fig = {
                "id": f"e{state['next']['enemy']}",
                "name": f"{name}{RANK_LABELS[rank]} {same}"[:60],
                "rank": rank,
                "side": side,
                "status": "active",
                "arrived_round": state["round"],
                "acts_from": state["round"] + 1,
                "down_round": None,
                "notes": [note] if note else [],
            }
            state["next"]["enemy"] += 1
            state["enemies"].append(fig)
            added.append(fig)
    return added


def hostiles_on_table(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Figures fighting the crew (the Hostiles and anything that attacks both sides)."""
    return [e for e in state["enemies"] if e["status"] == "active" and e["side"] != "ally"]


def _contact(state: Mapping[str, Any], cid: Any) -> dict[str, Any]:
    for contact in state["contacts"]:
        if contact["id"] == str(cid):
            return contact  # type: ignore[no-any-return]
    known = ", ".join(c["id"] for c in state["contacts"]) or "none"
    raise err(f"No Contact marker {cid!r} on the table; Contacts: {known}.", "contact")


def reveal(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """A Contact marker is within 6" and in sight of ``crew``, or within 3" (p.139): roll D6 on the
    Contacts table (``face``; a Lure is touched instead, p.143). Hostiles! rolls the Hostiles! D100
    the first time (``hostile_face``) and places the Encounter Number's force at the marker."""
    fig = crew_member(state, action.payload.get("crew"))
    mine(action, fig)
    contact = _contact(state, action.payload.get("contact"))
    if contact["lure"]:
        return _lure(state, contact, fig, action, dice)
    rolled = roll_table(tables, "salvage-contacts", dice, face(action, "face"), f"Contact {contact['id']} revealed")
    entry = rolled.entry
    head = f"Contact {contact['id']} revealed by {fig['name']}, D6 {rolled.value}: {entry.result}"
    records: list[RollRecord | None] = [rolled.record]
    down_contacts(state, [contact])
    if entry.data.get("hostiles"):
        text, more = _hostiles(state, action, dice, tables)
        records.extend(more)
        return [Event("contact", f"{head} {text}", {"contact": contact["id"], **rolls(*records)})]
    texts = [head + "."]
    if int(entry.data.get("tension") or 0):
        texts.append(f"{fig['name']} has a bad feeling about this. {change_tension(state, int(entry.data['tension']))}")
    spawned = [add_contact(state, f"near {fig['name']}") for _ in range(int(entry.data.get("contacts") or 0))]
    if spawned:
        texts.append(f"The scanner goes haywire: {', '.join(c['id'] for c in spawned)} placed near {fig['name']}.")
    elif not entry.data.get("tension"):
        texts.append("Nothing there; the marker is removed.")
    return [Event("contact", " ".join(texts), {"contact": contact["id"], **rolls(*records)})]


def _lure(state: dict[str, Any], contact: dict[str, Any], fig: Mapping[str, Any], action: Action, dice: Dice) -> list[Event]:
    record = roll(dice, "D6", f"{fig['name']} touches the Lure {contact['id']}", [f] if (f := face(action, "face")) else None)
    value = int(record.total or 0)
    down_contacts(state, [contact])
    if value <= 3:
        spawned = [add_contact(state, f"near {fig['name']}") for _ in range(value)]
        text = f"The Lure was bait ({value}): {', '.join(c['id'] for c in spawned)} placed."
    else:
        state["salvage"]["units"] += value
        text = f"The Lure pays ({value}): {value} Salvage units."
    return [Event("contact", text, {"contact": contact["id"], **rolls(record)})]


def _hostiles(
    state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]
) -> tuple[str, list[RollRecord | None]]:
    """Hostiles! (p.139): the enemy type is rolled once a mission; the Encounter Number counts every
    Hostiles! result and sets the force placed in Cover within 1" of the marker (p.140)."""
    hostiles = state["hostiles"]
    records: list[RollRecord | None] = []
    texts = []
    if hostiles["type"] is None:
        rolled = roll_table(tables, "salvage-hostiles", dice, face(action, "hostile_face", 100), "Hostiles!: who they are")
        data = rolled.entry.data
        hostiles["type"] = {
            "name": rolled.entry.result,
            "enemy_table": str(data["enemy_table"]),
            "core_page": int(data["core_page"]),
            "effect": rolled.entry.effect,
            "grabs_salvage": bool(data.get("grabs_salvage")),
        }
        records.append(rolled.record)
        texts.append(
            f"D100 {rolled.value}: {rolled.entry.result}. Roll their type on the {data['enemy_table']} table "
            f"(core rulebook p.{data['core_page']}); no Unique Individuals. {rolled.entry.effect}"
        )
        if int(data.get("tension") or 0):
            texts.append(change_tension(state, int(data["tension"])))
    hostiles["encounters"] += 1
    number = hostiles["encounters"]
    force = row(tables, "salvage-encounter-forces", ENCOUNTER_ROWS[min(number, 4) - 1]).data
    counts = {"basic": int(force["basic"]), "specialist": int(force["specialists"]), "lieutenant": int(force["lieutenants"])}
    added = add_enemies(state, "Hostile", counts, side="hostile", note=f"Encounter {number} ({hostiles['type']['name']})")
    texts.append(
        f'Encounter {number}: {", ".join(e["name"] for e in added)} placed in Cover within 1" of the marker; '
        "they cannot act this round."
    )
    return " ".join(texts), records


def scanner_check(state: dict[str, Any], action: Action, dice: Dice, tables: Mapping[str, RangeTable]) -> list[Event]:
    """The Scanner Check (p.140), after every enemy has acted in the Enemy Actions phase: each Contact
    marker on the table since before this round rolls two D6 (``faces``: Aggression then Chance,
    per marker). Aggression higher: it moves that many inches toward the nearest crew figure;
    Chance higher: that many inches in a random direction; equal: it stays. Once a round."""
    require_owner(action)
    if state["round_kind"] != "battle":
        raise err("The Scanner Check is made in the Enemy Actions phase of a battle round; this is an Exploration Round.", "type")
    if state["scanner_done"]:
        raise err("The Scanner Check is made once a round.", "type")
    moving = [c for c in state["contacts"] if c["placed_round"] < state["round"]]
    typed = payload_ints(action, "faces")
    state["scanner_done"] = True
    texts, records = [], []
    for contact in moving:
        record = roll(dice, "2D6", f"Scanner Check {contact['id']}: Aggression, Chance", take(typed, 2))
        aggression, chance = record.faces
        if aggression > chance:
            contact["move"] = f'{aggression}" toward the nearest crew figure'
        elif chance > aggression:
            contact["move"] = f'{chance}" in a random direction'
        else:
            contact["move"] = "stays put"
        texts.append(f"{contact['id']}: Aggression {aggression}, Chance {chance}: {contact['move']}.")
        records.append(record)
    if not moving:
        texts.append("No Contact marker stood on the table when the round began: none moves.")
    texts.append("A marker detected as it moves is revealed at once, and the enemy takes no actions this round.")
    return [Event("scanner", "Scanner Check: " + " ".join(texts), rolls(*records))]
