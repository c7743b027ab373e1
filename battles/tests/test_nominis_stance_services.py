"""The stance of automatic no-minis play (Retreat, p.72) through the services, the API and the
screens: taken, stored in the battle's state and used; the elite type rules and the Casualty
tables option reach the no-minis state; the odds job reports by stance."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from battles import nominis_services, odds_services
from battles.models import Battle
from battles.tests.test_fp_services import ELITE, fresh, nm, res, standalone
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def started(player: Any, stance: str | None, **extra: Any) -> Battle:
    battle = standalone(player, **extra)
    return nominis_services.nominis_start(
        user=player, battle_id=battle.pk, version=battle.version, mode="automatic", stance=stance
    )


def withdrawals(battle: Battle) -> list[str]:
    return [e["text"] for e in nm(battle)["events"] if e["kind"] == "withdraw"]


def test_the_stance_is_taken_stored_and_used_by_automatic_play(player: Any) -> None:
    # Same battle, same seed: a Cautious crew pulls out (and says why), a Reckless one fights on.
    played = {}
    for stance in ("cautious", "reckless"):
        battle = started(player, stance)
        assert nm(battle)["initial"]["options"]["stance"] == stance
        played[stance] = nominis_services.nominis_auto(
            user=player, battle_id=battle.pk, version=battle.version, dice=Dice(seed=1)
        )
    cautious, reckless = played["cautious"], played["reckless"]
    assert withdrawals(cautious) and withdrawals(cautious)[0].startswith("Cautious: ")
    assert withdrawals(reckless) == []
    assert nm(cautious)["state"]["crew"] != nm(reckless)["state"]["crew"]
    replayed, _ = nominis_services.nominis_replay(nm(cautious)["initial"], nm(cautious)["actions"])
    assert replayed == nm(cautious)["state"]


def test_the_default_stance_is_steady_and_a_bad_one_writes_nothing(player: Any) -> None:
    assert nm(started(player, None))["state"]["options"]["stance"] == "steady"
    battle = standalone(player)
    with pytest.raises(DropshipError) as refused:
        nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="automatic", stance="brave")
    assert refused.value.field == "stance" and "cautious, steady, reckless" in refused.value.message
    assert fresh(battle).nominis is None and fresh(battle).version == battle.version


def test_play_to_the_end_may_change_the_stance_as_a_step_of_the_log(player: Any) -> None:
    battle = started(player, "steady")
    with pytest.raises(DropshipError) as refused:
        nominis_services.nominis_auto(user=player, battle_id=battle.pk, version=battle.version, stance="timid")
    assert refused.value.field == "stance"
    battle = nominis_services.nominis_auto(
        user=player, battle_id=battle.pk, version=battle.version, dice=Dice(seed=3), stance="reckless"
    )
    first = nm(battle)["actions"][0]["action"]
    assert first == {"type": "set_stance", "stance": "reckless"} and nm(battle)["state"]["options"]["stance"] == "reckless"
    assert withdrawals(battle) == []
    undone = nominis_services.nominis_undo(user=player, battle_id=battle.pk, version=battle.version)
    assert nm(undone)["state"]["options"]["stance"] == "reckless"


def test_an_elite_force_brings_its_type_rules_and_fearless_leaders_to_the_no_minis_state(player: Any) -> None:
    battle = started(player, None, enemy=ELITE, options={"casualty_tables": True})
    state = nm(battle)["state"]
    force = battle.setup["enemy"]
    assert state["enemy_rules"]["type"] == force["type"] and state["enemy_rules"]["normal_panic"] == force["profile"]["panic"]
    assert state["enemy_rules"]["data"] == force["profile"]["data"]
    leaders = [e for e in state["enemies"] if e["rank"] == "lieutenant"]
    assert leaders and all(e.get("fearless") for e in leaders)
    assert state["options"]["casualty_tables"] is True
    plain = nm(started(player, None))["state"]
    assert "enemy_rules" not in plain and plain["options"]["casualty_tables"] is False


def test_the_api_takes_the_stance_and_refuses_a_bad_one(player: Any) -> None:
    api = APIClient()
    api.force_authenticate(player)
    battle = standalone(player)
    url = f"/api/v1/fp-battles/{battle.pk}/nominis/"
    bad = api.post(url, {"version": battle.version, "mode": "automatic", "stance": "brave"}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "stance"
    made = api.post(url, {"version": battle.version, "mode": "automatic", "stance": "cautious"}, format="json")
    assert made.status_code == 200 and made.json()["nominis"]["state"]["options"]["stance"] == "cautious"
    auto = api.post(f"{url}auto/", {"version": made.json()["version"], "seed": 2, "stance": "reckless"}, format="json")
    assert auto.status_code == 200 and auto.json()["nominis"]["state"]["options"]["stance"] == "reckless"
    assert auto.json()["nominis"]["actions"][0]["action"]["type"] == "set_stance"
    schema = api.get("/api/schema/?format=json").json()
    start_body = schema["components"]["schemas"]["FpNominisStartInputRequest"]["properties"]
    assert "stance" in start_body


def test_the_screens_offer_the_stance_and_post_it(player: Any) -> None:
    client = Client()
    client.force_login(player)
    battle = standalone(player)
    card = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="stance"' in card and '<option value="steady" selected>' in card
    client.post(
        reverse("battles:act", args=[battle.pk, "nominis_start"]),
        {"version": battle.version, "mode": "automatic", "stance": "cautious"},
    )
    assert nm(fresh(battle))["state"]["options"]["stance"] == "cautious"
    screen = client.get(reverse("battles:nominis", args=[battle.pk])).content.decode()
    assert '<option value="cautious" title=' in screen and "selected>Cautious" in screen
    client.post(
        reverse("battles:act", args=[battle.pk, "nominis_auto"]), {"version": fresh(battle).version, "stance": "reckless"}
    )
    assert nm(fresh(battle))["state"]["options"]["stance"] == "reckless" and nm(fresh(battle))["state"]["finished"]


def test_the_odds_job_reports_each_stance_within_its_battles(
    player: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    battle = standalone(player)
    with django_capture_on_commit_callbacks(execute=True):
        job = odds_services.odds_start(user=player, battle_id=battle.pk, runs=30)
    job.refresh_from_db()
    result = res(job)
    assert result["stance"] == "steady" and result["total_runs"] == 30
    assert [row["stance"] for row in result["by_stance"]] == ["cautious", "steady", "reckless"]
    assert sum(row["runs"] for row in result["by_stance"]) == 30
    assert result["by_stance"][2]["retreated_mean"] == 0
    client = Client()
    client.force_login(player)
    page = client.get(reverse("battles:job", args=[job.pk])).content.decode()
    assert 'data-testid="by-stance"' in page and "How the stance changes it" in page and "Reckless" in page
