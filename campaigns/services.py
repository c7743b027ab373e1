"""Writes for Five Parsecs campaigns. One transaction each; every write takes the campaign
``version`` it was made against and refuses a stale one; every roll and change lands in the
campaign log; every device on the campaign's channel hears about it after commit.

Crew and ship writes are in :mod:`campaigns.crew_services`; the guided turn in
:mod:`campaigns.turn_services`. This module holds the campaign itself, its table slots,
members, money and contacts, and the helpers they share.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from django.db import transaction

from campaigns import documents
from campaigns.engine import difficulty, wording
from campaigns.engine import ship as ship_engine
from campaigns.engine import world as world_engine
from campaigns.engine.options import CampaignOptions, parse_options
from campaigns.engine.slots import SLOT_KEYS, slot
from campaigns.engine.view import Change
from campaigns.models import Campaign, CampaignJob, LogEntry, Patron, Rival, Ship, TableSlot, World
from campaigns.permissions import EDITOR, ROLE_NAMES, campaign_for
from campaigns.selectors import fiveparsecs_tables
from campaigns.tracker_kind import KIND
from live.engine.tracker import Role
from live.events import announce_room
from live.models import Membership
from live.services import app_member_invite, app_member_remove, room_create
from rules import jobs, writes
from rules.engine import names
from rules.engine.dice import Dice, RollRecord
from rules.errors import DropshipError, rule_errors
from rules.models import RuleTable
from rules.selectors import visible_tables

# -- shared helpers ------------------------------------------------------------------------


def engine_call[T](call: Callable[[], T], *, dice_field: str = "faces") -> T:
    """Run an engine call; its refusals become :class:`DropshipError` naming the same field
    (impossible dice or table values name ``dice_field``)."""
    with rule_errors(dice_field=dice_field):
        return call()


def options_of(campaign: Campaign) -> CampaignOptions:
    return parse_options(campaign.options)


def load(user: Any, campaign_id: int, version: int | None, *, at_least: Role = EDITOR) -> Campaign:
    """The campaign locked for writing by ``user`` (an editor at least), checked against
    ``version``. Raises :class:`NotFound`, :class:`NotAllowed` or :class:`StaleVersion` (409,
    with the current version)."""
    campaign, _ = campaign_for(user, campaign_id, at_least=at_least, lock=True)
    writes.check_version(campaign, version, message="Someone else changed this campaign; reload to see the latest.")
    return campaign


def load_edit(user: Any, campaign_id: int, version: int | None, *, at_least: Role = EDITOR) -> tuple[Campaign, dict[str, Any]]:
    """:func:`load` for an edit that :func:`change_undo` can take back (crew, ship, money,
    contacts, options): the campaign and its snapshot from before the edit
    (:func:`campaigns.documents.snapshot`), which the edit's log line keeps (``log(..., before=)``)."""
    campaign = load(user, campaign_id, version, at_least=at_least)
    return campaign, documents.snapshot(campaign)


#: Log kinds whose edits the campaign can take back (crew, ship, money, contacts, options).
UNDOABLE_KINDS = frozenset({"crew", "ship", "setup"})


def log(
    campaign: Campaign,
    kind: str,
    text: str,
    *,
    rolls: Iterable[RollRecord | Mapping[str, Any]] = (),
    changes: Iterable[Change] = (),
    step: str = "",
    before: Mapping[str, Any] | None = None,
) -> LogEntry:
    """Add a line to the campaign log with its roll records and changes.

    ``before`` is the campaign's snapshot from before the edit (:func:`load_edit`): the edit's
    line of a kind in :data:`UNDOABLE_KINDS` keeps it, so :func:`change_undo` can take the edit
    back."""
    before = dict(before) if before is not None and kind in UNDOABLE_KINDS else None
    return LogEntry.objects.create(
        campaign=campaign,
        turn=campaign.turn,
        kind=kind,
        step=step,
        text=text,
        rolls=[r.as_dict() if isinstance(r, RollRecord) else dict(r) for r in rolls],
        changes=[c.as_dict() for c in changes],
        before=before,
    )


