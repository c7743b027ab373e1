"""A campaign's Psionic fights a no-minis battle with its powers (Compendium pp.17-20, 66-70):
its powers and gear reach the no-minis state, a refused power is a 400-style error naming the
field, and the powers it used reach the finished battle's result for the detection step (p.20)."""

from __future__ import annotations

from typing import Any

import pytest

from battles import nominis_services, result_services, services
from battles.models import Battle
from battles.tests.test_fp_psionics_campaign import ELITE, campaign_with_a_psionic
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def started(user: Any, mode: str) -> Battle:
    campaign = campaign_with_a_psionic(user)
    battle = services.battle_create(user=user, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    return nominis_services.nominis_start(user=user, battle_id=battle.pk, version=battle.version, mode=mode)


def test_the_psionic_brings_its_powers_and_gear_to_the_no_minis_battle(player: Any) -> None:  # p.17, p.27
    battle = started(player, "assisted")
    assert battle.nominis is not None
    ria = next(c for c in battle.nominis["state"]["crew"] if c["name"] == "Ria")
    assert ria["powers"] == {"Shock": False, "Barrier": True} and ria["shrels"] == 1


def test_a_power_the_psionic_cannot_use_now_is_refused_naming_the_field(player: Any) -> None:  # p.19
    battle = started(player, "assisted")
    action = {"type": "psionic_action", "actor": "Ria", "power": "Shock", "target": "nobody"}
    with pytest.raises(DropshipError) as err:
        nominis_services.nominis_act(user=player, battle_id=battle.pk, version=battle.version, action=action)
    assert err.value.field == "action.type"  # not in the Initiative Actions step yet
    stored = Battle.objects.get(pk=battle.pk).nominis
    assert stored is not None and stored["actions"] == []


def test_powers_used_in_automatic_play_reach_the_result(player: Any) -> None:  # p.20
    battle = started(player, "automatic")
    battle = nominis_services.nominis_auto(user=player, battle_id=battle.pk, version=battle.version, dice=Dice(seed=11))
    assert battle.nominis is not None
    used = sum(
        1 for e in battle.nominis["events"] if e["kind"] == "psionic" and ("projects" in e["text"] or "on itself" in e["text"])
    )
    battle = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    assert battle.result is not None and battle.result["psionic_uses"] == used and used > 0


def test_assisted_play_refuses_a_power_it_lacks_then_uses_shock_with_typed_dice(player: Any) -> None:  # p.19, p.20
    battle = started(player, "assisted")

    def act(**action: Any) -> Battle:
        now = Battle.objects.get(pk=battle.pk)
        return nominis_services.nominis_act(user=player, battle_id=now.pk, version=now.version, action=action, dice=Dice(seed=2))

    act(type="roll_initiative")
    act(type="assign_initiative")
    enemy = Battle.objects.get(pk=battle.pk).nominis["state"]["enemies"][0]["name"]  # type: ignore[index]
    with pytest.raises(DropshipError) as err:
        act(type="psionic_action", actor="Ria", power="Grab", target=enemy)
    assert err.value.field == "action.power"
    with pytest.raises(DropshipError) as err:
        act(type="psionic_action", actor="Bo", power="Shock", target=enemy)
    assert err.value.field == "action.actor"
    done = act(type="psionic_action", actor="Ria", power="Shock", target=enemy, faces=[5, 6])
    assert done.nominis is not None and done.nominis["state"]["psionic_uses"] == 1
    projection = done.nominis["events"][-2]["rolls"][0]
    assert projection["entered"] and projection["faces"] == [5, 6] and projection["reason"] == "Ria: Projection for Shock"


def test_the_screen_offers_the_power_and_posting_it_uses_it(player: Any) -> None:  # p.19
    import json

    from django.test import Client
    from django.urls import reverse

    battle = started(player, "assisted")
    client = Client()
    client.force_login(player)
    for action in ({"type": "roll_initiative"}, {"type": "assign_initiative"}):
        nominis_services.nominis_act(
            user=player, battle_id=battle.pk, version=Battle.objects.get(pk=battle.pk).version, action=action
        )
    screen = client.get(reverse("battles:nominis", args=[battle.pk])).content.decode()
    assert "Ria: Shock on " in screen
    stored = Battle.objects.get(pk=battle.pk)
    enemy = stored.nominis["state"]["enemies"][0]["name"]  # type: ignore[index]
    choice = {"type": "psionic_action", "actor": "Ria", "power": "Shock", "target": enemy}
    client.post(
        reverse("battles:act", args=[battle.pk, "nominis_act"]), {"version": stored.version, "action": json.dumps(choice)}
    )
    after = Battle.objects.get(pk=battle.pk).nominis
    assert after is not None and after["state"]["psionic_uses"] == 1
