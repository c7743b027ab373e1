"""World rules: loans (pp.152-156), Fringe World Strife (pp.148-151), Factions (pp.110-115)."""

from __future__ import annotations

import json

import pytest

from campaigns.engine import world
from campaigns.engine.view import FactionView
from rules.engine.dice import Dice
from rules.fixturefiles import read_all

TABLES = {s.slug: s.engine() for s in read_all() if s.system == "fiveparsecs"}


def terms(**over: object) -> world.LoanTerms:
    base: dict[str, object] = {
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
    base.update(over)
    return world.LoanTerms(**base)  # type: ignore[arg-type]


# -- new worlds and legality ---------------------------------------------------------------


def test_new_world_names_itself_or_keeps_the_given_name() -> None:
    rolled = world.new_world(TABLES, Dice(seed=3))
    assert rolled.name and len(rolled.rolls) == 2 and rolled.traits == ()
    named = world.new_world(TABLES, Dice(seed=3), name="  Terseus-9 ")
    assert named.name == "Terseus-9" and named.rolls == ()
    change = named.change()
    assert change.kind == "world" and change.data["psionic_legality"] == "" and change.data["unstable"] is False


def test_krag_colony_has_its_fixed_traits() -> None:
    colony = world.new_world(TABLES, Dice(seed=1), is_krag_colony=True)
    assert colony.traits == ("Busy Markets", "Vendetta System")
    assert colony.krag_colony


def test_world_name_too_long_is_refused() -> None:
    with pytest.raises(world.WorldError) as err:
        world.new_world(TABLES, Dice(seed=1), name="x" * 81)
    assert err.value.field == "name"


@pytest.mark.parametrize(
    ("value", "status"), [(1, "outlawed"), (25, "outlawed"), (26, "unusual"), (55, "unusual"), (56, "who_cares")]
)
def test_psionic_legality_bands(value: int, status: str) -> None:
    found, roll = world.psionic_legality(TABLES, Dice(seed=1), value=value)
    assert found == status and roll.record.entered


def test_psionic_legality_refuses_an_impossible_roll() -> None:
    with pytest.raises(world.WorldError) as err:
        world.psionic_legality(TABLES, Dice(seed=1), value=101)
    assert err.value.field == "value" and "1 to 100" in str(err.value)


# -- loans -----------------------------------------------------------------------------------


def test_unity_loan_adds_fees_and_softens_very_expensive() -> None:
    loan = world.loan_setup(TABLES, Dice(seed=1), {"origin": 10, "interest": 90, "aggressiveness": 30}, ship_cost=70)
    assert loan.origin == "Unity Program" and loan.enforcement_column == "Unity Program"
    assert loan.extra_credits == 5 and loan.amount == 75
    assert loan.interest == "Expensive" and (loan.low_interest, loan.high_interest) == (2, 3)
    assert (loan.aggressiveness, loan.threshold_1, loan.threshold_2) == ("Moderate", 60, 75)
    assert loan.upfront == 16  # 75 owed must come down to 59, below threshold 1
    assert loan.collection_squad == "Unity grunts"
    assert len(loan.rolls) == 3


def test_free_trader_whims_and_cheap_override() -> None:
    loan = world.loan_setup(TABLES, Dice(seed=1), {"origin": 70, "interest": 5, "aggressiveness": 1, "whims": 4})
    assert loan.origin == "Free Trader" and loan.extra_credits == 4
    assert loan.interest == "Cheap" and loan.high_interest == 2
    assert loan.amount is None and loan.upfront == 0
    assert loan.threshold_1 == 75


def test_suspicious_character_turns_expensive_into_very_expensive() -> None:
    loan = world.loan_setup(TABLES, Dice(seed=1), {"origin": 90, "interest": 80, "aggressiveness": 80, "whims": 1})
    assert loan.interest == "Very Expensive" and loan.high_interest == "1D6"
    assert loan.collection_squad == "Bounty hunters"


def test_loan_setup_rolls_when_nothing_is_typed() -> None:
    loan = world.loan_setup(TABLES, Dice(seed=11))
    again = world.loan_setup(TABLES, Dice(seed=11))
    assert loan == again
    assert not any(r.entered for r in loan.rolls)


def test_loan_setup_names_bad_keys_and_costs() -> None:
    with pytest.raises(world.WorldError) as err:
        world.loan_setup(TABLES, Dice(seed=1), {"origins": 5})
    assert err.value.field == "origins" and "origin, interest" in str(err.value)
    with pytest.raises(world.WorldError) as err:
        world.loan_setup(TABLES, Dice(seed=1), ship_cost=-1)
    assert err.value.field == "ship_cost"
    with pytest.raises(world.WorldError) as err:
        world.loan_setup(TABLES, Dice(seed=1), {"origin": 70, "whims": 9})
    assert err.value.field == "whims"


def test_loan_terms_round_trip_through_json() -> None:
    loan = world.loan_setup(TABLES, Dice(seed=5), ship_cost=60)
    data = json.loads(json.dumps(loan.as_dict()))
    assert world.LoanTerms.from_dict(data) == loan
    with pytest.raises(world.WorldError) as err:
        world.LoanTerms.from_dict({"origin": "Corporate"})
    assert err.value.field == "loan_terms"


def test_interest_uses_the_low_rate_up_to_thirty_credits() -> None:
    assert world.loan_interest(terms(), 30, Dice(seed=1)) == (1, None)
    assert world.loan_interest(terms(), 31, Dice(seed=1)) == (3, None)
    assert world.loan_interest(terms(), 0, Dice(seed=1)) == (0, None)
    credits, record = world.loan_interest(terms(high_interest="1D6"), 50, Dice(seed=1), face=5)
    assert credits == 5 and record is not None and record.entered


def test_enforcement_points_every_five_credits_past_threshold_two() -> None:
    loan = terms()
    assert world.enforcement_points(loan, 50, 61) == (60,)
    assert world.enforcement_points(loan, 59, 90) == (60, 75, 80, 85, 90)
    assert world.enforcement_points(loan, 60, 60) == ()
    assert world.enforcement_points(loan, 76, 79) == ()


def test_fees_can_trigger_another_enforcement_roll() -> None:
    out = world.loan_enforcement(terms(), 55, 72, TABLES, Dice(seed=1), values=[10, 40])
    assert out.points == (60, 75)
    assert out.methods == ("Fees", "Collectors")
    assert out.balance == 78
    assert out.changes[0].kind == "loan" and out.changes[0].data["balance"] == 6
    assert out.changes[1].kind == "loan" and "Collectors" in out.changes[1].data["note"]


def test_fringe_collectors_become_a_collector_rival() -> None:
    out = world.loan_enforcement(terms(), 55, 61, TABLES, Dice(seed=1), values=[60])
    assert out.methods == ("Collectors, Fringe-style",)
    rival = out.changes[0]
    assert rival.kind == "rival_add" and rival.data["collector"] is True and rival.data["kind"] == "Corporate security"


def test_dice_fees_take_typed_faces() -> None:
    loan = terms(enforcement_column="Suspicious Character", collection_squad="Bounty hunters")
    out = world.loan_enforcement(loan, 40, 61, TABLES, Dice(seed=1), values=[1], faces=[2, 3])
    assert out.methods == ("Fees",) and out.balance == 66
    assert out.rolls[1].notation == "2D6" and out.rolls[1].entered


def test_no_enforcement_below_the_thresholds() -> None:
    out = world.loan_enforcement(terms(), 10, 59, TABLES, Dice(seed=1))
    assert out.points == () and out.rolls == () and "No enforcement" in out.text


def test_collectors_catch_you_when_the_roll_is_at_most_the_turns_here() -> None:
    caught, fine, rolls = world.collectors_check(TABLES, 5, Dice(seed=1), faces=[3, 1, 2, 3])
    assert caught and fine == 6 and len(rolls) == 2
    caught, fine, _ = world.collectors_check(TABLES, 3, Dice(seed=1), faces=[3])
    assert not caught and fine == 0


def test_seizure_range_grows_with_each_repeat() -> None:
    seized, _ = world.seizure_check(TABLES, "Temporary seizure", 1, Dice(seed=1), faces=[3, 3])
    assert not seized  # 6 is above 2-5
    seized, _ = world.seizure_check(TABLES, "Temporary seizure", 2, Dice(seed=1), faces=[3, 3])
    assert seized  # 2-6 on the second warrant
    seized, _ = world.seizure_check(TABLES, "Permanent seizure", 1, Dice(seed=1), faces=[3, 3])
    assert seized


# -- Fringe World Strife ----------------------------------------------------------------------


def test_world_stability_four_plus_or_five_plus_when_calm() -> None:
    found = world.world_stability(TABLES, Dice(seed=1), value=4)
    assert found.unstable and found.instability == 1 and found.target == 4
    calm = world.world_stability(TABLES, Dice(seed=1), value=4, calm=True)
    assert not calm.unstable and calm.instability == 0 and calm.target == 5
    assert world.world_stability(TABLES, Dice(seed=1), value=5, calm=True).unstable
    with pytest.raises(world.WorldError) as err:
        world.world_stability(TABLES, Dice(seed=1), value=7)
    assert err.value.field == "value"


def test_instability_grows_with_rivals_and_shrinks_with_patron_jobs() -> None:
    out = world.instability_check(5, TABLES, Dice(seed=1), rivals_here=1, patron_job=True, faces=[2])
    assert (out.before, out.added, out.after) == (5, 2, 7)
    assert out.strife == "" and out.changes[0].data == {"instability": 7}
    roving = world.instability_check(5, TABLES, Dice(seed=1), held_vs_roving=True, faces=[2])
    assert roving.after == 6


def test_sabotage_reduces_instability_and_damages_the_hull() -> None:
    out = world.instability_check(8, TABLES, Dice(seed=1), strife_value=50, faces=[3, 4])
    assert out.strife == "Sabotage" and out.after == 11 - 7
    assert any(c.kind == "ship" and c.data["hull_damage"] == 5 for c in out.changes)
    assert out.changes[0].data["strife"] == "Sabotage (5 hull damage)"


def test_invasion_imminent_stops_tracking_and_names_the_invaders() -> None:
    out = world.instability_check(9, TABLES, Dice(seed=1), strife_value=90, faces=[6, 6])
    assert out.stops_tracking and out.detail == "K'Erin Colonists"
    world_change = out.changes[0].data
    assert world_change["unstable"] is False and world_change["instability"] == 0


def test_heating_up_adds_a_criminal_rival() -> None:
    out = world.instability_check(9, TABLES, Dice(seed=1), strife_value=40, faces=[1])
    assert out.after == 10 - 3
    assert any(c.kind == "rival_add" and c.data["kind"] == "Criminal Elements" for c in out.changes)


def test_economic_collapse_costs_factions_influence() -> None:
    factions = [FactionView("Cartel", influence=3, power=2), FactionView("Cult", influence=1, power=4)]
    out = world.instability_check(9, TABLES, Dice(seed=1), strife_value=80, factions=factions, faces=[1])
    kinds = {(c.kind, c.data["name"]) for c in out.changes if c.kind.startswith("faction")}
    assert kinds == {("faction", "Cartel"), ("faction_remove", "Cult")}
    no_factions = world.instability_check(9, TABLES, Dice(seed=1), strife_value=80, faces=[1])
    assert not any(c.kind.startswith("faction") for c in no_factions.changes)


def test_crackdown_and_civil_war_block_faction_activities() -> None:
    assert world.strife_blocks_factions("Crackdown")
    assert world.strife_blocks_factions("Civil War")
    assert not world.strife_blocks_factions("Hooligans")


# -- Factions ----------------------------------------------------------------------------------


def test_faction_generate_applies_type_modifiers() -> None:
    faction, rolls = world.faction_generate(TABLES, Dice(seed=1), value=95, faces=[2, 3])
    assert faction.type == "Secretive organization" and faction.name == "Secretive organization"
    assert (faction.influence, faction.power, faction.loyalty) == (4, 5, 0)
    small, _ = world.faction_generate(TABLES, Dice(seed=1), value=95, faces=[2, 3], small=True, taken=["Secretive organization"])
    assert (small.influence, small.power) == (3, 4)
    assert small.name == "Secretive organization 2"
    assert len(rolls) == 3


def test_factions_generate_makes_one_d3_plus_one() -> None:
    out = world.factions_generate(TABLES, Dice(seed=1), faces=[1, 5, 1, 1, 20, 2, 2])
    added = [c.data for c in out.changes if c.kind == "faction_add"]
    assert [a["name"] for a in added] == ["Charismatic leader", "Merchant cartel"]
    assert (added[1]["influence"], added[1]["power"]) == (4, 3)
    seeded = world.factions_generate(TABLES, Dice(seed=4))
    assert 2 <= len([c for c in seeded.changes if c.kind == "faction_add"]) <= 4


def test_faction_job_check_against_influence() -> None:
    faction = FactionView("Cartel", influence=3, power=2)
    assert world.faction_job_check(faction, TABLES, Dice(seed=1), turn=4, value=3)[0]
    assert not world.faction_job_check(faction, TABLES, Dice(seed=1), turn=4, value=4)[0]
    quiet = FactionView("Cartel", influence=3, power=2, no_job_turn=4)
    offered, record, _ = world.faction_job_check(quiet, TABLES, Dice(seed=1), turn=4, value=1)
    assert not offered and record is None


def test_loyalty_gain_direct_and_affiliated() -> None:
    faction = FactionView("Cartel", influence=3, power=2, loyalty=2)
    assert world.faction_loyalty_gain(faction, TABLES, Dice(seed=1), value=2)[0] == 1
    assert world.faction_loyalty_gain(faction, TABLES, Dice(seed=1), value=1)[0] == 0
    assert world.faction_loyalty_gain(faction, TABLES, Dice(seed=1), value=5, affiliated=True)[0] == 0
    assert world.faction_loyalty_gain(faction, TABLES, Dice(seed=1), value=6, affiliated=True)[0] == 1


def test_favor_costs_loyalty_equal_to_the_roll() -> None:
    faction = FactionView("Cartel", influence=3, power=2, loyalty=3)
    assert world.faction_favor(faction, TABLES, Dice(seed=1), value=2)[:2] == (True, 2)
    assert world.faction_favor(faction, TABLES, Dice(seed=1), value=4)[:2] == (False, 0)


def test_factions_flee_an_invasion() -> None:
    factions = [
        FactionView("Small", influence=1, power=2),
        FactionView("Middling", influence=3, power=4),
        FactionView("Army", influence=2, power=5),
    ]
    out = world.factions_flee(factions, TABLES, Dice(seed=1), faces=[1, 4])
    assert out.facts["factions_fled"] == ["Small"]
    assert out.facts["galactic_war_bonus"] == 1
    changes = {c.data["name"]: c for c in out.changes}
    assert changes["Small"].kind == "faction" and changes["Small"].data == {"name": "Small", "power": -1}  # influence stays 1
    assert changes["Middling"].kind == "faction_remove" and changes["Army"].kind == "faction_remove"


def test_activity_requirements_and_office_party() -> None:
    weak = [FactionView("Cartel", influence=2, power=2, loyalty=3)]
    out = world.faction_activity(weak, TABLES, Dice(seed=1), turn=3, value=18)
    assert out.facts["faction_activity"] == "Hostile take-over" and out.changes == ()
    party = world.faction_activity(weak, TABLES, Dice(seed=1), turn=3, value=78)
    assert party.changes[0].kind == "credits" and party.changes[0].data["amount"] == 3


def test_crackdown_stops_activities_without_rolling() -> None:
    out = world.faction_activity([FactionView("Cartel", influence=2, power=2)], TABLES, Dice(seed=1), turn=3, strife="Crackdown")
    assert out.rolls == () and out.changes == ()


def test_direct_job_starts_a_struggle_first() -> None:
    factions = [FactionView("A", influence=2, power=3), FactionView("B", influence=4, power=4)]
    # A: 3 + 3 power + 1 job = 7; B: 6 + 4 = 10 -> A loses its higher score (Power).
    # Then the acting Faction: D6 1 picks A; D100 50 is Lay low.
    out = world.faction_activity(factions, TABLES, Dice(seed=1), turn=3, job_faction="A", job_won=True, value=50, faces=[3, 6, 1])
    changes = {c.data["name"]: c.data for c in out.changes}
    assert changes["A"] == {"name": "A", "power": -1}
    assert out.facts["faction_activity"] == "Lay low"


def test_struggle_destruction_brings_a_rival_and_loyalty() -> None:
    factions = [FactionView("A", influence=3, power=3, loyalty=4), FactionView("B", influence=1, power=1)]
    # A: 6+3+1 = 10 beats B: 1+1 = 2; B drops to 0 and is destroyed. Survivor A rolls 1D6+3
    # and gains Influence; then A (alone) acts: D100 50, Lay low.
    out = world.faction_activity(
        factions, TABLES, Dice(seed=1), turn=3, job_faction="A", job_won=True, value=50, faces=[6, 1, 2, 3]
    )
    kinds = [(c.kind, c.data.get("name")) for c in out.changes]
    assert ("faction_remove", "B") in kinds
    assert any(c.kind == "rival_add" and c.data["kind"] == "Hired Muscle" for c in out.changes)
    a = next(c.data for c in out.changes if c.kind == "faction")
    assert a["loyalty"] == 2 and a["influence"] == 1


def test_affiliated_job_skips_the_forced_struggle() -> None:
    factions = [FactionView("A", influence=2, power=3), FactionView("B", influence=4, power=4)]
    out = world.faction_activity(
        factions, TABLES, Dice(seed=1), turn=3, job_faction="A", affiliated=True, job_won=True, value=50, faces=[1]
    )
    assert len(out.rolls) == 2  # the pick and the activity, no struggle dice


def test_truce_silences_everyone_next_turn() -> None:
    factions = [FactionView("A", influence=2, power=3), FactionView("B", influence=4, power=4)]
    out = world.faction_event(factions, TABLES, Dice(seed=1), turn=6, value=25)
    assert {c.data["name"]: c.data["no_activity_turn"] for c in out.changes} == {"A": 7, "B": 7}
    blocked = world.faction_activity(
        [FactionView("A", influence=2, power=3, no_activity_turn=7)], TABLES, Dice(seed=1), turn=7, value=1
    )
    assert blocked.changes == () and "laying low" in blocked.text


def test_little_visit_only_after_an_attack() -> None:
    calm = [FactionView("A", influence=2, power=3)]
    assert world.faction_event(calm, TABLES, Dice(seed=1), turn=6, value=85).changes == ()
    hit = [FactionView("A", influence=2, power=3, attacked_turn=5)]
    out = world.faction_event(hit, TABLES, Dice(seed=1), turn=6, value=85)
    assert out.changes[0].kind == "rival_add" and out.changes[0].data["kind"] == "Enforcers"


def test_new_faction_event_adds_a_small_faction() -> None:
    out = world.faction_event([FactionView("A", influence=2, power=3)], TABLES, Dice(seed=1), turn=6, value=3, faces=[55, 3, 3])
    added = out.changes[0]
    assert added.kind == "faction_add" and added.data["type"] == "Advocacy group"
    assert (added.data["influence"], added.data["power"]) == (3, 3)


def test_befriending_gives_a_story_point_and_favor_removes_a_rival() -> None:
    factions = [FactionView("A", influence=2, power=3, loyalty=3)]
    out = world.faction_event(factions, TABLES, Dice(seed=1), turn=6, value=45)
    assert out.changes[0].kind == "story_points" and out.changes[0].data["amount"] == 1
    favor = world.faction_event(factions, TABLES, Dice(seed=1), turn=6, value=90, rival_names=["Gang"])
    assert favor.changes[0].kind == "rival_remove" and favor.changes[0].data["name"] == "Gang"
    low = world.faction_event(
        [FactionView("A", influence=2, power=3, loyalty=2)], TABLES, Dice(seed=1), turn=6, value=90, rival_names=["Gang"]
    )
    assert low.changes == ()


def test_random_picks_use_an_even_die() -> None:
    roller = world.Roller(Dice(seed=1), [4])
    assert roller.pick(["a", "b"], "pick") == "b"  # D6 4-6 is the second of two
    assert roller.records[0].notation == "D6"
    four = world.Roller(Dice(seed=1), [12])
    assert four.pick(["a", "b", "c", "d"], "pick") == "d" and four.records[0].notation == "D12"
    seven = world.Roller(Dice(seed=1), [9, 7])
    assert seven.pick(list("abcdefg"), "pick") == "g" and len(seven.records) == 2  # 9 rerolled on a D10
