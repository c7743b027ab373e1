"""HTML screens for Five Parsecs campaigns: the list and set-up, the campaign page (crew, ship,
contacts, world), a crew member's sheet, the guided turn, table slots, members, the log, the
printable crew sheet, and export/import with progress.

Every write posts to one of the named actions in :data:`ACTIONS`, which read the form and call
a service. An error comes back on the page it was made on, with status 400 (or 409 for a stale
write), naming the field, with what was typed still in the form.
"""

from __future__ import annotations

import json
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

from campaigns import crew_services, loan_services, quest_services, selectors, services, task_services, turn_services
from campaigns.engine import characters as ch
from campaigns.engine import difficulty, psionics, quests, tasks
from campaigns.engine import ship as ship_engine
from campaigns.engine.options import BOOL_OPTIONS, CREW_SIZES, ELITE_MODES, PSIONICS_MODES, TOGGLES
from campaigns.engine.slots import SLOTS
from campaigns.models import Campaign, CampaignJob
from campaigns.permissions import EDITOR, ROLE_NAMES, campaign_for
from live.engine.tracker import Role
from live.models import Membership
from rules import bounds
from rules.errors import DropshipError, NotFound
from rules.forms import posted_faces as _faces
from rules.forms import posted_flag as _flag
from rules.forms import posted_int, typed_back
from rules.jobs import QueueUnavailable
from rules.models import RuleTable

OPTION_LABELS = {
    "introductory_campaign": "Introductory Campaign (p.104)",
    "loans": "Loans: Who Do You Owe? (p.152)",
    "story_track": "The Story Track (core p.153)",
    "expanded_factions": "Expanded Factions (p.110)",
    "fringe_world_strife": "Fringe World Strife (p.148)",
    "dramatic_combat": "Dramatic Combat (p.87)",
    "casualty_tables": "Casualty tables (p.99)",
    "detailed_injuries": "Detailed Post-battle Injuries (p.101)",
    "expanded_connections": "Expanded Connections (p.80)",
    "connections_no_roll": "Expanded Connections: no-roll option, every other Opportunity mission (p.81)",
}


