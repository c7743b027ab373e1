"""HTML screens for Five Parsecs battles: the list and set-up form, the printable set-up card,
the no-minis screen (Compendium pp.66-73) and the odds job page.

Every write posts to one of the named actions in :data:`ACTIONS`, which read the form and call a
service in :mod:`battles.services`. An error comes back on the page it was made on (``page``:
``detail`` or ``nominis``) with status 400 (409 for a stale write, 403 for a reader), naming the
field, with what was typed still in the form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from battles import inputs, nominis_services, odds_services, result_services, selectors, services, tracker_services
from battles.engine import fp_enemies, fp_setup, fp_tracker, nominis
from battles.models import Battle, BattleJob
from campaigns.models import Campaign, Rival
from campaigns.selectors import fiveparsecs_tables
from live.models import Membership
from rules.errors import DropshipError, NotFound
from rules.forms import posted_faces as _faces
from rules.forms import posted_flag as _flag
from rules.forms import posted_int
from rules.inputs import validated
from rules.jobs import QueueUnavailable

#: Crew rows on the standalone set-up form (the largest crew size, p.8).
CREW_ROWS = 6
#: The stances of automatic play (p.72 Retreat) as the forms offer them: (value, label, what it does).
STANCE_CHOICES: tuple[tuple[str, str, str], ...] = (
    ("cautious", "Cautious", "withdraws once a figure is down and half the crew is down or outnumbered 2 to 1"),
    ("steady", "Steady", "withdraws when half the crew is down and outnumbered 2 to 1"),
    ("reckless", "Reckless", "never withdraws"),
)

#: Runs offered on the odds form when none is typed.
DEFAULT_RUNS = 200
#: Profile columns of a standalone crew row.
CREW_STATS: tuple[tuple[str, str, str], ...] = (
    ("reactions", "Reactions", "React."),
    ("speed", "Speed", "Speed"),
    ("combat_skill", "Combat Skill", "Combat"),
    ("toughness", "Toughness", "Tough."),
    ("savvy", "Savvy", "Savvy"),
)
#: Error fields the services name (``enemy.`` prefix taken off), mapped to the set-up form's input.
FIELD_INPUTS: Mapping[str, str] = {
    "campaign": "campaign",
    "campaign_id": "campaign",
    "rival_id": "rival",
    "campaign_turn": "campaign_turn",
    "title": "title",
    "theme": "theme",
    "source": "mission_source",
    "mission_source": "mission_source",
    "ai_type": "ai_type",
    "category": "category",
    "name": "enemy_name",
    "numbers": "enemy_numbers",
    "base_numbers": "base_numbers",
    "weapon_profiles": "weapon_profiles",
    "basic_weapon": "basic_weapon",
    "specialist_weapon": "specialist_weapon",
    "panic": "enemy_panic",
    "speed": "enemy_speed",
    "combat_skill": "enemy_combat_skill",
    "toughness": "enemy_toughness",
    "weapons": "enemy_weapons",
    "save": "enemy_save",
    "specialists": "specialists",
    "lieutenants": "lieutenants",
    "enemy": "enemy",
    "elite": "enemy",
    "crew": "crew",
    "crew_size": "crew",
    "hit_numbers": "hit_open",
    "core": "hit_open",
    "open": "hit_open",
    "cover": "hit_cover",
    "runs": "runs",
}
_CREW_FIELD = re.compile(r"^crew\[(\d+)\](?:\.(\w+))?")
#: Battle options on the set-up form: the no-minis ones (p.70 Hectic and Faster Combat, p.71
#: Battle flow events) for every battle, Dramatic Combat (p.87) for a standalone one.
BATTLE_FLAGS: tuple[tuple[str, str], ...] = (
    ("battle_flow", "Battle flow events (p.71)"),
    ("hectic", "Hectic Combat (p.70)"),
    ("faster", "Faster Combat (p.70)"),
)
SOURCE_LABELS: Mapping[str, str] = {
    "opportunity": "Opportunity mission",
    "patron": "Patron mission",
    "rival": "Rival mission",
    "quest": "Quest mission",
    "faction": "Faction mission",
    "invasion": "Invasion battle",
    "salvage": "Salvage job (p.137)",
}
#: The no-minis phases (pp.66-72) as the screen names them.
PHASES: Mapping[str, str] = {
    "flow": "Battle flow event",
    "initiative": "Initiative: roll",
    "assign": "Initiative: assign dice",
    "actions": "Initiative Actions",
    "firefight": "Firefight",
    "end": "End of the round",
    "retreat": "Retreat",
    "over": "Battle over",
}
#: What a pending question asks, with ``{crew}`` and ``{enemy}`` from the question.
PENDING: Mapping[str, str] = {
    "fleeting_shot": "Fleeting shot for {crew}: pick a target.",
    "find_shortcut": "Find shortcut: where does {crew} go?",
    "careful_maneuvering": "Careful maneuvering: which enemy cannot attack?",
    "covered_retreat": "Covered retreat: who withdraws?",
    "charge": "{crew}'s Charge worked: Brawl {enemy}?",
    "optimal_shot": "Optimal Shot: at what range does {crew} fire on {enemy}?",
    "support": "Support: who faces {enemy}?",
    "respond": "{enemy} engages {crew}: how does {crew} respond?",
}
#: Events shown before the rest of the log folds away.
RECENT_EVENTS = 30
RANK_ORDER = {rank: i for i, rank in enumerate(fp_enemies.RANKS)}
PAGES = {"detail", "nominis"}


# -- small readers -------------------------------------------------------------------------------


def _battle(request: HttpRequest, battle_id: int) -> Battle:
    try:
        return selectors.battle_for(request.user, battle_id)
    except NotFound as exc:
        raise Http404(exc.message) from exc


def _version(request: HttpRequest) -> int | None:
    raw = request.POST.get("version", "")
    return int(raw) if raw.isdecimal() else None


def _int(request: HttpRequest, key: str, default: int | None = 0, *, field: str | None = None) -> int | None:
    """A whole number from the form within an integer column's range; the service names the
    field when it is outside the rule's."""
    return posted_int(request, key, default, field=field)