def summary(campaign: Campaign) -> dict[str, Any]:
    """What phones at the table show: turn, the step to play, money and the crew's state."""
    from campaigns.selectors import current_turn

    turn = current_turn(campaign)
    step = turn.plan[turn.position] if turn and turn.position < len(turn.plan) else None
    return {
        "campaign": campaign.pk,
        "name": campaign.name,
        "version": campaign.version,
        "turn": campaign.turn,
        "step": step["title"] if step else "",
        "phase": step["phase"] if step else "",
        "credits": campaign.credits,
        "story_points": campaign.story_points,
        "crew": [
            {"name": c.name, "status": c.status, "sick_bay": c.sick_bay, "xp": c.xp}
            for c in campaign.characters.exclude(status__in=("dead", "gone"))
        ],
    }


def touch(campaign: Campaign) -> None:
    """Count a change: bump the version, refresh the room's summary and tell every device."""
    writes.bump(campaign)
    room = campaign.room
    room.state = summary(campaign)
    writes.bump(room, fields=["state"])
    announce_room(room.pk, room.version)


def current_world(campaign: Campaign) -> World | None:
    return campaign.worlds.filter(current=True).first()


def _hull_after(campaign: Campaign, ship: Ship, damage: int) -> int:
    """The ship's Hull Points after ``damage`` points (a negative one repairs), by the engine's
    rules: never below 0 (:func:`ship_engine.hull_damage`), never above ``max_hull``
    (:func:`ship_engine.hull_repair`; what the repair costs was settled by the step that made
    the change)."""
    current = engine_call(lambda: ship_engine.Ship(name=ship.name, hull=ship.hull, max_hull=ship.max_hull))
    if damage >= 0:
        return engine_call(lambda: ship_engine.hull_damage(current, damage)).hull
    repaired, _paid = engine_call(lambda: ship_engine.hull_repair(current, -damage, options_of(campaign), free_used=True))
    return repaired.hull


