"""Campaign rules a campaign battle carries: the crew's injury penalties in their battle profile
(p.101) and "Fight it out" against a seizure warrant (Loans, p.156)."""

from __future__ import annotations

from typing import Any

import pytest

from battles import services, tracker_services
from battles.models import Battle
from campaigns import loan_services
from campaigns import services as campaign_services
from campaigns.models import Campaign, Character, Rival, Ship
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

ENFORCERS = {"name": "Enforcers", "numbers": 1, "panic": "1-2", "speed": 4, "combat_skill": 1, "toughness": 4}
ENFORCERS |= {"weapons": "Hand gun", "base_numbers": 3}
HITS = {"open": 5, "cover": 6}


def _v(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


def test_a_campaign_battle_fields_the_crew_after_their_injury_penalties(player: Any) -> None:
    campaign = campaign_services.campaign_create(user=player, name="Limp", options={"detailed_injuries": True})
    Character.objects.create(
        campaign=campaign, name="Ria", speed=5, combat_skill=1, sheet={"injuries": ["Injured arm", "Injured leg"]}
    )
    Character.objects.create(campaign=campaign, name="Bo", speed=4, combat_skill=0)
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ENFORCERS, hit_numbers=HITS, dice=Dice(seed=4))
    ria, bo = battle.setup["crew"]
    assert (ria["speed"], ria["combat_skill"]) == (4, 0)  # Injured leg -1", Injured arm -1 CS (p.101)
    assert (bo["speed"], bo["combat_skill"]) == (4, 0)


def loaned(player: Any, **state: Any) -> Campaign:
    campaign = campaign_services.campaign_create(user=player, name="Debtors", options={"loans": True})
    Campaign.objects.filter(pk=campaign.pk).update(loan={**campaign.loan, "balance": 70, **state})
    Character.objects.create(campaign=campaign, name="Ria", speed=5, combat_skill=1)
    campaign.refresh_from_db()
    return campaign


def test_fight_it_out_sets_up_a_campaign_battle_against_the_enforcers(player: Any) -> None:
    campaign = loaned(player, seizure={"method": "Permanent seizure", "owed": 70})
    battle = tracker_services.loan_fight_create(
        user=player, campaign_id=campaign.pk, version=_v(campaign), enemy=ENFORCERS, hit_numbers=HITS, dice=Dice(seed=3)
    )
    campaign.refresh_from_db()
    assert battle.campaign_id == campaign.pk and campaign.loan["seizure"]["battle"] == battle.pk
    enemy = battle.setup["enemy"]
    assert enemy["type"] == "Enforcers" and len(enemy["figures"]) == 3 + 1 + 2  # +2 basic enemies (p.156)
    assert battle.setup["objective"].startswith("Escape across the")
    line = campaign.log.filter(kind="battle", text__startswith="Fight it out").get()
    assert line.rolls[0]["reason"].startswith("Fight it out: first enemy edge")
    # Set up once; afterwards the crew says how it went.
    with pytest.raises(DropshipError) as refused:
        tracker_services.loan_fight_create(
            user=player, campaign_id=campaign.pk, version=_v(campaign), enemy=ENFORCERS, hit_numbers=HITS
        )
    assert refused.value.field == "loan"
    loan_services.loan_seizure_end(user=player, campaign_id=campaign.pk, version=_v(campaign), end="escaped")
    campaign.refresh_from_db()
    assert Ship.objects.filter(campaign=campaign).exists() and campaign.loan["seizure"] is None
    assert Rival.objects.filter(campaign=campaign, kind="Enforcers").exists()


def test_there_is_no_fight_without_a_seizure_under_way(player: Any) -> None:
    campaign = loaned(player)
    with pytest.raises(DropshipError) as refused:
        tracker_services.loan_fight_create(
            user=player, campaign_id=campaign.pk, version=_v(campaign), enemy=ENFORCERS, hit_numbers=HITS
        )
    assert refused.value.field == "loan" and not Battle.objects.exists()


def test_fight_it_out_from_the_api_and_the_battle_form(player: Any, client: Any) -> None:
    from rest_framework.test import APIClient

    campaign = loaned(player, seizure={"method": "Temporary seizure", "owed": 70})
    client.force_login(player)
    form = client.get(f"/battles/fp/?campaign={campaign.pk}&loan_fight=1")
    assert b'data-testid="loan-fight"' in form.content
    api = APIClient()
    api.force_authenticate(player)
    url = f"/api/v1/campaigns/{campaign.pk}/loan/fight/"
    made = api.post(url, {"version": _v(campaign), "enemy": ENFORCERS, "hit_numbers": HITS, "seed": 2}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["campaign"] == campaign.pk
    again = api.post(url, {"version": _v(campaign), "enemy": ENFORCERS, "hit_numbers": HITS}, format="json")
    assert again.status_code == 400 and again.json()["field"] == "loan"