def bad_input(field: str | None, rows: Sequence[int] = ()) -> str:
    """The set-up form input to mark for an error naming ``field`` (``enemy.speed`` ->
    ``enemy_speed``, ``crew[1].speed`` -> ``crew-<row>-speed``, ``crew[0].weapons[0]`` ->
    ``crew-<row>-weapon``, ``hit_numbers.cover`` -> ``hit_cover``, ``options.x`` -> ``x``).
    ``rows``: the form row of each crew figure sent (empty rows are skipped)."""
    name = str(field or "")
    crew = _CREW_FIELD.match(name)
    if crew:
        position, key = crew.groups()
        index = rows[int(position)] if int(position) < len(rows) else int(position)
        if not key:
            return f"crew-{index}-name"
        return f"crew-{index}-{'weapon' if key == 'weapons' else key}"
    for prefix in ("enemy.", "hit_numbers.", "options."):
        if name.startswith(prefix):
            rest = name.removeprefix(prefix)
            if prefix == "options.":
                return rest
            if rest.startswith("weapon_profiles"):
                return "weapon_profiles"
            return FIELD_INPUTS.get(rest, f"enemy_{rest}")
    return FIELD_INPUTS.get(name, name)


# -- the set-up form -------------------------------------------------------------------------------


def _editable_campaigns(user: Any) -> list[Campaign]:
    """Campaigns the user may write to (owner or editor), newest first."""
    rooms = Membership.objects.filter(user=user, role__in=("owner", "player")).values("room_id")
    found = Campaign.objects.filter(Q(owner=user) | Q(room_id__in=rooms)).distinct().order_by("-updated", "-id")
    return list(found)


def _crew_rows(request: HttpRequest) -> list[dict[str, Any]]:
    """The standalone crew rows as typed (for the form) - every row, named or not."""
    rows = []
    for i in range(CREW_ROWS):
        row: dict[str, Any] = {
            "index": i,
            "name": request.POST.get(f"crew-{i}-name", ""),
            "name_input": f"crew-{i}-name",
            "weapon": request.POST.get(f"crew-{i}-weapon", ""),
            "weapon_input": f"crew-{i}-weapon",
        }
        row["stats"] = [
            {"input": f"crew-{i}-{k}", "label": label, "short": short, "value": request.POST.get(f"crew-{i}-{k}", "")}
            for k, label, short in CREW_STATS
        ]
        rows.append(row)
    return rows