def _campaign(request: HttpRequest, campaign_id: int) -> tuple[Campaign, Role]:
    try:
        return campaign_for(request.user, campaign_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc


def _version(request: HttpRequest) -> int | None:
    raw = request.POST.get("version", "")
    return int(raw) if raw.isdecimal() else None


STATS = ("reactions", "speed", "combat_skill", "toughness", "savvy", "luck")
LOG_PAGE = 100  # log lines per page: a long campaign's log stays a quick page
#: The range of each number field of the campaign forms (by the rules and the column it is
#: stored in); any other number is an id or a count within an integer column.
RANGES: dict[str, tuple[int, int]] = {
    **{key: (-bounds.MONEY, bounds.MONEY) for key in ("credits", "story_points", "step_credits", "step_story_points")},
    **{key: (0, bounds.MONEY) for key in ("debt", "core_cost", "course_credits", "cost_reduction", "loan_credits")},
    **{key: (0, bounds.SMALL_MAX) for key in ("hull", "max_hull")},
    **{f"{prefix}{key}": (-bounds.STAT, bounds.STAT) for key in STATS for prefix in ("", "stat_", "profile_")},
    "xp": (0, bounds.XP),
    "task_modifier": (-10, 10),
    "sick_bay": (0, bounds.TURNS),
    "value": (0, bounds.ROLL_MAX),
    **{key: (2, 6) for key in ("saving_throw", "bot_save")},  # a Saving Throw as a D6 target (p.26)
    "face": (0, bounds.FACE_MAX),
    **{key: (0, bounds.FACE_MAX) for key in ("facilities_value", "search_face")},
    **{key: (0, bounds.STAT) for key in ("shots", "damage", "credits_results", "patrons", "rivals", "predict_swap")},
}


def _int(request: HttpRequest, key: str, default: int | None = 0) -> int | None:
    low, high = RANGES.get(key, (0, bounds.ID_MAX))
    return posted_int(request, key, default, low=low, high=high)


def _toggle_rows() -> list[dict[str, str]]:
    table = RuleTable.objects.filter(slug="difficulty-toggles", owner__isnull=True).prefetch_related("entries").first()
    if table is None:
        return [{"key": t, "label": t.replace("_", " "), "group": ""} for t in TOGGLES]
    return [
        {"key": e.data["toggle"], "label": e.result, "group": e.data.get("group", ""), "effect": e.effect}
        for e in table.entries.order_by("position")
    ]


def options_from_post(request: HttpRequest) -> dict[str, Any]:
    """The set-up form's options as the engine's option mapping."""
    data: dict[str, Any] = {name: _flag(request, name) for name in BOOL_OPTIONS}
    data.update(
        crew_size=request.POST.get("crew_size", "6"),
        victory_condition=request.POST.get("victory_condition", ""),
        difficulty_mode=request.POST.get("difficulty_mode", ""),
        toggles=request.POST.getlist("toggles"),
        progressive=request.POST.getlist("progressive"),
        psionics=request.POST.get("psionics", "off"),
        elite_enemies=request.POST.get("elite_enemies", "never"),
        house_rules=request.POST.get("house_rules", ""),
    )
    return data


def _setup_context() -> dict[str, Any]:
    return {
        "crew_sizes": CREW_SIZES,
        "bool_options": [(name, OPTION_LABELS[name]) for name in BOOL_OPTIONS],
        "toggle_rows": _toggle_rows(),
        "psionics_modes": PSIONICS_MODES,
        "elite_modes": ELITE_MODES,
    }


# -- list and set-up ---------------------------------------------------------------------------


@login_required
@require_GET
def campaign_list(request: HttpRequest) -> HttpResponse:
    """The user's campaigns (own and shared; ``?q=`` filters) and the set-up form (p.8)."""
    query = request.GET.get("q", "").strip()
    context = {"campaigns": selectors.campaign_list(user=request.user, search=query), "query": query, **_setup_context()}
    return render(request, "campaigns/campaign_list.html", context)


@login_required
@require_POST
def campaign_create(request: HttpRequest) -> HttpResponse:
    try:
        campaign = services.campaign_create(
            user=request.user,
            name=request.POST.get("name", ""),
            crew_name=request.POST.get("crew_name", ""),
            ship_name=request.POST.get("ship_name", ""),
            options=options_from_post(request),
        )
    except DropshipError as exc:
        context = {
            "campaigns": selectors.campaign_list(user=request.user),
            "error": exc,
            "form": request.POST,
            "chosen": options_from_post(request),
            **_setup_context(),
        }
        return render(request, "campaigns/campaign_list.html", context, status=exc.status)
    return redirect("campaigns:detail", campaign_id=campaign.pk)


# -- pages ---------------------------------------------------------------------------------------


def _context(request: HttpRequest, campaign: Campaign, role: Role, **extra: Any) -> dict[str, Any]:
    options = services.options_of(campaign)
    tables = selectors.fiveparsecs_tables()
    characters = list(campaign.characters.all())
    ship = getattr(campaign, "ship", None) if hasattr(campaign, "ship") else None
    turn = selectors.current_turn(campaign)
    members = Membership.objects.filter(room=campaign.room).exclude(user_id=campaign.owner_id).select_related("user")
    return {
        "campaign": campaign,
        "role": role.value,
        "role_name": ROLE_NAMES[role],
        "can_edit": role in (Role.OWNER, Role.PLAYER),
        "is_owner": role == Role.OWNER,
        "options": options,
        "option_labels": OPTION_LABELS,
        "characters": characters,
        "active": [c for c in characters if c.status in ("active", "sick_bay")],
        "gone": [c for c in characters if c.status in ("dead", "gone")],
        "ship": ship,
        "fuel_components": ship_engine.fuel_relevant_components(crew_services.ship_engine_of(ship)) if ship else 0,
        "world": services.current_world(campaign),
        "turn": turn,
        "step": turn.plan[turn.position] if turn and turn.position < len(turn.plan) else None,
        "members": members,
        "slots": selectors.slot_tables(campaign),
        "slot_list": SLOTS,
        "recent": list(campaign.log.order_by("-id")[:8]),
        "last_change": selectors.last_change(campaign),
        "starting_crew": difficulty.starting_crew_count(options),
        "starting_kit": difficulty.starting_kit(options),
        "crew_tasks": [
            (key, label)
            for key, label in tasks.TASK_NAMES.items()
            if key != quests.WORK_TASK or (campaign.quest_step.get("pending") or {}).get("kind") == "work"
        ],
        "quest_pending": quests.pending_words(campaign.quest_step),
        "quest_lasting": quests.lasting_words(campaign.quest_step),
        "species_choices": ["krag", "skulker", *sorted(crew_services.presets(campaign))],
        "kinds": [k for k, _ in campaign.characters.model.KINDS],
        "power_names": psionics.power_names(tables),
        "stats": ("reactions", "speed", "combat_skill", "toughness", "savvy", "luck"),
        "form": request.POST if request.method == "POST" else {},
        "toggle_rows": _toggle_rows(),
        **extra,
    }


@login_required
@require_GET
def campaign_detail(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign: money, crew, ship, world, contacts, the turn in play and recent log lines."""
    campaign, role = _campaign(request, campaign_id)
    return render(request, "campaigns/campaign_detail.html", _context(request, campaign, role))


@login_required
@require_GET
def character_detail(request: HttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    """One crew member's sheet with everything that can happen to them."""
    campaign, role = _campaign(request, campaign_id)
    member = campaign.characters.filter(pk=character_id).first()
    if member is None:
        raise Http404("No such crew member.")
    return render(request, "campaigns/character_detail.html", _character_context(request, campaign, role, member))


def _character_context(request: HttpRequest, campaign: Campaign, role: Role, member: Any, **extra: Any) -> dict[str, Any]:
    tables = selectors.fiveparsecs_tables()
    sheet = crew_services.to_engine(member)
    return _context(
        request,
        campaign,
        role,
        member=member,
        sheet=sheet,
        can_dash=ch.can_dash(sheet, tables),
        saving_throw=ch.saving_throw(sheet, tables),
        protection_kinds=ch.PROTECTION_KINDS,
        courses=[e.result for e in tables["compendium-advanced-training"].rows()],
        bot_upgrades=[e.result for e in tables["bot-upgrades"].rows()],
        weapons=[e.result for e in tables["dramatic-weapons"].rows()],
        injury_penalties=ch.injury_penalties(sheet, tables),
        battle_profile=ch.battle_stats(sheet, tables),
        medical=crew_services.medical_here(campaign),
        **extra,
    )


@login_required
@require_GET
def turn_detail(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The guided campaign turn (p.9): the step to play, its forms, and the steps done."""
    campaign, role = _campaign(request, campaign_id)
    context = _turn_context(request, campaign, role)
    return render(request, context["partial"] or "campaigns/turn.html", context)


def _turn_context(request: HttpRequest, campaign: Campaign, role: Role, **extra: Any) -> dict[str, Any]:
    context = _context(request, campaign, role, **extra)
    turn = context["turn"] or campaign.turns.order_by("-number").first()
    context["shown_turn"] = turn
    context["done_steps"] = list(turn.steps.order_by("index", "id")) if turn else []
    context["guide"] = turn_services.step_guide(campaign, turn) if turn and not turn.finished else None
    context["fight_line"] = selectors.fight_line(campaign)
    context["turn_battles"] = selectors.turn_battles(campaign) if turn else []
    context["typed"] = _turn_typed(request)
    template = "campaigns/turn.html#turn" if getattr(request, "htmx", False) and not extra.get("full") else None
    context["partial"] = template
    return context


def _turn_typed(request: HttpRequest) -> dict[str, Any]:
    """A refused turn form's values (:func:`rules.forms.typed_back`), named for the form posted:
    the action (``step``, ``crew_task``, ``fight_pick``), or ``manual`` and ``skip`` for the
    step's "Record by hand" and "Skip" forms, which post the same action."""
    form = str(request.resolver_match.kwargs.get("action", "")) if request.resolver_match else ""
    if form == "step" and request.POST.get("mode") in ("manual", "skip"):
        form = request.POST["mode"]
    return typed_back(request, form)


@login_required
@require_GET
def log_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign log, filterable by kind, turn and words; each line has a permalink."""
    campaign, role = _campaign(request, campaign_id)
    kind = request.GET.get("kind", "")
    search = request.GET.get("q", "").strip()
    raw_turn = request.GET.get("turn", "")
    turn = int(raw_turn) if raw_turn.isdecimal() else None
    entries = selectors.log_list(campaign=campaign, kind=kind, turn=turn, search=search)
    page = Paginator(entries, LOG_PAGE).get_page(request.GET.get("page"))  # a bad ?page= shows the first or last page
    kinds = sorted(set(campaign.log.values_list("kind", flat=True).distinct()))
    context = {
        "campaign": campaign,
        "entries": page,
        "page": page,
        "kind": kind,
        "kinds": kinds,
        "turn": raw_turn,
        "query": search,
        "turns": sorted(set(campaign.log.values_list("turn", flat=True).distinct())),
        "role": role.value,
    }
    return render(request, "campaigns/log.html", context)


@login_required
@require_GET
def log_entry(request: HttpRequest, campaign_id: int, entry_id: int) -> HttpResponse:
    """One log line with its roll records and changes (a permalink)."""
    campaign, role = _campaign(request, campaign_id)
    entry = campaign.log.filter(pk=entry_id).first()
    if entry is None:
        raise Http404("No such log line.")
    return render(request, "campaigns/log_entry.html", {"campaign": campaign, "entry": entry, "role": role.value})


@login_required
@require_GET
def crew_sheet(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """A printable crew sheet (print CSS hides the navigation)."""
    campaign, role = _campaign(request, campaign_id)
    return render(request, "campaigns/crew_sheet.html", _context(request, campaign, role))


# -- writes ------------------------------------------------------------------------------------


def _common(request: HttpRequest, campaign: Campaign) -> dict[str, Any]:
    return {"user": request.user, "campaign_id": campaign.pk, "version": _version(request)}


def _character(request: HttpRequest) -> int:
    value = _int(request, "character", None)
    if value is None:
        raise DropshipError("character is required: pick a crew member.", field="character")
    return value


def _stat_changes(request: HttpRequest) -> dict[str, int]:
    return {s: _int(request, f"stat_{s}") or 0 for s in STATS}


def _profile(request: HttpRequest) -> dict[str, int] | None:
    keys = STATS
    if not any(request.POST.get(f"profile_{k}", "").strip() for k in keys):
        return None
    return {k: _int(request, f"profile_{k}") or 0 for k in keys if request.POST.get(f"profile_{k}", "").strip() or k != "luck"}


ActionFn = Callable[[HttpRequest, Campaign], Any]

ACTIONS: dict[str, ActionFn] = {
    "options": lambda r, c: services.campaign_update(**_common(r, c), name=r.POST.get("name"), options=options_from_post(r)),
    "adjust": lambda r, c: services.campaign_adjust(
        **_common(r, c),
        credits=_int(r, "credits") or 0,
        story_points=_int(r, "story_points") or 0,
        reason=r.POST.get("reason", ""),
    ),
    "contact_add": lambda r, c: services.contact_add(
        **_common(r, c),
        kind=r.POST.get("kind", ""),
        name=r.POST.get("name", ""),
        notes=r.POST.get("notes", ""),
        elite=_flag(r, "elite"),
    ),
    "contact_remove": lambda r, c: services.contact_remove(
        **_common(r, c), kind=r.POST.get("kind", ""), contact_id=_int(r, "contact") or 0
    ),
    "slot": lambda r, c: services.slot_set(**_common(r, c), slot_key=r.POST.get("slot", ""), table_slug=r.POST.get("table", "")),
    "member_invite": lambda r, c: services.member_invite(
        user=r.user, campaign_id=c.pk, username=r.POST.get("username", ""), role=r.POST.get("member_role", "")
    ),
    "member_remove": lambda r, c: services.member_remove(user=r.user, campaign_id=c.pk, member_id=_int(r, "member") or 0),
    "character_create": lambda r, c: crew_services.character_create(
        **_common(r, c),
        name=r.POST.get("name", ""),
        species=r.POST.get("species", "") or "human",
        kind=r.POST.get("kind") or None,
        profile=_profile(r),
        psionic=_flag(r, "psionic"),
        payment=r.POST.get("payment") or None,
        captain=_flag(r, "captain"),
        power_faces=_faces(r, "power_faces"),
        duplicate_choice=r.POST.get("duplicate_choice") or None,
        predict_swap=_int(r, "predict_swap", None),
    ),
    "creation_results": lambda r, c: crew_services.character_creation_results(
        **_common(r, c),
        character_id=_character(r),
        stat_changes=_stat_changes(r),
        credits_results=_int(r, "credits_results") or 0,
        credits_faces=_faces(r, "credits_faces"),
        patrons=_int(r, "patrons") or 0,
        rivals=_int(r, "rivals") or 0,
    ),
    "advance": lambda r, c: crew_services.character_advance(
        **_common(r, c), character_id=_character(r), stat=r.POST.get("stat", "")
    ),
    "power": lambda r, c: crew_services.character_power(
        **_common(r, c),
        character_id=_character(r),
        action=r.POST.get("power_action", ""),
        power=r.POST.get("power", ""),
        face=_int(r, "face", None),
        choice=r.POST.get("choice") or None,
    ),
    "training": lambda r, c: crew_services.character_training(
        **_common(r, c), character_id=_character(r), course=r.POST.get("course", ""), credits=_int(r, "course_credits", None)
    ),
    "bot_upgrade": lambda r, c: crew_services.character_bot_upgrade(
        **_common(r, c),
        character_id=_character(r),
        upgrade=r.POST.get("upgrade", ""),
        shots=_int(r, "shots", None),
        damage=_int(r, "damage", None),
        cost_reduction=_int(r, "cost_reduction") or 0,
    ),
    "implant": lambda r, c: crew_services.character_implant(
        **_common(r, c), character_id=_character(r), implant=r.POST.get("implant", "")
    ),
    "equip": lambda r, c: crew_services.character_equip(
        **_common(r, c),
        character_id=_character(r),
        item=r.POST.get("item", ""),
        traits=[t.strip() for t in r.POST.get("traits", "").split(",") if t.strip()],
        remove=_flag(r, "remove"),
    ),
    "protection": lambda r, c: crew_services.character_protection(
        **_common(r, c),
        character_id=_character(r),
        name=r.POST.get("name", ""),
        kind=r.POST.get("kind", ""),
        saving_throw=_int(r, "saving_throw", None),
        remove=_flag(r, "remove"),
    ),
    "bot_save": lambda r, c: crew_services.character_bot_save(
        **_common(r, c), character_id=_character(r), bot_save=_int(r, "bot_save", None)
    ),
    "injury": lambda r, c: crew_services.character_injury(
        **_common(r, c),
        character_id=_character(r),
        injury=r.POST.get("injury", ""),
        sick_bay=_int(r, "sick_bay") or 0,
        status=r.POST.get("status", ""),
    ),
    "treat": lambda r, c: crew_services.character_treat(
        **_common(r, c),
        character_id=_character(r),
        injury=r.POST.get("injury", ""),
        searcher=_int(r, "searcher", None),
        facilities_value=_int(r, "facilities_value", None),
        search_face=_int(r, "search_face", None),
    ),
    "character_update": lambda r, c: crew_services.character_update(
        **_common(r, c),
        character_id=_character(r),
        name=r.POST.get("name"),
        notes=r.POST.get("notes"),
        captain=_flag(r, "captain"),
        values={k: _int(r, k) or 0 for k in crew_services.EDITABLE if r.POST.get(k, "").strip()},
    ),
    "ship": lambda r, c: crew_services.ship_update(
        **_common(r, c),
        name=r.POST.get("ship_name", ""),
        hull=_int(r, "hull") or 0,
        max_hull=_int(r, "max_hull") or 0,
        debt=_int(r, "debt") or 0,
    ),
    "component": lambda r, c: crew_services.ship_component(
        **_common(r, c),
        name=r.POST.get("component", ""),
        core_cost=_int(r, "core_cost", None),
        miniaturized=_flag(r, "miniaturized"),
        retrofit=_flag(r, "retrofit"),
    ),
    "turn_start": lambda r, c: turn_services.turn_start(**_common(r, c)),
    "step": lambda r, c: turn_services.step_resolve(
        **_common(r, c),
        mode=r.POST.get("mode", "roll"),
        value=_int(r, "value", None),
        inputs={k.removeprefix("input_"): (v if len(v) > 1 else v[0]) for k, v in r.POST.lists() if k.startswith("input_")},
        text=r.POST.get("text", ""),
        credits=_int(r, "step_credits") or 0,
        story_points=_int(r, "step_story_points") or 0,
    ),
    "step_undo": lambda r, c: turn_services.step_undo(**_common(r, c)),  # as the API's turns/current/undo/
    "undo": lambda r, c: turn_services.change_undo(**_common(r, c)),
    "species_roll": lambda r, c: crew_services.species_roll(**_common(r, c), value=_int(r, "value", None)),
    "name_roll": lambda r, c: services.name_roll(**_common(r, c), recipe=r.POST.get("recipe", ""), use=r.POST.get("use", "")),
    "fight_pick": lambda r, c: crew_services.fight_pick(**_common(r, c), face=_int(r, "face", None)),
    "crew_task": lambda r, c: task_services.crew_task(
        **_common(r, c),
        character_id=_character(r),
        task=r.POST.get("task", ""),
        modifier=_int(r, "task_modifier") or 0,
        face=_int(r, "face", None),
    ),
    "starting_kit": lambda r, c: task_services.starting_kit(**_common(r, c)),
    "loan_pay": lambda r, c: loan_services.loan_pay(**_common(r, c), credits=_int(r, "loan_credits") or 0),
    "quest_start": lambda r, c: quest_services.quest_start(**_common(r, c), name=r.POST.get("quest_name", "")),
    "quest_pay": lambda r, c: quest_services.quest_pay(**_common(r, c)),
    "loan_seizure": lambda r, c: loan_services.loan_seizure_end(**_common(r, c), end=r.POST.get("end", "")),
}
#: The role each action needs when it is not an editor's (the services check it again).
ACTION_ROLES = {"options": Role.OWNER, "slot": Role.OWNER, "member_invite": Role.OWNER, "member_remove": Role.VIEWER}
PAGES = {"detail", "character", "turn", "settings"}


@login_required
@require_POST
def act(request: HttpRequest, campaign_id: int, action: str) -> HttpResponse:
    """Carry out one named write, then go back to the page it came from (``page``)."""
    campaign, role = _campaign(request, campaign_id)
    page = request.POST.get("page", "detail")
    page = page if page in PAGES else "detail"
    if action not in ACTIONS:
        raise Http404(f"No campaign action {action!r}.")
    try:
        # the role first: someone who may not do this learns that, not what was wrong with the form
        campaign_for(request.user, campaign_id, at_least=ACTION_ROLES.get(action, EDITOR))
        result = ACTIONS[action](request, campaign)
    except DropshipError as exc:
        campaign.refresh_from_db()
        return _error_page(request, campaign, role, page, exc)
    if action == "character_create" and result is not None:
        return redirect("campaigns:character", campaign_id=campaign.pk, character_id=result.pk)
    if action == "species_roll":
        return redirect(f"{reverse('campaigns:detail', args=[campaign.pk])}?species={result}#new-member")
    return redirect(_page_url(request, campaign, page))


def _page_url(request: HttpRequest, campaign: Campaign, page: str) -> str:
    if page == "character" and request.POST.get("character", "").isdecimal():
        return reverse("campaigns:character", args=[campaign.pk, int(request.POST["character"])])
    if page == "turn":
        return reverse("campaigns:turn", args=[campaign.pk])
    if page == "settings":
        return reverse("campaigns:settings", args=[campaign.pk])
    return reverse("campaigns:detail", args=[campaign.pk])


def _error_page(request: HttpRequest, campaign: Campaign, role: Role, page: str, exc: DropshipError) -> HttpResponse:
    if page == "character" and request.POST.get("character", "").isdecimal():
        member = campaign.characters.filter(pk=int(request.POST["character"])).first()
        if member is not None:
            context = _character_context(request, campaign, role, member, error=exc)
            return render(request, "campaigns/character_detail.html", context, status=exc.status)
    if page == "turn":
        return render(
            request, "campaigns/turn.html", _turn_context(request, campaign, role, error=exc, full=True), status=exc.status
        )
    if page == "settings":
        return render(
            request,
            "campaigns/settings.html",
            {**_context(request, campaign, role, error=exc), **_setup_context(), "chosen": options_from_post(request)},
            status=exc.status,
        )
    return render(request, "campaigns/campaign_detail.html", _context(request, campaign, role, error=exc), status=exc.status)


@login_required
@require_GET
def settings_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Options, table slots and co-op members."""
    campaign, role = _campaign(request, campaign_id)
    context = {
        **_context(request, campaign, role),
        **_setup_context(),
        "chosen": campaign.options,
        "my_tables": RuleTable.objects.filter(owner_id=request.user.pk).order_by("title"),
        "fixture_tables": RuleTable.objects.filter(owner__isnull=True, system__slug="fiveparsecs").order_by("title"),
    }
    return render(request, "campaigns/settings.html", context)


# -- export and import -----------------------------------------------------------------------------


def _queue_refused(request: HttpRequest, exc: QueueUnavailable) -> HttpResponse:
    """The job page of a job the broker refused (it is failed, saying to try again): 503."""
    job = CampaignJob.objects.filter(pk=int(exc.extra.get("job") or 0), owner_id=request.user.pk).first()
    if job is None:
        response = render(request, "campaigns/import.html", {"error": exc}, status=exc.status)
    else:
        response = render(request, "campaigns/job.html", {"job": job, "progress": job.progress}, status=exc.status)
    for header, value in exc.headers.items():
        response[header] = value
    return response


@login_required
@require_POST
def export_start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Start an export job and show its progress."""
    campaign, _ = _campaign(request, campaign_id)
    try:
        job = services.job_start(user=request.user, kind="export", campaign=campaign)
    except QueueUnavailable as exc:
        return _queue_refused(request, exc)
    return redirect("campaigns:job", job_id=job.pk)


@login_required
@require_http_methods(["GET", "POST"])
def import_view(request: HttpRequest) -> HttpResponse:
    """Upload an export (a .json file or pasted text); the import runs as a job with progress.
    A file or text over ``services.MAX_IMPORT_BYTES`` is refused unread (400)."""
    if request.method == "POST":
        upload = request.FILES.get("file")
        try:
            if upload:
                services.import_size_check(upload.size or 0, field="file")
                text = upload.read().decode("utf-8", errors="replace")
            else:
                text = request.POST.get("text", "")
                services.import_size_check(len(text.encode()), field="text")
        except DropshipError as exc:
            return render(request, "campaigns/import.html", {"error": exc}, status=exc.status)
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            error = DropshipError(f"file: this is not JSON ({exc.msg} at line {exc.lineno}).", field="file")
            return render(request, "campaigns/import.html", {"error": error, "text": text}, status=400)
        try:
            job = services.job_start(user=request.user, kind="import", document=doc)
        except QueueUnavailable as exc:
            return _queue_refused(request, exc)
        except DropshipError as exc:
            return render(request, "campaigns/import.html", {"error": exc}, status=exc.status)
        return redirect("campaigns:job", job_id=job.pk)
    return render(request, "campaigns/import.html", {})


@login_required
@require_GET
def job_detail(request: HttpRequest, job_id: int) -> HttpResponse:
    """A job's progress; the page polls itself (HTMX) until the job is done or failed. A job
    whose worker was lost is ended here (``services.job_sweep``), which stops the polling."""
    services.job_sweep(user=request.user, job_id=job_id)
    job = CampaignJob.objects.filter(pk=job_id, owner_id=request.user.pk).first()
    if job is None:
        raise Http404("No such job of yours.")
    template = "campaigns/job.html#progress" if getattr(request, "htmx", False) else "campaigns/job.html"
    return render(request, template, {"job": job, "progress": services.job_progress(job)})


@login_required
@require_GET
def job_download(request: HttpRequest, job_id: int) -> HttpResponse:
    """The export document of a finished export job, as a .json download."""
    job = CampaignJob.objects.filter(pk=job_id, owner_id=request.user.pk, kind="export", state="done").first()
    if job is None or job.document is None:
        raise Http404("No finished export of yours.")
    # the name is user text (quotes, line breaks, any script): only its slug reaches the header
    stem = slugify(job.document.get("campaign", {}).get("name") or "", allow_unicode=True) or "campaign"
    filename = f"{stem}-{job.campaign_id or job.pk}.dropship.json"
    response = JsonResponse(job.document, json_dumps_params={"indent": 1, "sort_keys": True})
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return response
