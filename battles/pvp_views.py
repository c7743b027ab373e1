"""HTML screens of PvP battles (Compendium pp.35-37) and expanded co-op battles (pp.39-41, a
meeting of ``kind`` ``coop``): the list with the invite and accept forms,
and one meeting's page where each player fields their figures, the set-up is rolled, the live
tracker is opened and the finished battle sends each campaign its side's result.

Every write validates with the operation's serializer (:mod:`battles.pvp_inputs`) and calls the
same service as the API; a refusal re-renders the page whole, with the message by the form.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from battles import pvp_inputs, pvp_services
from battles.engine.fp_pvp import SIDES
from battles.engine.fp_pvp import third as fp_third
from battles.models import Meeting
from campaigns.permissions import EDITOR
from rules.engine.dice import Dice
from rules.errors import DropshipError, NotFound
from rules.inputs import validated


def _list_context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    """The list page's context; ``?kind=`` and ``?status=`` filter the meetings (an unknown value
    shows them all, the filter's select saying so)."""
    kind = request.GET.get("kind", "") if request.GET.get("kind") in dict(Meeting.KINDS) else ""
    status = request.GET.get("status", "") if request.GET.get("status") in dict(Meeting.STATUSES) else ""
    return {
        "meetings": pvp_services.meetings_of(request.user, kind=kind, status=status),
        "campaigns": pvp_services.editable_campaigns(request.user),
        "kind": kind,
        "status": status,
        "kinds": Meeting.KINDS,
        "statuses": Meeting.STATUSES,
        **extra,
    }


@login_required
@require_GET
def meeting_list(request: HttpRequest) -> HttpResponse:
    """Your campaigns' PvP battles, the invite form and the accept-a-code form."""
    return render(request, "battles/pvp_list.html", _list_context(request))


@login_required
@require_POST
def meeting_start(request: HttpRequest) -> HttpResponse:
    """Invite (``invite``), accept (``accept``) or referee (``referee``, by the battle's code) from the list page."""
    try:
        if request.POST.get("do") == "referee":
            v = validated(pvp_inputs.PvpRefereeJoinInputSerializer, request.POST)
            meeting = pvp_services.referee_join(user=request.user, code=v["code"])
        elif request.POST.get("do") == "accept":
            v = validated(pvp_inputs.PvpAcceptInputSerializer, request.POST)
            meeting = pvp_services.meeting_accept(user=request.user, code=v["code"], campaign_id=v["campaign"])
        else:
            v = validated(pvp_inputs.PvpInviteInputSerializer, request.POST)
            meeting = pvp_services.meeting_invite(user=request.user, campaign_id=v["campaign"], kind=v["kind"])
    except DropshipError as exc:
        return render(request, "battles/pvp_list.html", _list_context(request, error=exc, form=request.POST), status=exc.status)
    return redirect("battles:pvp", meeting_id=meeting.pk)


def _detail_context(request: HttpRequest, meeting: Meeting, sides: list[str], **extra: Any) -> dict[str, Any]:
    editing = pvp_services.sides_of(request.user, meeting, at_least=EDITOR)
    names = {"host": meeting.host.name, "guest": meeting.guest.name if meeting.guest else "…"}
    card = meeting.setup or {}
    crews = {side: pvp_services.crew_choices(meeting, side) for side in editing}
    return {
        "meeting": meeting,
        "editing": editing,
        "crews": crews,
        "limit": pvp_services.crew_limit(meeting, editing[0] if editing else "host"),
        "coop": meeting.kind == "coop",
        "typed": {side: (extra.get("form") or {}).get(f"{side}_category", "") for side in SIDES},
        "reasons": pvp_services.reason_choices(),
        "sides": SIDES,
        "names": names,
        "start_points": [(names[s], card["initiative_points"][s], card.get("initiative_from", {}).get(s)) for s in SIDES]
        if card and "initiative_points" in card
        else [],
        "results": [(names[s], meeting.result[s]) for s in SIDES] if meeting.result else [],
        "refereeing": pvp_services.is_referee(request.user, meeting),
        "frees_referee": pvp_services.is_referee(request.user, meeting) or "host" in editing,
        "categories": fp_third.CATEGORIES,
        **extra,
    }


@login_required
@require_GET
def meeting_detail(request: HttpRequest, meeting_id: int) -> HttpResponse:
    meeting, sides = _meeting(request, meeting_id)
    return render(request, "battles/pvp_detail.html", _detail_context(request, meeting, sides))


