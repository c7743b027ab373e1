"""Detailed Post-Battle Injuries in play (p.101): paying for treatment (refused with the cost
named when the crew cannot pay), the world's medical facilities and the off-worlder search,
Sick Bay after an Extensive injury is treated, Lingering injury rolls before the battle, and
the penalties a battle profile carries."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import crew_services, services, turn_services
from campaigns.engine import characters as ch
from campaigns.models import Campaign, Character, World
from campaigns.selectors import fiveparsecs_tables as tables_map
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = pytest.mark.django_db


def _v(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


def make(player: Any, *, credits: int = 0, **options: Any) -> Campaign:
    campaign = services.campaign_create(
        user=player, name="Medbay", options={"detailed_injuries": True, **options}, dice=Dice(seed=1)
    )
    Campaign.objects.filter(pk=campaign.pk).update(credits=credits)
    World.objects.create(campaign=campaign, name="Kessa", arrived_turn=0)
    return campaign


def injured(campaign: Campaign, name: str, *, injuries: list[str], treatments: list[list[Any]], **extra: Any) -> Character:
    return Character.objects.create(campaign=campaign, name=name, sheet={"injuries": injuries, "treatments": treatments}, **extra)


def treat(player: Any, campaign: Campaign, member: Character, injury: str, **extra: Any) -> Character:
    return crew_services.character_treat(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=member.pk, injury=injury, **extra
    )


def test_the_detailed_injury_notes_its_treatment_cost(fiveparsecs_tables: None) -> None:
    # p.101: an Extensive injury rolls 1D6+1 credits of treatment and waits for it.
    tables = tables_map()
    sheet = ch.Character(name="Ria")
    outcome = ch.detailed_injury(tables, Dice(seed=1), sheet, value=18, cost_faces=[4])
    after = ch.detailed_injury_apply(sheet, outcome)
    assert outcome.treatment_credits == 5 and after.treatments == (("Extensive injury", 5),)
    assert after.status == "sick_bay" and after.sick_bay == 0  # awaiting treatment
    assert ch.treatment_cost(after, "Extensive injury") == 5


def test_treatment_is_refused_with_its_cost_when_the_crew_cannot_pay(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player, credits=2)
    ria = injured(campaign, "Ria", injuries=["Extensive injury"], treatments=[["Extensive injury", 5]], status="sick_bay")
    version = _v(campaign)
    lines = campaign.log.count()
    with pytest.raises(DropshipError) as refused:
        treat(player, campaign, ria, "Extensive injury", facilities_value=4)
    assert refused.value.field == "credits" and "costs 5 credits" in str(refused.value) and "has 2" in str(refused.value)
    assert _v(campaign) == version and campaign.log.count() == lines  # nothing written
    assert World.objects.get(campaign=campaign).strife == {}


def test_paying_for_an_extensive_injury_starts_its_sick_bay_time(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player, credits=9)
    ria = injured(campaign, "Ria", injuries=["Extensive injury"], treatments=[["Extensive injury", 5]], status="sick_bay")
    treat(player, campaign, ria, "Extensive injury", facilities_value=4)  # 3-6: facilities here (p.101)
    ria.refresh_from_db()
    campaign.refresh_from_db()
    assert campaign.credits == 4 and ria.sheet["injuries"] == [] and ria.sheet["treatments"] == []
    assert ria.status == "sick_bay" and ria.sick_bay == 5  # Sick Bay turns equal the cost, from now on
    line = campaign.log.order_by("-id").first()
    assert line is not None and "paid 5 credits" in line.text and line.rolls[0]["notation"] == "D6"
    assert World.objects.get(campaign=campaign).strife["medical"]["facilities"] is True
    # The Sick Bay turns now count down at the post-battle recovery.
    sheet = ch.sick_bay_tick(crew_services.to_engine(ria))
    assert sheet.sick_bay == 4


def test_without_facilities_an_off_worlder_is_found_on_six_for_a_credit_more(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player, credits=10)
    bo = injured(campaign, "Bo", injuries=["Injured leg"], treatments=[["Injured leg", 3]], savvy=0)
    Character.objects.create(campaign=campaign, name="Sly", savvy=2)
    treat(player, campaign, bo, "Injured leg", facilities_value=1, search_face=3)  # 3 + Savvy 2 = 5: not found
    bo.refresh_from_db()
    campaign.refresh_from_db()
    assert campaign.credits == 10 and bo.sheet["injuries"] == ["Injured leg"]
    assert "Sly finds nobody" in campaign.log.order_by("-id").first().text  # type: ignore[union-attr]
    # Sly has searched this turn; the world's result is kept (no second facilities roll).
    with pytest.raises(DropshipError) as refused:
        treat(player, campaign, bo, "Injured leg", search_face=6)
    assert refused.value.field == "searcher"
    treat(player, campaign, bo, "Injured leg", searcher=bo.pk, search_face=6)  # Bo: 6 + 0
    bo.refresh_from_db()
    campaign.refresh_from_db()
    assert campaign.credits == 6 and bo.sheet["injuries"] == []  # 3 + 1 off-worlder fee
    assert campaign.log.order_by("-id").first().rolls[0]["reason"].startswith("Find an off-worlder")  # type: ignore[union-attr]


def test_an_injury_that_waits_for_no_treatment_is_refused_by_name(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player, credits=10)
    bo = injured(campaign, "Bo", injuries=["Lingering injury"], treatments=[])
    with pytest.raises(DropshipError) as refused:
        treat(player, campaign, bo, "Lingering injury")
    assert refused.value.field == "injury" and "awaiting treatment (none)" in str(refused.value)


def test_injury_penalties_lower_the_battle_profile(fiveparsecs_tables: None) -> None:
    # p.101: Injured arm -1 Combat Skill (not below -1), Injured leg -1" Speed.
    tables = tables_map()
    sheet = ch.Character(name="Ria", profile=ch.Profile(speed=5, combat_skill=0), injuries=("Injured arm", "Injured leg"))
    assert ch.battle_stats(sheet, tables) == {"reactions": 1, "speed": 4, "combat_skill": -1, "toughness": 3, "savvy": 0}
    low = ch.Character(name="Bo", profile=ch.Profile(combat_skill=-1), injuries=("Injured arm",))
    assert ch.battle_stats(low, tables)["combat_skill"] == -1
    treated = ch.injury_treat(sheet, "Injured arm")
    assert ch.battle_stats(treated, tables)["combat_skill"] == 0


def _play_to(player: Any, campaign: Campaign, key: str, *, dice: Dice) -> Any:
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    inputs = {"travel": "no", "mission": "opportunity", "core_upkeep": "0"}
    for index in range(40):
        turn.refresh_from_db()
        guide = turn_services.step_guide(campaign, turn)
        assert guide is not None
        if guide["spec"].key == key:
            return turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", dice=dice)
        mode = "roll" if guide["rollable"] else "manual"
        turn_services.step_resolve(
            user=player,
            campaign_id=campaign.pk,
            version=_v(campaign),
            mode=mode,
            inputs=inputs,
            text="by hand",
            dice=Dice(seed=index),
        )
    pytest.fail(f"never reached {key}")


def _seed_for(first_face: int) -> int:
    return next(s for s in range(200) if Dice(seed=s).roll("D6", "").total == first_face)


def test_a_lingering_injury_on_a_one_keeps_the_character_out_of_the_battle(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    gil = injured(campaign, "Gil", injuries=["Lingering injury", "Injured torso"], treatments=[["Injured torso", 3]])
    Character.objects.create(campaign=campaign, name="Ann")
    step = _play_to(player, campaign, "battle.injuries", dice=Dice(seed=_seed_for(1)))
    gil.refresh_from_db()
    assert "Gil sits this battle out" in step.text and "knocked out at 2 Stun markers" in step.text
    assert gil.status == "sick_bay" and gil.sick_bay == 0 and gil.sheet["injuries"] == ["Lingering injury", "Injured torso"]
    assert step.rolls[0]["reason"] == "Lingering injury 1"
    # The post-battle recovery brings them back.
    assert ch.sick_bay_tick(crew_services.to_engine(gil)).status == "active"


def test_a_lingering_injury_on_a_six_is_over(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    gil = injured(campaign, "Gil", injuries=["Lingering injury"], treatments=[])
    step = _play_to(player, campaign, "battle.injuries", dice=Dice(seed=_seed_for(6)))
    gil.refresh_from_db()
    assert gil.status == "active" and gil.sheet["injuries"] == [] and "over 1 Lingering injury" in step.text


def test_the_injuries_step_appears_only_with_injured_crew_and_the_option(fiveparsecs_tables: None, player: Any) -> None:
    for detailed, hurt in ((True, True), (True, False), (False, True)):
        campaign = make(player, detailed_injuries=detailed)
        injured(campaign, "Gil", injuries=["Lingering injury"] if hurt else [], treatments=[])
        campaign.refresh_from_db()
        keys = [s.key for s in turn_services.plan_preview(campaign)]
        assert ("battle.injuries" in keys) == detailed
        view = turn_services.build_view(campaign)
        spec = next((s for s in turn_services.plan_preview(campaign) if s.key == "battle.injuries"), None)
        if spec is not None:
            from campaigns.engine import turn

            assert turn.applies(spec, view, {}) == hurt


def test_the_api_and_the_sheet_pay_for_treatment(fiveparsecs_tables: None, player: Any, client: Any) -> None:
    from rest_framework.test import APIClient

    campaign = make(player, credits=4)
    bo = injured(campaign, "Bo", injuries=["Injured arm"], treatments=[["Injured arm", 3]], combat_skill=1)
    api = APIClient()
    api.force_authenticate(player)
    url = f"/api/v1/campaigns/{campaign.pk}/characters/{bo.pk}/treat/"
    bad = api.post(url, {"version": _v(campaign), "injury": "Injured leg"}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "injury"
    client.force_login(player)
    page = client.get(f"/campaigns/{campaign.pk}/crew/{bo.pk}/")
    assert b"Injured arm (3 credits)" in page.content and b'data-testid="treat-form"' in page.content
    assert b"Combat Skill +0" in page.content  # the arm's penalty in battle
    done = api.post(url, {"version": _v(campaign), "injury": "Injured arm", "facilities_value": 5}, format="json")
    assert done.status_code == 200, done.content
    campaign.refresh_from_db()
    assert campaign.credits == 1
    again = injured(campaign, "Cy", injuries=["Injured leg"], treatments=[["Injured leg", 3]])
    form = {"version": _v(campaign), "page": "character", "character": again.pk, "injury": "Injured leg"}
    refused = client.post(f"/campaigns/{campaign.pk}/act/treat/", form)
    assert refused.status_code == 400 and b"costs 3 credits" in refused.content
