"""Undo, export and import of a Bug Hunt squad.

Every squad write made through :mod:`bughunt.services` keeps the squad as it was before it on its
first log line (``bughunt.documents.remember`` / ``keep``): :func:`squad_undo` puts that back in
one step, whatever the change was (a Special Assignment, a mission set-up step, a post-battle
step, an edit), strikes the change's log lines through and logs the undo.

Exports and imports run as background jobs with progress, on the runner Five Parsecs campaigns
use (``rules.jobs.Transfers``); the document is ``bughunt.documents.squad_document``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from bughunt import documents, squad_room
from bughunt.models import LogEntry, Squad, SquadJob
from bughunt.permissions import squad_for
from bughunt.services import _bump, _locked_squad, _log
from rules import jobs
from rules.errors import DropshipError

# -- undo -------------------------------------------------------------------------------------------


def last_change(squad: Squad) -> LogEntry | None:
    """The log line of the change :func:`squad_undo` would take back, or ``None`` when there
    is none or a member change came after it (those are changed back on the members screen)."""
    last = squad.log.filter(undone=False, before__isnull=False).order_by("-id").first()
    if last is None or squad.log.filter(id__gt=last.pk, undone=False, step__startswith=documents.KEPT_STEP).exists():
        return None
    return last


@transaction.atomic
def squad_undo(*, user: Any, squad_id: int, version: int | None) -> str:
    """Take back the squad's last change (an editor at least, against ``version``): the squad,
    its troopers and open missions go back to how they were before it, and its log lines are
    struck through. Returns what was undone, in words.

    Raises :class:`DropshipError` (field ``log``) when nothing is left to undo, or when a change
    of members or of who commands a marine came after it (those are changed back on the members
    screen); :class:`StaleVersion` (409) for an old ``version``."""
    squad = _locked_squad(user, squad_id, version)
    last = squad.log.filter(undone=False, before__isnull=False).order_by("-id").first()
    if last is None:
        raise DropshipError("Nothing to undo.", field="log")
    later = squad.log.filter(id__gt=last.pk, undone=False, step__startswith=documents.KEPT_STEP).order_by("id").first()
    if later is not None:
        raise DropshipError(
            f"The last change ({later.text[:80]}) is changed back on the members screen, not undone.", field="log"
        )
    documents.restore(squad, last.before or {})
    squad.log.filter(id__gte=last.pk).exclude(step__startswith=documents.TABLE_STEP).update(undone=True)
    _log(squad, "undo", f"Undid: {last.text[:120]}", data={"undid": last.pk})
    _bump(squad)
    return last.text


# -- export and import --------------------------------------------------------------------------

#: The largest squad import, in bytes of JSON (a file, pasted text or an API body).
MAX_IMPORT_BYTES = 2_000_000


def squad_export(*, user: Any, squad_id: int) -> dict[str, Any]:
    """The whole squad as a document (any member may export)."""
    squad, _ = squad_for(user, squad_id)
    return documents.squad_document(squad)


@transaction.atomic
def squad_import(*, user: Any, doc: Any, progress: Callable[[int], None] | None = None) -> Squad:
    """A new squad of ``user``'s from an export: exporting it gives the same document. Nothing
    in the document is taken for a row id. Raises :class:`DropshipError` naming the first bad
    field (its path in the document) and writes nothing for a malformed document."""
    from live.services import room_create

    documents.check(doc)
    name = str(doc["squad"]["name"])[:80]
    room = room_create(user=user, kind=squad_room.KIND, title=name[:120], options={"name": name}, unlisted=True)
    squad = Squad(owner=user, room=room, name=name)
    squad.save()
    documents.build(squad, doc, progress)
    room.state = room.initial_state = {**squad_room.initial_state({"squad": squad.pk, "name": squad.name}), "turn": squad.turn}
    room.save(update_fields=["state", "initial_state"])
    return squad


#: Squad export and import jobs, on the runner Five Parsecs campaigns use too.
JOBS = jobs.Transfers(
    model=SquadJob,
    label="squad",
    app="bughunt",
    target="squad",
    task="bughunt.tasks.squad_job_run",
    export=lambda user, squad_id: squad_export(user=user, squad_id=squad_id),
    export_words=lambda doc: (
        f"Exported {len(doc['troopers'])} troopers, {len(doc['missions'])} missions, {len(doc['log'])} log lines."
    ),
    import_=lambda user, doc, progress: squad_import(user=user, doc=doc, progress=progress),
    check=documents.check,
    max_bytes=MAX_IMPORT_BYTES,
)


def job_for(user: Any, job_id: int) -> SquadJob | None:
    """``user``'s job ``job_id`` (after ending it if its worker was lost), or ``None``."""
    JOBS.sweep(user=user, job_id=job_id)
    return SquadJob.objects.select_related("squad").filter(pk=job_id, owner_id=user.pk).first()
