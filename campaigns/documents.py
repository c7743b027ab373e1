"""A campaign as one JSON document: the export format, and the snapshot a turn step keeps so
that it can be undone.

``campaign_document`` writes it; ``restore`` puts a snapshot back in place (rows keep their ids);
``build`` makes a new campaign from an export. Every row carries ``ref`` (its id when written);
an import maps old refs to the new rows' ids wherever they appear.

Refs are owned: an import keeps only refs it can map to a row it made, and a restore only ever
touches rows of the campaign it restores. A ref of ``None`` in a snapshot is a row the campaign
no longer had when it was imported (a removed Rival or Patron); a restore makes it anew.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from django.db import models

from campaigns.engine import quests
from campaigns.models import Campaign, Character, LogEntry, Patron, Rival, Ship, TableSlot, Turn, TurnStep, World
from rules.errors import DropshipError
from rules.models import RuleTable

FORMAT = "dropship-campaign"
FORMAT_VERSION = 1
CAMPAIGN_FIELDS = ("name", "crew_name", "options", "turn", "credits", "story_points", "rumors", "quest", "loan", "factions")
ROW_FIELDS: dict[type[models.Model], tuple[str, ...]] = {
    Character: (
        "name",
        "species",
        "kind",
        "is_captain",
        "reactions",
        "speed",
        "combat_skill",
        "toughness",
        "savvy",
        "luck",
        "xp",
        "status",
        "sick_bay",
        "sheet",
        "notes",
        "position",
    ),
    World: ("name", "traits", "psionic_legality", "instability", "unstable", "invaded", "strife", "current", "arrived_turn"),
    Rival: ("name", "kind", "elite", "psi_hunter", "collector", "notes"),
    Patron: ("name", "notes"),
}
SHIP_FIELDS = ("name", "hull", "max_hull", "components", "debt")
ROWS: tuple[tuple[str, type[models.Model], str], ...] = (
    ("characters", Character, "characters"),
    ("worlds", World, "worlds"),
    ("rivals", Rival, "rivals"),
    ("patrons", Patron, "patrons"),
)
#: Rows the app removes in play (Rival and Patron removal): an older step's snapshot may still
#: hold one the export no longer carries. Characters and worlds are never removed, so a snapshot
#: naming one the export lacks is forged or corrupt.
REMOVABLE = frozenset({"rivals", "patrons"})


def _quest_step(data: Mapping[str, Any]) -> dict[str, Any]:
    """The Expanded Quest Progression state of a document's campaign (``{}`` in documents
    written before it was kept, or when it is not a mapping)."""
    return quests.clean_state(data.get("quest_step"))


class DocumentError(ValueError):
    """A campaign document that cannot be used; the message says where and why."""


def _row(obj: models.Model, fields: tuple[str, ...]) -> dict[str, Any]:
    return {"ref": obj.pk, **{f: getattr(obj, f) for f in fields}}


def table_rows(table: RuleTable) -> list[dict[str, Any]]:
    """A table in the fixture format (natural keys), as the JSON import takes it."""
    table_fields = ("slug", "title", "die", "book", "chapter", "source", "notes", "columns", "data_keys")
    rows: list[dict[str, Any]] = [
        {"model": "rules.ruletable", "fields": {"system": [table.system.slug], **{f: getattr(table, f) for f in table_fields}}}
    ]
    for entry in table.entries.order_by("column", "position"):
        fields = {f: getattr(entry, f) for f in ("column", "position", "low", "high", "result", "effect", "data")}
        rows.append({"model": "rules.tableentry", "fields": {"table": [table.slug], **fields}})
    return rows


def snapshot(campaign: Campaign, turn: Turn | None = None) -> dict[str, Any]:
    """The campaign's state: scalars, crew, ship, worlds, Rivals, Patrons, and ``turn``'s place."""
    ship = Ship.objects.filter(campaign=campaign).first()
    doc: dict[str, Any] = {
        "campaign": {**{f: getattr(campaign, f) for f in CAMPAIGN_FIELDS}, "quest_step": campaign.quest_step},
        "ship": {f: getattr(ship, f) for f in SHIP_FIELDS} if ship else None,
    }
    for key, model, related in ROWS:
        doc[key] = [_row(o, ROW_FIELDS[model]) for o in getattr(campaign, related).order_by("id")]
    if turn is not None:
        doc["turn_state"] = {"number": turn.number, "position": turn.position, "facts": turn.facts, "finished": turn.finished}
    return doc


def campaign_document(campaign: Campaign) -> dict[str, Any]:
    """The whole campaign for export: state, table slots (with the user tables they use, in the
    fixture format), every turn with its steps, and the log."""
    doc = {"format": FORMAT, "version": FORMAT_VERSION, **snapshot(campaign)}
    slots = TableSlot.objects.filter(campaign=campaign).select_related("table", "table__system")
    doc["slots"] = {s.slot: s.table.slug for s in slots.order_by("slot")}
    doc["tables"] = [row for s in slots.order_by("slot") if s.table.owner_id for row in table_rows(s.table)]
    log_ids = list(campaign.log.order_by("id").values_list("id", flat=True))

    def log_index(log_from: int) -> int:
        return sum(1 for i in log_ids if i < log_from)

    doc["turns"] = [
        {
            "number": t.number,
            "plan": t.plan,
            "position": t.position,
            "facts": t.facts,
            "finished": t.finished,
            "steps": [
                {
                    **{
                        f: getattr(s, f)
                        for f in ("index", "key", "title", "phase", "mode", "text", "rolls", "changes", "snapshot")
                    },
                    "log_from": log_index(s.log_from),
                }
                for s in t.steps.order_by("index", "id")
            ],
        }
        for t in campaign.turns.order_by("number")
    ]
    doc["log"] = [
        {f: getattr(e, f) for f in ("turn", "kind", "step", "text", "rolls", "changes", "undone")}
        for e in campaign.log.order_by("id")
    ]
    return doc


def restore(campaign: Campaign, doc: Mapping[str, Any], turn: Turn | None = None) -> None:
    """Put ``doc`` (a :func:`snapshot`) back: scalars, rows updated in place by ``ref``, rows
    made since deleted, rows deleted since re-made with their old ids (a ``None`` ref, with a
    new id).

    Only rows of ``campaign`` are ever changed: raises :class:`DropshipError` (field ``log``),
    before writing anything, when a ref names a row that exists outside this campaign.
    """
    plans: list[tuple[type[models.Model], Any, dict[int, Mapping[str, Any]], list[Mapping[str, Any]]]] = []
    for key, model, related in ROWS:
        items = list(doc[key])
        wanted = {int(item["ref"]): item for item in items if item["ref"] is not None}
        fresh = [item for item in items if item["ref"] is None]
        manager = getattr(campaign, related)
        mine = set(manager.filter(pk__in=list(wanted)).values_list("pk", flat=True))
        elsewhere = model._default_manager.filter(pk__in=[ref for ref in wanted if ref not in mine]).exclude(campaign=campaign)
        if elsewhere.exists():
            raise DropshipError(f"This undo names {key} that are not this campaign's; nothing was changed.", field="log")
        plans.append((model, manager, wanted, fresh))
    for f in CAMPAIGN_FIELDS:
        setattr(campaign, f, doc["campaign"][f])
    campaign.quest_step = _quest_step(doc["campaign"])
    campaign.save()
    for model, manager, wanted, fresh in plans:
        manager.exclude(pk__in=list(wanted)).delete()
        existing = {o.pk: o for o in manager.all()}
        for ref, item in wanted.items():
            obj = existing.get(ref)
            made = obj is None
            if obj is None:
                obj = model(pk=ref, campaign=campaign)
            for f in ROW_FIELDS[model]:
                setattr(obj, f, item[f])
            # A re-made row is inserted, never saved over whatever else holds its id.
            obj.save(force_insert=made)
        for item in fresh:
            model._default_manager.create(campaign=campaign, **{f: item[f] for f in ROW_FIELDS[model]})
    ship = Ship.objects.filter(campaign=campaign).first()
    if doc.get("ship") is None:
        if ship:
            ship.delete()
    else:
        ship = ship or Ship(campaign=campaign)
        for f in SHIP_FIELDS:
            setattr(ship, f, doc["ship"][f])
        ship.save()
    state = doc.get("turn_state")
    if turn is not None and state:
        turn.position, turn.facts, turn.finished = state["position"], state["facts"], state["finished"]
        turn.save(update_fields=["position", "facts", "finished"])


def _is_snapshot(value: Any) -> bool:
    return isinstance(value, dict) and "campaign" in value and "characters" in value


def _remap_facts(facts: Any, refs: Mapping[str, Mapping[int, int]]) -> Any:
    """Turn facts with the battle's casualties (crew ids) mapped to the new rows."""
    if not isinstance(facts, dict) or not isinstance(facts.get("battle"), dict):
        return facts
    battle = dict(facts["battle"])
    battle["casualties"] = [str(refs["characters"][int(c)]) for c in battle.get("casualties") or []]
    return {**facts, "battle": battle}


