"""A campaign as one JSON document: the export format, and the snapshot a turn step keeps so
that it can be undone.

``campaign_document`` writes it; ``restore`` puts a snapshot back in place (rows keep their ids);
``build`` makes a new campaign from an export. Every row carries ``ref`` (its id when written);
an import maps old refs to the new rows' ids wherever they appear.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

from django.db import models

from campaigns.models import Campaign, Character, LogEntry, Patron, Rival, Ship, TableSlot, Turn, TurnStep, World
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
        "campaign": {f: getattr(campaign, f) for f in CAMPAIGN_FIELDS},
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
    made since deleted, rows deleted since re-made with their old ids."""
    for f in CAMPAIGN_FIELDS:
        setattr(campaign, f, doc["campaign"][f])
    campaign.save()
    for key, model, related in ROWS:
        wanted = {item["ref"]: item for item in doc[key]}
        manager = getattr(campaign, related)
        manager.exclude(pk__in=list(wanted)).delete()
        existing = {o.pk: o for o in manager.all()}
        for ref, item in wanted.items():
            obj = existing.get(ref) or model(pk=ref, campaign=campaign)
            for f in ROW_FIELDS[model]:
                setattr(obj, f, item[f])
            obj.save()
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


def _remap(value: Any, refs: Mapping[str, Mapping[int, int]]) -> Any:
    """``value`` (a snapshot or a list of change dicts) with old refs replaced by new ids."""
    if isinstance(value, dict) and "campaign" in value and "characters" in value:
        out = dict(value)
        for key, _model, _related in ROWS:
            out[key] = [{**item, "ref": refs[key].get(item["ref"], item["ref"])} for item in value.get(key, [])]
        return out
    if isinstance(value, list):
        return [_remap(v, refs) for v in value]
    if isinstance(value, dict) and value.get("kind") == "character" and isinstance(value.get("data"), dict):
        data = dict(value["data"])
        with contextlib.suppress(TypeError, ValueError):
            data["id"] = str(refs["characters"].get(int(str(data.get("id"))), data.get("id")))
        return {**value, "data": data}
    return value


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
    for key, model, _related in ROWS:
        for index, item in enumerate(doc[key]):
            lacking = [f for f in ("ref", *ROW_FIELDS[model]) if not isinstance(item, dict) or f not in item]
            if lacking:
                raise DocumentError(f"{key}[{index}] lacks {', '.join(lacking)}.")
    if doc.get("ship") is not None:
        lacking = [f for f in SHIP_FIELDS if f not in doc["ship"]]
        if lacking:
            raise DocumentError(f"ship lacks {', '.join(lacking)}.")


def build(campaign: Campaign, doc: Mapping[str, Any], tables: Mapping[str, RuleTable], progress: Any = None) -> None:
    """Fill the new, empty ``campaign`` from an export ``doc`` (already :func:`check`-ed).

    ``tables`` maps each slot's table slug to the table to use. ``progress(percent)`` is called
    as the rows go in.
    """
    refs: dict[str, dict[int, int]] = {key: {} for key, _m, _r in ROWS}
    for f in CAMPAIGN_FIELDS:
        setattr(campaign, f, doc["campaign"][f])
    campaign.save()
    for key, model, _related in ROWS:
        for item in doc[key]:
            obj = model(campaign=campaign, **{f: item[f] for f in ROW_FIELDS[model]})
            obj.save()
            refs[key][int(item["ref"])] = obj.pk
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
            facts=item["facts"],
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