def _named_rows(request: HttpRequest) -> list[int]:
    return [i for i in range(CREW_ROWS) if request.POST.get(f"crew-{i}-name", "").strip()]


def _crew_from_post(request: HttpRequest) -> list[dict[str, Any]] | None:
    """Standalone crew figures (rows with a name); ``None`` when no row is filled."""
    crew: list[dict[str, Any]] = []
    for i in range(CREW_ROWS):
        name = request.POST.get(f"crew-{i}-name", "").strip()
        if not name:
            continue
        figure: dict[str, Any] = {"name": name}
        for key, _, _ in CREW_STATS:
            value = _int(request, f"crew-{i}-{key}", None, field=f"crew[{len(crew)}].{key}")
            if value is not None:
                figure[key] = value
        weapon = request.POST.get(f"crew-{i}-weapon", "").strip()
        figure["weapons"] = [weapon] if weapon else []
        figure["captain"] = not crew
        crew.append(figure)
    return crew or None


def _typed_profile(request: HttpRequest) -> dict[str, Any]:
    """The enemy profile fields as typed (empty ones are ``None`` or ``""``)."""
    return {
        "name": request.POST.get("enemy_name", "").strip(),
        "numbers": _int(request, "enemy_numbers", None, field="numbers"),
        "panic": request.POST.get("enemy_panic", "").strip(),
        "speed": _int(request, "enemy_speed", None, field="speed"),
        "combat_skill": _int(request, "enemy_combat_skill", None, field="combat_skill"),
        "toughness": _int(request, "enemy_toughness", None, field="toughness"),
        "weapons": request.POST.get("enemy_weapons", "").strip(),
        "save": _int(request, "enemy_save", None, field="save"),
    }


def _weapon_profiles(request: HttpRequest) -> dict[str, dict[str, Any]]:
    """Weapon profiles typed one per line as ``Name | range | shots | damage | traits`` (range in
    inches, traits comma-separated). Raises :class:`DropshipError` naming the line at fault."""
    profiles: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(request.POST.get("weapon_profiles", "").splitlines(), start=1):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 4 or not cells[0]:
            raise DropshipError(
                f"weapon_profiles line {number}: write Name | range | shots | damage | traits; got {line.strip()!r}.",
                field="weapon_profiles",
            )
        try:
            rng, shots, damage = (int(c.lstrip("+")) for c in cells[1:4])
        except ValueError:
            raise DropshipError(
                f"weapon_profiles line {number}: range, shots and damage must be whole numbers; got {line.strip()!r}.",
                field="weapon_profiles",
            ) from None
        traits = [t.strip() for t in (cells[4] if len(cells) > 4 else "").split(",") if t.strip() and t.strip() != "-"]
        profiles[cells[0]] = {"name": cells[0], "range": rng, "shots": shots, "damage": damage, "traits": traits}
    return profiles


def _enemy_from_post(request: HttpRequest) -> dict[str, Any]:
    """The enemy as the service takes it: an elite roll by category, the campaign's core enemy
    table (typed fields fill in or win), or a profile typed by hand."""
    category = request.POST.get("category", "").strip()
    kind = request.POST.get("enemy_kind", "elite")
    enemy: dict[str, Any]
    if kind == "elite":
        enemy = {"elite": True, "category": category}
    elif kind == "core":
        enemy = {"core_table": True, "category": category}
        enemy.update({k: v for k, v in _typed_profile(request).items() if v not in (None, "")})
    else:
        enemy = {**_typed_profile(request), "category": category}
        if enemy["numbers"] is None:
            enemy["numbers"] = 0
        for key in ("specialists", "lieutenants"):
            count = _int(request, key, None)
            if count is not None:
                enemy[key] = count
    base = _int(request, "base_numbers", None)
    if base is not None:
        enemy["base_numbers"] = base
    for key in ("basic_weapon", "specialist_weapon"):
        weapon = request.POST.get(key, "").strip()
        if weapon:
            enemy[key] = weapon
    profiles = _weapon_profiles(request)
    if profiles:
        enemy["weapon_profiles"] = profiles
    return enemy


