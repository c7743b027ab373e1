"""HTML screens for shared rooms: list and create, the room (tracker, members, join code, log),
join by code, QR code, the room's event stream, and the tracker fragment that a device asks for
when its stream (re)opens or, while the stream is down, every few seconds."""

from __future__ import annotations

import io
import time
from collections.abc import AsyncIterator
from typing import Any

import segno
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseForbidden,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_eventstream.views import events as eventstream_events
from django_htmx.middleware import HtmxDetails
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from live import presence, registry, selectors, services
from live.engine.tracker import Role
from live.events import room_channel, view_channel
from live.fragments import LOG_PAGE, release_connection, room_context, view_of
from live.links import join_link
from live.models import Room
from live.permissions import room_for
from rules.errors import DropshipError, NotAllowed, NotFound, StaleVersion
from rules.refusals import htmx_refusal

LIST_FIELDS = {"characters", "faces", "near", "figures"}
NOT_PAYLOAD = {"csrfmiddlewaretoken", "type", "version"}


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _load(request: HttpRequest, room_id: int, at_least: Role = Role.VIEWER) -> tuple[Room, Role]:
    """The room and the user's role in it; 404 for outsiders, 403 (with the reason) for a
    member or guest whose role is too low."""
    try:
        return room_for(request.user, room_id, at_least=at_least)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except NotAllowed as exc:
        raise PermissionDenied(exc.message) from exc


def _context(request: HttpRequest, room: Room, role: Role, **extra: Any) -> dict[str, Any]:
    return room_context(room, role, request.user, **extra)


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
    link = join_link(request, code.code) if code else None
    context = _context(
        request, room, role, code=code, join_url=link.url if link else "", join_reachable=link.reachable if link else True
    )
    return render(request, "live/room.html", context)


