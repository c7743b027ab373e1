"""A turn step tells what it reads: every input listed with its type and allowed values, a
missing required one refused by name; XP refused for Bots; Psionic powers refused for a
Psionic in Sick Bay; Upkeep the crew cannot pay refused by the rule that asks for it (core
p.76) until the player says what it pays, with loan interest (p.154) applied however Upkeep was
entered; and a played turn's log read as words, never as Python."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns import services, turn_services
from campaigns.engine import turn
from campaigns.engine.options import CampaignOptions
from campaigns.engine.turn import post_battle
from campaigns.engine.turn.battle import BattleRecord, record_inputs, record_words
from campaigns.engine.view import CampaignView, CrewView
from campaigns.engine.wording import option_change_words, option_words, pairs_words, with_article
from campaigns.models import Campaign, Character, Ship, Turn
from campaigns.selectors import current_turn
from rules.engine.dice import Dice
from rules.errors import DropshipError
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}


# -- engine rules --------------------------------------------------------------------------------


def record_step(options: CampaignOptions) -> turn.StepSpec:
    found = [s for s in turn.plan_turn(CampaignView(turn=3, options=options), TABLES) if s.key == "battle.record"]
    return found[0]


def test_a_psionic_in_sick_bay_used_no_powers_p17() -> None:
    options = CampaignOptions(psionics="crew")
    resting = CrewView(id="1", name="Vex", psionic=True, status="sick_bay")
    fighter = CrewView(id="2", name="Ria")
    view = CampaignView(turn=3, options=options, crew=(resting, fighter))
    inputs = {"won": "yes", "held_field": "no", "psionic_uses": 1}
    with pytest.raises(turn.TurnError) as refused:
        turn.resolve(record_step(options), view, TABLES, Dice(seed=1), inputs=inputs)
    assert refused.value.field == "psionic_uses" and "Vex is in Sick Bay and did not fight" in refused.value.message
    active = CampaignView(turn=3, options=options, crew=(CrewView(id="1", name="Vex", psionic=True), fighter))
    done = turn.resolve(record_step(options), active, TABLES, Dice(seed=1), inputs=inputs)
    assert done.facts["battle"]["psionic_uses"] == 1 and "Psionic powers used 1 time." in done.text


def test_a_bot_earns_no_xp_and_upkeep_wants_what_the_crew_pays_core_p76() -> None:
    with pytest.raises(turn.TurnError) as bot:
        post_battle.xp_refusal("Clank", "bot", 2, "xp_7")
    assert bot.value.field == "xp_7" and "Bots earn no XP" in bot.value.message
    post_battle.xp_refusal("Clank", "bot", 0, "xp_7")
    post_battle.xp_refusal("Husk", "soulless", 2, "xp_8")  # Soulless earn XP as usual
    assert post_battle.upkeep_payment(2, 5) == 2 == post_battle.upkeep_payment(2, 5, "2")
    with pytest.raises(turn.TurnError):
        post_battle.upkeep_payment(2, 5, "1")  # a crew that can pay, pays it all
    with pytest.raises(turn.TurnError) as short:
        post_battle.upkeep_payment(3, 1)
    assert short.value.field == "upkeep_paid" and "core p.76" in short.value.message and "0 to 1" in short.value.message
    assert post_battle.upkeep_payment(3, 1, "1") == 1
    with pytest.raises(turn.TurnError):
        post_battle.upkeep_payment(3, 1, "2")


def test_a_finished_battle_decides_its_inputs_and_a_contradiction_names_them() -> None:
    record = BattleRecord(battle_id=4, title="Dock fight", won=False, held_field=False, casualties=("1", "2"), kills=3)
    words = record_words(record, {"1": "Ria", "2": "Bo"})
    assert words == "lost, did not hold the field, 2 casualties (Ria, Bo), 3 enemies killed"
    merged, overridden = record_inputs(record, {"roving_threat": "yes", "casualties": ["2", "1"]})
    assert merged["won"] == "no" and merged["kills"] == 3 and merged["roving_threat"] == "yes" and overridden == []
    with pytest.raises(turn.TurnError) as refused:
        record_inputs(record, {"held_field": "yes"}, names={"1": "Ria", "2": "Bo"})
    assert refused.value.field == "held_field" and words in refused.value.message
    merged, overridden = record_inputs(record, {"held_field": "yes", "override_battle": "yes"})
    assert merged["held_field"] == "yes" and overridden == ["held_field"] and "override_battle" not in merged


def test_log_words_are_words() -> None:
    assert with_article("Opportunity") == "an Opportunity" and with_article("Patron") == "a Patron"
    assert option_words("toggles", ["money_is_tight"]) == "difficulty toggles: Money is Tight"
    assert option_words("dramatic_combat", True) == "Dramatic Combat"
    assert option_change_words("dramatic_combat", False, True) == "Dramatic Combat off to on"
    assert pairs_words({"id": "3", "xp": 2}, skip=("id",)) == "+2 XP"
    assert pairs_words({"unstable": True, "instability": 3}) == "unstable, Instability 3"


# -- services and API -----------------------------------------------------------------------------


def _v(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


def make(player: Any, **options: Any) -> Campaign:
    campaign = services.campaign_create(user=player, name="Drift", options={"crew_size": 4, **options}, dice=Dice(seed=1))
    for name, extra in (
        ("Ria", {}),
        ("Clank", {"kind": "bot", "species": "bot"}),
        ("Bo", {}),
        ("Zed", {"status": "sick_bay", "sick_bay": 2}),
        ("Ana", {}),
    ):
        Character.objects.create(campaign=campaign, name=name, reactions=1, speed=4, toughness=3, **extra)
    return campaign


def _turn(campaign: Campaign) -> Turn:
    current = current_turn(campaign)
    assert current is not None
    return current


def go_to(player: Any, campaign: Campaign, key: str, inputs: dict[str, Any] | None = None) -> Turn:
    """Start a turn and resolve its steps by hand up to ``key`` (``inputs`` at Record the battle)."""
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    for _ in range(80):
        current = _turn(campaign)
        here = current.plan[current.position]["key"]
        if here == key:
            return current
        if here == "battle.record" and inputs:
            turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", inputs=inputs)
        else:
            turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="Done.")
    pytest.fail(f"the turn never reached {key}")


def ids(campaign: Campaign) -> dict[str, str]:
    return {c.name: str(c.pk) for c in campaign.characters.all()}


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_xp_step_lists_its_inputs_and_refuses_what_it_misses_or_a_bot_earns(player: Any) -> None:
    campaign = make(player)
    crew = ids(campaign)
    go_to(player, campaign, "post.xp")
    api = APIClient()
    api.force_authenticate(player)
    step = api.get(f"/api/v1/campaigns/{campaign.pk}/turns/current/").json()["step"]
    fields = {f["name"]: f for f in step["input_fields"]}
    assert set(fields) == {f"xp_{crew[n]}" for n in ("Ria", "Bo", "Zed", "Ana")}  # no Bot: Bots earn no XP
    ria = fields[f"xp_{crew['Ria']}"]
    assert ria["kind"] == "count" and ria["required"] and ria["minimum"] == 0 and ria["maximum"] == 1_000_000
    assert not fields[f"xp_{crew['Zed']}"]["required"]  # in Sick Bay: did not fight
    assert [f"xp_{crew['Ria']}", "count", []] in step["inputs"]
    url = f"/api/v1/campaigns/{campaign.pk}/turns/current/step/"
    missing = api.post(url, {"version": _v(campaign), "mode": "roll", "inputs": {}}, format="json")
    assert missing.status_code == 400 and missing.json()["field"] == f"xp_{crew['Ria']}"
    given = {f"xp_{crew[n]}": 1 for n in ("Ria", "Bo", "Ana")}
    bot = api.post(url, {"version": _v(campaign), "mode": "roll", "inputs": {**given, f"xp_{crew['Clank']}": 2}}, format="json")
    assert bot.status_code == 400 and bot.json()["field"] == f"xp_{crew['Clank']}" and "Bot" in bot.json()["detail"]
    assert campaign.characters.get(name="Clank").xp == 0
    done = api.post(url, {"version": _v(campaign), "mode": "roll", "inputs": given}, format="json")
    assert done.status_code == 200, done.content
    assert campaign.characters.get(name="Ria").xp == 1 and "Ria +1" in done.json()["resolved"]["text"]


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_reduced_lethality_lists_its_exemption_and_asks_for_it_p34(player: Any) -> None:
    campaign = make(player, toggles=["reduced_lethality"])
    crew = ids(campaign)
    fallen = [crew["Ria"], crew["Bo"]]
    current = go_to(player, campaign, "post.injuries", {"won": "no", "held_field": "no", "casualties": fallen})
    guide = turn_services.step_guide(campaign, current)
    assert guide is not None
    exempt = next(f for f in guide["fields"] if f["name"] == "exempt")
    assert exempt["required"] and exempt["kind"] == "crew_id" and sorted(exempt["choices"]) == sorted(fallen)
    with pytest.raises(DropshipError) as missing:
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll")
    assert missing.value.field == "exempt"
    step = turn_services.step_resolve(
        user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", inputs={"exempt": crew["Bo"]}
    )
    assert "Bo: exempt, full recovery (Reduced Lethality)" in step.text


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_sick_bay_psionic_cannot_be_recorded_using_powers(player: Any) -> None:
    campaign = make(player, psionics="crew")
    Character.objects.filter(name="Zed").update(sheet={"psionic": True})
    go_to(player, campaign, "battle.record")
    with pytest.raises(DropshipError) as refused:
        turn_services.step_resolve(
            user=player,
            campaign_id=campaign.pk,
            version=_v(campaign),
            mode="roll",
            inputs={"won": "yes", "held_field": "yes", "psionic_uses": 2},
        )
    assert refused.value.field == "psionic_uses" and "Zed is in Sick Bay" in refused.value.message


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_upkeep_the_crew_cannot_pay_follows_the_rule_and_loan_interest_always_applies(player: Any) -> None:
    campaign = make(player, toggles=["money_is_tight"], loans=True)
    campaign.loan = {**campaign.loan, "balance": 20}
    campaign.credits = 1
    campaign.save()
    go_to(player, campaign, "world.upkeep")
    guide = turn_services.step_guide(campaign, _turn(campaign))
    assert guide is not None
    paid = next(f for f in guide["fields"] if f["name"] == "upkeep_paid")
    assert paid["required"] and paid["maximum"] == 1  # 5 crew: 2 credits with Money is Tight (p.32); the crew has 1
    with pytest.raises(DropshipError) as short:
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll")
    assert (
        short.value.field == "upkeep_paid" and "Upkeep and Ship Repairs (core p.76) wants the Upkeep paid" in short.value.message
    )
    step = turn_services.step_resolve(
        user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", inputs={"upkeep_paid": 1}, dice=Dice(seed=3)
    )
    campaign.refresh_from_db()
    assert campaign.credits == 0 and "paid 1, 1 unpaid" in step.text and campaign.loan["balance"] > 20
    assert _turn(campaign).facts["upkeep_unpaid"] == 1 and _turn(campaign).facts["loan_balance_before"] == 20

    # Typed by hand instead: the interest still applies and the loan step knows the debt before it.
    turn_services.step_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    turn_services.step_resolve(
        user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="Paid 1, owe the rest.", dice=Dice(seed=3)
    )
    campaign.refresh_from_db()
    assert campaign.loan["balance"] > 20 and _turn(campaign).facts["loan_balance_before"] == 20
    while _turn(campaign).plan[_turn(campaign).position]["key"] != "world.loan_enforcement":
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="Done.")
    turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", dice=Dice(seed=4))
    assert _turn(campaign).steps.filter(key="world.loan_enforcement", mode__in=("rule", "rolled")).exists()


def _repair(player: Any, campaign: Campaign, **inputs: Any) -> Any:
    return turn_services.step_resolve(
        user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", inputs=inputs, dice=Dice(seed=3)
    )


def at_upkeep_with_a_damaged_ship(player: Any) -> Campaign:
    """A campaign with a 5/10 hull and 20 credits, its turn at Upkeep and Ship Repairs."""
    campaign = make(player)
    Ship.objects.filter(campaign=campaign).update(hull=5, max_hull=10)
    Campaign.objects.filter(pk=campaign.pk).update(credits=20)
    go_to(player, campaign, "world.upkeep")
    return campaign


def _ship_and_purse(campaign: Campaign) -> tuple[int, int]:
    campaign.refresh_from_db()
    ship = Ship.objects.get(campaign=campaign)
    return ship.hull, campaign.credits


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_ship_repairs_at_upkeep_take_the_free_point_first_and_the_rest_is_paid_core_p76(player: Any) -> None:
    campaign = at_upkeep_with_a_damaged_ship(player)
    guide = turn_services.step_guide(campaign, _turn(campaign))
    assert guide is not None
    fields = {f["name"]: f for f in guide["fields"]}
    assert fields["repair_points"]["maximum"] == 5 and "the 1 free point" in fields["repair_points"]["note"]
    assert not fields["repair_cost"]["required"]

    # Refusals name the field and write nothing.
    for inputs, field in (
        ({"repair_points": 3}, "repair_cost"),  # two of the three are paid for
        ({"repair_points": 6}, "repair_points"),  # the hull lacks five
        ({"repair_points": 3, "repair_cost": 19}, "repair_cost"),  # 20 credits less 2 Upkeep
        ({"repair_points": 1, "repair_cost": 2}, "repair_cost"),  # the one point is free
        ({"repair_points": "three"}, "repair_points"),
    ):
        with pytest.raises(DropshipError) as refused:
            _repair(player, campaign, core_upkeep=2, **inputs)
        assert refused.value.field == field, inputs
        assert _ship_and_purse(campaign) == (5, 20) and _turn(campaign).plan[_turn(campaign).position]["key"] == "world.upkeep"

    step = _repair(player, campaign, core_upkeep=2, repair_points=3, repair_cost=4)
    assert "3 Hull Points repaired (1 free, 2 paid: 4 credits)" in step.text
    assert _ship_and_purse(campaign) == (8, 20 - 2 - 4)
    turn_services.step_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    assert _ship_and_purse(campaign) == (5, 20)

    # Nothing said: the free point, as before paid repairs existed.
    step = _repair(player, campaign, core_upkeep=2)
    assert "1 Hull Point repaired for free" in step.text and _ship_and_purse(campaign) == (6, 18)


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_with_money_is_tight_every_hull_point_is_paid_p32(player: Any) -> None:
    campaign = make(player, toggles=["money_is_tight"])
    Ship.objects.filter(campaign=campaign).update(hull=9, max_hull=10)
    Campaign.objects.filter(pk=campaign.pk).update(credits=10)
    go_to(player, campaign, "world.upkeep")
    guide = turn_services.step_guide(campaign, _turn(campaign))
    assert guide is not None
    points = next(f for f in guide["fields"] if f["name"] == "repair_points")
    assert "Money is Tight gives no free repair (p.32)" in points["note"]
    with pytest.raises(DropshipError) as refused:
        _repair(player, campaign, repair_points=1)
    assert refused.value.field == "repair_cost" and "Money is Tight: no free repair, p.32" in refused.value.message
    step = _repair(player, campaign, repair_points=1, repair_cost=1)  # 5 crew: Upkeep 2 credits (p.32)
    assert "1 Hull Point repaired (all paid: 1 credits)" in step.text and _ship_and_purse(campaign) == (10, 10 - 2 - 1)
    turn_services.step_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    step = _repair(player, campaign)  # nothing said: no repair at all
    assert "Hull Point" not in step.text and _ship_and_purse(campaign) == (9, 8)


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_whole_hull_or_no_ship_repairs_nothing(player: Any) -> None:
    campaign = make(player)
    Ship.objects.filter(campaign=campaign).update(hull=10, max_hull=10)
    go_to(player, campaign, "world.upkeep")
    guide = turn_services.step_guide(campaign, _turn(campaign))
    assert guide is not None and "repair_points" not in {f["name"] for f in guide["fields"]}
    with pytest.raises(DropshipError) as refused:
        _repair(player, campaign, core_upkeep=0, repair_points=1)
    assert refused.value.field == "repair_points" and "the hull is whole (10/10)" in refused.value.message
    Ship.objects.filter(campaign=campaign).delete()
    with pytest.raises(DropshipError) as refused:
        _repair(player, campaign, core_upkeep=0, repair_points=1)
    assert refused.value.field == "repair_points" and "the crew has no ship" in refused.value.message
    step = _repair(player, campaign, core_upkeep=0, repair_points=0)
    assert "Hull Point" not in step.text


PYTHON_TEXT = (
    re.compile(r"[\[\]{}]"),
    re.compile(r"\b(True|False|None)\b"),
    re.compile(r"(?<![A-Za-z])'[^' ]+'"),
    re.compile(r"\b[a-z]+_[a-z_]+\b"),
    re.compile(r"(?<![A-Za-z])a [AEIOaeio]\w"),
)


def _answers(guide: dict[str, Any]) -> dict[str, Any]:
    """An answer for every required input the step lists (the first choice, 1 XP, 0)."""
    made: dict[str, Any] = {"mission": "opportunity", "won": "yes", "held_field": "yes", "travel": "yes"}
    for field in guide["fields"]:
        if field["name"] in made or field["decided"] is not None or not field["required"]:
            continue
        if field["kind"] in ("count", "int"):
            made[field["name"]] = 1 if field["name"].startswith("xp_") else 0
        elif field["kind"] in ("choice", "faction", "crew_id") and field["choices"]:
            made[field["name"]] = field["choices"][0]
    return made


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_a_played_turn_logs_words_not_python(player: Any) -> None:
    options = {
        "toggles": ["money_is_tight", "reduced_lethality"],
        "dramatic_combat": True,
        "loans": True,
        "psionics": "crew",
        "fringe_world_strife": True,
        "expanded_factions": True,
        "elite_enemies": "roll",
        "progressive": [1],
    }
    campaign = make(player, **options)
    campaign.credits = 30
    campaign.save()
    services.campaign_update(user=player, campaign_id=campaign.pk, version=_v(campaign), options={**options, "story_track": True})
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    for index in range(80):
        current = _turn(campaign) if current_turn(campaign) else None
        if current is None:
            break
        guide = turn_services.step_guide(campaign, current)
        assert guide is not None
        try:
            assert guide["rollable"]
            turn_services.step_resolve(
                user=player,
                campaign_id=campaign.pk,
                version=_v(campaign),
                mode="roll",
                inputs=_answers(guide),
                dice=Dice(seed=index),
            )
        except (AssertionError, DropshipError):
            turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="Done.")
    assert current_turn(campaign) is None
    texts = list(campaign.log.values_list("text", flat=True))
    assert any("Changes:" in t for t in texts) and any("Campaign set up with" in t for t in texts)
    assert any(t.startswith("Record the battle: Opportunity mission won") for t in texts)
    for text in texts:
        for pattern in PYTHON_TEXT:
            assert not pattern.search(text), f"{pattern.pattern!r} in {text!r}"


@pytest.mark.django_db
@pytest.mark.usefixtures("fiveparsecs_tables")
def test_the_turn_page_asks_for_repairs_and_a_refusal_keeps_what_was_typed(player: Any) -> None:
    campaign = at_upkeep_with_a_damaged_ship(player)
    client = Client()
    client.force_login(player)
    page = client.get(reverse("campaigns:turn", args=[campaign.pk])).content.decode()
    assert 'data-testid="ship-repairs"' in page and "hull 5/10" in page and 'name="input_repair_cost"' in page
    form = {"version": _v(campaign), "page": "turn", "mode": "roll", "input_core_upkeep": "2", "input_repair_points": "3"}
    refused = client.post(reverse("campaigns:act", args=[campaign.pk, "step"]), form)
    shown = refused.content.decode()
    assert refused.status_code == 400 and "repair_cost: 2 of the 3 Hull Points are paid for" in shown
    assert 'value="3"' in shown and 'value="2"' in shown and _ship_and_purse(campaign) == (5, 20)
    done = client.post(reverse("campaigns:act", args=[campaign.pk, "step"]), {**form, "input_repair_cost": "4"})
    assert done.status_code == 302 and _ship_and_purse(campaign) == (8, 14)
