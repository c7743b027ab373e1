"""Psi-hunter Rivals (Compendium p.21): Seize the Initiative against them at -2, one more
Specialist in their force, +1 to their attack roll when they shoot at or Brawl a Psionic. The
engines are shown with seeded dice; the set-up through the service, the screen and the API."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from battles import nominis_services, services, tracker_services
from battles.engine import fp_combat, fp_enemies, nominis
from battles.engine import fp_tracker as t
from battles.engine.nominis.combat import _shoot
from battles.tests.test_fp_psionics_campaign import ELITE, campaign_with_a_psionic
from battles.tests.test_fp_tracker_engine import TABLES, play, setup
from campaigns.engine.options import CampaignOptions
from campaigns.models import Rival
from rules.engine.dice import Dice
from rules.errors import DropshipError

RIFLE = fp_combat.weapon(TABLES, "Colony rifle")  # 18", 1 Shot, no traits
NUMBERS = fp_combat.HitNumbers(open=5, cover=6, source="core rulebook (typed)")
#: Dice(seed=9)'s first D6 is a 4: a miss against 5+ at Combat Skill 0, a hit with +1.
SHOT_SEED = 9
#: Dice(seed=12)'s 2D6 are 4 and 3: 7, a Seize the Initiative on 7+ only without the -2.
SEIZE_SEED = 12
#: Dice(seed=22)'s first two D6 are 2 and 2: a Brawl the Psionic (Combat Skill +1) wins, drawn with +1.
BRAWL_SEED = 22

PSIONIC = {"name": "Ria", "reactions": 2, "speed": 5, "combat_skill": 1, "toughness": 4, "weapons": ["Colony rifle"]}
PLAIN = {"name": "Bo", "reactions": 1, "speed": 4, "combat_skill": 1, "toughness": 4, "weapons": ["Colony rifle"]}


# -- the combat resolver -------------------------------------------------------------------------


def shot(*, hunter: bool, psionic: bool) -> fp_combat.ShotResult:
    return fp_combat.resolve_shot(
        Dice(seed=SHOT_SEED),
        shooter=fp_combat.Fighter(name="Hunter", combat_skill=0, toughness=3, enemy=True, psi_hunter=hunter),
        target=fp_combat.Fighter(name="Ria", combat_skill=1, toughness=4, psionic=psionic),
        weapon=RIFLE,
        numbers=NUMBERS,
        range_in=12,
        cover=False,
    )


def test_a_psi_hunters_shot_at_a_psionic_hits_only_with_its_plus_one() -> None:
    hunted = shot(hunter=True, psionic=True)
    assert hunted.rolls[0].faces == (4,) and hunted.hits == 1 and hunted.modifier == 1
    assert "Psi-hunter against a Psionic (p.21)" in " ".join(hunted.lines)
    assert shot(hunter=False, psionic=True).hits == 0  # not a Psi-hunter
    plain = shot(hunter=True, psionic=False)  # not a Psionic
    assert plain.hits == 0 and plain.modifier == 0


def brawl(*, hunter: bool, psionic: bool) -> fp_combat.BrawlResult:
    return fp_combat.resolve_brawl(
        Dice(seed=BRAWL_SEED),
        a=fp_combat.Fighter(name="Hunter", combat_skill=0, toughness=3, enemy=True, psi_hunter=hunter),
        b=fp_combat.Fighter(name="Ria", combat_skill=1, toughness=4, psionic=psionic),
        a_weapon=None,
        b_weapon=None,
    )


def test_a_psi_hunter_brawls_a_psionic_at_plus_one() -> None:
    hunted = brawl(hunter=True, psionic=True)
    assert [r.natural for r in hunted.rolls[:2]] == [2, 2]
    assert hunted.rolls[0].total == 3 and hunted.winner is None  # 3 against 3: a draw
    assert brawl(hunter=False, psionic=True).winner == "Ria"
    assert brawl(hunter=True, psionic=False).winner == "Ria"


# -- the enemy force -----------------------------------------------------------------------------


def test_psi_hunters_add_one_specialist_after_the_force_is_made() -> None:
    profile = fp_enemies.custom_enemy(
        "Enforcers", category="Hired Muscle", numbers=0, panic="1-2", speed=4, combat_skill=1, toughness=4, weapons="-"
    )
    options = CampaignOptions()
    force = fp_enemies.core_enemy(
        Dice(seed=1), TABLES, profile, crew_size=4, options=options, specialists=1, lieutenants=0, base_numbers=4
    )
    hunted = fp_enemies.psi_hunters(TABLES, force, options=options)
    assert hunted.psi_hunters and not force.psi_hunters
    assert hunted.count("specialist") == force.count("specialist") + 1 == 2
    assert len(hunted.figures) == len(force.figures) + 1
    assert hunted.figures[-1].name == "Specialist 2" and "Psi-hunters" in hunted.lines[-1]
    assert fp_enemies.psi_hunters(TABLES, hunted, options=options) is hunted  # once only
    assert fp_enemies.EnemyForce.from_dict(hunted.as_dict()).psi_hunters


# -- the live tracker ----------------------------------------------------------------------------


def tracker(*, hunters: bool) -> dict[str, Any]:
    group = {"name": "Hunters", "count": 2, "profile": {"speed": 4, "combat_skill": 0, "toughness": 3}}
    group.update({"weapons": ["Colony rifle"], "panic": "1-2", "psi_hunters": hunters})
    crew = [{**PSIONIC, "psionic": True, "powers": {"Shock": False}, "captain": True}, PLAIN]
    return t.initial_state(setup(crew=crew, enemies=[group], seize_target=7), TABLES)


def test_the_tracker_seizes_the_initiative_at_minus_two_against_psi_hunters() -> None:
    free, _ = play(tracker(hunters=False), "seize", seed=SEIZE_SEED)
    assert free["seize"]["result"] == "seized" and free["seize"]["total"] == 7
    hunted, events = play(tracker(hunters=True), "seize", seed=SEIZE_SEED)
    assert hunted["seize"]["result"] == "failed" and hunted["seize"]["total"] == 5
    assert events[0].data["rolls"][0]["faces"] == [4, 3] and "Psi-hunters -2, p.21" in events[0].text


def test_the_trackers_psi_hunters_hit_a_psionic_crew_figure_at_plus_one() -> None:
    def fire(state: dict[str, Any], target: str) -> Any:
        started, _ = play(state, "next_phase")
        _, events = play(started, "resolve", seed=SHOT_SEED, attacker="e1", target=target, range=12)
        return events[0]

    hunted = fire(tracker(hunters=True), "c1")
    assert hunted.data["rolls"][0]["faces"] == [4] and "totals 5 (hit)" in hunted.text
    assert "Psi-hunter against a Psionic (p.21)" in hunted.text
    for missed in (fire(tracker(hunters=True), "c2"), fire(tracker(hunters=False), "c1")):  # Bo is no Psionic
        assert "Psi-hunter" not in missed.text and "(miss)" in missed.text
    notes = tracker(hunters=True)["enemies"][0]["notes"]
    assert "Psi-hunter: +1 to hit or Brawl a Psionic (p.21)" in notes


def test_the_trackers_brawl_with_a_psionic_gets_the_plus_one_whoever_starts_it() -> None:
    started, _ = play(tracker(hunters=True), "next_phase")
    _, events = play(started, "resolve", seed=BRAWL_SEED, attacker="c1", target="e1", mode="brawl")
    assert "Psi-hunter against a Psionic (p.21)" in events[0].text


# -- no-minis play -------------------------------------------------------------------------------


def nominis_battle(*, hunters: bool) -> dict[str, Any]:
    rifle = nominis.weapon_dict(RIFLE)
    return nominis.new_battle(
        crew=[{**PSIONIC, "psionic": True, "captain": True, "weapons": [rifle]}, {**PLAIN, "weapons": [rifle]}],
        enemies=[{"name": f"Hunter {n}", "combat_skill": 0, "toughness": 3, "weapons": [rifle]} for n in (1, 2)],
        mission="fight_off",
        numbers=NUMBERS,
        options=nominis.NoMinisOptions(),
        psi_hunters=hunters,
    )


def nominis_shot(*, hunters: bool, target: int) -> fp_combat.ShotResult:
    st = nominis_battle(hunters=hunters)
    shooter, aim = st["enemies"][0], st["crew"][target]
    return _shoot(
        st, Dice(seed=SHOT_SEED), shooter, aim, shooter["weapons"][0], range_in=12, cover=False, moved=False,
        natural_six=False, why="test", events=[], tables=TABLES,
    )  # fmt: skip


def test_no_minis_psi_hunters_hit_a_psionic_at_plus_one() -> None:
    hunted = nominis_shot(hunters=True, target=0)
    assert hunted.rolls[0].faces == (4,) and hunted.hits == 1
    assert nominis_shot(hunters=True, target=1).hits == 0  # Bo is no Psionic
    assert nominis_shot(hunters=False, target=0).hits == 0
    assert nominis_battle(hunters=True)["psi_hunters"] and "psi_hunters" not in nominis_battle(hunters=False)


# -- set-up through the service, the screen and the API -----------------------------------------


def rival(campaign: Any, *, hunters: bool = True) -> Rival:
    return Rival.objects.create(campaign=campaign, name="Enforcers (psi-hunters)", kind="Enforcers", psi_hunter=hunters)


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_battle_against_psi_hunters_brings_them_to_the_tracker_and_no_minis(player: Any) -> None:
    campaign = campaign_with_a_psionic(player)
    plain = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    hunters = rival(campaign)
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4), rival_id=hunters.pk)
    enemy, before = battle.setup["enemy"], plain.setup["enemy"]
    assert enemy["psi_hunters"] and not before["psi_hunters"]
    count = sum(1 for f in enemy["figures"] if f["rank"] == "specialist")
    assert count == sum(1 for f in before["figures"] if f["rank"] == "specialist") + 1
    assert len(enemy["figures"]) == len(before["figures"]) + 1
    assert "psi_hunters" in [r["key"] for r in battle.setup["battle"]["brief"]]
    assert battle.setup["battle"]["mission"]["source"] == "rival" and battle.setup["rival"]["psi_hunter"]
    assert "Psi-hunters" in campaign.log.filter(kind="battle").latest("id").text
    group = tracker_services.tracker_setup(battle, TABLES)["enemies"][0]
    assert group["psi_hunters"] and "psi_hunters" not in tracker_services.tracker_setup(plain, TABLES)["enemies"][0]
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    assert room.state["seize"]["psi_hunters"]
    state = nominis_services.nominis_initial(battle)
    assert state["psi_hunters"] and state["crew"][0]["psionic"] and "psionic" not in state["crew"][1]


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_rival_that_is_no_psi_hunter_changes_nothing(player: Any) -> None:
    campaign = campaign_with_a_psionic(player)
    plain = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    battle = services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4), rival_id=rival(campaign, hunters=False).pk
    )
    assert not battle.setup["enemy"]["psi_hunters"]
    assert len(battle.setup["enemy"]["figures"]) == len(plain.setup["enemy"]["figures"])
    assert "psi_hunters" not in [r["key"] for r in battle.setup["battle"]["brief"]]
    assert battle.setup["rival"] == {"id": battle.setup["rival"]["id"], "name": "Enforcers (psi-hunters)", "psi_hunter": False}


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_rival_of_another_campaign_or_mission_is_refused(player: Any, other: Any) -> None:
    mine = campaign_with_a_psionic(player)
    theirs = rival(campaign_with_a_psionic(other))
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=mine.pk, enemy=ELITE, rival_id=theirs.pk)
    assert refused.value.field == "rival_id"
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=mine.pk, enemy=ELITE, rival_id=rival(mine).pk, mission_source="patron")
    assert refused.value.field == "rival_id" and "Rival mission" in refused.value.message
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, enemy=ELITE, rival_id=theirs.pk, crew=[PLAIN], hit_numbers={"open": 5, "cover": 6})
    assert refused.value.field == "rival_id"


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_api_and_the_screen_set_up_a_battle_against_psi_hunters(player: Any, other: Any) -> None:
    campaign = campaign_with_a_psionic(player)
    hunters = rival(campaign)
    api = APIClient()
    api.force_authenticate(player)
    body = {"campaign_id": campaign.pk, "rival_id": hunters.pk, "enemy": ELITE, "seed": 4}
    made = api.post("/api/v1/fp-battles/", body, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["setup"]["enemy"]["psi_hunters"]
    foreign = rival(campaign_with_a_psionic(other))
    refused = api.post("/api/v1/fp-battles/", {**body, "rival_id": foreign.pk}, format="json")
    assert refused.status_code == 400 and "rival_id" in refused.content.decode()
    client = Client()
    client.force_login(player)
    page = client.get("/battles/fp/").content.decode()
    assert 'data-testid="rival"' in page and "Enforcers (psi-hunters) (Psi-hunters)" in page
    assert foreign.name not in page.split('data-testid="rival"')[1].split("</select>")[0].replace(hunters.name, "")
    posted = client.post(
        "/battles/fp/new/",
        {"campaign": campaign.pk, "rival": hunters.pk, "enemy_kind": "elite", "category": "Criminal Elements",
         "base_numbers": 3, "basic_weapon": "Hand gun"},
    )  # fmt: skip
    assert posted.status_code == 302, posted.content.decode()[:2000]
    detail = client.get(posted["Location"]).content.decode()
    assert 'data-testid="psi-hunters"' in detail and "Psi-hunters" in detail


# -- a Rival mission names its Rival on the turn, and the battle fights it ------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_turns_rival_mission_names_the_rival_the_battle_fights(player: Any) -> None:
    from campaigns import turn_services
    from campaigns.tests.test_connections import campaign_with_crew, play_to

    campaign = campaign_with_crew(player, options={"expanded_connections": False, "dramatic_combat": True})
    hunters = rival(campaign)
    Rival.objects.create(campaign=campaign, name="Vigilantes", kind="Vigilantes")
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=campaign.version)
    campaign = play_to(player, campaign, "battle.type", {})
    resolve = turn_services.step_resolve
    with pytest.raises(DropshipError) as unnamed:  # two Rivals: which one?
        resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll", inputs={"mission": "rival"})
    assert unnamed.value.field == "rival" and "Vigilantes" in unnamed.value.message
    with pytest.raises(DropshipError) as stranger:
        resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll",
                inputs={"mission": "rival", "rival": "Nobody"})  # fmt: skip
    assert stranger.value.field == "rival"
    with pytest.raises(DropshipError) as wrong_mission:
        resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll",
                inputs={"mission": "patron", "rival": "Vigilantes"})  # fmt: skip
    assert wrong_mission.value.field == "rival"
    step = resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll",
                   inputs={"mission": "rival", "rival": "enforcers (PSI-HUNTERS)"})  # fmt: skip
    assert "against Enforcers (psi-hunters)" in step.text
    campaign.refresh_from_db()
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    assert battle.setup["rival"]["id"] == hunters.pk and battle.setup["enemy"]["psi_hunters"]
    assert battle.setup["battle"]["mission"]["source"] == "rival"


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_lone_rival_is_taken_without_asking_and_the_screen_offers_the_rivals(player: Any) -> None:
    from campaigns import turn_services
    from campaigns.tests.test_connections import campaign_with_crew, play_to

    campaign = campaign_with_crew(player, options={"expanded_connections": False, "dramatic_combat": True})
    lone = rival(campaign, hunters=False)
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=campaign.version)
    campaign = play_to(player, campaign, "battle.type", {})
    client = Client()
    client.force_login(player)
    page = client.get(f"/campaigns/{campaign.pk}/turn/").content.decode()
    assert 'name="input_rival"' in page and "(only one: Enforcers (psi-hunters))" in page
    turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll",
                               inputs={"mission": "rival"})  # fmt: skip
    campaign.refresh_from_db()
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    assert battle.setup["rival"] == {"id": lone.pk, "name": lone.name, "psi_hunter": False}
