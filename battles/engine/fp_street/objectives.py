"""The Street Fight objectives (pp.126-128): the Individual, the Package, and getting off the table.

Pure Python: no Django imports.
"""

from __future__ import annotations

from typing import Any

from battles.engine.fp_street import common as c
from battles.engine.fp_street.flow import Tables
from battles.engine.fp_tracker.base import _err, _rolls
from live.engine.tracker import Action, Event, require_owner
from rules.engine.dice import Dice

INDIVIDUAL_STATUSES: tuple[str, ...] = ("wandering", "panicked", "casualty")
CORRAL_TARGET = 5
THREAT_TARGET = 6


def _objective(state: dict[str, Any], *keys: str, what: str) -> dict[str, Any]:
    objective = state["objective"]
    if objective["key"] not in keys:
        raise _err(f"{what} is not part of this mission's objective ({objective['name']}).", "type")
    if objective["failed"]:
        raise _err(f"The objective has failed: {objective['why']}", "type")
    c.phase(state, *c.ROUND_PHASES, what=what)
    return objective


def _individual(state: dict[str, Any]) -> dict[str, Any]:
    person = state["individual"]
    if person is None or person["status"] in ("hidden", "removed", "off_table", "casualty"):
        raise _err("The Individual is not on the table.", "type")
    return person


def _fail(state: dict[str, Any], why: str) -> None:
    state["objective"]["failed"] = True
    state["objective"]["why"] = why


