"""HTML screens for Bug Hunt: squads, the campaign log, the mission set-up wizard and the
post-battle sequence. Every view calls a service; errors come back on the page with status 400
(or 409 for a stale write), naming the field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bughunt import history_services, inputs, member_services, postbattle_services, selectors, services
from bughunt.models import Mission, Squad, SquadJob
from bughunt.permissions import EDITOR, ROLE_NAMES, squad_for
from live.engine.tracker import Role
from live.models import Membership
from rules.errors import DropshipError, NotAllowed, NotFound
from rules.forms import typed_back
from rules.inputs import validated

LOG_PAGE = 100  # log lines per page: a long campaign's log stays a quick page


def _squad_or_404(request: HttpRequest, squad_id: int) -> Squad:
    try:
        return selectors.squad_get(user=request.user, squad_id=squad_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc


def _mission_or_404(request: HttpRequest, mission_id: int) -> Mission:
    try:
        return selectors.mission_get(user=request.user, mission_id=mission_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc


@login_required
@require_GET
def squad_list(request: HttpRequest) -> HttpResponse:
    """The user's squads (``?q=`` filters by name) and the new-squad form."""
    query = request.GET.get("q", "").strip()
    return render(
        request,
        "bughunt/squad_list.html",
        {"squads": selectors.squad_list(user=request.user, search=query), "query": query, "difficulties": Squad.DIFFICULTIES},
    )


@login_required
@require_POST
def squad_create(request: HttpRequest) -> HttpResponse:
    try:
        squad = services.squad_create(user=request.user, **validated(inputs.SquadCreateInput, request.POST))
    except DropshipError as exc:
        context = {
            "squads": selectors.squad_list(user=request.user),
            "difficulties": Squad.DIFFICULTIES,
            "error": exc,
            "form": request.POST,
        }
        return render(request, "bughunt/squad_list.html", context, status=exc.status)
    return redirect("bughunt:squad", squad_id=squad.pk)


def _squad_context(request: HttpRequest, squad: Squad, **extra: Any) -> dict[str, Any]:
    from bughunt.engine import campaign

    troopers = list(squad.troopers.select_related("player"))
    active = [t for t in troopers if t.status == "active"]
    _, role = squad_for(request.user, squad.pk)
    members = selectors.members(squad)
    mission = selectors.current_mission(squad)
    tables = selectors.bughunt_tables()
    recent = list(squad.log.order_by("-id")[:8])
    return {
        "squad": squad,
        "active": active,
        "gone": [t for t in troopers if t.status != "active"],
        "mission": mission,
        "missions": squad.missions.all(),
        "assignments": postbattle_services.assignment_choices(squad, tables),
        "advances": postbattle_services.advancement_choices(squad, tables),
        "difficulties": Squad.DIFFICULTIES,
        "recent": recent,
        "movie_magic_left": len(tables["bh-movie-magic"].entries) - len(squad.movie_magic_used),
        "campaign": campaign,
        "role_name": ROLE_NAMES[role],
        "is_owner": role == Role.OWNER,
        "can_edit": role != Role.VIEWER,
        "members": members,
        "editors": [m["username"] for m in members if m["role"] == "editor"],
        **_undo_bar(squad, role),
        **extra,
    }


def _undo_bar(squad: Squad, role: Role) -> dict[str, Any]:
    """What the Undo bar (``bughunt/_undo_bar.html``) shows to an editor or the owner: the change
    an Undo takes back, and the undo just made (the squad's newest log line, if it is one)."""
    if role == Role.VIEWER:
        return {"last_change": None, "just_undone": None}
    newest = squad.log.order_by("-id").first()
    return {
        "last_change": history_services.last_change(squad),
        "just_undone": newest if newest is not None and newest.step == "undo" else None,
    }


@login_required
@require_GET
def squad_detail(request: HttpRequest, squad_id: int) -> HttpResponse:
    """The squad: roster, Reputation, the campaign turn's steps and the latest log lines."""
    squad = _squad_or_404(request, squad_id)
    return render(request, "bughunt/squad_detail.html", _squad_context(request, squad))