def _hit_numbers_from_post(request: HttpRequest) -> dict[str, int] | None:
    open_ = _int(request, "hit_open", None, field="hit_numbers.open")
    cover = _int(request, "hit_cover", None, field="hit_numbers.cover")
    if open_ is None and cover is None:
        return None
    if open_ is None or cover is None:
        missing = "open" if open_ is None else "cover"
        raise DropshipError(
            f"hit_numbers.{missing}: type both the open and the cover number ({missing} is empty).",
            field=f"hit_numbers.{missing}",
        )
    return {"open": open_, "cover": cover}


def _options_from_post(request: HttpRequest, *, standalone: bool) -> dict[str, Any]:
    """Battle options picked on the form: the battle flags, and for a standalone battle the
    Compendium options it plays with (a campaign battle takes its campaign's)."""
    picked: dict[str, Any] = {key: True for key, _ in BATTLE_FLAGS if _flag(request, key)}
    if request.POST.get("grid", "").strip():  # Grid-based movement (pp.90-93); the service checks the size
        picked["grid"] = request.POST["grid"].strip()
    if standalone and _flag(request, "dramatic_combat"):
        picked["dramatic_combat"] = True
    return picked


def _categories(tables: Mapping[str, Any]) -> list[str]:
    table = tables.get(fp_enemies.CATEGORY_TABLE)
    return [e.result for e in table.entries] if table else []


def _weapon_names(tables: Mapping[str, Any]) -> list[str]:
    table = tables.get(fp_enemies.DRAMATIC_WEAPONS_TABLE)
    return sorted({e.result for e in table.entries}) if table else []


def _form_context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    try:
        tables = fiveparsecs_tables()
    except DropshipError:
        tables = {}
    campaigns = _editable_campaigns(request.user)
    raw_campaign = request.POST.get("campaign", "") if request.method == "POST" else request.GET.get("campaign", "")
    status = request.GET.get("status", "")
    campaign_filter = int(raw_campaign) if raw_campaign.isdecimal() and request.method == "GET" else None
    error = extra.get("error")
    return {
        "battles": selectors.battle_list(user=request.user, campaign_id=campaign_filter, status=status),
        "campaigns": campaigns,
        "dramatic_ids": [c.pk for c in campaigns if (c.options or {}).get("dramatic_combat")],
        "chosen_campaign": raw_campaign,
        "status": status,
        "statuses": Battle.STATUSES,
        "themes": [(t, t.replace("-", " ").capitalize()) for t in fp_setup.THEMES],
        "sources": [(k, SOURCE_LABELS.get(k, v or k)) for k, v in fp_setup.SOURCES.items()],
        "battle_types": [(k, f"{label} ({rules})") for k, (label, rules) in fp_setup.BATTLE_TYPES.items()],
        "ai_types": fp_setup.AI_TYPES,
        "categories": _categories(tables),
        "weapon_names": _weapon_names(tables),
        "crew_rows": _crew_rows(request),
        "crew_stats": CREW_STATS,
        "form": request.POST if request.method == "POST" else {},
        "bad": bad_input(error.field, _named_rows(request)) if isinstance(error, DropshipError) else "",
        "battle_flags": BATTLE_FLAGS,
        "rivals": Rival.objects.filter(campaign__in=campaigns).select_related("campaign"),
        "grid_sizes": fp_tracker.grid_sizes(tables) if tables else (),
        "loan_fight": _loan_fight_version(request, campaigns, raw_campaign),
        **extra,
    }


def _loan_fight_version(request: HttpRequest, campaigns: Any, raw_campaign: str) -> int | None:
    """The campaign version a Fight it out set-up is made against (``?loan_fight=1`` with the
    campaign, or the form posted back), else None."""
    data = request.POST if request.method == "POST" else request.GET
    if not data.get("loan_fight") or not raw_campaign.isdecimal():
        return None
    if request.method == "POST" and data.get("version", "").isdecimal():
        return int(data["version"])
    chosen = next((c for c in campaigns if c.pk == int(raw_campaign)), None)
    return chosen.version if chosen is not None else None


@login_required
@require_GET
def battle_list(request: HttpRequest) -> HttpResponse:
    """The user's battles (``?status=`` filters; ``?campaign=`` filters and preselects) and the
    set-up form."""
    return render(request, "battles/fp_list.html", _form_context(request))


