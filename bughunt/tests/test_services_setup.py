"""Squad creation and mission set-up through the services (pp.170-190)."""

from __future__ import annotations

import pytest

from bughunt import services
from bughunt.models import LogEntry, Mission, Squad
from bughunt.tests.versions import mission_version, squad_version
from rules.errors import DropshipError, NotFound, StaleVersion

pytestmark = pytest.mark.usefixtures("bughunt_tables")

NAMES = ["Vasquez", "Hicks", "Hudson"]


def make_squad(user, **kwargs):  # type: ignore[no-untyped-def]
    return services.squad_create(user=user, name="Kilo", character_names=NAMES, seed=7, **kwargs)


def test_a_new_squad_rolls_each_main_character_and_the_regiment(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    troopers = list(squad.troopers.all())
    assert [t.name for t in troopers] == NAMES
    for t in troopers:
        # base profile 1/4/0/3/0 plus background bonuses never lowers a score
        assert t.reactions >= 1 and t.speed >= 4 and t.combat_skill >= 0 and t.toughness >= 3 and t.savvy >= 0
        assert t.origin and t.basic_training and t.service_history
    assert squad.regiment and squad.uniform
    creation = LogEntry.objects.filter(squad=squad, step="creation")
    assert creation.count() == 4  # the regiment, then one line per main character
    # every character line carries its three D100 rolls (and commendation dice if any)
    for entry in creation.exclude(text__startswith="Regiment"):
        assert [r["notation"] for r in entry.rolls][:3] == ["D100", "D100", "D100"]
    # the squad's Reputation is the sum the backgrounds brought
    from bughunt.engine import characters
    from bughunt.selectors import bughunt_tables
    from rules.engine.dice import Dice

    tables = bughunt_tables()
    dice = Dice(seed=7)
    characters.regiment_flavor(tables, dice)
    expected = sum(characters.create_main_character(n, tables, dice).reputation for n in NAMES)
    assert squad.reputation == expected


@pytest.mark.parametrize(
    ("names", "field"),
    [(["A", "B"], "character_names"), (["A", "B", "C", "D", "E", "F"], "character_names"), (["A", "a", "B"], "character_names")],
)
def test_squad_size_is_three_to_five_distinct_names_and_nothing_is_written_otherwise(player, names, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as caught:
        services.squad_create(user=player, name="Kilo", character_names=names)
    assert caught.value.field == field
    assert not Squad.objects.exists()


def test_unknown_difficulty_names_the_five_settings(player) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError, match="Living Nightmare") as caught:
        make_squad(player, difficulty="Easy")
    assert caught.value.field == "difficulty"


def test_mission_set_up_records_every_step_and_roll(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    mission = services.mission_create(
        user=player, squad_id=squad.pk, version=squad.version, objective_faces=[2, 2, 5], priority_faces=[4, 6], seed=3
    )
    setup = mission.setup
    assert [(o["position"], o["value"]) for o in setup["objectives"]] == [(2, 2), (5, 1)]
    # lower of 4 and 6 is 4, +1 for the Vital Objective
    assert setup["priority"] == 5 and setup["spawn_rating"] == 3
    assert setup["support"]["points"] == 5  # Priority, Mess Me Up adds nothing
    assert setup["contacts_on_objectives"] == 2 and setup["contacts_at_center"] == 1
    assert setup["tactical_locations"] == 6 and setup["signals"] == 0
    steps = list(mission.log.values_list("step", flat=True))
    assert steps == ["mission: objectives", "mission: priority", "mission: markers"]
    priority_roll = mission.log.get(step="mission: priority").rolls[0]
    assert priority_roll["faces"] == [4, 6] and priority_roll["entered"] is True


def test_reputation_spent_on_priority_costs_reputation_and_moves_priority(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    squad.reputation = 3
    squad.save()
    mission = services.mission_create(
        user=player,
        squad_id=squad.pk,
        version=squad.version,
        objective_faces=[1, 3, 5],
        priority_faces=[3, 3],
        reputation_spent=-2,
    )
    assert mission.setup["priority"] == 1
    squad.refresh_from_db()
    assert squad.reputation == 1


def test_escalation_uses_the_fixed_sequence(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player, escalation=True)
    mission = services.mission_create(user=player, squad_id=squad.pk, version=squad.version, objective_faces=[1, 1, 1])
    # a Critical Objective would add +2 to a rolled Priority; escalation fixes mission 1 at 1
    assert mission.setup["priority"] == 1 and mission.setup["spawn_rating"] == 0


def test_difficulty_changes_contacts_and_support(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    easy = services.mission_create(
        user=player,
        squad_id=squad.pk,
        version=squad.version,
        difficulty="I'm Too Pretty to Die",
        objective_faces=[1, 3, 5],
        priority_faces=[2, 2],
    )
    assert easy.setup["contacts_at_center"] == 0 and easy.setup["support"]["points"] == 4
    assert easy.setup["encounter"] == -1


def test_signals_option_turns_markers_into_signals(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player, signals=True)
    mission = services.mission_create(user=player, squad_id=squad.pk, version=squad.version, seed=11)
    assert 1 <= mission.setup["signals"] <= 6
    assert mission.setup["signals"] + mission.setup["tactical_locations"] == 6


def test_a_stale_version_is_refused_and_writes_nothing(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    with pytest.raises(StaleVersion):
        services.mission_create(user=player, squad_id=squad.pk, version=squad.version - 1 if squad.version > 1 else 99)
    assert not Mission.objects.exists()


def test_a_write_without_a_version_is_refused_and_writes_nothing(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    with pytest.raises(DropshipError, match="version is required") as caught:
        services.mission_create(user=player, squad_id=squad.pk, version=None)
    assert caught.value.field == "version" and caught.value.status == 400
    assert not Mission.objects.exists()
    squad.refresh_from_db()
    with pytest.raises(DropshipError, match="version is required"):
        services.squad_update(user=player, squad_id=squad.pk, version=None, name="Lima")
    squad.refresh_from_db()
    assert squad.name == "Kilo"


def test_another_users_squad_is_not_found(player, other) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    with pytest.raises(NotFound):
        services.mission_create(user=other, squad_id=squad.pk, version=squad_version(squad.pk))


def test_support_requests_roll_each_option_once_and_spend_points(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    mission = services.mission_create(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), objective_faces=[1, 3, 5], priority_faces=[2, 2]
    )
    assert mission.setup["support"]["points"] == 2
    mission = services.mission_request_support(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), option="Sarge", faces=[3, 2]
    )
    assert mission.setup["teams"][0]["name"] == "Sarge"  # 5 on 2D6 meets 5+
    with pytest.raises(DropshipError, match="already requested"):
        services.mission_request_support(
            user=player, mission_id=mission.pk, version=mission_version(mission.pk), option="Sarge", faces=[6, 6]
        )
    mission = services.mission_request_support(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), option="Intel report", faces=[3, 3]
    )
    assert mission.setup["intel_report"] is False  # 6 is below 7+: point lost
    with pytest.raises(DropshipError, match="spent") as caught:
        services.mission_request_support(
            user=player, mission_id=mission.pk, version=mission_version(mission.pk), option="Grenades", faces=[6, 6]
        )
    assert caught.value.field == "option"


def test_extra_support_card_grants_the_first_request_without_a_roll_once_per_campaign(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    mission = services.mission_create(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), objective_faces=[1, 3, 5], priority_faces=[3, 3]
    )
    mission = services.mission_request_support(
        user=player,
        mission_id=mission.pk,
        version=mission_version(mission.pk),
        option="K'Erin assault marine Team",
        extra_support_card=True,
    )
    assert mission.setup["teams"][0]["name"] == "K'Erin assault marine Team"
    assert "kerin" in mission.setup["teams"][0]["special"]
    squad.refresh_from_db()
    assert squad.movie_magic_used == ["Extra Support"]


def test_buying_a_support_point_costs_one_reputation_once(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    squad.reputation = 2
    squad.save()
    mission = services.mission_create(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), objective_faces=[1, 3, 5], priority_faces=[3, 3]
    )
    mission = services.mission_buy_support(user=player, mission_id=mission.pk, version=mission_version(mission.pk))
    assert mission.setup["support"]["points"] == 4
    with pytest.raises(DropshipError, match="already"):
        services.mission_buy_support(user=player, mission_id=mission.pk, version=mission_version(mission.pk))
    squad.refresh_from_db()
    assert squad.reputation == 1


def test_loadout_names_the_allowed_weapons_and_one_hand_cannon(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    mission = services.mission_create(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), objective_faces=[1, 3, 5], priority_faces=[3, 3]
    )
    ids = [str(t.pk) for t in squad.troopers.all()]
    with pytest.raises(DropshipError, match="Combat rifle, Shot gun, Boarding sword"):
        services.mission_loadout(
            user=player, mission_id=mission.pk, version=mission_version(mission.pk), loadout=dict.fromkeys(ids, "Railgun")
        )
    with pytest.raises(DropshipError, match="needs a weapon"):
        services.mission_loadout(
            user=player, mission_id=mission.pk, version=mission_version(mission.pk), loadout={ids[0]: "Shot gun"}
        )
    mission = services.mission_loadout(
        user=player,
        mission_id=mission.pk,
        version=mission_version(mission.pk),
        loadout={ids[0]: "Shot gun", ids[1]: "Boarding sword", ids[2]: "Combat rifle"},
        hand_cannon=ids[1],
    )
    setup = services.tracker_setup(mission)
    weapons = {m["name"]: m["weapons"] for m in setup["main_characters"]}
    assert weapons == {
        "Vasquez": ["Service pistol", "Shot gun"],
        "Hicks": ["Hand cannon", "Boarding sword"],
        "Hudson": ["Service pistol", "Combat rifle"],
    }
    assert [t["name"] for t in setup["combat_teams"]] == ["Fire team"]
    assert setup["combat_teams"][0]["figures"] == 4 and setup["combat_teams"][0]["save"] == 5


def test_troopers_in_sick_bay_stay_behind(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    hudson = squad.troopers.get(name="Hudson")
    hudson.sick_bay = 2
    hudson.save()
    assert [t.name for t in services.available_troopers(squad)] == ["Vasquez", "Hicks"]


def test_only_one_mission_at_a_time(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    services.mission_create(user=player, squad_id=squad.pk, version=squad_version(squad.pk))
    with pytest.raises(DropshipError, match="current mission"):
        services.mission_create(user=player, squad_id=squad.pk, version=squad_version(squad.pk))


def test_reputation_for_priority_is_two_at_most_and_must_be_there(player) -> None:  # type: ignore[no-untyped-def]
    squad = make_squad(player)
    squad.reputation = 1
    squad.save()
    with pytest.raises(DropshipError, match="-2 to 2") as caught:
        services.mission_create(user=player, squad_id=squad.pk, version=squad_version(squad.pk), reputation_spent=3)
    assert caught.value.field == "reputation_spent"
    with pytest.raises(DropshipError, match="has 1") as caught:
        services.mission_create(user=player, squad_id=squad.pk, version=squad_version(squad.pk), reputation_spent=-2)
    assert caught.value.field == "reputation_spent" and not Mission.objects.exists()