def _squad_write(request: HttpRequest, squad_id: int, write: Callable[[Squad], Any], *, at_least: Role = EDITOR) -> HttpResponse:
    """Run one squad write: the role ``at_least`` first (a reader learns that they may not, not
    what was wrong with the form), then the form and the service; a refusal renders the squad
    page with its message and status."""
    squad = _squad_or_404(request, squad_id)
    try:
        squad_for(request.user, squad.pk, at_least=at_least)
        result = write(squad)
    except DropshipError as exc:
        squad.refresh_from_db()
        # what was typed stays: ``form`` for single values, ``typed`` for the form it came from
        context = _squad_context(request, squad, error=exc, form=request.POST, typed=typed_back(request))
        return render(request, "bughunt/squad_detail.html", context, status=exc.status)
    if isinstance(result, Mission):
        return redirect("bughunt:mission", mission_id=result.pk)
    return redirect("bughunt:squad", squad_id=squad.pk)


@login_required
@require_POST
def squad_settings(request: HttpRequest, squad_id: int) -> HttpResponse:
    def write(squad: Squad) -> Squad:
        v = validated(inputs.SquadSettingsInput, request.POST)
        return services.squad_update(
            user=request.user,
            squad_id=squad.pk,
            version=v["version"],
            name=v.get("name"),
            difficulty=v.get("difficulty"),
            escalation=v.get("escalation"),
            signals=v.get("signals"),
        )

    return _squad_write(request, squad_id, write, at_least=Role.OWNER)


@login_required
@require_POST
def special_assignment(request: HttpRequest, squad_id: int) -> HttpResponse:
    def write(squad: Squad) -> Squad:
        v = validated(inputs.AssignmentInput, request.POST)
        return postbattle_services.special_assignment_apply(
            user=request.user,
            squad_id=squad.pk,
            version=v["version"],
            trooper_id=v["trooper"],
            assignment=v["assignment"],
            faces=v["faces"],
        )

    return _squad_write(request, squad_id, write)


@login_required
@require_POST
def advance(request: HttpRequest, squad_id: int) -> HttpResponse:
    def write(squad: Squad) -> Squad:
        v = validated(inputs.AdvanceInput, request.POST)
        return postbattle_services.trooper_advance(
            user=request.user, squad_id=squad.pk, version=v["version"], trooper_id=v["trooper"], stat=v["stat"]
        )

    return _squad_write(request, squad_id, write)


@login_required
@require_POST
def offer(request: HttpRequest, squad_id: int) -> HttpResponse:
    def write(squad: Squad) -> Squad:
        v = validated(inputs.OfferInput, request.POST)
        return postbattle_services.offer_answer(
            user=request.user, squad_id=squad.pk, version=v["version"], index=v["index"], choice=v["choice"]
        )

    return _squad_write(request, squad_id, write)


@login_required
@require_POST
def mission_create(request: HttpRequest, squad_id: int) -> HttpResponse:
    def write(squad: Squad) -> Mission:
        v = validated(inputs.MissionCreateInput, request.POST)
        return services.mission_create(user=request.user, squad_id=squad.pk, **v)

    return _squad_write(request, squad_id, write)


@login_required
@require_POST
def member_invite(request: HttpRequest, squad_id: int) -> HttpResponse:
    """Invite a user as editor or reader (owner only; again: change their role)."""

    def write(squad: Squad) -> Any:
        v = validated(inputs.MemberInviteInput, request.POST)
        return member_services.member_invite(user=request.user, squad_id=squad.pk, **v)

    return _squad_write(request, squad_id, write, at_least=Role.OWNER)


