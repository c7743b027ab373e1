"""A Salvage job from set-up to the campaign turn (Compendium pp.116, 137-147): the turn's
battle type or Mission Selection gives the type, the set-up card says so and refuses no-minis
play with the reason, the tracker is the Salvage kind with the battle's crew, and the finished
job's pay reaches the turn's Get paid and Trade Salvage steps."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battles import mission_types, nominis_services, result_services, salvage_kind, services, tracker_services
from battles.models import Battle
from battles.tests.fp_data import CREW, PUNKS
from battles.tests.test_fp_services import ELITE, make_campaign
from battles.tests.test_stealth_services import act
from campaigns import turn_services
from campaigns.models import Campaign, LogEntry, Rival
from campaigns.selectors import current_turn, fiveparsecs_tables
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

ARGS: dict[str, Any] = {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}}


def win(user: Any, battle: Battle, *, end: dict[str, Any]) -> dict[str, Any]:
    """Round 1: c1 picks up every Salvage marker and finds All clear (D100 60, p.143) at every
    Point of Interest; then the job ends with the post-game dice in ``end``."""
    state = act(user, battle, "start")
    for _ in range(state["salvage"]["markers"]):
        state = act(user, battle, "pick_up_salvage", crew="c1")
    for poi in state["pois"]:
        state = act(user, battle, "investigate", poi=poi["id"], crew="c1", face=60)
    return act(user, battle, "end_mission", **end)


def step_to(user: Any, campaign: Campaign, key: str, *, mission: str | None = None) -> None:
    """Resolve the turn's steps by hand up to ``key`` (the battle type rolled as ``mission``)."""
    for _ in range(80):
        turn = current_turn(campaign)
        assert turn is not None
        here = turn.plan[turn.position]["key"]
        if here == key:
            return
        campaign.refresh_from_db()
        if here == "battle.type" and mission:
            turn_services.step_resolve(
                user=user, campaign_id=campaign.pk, version=campaign.version, mode="roll", inputs={"mission": mission}
            )
        else:
            turn_services.step_resolve(user=user, campaign_id=campaign.pk, version=campaign.version, mode="manual", text="Done.")
    pytest.fail(f"the turn never reached {key}")


def resolve(user: Any, campaign: Campaign, **inputs: Any) -> str:
    campaign.refresh_from_db()
    step = turn_services.step_resolve(user=user, campaign_id=campaign.pk, version=campaign.version, mode="roll", inputs=inputs)
    campaign.refresh_from_db()
    return str(step.text)


def test_mission_types_map_salvage_to_its_kind_and_generator() -> None:
    assert mission_types.MISSION_TRACKERS["salvage"] == "fiveparsecs-salvage"
    assert mission_types.generator("salvage") is salvage_kind.mission_setup
    assert mission_types.outcome_for("fiveparsecs-salvage") is salvage_kind.outcome


def test_mission_setup_rolls_markers_and_edge_with_reasons_and_refuses_no_minis() -> None:
    """p.138: 1D3+1 Salvage markers, a random edge; pp.138-141: played by distances and sight."""
    made = salvage_kind.mission_setup(Dice(seed=3), fiveparsecs_tables(), crew_size=5, ai_type="tactical")
    reasons = [r["reason"] for r in made["rolls"]]
    assert reasons == ["Salvage markers to place (p.138)", "Deployment edge: 1-3 north, 4-6 east, 7-9 south, 10-12 west (p.138)"]
    assert 2 <= made["salvage_markers"] <= 4 and made["starting_tension"] == 3  # 5 crew halved, rounded up
    assert made["no_minis_allowed"] is False and "No-minis play does not apply" in made["no_minis"]
    assert any("(p.138)" in line and "Point of Interest" in line for line in made["card"])
    assert made["objective"]["name"] == "Resolve every Point of Interest"


def test_a_salvage_pick_sets_up_a_salvage_job_and_its_tracker_takes_the_battle_crew(player: Any) -> None:
    battle = services.battle_create(user=player, battle_type="salvage", dice=Dice(seed=2), **ARGS)
    special = battle.setup["mission_type"]
    assert special["type"] == "salvage" and special["kind"] == "fiveparsecs-salvage"
    assert not any(w.startswith("Mission Selection gave") for w in battle.setup["warnings"])
    assert battle.setup["objective"] == "Resolve every Point of Interest"
    with pytest.raises(DropshipError) as refused:
        nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="assisted")
    assert refused.value.field == "mode" and "No-minis play does not apply" in str(refused.value)
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    assert room.kind == "fiveparsecs-salvage"
    names = [c["name"] for c in room.state["crew"]]
    assert names == [c["name"] for c in CREW]
    assert room.state["deployment"]["groups"] == [names[:1], names[1:]]
    assert room.state["tension"]["start"] == 1  # two crew halved, rounded up (p.138)
    assert room.state["salvage"]["markers"] == special["setup"]["salvage_markers"]