@login_required
@require_POST
def battle_create(request: HttpRequest) -> HttpResponse:
    """Set up a battle from the form; an error comes back on the form with the input kept."""
    raw_campaign = request.POST.get("campaign", "").strip()
    try:
        if raw_campaign and not raw_campaign.isdecimal():
            raise DropshipError("campaign must be one of your campaigns, or empty for a standalone battle.", field="campaign")
        campaign_id = int(raw_campaign) if raw_campaign else None
        if request.POST.get("loan_fight") and campaign_id is not None:
            fight = tracker_services.loan_fight_create(
                user=request.user,
                campaign_id=campaign_id,
                version=_int(request, "version", None, field="version"),
                enemy=_enemy_from_post(request),
                hit_numbers=_hit_numbers_from_post(request),
                theme=request.POST.get("theme") or None,
            )
            return redirect("battles:detail", battle_id=fight.pk)
        battle = services.battle_create(
            user=request.user,
            campaign_id=campaign_id,
            title=request.POST.get("title", "").strip(),
            theme=request.POST.get("theme") or None,
            mission_source=request.POST.get("mission_source") or None,
            battle_type=request.POST.get("battle_type") or None,
            patron=_flag(request, "patron"),
            expanded_missions=_flag(request, "expanded_missions"),
            deployment_variables=_flag(request, "deployment_variables"),
            ai_variations=_flag(request, "ai_variations"),
            ai_type=request.POST.get("ai_type") or None,
            enemy=_enemy_from_post(request),
            crew=None if campaign_id else _crew_from_post(request),
            hit_numbers=_hit_numbers_from_post(request),
            options=_options_from_post(request, standalone=campaign_id is None),
            campaign_turn=None if campaign_id else _int(request, "campaign_turn", None),
            rival_id=_int(request, "rival", None, field="rival_id"),
        )
    except DropshipError as exc:
        return render(request, "battles/fp_list.html", _form_context(request, error=exc), status=exc.status)
    return redirect("battles:detail", battle_id=battle.pk)


# -- pages ---------------------------------------------------------------------------------------


def _can_write(request: HttpRequest, battle: Battle) -> bool:
    try:
        selectors.battle_for(request.user, battle.pk, write=True)
    except DropshipError:
        return False
    return True