@require_GET
def room_tracker(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    """The tracker fragment (with the member list and the log out of band); 304 when the caller
    already has ``?version=`` and, when it sends one, ``?members=`` (the members' stamp)."""
    room, role = _load(request, room_id)
    services.room_seen(user=request.user, room=room)  # polling devices count as present
    if request.GET.get("version") == str(room.version) and request.GET.get("members") in (None, selectors.members_stamp(room.pk)):
        return HttpResponse(status=304)
    return render(request, "live/room.html#tracker-frame", _context(request, room, role))


@require_GET
def room_log(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    """Older log lines, newest first: the :data:`LOG_PAGE` lines before version ``?before=``
    (all the newest when absent or not a number). htmx gets the lines to append (with the next
    "Older entries" link); a plain GET gets a page of them."""
    room, role = _load(request, room_id)
    raw = request.GET.get("before", "")
    before = int(raw) if raw.isascii() and raw.isdecimal() else room.version + 1
    entries = list(selectors.room_log(room, limit=None).filter(version__lt=before)[:LOG_PAGE])
    oldest = entries[-1].version if entries else 0
    context = {"room": room, "role": role.value, "log": entries, "log_more": oldest > 1, "log_before": oldest}
    return render(request, "live/room_log.html#lines" if request.htmx else "live/room_log.html", context)


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


@require_POST
def member_role(request: HtmxHttpRequest, room_id: int, user_id: int) -> HttpResponse:
    """Make a member a player or a viewer (owner only); answers with the member list, or the
    refusal beside the button."""
    return _member_write(request, room_id, lambda version: services.membership_set_role(
        user=request.user, room_id=room_id, user_id=user_id, role=request.POST.get("role", ""), version=version
    ))  # fmt: skip


@require_POST
def member_remove(request: HtmxHttpRequest, room_id: int, user_id: int) -> HttpResponse:
    """Remove a member (owner), or leave the table (the member themself: back to the rooms list)."""
    leaving = request.user.is_authenticated and request.user.pk == user_id
    response = _member_write(request, room_id, lambda version: services.membership_remove(
        user=request.user, room_id=room_id, user_id=user_id, version=version
    ), leaving=leaving)  # fmt: skip
    return response


def _member_write(request: HtmxHttpRequest, room_id: int, write: Any, *, leaving: bool = False) -> HttpResponse:
    """Run a membership change. An HTMX request gets the fresh tracker with the member list out of
    band; the other devices redraw on the ``version`` event."""
    if not request.user.is_authenticated:
        return HttpResponseForbidden("Log in to change who sits at this table.")
    notice, status = None, 200
    try:
        write(_version(request))
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except StaleVersion as exc:
        notice, status = exc.message, 409
    except DropshipError as exc:
        if request.htmx:
            return htmx_refusal(exc.message, exc.status if exc.status in (400, 403) else 400)
        if exc.status == 403:
            raise PermissionDenied(exc.message) from exc
        messages.error(request, exc.message)
        return redirect("live:room", room_id=room_id)
    if leaving and status == 200:
        messages.success(request, "You left the table.")
        if request.htmx:
            return HttpResponse(headers={"HX-Redirect": reverse("live:rooms")})
        return redirect("live:rooms")
    room, role = _load(request, room_id)
    if not request.htmx:
        if notice:
            messages.error(request, notice)
        return redirect("live:room", room_id=room_id)
    # The answer is the fresh tracker (its member list comes out of band): the change bumped the
    # version, and forms on this screen must carry the new one at once, not after the event.
    response = render(request, "live/room.html#tracker-frame", _context(request, room, role, notice=notice), status=status)
    response["HX-Retarget"] = "#tracker"
    response["HX-Reswap"] = "outerHTML"
    return response


def _version(request: HttpRequest) -> int | None:
    try:
        return int(request.POST.get("version", ""))
    except ValueError:
        return None


def _write(request: HtmxHttpRequest, room_id: int, write: Any) -> HttpResponse:
    if not request.user.is_authenticated:
        return HttpResponseForbidden("Log in to act at this table.")
    version = _version(request)
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
        if status == 403:
            # a refused role is an answer, not a detour: the page says why, with its status
            raise PermissionDenied(notice)
        if notice:
            messages.error(request, notice)
        return redirect("live:room", room_id=room_id)
    if notice and status != 409:
        # Refused: the tracker stays as it is, with the message beside the control that sent it.
        return htmx_refusal(notice, status)
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
    link = join_link(request, code.code).url
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=6, dark="#000", light="#fff", xmldecl=False)
    return HttpResponse(out.getvalue(), content_type="image/svg+xml")


def room_events(request: HttpRequest, room_id: int) -> HttpResponseBase:
    """The room's Server-Sent Event stream (django-eventstream), behind the room check.

    Browsers come with their session; API clients send ``Authorization: Token <key>``, checked by
    DRF's own TokenAuthentication like every API call (a wrong token answers 401). Events are
    ``version`` with ``{room, version}``: fetch ``/api/v1/rooms/{id}/`` when it moves.

    The room page asks for ``?fragments=1``: it hears ``tracker`` with the fragment rendered for
    its view (:mod:`live.fragments`), ``reload`` when its view is gone (a role changed, the
    member left), and the room's own ``version`` and ``members`` events. Those are stored, so
    they are never lost (django-eventstream re-reads stored events whenever it drops what was
    queued to a stream: at a stream's opening when something was queued meanwhile, after a Redis
    outage); a pushed fragment is not stored, and the page fetches the tracker itself only when
    no fragment has caught up with a ``version`` or ``members`` event it heard (static/js/
    dropship.js). The stream holds no database connection while it waits, and keeps the member
    marked present (in the cache) while it is open."""
    if request.META.get("HTTP_AUTHORIZATION"):
        try:
            found = TokenAuthentication().authenticate(request)  # type: ignore[arg-type]
        except AuthenticationFailed as exc:
            return JsonResponse({"detail": str(exc.detail)}, status=401, headers={"WWW-Authenticate": "Token"})
        if found is not None:
            request.user = found[0]
    _, role = _load(request, room_id)
    user_id = request.user.pk if request.user.is_authenticated else None
    fragments = bool(request.GET.get("fragments"))
    channels = [view_channel(room_id, view_of(role, user_id)), room_channel(room_id)] if fragments else [room_channel(room_id)]
    response = eventstream_events(request, channels=channels)
    release_connection()
    # Every chunk the stream writes is encoded with the response's charset: named once here, it
    # is not parsed again from the Content-Type for each chunk of each device.
    response.charset = settings.DEFAULT_CHARSET
    if user_id is not None and isinstance(response, StreamingHttpResponse) and response.is_async:
        response.streaming_content = _present_while_open(response.streaming_content, room_id, user_id)  # type: ignore[arg-type]
    return response


async def _present_while_open(stream: AsyncIterator[bytes], room_id: int, user_id: int) -> AsyncIterator[bytes]:
    """Pass the stream through, marking the member seen (a cache write, at most every
    :data:`live.presence.THROTTLE` seconds: the stream's keep-alives come every 20 s)."""
    marked = 0.0
    async for chunk in stream:
        if time.monotonic() - marked >= presence.THROTTLE:
            marked = time.monotonic()
            await presence.amark_seen(room_id, user_id)
        yield chunk


@require_POST
def room_code_rotate(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    _load(request, room_id, at_least=Role.OWNER)
    try:
        services.room_code_rotate(user=request.user, room_id=room_id)
    except DropshipError as exc:  # an invite-only room (a campaign's) has no code to issue
        messages.error(request, exc.message)
    return redirect("live:room", room_id=room_id)


@require_POST
def room_code_revoke(request: HtmxHttpRequest, room_id: int) -> HttpResponse:
    _load(request, room_id, at_least=Role.OWNER)
    services.room_code_revoke(user=request.user, room_id=room_id)
    messages.success(request, "Join code revoked: nobody new can join until you issue a new one.")
    return redirect("live:room", room_id=room_id)
