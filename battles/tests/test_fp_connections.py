"""A campaign battle set up for this turn's Expanded Connection (Compendium pp.80-86) takes its
extra Specialists and lowered Panic range, and the battle brief says so; a battle that is not the
turn's encounter, or a turned-down Connection, is left as it was."""

from __future__ import annotations

from typing import Any

import pytest

from battles import services, tracker_services
from battles.tests.fp_data import PUNKS
from campaigns import turn_services
from campaigns.models import Campaign
from campaigns.tests.test_connections import OPPORTUNITY, play
from rules.engine.dice import Dice

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]


def brief(user: Any, connection: dict[str, Any], accept: str = "no") -> tuple[Campaign, Any]:
    """A new campaign's first turn played to its battle brief, the Connection as given; the
    campaign and the brief step."""
    answers = {
        **OPPORTUNITY,
        "battle.connections": connection,
        "battle.connection_accept": {"mode": "roll", "inputs": {"accept": accept}},
    }
    campaign = play(user, "battle.brief", answers, {"dramatic_combat": True})
    step = turn_services.step_resolve(user=user, campaign_id=campaign.pk, version=campaign.version, mode="roll")
    return campaign, step


def specialists(battle: Any) -> int:
    return sum(1 for f in battle.setup["enemy"]["figures"] if f["rank"] == "specialist")


def test_a_connection_adds_specialists_and_lowers_the_panic_range_in_the_battle_and_the_brief(player: Any) -> None:
    # First check: a Connection without a roll; table 3 (a place), subtable 5: Coincidence (p.83).
    campaign, said = brief(player, {"mode": "enter", "value": 3, "inputs": {"faces": [5]}})
    assert "Connection: Coincidence (p.83)." in said.text and "2 extra Specialists." in said.text
    assert "Enemy Panic range -1." in said.text
    made = services.battle_create(user=player, campaign_id=campaign.pk, enemy=PUNKS, dice=Dice(seed=1))
    assert "specialists" not in PUNKS and specialists(made) == 2
    assert PUNKS["panic"] == "1-2" and made.setup["enemy"]["panic"] == "1"
    assert made.setup["connection"][0].startswith("Connection: Coincidence (p.83).")
    assert made.setup["connection"][0] in made.setup["warnings"]
    tracker = tracker_services.tracker_setup(made, turn_services.fiveparsecs_tables())
    assert tracker["enemies"][0]["specialists"] == 2 and tracker["enemies"][0]["panic"] == "1"


@pytest.mark.parametrize(("accept", "numbers"), [("yes", 5), ("no", 3)])
def test_payback_brings_two_more_enemies_unless_turned_down(player: Any, accept: str, numbers: int) -> None:
    # Subtable 1, entry 5: Payback (2 more basic troopers, p.82).
    campaign, said = brief(player, {"mode": "enter", "value": 1, "inputs": {"faces": [5]}}, accept)
    assert ("Enemy numbers +2." in said.text) is (accept == "yes")
    made = services.battle_create(user=player, campaign_id=campaign.pk, enemy=PUNKS, dice=Dice(seed=1))
    assert made.setup["enemy"]["numbers"] == numbers and bool(made.setup["connection"]) is (accept == "yes")
    assert sum(1 for f in made.setup["enemy"]["figures"] if f["rank"] == "basic") == numbers


# -- Unique Individuals, round limits and late arrivals reach the battle and the tracker --------


def test_hidden_something_brings_a_unique_individual_into_the_force(player: Any) -> None:
    # Subtable 3 (a place), entry 1: Hidden something (p.83): a Unique Individual joins.
    campaign, said = brief(player, {"mode": "enter", "value": 3, "inputs": {"faces": [1]}}, "yes")
    assert "The enemy brings a Unique Individual." in said.text
    made = services.battle_create(user=player, campaign_id=campaign.pk, enemy=PUNKS, dice=Dice(seed=1))
    assert any("Hidden something" in line for line in made.setup["enemy"]["lines"])
    assert "connection_terms" not in made.setup


def test_anonymous_tip_sends_late_arrivals_after_round_four_on_the_tracker(player: Any) -> None:
    # Subtable 1 (a person), entry 6: Anonymous tip (p.82): 1D6 arrive after round 4.
    campaign, said = brief(player, {"mode": "enter", "value": 1, "inputs": {"faces": [6]}}, "yes")
    assert "After round 4, 1D6 more enemies arrive" in said.text
    made = services.battle_create(user=player, campaign_id=campaign.pk, enemy=PUNKS, dice=Dice(seed=1))
    assert made.setup["connection_terms"]["arrival_round"] == 4
    room = tracker_services.battle_track(user=player, battle_id=made.pk, version=made.version)
    assert room.state["connection"]["arrival_round"] == 4 and not room.state["connection"]["arrived"]


def test_favor_owed_sets_a_round_limit_the_tracker_checks(player: Any) -> None:
    # Subtable 1, entry 3: Favor owed (p.82): the job within 6 rounds.
    campaign, _ = brief(player, {"mode": "enter", "value": 1, "inputs": {"faces": [3]}}, "yes")
    made = services.battle_create(user=player, campaign_id=campaign.pk, enemy=PUNKS, dice=Dice(seed=1))
    assert made.setup["connection_terms"]["round_limit"] == 6
    room = tracker_services.battle_track(user=player, battle_id=made.pk, version=made.version)
    assert room.state["connection"]["round_limit"] == 6