def _remap(value: Any, refs: Mapping[str, Mapping[int, int]]) -> Any:
    """``value`` (a :func:`check`-ed snapshot or list of change dicts) with old refs replaced by
    the new rows' ids. A snapshot's ref the export has no row for is ``None`` (see the module
    docstring); a change naming a character the export lacks (a struck-through line about a
    recruit undone since) names none."""
    if _is_snapshot(value):
        out = dict(value)
        for key, _model, _related in ROWS:
            out[key] = [{**item, "ref": refs[key].get(int(item["ref"]))} for item in value.get(key, [])]
        if isinstance(value.get("turn_state"), dict):
            out["turn_state"] = {**value["turn_state"], "facts": _remap_facts(value["turn_state"].get("facts"), refs)}
        return out
    if isinstance(value, list):
        return [_remap(v, refs) for v in value]
    if isinstance(value, dict) and value.get("kind") == "character" and isinstance(value.get("data"), dict):
        data = dict(value["data"])
        new: int | None = None
        with contextlib.suppress(TypeError, ValueError):
            new = refs["characters"].get(int(str(data.get("id"))))
        data["id"] = str(new) if new is not None else None
        return {**value, "data": data}
    return value


def _ref(item: Any, where: str) -> int:
    ref = item.get("ref") if isinstance(item, dict) else None
    if isinstance(ref, bool) or not isinstance(ref, int):
        raise DocumentError(f"{where}.ref must be a whole number (the row's id when exported); got {ref!r}.")
    return ref


