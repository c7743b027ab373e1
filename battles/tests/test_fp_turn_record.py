"""The battle comes back to the campaign turn: a campaign battle finished before the turn reaches
"Record the battle" fills that step in when the turn gets there (never blank, never asking for
what the battle decided), a typed record that contradicts it is refused unless overridden (and
then logged), finishing at the step records it, and finishing says where the turn stands (a
message on the page, ``turn_note`` in the API answer)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from battles import nominis_services, result_services, services
from battles.models import Battle
from battles.tests.test_fp_services import ELITE, fresh, make_campaign, play_to_record
from campaigns import turn_services
from campaigns.models import Campaign, Character, Turn
from campaigns.selectors import current_turn
from rules.engine.dice import Dice
from rules.errors import DropshipError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def _v(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


def _turn(campaign: Campaign) -> Turn:
    turn = current_turn(campaign)
    assert turn is not None
    return turn


def advance_to_record(player: Any, campaign: Campaign) -> Turn:
    """Resolve the steps of the turn being played by hand up to "Record the battle"."""
    for _ in range(60):
        turn = _turn(campaign)
        if turn.plan[turn.position]["key"] == "battle.record":
            return turn
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="Done.")
    pytest.fail("the turn never reached Record the battle")


def finish_early(player: Any, campaign: Campaign) -> Battle:
    """A battle of turn 1 finished while the turn is still at its first step: a total wipe."""
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    return result_services.battle_finish(
        user=player, battle_id=battle.pk, version=battle.version, held_field=False, casualties=["Ria", "Bo"]
    )


def test_a_battle_finished_early_fills_record_the_battle_when_the_turn_gets_there(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    battle = finish_early(player, campaign)
    ids = sorted(str(pk) for pk in Character.objects.filter(name__in=("Ria", "Bo")).values_list("pk", flat=True))
    assert not battle.reported and _turn(campaign).position < [s["key"] for s in _turn(campaign).plan].index("battle.record")
    words = "lost, did not hold the field, 2 casualties (Ria, Bo)"
    note = result_services.battle_turn_note(battle)
    assert note.startswith("Turn 1 is at ") and f"filled in from this battle ({words}) when the turn gets there" in note

    turn = advance_to_record(player, campaign)
    guide = turn_services.step_guide(campaign, turn)
    assert guide is not None and guide["battle"] is not None and guide["battle"].battle_id == battle.pk
    assert guide["battle_words"] == words
    decided = {f["name"]: f["decided"] for f in guide["fields"] if f["decided"] is not None}
    assert decided["won"] == "no" and decided["held_field"] == "no" and sorted(decided["casualties"]) == ids
    assert not any(f["required"] for f in guide["fields"])  # the battle answered what the step needs

    # Recording "won, held the field" for this total wipe is refused, saying what the battle recorded.
    version = _v(campaign)
    with pytest.raises(DropshipError) as refused:
        turn_services.step_resolve(
            user=player, campaign_id=campaign.pk, version=version, mode="roll", inputs={"won": "yes", "held_field": "yes"}
        )
    assert refused.value.field == "won" and words in refused.value.message and "override_battle" in refused.value.message
    with pytest.raises(DropshipError) as by_hand:
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=version, mode="manual", text="Won it.")
    assert by_hand.value.field == "mode" and words in by_hand.value.message
    with pytest.raises(DropshipError):
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=version, mode="skip")
    assert _v(campaign) == version and _turn(campaign).plan[_turn(campaign).position]["key"] == "battle.record"

    # Confirming takes everything from the battle.
    step = turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=version, mode="roll")
    facts = _turn(campaign).facts
    assert facts["battle"]["won"] is False and facts["battle"]["held_field"] is False
    assert sorted(facts["battle"]["casualties"]) == ids and facts["battle"]["elite"] is True
    assert facts["battle_source"] == {"id": battle.pk, "title": battle.title, "overridden": False}
    assert "From the battle" in step.text and "2 casualties: Ria, Bo" in step.text
    next_title = _turn(campaign).plan[_turn(campaign).position]["title"]
    assert result_services.battle_turn_note(fresh(battle)) == f"Recorded in turn 1: {words}; next: {next_title}."


def test_undoing_the_record_fills_it_again_and_an_override_is_logged(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    battle = finish_early(player, campaign)
    advance_to_record(player, campaign)
    turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll")
    turn_services.step_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    turn = _turn(campaign)
    guide = turn_services.step_guide(campaign, turn)
    assert turn.plan[turn.position]["key"] == "battle.record" and guide is not None and guide["battle"] is not None

    step = turn_services.step_resolve(
        user=player,
        campaign_id=campaign.pk,
        version=_v(campaign),
        mode="roll",
        inputs={"won": "yes", "held_field": "yes", "override_battle": "yes"},
    )
    facts = _turn(campaign).facts
    assert facts["battle"]["won"] and facts["battle"]["held_field"] and facts["battle_source"]["overridden"]
    assert f"Typed over the finished battle {battle.title} (won, held field)" in step.text
    line = campaign.log.filter(step="battle.record", undone=False).get()
    assert "which recorded lost, did not hold the field, 2 casualties (Ria, Bo)" in line.text


def test_finishing_at_the_step_records_it_and_says_what_comes_next(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    play_to_record(player, campaign)
    battle = services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=5), battle_type="conventional"
    )
    battle = nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="automatic")
    battle = nominis_services.nominis_auto(user=player, battle_id=battle.pk, version=battle.version, dice=Dice(seed=2))
    done = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    record = done.result["record"] if done.result else {}
    assert done.reported and record["kills"] == done.result["enemies_killed"]  # type: ignore[index]
    turn = _turn(campaign)
    assert turn.steps.filter(key="battle.record").exists() and turn.facts["battle_kills"] == record["kills"]
    note = result_services.battle_turn_note(done)
    assert note.startswith("Recorded in turn 1: ") and f"next: {turn.plan[turn.position]['title']}." in note
    assert f"{record['kills']} enem" in note


def test_with_questions_only_the_player_answers_the_step_waits_for_confirmation(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True, fringe_world_strife=True)
    play_to_record(player, campaign)
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    done = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version, held_field=True)
    assert not done.reported and _turn(campaign).plan[_turn(campaign).position]["key"] == "battle.record"
    note = result_services.battle_turn_note(done)
    assert "is at Record the battle, filled in from this battle (won, held the field, no casualties)" in note
    assert "answer what only you know (a Roving Threat) on the turn page" in note and "Record in the turn now" in note
    turn_services.step_resolve(
        user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", inputs={"roving_threat": "yes"}
    )
    facts = _turn(campaign).facts
    assert facts["battle"]["held_field"] and facts["roving_threat"] is True


def test_the_api_and_the_page_say_where_the_turn_stands(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    api = APIClient()
    api.force_authenticate(player)
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    early = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    answer = api.post(f"/api/v1/fp-battles/{early.pk}/finish/", {"version": early.version, "held_field": "yes"}, format="json")
    assert answer.status_code == 200, answer.content
    assert "Record the battle will be filled in from this battle (won, held the field" in answer.json()["turn_note"]

    advance_to_record(player, campaign)
    current = api.get(f"/api/v1/campaigns/{campaign.pk}/turns/current/").json()["step"]
    assert current["battle"]["id"] == early.pk and current["battle"]["record"]["held_field"] is True
    fields = {f["name"]: f for f in current["input_fields"]}
    assert fields["won"]["decided"] == "yes" and not fields["won"]["required"] and "override_battle" in fields
    assert "won" in current["optional_inputs"]
    refused = api.post(
        f"/api/v1/campaigns/{campaign.pk}/turns/current/step/",
        {"version": _v(campaign), "mode": "roll", "inputs": {"held_field": "no"}},
        format="json",
    )
    assert refused.status_code == 400 and refused.json()["field"] == "held_field"
    assert "recorded won, held the field" in refused.json()["detail"]

    # On the page: the turn shows the filled-in step, and finishing shows the message.
    client = Client()
    client.force_login(player)
    page = client.get(reverse("campaigns:turn", args=[campaign.pk])).content.decode()
    assert 'data-testid="battle-record"' in page and "won, held the field, no casualties" in page
    assert 'name="input_won"' not in page and "Confirm the battle's result" in page
    late = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=6))
    shown = client.post(
        reverse("battles:act", args=[late.pk, "finish"]), {"version": late.version, "held_field": "no"}, follow=True
    ).content.decode()
    assert "Recorded in turn 1: won, did not hold the field, no casualties; next: " not in shown  # won follows held
    assert "Recorded in turn 1: lost, did not hold the field, no casualties; next: " in shown


def test_the_battle_page_and_the_api_record_a_battle_the_turn_is_waiting_for(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    battle = finish_early(player, campaign)
    api = APIClient()
    api.force_authenticate(player)
    client = Client()
    client.force_login(player)
    detail = reverse("battles:detail", args=[battle.pk])

    # The turn is not at Record the battle yet: no button, and the API refuses, saying why.
    assert not result_services.battle_reportable(battle)
    assert 'data-testid="report"' not in client.get(detail).content.decode()
    early = api.post(f"/api/v1/fp-battles/{battle.pk}/report/", {"version": battle.version}, format="json")
    assert early.status_code == 400 and early.json()["field"] == "turn"
    assert "when the turn gets there" in early.json()["detail"] and not fresh(battle).reported

    # At the step: the page offers it and a stale version is refused without writing.
    advance_to_record(player, campaign)
    assert result_services.battle_reportable(fresh(battle))
    page = client.get(detail).content.decode()
    assert 'data-testid="report"' in page and "Record in the turn now" in page
    stale = api.post(f"/api/v1/fp-battles/{battle.pk}/report/", {"version": battle.version - 1}, format="json")
    assert stale.status_code == 409 and not fresh(battle).reported

    # The page's button records it and says what comes next; the button is gone.
    shown = client.post(
        reverse("battles:act", args=[battle.pk, "report"]), {"version": fresh(battle).version}, follow=True
    ).content.decode()
    assert fresh(battle).reported and "Recorded in turn 1: lost, did not hold the field, 2 casualties (Ria, Bo)" in shown
    assert 'data-testid="report"' not in shown
    assert _turn(campaign).facts["battle_source"]["id"] == battle.pk
    again = api.post(f"/api/v1/fp-battles/{battle.pk}/report/", {"version": fresh(battle).version}, format="json")
    assert again.status_code == 400 and again.json()["field"] == "turn"


def test_the_api_records_the_battle_and_answers_with_the_turn_note(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True, fringe_world_strife=True)
    play_to_record(player, campaign)
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    done = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version, held_field=True)
    assert not done.reported  # the step also asks about a Roving Threat: the finish waits
    api = APIClient()
    api.force_authenticate(player)
    answer = api.post(f"/api/v1/fp-battles/{battle.pk}/report/", {"version": done.version}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["reported"] is True and answer.json()["turn_note"].startswith("Recorded in turn 1: won, held")
    assert _turn(campaign).facts["battle"]["held_field"] is True