@login_required
@require_POST
def member_remove(request: HttpRequest, squad_id: int, member_id: int) -> HttpResponse:
    """Remove a member (the owner) or leave the squad (a member, who then goes to the squad list)."""
    squad = _squad_or_404(request, squad_id)
    try:
        # who may remove this member is known before the form is read: the owner, or the member leaving
        _, role = squad_for(request.user, squad.pk)
        if (
            role != Role.OWNER
            and not Membership.objects.filter(room_id=squad.room_id, pk=member_id, user_id=int(request.user.pk or 0)).exists()
        ):
            raise NotAllowed("Only the owner can remove other members.")
        v = validated(inputs.MemberRemoveInput, request.POST)
        member_services.member_remove(user=request.user, squad_id=squad.pk, member_id=member_id, **v)
    except DropshipError as exc:
        squad.refresh_from_db()
        return render(request, "bughunt/squad_detail.html", _squad_context(request, squad, error=exc), status=exc.status)
    if squad.owner_id != request.user.pk:
        return redirect("bughunt:squads")
    return redirect("bughunt:squad", squad_id=squad.pk)


@login_required
@require_POST
def marine(request: HttpRequest, squad_id: int) -> HttpResponse:
    """Give a main character to an editor to command at the table, or back to the owner."""

    def write(squad: Squad) -> Any:
        v = validated(inputs.MarineInput, request.POST)
        return member_services.marine_give(
            user=request.user, squad_id=squad.pk, version=v["version"], trooper_id=v["trooper"], player=v["player"]
        )

    return _squad_write(request, squad_id, write, at_least=Role.OWNER)


@login_required
@require_POST
def squad_undo(request: HttpRequest, squad_id: int) -> HttpResponse:
    """Take back the squad's last change (an editor at least); a refusal keeps the squad page.
    Sent from a mission page (``mission``: its id), the answer is that page again."""

    def write(squad: Squad) -> Any:
        v = validated(inputs.VersionInput, request.POST)
        return history_services.squad_undo(user=request.user, squad_id=squad.pk, version=v["version"])

    response = _squad_write(request, squad_id, write)
    # Tapped on a mission page (the post-battle sequence): back there, if the mission is still there.
    raw = request.POST.get("mission", "")
    if response.status_code == 302 and raw.isdecimal():
        mission = Mission.objects.filter(pk=int(raw), squad_id=squad_id).first()
        if mission is not None:
            response = redirect("bughunt:mission", mission_id=mission.pk)
            if mission.stage == "in_play":  # a post-battle step taken back: its form again, in view
                response["Location"] += "#casualties"
    return response


# -- export and import ------------------------------------------------------------------------------


@login_required
@require_POST
def squad_export(request: HttpRequest, squad_id: int) -> HttpResponse:
    """Start an export job (any member) and show its progress."""
    squad = _squad_or_404(request, squad_id)
    try:
        job = history_services.JOBS.start(user=request.user, kind="export", target=squad)
    except DropshipError as exc:
        return render(request, "bughunt/squad_detail.html", _squad_context(request, squad, error=exc), status=exc.status)
    return redirect("bughunt:job", job_id=job.pk)


@login_required
@require_http_methods(["GET", "POST"])
def squad_import(request: HttpRequest) -> HttpResponse:
    """Upload a squad export (a .json file or pasted text); it becomes a new squad of yours
    through a job with progress. A bad document is refused here, naming the field."""
    if request.method == "POST":
        try:
            doc = history_services.JOBS.document_from_form(request.FILES.get("file"), request.POST.get("text", ""))
            job = history_services.JOBS.start(user=request.user, kind="import", document=doc)
        except DropshipError as exc:
            return render(request, "bughunt/import.html", {"error": exc}, status=exc.status)
        return redirect("bughunt:job", job_id=job.pk)
    return render(request, "bughunt/import.html", {})


def _job_or_404(request: HttpRequest, job_id: int) -> SquadJob:
    job = history_services.job_for(request.user, job_id)
    if job is None:
        raise Http404("No such job of yours.")
    return job


