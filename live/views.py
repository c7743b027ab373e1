"""HTML screens for shared rooms: list and create, the room (tracker, members, join code, log),
join by code, QR code, and the tracker fragment that devices refetch when the version moves."""

from __future__ import annotations

import io
from typing import Any

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_eventstream.views import events as eventstream_events
from django_htmx.middleware import HtmxDetails

from live import registry, selectors, services
from live.engine.tracker import Role
from live.events import room_channel
from live.models import Room
from live.permissions import room_for
from rules.errors import DropshipError, NotAllowed, NotFound, StaleVersion

LIST_FIELDS = {"characters", "faces"}
NOT_PAYLOAD = {"csrfmiddlewaretoken", "type", "version"}


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _load(request: HttpRequest, room_id: int, at_least: Role = Role.VIEWER) -> tuple[Room, Role]:
    """The room and the user's role in it; 404 for outsiders, 403 for a member whose role is too low."""
    try:
        return room_for(request.user, room_id, at_least=at_least)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except NotAllowed as exc:
        raise PermissionDenied(exc.message) from exc


def _context(request: HttpRequest, room: Room, role: Role, **extra: Any) -> dict[str, Any]:
    tracker = registry.get(room.kind)
    return {
        "room": room,
        "role": role.value,
        "state": room.state,
        "tracker": tracker,
        "tracker_template": f"{tracker.template}#tracker",
        "tracker_controls": f"{tracker.template}#controls",
        "me": str(request.user.pk) if request.user.is_authenticated else "",
        "log": selectors.room_log(room, limit=12),
        **extra,
    }


@login_required
@require_http_methods(["GET", "POST"])
def room_list(request: HtmxHttpRequest) -> HttpResponse:
    """My rooms, and a form to open a new one."""
    error, failed_kind = None, ""
    if request.method == "POST":
        kind = request.POST.get("kind", "")
        try:
            names = [o.name for o in registry.get(kind).options]
            room = services.room_create(
                user=request.user,
                kind=kind,
                title=request.POST.get("title", ""),
                options={name: request.POST[name] for name in names if name in request.POST},
                guests_can_watch=request.POST.get("guests_can_watch") == "on",
            )
            return redirect("live:room", room_id=room.pk)
        except DropshipError as exc:
            error, failed_kind = exc, kind
    context = {"rooms": selectors.rooms_for(request.user), "kinds": registry.kinds(), "error": error, "failed_kind": failed_kind}
    return render(request, "live/room_list.html", context, status=400 if error else 200)


@require_GET
def room_detail(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    room, role = _load(request, room_id)
    services.room_seen(user=request.user, room=room)
    code = services.room_code(room) if role == Role.OWNER else None
    join_url = request.build_absolute_uri(reverse("live:join") + f"?code={code.code}") if code else ""
    return render(request, "live/room.html", _context(request, room, role, code=code, join_url=join_url))


@require_GET
def room_tracker(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    """The tracker fragment; 304 when the caller already has ``?version=``."""
    room, role = _load(request, room_id)
    services.room_seen(user=request.user, room=room)  # polling devices count as present
    if request.GET.get("version") == str(room.version):
        return HttpResponse(status=304)
    return render(request, "live/room.html#tracker-frame", _context(request, room, role))


@require_POST
def room_act(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    """Apply an action from a tracker form; a stale one returns the latest tracker (409)."""
    payload: dict[str, Any] = {}
    for key in request.POST:
        if key in NOT_PAYLOAD:
            continue
        values = [v for v in request.POST.getlist(key) if v != ""]
        if values:
            payload[key] = values if key in LIST_FIELDS else values[0]
    return _write(request, room_id, lambda version: services.room_act(
        user=request.user, room_id=room_id, type=request.POST.get("type", ""), payload=payload, version=version
    ))  # fmt: skip


@require_POST
def room_undo(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    return _write(request, room_id, lambda version: services.room_undo(user=request.user, room_id=room_id, version=version))


def _write(request: HtmxHttpRequest, room_id: int, write: Any) -> HttpResponse:
    if not request.user.is_authenticated:
        return HttpResponseForbidden("Log in to act at this table.")
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        version = None
    notice, status = None, 200
    try:
        write(version)
    except StaleVersion as exc:
        notice, status = exc.message, 409
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except (NotAllowed, DropshipError) as exc:
        notice, status = exc.message, exc.status if exc.status in (400, 403) else 400
    room, role = _load(request, room_id)
    if not request.htmx:
        if notice:
            messages.error(request, notice)
        return redirect("live:room", room_id=room_id)
    return render(request, "live/room.html#tracker-frame", _context(request, room, role, notice=notice), status=status)


@login_required
@require_http_methods(["GET", "POST"])
def join(request: HtmxHttpRequest) -> HttpResponse:
    """Join a table with the owner's code (typed in, or from the QR code's link)."""
    code = request.POST.get("code") or request.GET.get("code", "")
    error = None
    if request.method == "POST":
        try:
            membership = services.room_join(user=request.user, code=code)
            return redirect("live:room", room_id=membership.room_id)
        except DropshipError as exc:
            error = exc.message
    return render(request, "live/join.html", {"code": code, "error": error}, status=400 if error else 200)


@require_GET
def room_qr(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    """The join link as an SVG QR code (owner only)."""
    room, _ = _load(request, room_id, at_least=Role.OWNER)
    code = services.room_code(room)
    if code is None:
        raise Http404("No join code: issue a new one.")
    link = request.build_absolute_uri(reverse("live:join") + f"?code={code.code}")
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=6, dark="#000", light="#fff", xmldecl=False)
    return HttpResponse(out.getvalue(), content_type="image/svg+xml")


def room_events(request: HttpRequest, room_id: int) -> HttpResponse:
    """The room's Server-Sent Event stream (django-eventstream), behind the room check."""
    _load(request, room_id)
    return eventstream_events(request, channels=[room_channel(room_id)])


@require_POST
def room_code_rotate(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    _load(request, room_id, at_least=Role.OWNER)
    services.room_code_rotate(user=request.user, room_id=room_id)
    return redirect("live:room", room_id=room_id)


@require_POST
def room_code_revoke(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    _load(request, room_id, at_least=Role.OWNER)
    services.room_code_revoke(user=request.user, room_id=room_id)
    messages.success(request, "Join code revoked: nobody new can join until you issue a new one.")
    return redirect("live:room", room_id=room_id)