def _meeting(request: HttpRequest, meeting_id: int) -> tuple[Meeting, list[str]]:
    """The meeting the user may read; 404 for anyone else."""
    try:
        return pvp_services.meeting_for(request.user, meeting_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc


def _setup_data(post: Any) -> dict[str, Any]:
    """The set-up form's flat fields in the serializer's nested shape."""
    keys = ("version", "reason", "reason_face", "seed", "location", "third_party_category", "third_party_numbers")
    data: dict[str, Any] = {k: post.get(k) for k in keys if post.get(k) not in (None, "")}
    data["cinematic"] = post.get("cinematic") == "on"
    data["third_party"] = post.get("third_party") == "on"
    seize = {}
    for side in SIDES:
        dice, target = post.get(f"seize_{side}_dice", "").strip(), post.get(f"seize_{side}_target", "").strip()
        if dice or target:
            faces = post.get(f"seize_{side}_faces", "").replace(",", " ").split()
            seize[side] = {"dice": dice, "target": target, **({"faces": faces} if faces else {})}
    data["seize"] = seize
    data["faces"] = {
        k: post.get(f"face_{k}")
        for k in ("first_deploy", "first_player", "third_party", "third_party_round")
        if post.get(f"face_{k}")
    }
    return data


def _coop_setup_data(post: Any) -> dict[str, Any]:
    """The co-op set-up form's flat fields in :class:`pvp_inputs.CoopSetupInputSerializer`'s shape."""
    keys = ("version", "wave3_numbers", "order_face", "seed", "location")
    data: dict[str, Any] = {k: post.get(k) for k in keys if post.get(k) not in (None, "")}
    data["forces"] = {
        side: {"category": post.get(f"{side}_category", ""), "numbers": post.get(f"{side}_numbers", "")} for side in SIDES
    }
    data["increased_challenge"] = post.get("increased_challenge") == "on"
    data["separate_teams"] = post.get("separate_teams") == "on"
    data["rivals"] = post.get("rivals") == "on"
    data["invasion"] = post.getlist("invasion") if hasattr(post, "getlist") else post.get("invasion", [])
    return data


@login_required
@require_POST
def meeting_act(request: HttpRequest, meeting_id: int, action: str) -> HttpResponse:
    """One write of the meeting page (``field``, ``setup``, ``track``, ``referee``, ``referee_leave``,
    ``finish``); the tracker opens in its room. A referee who leaves goes back to the PvP list."""
    meeting, sides = _meeting(request, meeting_id)
    user = request.user
    try:
        if action == "referee_leave":  # the referee (no editor of either campaign) may too
            pvp_services.check_frees_referee(user, meeting)  # who may, before the form's faults
            leaving = pvp_services.is_referee(user, meeting)
            v = validated(pvp_inputs.PvpVersionInputSerializer, request.POST)
            pvp_services.referee_leave(user=user, meeting_id=meeting.pk, **v)
            return redirect("battles:pvp_list") if leaving else redirect("battles:pvp", meeting_id=meeting.pk)
        pvp_services.meeting_for(user, meeting_id, at_least=EDITOR)  # a reader learns their role, not the form's faults
        if action == "field":
            v = validated(pvp_inputs.PvpFieldInputSerializer, request.POST)
            pvp_services.meeting_field(user=user, meeting_id=meeting.pk, **v)
        elif action == "setup" and meeting.kind == "coop":
            v = validated(pvp_inputs.CoopSetupInputSerializer, _coop_setup_data(request.POST))
            seed = v.pop("seed", None)
            pvp_services.coop_setup(user=user, meeting_id=meeting.pk, dice=Dice(seed=seed) if seed is not None else None, **v)
        elif action == "setup":
            v = validated(pvp_inputs.PvpSetupInputSerializer, _setup_data(request.POST))
            seed = v.pop("seed", None)
            pvp_services.meeting_setup(user=user, meeting_id=meeting.pk, dice=Dice(seed=seed) if seed is not None else None, **v)
        elif action == "track":
            hit = {k: request.POST.get(f"hit_{k}") for k in ("open", "cover") if request.POST.get(f"hit_{k}")}
            data = {
                "version": request.POST.get("version"),
                "dramatic_combat": request.POST.get("dramatic_combat") or None,
                **({"hit_numbers": hit} if hit else {}),
            }
            v = validated(pvp_inputs.PvpTrackInputSerializer, data)
            meeting = pvp_services.meeting_track(user=user, meeting_id=meeting.pk, **v)
            return redirect("live:room", room_id=meeting.room_id)
        elif action == "referee":
            v = validated(pvp_inputs.PvpRefereeInviteInputSerializer, request.POST)
            pvp_services.referee_invite(user=user, meeting_id=meeting.pk, **v)
        elif action == "finish":
            v = validated(pvp_inputs.PvpVersionInputSerializer, request.POST)
            pvp_services.meeting_finish(user=user, meeting_id=meeting.pk, **v)
        else:
            raise Http404(f"No PvP action {action!r}.")
    except DropshipError as exc:
        meeting.refresh_from_db()
        context = _detail_context(request, meeting, sides, error=exc, form=request.POST)
        return render(request, "battles/pvp_detail.html", context, status=exc.status)
    return redirect("battles:pvp", meeting_id=meeting.pk)
