"""The authorization matrix: every URL pattern of the project, read and written (GET, POST,
PATCH, DELETE) by seven identities: the owner, a campaign's (and a squad's) co-op editor and reader, a room
player and viewer, a signed-in outsider and anonymous.

Each pattern names the object it guards and the role each method needs (:data:`MATRIX`). A
pattern without an entry fails :func:`test_every_url_pattern_has_a_matrix_entry`, so a new URL
cannot ship without its authorization tests. Expected answers:

- allowed: anything but 401/403/404 and never a 5xx (an empty body may well get a 400);
- a member whose role is too low: 403 (or 404);
- signed in without any relation to the object: 404 (outsiders learn nothing);
- anonymous: a redirect to the sign-in page for HTML (or 403 on a write), 401 or 403 for the
  API, and 404 where the URL also serves guests (a shipped table, a room open to watchers);
- a method the URL does not take: 405 (for anyone);

and a refused write changes nothing in the database.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max, Model, Sum
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from battles.models import Battle, BattleJob
from bughunt.models import Mission, Squad, SquadJob
from campaigns.models import Campaign, CampaignJob, Character, LogEntry, Ship
from live.models import Membership, Room
from rules.engine.names import RECIPES
from rules.models import Roll, RuleTable, TableEntry
from tests.world import IDENTITIES, World, build_world

pytestmark = pytest.mark.django_db

# Levels, lowest first. "public": anyone, also anonymous; "user": anyone signed in; the rest
# are roles on the guarded object (reader = room viewer, editor = room player).
RANK = {"reader": 1, "viewer": 1, "editor": 2, "player": 2, "owner": 3}
WRITES = ("post", "patch", "delete")


@dataclass(frozen=True)
class Rule:
    """Who may use one URL pattern: the object it guards and the level each method needs."""

    guards: str  # campaign, meeting (PvP, through its host campaign), battle, squad, room, table, campaign_job, battle_job, squad_job, admin or "" (nothing)
    read: str  # level for GET
    write: str  # level for POST/PATCH/DELETE
    delete: str | None = None  # when DELETE needs more than the other writes


def R(guards: str, read: str, write: str | None = None, delete: str | None = None) -> Rule:
    return Rule(guards, read, write or read, delete)


MATRIX: dict[str, Rule] = {
    # -- rule tables, rolls, names, accounts: public or any signed-in user ---------------------
    "": R("", "public"),
    "tables/": R("", "public"),
    "tables/<slug:slug>/": R("table", "owner"),  # the owner's private table: nobody else sees it
    "tables/<slug:slug>/roll/": R("table", "owner"),
    "my-tables/": R("", "user"),
    "my-tables/new/": R("", "user"),
    "my-tables/import/": R("", "user"),
    "my-tables/<slug:slug>/edit/": R("table", "owner"),
    "my-tables/<slug:slug>/delete/": R("table", "owner"),
    "my-tables/<slug:slug>/export/": R("table", "owner"),
    "rolls/": R("", "public"),
    "names/": R("", "public"),
    "names/<slug:generator>/": R("", "public"),
    "accounts/signup/": R("", "public"),
    "accounts/login/": R("", "public"),
    "accounts/logout/": R("", "public"),
    "accounts/password_change/": R("", "user"),
    "accounts/password_change/done/": R("", "user"),
    "accounts/password_reset/": R("", "public"),
    "accounts/password_reset/done/": R("", "public"),
    "accounts/reset/<uidb64>/<token>/": R("", "public"),
    "accounts/reset/done/": R("", "public"),
    # -- rooms -------------------------------------------------------------------------------
    "rooms/": R("", "user"),
    "rooms/join/": R("", "user"),
    "rooms/<int:room_id>/": R("room", "viewer", "player"),
    "rooms/<int:room_id>/tracker/": R("room", "viewer", "player"),
    "rooms/<int:room_id>/act/": R("room", "viewer", "player"),
    "rooms/<int:room_id>/undo/": R("room", "viewer", "player"),
    "rooms/<int:room_id>/qr.svg": R("room", "owner"),  # the join code is the owner's to hand out
    "rooms/<int:room_id>/code/rotate/": R("room", "owner"),
    "rooms/<int:room_id>/code/revoke/": R("room", "owner"),
    "rooms/<int:room_id>/log/": R("room", "viewer"),
    # The member named is the room's player: the owner changes their role or removes them, and
    # the player may remove themself (leave); nobody else may.
    "rooms/<int:room_id>/members/<int:user_id>/role/": R("room", "owner"),
    "rooms/<int:room_id>/members/<int:user_id>/remove/": R("room", "owner", "player"),
    "events/rooms/<int:room_id>/": R("room", "viewer"),
    # -- Bug Hunt: squads and missions are their owner's alone -----------------------------------
    "bughunt/": R("", "user"),
    "bughunt/new/": R("", "user"),
    "bughunt/<int:squad_id>/": R("squad", "reader"),
    "bughunt/<int:squad_id>/settings/": R("squad", "reader", "owner"),
    "bughunt/<int:squad_id>/log/": R("squad", "reader"),
    "bughunt/<int:squad_id>/undo/": R("squad", "reader", "editor"),
    "bughunt/<int:squad_id>/export/": R("squad", "reader"),
    "bughunt/import/": R("", "user"),
    "bughunt/jobs/<int:job_id>/": R("squad_job", "owner"),
    "bughunt/jobs/<int:job_id>/download/": R("squad_job", "owner"),
    "bughunt/<int:squad_id>/assignment/": R("squad", "reader", "editor"),
    "bughunt/<int:squad_id>/advance/": R("squad", "reader", "editor"),
    "bughunt/<int:squad_id>/offer/": R("squad", "reader", "editor"),
    "bughunt/<int:squad_id>/missions/new/": R("squad", "reader", "editor"),
    "bughunt/<int:squad_id>/members/": R("squad", "reader", "owner"),
    # The member named is the squad's editor: the owner removes them, or they leave.
    "bughunt/<int:squad_id>/members/<int:member_id>/remove/": R("squad", "reader", "editor"),
    "bughunt/<int:squad_id>/marines/": R("squad", "reader", "owner"),
    "bughunt/missions/<int:mission_id>/": R("squad", "reader", "editor"),
    "bughunt/missions/<int:mission_id>/support/": R("squad", "reader", "editor"),
    "bughunt/missions/<int:mission_id>/loadout/": R("squad", "reader", "editor"),
    "bughunt/missions/<int:mission_id>/casualties/": R("squad", "reader", "editor"),
    "bughunt/missions/<int:mission_id>/start/": R("squad", "reader", "editor"),
    "bughunt/missions/<int:mission_id>/finish/": R("squad", "reader", "editor"),
    # -- campaigns: read by readers, played by editors, run by the owner ----------------------
    "campaigns/": R("", "user"),
    "campaigns/new/": R("", "user"),
    "campaigns/import/": R("", "user"),
    "campaigns/jobs/<int:job_id>/": R("campaign_job", "owner"),
    "campaigns/jobs/<int:job_id>/download/": R("campaign_job", "owner"),
    "campaigns/<int:campaign_id>/": R("campaign", "reader", "editor"),
    "campaigns/<int:campaign_id>/turn/": R("campaign", "reader", "editor"),
    "campaigns/<int:campaign_id>/settings/": R("campaign", "reader", "owner"),
    "campaigns/<int:campaign_id>/log/": R("campaign", "reader", "editor"),
    "campaigns/<int:campaign_id>/log/<int:entry_id>/": R("campaign", "reader", "editor"),
    "campaigns/<int:campaign_id>/sheet/": R("campaign", "reader", "editor"),
    "campaigns/<int:campaign_id>/export/": R("campaign", "reader"),
    "campaigns/<int:campaign_id>/crew/<int:character_id>/": R("campaign", "reader", "editor"),
    "campaigns/<int:campaign_id>/act/<slug:action>/": R("campaign", "reader", "editor"),
    # -- Five Parsecs battles: a campaign battle follows its campaign's roles ------------------
    "battles/fp/": R("", "user"),
    "battles/fp/new/": R("", "user"),
    "battles/fp/jobs/<int:job_id>/": R("battle_job", "reader"),
    "battles/fp/<int:battle_id>/": R("battle", "reader", "editor"),
    "battles/fp/<int:battle_id>/nominis/": R("battle", "reader", "editor"),
    "battles/fp/<int:battle_id>/act/<slug:action>/": R("battle", "reader", "editor"),
    # -- the API ---------------------------------------------------------------------------------
    "api/v1/": R("", "public", "user"),  # GET only: a signed-in write gets 405
    "api/v1/<drf_format_suffix:format>": R("", "public", "user"),
    "api/schema/": R("", "public"),
    "api/docs/": R("", "public"),
    "api/v1/auth/token/": R("", "public"),
    "api/v1/tables/": R("", "public"),
    "api/v1/tables/<slug:slug>/": R("table", "owner"),
    "api/v1/tables/<slug:slug>/lookup/": R("table", "owner"),
    "api/v1/tables/<slug:slug>/roll/": R("table", "owner"),
    "api/v1/my-tables/": R("", "user"),
    "api/v1/my-tables/import/": R("", "user"),
    "api/v1/my-tables/<slug:slug>/": R("table", "owner"),
    "api/v1/my-tables/<slug:slug>/export/": R("table", "owner"),
    "api/v1/rooms/": R("", "user"),
    "api/v1/rooms/kinds/": R("", "public"),
    "api/v1/rooms/join/": R("", "user"),
    "api/v1/rooms/<int:room_id>/": R("room", "viewer", "owner"),
    "api/v1/rooms/<int:room_id>/actions/": R("room", "viewer", "player"),
    "api/v1/rooms/<int:room_id>/undo/": R("room", "viewer", "player"),
    "api/v1/rooms/<int:room_id>/log/": R("room", "viewer", "player"),
    "api/v1/rooms/<int:room_id>/members/<int:user_id>/": R("room", "owner", "owner", delete="player"),
    "api/v1/bughunt/squads/": R("", "user"),
    "api/v1/bughunt/squads/<int:squad_id>/": R("squad", "reader", "editor"),
    "api/v1/bughunt/squads/<int:squad_id>/log/": R("squad", "reader", "editor"),
    "api/v1/bughunt/squads/<int:squad_id>/undo/": R("squad", "reader", "editor"),
    "api/v1/bughunt/squads/<int:squad_id>/export/": R("squad", "reader"),
    "api/v1/bughunt/squads/import/": R("", "user"),
    "api/v1/bughunt/squad-jobs/<int:job_id>/": R("squad_job", "owner"),
    "api/v1/bughunt/squads/<int:squad_id>/assignments/": R("squad", "reader", "editor"),
    "api/v1/bughunt/squads/<int:squad_id>/advance/": R("squad", "reader", "editor"),
    "api/v1/bughunt/squads/<int:squad_id>/offers/": R("squad", "reader", "editor"),
    "api/v1/bughunt/squads/<int:squad_id>/missions/": R("squad", "reader", "editor"),
    "api/v1/bughunt/squads/<int:squad_id>/members/": R("squad", "reader", "owner"),
    "api/v1/bughunt/squads/<int:squad_id>/members/<int:member_id>/": R("squad", "reader", "owner", delete="editor"),
    "api/v1/bughunt/squads/<int:squad_id>/marines/": R("squad", "reader", "owner"),
    "api/v1/bughunt/missions/<int:mission_id>/": R("squad", "reader", "editor"),
    "api/v1/bughunt/missions/<int:mission_id>/support/": R("squad", "reader", "editor"),
    "api/v1/bughunt/missions/<int:mission_id>/loadout/": R("squad", "reader", "editor"),
    "api/v1/bughunt/missions/<int:mission_id>/casualties/": R("squad", "reader", "editor"),
    "api/v1/bughunt/missions/<int:mission_id>/start/": R("squad", "reader", "editor"),
    "api/v1/bughunt/missions/<int:mission_id>/finish/": R("squad", "reader", "editor"),
    "api/v1/campaigns/": R("", "user"),
    "api/v1/campaigns/import/": R("", "user"),
    "api/v1/campaign-jobs/<int:job_id>/": R("campaign_job", "owner"),
    "api/v1/campaigns/<int:campaign_id>/": R("campaign", "reader", "owner"),  # name and options are the owner's
    "api/v1/campaigns/<int:campaign_id>/characters/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/advance/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/power/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/training/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/bot-upgrade/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/implant/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/equip/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/protection/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/bot-save/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/injury/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/treat/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/characters/<int:character_id>/creation-results/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/ship/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/ship/components/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/turns/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/turns/current/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/turns/current/step/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/turns/current/undo/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/undo/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/species-roll/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/name-roll/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/fight-pick/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/crew-task/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/starting-kit/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/loan/pay/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/loan/seizure/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/loan/fight/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/quest/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/quest/pay/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/log/": R("campaign", "reader", "editor"),
    "api/v1/campaigns/<int:campaign_id>/slots/<slug:slot>/": R("campaign", "reader", "owner"),
    "api/v1/campaigns/<int:campaign_id>/members/": R("campaign", "reader", "owner"),
    # The member named is the editor: the owner removes them, or they leave; a reader may not.
    "api/v1/campaigns/<int:campaign_id>/members/<int:member_id>/": R("campaign", "reader", "owner", delete="editor"),
    "api/v1/campaigns/<int:campaign_id>/export/": R("campaign", "reader"),
    "api/v1/fp-battles/": R("", "user"),
    "api/v1/fp-battles/<int:battle_id>/": R("battle", "reader", "editor"),
    "api/v1/fp-battles/<int:battle_id>/track/": R("battle", "reader", "editor"),
    "api/v1/fp-battles/<int:battle_id>/nominis/": R("battle", "reader", "editor"),
    "api/v1/fp-battles/<int:battle_id>/nominis/act/": R("battle", "reader", "editor"),
    "api/v1/fp-battles/<int:battle_id>/nominis/auto/": R("battle", "reader", "editor"),
    "api/v1/fp-battles/<int:battle_id>/nominis/undo/": R("battle", "reader", "editor"),
    "api/v1/fp-battles/<int:battle_id>/finish/": R("battle", "reader", "editor"),
    "api/v1/fp-battles/<int:battle_id>/report/": R("battle", "reader", "editor"),
    "api/v1/fp-battles/<int:battle_id>/odds/": R("battle", "reader", "editor"),
    "api/v1/fp-battle-jobs/<int:job_id>/": R("battle_job", "reader"),
    "api/v1/fp-street-fights/": R("", "user"),
    # PvP meetings: readers of either campaign read, its editors write (battles.pvp_services).
    "api/v1/fp-pvp/": R("", "user"),
    "api/v1/fp-pvp/accept/": R("", "user"),
    "api/v1/fp-pvp/referee/": R("", "user"),
    "api/v1/fp-pvp/<int:meeting_id>/": R("meeting", "reader", "editor"),  # GET only; a write is refused by role first
    "api/v1/fp-pvp/<int:meeting_id>/field/": R("meeting", "reader", "editor"),
    "api/v1/fp-pvp/<int:meeting_id>/setup/": R("meeting", "reader", "editor"),
    "api/v1/fp-pvp/<int:meeting_id>/coop-setup/": R("meeting", "reader", "editor"),
    "api/v1/fp-pvp/<int:meeting_id>/track/": R("meeting", "reader", "editor"),
    "api/v1/fp-pvp/<int:meeting_id>/finish/": R("meeting", "reader", "editor"),
    "api/v1/fp-pvp/<int:meeting_id>/referee/": R("meeting", "reader", "editor"),
    "api/v1/fp-pvp/<int:meeting_id>/referee/leave/": R("meeting", "reader", "editor"),  # or the referee (the service)
    "battles/pvp/": R("", "user"),
    "battles/pvp/start/": R("", "user"),
    "battles/pvp/<int:meeting_id>/": R("meeting", "reader"),
    "battles/pvp/<int:meeting_id>/<slug:action>/": R("meeting", "reader", "editor"),
}

# Django's admin has its own staff check (none of the seven is staff); its patterns are walked
# as one entry, by the admin index and a model's list.
ADMIN_PREFIX = "admin/"

PLACEHOLDER = r"<(?:\w+:)?(\w+)>"

# Known defects, each case an xfail(strict=True) naming it: when it is fixed the case passes,
# the xfail fails, and the entry goes. None are known now (validation before authorization and
# the no-JS tracker refusal were fixed; their entries went with them).
DEFECTS: dict[tuple[str, str, str], str] = {}


def _walk(resolver: URLResolver, prefix: str = "") -> Iterator[str]:
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _walk(entry, route)
        elif isinstance(entry, URLPattern):
            yield route


def project_routes() -> list[str]:
    return sorted(set(_walk(get_resolver())))


def test_every_url_pattern_has_a_matrix_entry() -> None:
    missing = [r for r in project_routes() if r not in MATRIX and not r.startswith(ADMIN_PREFIX)]
    assert not missing, f"URL patterns without an authorization matrix entry in {__file__}: {missing}"
    stale = sorted(set(MATRIX) - set(project_routes()))
    assert not stale, f"matrix entries for URL patterns that no longer exist: {stale}"


def _role(world: World, guards: str, identity: str) -> str | None:
    """The identity's role on the guarded object, or None (no relation)."""
    if identity == "anonymous":
        return None
    if identity == "owner":
        return "owner"
    if guards in ("campaign", "battle", "battle_job", "squad", "meeting") and identity in ("editor", "reader"):
        return identity
    if guards == "room" and identity in ("player", "viewer"):
        return identity
    return None