def _check_rows(items: Any, model: type[models.Model], where: str) -> list[int]:
    """The refs of a list of rows, each checked for its fields and a unique whole-number ref."""
    if not isinstance(items, list):
        raise DocumentError(f"{where} must be a list of rows.")
    refs: list[int] = []
    for index, item in enumerate(items):
        lacking = [f for f in ("ref", *ROW_FIELDS[model]) if not isinstance(item, dict) or f not in item]
        if lacking:
            raise DocumentError(f"{where}[{index}] lacks {', '.join(lacking)}.")
        ref = _ref(item, f"{where}[{index}]")
        if ref in refs:
            raise DocumentError(f"{where}[{index}].ref {ref} names a row twice.")
        refs.append(ref)
    return refs


def _check_casualties(facts: Any, known: Mapping[str, set[int]], where: str) -> None:
    battle = facts.get("battle") if isinstance(facts, dict) else None
    if not isinstance(battle, dict):
        return
    casualties = battle.get("casualties") or []
    if not isinstance(casualties, list):
        raise DocumentError(f"{where}.battle.casualties must be a list of crew refs.")
    for index, ref in enumerate(casualties):
        try:
            number = int(str(ref))
        except ValueError:
            number = None
        if number not in known["characters"]:
            raise DocumentError(
                f"{where}.battle.casualties[{index}]: {ref!r} is not one of the export's characters; "
                "an import keeps only the crew it carries."
            )


def _check_snapshot(snap: Any, known: Mapping[str, set[int]], where: str) -> None:
    """A step's snapshot: the shape :func:`restore` reads, and refs the import can map."""
    if not _is_snapshot(snap):
        raise DocumentError(f"{where} must be a campaign snapshot (campaign, characters, worlds, rivals, patrons, ship).")
    if not isinstance(snap["campaign"], dict) or any(f not in snap["campaign"] for f in CAMPAIGN_FIELDS):
        raise DocumentError(f"{where}.campaign lacks one of {', '.join(CAMPAIGN_FIELDS)}.")
    for key, model, _related in ROWS:
        refs = _check_rows(snap.get(key), model, f"{where}.{key}")
        if key in REMOVABLE:
            continue
        for index, ref in enumerate(refs):
            if ref not in known[key]:
                raise DocumentError(
                    f"{where}.{key}[{index}].ref {ref} is not one of the export's {key}; "
                    f"an import keeps only the {key} it carries."
                )
    ship = snap.get("ship")
    if ship is not None and (not isinstance(ship, dict) or any(f not in ship for f in SHIP_FIELDS)):
        raise DocumentError(f"{where}.ship lacks one of {', '.join(SHIP_FIELDS)}.")
    state = snap.get("turn_state")
    if state is not None:
        if not isinstance(state, dict) or any(f not in state for f in ("position", "facts", "finished")):
            raise DocumentError(f"{where}.turn_state lacks position, facts or finished.")
        _check_casualties(state["facts"], known, f"{where}.turn_state.facts")


