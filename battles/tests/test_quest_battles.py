"""A campaign's Quest battle is set up under its Quest's terms (pp.79-80): the pending battle
step's numbers and Panic range, the lasting modifiers, and the final battle's extra enemy, Unique
Individual and no Morale."""

from __future__ import annotations

from typing import Any

import pytest

from battles import services as battle_services
from battles import tracker_services
from campaigns import services
from campaigns.models import Campaign, Character
from campaigns.selectors import fiveparsecs_tables as fiveparsecs_tables_now
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db]

ELITE = {"elite": True, "category": "Criminal Elements", "base_numbers": 3, "basic_weapon": "Hand gun"}


def test_the_quest_terms_change_a_quest_battles_set_up(fiveparsecs_tables: None, player: Any) -> None:
    campaign = services.campaign_create(user=player, name="Relay", options={"dramatic_combat": True})
    for name in ("Ria", "Bo"):
        Character.objects.create(campaign=campaign, name=name)

    def made(state: dict[str, Any], mission: str = "quest") -> dict[str, Any]:
        Campaign.objects.filter(pk=campaign.pk).update(quest="Relay", quest_step=state)
        battle = battle_services.battle_create(
            user=player, campaign_id=campaign.pk, enemy=ELITE, mission_source=mission, dice=Dice(seed=4)
        )
        return dict(battle.setup["enemy"])

    plain = made({})
    pending = made({"pending": {"kind": "battle", "numbers": 2, "panic": -1, "result": "Dangerous destination"}})
    assert len(pending["figures"]) == len(plain["figures"]) + 2 and pending["numbers"] == plain["numbers"] + 2
    assert any("Dangerous destination" in line for line in pending["lines"])
    final = made({"conclusion": True, "numbers": 1})
    assert final["panic"] == "0" and final["profile"]["panic"] == "0"  # no Morale (p.80)
    assert final["unique_individual"] is not None
    assert (
        sum(1 for f in final["figures"] if f["rank"] == "basic") >= sum(1 for f in plain["figures"] if f["rank"] == "basic") + 2
    )
    assert made({"conclusion": True}, mission="opportunity")["figures"] == plain["figures"]  # not a Quest battle


def test_the_tracker_and_a_standard_force_get_the_quest_terms(fiveparsecs_tables: None, player: Any) -> None:
    campaign = services.campaign_create(user=player, name="Relay", options={"dramatic_combat": True})
    Character.objects.create(campaign=campaign, name="Ria")
    Campaign.objects.filter(pk=campaign.pk).update(quest="Relay", quest_step={"conclusion": True, "panic": -1})
    final = battle_services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=ELITE, mission_source="quest", dice=Dice(seed=4)
    )
    group = tracker_services.tracker_setup(final, fiveparsecs_tables_now())["enemies"][0]
    assert group["panic"] == "0" and group.get("unique")  # Fearless: no Morale dice; the Unique Individual fights
    typed = {"name": "Enforcers", "numbers": 1, "panic": "1-2", "speed": 4, "combat_skill": 1, "toughness": 4}
    typed |= {"weapons": "Hand gun", "base_numbers": 3}
    standard = battle_services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=typed, mission_source="quest", dice=Dice(seed=4)
    ).setup["enemy"]
    assert standard["panic"] == "0" and any("Unique Individual joins" in line for line in standard["lines"])
    assert len(standard["figures"]) == 3 + 1 + 1  # the numbers roll, the profile's +1, the final battle's +1 (p.80)


def test_a_quest_step_sets_the_mission_objective_and_the_enemy_ai(fiveparsecs_tables: None, player: Any) -> None:
    campaign = services.campaign_create(user=player, name="Relay", options={"dramatic_combat": True})
    Character.objects.create(campaign=campaign, name="Ria")
    step = {"kind": "battle", "result": "Business contact", "objective": "Protect", "ai": "aggressive"}
    Campaign.objects.filter(pk=campaign.pk).update(quest="Relay", quest_step={"pending": step})
    made = battle_services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=ELITE, mission_source="quest", dice=Dice(seed=4)
    )
    assert made.setup["objective"] == "Protect" and made.setup["battle"]["ai_type"] == "aggressive"  # 66-80 (p.79)
    with pytest.raises(DropshipError) as refused:
        battle_services.battle_create(
            user=player, campaign_id=campaign.pk, enemy=ELITE, mission_source="quest", ai_type="cautious", dice=Dice(seed=4)
        )
    assert refused.value.field == "ai_type"