def _url(route: str, world: World) -> str:
    values: dict[str, Any] = {
        **world.kwargs(),
        "generator": RECIPES[0].slug,
        "uidb64": "MQ",
        "token": "set-password",
        "format": ".json",
        "slot": "starting_profiles",
    }
    values["user_id"] = world.users["player"].pk
    if "bughunt/" in route:
        values["member_id"] = world.extra["squad_editor_membership"].pk
    if "jobs/" in route:
        values["job_id"] = world.battle_job.pk if "battle" in route else world.campaign_job.pk
        values["job_id"] = world.extra["squad_job"].pk if "bughunt" in route else values["job_id"]
    values["meeting_id"] = world.extra["meeting"].pk
    if route.startswith("battles/pvp/"):
        values["action"] = "finish"
    elif route.startswith("campaigns/") and "act/" in route:
        values["action"] = "adjust"
    elif "act/" in route:
        values["action"] = "finish"
    url = "/" + route
    for name, value in values.items():
        for converter in ("int", "slug", "str", "drf_format_suffix", ""):
            placeholder = f"<{converter}:{name}>" if converter else f"<{name}>"
            url = url.replace(placeholder, str(value))
    assert "<" not in url, url
    return url


def _snapshot() -> tuple[Any, ...]:
    """Enough of the database to see any write: row counts, last ids and summed versions."""
    models: list[type[Model]] = [
        Campaign,
        Character,
        Ship,
        LogEntry,
        CampaignJob,
        Battle,
        BattleJob,
        Squad,
        Mission,
        SquadJob,
        Room,
        Membership,
        RuleTable,
        TableEntry,
        Roll,
        get_user_model(),
    ]
    out: list[Any] = []
    for model in models:
        out.append(model._default_manager.aggregate(n=Max("pk"))["n"])
        out.append(model._default_manager.count())
    for versioned in (Campaign, Battle, Squad, Room):
        out.append(versioned.objects.aggregate(v=Sum("version"))["v"])
    out.append(tuple(Ship.objects.values_list("name", "hull", "debt")))
    out.append(tuple(Membership.objects.order_by("pk").values_list("role", flat=True)))
    out.append(tuple(RuleTable.objects.filter(owner__isnull=False).values_list("title", "die", "notes")))
    out.append(tuple(get_user_model().objects.order_by("pk").values_list("password", flat=True)))
    return tuple(out)


