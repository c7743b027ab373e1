"""Writes for the loan (Loans: Who Do You Owe?, pp.152-156) outside the turn's steps: paying it
off (which cancels warrants and frees an impounded ship) and settling a seizure (give the ship
up, or the result of fighting it out). The turn's "Check for loan enforcement consequences" step
rolls interest, enforcement, Collectors and seizure warrants; setting up the "Fight it out"
battle is in ``battles.tracker_services.loan_fight_create``.

One transaction each, against the campaign ``version``; every change is logged and can be undone.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from campaigns.engine import world as world_engine
from campaigns.engine.view import Change
from campaigns.engine.world.loans import SEIZURE
from campaigns.models import Campaign
from campaigns.selectors import fiveparsecs_tables
from campaigns.services import apply_changes, engine_call, load_edit, log, touch
from rules.errors import DropshipError


def _loan(campaign: Campaign) -> dict[str, Any]:
    if not campaign.loan.get("origin"):
        raise DropshipError("loan: this campaign has no loan (the Loans option rolls one at set-up, p.152).", field="loan")
    return dict(campaign.loan)


@transaction.atomic
def loan_pay(*, user: Any, campaign_id: int, version: int | None, credits: int) -> Campaign:
    """Pay ``credits`` off the loan (p.155): a seizure warrant is cancelled, and an impounded
    ship released, once the debt is 10 credits below what was owed when it was issued. Raises
    :class:`DropshipError` (``credits``) naming the crew's credits or the debt when the payment
    is more than either, or 0."""
    campaign, before = load_edit(user, campaign_id, version)
    loan = _loan(campaign)
    if credits > campaign.credits:
        raise DropshipError(f"credits: the crew has {campaign.credits}; it cannot pay {credits}.", field="credits")
    changes, text = engine_call(lambda: world_engine.loan_payment(loan, credits, fiveparsecs_tables()), dice_field="credits")
    apply_changes(campaign, changes)
    campaign.save()
    log(campaign, "ship", f"Loan (p.155): {text}", changes=changes, before=before)
    touch(campaign)
    return campaign


@transaction.atomic
def loan_seizure_end(*, user: Any, campaign_id: int, version: int | None, end: str) -> Campaign:
    """Settle the seizure under way (pp.155-156): ``give_up`` the ship (impounded after a
    temporary seizure, lost after a permanent one), or, once the Fight it out battle is set
    up, ``escaped`` (someone got away: keep the ship, leave the world, the warrant stands and
    Enforcers become a Rival) or ``caught`` (nobody escaped: as give_up). Raises
    :class:`DropshipError` naming ``end``."""
    campaign, before = load_edit(user, campaign_id, version)
    loan = _loan(campaign)
    changes, text = engine_call(lambda: world_engine.loan_seizure_settle(loan, end, fiveparsecs_tables()), dice_field="end")
    words = apply_changes(campaign, changes)
    campaign.save()
    log(campaign, "ship", f"Seizure (p.155): {text} [{'; '.join(words)}]", changes=changes, before=before)
    touch(campaign)
    return campaign


def loan_fight_prepare(campaign: Campaign) -> dict[str, Any]:
    """The seizure a Fight it out battle is set up for (p.156); raises :class:`DropshipError`
    (``loan``) when no one is coming for the ship or the fight is already set up."""
    seizure = _loan(campaign).get(SEIZURE)
    if not seizure:
        raise DropshipError("loan: no one is coming for the ship right now; there is nothing to fight.", field="loan")
    if seizure.get("battle"):
        raise DropshipError(f"loan: the fight is already set up (battle {seizure['battle']}).", field="loan")
    return dict(seizure)


def loan_fight_record(campaign: Campaign, *, battle_id: int, setup: world_engine.FightItOut) -> None:
    """Note on the loan that the seizure is being fought out in battle ``battle_id``, with the
    set-up's rolls in the log (called inside the battle's set-up transaction)."""
    seizure = loan_fight_prepare(campaign)
    change = Change("loan", {SEIZURE: {**seizure, "battle": battle_id}})
    apply_changes(campaign, [change])
    campaign.save()
    edges = " and ".join(setup.enemy_edges)
    log(
        campaign,
        "battle",
        f"Fight it out (p.156): the crew holds the centre; {setup.extra_basic} more basic enemies come in from the {edges} "
        f"edges; escape across the {setup.escape_edge} edge.",
        rolls=setup.rolls,
        changes=[change],
    )
    touch(campaign)
