"""Loans in play (pp.152-156): Collectors (1D6+1 against the turns spent here, a 3D6 fine),
seizure warrants (2D6), interest while the ship is impounded, paying the loan off, and giving
the ship up; each roll logged with its reason."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import loan_services, services, turn_services
from campaigns.engine import world
from campaigns.models import Campaign, Rival, Ship, World
from rules.engine.dice import Dice
from rules.errors import DropshipError
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}

TERMS: dict[str, Any] = {
    "origin": "Corporate",
    "enforcement_column": "Corporate",
    "collection_squad": "Corporate security",
    "extra_credits": 0,
    "interest": "Average",
    "low_interest": 1,
    "high_interest": 3,
    "low_interest_max_owed": 30,
    "aggressiveness": "Moderate",
    "threshold_1": 60,
    "threshold_2": 75,
    "extra_roll_step": 5,
}


# -- engine ------------------------------------------------------------------------------------


def test_collectors_catch_up_when_the_roll_is_at_most_the_turns_spent_here() -> None:
    # p.155: 1D6+1 at or under the turns on this world catches the crew; 3D6 fine.
    loan = {**TERMS, "balance": 40, "collectors": 1}
    paid = world.loan_checks(loan, TABLES, Dice(seed=1), turns_on_world=3, credits=20, faces=[1, 4, 4, 4])
    assert [c.data for c in paid.changes if c.kind == "credits"] == [{"amount": -12}]
    assert any(c.kind == "loan" and c.data.get("collectors") == -1 for c in paid.changes)
    assert [r.reason for r in paid.rolls] == ["Collectors catch up?", "Collectors' fine"]
    unpaid = world.loan_checks(loan, TABLES, Dice(seed=1), turns_on_world=3, credits=5, faces=[1, 4, 4, 4])
    assert [c.data["balance"] for c in unpaid.changes if c.kind == "loan" and "balance" in c.data] == [12]
    assert [c.data["kind"] for c in unpaid.changes if c.kind == "rival_add"] == ["Bounty hunters"]
    missed = world.loan_checks(loan, TABLES, Dice(seed=1), turns_on_world=1, credits=20, faces=[1])
    assert not missed.changes and "have not caught up" in missed.lines[0]  # 1D6+1 is never 1 or less


def test_a_seizure_warrant_rolls_two_d6_and_grows_each_time() -> None:
    # p.155: temporary 2-5, permanent 2-6, +1 for each extra time the method was rolled.
    warrant = {**TERMS, "balance": 70, "warrants": {"Temporary seizure": {"times": 1, "owed": 62}}}
    safe = world.loan_checks(warrant, TABLES, Dice(seed=1), turns_on_world=1, credits=0, faces=[3, 3])
    assert safe.seizing == "" and safe.rolls[0].reason == "Temporary seizure (2-5 seizes)"
    twice = {**warrant, "warrants": {"Temporary seizure": {"times": 2, "owed": 62}}}
    came = world.loan_checks(twice, TABLES, Dice(seed=1), turns_on_world=1, credits=0, faces=[3, 3])
    assert came.seizing == "Temporary seizure"
    assert came.changes[0].data["seizure"] == {"method": "Temporary seizure", "owed": 70}
    impounded = world.loan_checks({**twice, "impounded": {"owed": 70}}, TABLES, Dice(seed=1), turns_on_world=1, credits=0)
    assert not impounded.rolls  # already held: no second temporary seizure


def test_enforcement_notes_collectors_and_warrants_as_state() -> None:
    terms = world.LoanTerms.from_dict(TERMS)
    out = world.loan_enforcement(terms, 58, 61, TABLES, Dice(seed=1), values=(40,))  # Corporate 31-55: Collectors
    loan = world.loan_state_apply(TERMS, out.changes[0].data)
    assert loan["collectors"] == 1
    seized = world.loan_enforcement(terms, 58, 61, TABLES, Dice(seed=1), values=(80,))  # 71-85: Temporary seizure
    loan = world.loan_state_apply(TERMS, seized.changes[0].data)
    loan = world.loan_state_apply(loan, seized.changes[0].data)
    assert loan["warrants"] == {"Temporary seizure": {"times": 2, "owed": 61}}


def test_interest_stops_while_a_unity_or_sector_lender_holds_the_ship() -> None:
    # p.155: interest still accrues while impounded, unless Unity or a Sector Government lent.
    corporate = world.LoanTerms.from_dict({**TERMS, "impounded": {"owed": 50}})
    assert world.loan_interest(corporate, 50, Dice(seed=1))[0] == 3
    sector = world.LoanTerms.from_dict({**TERMS, "enforcement_column": "Local Sector", "impounded": {"owed": 50}})
    assert world.loan_interest(sector, 50, Dice(seed=1))[0] == 0
    free = world.LoanTerms.from_dict({**TERMS, "enforcement_column": "Local Sector"})
    assert world.loan_interest(free, 50, Dice(seed=1))[0] == 3


def test_paying_ten_below_the_seizure_debt_cancels_the_warrant_and_frees_the_ship() -> None:
    loan = {**TERMS, "balance": 70, "warrants": {"Permanent seizure": {"times": 1, "owed": 65}}, "impounded": {"owed": 68}}
    changes, text = world.loan_payment(loan, 14, TABLES)  # 56: not yet 55 or less
    assert not any(c.data.get("warrant_cleared") for c in changes) and "released" in text
    changes, text = world.loan_payment(loan, 15, TABLES)
    assert any(c.data.get("warrant_cleared") == "Permanent seizure" for c in changes) and "cancelled" in text
    with pytest.raises(world.WorldError):
        world.loan_payment(loan, 71, TABLES)


# -- services ------------------------------------------------------------------------------------


def _v(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


def loaned(player: Any, **state: Any) -> Campaign:
    campaign = services.campaign_create(user=player, name="Debtors", options={"loans": True}, dice=Dice(seed=1))
    Campaign.objects.filter(pk=campaign.pk).update(loan={**TERMS, "balance": 40, **state}, credits=20)
    World.objects.create(campaign=campaign, name="Kessa", arrived_turn=0)
    campaign.refresh_from_db()
    return campaign


@pytest.mark.django_db
def test_the_enforcement_step_runs_the_collectors_and_logs_each_roll(fiveparsecs_tables: None, player: Any) -> None:
    campaign = loaned(player, collectors=1)
    Campaign.objects.filter(pk=campaign.pk).update(turn=4)  # on Kessa since set-up: turn 5 is the 6th turn here
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    for index in range(10):
        turn.refresh_from_db()
        guide = turn_services.step_guide(campaign, turn)
        assert guide is not None
        if guide["spec"].key == "world.loan_enforcement":
            break
        mode = "roll" if guide["rollable"] else "manual"
        inputs = {"travel": "no", "core_upkeep": "0"}
        turn_services.step_resolve(
            user=player, campaign_id=campaign.pk, version=_v(campaign), mode=mode, inputs=inputs, text="x", dice=Dice(seed=index)
        )
    step = turn_services.step_resolve(
        user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", inputs={"faces": [1, 2, 2, 2]}
    )
    campaign.refresh_from_db()
    assert "Collectors 1 catch up" in step.text and campaign.loan["collectors"] == 0
    assert campaign.credits == 20 - 6
    assert [r["reason"] for r in step.rolls][:2] == ["Collectors catch up?", "Collectors' fine"]


@pytest.mark.django_db
def test_paying_the_loan_is_refused_beyond_the_crews_credits_and_cancels_a_warrant(fiveparsecs_tables: None, player: Any) -> None:
    campaign = loaned(player, warrants={"Temporary seizure": {"times": 1, "owed": 45}})
    with pytest.raises(DropshipError) as refused:
        loan_services.loan_pay(user=player, campaign_id=campaign.pk, version=_v(campaign), credits=21)
    assert refused.value.field == "credits" and "has 20" in str(refused.value)
    loan_services.loan_pay(user=player, campaign_id=campaign.pk, version=_v(campaign), credits=5)
    campaign.refresh_from_db()
    assert campaign.loan["balance"] == 35 and campaign.credits == 15 and campaign.loan["warrants"] == {}
    assert Ship.objects.get(campaign=campaign).debt == 35
    assert "warrant is cancelled" in campaign.log.order_by("-id").first().text  # type: ignore[union-attr]


@pytest.mark.django_db
def test_giving_up_the_ship_to_a_permanent_seizure_loses_it(fiveparsecs_tables: None, player: Any) -> None:
    campaign = loaned(
        player,
        warrants={"Permanent seizure": {"times": 1, "owed": 45}},
        seizure={"method": "Permanent seizure", "owed": 40},
    )
    with pytest.raises(DropshipError) as refused:
        loan_services.loan_seizure_end(user=player, campaign_id=campaign.pk, version=_v(campaign), end="escaped")
    assert refused.value.field == "end" and "fight set up first" in str(refused.value)
    loan_services.loan_seizure_end(user=player, campaign_id=campaign.pk, version=_v(campaign), end="give_up")
    campaign.refresh_from_db()
    assert not Ship.objects.filter(campaign=campaign).exists() and campaign.loan["seizure"] is None
    assert campaign.loan["warrants"] == {}


@pytest.mark.django_db
def test_giving_up_the_ship_to_a_temporary_seizure_impounds_it(fiveparsecs_tables: None, player: Any) -> None:
    campaign = loaned(player, seizure={"method": "Temporary seizure", "owed": 40})
    loan_services.loan_seizure_end(user=player, campaign_id=campaign.pk, version=_v(campaign), end="give_up")
    campaign.refresh_from_db()
    assert campaign.loan["impounded"] == {"owed": 40} and Ship.objects.filter(campaign=campaign).exists()
    assert not Rival.objects.filter(campaign=campaign).exists()


@pytest.mark.django_db
def test_the_campaign_page_and_api_pay_and_settle(fiveparsecs_tables: None, player: Any, client: Any) -> None:
    from rest_framework.test import APIClient

    campaign = loaned(player, collectors=2, seizure={"method": "Temporary seizure", "owed": 40})
    client.force_login(player)
    page = client.get(f"/campaigns/{campaign.pk}/")
    assert b"Collectors on your tail: 2" in page.content and b'data-testid="loan-fight-link"' in page.content
    paid = client.post(f"/campaigns/{campaign.pk}/act/loan_pay/", {"version": _v(campaign), "page": "detail", "loan_credits": 4})
    assert paid.status_code == 302
    campaign.refresh_from_db()
    assert campaign.loan["balance"] == 36 and campaign.credits == 16
    refused = client.post(
        f"/campaigns/{campaign.pk}/act/loan_pay/", {"version": _v(campaign), "page": "detail", "loan_credits": 99}
    )
    assert refused.status_code == 400 and b"cannot pay 99" in refused.content
    api = APIClient()
    api.force_authenticate(player)
    url = f"/api/v1/campaigns/{campaign.pk}/loan/seizure/"
    bad = api.post(url, {"version": _v(campaign), "end": "caught"}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "end"
    done = api.post(url, {"version": _v(campaign), "end": "give_up"}, format="json")
    assert done.status_code == 200 and done.json()["loan"]["impounded"] == {"owed": 40}