@login_required
@require_GET
def squad_job(request: HttpRequest, job_id: int) -> HttpResponse:
    """A job's progress; the page polls itself (HTMX) until the job is done or failed."""
    job = _job_or_404(request, job_id)
    template = "bughunt/job.html#progress" if getattr(request, "htmx", False) else "bughunt/job.html"
    context = {
        "job": job,
        "progress": history_services.JOBS.progress(job),
        "poll_url": reverse("bughunt:job", args=[job.pk]),
        "download_url": reverse("bughunt:job_download", args=[job.pk]),
        "retry_url": reverse("bughunt:import"),
        "open_url": reverse("bughunt:squad", args=[job.squad_id]) if job.squad_id else "",
        "open_name": job.squad.name if job.squad else "",
        "open_testid": "open-squad",
    }
    return render(request, template, context)


@login_required
@require_GET
def squad_job_download(request: HttpRequest, job_id: int) -> HttpResponse:
    """The document of a finished export, as a .json download."""
    job = _job_or_404(request, job_id)
    if job.kind != "export" or job.state != "done" or not isinstance(job.document, dict):
        raise Http404("No finished export of yours.")
    # the name is user text: only its slug reaches the header
    stem = slugify(str(job.document.get("squad", {}).get("name") or ""), allow_unicode=True) or "squad"
    response = JsonResponse(job.document, json_dumps_params={"indent": 1, "sort_keys": True})
    filename = f"{stem}-{job.squad_id or job.pk}.bughunt.json"
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return response


@login_required
@require_GET
def squad_log(request: HttpRequest, squad_id: int) -> HttpResponse:
    """The campaign log with every roll, the mission tracker's included; filter by step (a
    group such as ``tracker`` or one step such as ``tracker: shoot``) and mission number."""
    squad = _squad_or_404(request, squad_id)
    step = request.GET.get("step", "").strip()
    raw_mission = request.GET.get("mission", "").strip()
    mission = int(raw_mission) if raw_mission.isdecimal() else None
    entries = selectors.log_list(squad=squad, step=step, mission=mission)
    page = Paginator(entries, LOG_PAGE).get_page(request.GET.get("page"))  # a bad ?page= shows the first or last page
    named = set(squad.log.values_list("step", flat=True).distinct())
    steps = sorted(named | {s.split(":")[0] for s in named})  # "tracker", then "tracker: shoot" ...
    return render(
        request,
        "bughunt/squad_log.html",
        {"squad": squad, "entries": page, "page": page, "step": step, "mission_filter": raw_mission, "steps": steps},
    )


# -- missions ---------------------------------------------------------------------------------


def _mission_context(request: HttpRequest, mission: Mission, **extra: Any) -> dict[str, Any]:
    squad = mission.squad
    tables = selectors.bughunt_tables()
    setup = mission.setup
    support = setup.get("support", {})
    available = services.available_troopers(squad)
    return {
        "mission": mission,
        "squad": squad,
        "setup": setup,
        "available": available,
        "loadout_rows": [(t, setup.get("loadout", {}).get(str(t.pk))) for t in available],
        "support_options": [e for e in tables["bh-support"].entries],
        "support_left": support.get("points", 0) - len(support.get("requests", [])),
        "requested": [r["option"] for r in support.get("requests", [])],
        "loadout_weapons": services.LOADOUT_WEAPONS,
        "extra_rows": services.extra_choices(mission) if mission.stage == "setup" else [],
        "casualties": (mission.post_battle or {}).get("casualties") if mission.stage == "in_play" else None,
        "survivable": postbattle_services.survivable(mission) if mission.stage == "in_play" else [],
        "step_one_names": postbattle_services.step_one_names(mission) if mission.stage == "in_play" and mission.room_id else [],
        "log": mission.log.order_by("id"),
        "everyone": [t for t in squad.troopers.all() if t.status == "active"],
        "post_battle_steps": list(tables["bh-post-battle-sequence"].entries),
        **_undo_bar(squad, squad_for(request.user, squad.pk)[1]),
        **extra,
    }


