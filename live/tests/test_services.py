from __future__ import annotations

import pytest

from live import services
from live.models import RoomAction
from rules.errors import DropshipError, NotAllowed, NotFound, StaleVersion

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(owner, threat_tables):  # type: ignore[no-untyped-def]
    return services.room_create(user=owner, kind="threat", title="Hadley's Hope", options={"threat": 3})


def test_create_reads_the_threat_tables(room) -> None:  # type: ignore[no-untyped-def]
    assert room.version == 0 and room.state["actions_left"] == 2
    assert "Durability loss" in room.state["complications"]
    code = services.room_code(room)
    assert code is not None and len(code.code) == 8 and not set(code.code) & set("IL01O")


def test_unknown_kind_names_the_known_ones(owner) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError, match=r"choose one of .*threat"):
        services.room_create(user=owner, kind="poker", title="x")


def test_act_bumps_the_version_and_logs_rolls(room, owner) -> None:  # type: ignore[no-untyped-def]
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    result = services.room_act(
        user=owner, room_id=room.pk, type="combat_action", payload={"characters": ["c1"]}, version=1, seed=5
    )
    assert result.room.version == 2
    assert result.entry.rolls[0]["notation"] == "2D6" and result.entry.seed == 5
    assert result.entry.events[0]["type"] == "combat_action"


def test_a_stale_write_is_refused_with_the_latest_state(room, owner) -> None:  # type: ignore[no-untyped-def]
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    with pytest.raises(StaleVersion) as refused:
        services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Hicks"}, version=0)
    assert refused.value.extra["version"] == 1
    assert [c["name"] for c in refused.value.extra["state"]["characters"]] == ["Ripley"]
    assert RoomAction.objects.count() == 1


def test_a_refused_action_writes_nothing(room, owner) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError, match="name is required"):
        services.room_act(user=owner, room_id=room.pk, type="add_character", payload={}, version=0)
    room.refresh_from_db()
    assert room.version == 0 and not RoomAction.objects.exists()


def test_join_with_code_then_act_only_on_own_characters(room, owner, player) -> None:  # type: ignore[no-untyped-def]
    code = services.room_code(room)
    assert code is not None
    membership = services.room_join(user=player, code=code.code.lower())
    assert membership.role == "player"
    services.room_act(
        user=owner, room_id=room.pk, type="add_character", payload={"name": "Hudson", "owner": player.pk}, version=0
    )
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Vasquez"}, version=1)
    services.room_act(
        user=player, room_id=room.pk, type="combat_action", payload={"characters": ["c1"], "faces": [5, 5]}, version=2
    )
    with pytest.raises(NotAllowed, match="Vasquez is not one of your characters"):
        services.room_act(
            user=player, room_id=room.pk, type="combat_action", payload={"characters": ["c2"], "faces": [5, 5]}, version=3
        )
    with pytest.raises(NotAllowed, match="Only the table's owner"):
        services.room_act(user=player, room_id=room.pk, type="set_threat", payload={"level": 1}, version=3)


def test_outsiders_cannot_see_or_act(room, outsider) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFound):
        services.room_act(user=outsider, room_id=room.pk, type="end_phase", payload={}, version=0)


def test_viewers_cannot_act(room, owner, player) -> None:  # type: ignore[no-untyped-def]
    code = services.room_code(room)
    assert code is not None
    membership = services.room_join(user=player, code=code.code)
    services.membership_set_role(user=owner, room_id=room.pk, user_id=player.pk, role="viewer", version=0)
    assert membership.room.version == 0  # the join left the version alone
    with pytest.raises(NotAllowed, match="You are a viewer"):
        services.room_act(user=player, room_id=room.pk, type="end_phase", payload={}, version=1)


def test_wrong_and_revoked_codes_are_refused_and_throttled(room, owner, player) -> None:  # type: ignore[no-untyped-def]
    code = services.room_code(room)
    assert code is not None
    services.room_code_revoke(user=owner, room_id=room.pk)
    with pytest.raises(DropshipError, match="expired or was revoked"):
        services.room_join(user=player, code=code.code)
    for _ in range(services.JOIN_FAILURES_ALLOWED - 1):
        with pytest.raises(DropshipError, match="No table has that code"):
            services.room_join(user=player, code="WRONGCOD")
    fresh = services.room_code_rotate(user=owner, room_id=room.pk)
    with pytest.raises(services.Throttled):
        services.room_join(user=player, code=fresh.code)