def apply_changes(campaign: Campaign, changes: Sequence[Change]) -> list[str]:
    """Carry out engine changes (see ``campaigns.engine.view``); returns them in words.

    Raises :class:`DropshipError` for a change the campaign cannot take (an unknown crew id).
    """
    words: list[str] = []
    for change in changes:
        data = change.data
        if change.kind == "credits":
            campaign.credits += int(data["amount"])
            words.append(f"{int(data['amount']):+d} credits")
        elif change.kind == "story_points":
            campaign.story_points += int(data["amount"])
            words.append(f"{int(data['amount']):+d} Story Points")
        elif change.kind == "rival_add":
            Rival.objects.create(
                campaign=campaign,
                name=str(data["name"])[:80],
                kind=str(data.get("kind", ""))[:80],
                elite=bool(data.get("elite")),
                psi_hunter=bool(data.get("psi_hunter")),
                collector=bool(data.get("collector")),
                notes=str(data.get("notes", "")),
            )
            words.append(f"new Rival: {data['name']}")
        elif change.kind == "rival_remove":
            gone = campaign.rivals.filter(name=data["name"]).first()
            if gone is not None:
                gone.delete()
            words.append(f"Rival gone: {data['name']}")
        elif change.kind == "patron_add":
            Patron.objects.create(campaign=campaign, name=str(data["name"])[:80], notes=str(data.get("notes", "")))
            words.append(f"new Patron: {data['name']}")
        elif change.kind == "patron_remove":
            campaign.patrons.filter(name=data["name"]).delete()
            words.append(f"Patron gone: {data['name']}")
        elif change.kind == "rumor_add":
            campaign.rumors = [*campaign.rumors, str(data.get("text") or "Quest Rumor")]
            words.append("+1 Quest Rumor")
        elif change.kind == "rumor_remove":
            count = int(data.get("count", 1))
            campaign.rumors = campaign.rumors[count:]
            words.append(f"-{count} Quest Rumor(s)")
        elif change.kind == "world":
            world = current_world(campaign)
            if world is None or ("name" in data and data["name"] and data["name"] != world.name and world.name):
                campaign.worlds.filter(current=True).update(current=False)
                world = World(campaign=campaign, name="", arrived_turn=campaign.turn)
            for key in ("name", "traits", "psionic_legality", "instability", "invaded", "unstable"):
                if key in data:
                    setattr(world, key, list(data[key]) if key == "traits" else data[key])
            if data.get("strife"):
                world.strife = {**world.strife, "last": data["strife"]}
            world.save()
            said = wording.pairs_words({k: v for k, v in data.items() if v not in ("", [], None, False, 0)})
            words.append(f"world: {said}" if said else "")
        elif change.kind == "character":
            member = campaign.characters.filter(pk=int(data["id"])).first()
            if member is None:
                raise DropshipError(f"No crew member {data['id']} in this campaign.", field="character")
            if "xp" in data:
                member.xp += int(data["xp"])
            for key in ("status", "sick_bay"):
                if key in data:
                    setattr(member, key, data[key])
            if data.get("injury"):
                member.sheet = {**member.sheet, "injuries": [*member.sheet.get("injuries", []), str(data["injury"])]}
            member.save()
            words.append(f"{member.name}: " + wording.pairs_words(data, skip=("id",)))
        elif change.kind == "ship":
            ship = Ship.objects.filter(campaign=campaign).first()
            if ship is None:
                raise DropshipError("The crew has no ship.", field="ship")
            if "hull_damage" in data:
                ship.hull = _hull_after(campaign, ship, int(data["hull_damage"]))
            if data.get("component_add"):
                ship.components = [*ship.components, {"name": data["component_add"], "miniaturized": False}]
            if data.get("lost"):  # seized for good (p.155)
                ship.delete()
                words.append(f"ship lost: {ship.name}")
                continue
            ship.save()
            words.append("ship: " + wording.pairs_words(data))
        elif change.kind == "loan":
            campaign.loan = {**campaign.loan, "balance": int(campaign.loan.get("balance", 0)) + int(data.get("balance", 0))}
            Ship.objects.filter(campaign=campaign).update(debt=campaign.loan["balance"])
            if data.get("note"):
                campaign.loan["notes"] = [*campaign.loan.get("notes", []), str(data["note"])]
            campaign.loan = world_engine.loan_state_apply(campaign.loan, data)  # collectors, warrants, seizure (p.155)
            words.append("loan: " + (str(data["note"]) if data.get("note") else wording.pairs_words(data)))
        elif change.kind == "faction_add":
            keep = ("name", "type", "influence", "power", "loyalty")
            factions = [f for f in campaign.factions if f.get("name") != data["name"]]
            campaign.factions = [*factions, {k: data.get(k, 0 if k not in ("name", "type") else "") for k in keep}]
            words.append(f"Faction {data['name']} ({data.get('type', '')})")
        elif change.kind == "faction":
            updated = []
            for faction in campaign.factions:
                if faction.get("name") == data["name"]:
                    faction = dict(faction)
                    for key in ("influence", "power", "loyalty"):
                        if key in data:
                            faction[key] = int(faction.get(key, 0)) + int(data[key])
                    for key in ("no_job_turn", "no_activity_turn", "attacked_turn"):
                        if key in data:
                            faction[key] = int(data[key])
                updated.append(faction)
            campaign.factions = updated
            words.append(f"Faction {data['name']}: " + wording.pairs_words(data, skip=("name",)))
        elif change.kind == "quest":
            campaign.quest_step = dict(data.get("state") or {})
            if data.get("end"):
                words.append(f"Quest complete: {campaign.quest}" if campaign.quest else "Quest complete")
                campaign.quest, campaign.rumors = "", []
        elif change.kind == "faction_remove":
            campaign.factions = [f for f in campaign.factions if f.get("name") != data["name"]]
            words.append(f"Faction {data['name']} no longer tracked")
        else:
            words.append(str(data.get("text", "")))
    return [w for w in words if w]


# -- the campaign ----------------------------------------------------------------------------


def _options(data: Mapping[str, Any]) -> CampaignOptions:
    with rule_errors():
        return parse_options(data)