def test_mission_selection_that_rolls_salvage_gives_a_salvage_job(player: Any) -> None:
    """p.116: a Quest mission comes up a Salvage job on a 6."""
    for seed in range(1, 80):
        battle = services.battle_create(user=player, mission_source="quest", dice=Dice(seed=seed), **ARGS)
        kind = battle.setup["battle"]["mission"]["battle_type"]
        if kind == "salvage":
            assert battle.setup["mission_type"]["kind"] == "fiveparsecs-salvage"
            assert any(r["reason"].startswith("Mission Selection") for r in battle.setup["battle"]["mission"]["rolls"])
            return
    pytest.fail("Mission Selection never gave a Salvage job")


def test_a_campaign_salvage_job_pays_at_get_paid_and_trade_salvage(player: Any) -> None:
    """The turn's battle type is Salvage: the battle is a Salvage job; played on the tracker,
    finished and recorded, Get paid gives the trinkets' credits (p.146), Trade Salvage buys from
    the Scrappers and cashes units in at 1 credit each (p.147); no Battlefield Finds and no
    Invasion check (pp.146-147)."""
    campaign = make_campaign(player, dramatic_combat=True)
    Rival.objects.create(campaign=campaign, name="Vex")
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=campaign.version)
    step_to(player, campaign, "battle.record", mission="salvage")
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=7))
    assert battle.setup["mission_type"]["type"] == "salvage"
    assert battle.setup["mission_type"]["setup"]["rivals"] == ["Vex"]  # for a Rival trap (p.144)
    logged = LogEntry.objects.filter(campaign=campaign, kind="battle").last()
    assert logged is not None and any(r["reason"] == "Salvage markers to place (p.138)" for r in logged.rolls)
    tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    battle.refresh_from_db()
    markers = battle.setup["mission_type"]["setup"]["salvage_markers"]
    # D6 5 (1 unit) and 6 (a Discovery: D100 90, Valuable trinkets, 1D3 = 3 credits), then two junk.
    end = {"poi_faces": [5, 6, 1, 2], "discovery_faces": [90], "faces": [3], "scrapper_faces": [1, 4, 6]}
    state = win(player, battle, end=end)
    assert state["won"] is True and state["salvage"]["units"] == markers + 1
    battle.refresh_from_db()
    done = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    assert done.reported and done.result is not None
    assert done.result["record"]["mission_type"] == "salvage" and done.result["record"]["salvage"]["credits"] == 3
    turn = current_turn(campaign)
    assert turn is not None and turn.facts["salvage"]["units"] == markers + 1
    step_to(player, campaign, "post.paid")
    before = campaign.credits
    text = resolve(player, campaign)
    assert campaign.credits == before + 3 and "p.146" in text and f"{markers + 1} Salvage units tallied (p.147)" in text
    turn.refresh_from_db()
    assert turn.plan[turn.position]["key"] == "post.trade_salvage"
    with pytest.raises(DropshipError) as refused:
        resolve(player, campaign, scrappers="1,2,3")  # 2 + 4 + 6 units
    assert refused.value.field == "scrappers"
    text = resolve(player, campaign, scrappers="1", salvage_cashed=markers - 1)
    assert campaign.credits == before + 3 + markers - 1
    assert "ONLY on ship repairs, ship modules or Bot upgrades (p.147)" in text and "Kept: 0 Salvage units" in text
    line = LogEntry.objects.filter(campaign=campaign, kind="step").order_by("-id").first()
    assert line is not None and "p.147" in line.text and f"{markers - 1:+d} credits" in line.text
    text = resolve(player, campaign)  # Check for Salvage mission Points of Interest: what the tracker rolled
    assert "p1: D6 5, " in text and "D100 90" in text and "Counted at Get paid" in text
    step_to(player, campaign, "post.loot")
    turn.refresh_from_db()
    skipped = {s.key for s in turn.steps.filter(mode="skipped")}
    assert {"post.finds", "post.invasion"} <= skipped