def check(doc: Any) -> None:
    """Refuse a document that is not a Dropship campaign export, naming what is wrong."""
    if not isinstance(doc, dict):
        raise DocumentError("A campaign export is a JSON object; this file holds something else.")
    if doc.get("format") != FORMAT:
        raise DocumentError(f"format must be {FORMAT!r}; this file says {doc.get('format')!r}.")
    if doc.get("version") != FORMAT_VERSION:
        raise DocumentError(f"version must be {FORMAT_VERSION}; this file says {doc.get('version')!r}.")
    for key in ("campaign", "characters", "worlds", "rivals", "patrons", "slots", "tables", "turns", "log"):
        if key not in doc:
            raise DocumentError(f"The export lacks {key!r}.")
    missing = [f for f in CAMPAIGN_FIELDS if f not in doc["campaign"]]
    if missing:
        raise DocumentError(f"campaign lacks {', '.join(missing)}.")
    known = {key: set(_check_rows(doc[key], model, key)) for key, model, _related in ROWS}
    if doc.get("ship") is not None:
        lacking = [f for f in SHIP_FIELDS if f not in doc["ship"]]
        if lacking:
            raise DocumentError(f"ship lacks {', '.join(lacking)}.")
    if not isinstance(doc["turns"], list):
        raise DocumentError("turns must be a list.")
    for number, turn in enumerate(doc["turns"]):
        where = f"turns[{number}]"
        if not isinstance(turn, dict) or not isinstance(turn.get("steps"), list):
            raise DocumentError(f"{where} must be a turn with its steps.")
        _check_casualties(turn.get("facts"), known, f"{where}.facts")
        for index, step in enumerate(turn["steps"]):
            if not isinstance(step, dict) or "snapshot" not in step:
                raise DocumentError(f"{where}.steps[{index}] lacks snapshot.")
            if step["snapshot"] == {} and step.get("mode") == "skipped":
                continue  # a step that skipped itself is never undone to
            _check_snapshot(step["snapshot"], known, f"{where}.steps[{index}].snapshot")


def build(campaign: Campaign, doc: Mapping[str, Any], tables: Mapping[str, RuleTable], progress: Any = None) -> None:
    """Fill the new, empty ``campaign`` from an export ``doc`` (already :func:`check`-ed).

    ``tables`` maps each slot's table slug to the table to use. ``progress(percent)`` is called
    as the rows go in.
    """
    refs: dict[str, dict[int, int]] = {key: {} for key, _m, _r in ROWS}
    for f in CAMPAIGN_FIELDS:
        setattr(campaign, f, doc["campaign"][f])
    campaign.quest_step = _quest_step(doc["campaign"])
    campaign.save()
    for key, model, _related in ROWS:
        for item in doc[key]:
            obj = model(campaign=campaign, **{f: item[f] for f in ROW_FIELDS[model]})
            obj.save()
            refs[key][item["ref"]] = obj.pk
    if progress:
        progress(40)
    if doc.get("ship") is not None:
        Ship.objects.create(campaign=campaign, **{f: doc["ship"][f] for f in SHIP_FIELDS})
    for slot_key, slug in doc["slots"].items():
        TableSlot.objects.create(campaign=campaign, slot=slot_key, table=tables[slug])
    logs = LogEntry.objects.bulk_create(
        LogEntry(
            campaign=campaign,
            **{f: e[f] for f in ("turn", "kind", "step", "text", "rolls", "undone")},
            changes=_remap(e["changes"], refs),
        )
        for e in doc["log"]
    )
    log_ids = [entry.pk for entry in logs]

    def log_from(index: int) -> int:
        if index < len(log_ids):
            return log_ids[index]
        return (log_ids[-1] + 1) if log_ids else 0

    turns = doc["turns"]
    for number, item in enumerate(turns, start=1):
        turn = Turn.objects.create(
            campaign=campaign,
            number=item["number"],
            plan=item["plan"],
            position=item["position"],
            facts=_remap_facts(item["facts"], refs),
            finished=item["finished"],
        )
        TurnStep.objects.bulk_create(
            TurnStep(
                turn=turn,
                **{f: s[f] for f in ("index", "key", "title", "phase", "mode", "text", "rolls")},
                log_from=log_from(int(s["log_from"])),
                changes=_remap(s["changes"], refs),
                snapshot=_remap(s["snapshot"], refs),
            )
            for s in item["steps"]
        )
        if progress:
            progress(40 + int(50 * number / max(len(turns), 1)))


def dumps(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=1, sort_keys=True, default=str)