@transaction.atomic
def campaign_create(
    *, user: Any, name: str, options: Mapping[str, Any], crew_name: str = "", ship_name: str = "", dice: Dice | None = None
) -> Campaign:
    """A new campaign following the set-up sequence (p.8).

    ``options`` holds the set-up choices (see ``campaigns.engine.options``). The crew gets a
    ship unless the No ship toggle is on (p.34); with Loans (p.152) the loan's origin,
    interest and aggressiveness are rolled now and logged. Raises :class:`DropshipError`
    naming a bad option or a blank name.
    """
    name = name.strip()
    if not name:
        raise DropshipError("name is required: what is this campaign called?", field="name")
    chosen = _options(options)
    room = room_create(user=user, kind=KIND, title=name[:120], options={"name": name}, unlisted=True)
    campaign = Campaign.objects.create(
        owner=user, name=name[:80], crew_name=crew_name.strip()[:80], options=chosen.as_dict(), room=room
    )
    if difficulty.starts_with_ship(chosen):
        Ship.objects.create(campaign=campaign, name=(ship_name.strip() or f"{campaign.name}'s ship")[:80])
    picked = [k for k, v in chosen.as_dict().items() if v not in (False, "", [], "off", "never")]
    log(campaign, "setup", "Campaign set up with: " + ", ".join(wording.option_words(k, chosen.as_dict()[k]) for k in picked))
    if chosen.loans:
        dice = dice or Dice()
        terms = world_engine.loan_setup(fiveparsecs_tables(), dice)
        campaign.loan = terms.as_dict()
        campaign.loan["balance"] = terms.amount or 0
        said = f"{terms.origin}, {terms.interest} interest, {terms.aggressiveness}"
        log(campaign, "setup", f"Loan (p.152): {said}; type the amount owed on the ship page (core p.31).", rolls=terms.rolls)
    touch(campaign)
    return campaign


@transaction.atomic
def campaign_update(
    *, user: Any, campaign_id: int, version: int | None, name: str | None = None, options: Mapping[str, Any] | None = None
) -> Campaign:
    """Rename the campaign or change its options (the Compendium lets you swap options at any
    time, p.7). Owner only. Every changed option is logged."""
    campaign, before_edit = load_edit(user, campaign_id, version, at_least=Role.OWNER)
    if name is not None and name.strip():
        campaign.name = name.strip()[:80]
    if options is not None:
        before = campaign.options
        after = _options(options).as_dict()
        changed = [k for k in after if before.get(k) != after[k]]
        campaign.options = after
        if changed:
            log(
                campaign,
                "setup",
                "Options changed: " + "; ".join(wording.option_change_words(k, before.get(k), after[k]) for k in changed),
                before=before_edit,
            )
    touch(campaign)
    return campaign


@transaction.atomic
def campaign_delete(*, user: Any, campaign_id: int) -> None:
    """Delete the campaign and its room (owner only)."""
    campaign, _ = campaign_for(user, campaign_id, at_least=Role.OWNER, lock=True)
    room = campaign.room
    campaign.delete()
    room.delete()


# -- table slots -----------------------------------------------------------------------------


def _usable_table(user: Any, slug: str) -> RuleTable:
    table = visible_tables(user=user, slugs=[slug]).get(slug)
    if table is None:
        raise DropshipError(f"No table {slug!r} of yours or of the rule books.", field="table")
    return table


@transaction.atomic
def slot_set(*, user: Any, campaign_id: int, version: int | None, slot_key: str, table_slug: str) -> Campaign:
    """Map ``slot_key`` to a table (a user's own or a shipped one); an empty slug clears it.

    The slot's table is then shared with the campaign's members through the campaign. Raises
    :class:`DropshipError` naming the slots, a table that is not the user's, a die the slot
    cannot use or data keys the slot's rule needs.
    """
    campaign = load(user, campaign_id, version, at_least=Role.OWNER)
    if slot_key not in SLOT_KEYS:
        raise DropshipError(f"slot must be one of {', '.join(SLOT_KEYS)}; got {slot_key!r}.", field="slot")
    wanted = slot(slot_key)
    if not table_slug:
        TableSlot.objects.filter(campaign=campaign, slot=slot_key).delete()
        log(campaign, "table", f"{wanted.title}: no table (results by hand)")
    else:
        table = _usable_table(user, table_slug)
        if wanted.reference != (not table.die):
            need = "a reference table (no die)" if wanted.reference else "a table with a die"
            raise DropshipError(f"{wanted.title} needs {need}; {table.title} is not.", field="table")
        missing = [k for k in wanted.data_keys if k not in (table.data_keys or [])]
        if missing:
            raise DropshipError(f"{wanted.title} rows need the data keys {', '.join(missing)}.", field="table")
        TableSlot.objects.update_or_create(campaign=campaign, slot=slot_key, defaults={"table": table})
        log(campaign, "table", f"{wanted.title}: {table.title}")
    touch(campaign)
    return campaign


