"""Five Parsecs battles at the table: the live tracker room a battle opens (its figures, enemy
profile and rank counts from the set-up, Compendium pp.30-49 and pp.99-100), the Fight it out
battle a loan's enforcers bring, and Street Fights' rooms.

Every write is keyword-only, runs in one transaction, takes the battle ``version`` it was made
against where there is one (a stale one is refused with :class:`StaleVersion`, 409) and raises
:class:`DropshipError` naming the field at fault, writing nothing then. Battles are set up by
:mod:`battles.services`, which also takes their result back to the campaign.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from battles import street_kind
from battles.engine import fp_enemies, fp_street, fp_tracker
from battles.fiveparsecs_kind import KIND as TRACKER_KIND
from battles.models import Battle
from battles.services import BATTLE_FLAGS, PSIONIC_KEYS, _engine, _int, _load, _touch, battle_create, crew_seize_modifier
from campaigns import services as campaign_services
from campaigns.engine.difficulty import turn_difficulty
from campaigns.engine.options import parse_options
from campaigns.engine.world.loans import fight_it_out
from campaigns.loan_services import loan_fight_prepare, loan_fight_record
from campaigns.selectors import fiveparsecs_tables
from live.engine.tracker import Role
from live.models import Membership, Room
from live.services import room_create, room_share
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.errors import DropshipError


def tracker_setup(battle: Battle, tables: Mapping[str, RangeTable]) -> dict[str, Any]:
    """The set-up mapping the live tracker (``fp_tracker.initial_state``) takes for ``battle``."""
    setup = battle.setup
    opts = parse_options({k: v for k, v in setup["options"].items() if k not in (*BATTLE_FLAGS, "grid")})
    force = setup["enemy"]
    flags = setup["options"]
    turn = int(setup.get("campaign_turn") or 1)
    weapons = setup.get("enemy_weapons", {})
    tracker_options: dict[str, Any] = {
        "casualty_tables": opts.casualty_tables,
        "dramatic_combat": opts.dramatic_combat,
        "deployment_variables": bool(setup["battle"].get("deployment")),
        "ai_variations": bool(setup["battle"].get("ai_variations")),
        "elite_level_enemies": bool(force.get("elite")),
        "toggles": [t for t in opts.toggles if t in fp_tracker.OPTION_FLAGS],
        "progressive": sorted(opts.progressive),
        **{k: bool(flags.get(k)) for k in ("critical_hits", "escalating_battles", "escalation_variation")},
        "grid": flags.get("grid"),
    }
    diff = turn_difficulty(opts, turn, tables)
    extras = {"basic": diff.extra_basic, "specialist": diff.extra_specialists, "lieutenant": diff.extra_lieutenants}
    counts = {rank: 0 for rank in fp_enemies.SQUAD_RANKS}
    for figure in force["figures"]:
        if figure["rank"] in counts:
            counts[figure["rank"]] += 1
    if 1 in opts.progressive:
        counts = {rank: max(0, n - extras.get(rank, 0)) for rank, n in counts.items()}
    profile = force.get("profile") or {}
    first = force["figures"][0] if force["figures"] else {}
    base = {k: profile.get(k, first.get(k)) for k in ("speed", "combat_skill", "toughness", "save")}

    def known(names: Sequence[str]) -> list[dict[str, Any]]:
        return [weapons[n] for n in names if n in weapons]

    basic = next((f for f in force["figures"] if f["rank"] == "basic"), first)
    special = next((f for f in force["figures"] if f["rank"] == "specialist"), basic)
    unique = force.get("unique_individual")
    ai = setup["battle"].get("ai_type") or "tactical"
    group: dict[str, Any] = {
        "name": str(force.get("type") or force.get("category") or "Enemies")[:40],
        "count": counts["basic"],
        "specialists": counts["specialist"],
        "lieutenants": min(counts["lieutenant"], 3),
        "captains": min(counts["captain"], 1),
        "profile": base,
        "weapons": known(basic.get("weapons", [])),
        "specialist_weapons": known(special.get("weapons", [])),
        "panic": (profile.get("panic") if force.get("elite") and profile else force.get("panic")) or "0",
        "elite": bool(force.get("elite")),
        "kind": setup.get("enemy_kind", "humanoid") if setup.get("enemy_kind") in fp_tracker.KINDS else "humanoid",
        "ai": ai if ai in fp_tracker.AI_TYPES else "tactical",
        **({"psi_hunters": True} if force.get("psi_hunters") else {}),
    }
    if unique:
        group["unique"] = [
            {
                "name": unique["name"],
                "speed": unique["speed"],
                "combat_skill": unique["combat_skill"],
                "toughness": unique["toughness"],
                "save": unique["save"],
                "weapons": known(unique.get("weapons", [])),
                **({"powers": list(unique["psionic_powers"])} if unique.get("psionic_powers") else {}),
            }
        ]
    # The enemy Psionic the set-up rolled (pp.22-23): its powers act on the tracker.
    psionic = next((f for f in force["figures"] if f.get("psionic_powers") and f["rank"] != "unique"), None)
    if psionic is not None:
        group["psionic"] = {
            "rank": psionic["rank"],
            "powers": list(psionic["psionic_powers"]),
            "toughness": psionic["toughness"],
            "weapons": known(psionic.get("weapons", [])),
        }
    seize = force.get("seize_initiative_modifier")
    plan = setup["battle"].get("deployment") or {}
    d100 = [r for r in plan.get("rolls", []) if str(r.get("notation", "")).upper().endswith("D100")]
    planned = {
        "deployment_face": d100[0]["total"] if d100 else None,
        "time_limit": (setup["battle"].get("mission") or {}).get("time_limit_round"),
    }
    special = setup.get("mission_type") or {}
    return {
        **({str(special["type"]): special["setup"]} if special.get("setup") else {}),
        "planned": planned,
        **({"data_cache": setup["data_cache"]} if setup.get("data_cache") else {}),
        **({"connection_terms": setup["connection_terms"]} if setup.get("connection_terms") else {}),
        "crew": [
            {
                "name": c["name"],
                **({"ref": c["ref"]} if c.get("ref") else {}),
                "reactions": c["reactions"],
                "speed": c["speed"],
                "combat_skill": c["combat_skill"],
                "toughness": c["toughness"],
                "savvy": c["savvy"],
                "save": c["save"],
                "save_kind": c.get("save_kind"),
                "second_save": c.get("second_save"),
                "weapons": c["weapons"],
                "captain": c["captain"],
                "kind": "cybernetic" if c["bot"] else "humanoid",
                "bot": c["bot"],
                "kerin": c["kerin"],
                "soulless": bool(c.get("soulless")),
                **({k: c[k] for k in PSIONIC_KEYS if k in c} if c.get("psionic") and c.get("powers") else {}),
                "reroll_natural_one": bool(c.get("reroll_natural_one")),
                "reminders": c.get("reminders") or [],
            }
            for c in setup["crew"]
        ],
        "psionic_legality": setup.get("psionic_legality") or "",
        "enemies": [group],
        "options": tracker_options,
        "campaign_turn": turn,
        "ai": group["ai"],
        "objective": setup.get("objective") or "",
        "seize_modifier": max(-6, min(6, int(seize or 0) + crew_seize_modifier(setup["crew"]))),
        "seize_allowed": seize is not None,
        "hit_numbers": None
        if opts.dramatic_combat
        else {"open": setup["hit_numbers"]["open"], "cover": setup["hit_numbers"]["cover"]},
    }


@transaction.atomic
def loan_fight_create(
    *,
    user: Any,
    campaign_id: int,
    version: int | None,
    enemy: Mapping[str, Any],
    hit_numbers: Mapping[str, int] | None = None,
    theme: str | None = None,
    dice: Dice | None = None,
) -> Battle:
    """Fight it out (Loans, p.156): when a seizure warrant's holders come for the ship, set up
    a campaign battle against them through :func:`battles.services.battle_create`. ``enemy`` is the Enforcers'
    profile as :func:`battles.services.battle_create` takes it (typed from the core rulebook, or
    ``{"core_table": true, ...}``); 2 more basic enemies are added to their number. The crew
    holds the centre; the enemy comes in over two random edges; the escape edge is rolled
    (``campaigns.engine.world.fight_it_out``) and is the battle's objective. The campaign's
    seizure notes the battle; settle it afterwards with ``escaped`` or ``caught``
    (``campaigns.loan_services.loan_seizure_end``). Raises :class:`DropshipError` naming the
    field: ``loan`` when no one is coming for the ship, or what :func:`battles.services.battle_create` refuses."""
    campaign = campaign_services.load(user, campaign_id, version)
    loan_fight_prepare(campaign)
    if not isinstance(enemy, Mapping):
        raise DropshipError(
            "enemy must be the Enforcers' profile (name, numbers, speed, ...) or {core_table: true}.", field="enemy"
        )
    dice = dice or Dice()
    setup = _engine(lambda: fight_it_out(fiveparsecs_tables(), dice))
    numbers = _int(enemy.get("numbers"), "enemy.numbers", -5, 10, 0) + setup.extra_basic
    named = {"name": "Enforcers", "category": "Loan enforcement", **dict(enemy), "numbers": numbers}
    battle = battle_create(
        user=user,
        campaign_id=campaign_id,
        title=f"Fight it out: escape across the {setup.escape_edge} edge",
        theme=theme,
        enemy=named,
        hit_numbers=hit_numbers,
        objective=f"Escape across the {setup.escape_edge} edge (p.156)",
        dice=dice,
        follow_elite_roll=False,  # the collectors are who they are, whatever the turn's encounter roll said
    )
    campaign.refresh_from_db()
    loan_fight_record(campaign, battle_id=battle.pk, setup=setup)
    return battle


@transaction.atomic
def battle_track(*, user: Any, battle_id: int, version: int | None) -> Room:
    """Open the battle's live tracker room (``fiveparsecs-battle``, unlisted) owned by ``user``;
    asked again, it returns the same room. A campaign battle's room takes the campaign's co-op
    members: readers watch, everyone else plays. Raises :class:`DropshipError` when the battle is being
    played without miniatures or is finished."""
    battle = _load(user, battle_id, version)
    if battle.room is not None:
        return battle.room
    if battle.status != "setup":
        raise DropshipError(
            f"The battle is {battle.get_status_display().lower()}; it cannot be tracked live now.", field="status"
        )
    setup = tracker_setup(battle, fiveparsecs_tables())
    kind = (battle.setup.get("mission_type") or {}).get("kind") or TRACKER_KIND
    room = room_create(user=user, kind=kind, title=battle.title, options={"setup": setup}, unlisted=True)
    campaign = battle.campaign
    if campaign is not None and campaign.room_id is not None:
        # The campaign's co-op members sit at the same table: editors (and the campaign's owner)
        # play the tracker, readers watch it. Nobody needs the join code.
        room_share(
            room,
            {
                m.user_id: Role.VIEWER.value if m.role == Role.VIEWER.value else Role.PLAYER.value
                for m in Membership.objects.filter(room_id=campaign.room_id)
            },
        )
    battle.room = room
    battle.status = "tracking"
    _touch(battle)
    return room


# -- street fights ----------------------------------------------------------------------------


def street_fight_open(
    *,
    user: Any,
    crew: Sequence[Mapping[str, Any]],
    title: str = "Street fight",
    table_ft: int = 3,
    blocks: int = 4,
    city_markers: bool = True,
    extra_suspects: int = 0,
    enemy: str = "",
    weird_place: bool = False,
    rivals: Sequence[str] = (),
    dice: Dice | None = None,
) -> Room:
    """Roll a Street Fight's set-up (``fp_street.generate``, Compendium pp.123-128; every roll kept
    on the card) and open its live tracker room (``fiveparsecs-street-fight``, unlisted) owned by
    ``user``. ``crew`` are figures (``name``, ``savvy``, ``reactions``, ``speed``, ``combat_skill``,
    ``toughness``, ``captain``); the other arguments are those of ``generate``. Raises
    :class:`DropshipError` naming the field at fault."""
    card = _engine(
        lambda: fp_street.generate(
            dice or Dice(),
            fiveparsecs_tables(),
            crew=list(crew),
            table_ft=table_ft,
            blocks=blocks,
            city_markers=city_markers,
            extra_suspects=extra_suspects,
            enemy=enemy,
            weird_place=weird_place,
            rivals=list(rivals),
        )
    )
    return room_create(
        user=user,
        kind=street_kind.KIND,
        title=title[:120] or "Street fight",
        options={"setup": card},
        unlisted=True,
    )