def test_an_illegal_job_caught_by_the_law_asks_for_the_penalty() -> None:
    """p.138: on a 5-6 the crew pays a fine, hands over the Salvage, or gains an Enforcer Rival."""
    from campaigns.engine.turn import TurnError, salvage

    pay = {"units": 4, "credits": 0, "illegal": {"roll": 5, "caught": True}, "scrappers": [2, 3, 4]}
    with pytest.raises(TurnError) as refused:
        salvage.get_paid(pay, {})
    assert refused.value.field == "illegal_penalty"
    fine = salvage.get_paid(pay, {"illegal_penalty": "fine"})
    assert [c.data["amount"] for c in fine.changes if c.kind == "credits"] == [-5] and fine.facts["salvage_units"] == 4
    assert salvage.get_paid(pay, {"illegal_penalty": "salvage"}).facts["salvage_units"] == 0
    rival = salvage.get_paid(pay, {"illegal_penalty": "rival"})
    assert [c.data["name"] for c in rival.changes if c.kind == "rival_add"] == ["Enforcers"]
    free = salvage.get_paid({**pay, "illegal": {"roll": 2, "caught": False}}, {})
    assert "got away with it (p.138)" in free.text and not free.changes


def test_trade_salvage_refuses_what_the_crew_cannot_afford() -> None:
    """p.147: offers cost their price in units; credits cannot buy Salvage."""
    from campaigns.engine.turn import TurnError, salvage

    pay = {"units": 5, "scrappers": [2, 3, 6]}
    made = salvage.trade(pay, 5, {"scrappers": ["1", "2"]})
    assert made.facts == {"salvage_units": 0, "scrapper_loot": 2} and not made.changes
    for bad in ({"scrappers": "3"}, {"scrappers": "1,1"}, {"scrappers": "4"}, {"salvage_cashed": 6}):
        with pytest.raises(TurnError):
            salvage.trade(pay, 5, bad)
    cashed = salvage.trade(pay, 5, {"salvage_cashed": 2})
    assert [c.data["amount"] for c in cashed.changes] == [2] and cashed.facts["salvage_units"] == 3


def test_the_set_up_card_and_the_tracker_say_it_is_a_salvage_job(player: Any) -> None:
    from django.test import Client
    from django.urls import reverse

    battle = services.battle_create(user=player, battle_type="salvage", dice=Dice(seed=2), **ARGS)
    client = Client()
    client.force_login(player)
    page = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="salvage-card"' in page and 'data-testid="no-minis-refused"' in page
    assert "Salvage markers to place (p.138)" in page and "No-minis play does not apply" in page
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    tracker = client.get(reverse("live:room", args=[room.pk])).content.decode()
    assert 'data-testid="salvage-tracker"' in tracker and battle.title in tracker


def test_a_salvage_job_does_not_warn_about_the_weapons_of_an_enemy_it_does_not_fight(player: Any) -> None:
    """p.138: no enemy is placed at set-up, so a rolled force's unknown weapons need no profile."""
    args = {**ARGS, "enemy": {**ELITE, "category": "Roving Threats"}}
    warned = {
        kind: [
            any(
                w.startswith("No profile")
                for w in services.battle_create(user=player, battle_type=kind, dice=Dice(seed=n), **args).setup["warnings"]
            )
            for n in range(1, 13)
        ]
        for kind in ("conventional", "salvage")
    }
    assert any(warned["conventional"]) and not any(warned["salvage"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), size=st.integers(1, 8))
def test_mission_setup_stays_within_the_chapter_bounds(seed: int, size: int) -> None:
    """p.138: 1D3+1 markers, one of four edges, Tension from half the crew (rounded up), two groups
    as equal as possible; every roll has its reason."""
    tables = fiveparsecs_tables()
    made = salvage_kind.mission_setup(Dice(seed=seed), tables, crew_size=size, ai_type=None)
    assert 2 <= made["salvage_markers"] <= 4 and made["deployment"]["edge"] in ("north", "east", "south", "west")
    assert len(made["rolls"]) == 2 and all(r["reason"] for r in made["rolls"])
    crew = [{"name": f"F{n}", "savvy": 0} for n in range(size)]
    state = salvage_kind.initial_state({"setup": {"salvage": made, "crew": crew}}, tables=tables)
    groups = state["deployment"]["groups"]
    assert state["tension"]["start"] == (size + 1) // 2 and abs(len(groups[0]) - len(groups[1])) <= 1
    assert sum(len(g) for g in groups) == size and [c["name"] for c in state["crew"]] == [c["name"] for c in crew]