# -- co-op members ---------------------------------------------------------------------------


@transaction.atomic
def member_invite(*, user: Any, campaign_id: int, username: str, role: str) -> Membership:
    """Invite another user as ``editor`` (plays turns, edits the crew) or ``reader`` (reads).

    Owner only; inviting a member again changes their role. Raises :class:`DropshipError`
    naming the roles or an unknown username.
    """
    campaign, _ = campaign_for(user, campaign_id, at_least=Role.OWNER, lock=True)
    membership, was = app_member_invite(room=campaign.room, username=username, role=role, what="campaign")
    name = membership.user.get_username()
    log(campaign, "member", f"{name} joins as {role}" if was is None else f"{name} is now {role} (was {was})")
    touch(campaign)
    return membership


@transaction.atomic
def member_remove(*, user: Any, campaign_id: int, member_id: int) -> None:
    """Remove a member (owner only; a member may also leave)."""
    campaign, role = campaign_for(user, campaign_id, at_least=Role.VIEWER, lock=True)
    membership = app_member_remove(room=campaign.room, member_id=member_id, user=user, role=role)
    log(campaign, "member", f"{membership.user.get_username()} leaves ({ROLE_NAMES[Role(membership.role)]})")
    touch(campaign)


# -- money and contacts ----------------------------------------------------------------------


@transaction.atomic
def campaign_adjust(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    credits: int = 0,
    story_points: int = 0,
    reason: str = "",
) -> Campaign:
    """Add or take credits and Story Points by hand, with the reason for the log. Raises
    :class:`DropshipError` when the crew cannot pay (credits or Story Points below 0)."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    if campaign.credits + credits < 0:
        raise DropshipError(f"credits: the crew has {campaign.credits}; it cannot pay {-credits}.", field="credits")
    if campaign.story_points + story_points < 0:
        raise DropshipError(f"story_points: the crew has {campaign.story_points}.", field="story_points")
    changes = [Change("credits", {"amount": credits})] if credits else []
    changes += [Change("story_points", {"amount": story_points})] if story_points else []
    if not changes:
        raise DropshipError("Change credits or Story Points by something other than 0.", field="credits")
    words = apply_changes(campaign, changes)
    log(
        campaign,
        "crew",
        f"{'; '.join(words)}{f' ({reason.strip()})' if reason.strip() else ''}",
        changes=changes,
        before=before_edit,
    )
    touch(campaign)
    return campaign


CONTACT_KINDS = ("rival", "patron", "rumor")


@transaction.atomic
def contact_add(
    *, user: Any, campaign_id: int, version: int | None, kind: str, name: str, notes: str = "", elite: bool = False
) -> Campaign:
    """Add a Rival, a Patron or a Quest Rumor by hand (results of core-rulebook rolls).

    Skulkers' and Krag's creation rules live in crew creation; this is for play. Raises
    :class:`DropshipError` naming the kinds.
    """
    campaign, before_edit = load_edit(user, campaign_id, version)
    if kind not in CONTACT_KINDS:
        raise DropshipError(f"kind must be one of {', '.join(CONTACT_KINDS)}; got {kind!r}.", field="kind")
    if not name.strip():
        raise DropshipError("name is required.", field="name")
    change = {
        "rival": Change("rival_add", {"name": name.strip(), "notes": notes, "elite": elite}),
        "patron": Change("patron_add", {"name": name.strip(), "notes": notes}),
        "rumor": Change("rumor_add", {"text": name.strip()}),
    }[kind]
    log(campaign, "crew", "; ".join(apply_changes(campaign, [change])), changes=[change], before=before_edit)
    touch(campaign)
    return campaign


#: What a rolled name can be given to, and the name generators (pp.157-160) that fit each.
NAME_USES: dict[str, tuple[str, ...]] = {
    "": ("world", "colony", "ship", "ship-naval", "corporate-patron"),
    "world": ("world", "colony"),
    "ship": ("ship", "ship-naval"),
    "patron": ("corporate-patron",),
}


@transaction.atomic
def name_roll(*, user: Any, campaign_id: int, version: int | None, recipe: str, use: str = "", dice: Dice | None = None) -> str:
    """Roll a name on the name generation tables (pp.157-160) and, with ``use``, give it: ``world``
    renames the current world (a world or colony name), ``ship`` the crew's ship, ``patron`` adds
    a Patron of that name; without ``use`` the name is only logged. Every table roll is in the log.
    Returns the name. Raises :class:`DropshipError` naming ``recipe`` or ``use`` and the allowed
    values, or when there is no ship or current world to name."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    if use not in NAME_USES:
        raise DropshipError(f"use must be one of world, ship, patron or empty; got {use!r}.", field="use")
    if recipe not in NAME_USES[use]:
        raise DropshipError(f"recipe must be one of {', '.join(NAME_USES[use])}; got {recipe!r}.", field="recipe")
    made = names.generate(names.recipe(recipe), fiveparsecs_tables(), dice or Dice())
    title = names.recipe(recipe).title
    changes: list[Change] = []
    if use == "world":
        world = current_world(campaign)
        if world is None:
            raise DropshipError("use: the crew is on no world yet; travel first.", field="use")
        text = f"{title} (pp.157-158): {world.name} is now called {made.name}."
        world.name = made.name[:80]
        world.save(update_fields=["name"])
    elif use == "ship":
        ship = Ship.objects.filter(campaign=campaign).first()
        if ship is None:
            raise DropshipError("use: the crew has no ship to name.", field="use")
        text = f"{title} (p.159): the ship is now {made.name}."
        ship.name = made.name[:80]
        ship.save(update_fields=["name"])
    elif use == "patron":
        changes = [Change("patron_add", {"name": made.name, "notes": title})]
        text = f"{title} (p.160): " + "; ".join(apply_changes(campaign, changes))
    else:
        text = f"{title} (pp.157-160): {made.name}."
    log(campaign, "ship" if use == "ship" else "crew", text, rolls=made.records, changes=changes, before=before_edit)
    touch(campaign)
    return made.name


