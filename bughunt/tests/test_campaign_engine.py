"""Bug Hunt campaign turn, Special Assignments, court martial and the post-battle sequence
(pp.182-183, 201-206) against the shipped tables."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bughunt.engine import campaign as c
from bughunt.engine.characters import Profile
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.fixturefiles import read_all

TABLES: dict[str, RangeTable] = {s.slug: s.engine() for s in read_all() if s.system == "bughunt"}
DICE = Dice(seed=7)


def profile(**changes: int) -> Profile:
    base = {"reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "savvy": 0}
    base.update(changes)
    return Profile(**base)


def trooper(name: str, **fields: Any) -> c.Trooper:
    stats = fields.pop("stats", {})
    return c.Trooper(name=name, profile=profile(**stats), **fields)


def squad(*troopers: c.Trooper, reputation: int = 2, **fields: Any) -> c.Squad:
    members = troopers or (trooper("Ash"), trooper("Bex"), trooper("Cole"))
    return c.Squad(reputation=reputation, troopers=tuple(members), **fields)


def outcome(**fields: Any) -> c.MissionOutcome:
    base: dict[str, Any] = {"priority": 2, "objectives_completed": 2, "took_field": ("Ash", "Bex", "Cole")}
    base.update(fields)
    return c.MissionOutcome(**base)


# -- state ------------------------------------------------------------------------------------


def test_state_round_trips_through_plain_dicts() -> None:
    t = trooper(
        "Ash",
        xp=7,
        completed_missions=5,
        sick_bay=2,
        laid_up=True,
        assignments=("Leadership training",),
        assignment_bonus=2,
        no_assignment_next=True,
        bonus_assignment_roll=True,
        miss_next_mission=True,
        weapon_notes=('+1" range: Combat rifle',),
        advanced_care_turn=3,
        assignment_turn=3,
        assignment_rolls=1,
        mission_counted_turn=3,
    )
    gone = trooper("Bex", status="dead", replaced_by="Dana")
    s = c.Squad(
        reputation=4,
        troopers=(t, gone),
        operation=c.Operation(2, -5, 1, 1, 3, 2, True, True),
        turn=3,
        priority_shift_next=1,
    )
    assert c.Squad.from_dict(s.as_dict()) == s
    o = outcome(casualties=("Ash",), lost_marines=("Bex",), evacuated=("Cole",), mvp="Cole", enemy="Razor lizards")
    assert c.MissionOutcome.from_dict(o.as_dict()) == o
    offer = c.Offer(kind="cash_in_favor", trooper="Ash", max_reputation=2, xp_per_reputation=2, bonus_per_reputation=1)
    assert c.Offer.from_dict(offer.as_dict()) == offer


def test_bad_status_is_refused() -> None:
    data = trooper("Ash").as_dict() | {"status": "vacation"}
    with pytest.raises(c.CampaignError, match="status must be one of active"):
        c.Trooper.from_dict(data)


# -- mission success and the 4+ Signals rule (p.201) ------------------------------------------


@pytest.mark.parametrize(
    ("objectives", "initial", "investigated", "total", "success"),
    [(2, 0, 0, 2, True), (2, 4, 1, 1, False), (2, 4, 2, 2, True), (2, 3, 0, 2, True), (0, 5, 0, 0, False), (3, 6, 1, 2, True)],
)
def test_objective_total_and_success(objectives: int, initial: int, investigated: int, total: int, success: bool) -> None:
    o = outcome(objectives_completed=objectives, signals_initial=initial, signals_investigated=investigated)
    assert c.objective_total(TABLES, o)[0] == total
    assert c.mission_success(TABLES, o) is success


# -- campaign turn start (p.182) --------------------------------------------------------------


def test_turn_start_lists_who_may_go_and_apply() -> None:
    s = squad(
        trooper("Ash", sick_bay=2),
        trooper("Bex", miss_next_mission=True),
        trooper("Cole", no_assignment_next=True),
        trooper("Dana", status="dead"),
    )
    start = c.campaign_turn_start(s)
    assert start.available == ("Cole",)
    assert start.sick_bay == ("Ash",)
    assert start.sitting_out == ("Bex",)
    assert start.may_apply == ("Bex",)
    assert start.squad.get("Ash").laid_up and not start.squad.get("Cole").laid_up


# -- Special Assignments (p.183) --------------------------------------------------------------


def test_marksman_training_raises_combat_skill_only_below_its_cap() -> None:
    result = c.special_assignment(TABLES, squad(), "Ash", "Marksman training", DICE, faces=[4, 5])
    ash = result.squad.get("Ash")
    assert (ash.profile.combat_skill, ash.xp, ash.assignments) == (1, 1, ("Marksman training",))
    assert result.data["success"] and result.rolls[0].entered
    capped = squad(trooper("Ash", stats={"combat_skill": 2}), trooper("Bex"))
    ash = c.special_assignment(TABLES, capped, "Ash", "Marksman training", DICE, faces=[6, 6]).squad.get("Ash")
    assert (ash.profile.combat_skill, ash.xp) == (2, 1)


def test_failed_application_ends_the_turn_unless_a_bonus_roll_is_held() -> None:
    failed = c.special_assignment(TABLES, squad(), "Ash", "Marksman training", DICE, faces=[4, 4])
    assert not failed.data["success"] and failed.squad.get("Ash").assignments == ()
    with pytest.raises(c.CampaignError, match="used this turn"):
        c.special_assignment(TABLES, failed.squad, "Ash", "Cross-training", DICE, faces=[6, 6])
    # Next campaign turn they may try again.
    later = replace(failed.squad, turn=2)
    assert c.special_assignment(TABLES, later, "Ash", "Marksman training", DICE, faces=[5, 4]).data["success"]
    # Detached on special duties: one extra roll in the turn.
    duty = squad(trooper("Ash", bonus_assignment_roll=True))
    first = c.special_assignment(TABLES, duty, "Ash", "Marksman training", DICE, faces=[1, 1])
    second = c.special_assignment(TABLES, first.squad, "Ash", "Cross-training", DICE, faces=[4, 4])
    assert second.data["success"] and second.squad.get("Ash").xp == 3
    assert not second.squad.get("Ash").bonus_assignment_roll
    with pytest.raises(c.CampaignError, match="used this turn"):
        c.special_assignment(TABLES, second.squad, "Ash", "Physical training", DICE, faces=[6, 6])


def test_assignment_once_per_career_and_requirements() -> None:
    done = squad(trooper("Ash", assignments=("Cross-training",), completed_missions=3))
    with pytest.raises(c.CampaignError, match="already completed"):
        c.special_assignment(TABLES, done, "Ash", "Cross-training", DICE, faces=[6, 6])
    with pytest.raises(c.CampaignError, match="needs Leadership training first"):
        c.special_assignment(TABLES, done, "Ash", "Officer training course", DICE, faces=[6, 6])
    with pytest.raises(c.CampaignError, match="needs 4 Completed Missions"):
        c.special_assignment(TABLES, done, "Ash", "Public relations duties", DICE, faces=[6, 6])
    with pytest.raises(c.CampaignError, match="needs Reactions 2\\+ or Combat Skill 2\\+"):
        c.special_assignment(TABLES, done, "Ash", "Commando course", DICE, faces=[6, 6])
    with pytest.raises(c.CampaignError, match="assignment must be one of"):
        c.special_assignment(TABLES, done, "Ash", "Cooking", DICE, faces=[6, 6])
    # Commando course with Reactions 2: +1 Reactions (under 3) and +1 Combat Skill (under 2).
    quick = squad(trooper("Ash", stats={"reactions": 2}))
    ash = c.special_assignment(TABLES, quick, "Ash", "Commando course", DICE, faces=[5, 5]).squad.get("Ash")
    assert (ash.profile.reactions, ash.profile.combat_skill, ash.xp) == (3, 1, 2)
    # Public relations with 4 missions: +1 XP and +1 squad Reputation.
    veteran = squad(trooper("Ash", completed_missions=4), reputation=1)
    pr = c.special_assignment(TABLES, veteran, "Ash", "Public relations duties", DICE, faces=[4, 5])
    assert (pr.squad.reputation, pr.squad.get("Ash").xp) == (2, 1)


def test_officer_training_needs_leadership_in_an_earlier_turn() -> None:
    s = squad(trooper("Ash", bonus_assignment_roll=True))
    lead = c.special_assignment(TABLES, s, "Ash", "Leadership training", DICE, faces=[5, 4])
    assert lead.squad.get("Ash").xp == 2
    with pytest.raises(c.CampaignError, match="earlier campaign turn"):
        c.special_assignment(TABLES, lead.squad, "Ash", "Officer training course", DICE, faces=[6, 6])
    later = replace(lead.squad, turn=2)
    officer = c.special_assignment(TABLES, later, "Ash", "Officer training course", DICE, faces=[5, 6])
    assert officer.squad.get("Ash").profile.reactions == 2  # 1 is under the cap of 2
    quick = replace(later.get("Ash"), profile=profile(reactions=2))
    capped = c.special_assignment(TABLES, later.put(quick), "Ash", "Officer training course", DICE, faces=[5, 6])
    assert capped.squad.get("Ash").profile.reactions == 2 and capped.data["training"] == []


def test_survival_course_checks_each_cap() -> None:
    s = squad(trooper("Ash", stats={"toughness": 3, "speed": 5}))
    ash = c.special_assignment(TABLES, s, "Ash", "Survival course", DICE, faces=[4, 4]).squad.get("Ash")
    assert (ash.profile.toughness, ash.profile.speed, ash.xp) == (4, 5, 1)


def test_sick_bay_and_reprimand_block_applications() -> None:
    s = squad(trooper("Ash", sick_bay=1), trooper("Bex", no_assignment_next=True))
    with pytest.raises(c.CampaignError, match="Sick Bay"):
        c.special_assignment(TABLES, s, "Ash", "Cross-training", DICE, faces=[6, 6])
    with pytest.raises(c.CampaignError, match="reprimanded"):
        c.special_assignment(TABLES, s, "Bex", "Cross-training", DICE, faces=[6, 6])


def test_recommendation_bonus_is_added_then_spent() -> None:
    s = squad(trooper("Ash", assignment_bonus=2))
    result = c.special_assignment(TABLES, s, "Ash", "Marksman training", DICE, faces=[3, 4])
    assert result.data["total"] == 9 and result.data["success"]
    assert result.squad.get("Ash").assignment_bonus == 0
    assert "+2 bonus = 9" in result.text


def test_every_assignment_done_means_playing_cards() -> None:
    everything = tuple(e.result for e in TABLES["bh-special-assignments"].entries)
    s = squad(trooper("Ash", assignments=everything))
    options = c.assignments_available(TABLES, s, "Ash")
    assert options.playing_cards and not options.may_roll and options.available == ()
    assert "plays cards" in options.reason
    with pytest.raises(c.CampaignError, match="plays cards"):
        c.special_assignment(TABLES, s, "Ash", "Cross-training", DICE, faces=[6, 6])
    fresh = c.assignments_available(TABLES, squad(), "Ash")
    assert "Officer training course" in fresh.blocked and "Cross-training" in fresh.available


def test_seeded_assignment_roll_is_recorded() -> None:
    result = c.special_assignment(TABLES, squad(), "Ash", "Cross-training", Dice(seed=3))
    record = result.rolls[0]
    assert not record.entered and record.notation == "2D6"
    assert result.data["success"] == (record.total is not None and record.total >= 8)


# -- court martial (p.201) --------------------------------------------------------------------


def test_court_martial() -> None:
    guilty = c.court_martial(TABLES, squad(reputation=3), "Ash", DICE, pay_reputation=False, faces=[1])
    assert guilty.squad.get("Ash", active=False).status == "removed" and guilty.squad.reputation == 3
    paid = c.court_martial(TABLES, squad(reputation=3), "Ash", DICE, pay_reputation=True, faces=[1])
    assert paid.squad.get("Ash").active and paid.squad.reputation == 0 and paid.data["paid"]
    broke = c.court_martial(TABLES, squad(reputation=2), "Ash", DICE, pay_reputation=True, faces=[1])
    assert broke.data["removed"] and broke.squad.reputation == 2
    cleared = c.court_martial(TABLES, squad(), "Ash", DICE, pay_reputation=False, faces=[2])
    assert not cleared.data["guilty"] and cleared.squad.get("Ash").active
    with pytest.raises(c.CampaignError, match="objectives_completed must be 0"):
        c.court_martial(TABLES, squad(), "Ash", DICE, pay_reputation=False, objectives_completed=1, faces=[1])


# -- step 1: casualties (pp.202-203) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "face", "recovery", "enemy", "status", "sick_bay", "xp"),
    [
        ("casualties", 3, None, None, "dead", 0, 0),  # Gruesome fate
        ("casualties", 10, None, None, "dead", 0, 0),  # Death or crippling injury
        ("casualties", 20, 2, None, "active", 2, 0),  # Leg wound 1D3
        ("casualties", 30, 3, None, "active", 3, 0),  # Arm wound 1D3
        ("casualties", 35, 1, None, "active", 2, 0),  # Head wound 1D3+1
        ("casualties", 45, 3, None, "active", 4, 0),  # Torso wound 1D3+1
        ("casualties", 60, None, None, "active", 1, 0),  # Minor injuries
        ("casualties", 90, None, None, "active", 0, 0),  # Knocked out
        ("casualties", 96, None, None, "active", 0, 1),  # School of hard knocks
        ("casualties", 20, 2, "Razor lizards", "active", 3, 0),
        ("casualties", 60, None, "Razor lizards", "active", 2, 0),
        ("casualties", 90, None, "Razor lizards", "active", 0, 0),  # no recovery time to extend
        ("lost_marines", 30, None, None, "dead", 0, 0),
        ("lost_marines", 31, None, "Razor lizards", "active", 0, 0),  # Knocked out on the Lost Marine column
        ("lost_marines", 91, None, None, "active", 0, 1),
    ],
)
def test_casualty_table(
    column: str, face: int, recovery: int | None, enemy: str | None, status: str, sick_bay: int, xp: int
) -> None:
    o = outcome(**{column: ("Ash",)}, enemy=enemy)
    result = c.casualties(TABLES, squad(), o, DICE, faces={"Ash": face}, recovery_faces={"Ash": recovery} if recovery else None)
    ash = result.squad.get("Ash", active=False)
    assert (ash.status, ash.sick_bay, ash.xp) == (status, sick_bay, xp)
    assert result.rolls[0].total == face and result.rolls[0].entered
    assert len(result.rolls) == (2 if recovery else 1)


def test_crippled_casualty_is_removed_not_dead() -> None:
    o = outcome(casualties=("Ash",))
    result = c.casualties(TABLES, squad(), o, DICE, faces={"Ash": 12}, crippled=("Ash",))
    assert result.squad.get("Ash", active=False).status == "removed"
    with pytest.raises(c.CampaignError, match="crippled"):
        c.casualties(TABLES, squad(), o, DICE, faces={"Ash": 12}, crippled=("Bex",))


def test_casualties_validate_the_outcome_and_clear_one_turn_flags() -> None:
    with pytest.raises(c.CampaignError, match="did not take the field"):
        c.casualties(TABLES, squad(), outcome(took_field=("Bex",), casualties=("Ash",)), DICE)
    with pytest.raises(c.CampaignError, match="in Sick Bay"):
        c.casualties(TABLES, squad(trooper("Ash", sick_bay=1)), outcome(took_field=("Ash",)), DICE)
    with pytest.raises(c.CampaignError, match="took_field must be one of"):
        c.casualties(TABLES, squad(), outcome(took_field=("Zed",)), DICE)
    with pytest.raises(c.CampaignError, match="enemy must be one of"):
        c.casualties(TABLES, squad(), outcome(enemy="Space wasps"), DICE)
    flagged = squad(trooper("Ash", no_assignment_next=True, bonus_assignment_roll=True), trooper("Bex"), priority_shift_next=1)
    cleared = c.casualties(TABLES, flagged, outcome(took_field=("Ash", "Bex")), DICE).squad
    assert not cleared.get("Ash").no_assignment_next and not cleared.get("Ash").bonus_assignment_roll
    assert cleared.priority_shift_next == 0


def test_advanced_care_once_per_character_per_turn() -> None:
    s = squad(trooper("Ash", sick_bay=3), trooper("Bex"), reputation=2)
    cared = c.advanced_care(TABLES, s, "Ash")
    assert (cared.squad.get("Ash").sick_bay, cared.squad.reputation) == (2, 1)
    with pytest.raises(c.CampaignError, match="once per turn"):
        c.advanced_care(TABLES, cared.squad, "Ash")
    again = c.advanced_care(TABLES, replace(cared.squad, turn=2), "Ash")
    assert again.squad.get("Ash").sick_bay == 1 and again.squad.reputation == 0
    with pytest.raises(c.CampaignError, match="not in Sick Bay"):
        c.advanced_care(TABLES, s, "Bex")
    with pytest.raises(c.CampaignError, match="costs 1"):
        c.advanced_care(TABLES, replace(s, reputation=0), "Ash")


# -- step 2 and 3: completed missions and mustering out (p.203) -------------------------------


def test_completed_missions_count_only_fit_troopers_who_took_the_field() -> None:
    s = squad(trooper("Ash", sick_bay=2), trooper("Bex"), trooper("Cole"), trooper("Dana", sick_bay=1, laid_up=True))
    result = c.update_completed_missions(s, outcome(took_field=("Ash", "Bex")))
    assert result.data["counted"] == ["Bex"]
    assert [t.completed_missions for t in result.squad.troopers] == [0, 1, 0, 0]
    assert result.squad.get("Bex").mission_counted_turn == 1
    assert (result.squad.operation.missions, result.squad.operation.missions_since_rr) == (1, 1)


def counted(name: str, missions: int) -> c.Trooper:
    return trooper(name, completed_missions=missions, mission_counted_turn=1)


def test_mustering_out_rows() -> None:
    s = squad(
        counted("Ash", 4),  # no chance
        counted("Bex", 6),  # 9+ only as a casualty: not one
        counted("Cole", 6),  # casualty: 9+
        counted("Dana", 10),  # 8+
        counted("Eve", 15),  # automatic
        trooper("Finn", completed_missions=14),  # did not add a mission this turn: no check
    )
    o = outcome(took_field=("Ash", "Bex", "Cole", "Dana", "Eve"), casualties=("Cole",))
    result = c.muster_out(TABLES, s, o, DICE, faces={"Cole": [4, 5], "Dana": [4, 3]})
    assert result.data["left"] == ["Cole", "Eve"]
    assert result.data["checks"] == {"Cole": {"target": 9, "total": 9}, "Dana": {"target": 8, "total": 7}}
    assert len(result.rolls) == 2
    assert result.squad.get("Cole", active=False).status == "mustered_out"
    stays = c.muster_out(TABLES, s, o, DICE, faces={"Cole": [4, 4], "Dana": [4, 4]})
    assert stays.data["left"] == ["Dana", "Eve"]


# -- step 4: Reputation, retirement and replacements (p.203) ----------------------------------


@pytest.mark.parametrize(
    ("objectives", "faces", "gained"),
    [(2, [5, 2], 2), (2, [1, 2], 1), (1, [6], 1), (1, [4], 0), (3, [5, 6, 6], 4), (0, None, 0)],
)
def test_reputation(objectives: int, faces: list[int] | None, gained: int) -> None:
    result = c.determine_reputation(TABLES, squad(reputation=1), outcome(objectives_completed=objectives), DICE, faces=faces)
    assert result.data["gained"] == gained and result.squad.reputation == 1 + gained
    assert len(result.rolls) == (1 if objectives else 0)


def test_reputation_uses_the_signal_reduced_total() -> None:
    o = outcome(objectives_completed=2, signals_initial=5, signals_investigated=0)
    with pytest.raises(c.CampaignError, match="faces must hold 1 D6"):
        c.determine_reputation(TABLES, squad(), o, DICE, faces=[5, 5])
    result = c.determine_reputation(TABLES, squad(reputation=0), o, DICE, faces=[5])
    assert result.data == {"objectives": 1, "automatic": 0, "from_dice": 1, "gained": 1}


def test_retire_and_replace() -> None:
    s = squad(trooper("Ash", sick_bay=2), trooper("Bex"), trooper("Cole", status="dead"), reputation=0)
    with pytest.raises(c.CampaignError, match="only injured troopers"):
        c.retire(s, "Bex")
    retired = c.retire(s, "Ash").squad
    assert c.vacancies(retired) == ("Ash", "Cole")
    entered = {"bh-origin": 80, "bh-basic-training": 1, "bh-service-history": 55}
    result = c.replacement(TABLES, retired, "Cole", "Dana", DICE, entered=entered)
    dana = result.squad.get("Dana")
    # Military outpost (+1 Combat Skill, +1 Reputation), Infantry (+1 Combat Skill, +1 Toughness),
    # Internal security operation (1 Completed Mission).
    assert (dana.profile.combat_skill, dana.profile.toughness, dana.completed_missions) == (2, 4, 1)
    assert result.squad.reputation == 1 and len(result.rolls) == 3
    assert result.squad.get("Cole", active=False).replaced_by == "Dana"
    assert c.vacancies(result.squad) == ("Ash",)
    with pytest.raises(c.CampaignError, match="departed must be one of Ash"):
        c.replacement(TABLES, result.squad, "Cole", "Eve", DICE)
    with pytest.raises(c.CampaignError, match="already on the roster"):
        c.replacement(TABLES, result.squad, "Ash", "Bex", DICE)


# -- step 5: experience and advances (p.204) --------------------------------------------------


def test_experience_awards() -> None:
    s = squad(trooper("Ash"), trooper("Bex"), trooper("Cole"), trooper("Dana", status="dead"), trooper("Eve"))
    o = outcome(
        priority=4,
        objectives_completed=2,
        took_field=("Ash", "Bex", "Cole", "Dana"),
        casualties=("Ash", "Dana"),
        evacuated=("Bex", "Cole"),
    )
    result = c.award_experience(TABLES, s, o, mvp="Cole")
    assert result.data["xp"] == {"Ash": 2, "Bex": 4, "Cole": 5}
    assert result.squad.get("Eve").xp == 0
    low = c.award_experience(TABLES, s, replace(o, priority=3, objectives_completed=1))
    assert low.data["xp"] == {"Ash": 1, "Bex": 2, "Cole": 2}
    signals = c.award_experience(TABLES, s, replace(o, priority=1, signals_initial=4, signals_investigated=1))
    assert signals.data["xp"]["Bex"] == 2  # the Objective total fell to 1
    with pytest.raises(c.CampaignError, match="mvp must be one of"):
        c.award_experience(TABLES, s, o, mvp="Eve")


def test_advances_cost_and_maxima() -> None:
    rich = trooper("Ash", xp=20)
    bought = c.advance(TABLES, rich, "reactions")
    assert (bought.trooper.profile.reactions, bought.trooper.xp, bought.cost) == (2, 12, 8)
    speedy = c.advance(TABLES, rich, "speed")
    assert (speedy.trooper.profile.speed, speedy.trooper.xp) == (5, 14)
    with pytest.raises(c.CampaignError, match="maximum of 3"):
        c.advance(TABLES, trooper("Ash", xp=20, stats={"combat_skill": 3}), "combat_skill")
    with pytest.raises(c.CampaignError, match="costs 6 XP"):
        c.advance(TABLES, trooper("Ash", xp=5), "savvy")
    with pytest.raises(c.CampaignError, match="stat must be one of reactions"):
        c.advance(TABLES, rich, "luck")
    result = c.advance_trooper(TABLES, squad(rich), "Ash", "toughness")
    assert result.squad.get("Ash").profile.toughness == 4


# -- step 6: Operational Progress (p.205) -----------------------------------------------------


@pytest.mark.parametrize(
    ("face", "objectives", "modifier", "contacts", "support"),
    [
        (5, 2, -5, 0, 0),  # Enemy counter-attacks
        (15, 2, 0, 1, 0),  # Enemy is well entrenched
        (30, 1, -5, 0, 0),  # Heavy pressure, fewer than 2 Objectives
        (30, 2, 0, 0, 0),  # Heavy pressure, 2 Objectives: no change
        (50, 2, 0, 0, 0),  # Stalemate
        (60, 2, 5, 0, 0),  # Gaining ground with 2 Objectives
        (60, 1, 0, 0, 0),  # Gaining ground without: no change
        (85, 0, 5, 0, 0),  # Break through
        (95, 0, 5, 0, 1),  # Crippling blow
    ],
)
def test_operational_progress_rows(face: int, objectives: int, modifier: int, contacts: int, support: int) -> None:
    result = c.operational_progress(TABLES, squad(), outcome(objectives_completed=objectives), DICE, face=face)
    op = result.squad.operation
    assert (op.modifier, op.extra_contacts, op.extra_support_rolls) == (modifier, contacts, support)


def test_operational_progress_is_cumulative_and_modified() -> None:
    s = squad(operation=c.Operation(modifier=-5, extra_contacts=1))
    result = c.operational_progress(TABLES, s, outcome(), DICE, face=12)  # 12 - 5 = 7: counter-attack
    assert result.data["total"] == 7 and result.squad.operation.modifier == -10
    assert result.squad.operation.extra_contacts == 1


def test_vital_operation_rewards_a_random_participant() -> None:
    o = outcome(objectives_completed=3, took_field=("Ash", "Bex", "Cole"))
    result = c.operational_progress(TABLES, squad(), o, DICE, face=78, pick_face=2)
    assert result.squad.get("Bex").xp == 3 and result.squad.get("Ash").xp == 0
    assert [r.notation for r in result.rolls] == ["D100", "D3"]
    seeded = c.operational_progress(TABLES, squad(), o, Dice(seed=11), face=78)
    assert sum(t.xp for t in seeded.squad.troopers) == 3


def test_disaster_then_reset() -> None:
    s = squad(operation=c.Operation(modifier=-5, extra_contacts=1, missions=3, missions_since_rr=3))
    disaster = c.operational_progress(TABLES, s, outcome(), DICE, face=4)
    op = disaster.squad.operation
    assert op.disaster_pending and op.extra_contacts == 3
    reset = c.operational_progress(TABLES, disaster.squad, outcome(), DICE)
    assert reset.rolls == () and reset.data["reset"]
    assert reset.squad.operation == c.Operation(number=2)


def test_parade_wins_the_operation() -> None:
    s = squad(reputation=1, operation=c.Operation(modifier=10, extra_support_rolls=1, missions=2, missions_since_rr=2))
    result = c.operational_progress(TABLES, s, outcome(), DICE, face=95)
    assert result.data["total"] == 105 and result.squad.reputation == 2
    assert result.squad.operation == c.Operation(number=2, rr_earned=True)


# -- step 7: Military Life (p.206) ------------------------------------------------------------


def life(face: int, s: c.Squad | None = None, **kwargs: Any) -> c.Result:
    return c.military_life(TABLES, s or squad(trooper("Ash", xp=3), reputation=2), DICE, face=face, **kwargs)


def test_fight() -> None:
    hurt = life(3, fight_face=4)  # 4 + Combat Skill 0 = 4, under 5
    assert hurt.squad.get("Ash").sick_bay == 1 and len(hurt.rolls) == 2
    fine = life(3, squad(trooper("Ash", stats={"combat_skill": 1})), fight_face=4)
    assert fine.squad.get("Ash").sick_bay == 0
    laid_up = life(3, squad(trooper("Ash", sick_bay=1, laid_up=True)), fight_face=1)
    assert laid_up.squad.get("Ash").sick_bay == 2  # this turn plus the next


@pytest.mark.parametrize(
    ("face", "reputation", "xp", "check"),
    [
        (8, 3, 3, lambda t, s: True),
        (13, 2, 3, lambda t, s: s.priority_shift_next == 1),
        (18, 1, 3, lambda t, s: t.miss_next_mission),
        (23, 2, 1, lambda t, s: True),
        (33, 2, 3, lambda t, s: t == trooper("Ash", xp=3)),
        (38, 2, 3, lambda t, s: t.assignment_bonus == 2),
        (43, 2, 3, lambda t, s: t.no_assignment_next),
        (48, 2, 4, lambda t, s: t.sick_bay == 0),
        (53, 2, 4, lambda t, s: True),
        (58, 2, 3, lambda t, s: t.sick_bay == 1),
        (63, 2, 3, lambda t, s: t.miss_next_mission and t.bonus_assignment_roll),
        (78, 2, 3, lambda t, s: True),
        (83, 2, 3, lambda t, s: True),
        (93, 1, 3, lambda t, s: True),
        (99, 3, 3, lambda t, s: True),
    ],
)
def test_military_life_rows(face: int, reputation: int, xp: int, check: Any) -> None:
    result = life(face)
    ash = result.squad.get("Ash")
    assert (result.squad.reputation, ash.xp) == (reputation, xp)
    assert check(ash, result.squad)
    assert result.offers == ()


def test_military_life_edges() -> None:
    poor = life(23, squad(trooper("Ash", xp=1), reputation=0))
    assert poor.squad.get("Ash").xp == 0
    brig = life(18, squad(trooper("Ash"), reputation=0))
    assert brig.squad.reputation == 0  # never below 0
    fit = life(48, squad(trooper("Ash", sick_bay=2, xp=3)))
    assert (fit.squad.get("Ash").sick_bay, fit.squad.get("Ash").xp) == (1, 3)


def test_military_life_offers() -> None:
    shape = life(68, squad(trooper("Ash", xp=6)))
    (offer,) = shape.offers
    assert (offer.kind, offer.stat, offer.cost_xp) == ("raise_stat", "speed", 5)
    taken = c.accept_offer(TABLES, shape.squad, offer)
    assert (taken.squad.get("Ash").profile.speed, taken.squad.get("Ash").xp) == (5, 1)
    (rng,) = life(73, squad(trooper("Ash", xp=4))).offers
    with pytest.raises(c.CampaignError, match="costs 5 XP"):
        c.accept_offer(TABLES, squad(trooper("Ash", xp=4)), rng)
    (tinker,) = life(28).offers
    with pytest.raises(c.CampaignError, match="weapon is required"):
        c.accept_offer(TABLES, squad(), tinker)
    tinkered = c.accept_offer(TABLES, squad(), tinker, weapon="Combat rifle")
    assert tinkered.squad.get("Ash").weapon_notes == ('+1" range: Combat rifle',)
    (favor,) = life(88).offers
    cashed = c.accept_offer(TABLES, squad(reputation=3), favor, xp_points=1, bonus_points=1)
    ash = cashed.squad.get("Ash")
    assert (cashed.squad.reputation, ash.xp, ash.assignment_bonus) == (1, 2, 1)
    with pytest.raises(c.CampaignError, match="must be 0 to 2"):
        c.accept_offer(TABLES, squad(reputation=3), favor, xp_points=3)
    with pytest.raises(c.CampaignError, match="only 1 Reputation"):
        c.accept_offer(TABLES, squad(reputation=1), favor, xp_points=2)


def test_military_life_picks_a_random_main_character_including_sick_bay() -> None:
    s = squad(trooper("Ash"), trooper("Bex", sick_bay=2), trooper("Cole"), trooper("Dana", status="dead"))
    result = c.military_life(TABLES, s, DICE, pick_face=2, face=53)
    assert result.data["trooper"] == "Bex" and result.squad.get("Bex").xp == 1
    assert result.rolls[0].notation == "D3"
    with pytest.raises(c.CampaignError, match="pick must be one of Ash, Bex, Cole"):
        c.military_life(TABLES, s, DICE, pick="Dana", face=53)
    # Two names on a D3: a 3 is rolled again, and every roll is kept.
    pair = squad(trooper("Ash"), trooper("Bex"))
    for seed in range(12):
        seeded = c.military_life(TABLES, pair, Dice(seed=seed))
        picks = [r for r in seeded.rolls if r.notation == "D3"]
        assert all(r.total == 3 for r in picks[:-1]) and picks[-1].total in (1, 2)
        assert seeded.data["trooper"] == ("Ash", "Bex")[int(picks[-1].total or 1) - 1]


# -- step 8: R&R (p.206) ----------------------------------------------------------------------


def test_rest_and_recreation() -> None:
    s = squad(trooper("Ash", sick_bay=2), trooper("Bex"), operation=c.Operation(missions=4, missions_since_rr=4))
    rr = c.rest_and_recreation(TABLES, s, DICE, pick="Bex", face=53)
    assert rr.data["taken"] and not rr.data["paid"]
    assert rr.squad.get("Ash").sick_bay == 1 and rr.squad.get("Bex").xp == 1  # extra Military Life roll
    assert rr.squad.operation.missions_since_rr == 0 and rr.squad.reputation == 2
    early = replace(s, operation=c.Operation(missions=3, missions_since_rr=3))
    none = c.rest_and_recreation(TABLES, early, DICE)
    assert not none.data["taken"] and none.rolls == () and none.squad == early
    paid = c.rest_and_recreation(TABLES, early, DICE, pay_reputation=True, pick="Bex", face=33)
    assert paid.data["paid"] and paid.squad.reputation == 1 and paid.squad.get("Ash").sick_bay == 1
    with pytest.raises(c.CampaignError, match="light duties cost 1"):
        c.rest_and_recreation(TABLES, replace(early, reputation=0), DICE, pay_reputation=True)
    parade = replace(s, operation=c.Operation(number=2, rr_earned=True))
    assert c.rest_and_recreation(TABLES, parade, DICE, pick="Bex", face=33).data["taken"]


# -- step 9 and the Sick Bay countdown (p.206) ------------------------------------------------


def test_sick_bay_counts_down_in_step_nine() -> None:
    s = squad(trooper("Ash", sick_bay=1, laid_up=True), trooper("Bex", sick_bay=2), trooper("Cole"))
    ready = c.ready_for_next_turn(s)
    assert ready.squad.turn == 2
    assert ready.data["recovered"] == ["Ash"]
    bex = ready.squad.get("Bex")
    assert (bex.sick_bay, bex.laid_up) == (2, True)  # hurt this turn: counting starts next turn
    start = c.campaign_turn_start(ready.squad)
    assert start.available == ("Ash", "Cole") and start.sick_bay == ("Bex",)
    after = c.ready_for_next_turn(c.ready_for_next_turn(start.squad).squad).squad
    assert after.get("Bex").sick_bay == 0 and not after.get("Bex").laid_up


def test_minor_injury_misses_exactly_one_turn() -> None:
    o = outcome(took_field=("Ash", "Bex"), casualties=("Ash",), evacuated=("Bex",))
    s = c.casualties(TABLES, squad(trooper("Ash"), trooper("Bex")), o, DICE, faces={"Ash": 60}).squad
    s = c.ready_for_next_turn(s).squad
    assert "Ash" not in c.campaign_turn_start(s).available
    s = c.ready_for_next_turn(s).squad
    assert "Ash" in c.campaign_turn_start(s).available


# -- the whole sequence -----------------------------------------------------------------------


def test_post_battle_runs_all_nine_steps_with_court_martial() -> None:
    s = squad(reputation=0)
    o = outcome(objectives_completed=0, in_charge="Ash", casualties=("Bex",), evacuated=("Ash", "Cole"))
    result = c.post_battle(TABLES, s, o, Dice(seed=5), c.PostBattleChoices(replacement_names=("Dana", "Eve")))
    numbers = [n for n, _, _ in result.steps]
    assert numbers[0] == 0 and [n for n in numbers if n > 0 and n in range(1, 10)][-1] == 9
    assert {1, 2, 3, 4, 5, 6, 7, 8, 9} <= set(numbers)
    assert result.rolls == tuple(r for _, _, step in result.steps for r in step.rolls)
    assert result.squad.turn == 2 and result.squad.operation.missions == 1
    assert result.as_dict()["steps"][0]["title"] == "Court martial"


def test_three_campaign_turns_of_post_battle() -> None:
    dice = Dice(seed=2024)
    s = squad(trooper("Ash"), trooper("Bex"), trooper("Cole"), reputation=1)
    names = iter(f"Recruit {i}" for i in range(1, 20))
    every_roll = 0
    for turn in (1, 2, 3):
        start = c.campaign_turn_start(s)
        assert start.squad.turn == turn
        s = start.squad
        for name in start.may_apply:
            options = c.assignments_available(TABLES, s, name)
            if options.may_roll and options.available:
                s = c.special_assignment(TABLES, s, name, options.available[0], dice).squad
        team = start.available
        hurt = team[:1]
        o = c.MissionOutcome(
            priority=4,
            objectives_completed=2,
            took_field=team,
            casualties=hurt,
            evacuated=team[1:],
            mvp=team[-1],
            enemy="Razor lizards",
        )
        result = c.post_battle(
            TABLES,
            s,
            o,
            dice,
            c.PostBattleChoices(replacement_names=tuple(next(names) for _ in range(3)), accept_offers=True),
        )
        every_roll += len(result.rolls)
        assert result.squad.turn == turn + 1
        assert result.squad.operation.missions + (result.squad.operation.number - 1) >= 1
        # The roster stays at three active main characters: the lost are replaced.
        assert len(result.squad.active) == 3
        for t in result.squad.active:
            if t.name in team and t.name not in hurt:
                assert t.xp >= 3 + 1  # Evac with 2 Objectives, Priority 4
        s = c.Squad.from_dict(result.squad.as_dict())
    assert s.turn == 4 and every_roll >= 3 * 4


def test_the_escape_card_spares_lost_marines_their_roll_but_not_their_xp() -> None:
    squad = c.Squad(
        reputation=0,
        troopers=tuple(c.Trooper(name=n, profile=Profile(1, 4, 0, 3, 0)) for n in ("Ada", "Bo", "Cy")),
    )
    outcome = c.MissionOutcome(priority=2, objectives_completed=1, took_field=("Ada", "Bo", "Cy"), lost_marines=("Bo",))
    plain = c.casualties(TABLES, squad, outcome, Dice(seed=1), faces={"Bo": 10})
    assert plain.data["results"]["Bo"]["outcome"] != "escaped" and len(plain.rolls) >= 1
    spared = c.casualties(TABLES, squad, outcome, Dice(seed=1), faces={"Bo": 10}, escaped=("Bo",))
    assert spared.data["results"]["Bo"]["outcome"] == "escaped" and spared.rolls == ()
    assert spared.squad.get("Bo").active
    xp = c.award_experience(TABLES, spared.squad, outcome)
    assert xp.squad.get("Bo").xp == 1  # still a lost marine for XP


def test_the_survived_card_cancels_one_injury_rolls_effects() -> None:
    squad = c.Squad(reputation=0, troopers=tuple(c.Trooper(name=n, profile=Profile(1, 4, 0, 3, 0)) for n in ("Ada", "Bo", "Cy")))
    outcome = c.MissionOutcome(priority=2, objectives_completed=1, took_field=("Ada", "Bo", "Cy"), casualties=("Ada", "Bo"))
    hurt = c.casualties(TABLES, squad, outcome, Dice(seed=1), faces={"Ada": 3, "Bo": 3})  # 1-5 Gruesome fate
    assert hurt.squad.get("Ada", active=False).status == "dead" and hurt.squad.get("Bo", active=False).status == "dead"
    saved = c.casualties(TABLES, squad, outcome, Dice(seed=1), faces={"Ada": 3, "Bo": 3}, survived="Ada")
    assert saved.squad.get("Ada").active and saved.data["results"]["Ada"]["outcome"] == "survived"
    assert saved.squad.get("Bo", active=False).status == "dead"
