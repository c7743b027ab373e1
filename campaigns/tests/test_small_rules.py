"""Small Compendium rules in the turn: the Fixer's +1 to Find a Patron, Recruit and Track
(p.25), Money is Tight's 1 credit for Find a Patron and Repair Your Kit (p.32), the Expanded
Database's +1 to Quest progress (p.27) and Meager starting kit (p.34)."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import services, task_services
from campaigns.engine import characters as ch
from campaigns.engine import tasks, turn
from campaigns.engine.options import CampaignOptions
from campaigns.engine.view import CampaignView
from campaigns.models import Campaign, Character
from rules.engine.dice import Dice
from rules.errors import DropshipError
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
TIGHT = CampaignOptions(toggles=frozenset({"money_is_tight"}))


def test_a_fixer_adds_one_to_find_a_patron_recruit_and_track_only() -> None:
    fixer = ch.Character(name="Ria", training=("Fixer",))
    plain = ch.Character(name="Bo")
    for task in ("find_a_patron", "recruit", "track"):
        assert tasks.crew_task(CampaignOptions(), task, fixer, TABLES, Dice(seed=1), face=3).total == 4  # p.25
        assert tasks.crew_task(CampaignOptions(), task, plain, TABLES, Dice(seed=1), face=3).total == 3
    rolled = tasks.crew_task(CampaignOptions(), "track", fixer, TABLES, Dice(seed=1), modifier=2, face=3)
    assert rolled.total == 6 and rolled.record is not None and "+1 Fixer (p.25)" in rolled.record.reason
    assert tasks.crew_task(CampaignOptions(), "explore", fixer, TABLES, Dice(seed=1)).record is None


def test_money_is_tight_charges_for_find_a_patron_and_repair_your_kit() -> None:
    bo = ch.Character(name="Bo")
    assert tasks.crew_task(TIGHT, "find_a_patron", bo, TABLES, Dice(seed=1)).cost == 1  # p.32
    assert tasks.crew_task(TIGHT, "repair_your_kit", bo, TABLES, Dice(seed=1)).cost == 1
    assert tasks.crew_task(TIGHT, "track", bo, TABLES, Dice(seed=1)).cost == 0
    assert tasks.crew_task(CampaignOptions(), "find_a_patron", bo, TABLES, Dice(seed=1)).cost == 0


def _quest(components: tuple[str, ...]) -> Any:
    view = CampaignView(turn=3, options=CampaignOptions(), rumors=2, quest="The lost relay", ship_components=components)
    spec = next(s for s in turn.plan_turn(view, TABLES) if s.key == "post.quest")
    return turn.resolve(spec, view, TABLES, Dice(seed=1), value=4)


def test_an_expanded_database_adds_one_to_the_quest_progress_roll() -> None:
    plain = _quest(())
    database = _quest(("Expanded Database",))  # p.27
    assert plain.facts["quest_progress"] == 6 and "quest_step" in plain.facts  # 4 + 2 rumors: progression (p.78)
    assert database.facts["quest_progress"] == 7 and database.facts["quest_conclusion"]  # +1: conclusion unlocked
    assert "Expanded Database (p.27)" in database.rolls[0].reason


def test_no_quest_no_roll() -> None:
    view = CampaignView(turn=3, options=CampaignOptions())
    spec = next(s for s in turn.plan_turn(view, TABLES) if s.key == "post.quest")
    assert not turn.resolve(spec, view, TABLES, Dice(seed=1)).rolls


def _v(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


@pytest.mark.django_db
def test_a_crew_task_is_refused_with_its_cost_and_logged_with_its_reasons(fiveparsecs_tables: None, player: Any) -> None:
    campaign = services.campaign_create(user=player, name="Broke", options={"toggles": ["money_is_tight"]})
    ria = Character.objects.create(campaign=campaign, name="Ria", sheet={"training": ["Fixer"]})
    with pytest.raises(DropshipError) as refused:
        task_services.crew_task(
            user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=ria.pk, task="find_a_patron"
        )
    assert refused.value.field == "credits" and "costs 1 credit" in str(refused.value)
    Campaign.objects.filter(pk=campaign.pk).update(credits=3)
    done = task_services.crew_task(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=ria.pk, task="find_a_patron", face=5
    )
    campaign.refresh_from_db()
    assert done.total == 6 and campaign.credits == 2
    line = campaign.log.order_by("-id").first()
    assert line is not None and "Find a Patron (Ria): rolled 5, total 6" in line.text and "Money is Tight, p.32" in line.text


@pytest.mark.django_db
def test_meager_starting_kit_gives_no_starting_credits(fiveparsecs_tables: None, player: Any) -> None:
    for meager, credits in ((False, 2), (True, 0)):
        toggles = ["gutter_starting_kit"] if meager else []
        campaign = services.campaign_create(user=player, name="Kit", options={"toggles": toggles})
        Character.objects.create(campaign=campaign, name="Ria")
        Character.objects.create(campaign=campaign, name="Bo")
        task_services.starting_kit(user=player, campaign_id=campaign.pk, version=_v(campaign))
        campaign.refresh_from_db()
        assert campaign.credits == credits  # core: 1 per crew member; Meager: none (p.34)
        assert ("Low-Tech Weapons" in campaign.log.order_by("-id").first().text) == meager  # type: ignore[union-attr]
        with pytest.raises(DropshipError) as again:
            task_services.starting_kit(user=player, campaign_id=campaign.pk, version=_v(campaign))
        assert again.value.field == "turn"


@pytest.mark.django_db
def test_the_turn_page_and_the_api_resolve_a_crew_task(fiveparsecs_tables: None, player: Any, client: Any) -> None:
    from rest_framework.test import APIClient

    campaign = services.campaign_create(user=player, name="Tasks", options={})
    ria = Character.objects.create(campaign=campaign, name="Ria", sheet={"training": ["Fixer"]})
    api = APIClient()
    api.force_authenticate(player)
    url = f"/api/v1/campaigns/{campaign.pk}/crew-task/"
    body = {"version": _v(campaign), "character": ria.pk, "task": "recruit", "face": 2}
    done = api.post(url, body, format="json")
    assert done.status_code == 200 and done.json()["total"] == 3 and done.json()["reasons"] == ["+1 Fixer (p.25)"]
    client.force_login(player)
    form = {"version": _v(campaign), "page": "turn", "character": ria.pk, "task": "nap"}
    refused = client.post(f"/campaigns/{campaign.pk}/act/crew_task/", form)
    assert refused.status_code == 400 and b"task must be one of" in refused.content