@transaction.atomic
def contact_remove(*, user: Any, campaign_id: int, version: int | None, kind: str, contact_id: int) -> Campaign:
    """Remove a Rival or Patron (by id) or a Quest Rumor (by position, from 0)."""
    campaign, before_edit = load_edit(user, campaign_id, version)
    found: Rival | Patron | None
    if kind == "rival":
        found = campaign.rivals.filter(pk=contact_id).first()
    elif kind == "patron":
        found = campaign.patrons.filter(pk=contact_id).first()
    elif kind == "rumor":
        if not 0 <= contact_id < len(campaign.rumors):
            raise DropshipError(f"No Quest Rumor {contact_id}.", field="contact")
        text = campaign.rumors[contact_id]
        campaign.rumors = [r for i, r in enumerate(campaign.rumors) if i != contact_id]
        log(campaign, "crew", f"Quest Rumor removed: {text}", before=before_edit)
        touch(campaign)
        return campaign
    else:
        raise DropshipError(f"kind must be one of {', '.join(CONTACT_KINDS)}; got {kind!r}.", field="kind")
    if found is None:
        raise DropshipError(f"No {kind} {contact_id} in this campaign.", field="contact")
    found.delete()
    log(campaign, "crew", f"{kind.capitalize()} removed: {found.name}", before=before_edit)
    touch(campaign)
    return campaign


# -- export and import -----------------------------------------------------------------------


def _row_table(row: Any) -> str:
    if not isinstance(row, dict):
        return ""
    fields = row.get("fields", {}) if isinstance(row.get("fields"), dict) else {}
    if row.get("model") == "rules.ruletable":
        return str(fields.get("slug", ""))
    table = fields.get("table") or [""]
    return str(table[0])


def campaign_export(*, user: Any, campaign_id: int) -> dict[str, Any]:
    """The whole campaign as a document (any member may export)."""
    campaign, _ = campaign_for(user, campaign_id)
    return documents.campaign_document(campaign)


