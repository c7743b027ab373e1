"""Expanded Connections (Compendium pp.80-86) in the campaign turn: the check (automatic the
first time, 5-6 after, every other time with the no-roll option), the Connections table and
its subtables, a random non-captain crew member, taking or turning down a * job and what
declining costs, the battle brief and enemy changes, the rewards after a win, and the API's
``accept`` input."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from campaigns import services, turn_services
from campaigns.engine import connections, turn
from campaigns.engine.options import CampaignOptions
from campaigns.engine.view import CampaignView, CrewView
from campaigns.models import Campaign, Character
from campaigns.selectors import current_turn
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}
ON = CampaignOptions(expanded_connections=True)
CREW = (
    CrewView(id="1", name="Ria", captain=True),
    CrewView(id="2", name="Bo"),
    CrewView(id="3", name="Kit"),
)


def step(key: str, options: CampaignOptions = ON) -> turn.StepSpec:
    return next(s for s in turn.plan_turn(CampaignView(turn=3, options=options), TABLES) if s.key == key)


def view(history: tuple[bool, ...] = (), *, options: CampaignOptions = ON, **extra: Any) -> CampaignView:
    return CampaignView(turn=3, options=options, crew=CREW, connection_history=history, **extra)


def check(history: tuple[bool, ...], value: int | None = None, faces: list[int] | None = None, seed: int = 1) -> Any:
    inputs = {"faces": faces} if faces else {}
    return turn.resolve(step("battle.connections"), view(history), TABLES, Dice(seed=seed), value=value, inputs=inputs)


def fact(history: tuple[bool, ...], value: int, faces: list[int]) -> dict[str, Any]:
    return dict(check(history, value, faces).facts[connections.FACT])


# -- the plan ---------------------------------------------------------------------------------


def test_the_option_gives_the_check_its_rule_and_adds_the_accept_and_reward_steps() -> None:
    off = {s.key: s for s in turn.plan_turn(CampaignView(turn=3, options=CampaignOptions()), TABLES)}
    assert off["battle.connections"].rule == "" and "battle.connection_accept" not in off and "post.connection" not in off
    on = [s.key for s in turn.plan_turn(CampaignView(turn=3, options=ON), TABLES)]
    assert step("battle.connections").rule == "connections" and step("battle.connections").condition == "opportunity"
    assert on.index("battle.connection_accept") == on.index("battle.connections") + 1
    assert on.index("post.connection") == on.index("post.paid") + 1
    assert step("battle.connection_accept").inputs == (("accept", "choice", ("yes", "no")),)


# -- the check ----------------------------------------------------------------------------------


def test_the_first_check_is_automatic_then_a_5_or_6_on_the_d6_p80() -> None:
    first = check((), value=1, faces=[5])  # no check die: the Connections table and subtable only
    assert [r.reason for r in first.rolls] == ["Expanded Connections table", "Connections Subtable 1"]
    assert first.facts["connection"]["entry"] == "Payback" and first.facts["connection"]["automatic"]
    none = check((True,), value=4)
    assert none.facts["connection"] == {"had": False, "automatic": False} and len(none.rolls) == 1
    assert "Connection check 4: No Connection." in none.text
    rolled = check((True,), value=5, faces=[3, 5])
    assert rolled.rolls[0].reason == "Check for a Connection (5-6)"
    assert rolled.facts["connection"]["entry"] == "Coincidence" and rolled.facts["connection"]["page"] == "p.83"
    assert rolled.facts["connection"]["accepted"] is True  # not a * entry: played as it is


def test_seeded_dice_roll_and_log_every_die() -> None:
    results = [check((True,), seed=seed) for seed in range(1, 40)]
    had = [r for r in results if r.facts["connection"]["had"]]
    missed = [r for r in results if not r.facts["connection"]["had"]]
    assert had and missed
    for result in had:
        assert result.rolls[0].total in (5, 6) and len(result.rolls) >= 3
        assert result.facts["connection"]["entry"] in result.text
    assert all(r.rolls[0].total <= 4 for r in missed)
    again = check((True,), seed=7)
    assert again.as_dict() == check((True,), seed=7).as_dict()


def test_the_no_roll_option_gives_every_other_opportunity_mission_a_connection_p81() -> None:
    options = CampaignOptions(expanded_connections=True, connections_no_roll=True)
    spec = step("battle.connections", options)
    after_one = turn.resolve(spec, view((True,), options=options), TABLES, Dice(seed=3))
    assert not after_one.rolls and after_one.facts["connection"]["had"] is False
    after_none = turn.resolve(spec, view((False,), options=options), TABLES, Dice(seed=3))
    assert after_none.facts["connection"]["had"] and "Check for a Connection (5-6)" not in [r.reason for r in after_none.rolls]


def test_a_personal_connection_picks_a_crew_member_who_is_not_the_captain_p86() -> None:
    for seed in range(1, 12):
        found = check((True,), value=6, faces=[6, 2], seed=seed)
        made = found.facts["connection"]
        assert made["kind"] == "personal" and made["crew_id"] in ("2", "3") and made["can_decline"]
        assert found.rolls[-1].reason.startswith("Crew member of the Connection (not the captain)")
    assert fact((True,), 6, [6, 2])["crew_name"] in check((True,), value=6, faces=[6, 2]).text


# -- accept or decline ----------------------------------------------------------------------------


def accept(made: dict[str, Any], answer: Any, **extra: Any) -> Any:
    facts = {connections.FACT: made}
    return turn.resolve(
        step("battle.connection_accept"), view((True,), **extra), TABLES, Dice(seed=1), inputs={"accept": answer}, facts=facts
    )


def test_turning_down_a_job_costs_what_the_entry_says_p82_p84_p86() -> None:
    friend = fact((), 1, [1])  # Old friend in trouble: declining loses 1 Story Point
    declined = accept(friend, "no", story_points=2)
    assert [c.as_dict() for c in declined.changes] == [{"kind": "story_points", "data": {"amount": -1}}]
    assert declined.facts["connection"]["accepted"] is False and "no Connection" in declined.text
    assert not turn.applies(step("post.connection"), view(), {**declined.facts, "battle": {"won": True}})
    taken = accept(friend, "yes", story_points=2)
    assert not taken.changes and taken.facts["connection"]["accepted"] is True
    upset = fact((True,), 6, [6, 5, 1])  # Upset the wrong people: hand the crew member over
    handed = accept(upset, "no")
    assert handed.changes[0].kind == "character" and handed.changes[0].data == {"id": upset["crew_id"], "status": "gone"}
    intel = fact((True,), 6, [4, 4])  # Encrypted intel: sell it for 3 credits, or discard the Rumors
    assert accept(intel, "no").changes[0].as_dict() == {"kind": "credits", "data": {"amount": 3}}
    assert accept(intel, "yes", rumors=2).changes[0].as_dict() == {"kind": "rumor_remove", "data": {"count": 2}}


def test_accept_is_asked_only_for_a_starred_entry_and_refuses_other_values() -> None:
    spec = step("battle.connection_accept")
    assert turn.applies(spec, view(), {connections.FACT: fact((), 1, [1])})
    assert not turn.applies(spec, view(), {connections.FACT: fact((True,), 5, [3, 5])})  # Coincidence: no *
    with pytest.raises(turn.TurnError) as refused:
        accept(fact((), 1, [1]), "maybe")
    assert refused.value.field == "accept" and "yes, no" in refused.value.message


# -- the battle -------------------------------------------------------------------------------------


def test_the_brief_and_the_enemy_take_the_connections_modifiers() -> None:
    punks = {"name": "Punks", "numbers": 1, "panic": "1-2", "specialists": 0}
    payback = {connections.FACT: fact((), 1, [5])}
    enemy, notes = connections.adjust_enemy(punks, payback)
    assert enemy["numbers"] == 3 and enemy["panic"] == "1-2" and any("Enemy numbers +2." in n for n in notes)
    coincidence = {connections.FACT: fact((True,), 5, [3, 5])}
    elite, notes = connections.adjust_enemy({"elite": True, "category": "Criminal Elements"}, coincidence)
    assert elite == {"elite": True, "category": "Criminal Elements"} and notes[-1].endswith("by hand.")
    enemy, _ = connections.adjust_enemy(punks, coincidence)
    assert enemy["specialists"] == 2 and enemy["panic"] == "1" and enemy["numbers"] == 1
    assert connections.adjust_enemy({**punks, "panic": "1"}, coincidence)[0]["panic"] == "1"  # 1 stays 1 (p.83)
    set_up = {connections.FACT: fact((True,), 5, [5, 4])}  # Set up?: 1 becomes 0 (p.85)
    assert connections.adjust_enemy({**punks, "panic": "1"}, set_up)[0]["panic"] == "0"
    assert "The enemy brings a Unique Individual." in connections.brief_lines(set_up)
    favor = connections.brief_lines({connections.FACT: fact((), 1, [3])})
    assert "Round limit: 6 (the tracker says whether the objective was reached in time)." in favor
    assert "1 extra Specialist." in favor
    declined = {connections.FACT: {**fact((), 1, [5]), "accepted": False}}
    assert connections.adjust_enemy(punks, declined) == (punks, []) and connections.brief_lines(declined) == []


# -- rewards ----------------------------------------------------------------------------------------


def rewards(made: dict[str, Any], won: bool, inputs: dict[str, Any] | None = None, value: int | None = None) -> Any:
    facts = {connections.FACT: made, "battle": {"won": won}}
    return turn.resolve(
        step("post.connection"), view((True,), story_points=1), TABLES, Dice(seed=2), value=value, inputs=inputs, facts=facts
    )


def test_a_won_connection_pays_story_points_rumors_credits_and_xp_pp82_86() -> None:
    personal = {**fact((True,), 6, [6, 6, 1]), "accepted": True}  # Promising lead
    paid = rewards(personal, True)
    kinds = sorted((c.kind, tuple(sorted(c.data.items()))) for c in paid.changes)
    assert ("story_points", (("amount", 1),)) in kinds and "rumor_add" in [k for k, _ in kinds]
    assert ("character", (("id", personal["crew_id"]), ("xp", 2))) in kinds
    favor = {**fact((), 1, [3]), "accepted": True}
    assert [c.as_dict() for c in rewards(favor, True).changes] == [{"kind": "credits", "data": {"amount": 2}}]
    coincidence = fact((True,), 5, [3, 5])  # the captain earns +3 XP
    assert rewards(coincidence, True).changes[0].data == {"id": "1", "xp": 3}
    payback = {**fact((), 1, [5]), "accepted": True}
    assert "Roll 1 extra time on the Loot table." in rewards(payback, True).text
    friend = {**fact((), 1, [1]), "accepted": True}
    lost = rewards(friend, False)
    assert [c.as_dict() for c in lost.changes] == [{"kind": "story_points", "data": {"amount": -1}}]
    assert not rewards(payback, False).changes


def test_a_reward_with_a_further_condition_asks_for_it_and_rolls_its_credits_p84() -> None:
    dirt = {**fact((True,), 6, [4, 6]), "accepted": True}  # 1D6 credits within 5 rounds
    asked = rewards(dirt, True)
    assert asked.needs == ("condition_met",) and not asked.changes
    assert not rewards(dirt, True, {"condition_met": "no"}).changes
    paid = rewards(dirt, True, {"condition_met": "yes"}, value=4)
    assert paid.changes[0].as_dict() == {"kind": "credits", "data": {"amount": 4}}
    assert paid.rolls[0].reason == "Connection credits (Dirt on the employer)"
    with pytest.raises(turn.TurnError) as refused:
        rewards(dirt, True, {"condition_met": "perhaps"})
    assert refused.value.field == "condition_met"
    fields = [{"name": "condition_met", "required": False, "note": ""}]
    connections.field_notes(fields, {connections.FACT: dirt})
    assert fields[0] == {"name": "condition_met", "required": True, "note": "Rewarded only if the mission took 5 rounds or less."}


# -- the service and the API ----------------------------------------------------------------------


def campaign_with_crew(user: Any, story_points: int = 2, options: dict[str, Any] | None = None) -> Campaign:
    chosen = {"crew_size": 4, "expanded_connections": True, **(options or {})}
    campaign = services.campaign_create(user=user, name="Drift", options=chosen)
    Character.objects.create(campaign=campaign, name="Ria", is_captain=True, reactions=2, speed=5, toughness=4)
    Character.objects.create(campaign=campaign, name="Bo", reactions=1, speed=4, toughness=3)
    Campaign.objects.filter(pk=campaign.pk).update(story_points=story_points)
    campaign.refresh_from_db()
    return campaign


def play_to(user: Any, campaign: Campaign, stop: str, answers: dict[str, dict[str, Any]]) -> Campaign:
    """Resolve the turn's steps up to ``stop``: the keys of ``answers`` with those arguments,
    the rest skipped."""
    for _ in range(80):
        campaign.refresh_from_db()
        playing = current_turn(campaign)
        assert playing is not None
        key = playing.plan[playing.position]["key"]
        if key == stop:
            return campaign
        given = answers.get(key, {"mode": "skip"})
        turn_services.step_resolve(user=user, campaign_id=campaign.pk, version=campaign.version, **given)
    raise AssertionError(f"never reached {stop}")


def play(user: Any, stop: str, answers: dict[str, dict[str, Any]], options: dict[str, Any] | None = None) -> Campaign:
    """A new campaign (Ria the captain, Bo) whose first turn is played up to ``stop``."""
    campaign = campaign_with_crew(user, options=options)
    turn_services.turn_start(user=user, campaign_id=campaign.pk, version=campaign.version)
    return play_to(user, campaign, stop, answers)


OPPORTUNITY: dict[str, dict[str, Any]] = {"battle.type": {"mode": "roll", "inputs": {"mission": "opportunity"}}}
#: The first check: a Connection without a roll; table 1-2 (a person), subtable 1: Old friend in trouble (*).
OLD_FRIEND: dict[str, dict[str, Any]] = {
    **OPPORTUNITY,
    "battle.connections": {"mode": "enter", "value": 1, "inputs": {"faces": [1]}},
}


@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_personal_connection_won_in_play_gives_the_crew_member_xp_and_a_story_point(player: Any) -> None:
    answers: dict[str, dict[str, Any]] = {
        **OPPORTUNITY,
        "battle.connections": {"mode": "enter", "value": 6, "inputs": {"faces": [1]}},  # first check: automatic
        "battle.connection_accept": {"mode": "roll", "inputs": {"accept": "yes"}},
        "battle.record": {"mode": "roll", "inputs": {"won": "yes", "held_field": "yes"}},
    }
    campaign = play(player, "post.connection", answers)
    made = current_turn(campaign).facts["connection"]  # type: ignore[union-attr]
    assert made["entry"] == "Old enemies" and made["crew_name"] == "Bo" and made["accepted"] is True
    playing = current_turn(campaign)
    assert playing is not None
    guide = turn_services.step_guide(campaign, playing)
    assert guide is not None and not guide["fields"][0]["required"]
    assert guide["fields"][0]["note"] == "Not asked for this Connection."
    done = turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll")
    campaign.refresh_from_db()
    assert campaign.story_points == 3 and Character.objects.get(name="Bo").xp == 2
    assert "Bo +2 XP." in done.text
    log = campaign.log.filter(step="battle.connections").first()
    assert log is not None and [r["reason"] for r in log.rolls][:2] == ["Expanded Connections table", "Connections Subtable 5"]


@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_api_lists_the_accept_input_and_refuses_a_bad_value(player: Any) -> None:
    campaign = play(player, "battle.connection_accept", OLD_FRIEND)
    api = APIClient()
    api.force_authenticate(player)
    url = f"/api/v1/campaigns/{campaign.pk}/turns/current/"
    state = api.get(url).json()
    assert state["step"]["spec"]["key"] == "battle.connection_accept"
    assert ["accept", "choice", ["yes", "no"]] in state["step"]["inputs"]
    asked = next(f for f in state["step"]["input_fields"] if f["name"] == "accept")
    assert (
        asked["required"] and asked["note"] == "Old friend in trouble (p.82). No: a random Opportunity mission (-1 Story Point)."
    )
    bad = api.post(f"{url}step/", {"version": state["version"], "mode": "roll", "inputs": {"accept": "maybe"}}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "accept" and "yes, no" in str(bad.json())
    campaign.refresh_from_db()
    assert campaign.story_points == 2  # the refused answer wrote nothing
    declined = api.post(f"{url}step/", {"version": state["version"], "mode": "roll", "inputs": {"accept": "no"}}, format="json")
    assert declined.status_code == 200, declined.content
    campaign.refresh_from_db()
    assert campaign.story_points == 1 and declined.json()["turn"]["facts"]["connection"]["accepted"] is False


@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_turn_page_asks_whether_to_take_the_job_and_refuses_a_bad_answer(player: Any) -> None:
    from django.test import Client
    from django.urls import reverse

    campaign = play(player, "battle.connection_accept", OLD_FRIEND)
    client = Client()
    client.force_login(player)
    page = client.get(reverse("campaigns:turn", args=[campaign.pk])).content.decode()
    assert "Take the Connection&#x27;s job?" in page and 'name="input_accept" value="no"' in page
    assert "Old friend in trouble (p.82). No: a random Opportunity mission (-1 Story Point)." in page
    act = reverse("campaigns:act", args=[campaign.pk, "step"])
    bad = client.post(act, {"version": campaign.version, "mode": "roll", "input_accept": "maybe"})
    assert bad.status_code == 400 and "accept must be one of yes, no" in bad.content.decode()
    good = client.post(act, {"version": campaign.version, "mode": "roll", "input_accept": "yes"})
    assert good.status_code in (200, 302)
    campaign.refresh_from_db()
    assert current_turn(campaign).facts["connection"]["accepted"] is True  # type: ignore[union-attr]