def _enemy_ranks(enemy: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The enemy figures grouped by rank (basic first), for the card."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for figure in enemy.get("figures") or []:
        groups.setdefault(str(figure.get("rank") or "basic"), []).append(figure)
    return [
        {"rank": rank, "label": fp_enemies.RANK_LABELS.get(rank, rank.title()), "figures": figures}
        for rank, figures in sorted(groups.items(), key=lambda kv: RANK_ORDER.get(kv[0], 99))
    ]


def _detail_context(request: HttpRequest, battle: Battle, **extra: Any) -> dict[str, Any]:
    setup = battle.setup or {}
    enemy = setup.get("enemy") or {}
    nominis_state = (battle.nominis or {}).get("state")
    return {
        "battle": battle,
        "can_edit": _can_write(request, battle),
        "turn_note": result_services.battle_turn_note(battle),
        "reportable": result_services.battle_reportable(battle),
        "setup": setup,
        "card": setup.get("battle") or {},
        "enemy": enemy,
        "ranks": _enemy_ranks(enemy),
        "crew": setup.get("crew") or [],
        "hit": setup.get("hit_numbers") or {},
        "options": setup.get("options") or {},
        "nominis_state": nominis_state,
        "nominis_mission": nominis_services.nominis_mission(setup) if setup else "fight_off",
        "nominis_mission_label": nominis.MISSIONS.get(nominis_services.nominis_mission(setup) if setup else "fight_off", ""),
        "mission_fields": ("patrol_points", "exits_needed", "carrier", "escort", "target", "vip", "task", "mission_setup"),
        "vip_stats": [
            ("reactions", "Reactions"),
            ("speed", "Speed"),
            ("combat_skill", "Combat Skill"),
            ("toughness", "Toughness"),
            ("savvy", "Savvy"),
        ],
        "enemy_names": [f.get("name") for f in enemy.get("figures") or []],
        "crew_psionics": [c["name"] for c in setup.get("crew") or [] if c.get("psionic")],
        "jobs": _jobs(battle),
        "stances": STANCE_CHOICES,
        "default_runs": DEFAULT_RUNS,
        "max_runs": odds_services.odds_max_runs(),
        "form": request.POST if request.method == "POST" else {},
        "picked": request.POST.getlist("casualties") if request.method == "POST" else [],
        **extra,
    }


@login_required
@require_GET
def battle_detail(request: HttpRequest, battle_id: int) -> HttpResponse:
    """The printable set-up card and what to do next: track live, resolve without miniatures,
    odds, finish and record."""
    battle = _battle(request, battle_id)
    return render(request, "battles/fp_detail.html", _detail_context(request, battle))


def _choice_groups(state: Mapping[str, Any], choices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Choices grouped for buttons: one group per acting character in the Initiative Actions
    phase (so a +1 can be claimed for the group), one group for everything else."""
    groups: dict[str, dict[str, Any]] = {}
    for choice in choices:
        actor = str(choice.get("actor") or "") if choice.get("type") == "initiative_action" else ""
        group = groups.setdefault(actor, {"actor": actor, "choices": []})
        payload = {k: v for k, v in choice.items() if k != "label"}
        label = str(choice.get("label", ""))
        if actor and label.startswith(f"{actor}: "):
            label = label[len(actor) + 2 :]
        group["choices"].append({"label": label, "json": json.dumps(payload, sort_keys=True), "type": choice.get("type")})
    ordered = [g for key, g in groups.items() if key] + [g for key, g in groups.items() if not key]
    return ordered


def _nominis_context(request: HttpRequest, battle: Battle, **extra: Any) -> dict[str, Any]:
    record = battle.nominis or {}
    state = record.get("state")
    choices: list[dict[str, Any]] = []
    if state:
        try:
            choices = nominis.choices(state, fiveparsecs_tables())
        except (DropshipError, nominis.NoMinisError) as exc:
            extra.setdefault("error", DropshipError(str(exc), field="state"))
    events = list(reversed(record.get("events") or []))
    pending = (state or {}).get("pending")
    question = ""
    if pending:
        template = PENDING.get(str(pending.get("kind")), "Answer: {kind}.")
        question = template.format(
            crew=pending.get("crew", "the crew"), enemy=pending.get("enemy", "the enemy"), kind=pending.get("kind")
        )
    return {
        "battle": battle,
        "can_edit": _can_write(request, battle),
        "record": record,
        "state": state,
        "groups": _choice_groups(state or {}, choices),
        "recent": events[:RECENT_EVENTS],
        "older": events[RECENT_EVENTS:],
        "event_count": len(events),
        "phase": PHASES.get(str((state or {}).get("phase")), str((state or {}).get("phase", ""))),
        "question": question,
        "mission": nominis.MISSIONS.get(str((state or {}).get("mission")), ""),
        "active_crew": [c for c in (state or {}).get("crew", []) if c.get("status") == "active"],
        "active_enemies": [e for e in (state or {}).get("enemies", []) if e.get("status") == "active"],
        "roll_phase": not pending and (state or {}).get("phase") in ("flow", "initiative"),
        "actions_done": len(record.get("actions") or []),
        "outcome": nominis.outcome(state) if state and state.get("finished") else None,
        "assign_faces": (state or {}).get("initiative_dice") or [],
        "stances": STANCE_CHOICES,
        "stance": ((state or {}).get("options") or {}).get("stance") or nominis.DEFAULT_STANCE,
        **extra,
    }


@login_required
@require_GET
def nominis_view(request: HttpRequest, battle_id: int) -> HttpResponse:
    """The no-minis screen: round, phase, crew and enemy cards, Locations, the choices as buttons,
    the event log with its rolls, undo and play to the end."""
    battle = _battle(request, battle_id)
    if not battle.nominis:
        return redirect("battles:detail", battle_id=battle.pk)
    context = _nominis_context(request, battle)
    template = "battles/fp_nominis.html#screen" if getattr(request, "htmx", False) else "battles/fp_nominis.html"
    return render(request, template, context)


@login_required
@require_GET
def job_detail(request: HttpRequest, job_id: int) -> HttpResponse:
    """An odds job's progress; the page polls itself (HTMX) until it is done or failed, then shows
    the chance to Hold the Field, the expected casualties and their spread."""
    job = BattleJob.objects.select_related("battle").filter(pk=job_id).first()
    if job is None:
        raise Http404("No such odds run.")
    _battle(request, job.battle_id)  # the battle's readers may watch its odds
    if odds_services.odds_sweep(job_id=job.pk):  # a lost worker ends the job here, and the polling
        job.refresh_from_db()
    result = job.result or {}
    runs = int(result.get("runs") or 0)
    counts = {int(k): int(v) for k, v in (result.get("casualties_spread") or {}).items()}
    most = max([len(job.battle.setup.get("crew") or []), *counts]) if counts else 0
    spread = [
        {"casualties": k, "battles": counts.get(k, 0), "share": round(100 * counts.get(k, 0) / runs) if runs else 0}
        for k in range(most + 1)
    ]
    labels = {value: label for value, label, _ in STANCE_CHOICES}
    by_stance = [
        {
            **row,
            "stance": labels.get(str(row.get("stance")), row.get("stance")),
            "chance": round(100 * float(row.get("chance_hold") or 0)),
        }
        for row in result.get("by_stance") or []
    ]
    context = {
        "job": job,
        "battle": job.battle,
        "result": result,
        "stance": labels.get(str(result.get("stance") or ""), ""),
        "by_stance": by_stance,
        "chance": round(100 * float(result.get("chance_hold") or 0)),
        "spread": spread,
        "widest": max([s["share"] for s in spread if s["share"]] or [1]),
    }
    template = "battles/fp_job.html#progress" if getattr(request, "htmx", False) else "battles/fp_job.html"
    return render(request, template, context)


# -- writes ------------------------------------------------------------------------------------


def _common(request: HttpRequest, battle: Battle) -> dict[str, Any]:
    return {"user": request.user, "battle_id": battle.pk, "version": _version(request)}


def _action_from_post(request: HttpRequest) -> dict[str, Any]:
    """One no-minis action from a choice button (its JSON), with the optional +1 and typed dice."""
    raw = request.POST.get("action", "")
    if request.POST.get("type") == "assign_initiative":
        return {"type": "assign_initiative", "assignments": _assignments(request)}
    try:
        action = json.loads(raw) if raw else None
    except json.JSONDecodeError:
        action = None
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise DropshipError("action: pick one of the choices shown.", field="action")
    kind = action["type"]
    faces = _faces(request)
    if kind == "initiative_action":
        if _flag(request, "bonus"):
            action["bonus"] = True
        if faces:
            action["faces"] = faces
    elif kind == "roll_initiative" and faces:
        action["faces"] = faces
    elif kind == "roll_flow_event" and faces:
        action["value"] = faces[0]
    return action


def _assignments(request: HttpRequest) -> dict[str, int]:
    """``assign-<name>`` selects -> ``{name: face}`` (empty selects are left out)."""
    out: dict[str, int] = {}
    for key in request.POST:
        value = request.POST.get(key, "")
        if key.startswith("assign-") and value.strip():
            try:
                out[key.removeprefix("assign-")] = int(value)
            except ValueError:
                raise DropshipError(f"assignments: {value!r} is not a die face.", field="assignments") from None
    return out


ActionFn = Callable[[HttpRequest, Battle], Any]

VIP_STATS = ("reactions", "speed", "combat_skill", "toughness", "savvy")


def _mission_setup_from_post(request: HttpRequest) -> dict[str, Any]:
    """The core-rulebook mission inputs typed on the card (``nominis.new_battle``'s
    ``mission_setup``): Patrol points, exits needed, carrier, escort, target, the VIP's profile
    and the objective roll (Carry Out Task). Empty inputs are left out."""
    made: dict[str, Any] = {}
    for key in ("patrol_points", "exits_needed"):
        value = _int(request, key, None)
        if value is not None:
            made[key] = value
    for key in ("carrier", "escort", "target"):
        text = request.POST.get(key, "").strip()
        if text:
            made[key] = text
    vip_name = request.POST.get("vip_name", "").strip()
    if vip_name:
        made["vip"] = {"name": vip_name, **{k: _int(request, f"vip_{k}", None, field="vip") for k in VIP_STATS}}
        made["vip"] = {k: v for k, v in made["vip"].items() if v is not None}
    target = _int(request, "task_target", None, field="task")
    if target is not None:
        made["task"] = {
            "dice": request.POST.get("task_dice", "").strip() or "1D6",
            "stat": request.POST.get("task_stat", ""),
            "target": target,
        }
    return made


ACTIONS: dict[str, ActionFn] = {
    "track": lambda r, b: tracker_services.battle_track(user=r.user, battle_id=b.pk, version=_version(r)),
    "nominis_start": lambda r, b: nominis_services.nominis_start(
        **_common(r, b),
        mode=r.POST.get("mode", "assisted"),
        mission_setup=_mission_setup_from_post(r),
        stance=r.POST.get("stance") or None,
    ),
    "nominis_act": lambda r, b: nominis_services.nominis_act(**_common(r, b), action=_action_from_post(r)),
    "nominis_auto": lambda r, b: nominis_services.nominis_auto(**_common(r, b), stance=r.POST.get("stance") or None),
    "nominis_undo": lambda r, b: nominis_services.nominis_undo(**_common(r, b)),
    "finish": lambda r, b: result_services.battle_finish(
        user=r.user, battle_id=b.pk, **validated(inputs.FpBattleFinishInputSerializer, r.POST)
    ),
    "odds": lambda r, b: odds_services.odds_start(user=r.user, battle_id=b.pk, runs=_int(r, "runs", DEFAULT_RUNS) or 0),
    "delete": lambda r, b: services.battle_delete(**_common(r, b)),
    "report": lambda r, b: result_services.battle_report(**_common(r, b)),
}


@login_required
@require_POST
def act(request: HttpRequest, battle_id: int, action: str) -> HttpResponse:
    """Carry out one named write, then go where it leads (the room, the no-minis screen, the odds
    job, the list) or back to the page it came from (``page``)."""
    battle = _battle(request, battle_id)
    if action not in ACTIONS:
        raise Http404(f"No battle action {action!r}.")
    page = request.POST.get("page", "detail")
    page = page if page in PAGES else "detail"
    try:
        selectors.battle_for(request.user, battle_id, write=True)  # a reader learns their role, not the form's faults
        result = ACTIONS[action](request, battle)
    except QueueUnavailable as exc:
        return _queue_refused(request, battle, exc)
    except DropshipError as exc:
        battle.refresh_from_db()
        return _error_page(request, battle, page, exc)
    if action == "track":
        room_id = getattr(result, "pk", None) or battle.room_id
        return redirect("live:room", room_id=room_id)
    if action == "odds":
        return redirect("battles:job", job_id=result.pk)
    if action == "delete":
        return redirect("battles:list")
    if action in ("finish", "report"):
        note = result_services.battle_turn_note(result)
        if note:
            messages.info(request, note)
    if action.startswith("nominis"):
        url = reverse("battles:nominis", args=[battle.pk])
        if getattr(request, "htmx", False):
            battle.refresh_from_db()
            return render(request, "battles/fp_nominis.html#screen", _nominis_context(request, battle))
        return redirect(url)
    return redirect("battles:detail", battle_id=battle.pk)


def _jobs(battle: Battle) -> list[BattleJob]:
    """The battle's last five odds jobs, those whose worker was lost ended first."""
    odds_services.odds_sweep(battle_id=battle.pk)
    return list(battle.jobs.order_by("-id")[:5])


def _queue_refused(request: HttpRequest, battle: Battle, exc: QueueUnavailable) -> HttpResponse:
    """The page of an odds job the broker refused (it is failed, saying to try again): 503."""
    job = BattleJob.objects.filter(pk=int(exc.extra.get("job") or 0), battle=battle).first()
    if job is None:
        response = render(request, "battles/fp_detail.html", _detail_context(request, battle, error=exc), status=exc.status)
    else:
        context = {"job": job, "battle": battle, "result": {}, "chance": 0, "spread": [], "widest": 1}
        response = render(request, "battles/fp_job.html", context, status=exc.status)
    for header, value in exc.headers.items():
        response[header] = value
    return response


def _error_page(request: HttpRequest, battle: Battle, page: str, exc: DropshipError) -> HttpResponse:
    if page == "nominis" and battle.nominis:
        template = "battles/fp_nominis.html#screen" if getattr(request, "htmx", False) else "battles/fp_nominis.html"
        return render(request, template, _nominis_context(request, battle, error=exc), status=exc.status)
    return render(request, "battles/fp_detail.html", _detail_context(request, battle, error=exc), status=exc.status)