def contact(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Contact individual (p.127): a crew figure within 1" delivers the message; the Individual
    leaves and that figure must live through the mission."""
    fig = c.crew(state, action)
    objective = _objective(state, "contact", what="Delivering the message")
    _individual(state)["status"] = "removed"
    objective["done"], objective["deliverer"] = True, fig["id"]
    return [Event("objective", f"{fig['name']} delivers the message; the Individual leaves. {fig['name']} must survive.", {})]


def locate(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Locate individual (p.127): within 4" and Line of Sight of an Individual marker, remove it
    and roll a D6 (``face``): at or under the markers removed so far, the Individual is found there."""
    fig = c.crew(state, action)
    objective = _objective(state, "locate", what="Checking an Individual marker")
    person = state["individual"]
    if person["status"] != "hidden" or objective["markers_left"] <= 0:
        raise _err("The Individual is already found.", "type")
    objective["markers_left"] -= 1
    objective["markers_removed"] += 1
    record = c.roll(dice, "1D6", f"Individual marker {objective['markers_removed']} ({fig['name']})", action, "face")
    if (record.total or 0) <= objective["markers_removed"]:
        person["status"] = "wandering"
        text = f"{fig['name']} finds the Individual at the marker ({record.total}): now get them off a table edge alive."
    else:
        text = f"{fig['name']} checks a marker: nobody ({record.total}); {objective['markers_left']} left."
    return [Event("objective", text, _rolls(record))]


def surveil(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Surveil individual (p.127): this round ends with ``figure`` in Line of Sight 4-9" from the
    Individual; counted in the End phase, 3 rounds are needed. Not while the Individual panics."""
    fig = c.crew(state, action)
    objective = _objective(state, "surveil", what="Surveillance")
    person = _individual(state)
    if person["status"] == "panicked":
        raise _err("The Individual is panicked: surveillance resumes once they wander again.", "type")
    if objective["done"]:
        raise _err("Surveillance is complete: make your escape.", "type")
    objective["surveil_round"] = state["round"]
    return [Event("objective", f"{fig['name']} keeps the Individual under watch this round.", {})]


def individual(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Set the Individual's ``status``: ``panicked`` (shots within 6", or crew within 3" while
    surveilled, p.126), ``wandering`` again, or ``casualty`` (fails Locate and Rescue)."""
    require_owner(action)
    person = _individual(state)
    status = str(action.payload.get("status") or "")
    if status not in INDIVIDUAL_STATUSES:
        raise _err(f"status must be one of {', '.join(INDIVIDUAL_STATUSES)}; got {status!r}.", "status")
    person["status"] = status
    if status == "casualty" and state["objective"]["key"] in ("locate", "rescue", "contact", "surveil"):
        _fail(state, "the Individual became a casualty.")
    return [Event("individual", f"The Individual is {status}.", {})]


def corral(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Corral the Individual from within 3" in Line of Sight (p.126): 1D6 + Savvy, 5+. For Rescue
    (p.127) the first success means contact: the ``suspect`` named (the nearest) starts to Pursue."""
    fig = c.crew(state, action)
    c.phase(state, *c.ROUND_PHASES, what="Corralling the Individual")
    person = _individual(state)
    record = c.savvy_test(dice, fig, action, f"Corral the Individual: {CORRAL_TARGET}+")
    if (record.total or 0) < CORRAL_TARGET:
        return [Event("corral", f"{fig['name']} fails to corral the Individual ({record.total}).", _rolls(record))]
    person["status"] = "wandering"
    text = f"{fig['name']} corrals the Individual ({record.total}): move them where you like in sight."
    objective = state["objective"]
    if objective["key"] == "rescue" and not objective["corralled"]:
        objective["corralled"] = True
        text = f'{fig["name"]} reaches the Individual ({record.total}): move them 1 figure-move a round from within 1"; get them off an edge.'
        if action.payload.get("suspect"):
            marker = c.suspect(state, action.payload.get("suspect"))
            marker["pursuing"] = True
            text += f" {marker['id']} now Pursues; enemies may Brawl the Individual."
    return [Event("corral", text, _rolls(record))]


def confront(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Confront individual (p.127) from within 2": D6 on the Confront table (``face``). Terrified:
    they flee; win a Brawl without weapon bonuses (``objective_done``). A fight: they are a Street
    Combatant (``combatant_face``, D100) to be made a casualty. Threatened: ``threaten`` until it works."""
    fig = c.crew(state, action)
    objective = _objective(state, "confront", what="Confronting the Individual")
    if objective["confront"] is not None:
        raise _err(f"The Individual is already confronted ({objective['confront']}).", "type")
    person = _individual(state)
    got = c.table_roll(dice, tables, c.CONFRONT, f"Confront the Individual ({fig['name']})", action.payload.get("face"))
    records = [got.record]
    objective["confront"] = got.entry.result
    text = f"{fig['name']} confronts the Individual: {got.entry.result}. {got.entry.effect}"
    if got.entry.result == "Make a fight of it":
        row = c.table_roll(
            dice,
            tables,
            c.COMBATANTS,
            "Confront: who they really are",
            action.payload.get("combatant_face"),
            key="combatant_face",
        )
        records.append(row.record)
        person["status"] = "removed"
        foe = c.add_enemy(
            state,
            c.profile_of(row.entry.data),
            name=row.entry.result,
            where="where the Individual was",
            combatant=True,
            individual=True,
            revealed_by=fig["id"],
        )
        text += f" They were a {row.entry.result} in disguise ({foe['id']}): make them a casualty."
    elif got.entry.result == "Terrified":
        person["status"] = "panicked"
    return [Event("objective", text, _rolls(*records))]


def threaten(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """Threaten the confronted Individual from within 2" (p.127): 1D6 + Savvy, 6+ completes it."""
    fig = c.crew(state, action)
    objective = _objective(state, "confront", what="Threatening the Individual")
    if objective["confront"] != "Must be threatened" or objective["done"]:
        raise _err("Threatening needs a confronted Individual who must be threatened.", "type")
    record = c.savvy_test(dice, fig, action, f"Threaten the Individual: {THREAT_TARGET}+")
    if (record.total or 0) < THREAT_TARGET:
        return [
            Event("objective", f"{fig['name']} fails to scare the Individual ({record.total}); they wander on.", _rolls(record))
        ]
    objective["done"] = True
    state["individual"]["status"] = "removed"
    return [Event("objective", f"{fig['name']} threatens the Individual into giving up ({record.total}): done.", _rolls(record))]


def objective_done(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """The owner marks the Confront objective done when the crew win the Brawl against a
    Terrified Individual (p.127; Brawls are fought at the table)."""
    require_owner(action)
    objective = _objective(state, "confront", what="Winning the Brawl against the Individual")
    if objective["confront"] != "Terrified" or objective["done"]:
        raise _err("Only a Terrified Individual surrenders to a won Brawl.", "type")
    objective["done"] = True
    state["individual"]["status"] = "removed"
    return [Event("objective", "The Individual loses the Brawl and surrenders: done.", {})]


def individual_off(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """The Individual leaves by a table edge with the crew (Locate and Rescue, p.127): done."""
    require_owner(action)
    objective = _objective(state, "locate", "rescue", what="Getting the Individual away")
    person = _individual(state)
    if objective["key"] == "rescue" and not objective["corralled"]:
        raise _err("Reach and corral the Individual first.", "type")
    person["status"] = "off_table"
    objective["done"] = True
    return [Event("objective", "The Individual is off the table and safe.", {})]


def package(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """The Package (pp.126-128), 1" of move each: ``do`` is ``pick_up`` (by ``figure``), ``hand_off``
    (to crew figure ``to``) or ``place`` (Deliver: at the center with no enemy or Suspect within 5")."""
    fig = c.crew(state, action)
    objective = _objective(state, "deliver", "retrieve", what="Handling the Package")
    pack = state["package"]
    do = str(action.payload.get("do") or "")
    if do == "pick_up":
        if pack["status"] == "carried" and pack["carrier"] is not None:
            raise _err("Someone carries the Package already: hand it off instead.", "do")
        if pack["status"] not in ("carried", "on_table", "dropped"):
            raise _err(f"The Package is {pack['status']}.", "do")
        pack.update(status="carried", carrier=fig["id"])
        return [Event("package", f"{fig['name']} takes the Package.", {})]
    if pack["carrier"] != fig["id"]:
        raise _err(f"{fig['name']} does not carry the Package.", "figure")
    if do == "hand_off":
        other = c.crew(state, action, "to")
        pack["carrier"] = other["id"]
        return [Event("package", f"{fig['name']} hands the Package to {other['name']}.", {})]
    if do == "place":
        if objective["key"] != "deliver":
            raise _err("Retrieve package: carry it off a table edge instead.", "do")
        pack.update(status="placed", carrier=None)
        objective["done"] = True
        return [Event("package", f"{fig['name']} places the Package at the center: delivered. Now make your escape.", {})]
    raise _err(f"do must be pick_up, hand_off or place; got {do!r}.", "do")


def drop_package(state: dict[str, Any], fig: dict[str, Any], action: Action, dice: Dice) -> list[Event]:
    """A Package carrier goes Down (p.126): it drops at their feet; a D6 of 1 (``drop_face``)
    destroys it and the mission fails."""
    pack = state["package"]
    if pack is None or pack["carrier"] != fig["id"]:
        return []
    pack.update(status="dropped", carrier=None)
    record = c.roll(dice, "1D6", f"Package dropped by {fig['name']}: 1 destroys it", action, "drop_face")
    if record.total == 1:
        pack["status"] = "destroyed"
        _fail(state, "the Package was destroyed.")
        return [Event("package", f"{fig['name']} drops the Package and it breaks: the mission fails.", _rolls(record))]
    return [Event("package", f"{fig['name']} drops the Package at their feet ({record.total}).", _rolls(record))]


def escape(state: dict[str, Any], action: Action, dice: Dice, tables: Tables) -> list[Event]:
    """A crew figure leaves by any table edge (or a building that runs off it, p.136). Carrying
    the Package out completes Retrieve package (p.128)."""
    fig = c.crew(state, action)
    c.phase(state, *c.ROUND_PHASES, what="Escaping")
    fig["status"] = "escaped"
    text = f"{fig['name']} gets off the table."
    pack = state["package"]
    if pack is not None and pack["carrier"] == fig["id"]:
        pack.update(status="off_table", carrier=None)
        if state["objective"]["key"] == "retrieve" and not state["objective"]["failed"]:
            state["objective"]["done"] = True
            text += " The Package is retrieved."
    return [Event("escape", text, {"figure": fig["id"]})]
