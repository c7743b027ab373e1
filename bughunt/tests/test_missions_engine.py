"""Bug Hunt mission generation (pp.184-190) against the shipped tables."""

from __future__ import annotations

import pytest

from bughunt.engine import missions
from rules.engine.dice import Dice
from rules.engine.tables import RangeTable
from rules.fixturefiles import read_all

TABLES: dict[str, RangeTable] = {s.slug: s.engine() for s in read_all() if s.system == "bughunt"}


def test_three_different_numbers_keep_three_plain_objectives() -> None:
    rolled = missions.roll_objectives(TABLES, Dice(seed=1), faces=[2, 5, 6])
    assert [(o.position, o.rank, o.value) for o in rolled.objectives] == [
        (2, "Objective", 1),
        (5, "Objective", 1),
        (6, "Objective", 1),
    ]
    assert not rolled.has_vital and not rolled.has_critical
    assert len(rolled.rolls) == 4  # the three positions, then one type roll per Objective


def test_a_double_makes_a_vital_and_a_triple_a_critical_objective() -> None:
    vital = missions.roll_objectives(TABLES, Dice(seed=1), faces=[4, 4, 1])
    assert [(o.position, o.rank, o.value) for o in vital.objectives] == [(1, "Objective", 1), (4, "Vital Objective", 2)]
    critical = missions.roll_objectives(TABLES, Dice(seed=1), faces=[3, 3, 3])
    assert [(o.position, o.rank, o.value) for o in critical.objectives] == [(3, "Critical Objective", 3)]
    types = {e.result for e in TABLES["bh-mission-objectives"].entries}
    assert {o.type for o in vital.objectives} <= types


def test_bad_faces_are_refused() -> None:
    with pytest.raises(missions.MissionError, match="three D6"):
        missions.roll_objectives(TABLES, Dice(seed=1), faces=[7, 1, 1])


@pytest.mark.parametrize(
    ("faces", "vital", "critical", "spent", "expected"),
    [
        ([3, 5], False, False, 0, 3),  # lower of the two
        ([3, 5], True, False, 0, 4),
        ([3, 5], False, True, 0, 5),
        ([6, 6], False, True, 2, 6),  # clamped at 6
        ([1, 2], False, False, -2, 1),  # clamped at 1
        ([4, 4], False, False, -2, 2),
    ],
)
def test_priority(faces: list[int], vital: bool, critical: bool, spent: int, expected: int) -> None:
    result = missions.determine_priority(Dice(seed=1), vital=vital, critical=critical, reputation_spent=spent, faces=faces)
    assert result.priority == expected
    assert result.spawn_rating == min(expected - 1, 3)


def test_spawn_rating_matches_the_table() -> None:
    for entry in TABLES["bh-spawn-rating"].entries:
        assert missions.spawn_rating(int(entry.data["priority"])) == int(entry.data["spawn_rating"])


def test_reputation_spending_is_limited_to_two() -> None:
    with pytest.raises(missions.MissionError, match="from -2 to 2"):
        missions.determine_priority(Dice(seed=1), vital=False, critical=False, reputation_spent=3)


def test_campaign_escalation_fixed_sequence() -> None:
    assert [missions.escalation_priority(TABLES, n).priority for n in range(1, 9)] == [1, 1, 2, 2, 3, 4, 5, 6]
    assert [missions.escalation_priority(TABLES, n).spawn_rating for n in range(1, 9)] == [0, 0, 1, 1, 2, 3, 3, 3]
    with pytest.raises(missions.MissionError, match="missions 1 to 8"):
        missions.escalation_priority(TABLES, 9)


def test_difficulty_changes_support_contacts_and_encounters() -> None:
    pretty = missions.difficulty(TABLES, "I'm Too Pretty to Die")
    mess = missions.difficulty(TABLES, "Mess Me Up")
    mega = missions.difficulty(TABLES, "Mega-violence")
    assert missions.support_points(3, pretty) == 5 and missions.support_points(3, mess) == 3
    assert missions.support_points(3, mess, reputation_for_support=True) == 4
    assert missions.place_markers(2, pretty, Dice(seed=1), use_signals=False).contacts_at_center == 0
    assert missions.place_markers(2, mega, Dice(seed=1), use_signals=False).contacts_at_center == 2
    assert (pretty.encounter, mess.encounter, mega.encounter) == (-1, 0, 1)
    with pytest.raises(missions.MissionError, match="difficulty must be one of"):
        missions.difficulty(TABLES, "Easy")


def test_support_requests_meet_the_target_once_each() -> None:
    granted = missions.request_support(TABLES, Dice(seed=1), "Fire team", faces=[3, 4])
    assert granted.target == 7 and granted.granted
    refused = missions.request_support(TABLES, Dice(seed=1), "Fire team", faces=[3, 3])
    assert not refused.granted
    with pytest.raises(missions.MissionError, match="already requested"):
        missions.request_support(TABLES, Dice(seed=1), "Fire team", already=["Fire team"])
    with pytest.raises(missions.MissionError, match="option must be one of"):
        missions.request_support(TABLES, Dice(seed=1), "Orbital strike")


def test_signals_take_places_from_tactical_locations() -> None:
    setting = missions.difficulty(TABLES, "Mess Me Up")
    plain = missions.place_markers(3, setting, Dice(seed=1), use_signals=False)
    assert (plain.signals, plain.tactical_locations, plain.contacts_on_objectives) == (0, 6, 3)
    with_signals = missions.place_markers(3, setting, Dice(seed=4), use_signals=True)
    assert 1 <= with_signals.signals <= 6 and with_signals.signals + with_signals.tactical_locations == 6
    assert with_signals.rolls[0].total == with_signals.signals


def test_the_extra_support_card_grants_a_request_without_a_roll() -> None:
    free = missions.request_support(TABLES, Dice(seed=1), "Soulless Recon Team", free=True)
    assert free.granted and free.record is None and free.target == 8
    with pytest.raises(missions.MissionError, match="already requested"):
        missions.request_support(TABLES, Dice(seed=1), "Sarge", already=["Sarge"], free=True)