def _allowed(rule: Rule, method: str, role: str | None, identity: str) -> bool:
    level = rule.read if method == "get" else (rule.delete or rule.write) if method == "delete" else rule.write
    if level == "public":
        return True
    if level == "user":
        return identity != "anonymous"
    return role is not None and RANK[role] >= RANK[level]


def _expect(rule: Rule, route: str, method: str, identity: str, role: str | None) -> set[int] | None:
    """The statuses a refusal may have, or None when the request is allowed."""
    if _allowed(rule, method, role, identity):
        return None
    if identity == "anonymous":
        refused = {401, 403, 405} if route.startswith("api/") else {302, 405} if method == "get" else {302, 403, 405}
        if rule.guards in ("table", "room"):
            refused.add(404)  # these URLs also serve guests (shipped tables, rooms open to watchers)
        return refused
    if role is not None:
        return {403, 404, 405}
    return {404, 405}


def _cases() -> Iterator[Any]:
    for route in sorted(MATRIX):
        for method in ("get", *WRITES):
            for identity in IDENTITIES:
                marks = []
                defect = DEFECTS.get((route, method, identity))
                if defect:
                    marks.append(pytest.mark.xfail(strict=True, reason=defect))
                yield pytest.param(
                    route, method, identity, marks=marks, id=f"{method.upper()}-/{re.sub(PLACEHOLDER, r'\1', route)}-{identity}"
                )


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: Any) -> Iterator[World]:
    """One world for the whole module, built in a transaction that is rolled back at its end;
    each test runs in a savepoint inside it (as Django's setUpTestData does), so a write one
    test lets through is gone for the next."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield build_world()
        transaction.set_rollback(True)


@pytest.fixture(scope="module", autouse=True)
def _quiet_requests() -> Iterator[None]:
    """Refusals are expected here; the request logger's warnings would only drown the report."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