@transaction.atomic
def campaign_import(*, user: Any, doc: Any, progress: Any = None) -> Campaign:
    """A new campaign of ``user``'s from an export: an import of an export gives an identical
    campaign. User tables in the export are reused when the user already has them and made
    otherwise (slugs are per owner: another user's tables are never looked at). Raises
    :class:`DropshipError` with the reason and writes nothing for a malformed document (``field``
    ``file``, or the path inside it of a NUL character or an infinite number)."""
    from rules.payloads import check_json
    from rules.services import user_tables_import

    check_json(doc, field="file")  # NUL characters and infinities: jsonb cannot store them
    try:
        documents.check(doc)
        _options(doc["campaign"]["options"])
    except documents.DocumentError as exc:
        raise DropshipError(f"This file is not a campaign export Dropship can read: {exc}", field="file") from exc
    if not isinstance(doc["slots"], dict) or not isinstance(doc["tables"], list):
        raise DropshipError("This file is not a campaign export Dropship can read: slots or tables is malformed.", field="file")
    slugs = {str(slug) for slug in doc["slots"].values()}
    existing = visible_tables(user=user, slugs=slugs)
    new_rows = [row for row in doc["tables"] if _row_table(row) not in existing]
    if new_rows:
        user_tables_import(user=user, text=json.dumps(new_rows))
    tables = visible_tables(user=user, slugs=slugs)
    missing = sorted(slugs - set(tables))
    if missing:
        raise DropshipError(f"The export maps slots to tables it does not carry: {', '.join(missing)}.", field="file")
    name = str(doc["campaign"]["name"])
    room = room_create(user=user, kind=KIND, title=name[:120] or "Imported campaign", options={"name": name}, unlisted=True)
    campaign = Campaign(owner=user, room=room)
    if progress:
        progress(10)
    documents.build(campaign, doc, tables, progress)
    campaign.version = 1
    touch(campaign)
    return campaign


# -- export and import jobs ------------------------------------------------------------------

#: The largest campaign import, in bytes of JSON, whichever way it comes (an uploaded file,
#: pasted text, an API body). A real export of a long campaign is a few hundred kB.
MAX_IMPORT_BYTES = 2_000_000
JOB_LABEL = "campaign"


#: Campaign export and import jobs: the runner every game's jobs share (``rules.jobs.Transfers``).
JOBS = jobs.Transfers(
    model=CampaignJob,
    label=JOB_LABEL,
    app="campaigns",
    target="campaign",
    task="campaigns.tasks.campaign_job_run",
    export=lambda user, campaign_id: campaign_export(user=user, campaign_id=campaign_id),
    export_words=lambda doc: f"Exported {len(doc['characters'])} crew, {len(doc['turns'])} turns, {len(doc['log'])} log lines.",
    import_=lambda user, doc, progress: campaign_import(user=user, doc=doc, progress=progress),
    max_bytes=MAX_IMPORT_BYTES,
)


def import_size_check(size: int, *, field: str) -> None:
    """Refuse an import of ``size`` bytes over :data:`MAX_IMPORT_BYTES`. Raises
    :class:`DropshipError` naming ``field`` and the limit."""
    JOBS.size_check(size, field=field)


def job_progress(job: CampaignJob) -> int:
    """The job's progress in percent: the live value while it runs, else the stored one."""
    return JOBS.progress(job)


def job_sweep(*, user: Any = None, job_id: int | None = None) -> int:
    """End ``user``'s jobs (or the one job ``job_id``) whose worker was lost: ``failed`` with a
    message to start it again (``rules.jobs.sweep`` states the limits). Called whenever jobs are
    read or started, as there is no scheduler. Returns how many were ended."""
    return JOBS.sweep(user=user, job_id=job_id)


@transaction.atomic
def job_start(*, user: Any, kind: str, campaign: Campaign | None = None, document: Any = None) -> CampaignJob:
    """Queue an export of ``campaign`` or an import of ``document`` (``rules.jobs.Transfers.start``
    says what is refused); a Celery worker runs it after commit."""
    job: CampaignJob = JOBS.start(user=user, kind=kind, target=campaign, document=document)
    return job


def job_run(*, job_id: int) -> CampaignJob:
    """Run a queued job (``rules.jobs.Transfers.run``): the export's document or the imported
    campaign, or the reason it failed (a failed import writes nothing)."""
    job: CampaignJob = JOBS.run(job_id=job_id)
    return job
