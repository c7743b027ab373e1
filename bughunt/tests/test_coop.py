"""Co-op Bug Hunt through the services: a squad shared like a campaign (owner, editor, reader,
stranger), the marines given to members at the mission tracker, and one squad log that holds the
tracker's rolls."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bughunt import member_services, services
from bughunt.models import LogEntry, Mission, Squad, Trooper
from bughunt.selectors import log_list, squad_list
from bughunt.tests.versions import mission_version, squad_version
from live import services as live_services
from live.models import Membership, Room
from rules.errors import DropshipError, NotAllowed, NotFound
from tests.factories import UserFactory

pytestmark = pytest.mark.usefixtures("bughunt_tables")


@pytest.fixture
def editor(db: None) -> Any:
    return UserFactory.create(username="vasquez-player")


@pytest.fixture
def reader(db: None) -> Any:
    return UserFactory.create(username="gorman")


@pytest.fixture
def squad(player: Any, editor: Any, reader: Any) -> Squad:
    made = services.squad_create(user=player, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=7)
    for user, role in ((editor, "editor"), (reader, "reader")):
        member_services.member_invite(
            user=player, squad_id=made.pk, version=squad_version(made.pk), username=user.username, role=role
        )
    made.refresh_from_db()
    return made


def trooper(squad: Squad, name: str) -> Trooper:
    return squad.troopers.get(name=name)


def give(user: Any, squad: Squad, name: str, player: str) -> Trooper:
    return member_services.marine_give(
        user=user, squad_id=squad.pk, version=squad_version(squad.pk), trooper_id=trooper(squad, name).pk, player=player
    )


def on_table(user: Any, squad: Squad) -> Mission:
    mission = services.mission_create(user=user, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    loadout = {str(t.pk): "Combat rifle" for t in services.available_troopers(squad)}
    services.mission_loadout(user=user, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    return services.mission_start(user=user, mission_id=mission.pk, version=mission_version(mission.pk))


def act(user: Any, mission: Mission, type: str, **payload: Any) -> dict[str, Any]:
    assert mission.room is not None
    room = Room.objects.get(pk=mission.room.pk)
    return live_services.room_act(user=user, room_id=room.pk, type=type, payload=payload, version=room.version, seed=1).room.state


def unit_of(mission: Mission, name: str) -> dict[str, Any]:
    assert mission.room is not None
    return next(u for u in Room.objects.get(pk=mission.room.pk).state["units"] if u["name"] == name)


# -- members ----------------------------------------------------------------------------------


def test_the_owner_invites_editors_and_readers_who_then_see_the_squad(squad: Squad, player, editor, reader, other) -> None:  # type: ignore[no-untyped-def]
    roles = dict(Membership.objects.filter(room=squad.room).values_list("user__username", "role"))
    assert roles == {"hicks": "owner", "vasquez-player": "player", "gorman": "viewer"}
    assert [s.pk for s in squad_list(user=editor)] == [squad.pk] == [s.pk for s in squad_list(user=reader)]
    assert list(squad_list(user=other)) == []
    lines = list(squad.log.filter(step="co-op: member").values_list("text", flat=True))
    assert lines == ["vasquez-player joins the squad as editor.", "gorman joins the squad as reader."]


@pytest.mark.parametrize(("who", "error"), [("editor", NotAllowed), ("reader", NotAllowed), ("other", NotFound)])
def test_only_the_owner_invites(squad: Squad, who: str, error: type, request) -> None:  # type: ignore[no-untyped-def]
    user = request.getfixturevalue(who)
    before = squad_version(squad.pk)
    with pytest.raises(error):
        member_services.member_invite(user=user, squad_id=squad.pk, version=before, username="burke", role="editor")
    assert squad_version(squad.pk) == before
    assert not Membership.objects.filter(room=squad.room, user__username="burke").exists()


def test_an_invitation_names_a_bad_role_or_user(squad: Squad, player) -> None:  # type: ignore[no-untyped-def]
    for username, role, field in (("burke", "admin", "role"), ("nobody", "editor", "username"), ("hicks", "editor", "username")):
        with pytest.raises(DropshipError) as caught:
            member_services.member_invite(
                user=player, squad_id=squad.pk, version=squad_version(squad.pk), username=username, role=role
            )
        assert caught.value.field == field and caught.value.status == 400


@pytest.mark.parametrize(("who", "error"), [("editor", NotAllowed), ("reader", NotAllowed), ("other", NotFound)])
def test_only_the_owner_changes_the_squads_options(squad: Squad, who: str, error: type, request) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error):
        services.squad_update(user=request.getfixturevalue(who), squad_id=squad.pk, version=squad_version(squad.pk), name="Zulu")
    squad.refresh_from_db()
    assert squad.name == "Kilo"


def test_editors_play_the_campaign_readers_and_strangers_do_not(squad: Squad, editor, reader, other) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFound):
        services.mission_create(user=other, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    with pytest.raises(NotAllowed):
        services.mission_create(user=reader, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    assert not squad.missions.exists()
    mission = services.mission_create(user=editor, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    assert mission.number == 1


def test_a_member_leaves_and_the_owner_removes_but_an_editor_cannot(squad: Squad, player, editor, reader) -> None:  # type: ignore[no-untyped-def]
    seat = Membership.objects.get(room=squad.room, user=reader)
    with pytest.raises(NotAllowed):
        member_services.member_remove(user=editor, squad_id=squad.pk, version=squad_version(squad.pk), member_id=seat.pk)
    member_services.member_remove(user=reader, squad_id=squad.pk, version=squad_version(squad.pk), member_id=seat.pk)
    assert list(squad_list(user=reader)) == []
    owner_seat = Membership.objects.get(room=squad.room, user=player)
    with pytest.raises(DropshipError, match="owner cannot be removed"):
        member_services.member_remove(user=player, squad_id=squad.pk, version=squad_version(squad.pk), member_id=owner_seat.pk)


# -- the marines given to members --------------------------------------------------------------


def test_the_owner_gives_a_marine_to_an_editor_never_to_a_reader_or_stranger(squad: Squad, player, editor, reader, other) -> None:  # type: ignore[no-untyped-def]
    assert give(player, squad, "Vasquez", "vasquez-player").player_id == editor.pk
    with pytest.raises(DropshipError, match="gorman is a reader and only watches") as caught:
        give(player, squad, "Hicks", "gorman")
    assert caught.value.field == "player"
    with pytest.raises(DropshipError, match="burke is not an editor"):
        give(player, squad, "Hicks", "burke")
    with pytest.raises(NotAllowed):
        give(editor, squad, "Hicks", "vasquez-player")
    with pytest.raises(NotFound):
        give(other, squad, "Hicks", "burke")
    assert trooper(squad, "Hicks").player_id is None
    assert give(player, squad, "Vasquez", "").player_id is None  # back to the owner


def test_at_the_tracker_a_member_acts_only_with_their_own_marines(squad: Squad, player, editor, reader, other) -> None:  # type: ignore[no-untyped-def]
    give(player, squad, "Vasquez", "vasquez-player")
    mission = on_table(editor, squad)  # an editor opens the table; the owner referees it
    assert mission.room is not None and mission.room.owner_id == player.pk
    seats = dict(Membership.objects.filter(room=mission.room).values_list("user__username", "role"))
    assert seats == {"hicks": "owner", "vasquez-player": "player", "gorman": "viewer"}
    assert unit_of(mission, "Vasquez")["owner"] == str(editor.pk) and unit_of(mission, "Hicks")["owner"] == ""
    act(player, mission, "roll_reactions", faces=[1, 2, 3, 4])
    state = act(editor, mission, "assign_reaction", unit=unit_of(mission, "Vasquez")["id"], die=1)
    assert next(u for u in state["units"] if u["name"] == "Vasquez")["face"] == 1
    with pytest.raises(DropshipError) as caught:
        act(editor, mission, "assign_reaction", unit=unit_of(mission, "Hicks")["id"], die=2)
    assert caught.value.status == 400 and caught.value.field == "unit"
    assert "Hicks is not one of your figures: the referee commands them" in caught.value.message
    with pytest.raises(NotAllowed):
        act(reader, mission, "assign_reaction", unit=unit_of(mission, "Hicks")["id"], die=2)
    with pytest.raises(NotFound):
        act(other, mission, "assign_reaction", unit=unit_of(mission, "Hicks")["id"], die=2)
    state = act(player, mission, "assign_reaction", unit=unit_of(mission, "Hicks")["id"], die=2)  # the referee: any figure
    assert next(u for u in state["units"] if u["name"] == "Hicks")["face"] == 2


def test_a_marine_given_during_play_changes_hands_at_the_table(squad: Squad, player, editor) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    assert unit_of(mission, "Hudson")["owner"] == ""
    give(player, squad, "Hudson", "vasquez-player")
    assert unit_of(mission, "Hudson")["owner"] == str(editor.pk)
    member_services.member_invite(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), username="vasquez-player", role="reader"
    )
    assert unit_of(mission, "Hudson")["owner"] == "" and trooper(squad, "Hudson").player_id is None
    assert Membership.objects.get(room=mission.room, user=editor).role == "viewer"
    assert "The owner commands Hudson again." in squad.log.filter(step="co-op: member").last().text  # type: ignore[union-attr]


def test_a_removed_member_leaves_the_table_and_their_marines_go_back(squad: Squad, player, editor) -> None:  # type: ignore[no-untyped-def]
    give(player, squad, "Vasquez", "vasquez-player")
    mission = on_table(player, squad)
    seat = Membership.objects.get(room=squad.room, user=editor)
    member_services.member_remove(user=player, squad_id=squad.pk, version=squad_version(squad.pk), member_id=seat.pk)
    assert not Membership.objects.filter(room=mission.room, user=editor).exists()
    assert unit_of(mission, "Vasquez")["owner"] == "" and trooper(squad, "Vasquez").player_id is None


# -- one log -----------------------------------------------------------------------------------


def test_the_squad_log_holds_the_trackers_rolls_and_undo(squad: Squad, player, editor) -> None:  # type: ignore[no-untyped-def]
    give(player, squad, "Vasquez", "vasquez-player")
    mission = on_table(player, squad)
    version_before = squad_version(squad.pk)
    with CaptureQueriesContext(connection) as queries:
        act(player, mission, "roll_reactions", faces=[6, 2, 3, 4])
    # The squad log's line is one statement: its squad, mission and turn read from the mission there;
    # who acted is the user the service already holds, not read again.
    assert len([q for q in queries if "bughunt_" in q["sql"]]) == 1
    assert not [q for q in queries if 'FROM "auth_user"' in q["sql"]]
    act(editor, mission, "assign_reaction", unit=unit_of(mission, "Vasquez")["id"], die=1)
    assert squad_version(squad.pk) == version_before  # the table keeps its own version
    tracker = log_list(squad=squad, step="tracker")
    assert [e.step for e in tracker] == ["tracker: roll reactions", "tracker: assign reaction"]
    rolled = tracker[0]
    assert rolled.mission == mission and rolled.rolls and rolled.rolls[0]["faces"] == [6, 2, 3, 4]
    assert rolled.squad == squad and rolled.turn == Mission.objects.get(pk=mission.pk).turn and rolled.created is not None
    assert rolled.text.startswith("Round 1 (hicks):")
    assert "(vasquez-player)" in tracker[1].text
    assert [e.step for e in log_list(squad=squad, step="tracker: roll")] == ["tracker: roll reactions"]
    assert log_list(squad=squad, step="tracker", mission=2).count() == 0
    assert log_list(squad=squad, mission=1).filter(step__startswith="mission").exists()
    room = Room.objects.get(pk=mission.room.pk)  # type: ignore[union-attr]
    live_services.room_undo(user=editor, room_id=room.pk, version=room.version)
    assign = LogEntry.objects.get(mission=mission, step="tracker: assign reaction")
    # one mark, the line's field, as a squad undo's: the screen strikes it and the API says so
    assert assign.undone is True and "undone" not in assign.data
    assert not LogEntry.objects.get(mission=mission, step="tracker: roll reactions").undone
    assert LogEntry.objects.get(mission=mission, step="tracker: undo").text.endswith("Undid: " + assign.text.split(": ", 1)[1])


def test_a_refused_table_action_writes_no_log_line(squad: Squad, player, editor) -> None:  # type: ignore[no-untyped-def]
    mission = on_table(player, squad)
    with pytest.raises(DropshipError):
        act(editor, mission, "roll_reactions", faces=[6, 2, 3, 4])
    assert not LogEntry.objects.filter(mission=mission, step__startswith="tracker").exists()


def test_a_standalone_table_keeps_no_squad_log(player) -> None:  # type: ignore[no-untyped-def]
    room = live_services.room_create(user=player, kind="bughunt-mission", title="Pickup", options={"priority": 2})
    with CaptureQueriesContext(connection) as queries:
        live_services.room_act(user=player, room_id=room.pk, type="roll_reactions", payload={}, version=room.version, seed=1)
    assert not LogEntry.objects.exists()
    assert len([q for q in queries if "bughunt_" in q["sql"]]) == 1  # the one statement, which inserts nothing here