@pytest.mark.parametrize(("route", "method", "identity"), list(_cases()))
def test_each_identity_gets_what_its_role_allows(route: str, method: str, identity: str, world: World) -> None:
    rule = MATRIX[route]
    role = _role(world, rule.guards, identity)
    client = Client()
    user = world.users[identity]
    if user is not None:
        client.force_login(user)
    url = _url(route, world)
    before = _snapshot() if method != "get" else None
    response = getattr(client, method)(url)
    status = response.status_code
    where = f"{method.upper()} {url} as {identity} ({role or 'no role'}) gave {status}"
    assert status < 500, where
    refused = _expect(rule, route, method, identity, role)
    if refused is None:
        assert status not in (401, 403, 404), f"{where}; allowed"
        return
    assert status in refused, f"{where}; expected one of {sorted(refused)}"
    if status == 302:
        assert response["Location"].startswith("/accounts/login/"), f"{where} to {response['Location']}"
    if before is not None:
        assert _snapshot() == before, f"{where}, and the refused write changed the database"


def test_the_admin_is_for_staff_only(world: World) -> None:
    for identity in IDENTITIES:
        client = Client()
        if world.users[identity] is not None:
            client.force_login(world.users[identity])
        for url in ("/admin/", "/admin/campaigns/campaign/"):
            response = client.get(url)
            assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), (url, identity)