@login_required
@require_GET
def mission_detail(request: HttpRequest, mission_id: int) -> HttpResponse:
    """The mission wizard: set-up results, loadout and support, then the tracker and the
    post-battle sequence."""
    mission = _mission_or_404(request, mission_id)
    return render(request, "bughunt/mission_detail.html", _mission_context(request, mission))


def _mission_write(request: HttpRequest, mission_id: int, write: Callable[[Mission], Any], *, at: str = "") -> HttpResponse:
    """Run one mission write; the answer is the mission page, scrolled to the section ``at``
    (an element id) so that a phone shows the result where the form was tapped."""
    mission = _mission_or_404(request, mission_id)
    try:
        squad_for(request.user, mission.squad_id, at_least=EDITOR)  # the role before the form
        write(mission)
    except DropshipError as exc:
        mission.refresh_from_db()
        mission.squad.refresh_from_db()
        # what was typed stays: ``form`` for single values, ``typed`` for the form it came from
        context = _mission_context(request, mission, error=exc, form=request.POST, typed=typed_back(request))
        return render(request, "bughunt/mission_detail.html", context, status=exc.status)
    response = redirect("bughunt:mission", mission_id=mission.pk)
    if at:
        response["Location"] += f"#{at}"
    return response


@login_required
@require_POST
def mission_support(request: HttpRequest, mission_id: int) -> HttpResponse:
    def write(mission: Mission) -> Mission:
        v = validated(inputs.MissionSupportInput, request.POST)
        if v["buy"]:
            return services.mission_buy_support(user=request.user, mission_id=mission.pk, version=v["version"])
        return services.mission_request_support(
            user=request.user,
            mission_id=mission.pk,
            version=v["version"],
            option=v["option"],
            faces=v["faces"],
            extra_support_card=v["extra_support_card"],
        )

    return _mission_write(request, mission_id, write)


@login_required
@require_POST
def mission_loadout(request: HttpRequest, mission_id: int) -> HttpResponse:
    """Step 6: the form's ``weapon_<trooper id>`` and ``extra_<support>`` choices are the
    input's ``loadout`` and ``extras``."""

    def write(mission: Mission) -> Mission:
        v = validated(inputs.MissionLoadoutInput, request.POST)
        return services.mission_loadout(user=request.user, mission_id=mission.pk, **v)

    return _mission_write(request, mission_id, write)


@login_required
@require_POST
def mission_start(request: HttpRequest, mission_id: int) -> HttpResponse:
    mission = _mission_or_404(request, mission_id)
    try:
        squad_for(request.user, mission.squad_id, at_least=EDITOR)  # the role before the form
        v = validated(inputs.MissionStartInput, request.POST)
        services.mission_start(user=request.user, mission_id=mission.pk, **v)
    except DropshipError as exc:
        context = _mission_context(request, mission, error=exc, typed=typed_back(request, "mission_start"))
        return render(request, "bughunt/mission_detail.html", context, status=exc.status)
    mission.refresh_from_db()
    assert mission.room is not None
    return redirect("live:room", room_id=mission.room.pk)


@login_required
@require_POST
def mission_casualties(request: HttpRequest, mission_id: int) -> HttpResponse:
    """Post-battle step 1 on its own (p.202): roll for casualties and lost marines, with the
    Escape card if played, so Survived can follow the rolls (p.181)."""

    def write(mission: Mission) -> Mission:
        v = validated(inputs.MissionCasualtiesInput, request.POST)
        return postbattle_services.mission_casualties(user=request.user, mission_id=mission.pk, **v)

    return _mission_write(request, mission_id, write, at="casualties")


@login_required
@require_POST
def mission_finish(request: HttpRequest, mission_id: int) -> HttpResponse:
    """End the mission: read the tracker's outcome and run the post-battle sequence with the
    player's choices (MVP, advanced care, retirements, Reputation for the court martial and R&R)."""

    def write(mission: Mission) -> Mission:
        v = validated(inputs.MissionFinishInput, request.POST)
        return postbattle_services.mission_finish(user=request.user, mission_id=mission.pk, **v)

    return _mission_write(request, mission_id, write)