def test_undo_replays_without_the_last_action(room, owner, player) -> None:  # type: ignore[no-untyped-def]
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    after_one = services.room_act(
        user=owner, room_id=room.pk, type="add_character", payload={"name": "Hicks"}, version=1
    ).room.state
    rolled = services.room_act(
        user=owner, room_id=room.pk, type="combat_action", payload={"characters": ["c1"]}, version=2, seed=3
    )
    assert rolled.room.state != after_one
    undone = services.room_undo(user=owner, room_id=room.pk, version=3)
    assert undone.room.version == 4
    assert undone.room.state == after_one
    assert RoomAction.objects.get(version=3).undone
    # The next undo takes back the action before.
    again = services.room_undo(user=owner, room_id=room.pk, version=4)
    assert [c["name"] for c in again.room.state["characters"]] == ["Ripley"]


def _counting_reducer(monkeypatch, kind: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Swap ``kind``'s registered reducer for one that records each action type it applies."""
    from dataclasses import replace

    from live import registry

    applied: list[str] = []
    tracker = registry.get(kind)

    def counting(state, action, dice, tables):  # type: ignore[no-untyped-def]
        applied.append(action.type)
        return tracker.reducer(state, action, dice, tables)

    monkeypatch.setitem(registry._KINDS, kind, replace(tracker, reducer=counting))
    return applied


def test_an_action_keeps_the_state_from_before_it(room, owner) -> None:  # type: ignore[no-untyped-def]
    before = services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    result = services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Hicks"}, version=1)
    assert result.entry.state_before == before.room.state
    assert RoomAction.objects.get(version=1).state_before == room.initial_state


def test_undo_restores_the_state_before_without_replaying_the_log(room, owner, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for version, name in enumerate(["Ripley", "Hicks", "Vasquez", "Hudson"]):
        services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": name}, version=version)
    expected = RoomAction.objects.get(version=4).state_before
    applied = _counting_reducer(monkeypatch, "threat")
    undone = services.room_undo(user=owner, room_id=room.pk, version=4)
    again = services.room_undo(user=owner, room_id=room.pk, version=5)
    assert applied == []
    assert undone.room.state == expected
    assert [c["name"] for c in again.room.state["characters"]] == ["Ripley", "Hicks"]


def test_undo_of_an_action_logged_without_its_state_before_replays_the_log(room, owner, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    after_one = services.room_act(user=owner, room_id=room.pk, type="set_threat", payload={"level": 5}, version=1).room.state
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Hicks"}, version=2)
    # Rooms played before states were stored with each action have none.
    RoomAction.objects.filter(room=room).update(state_before=None)
    applied = _counting_reducer(monkeypatch, "threat")
    undone = services.room_undo(user=owner, room_id=room.pk, version=3)
    assert undone.room.state == after_one
    assert applied == ["add_character", "set_threat"]


def test_the_log_replays_to_the_stored_state_after_acts_and_undos(room, owner) -> None:  # type: ignore[no-untyped-def]
    from live.selectors import room_replay_matches

    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    services.room_act(user=owner, room_id=room.pk, type="combat_action", payload={"characters": ["c1"]}, version=1, seed=3)
    services.room_undo(user=owner, room_id=room.pk, version=2)
    result = services.room_act(user=owner, room_id=room.pk, type="combat_action", payload={"characters": ["c1"]}, version=3)
    assert room_replay_matches(result.room)
    result.room.state = {**result.room.state, "actions_left": 99}
    assert not room_replay_matches(result.room)


def test_only_the_actor_or_owner_may_undo(room, owner, player) -> None:  # type: ignore[no-untyped-def]
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Ripley"}, version=0)
    with pytest.raises(NotAllowed, match="Only the owner or whoever made the last action"):
        services.room_undo(user=player, room_id=room.pk, version=1)


# -- members: roles, removal, leaving ---------------------------------------------------------


@pytest.fixture
def seated(room, owner, player):  # type: ignore[no-untyped-def]
    """The room with ``player`` joined by code and playing Hudson (c1); Vasquez (c2) is the owner's."""
    code = services.room_code(room)
    assert code is not None
    services.room_join(user=player, code=code.code)
    services.room_act(
        user=owner, room_id=room.pk, type="add_character", payload={"name": "Hudson", "owner": player.pk}, version=0
    )
    services.room_act(user=owner, room_id=room.pk, type="add_character", payload={"name": "Vasquez"}, version=1)
    room.refresh_from_db()
    return room


def test_the_owner_makes_a_player_a_viewer_and_the_log_says_who_changed_whom(seated, owner, player) -> None:  # type: ignore[no-untyped-def]
    membership = services.membership_set_role(user=owner, room_id=seated.pk, user_id=player.pk, role="viewer", version=2)
    assert membership.role == "viewer"
    entry = RoomAction.objects.get(room=seated, version=3)
    assert entry.type == "member_role" and entry.actor == owner
    assert entry.events[0]["text"] == "referee made hudson a viewer (was player)."
    with pytest.raises(NotAllowed, match="You are a viewer"):
        services.room_act(user=player, room_id=seated.pk, type="end_phase", payload={}, version=3)


def test_a_stale_role_change_is_refused_with_the_current_state_and_writes_nothing(seated, owner, player) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(StaleVersion) as refused:
        services.membership_set_role(user=owner, room_id=seated.pk, user_id=player.pk, role="viewer", version=1)
    assert refused.value.extra["version"] == 2 and len(refused.value.extra["state"]["characters"]) == 2
    assert seated.members.get(user=player).role == "player"
    assert not RoomAction.objects.filter(type__startswith="member").exists()


def test_a_bad_role_names_the_field_and_the_allowed_roles(seated, owner, player) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DropshipError) as refused:
        services.membership_set_role(user=owner, room_id=seated.pk, user_id=player.pk, role="owner", version=2)
    assert refused.value.field == "role" and "player, viewer" in refused.value.message
    assert seated.members.get(user=player).role == "player"


def test_a_player_cannot_change_roles_or_remove_others_and_an_outsider_sees_no_room(seated, player, outsider) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotAllowed):
        services.membership_set_role(user=player, room_id=seated.pk, user_id=player.pk, role="viewer", version=2)
    with pytest.raises(NotAllowed):
        services.membership_remove(user=player, room_id=seated.pk, user_id=seated.owner_id, version=2)
    with pytest.raises(NotFound):
        services.membership_remove(user=outsider, room_id=seated.pk, user_id=player.pk, version=2)
    assert seated.members.count() == 2


def test_a_removed_member_loses_access_at_once_and_their_figures_go_back_to_the_owner(seated, owner, player) -> None:  # type: ignore[no-untyped-def]
    room = services.membership_remove(user=owner, room_id=seated.pk, user_id=player.pk, version=2)
    assert not room.members.filter(user=player).exists()
    with pytest.raises(NotFound):
        services.room_act(user=player, room_id=seated.pk, type="end_phase", payload={}, version=room.version)
    assert [c["owner"] for c in room.state["characters"]] == [None, None]
    log = list(room.actions.order_by("version").values_list("type", "actor__username", flat=False))
    assert log[2:] == [("member_remove", "referee"), ("set_owner", "referee")]
    assert room.version == 4
    assert RoomAction.objects.get(room=room, version=3).events[0]["text"] == "referee removed hudson (was player)."


def test_undo_after_a_removal_takes_back_tracker_actions_only_and_replays(seated, owner, player) -> None:  # type: ignore[no-untyped-def]
    room = services.membership_remove(user=owner, room_id=seated.pk, user_id=player.pk, version=2)
    undone = services.room_undo(user=owner, room_id=room.pk, version=room.version)
    # The hand-back was the last tracker action: undo gives Hudson his player id back, the removal stays.
    assert undone.room.state["characters"][0]["owner"] == str(player.pk)
    assert not undone.room.members.filter(user=player).exists()
    again = services.room_undo(user=owner, room_id=room.pk, version=undone.room.version)
    assert [c["name"] for c in again.room.state["characters"]] == ["Hudson"]


def test_a_member_may_leave_and_the_owner_cannot_be_removed(seated, owner, player) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFound, match="owner's place"):
        services.membership_remove(user=owner, room_id=seated.pk, user_id=owner.pk, version=2)
    room = services.membership_remove(user=player, room_id=seated.pk, user_id=player.pk, version=2)
    assert list(room.members.values_list("user__username", flat=True)) == ["referee"]
    assert RoomAction.objects.get(room=room, version=3).events[0]["text"] == "hudson left the table (was player)."


def test_a_join_and_a_removal_publish_one_event_each_after_commit(
    room, owner, player, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    from unittest import mock

    code = services.room_code(room)
    assert code is not None
    with mock.patch("live.services.announce_members") as members, mock.patch("live.services.announce_room") as version:
        with django_capture_on_commit_callbacks(execute=True):
            services.room_join(user=player, code=code.code)
        members.assert_called_once_with(room.pk)
        assert not version.called
        with django_capture_on_commit_callbacks(execute=True):
            services.room_join(user=player, code=code.code)  # already seated: nothing changed, nothing sent
        assert members.call_count == 1
        with django_capture_on_commit_callbacks(execute=True):
            services.membership_remove(user=owner, room_id=room.pk, user_id=player.pk, version=0)
        version.assert_called_once_with(room.pk, 1)
