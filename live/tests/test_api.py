from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def api_owner(owner, threat_tables) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.force_authenticate(owner)
    return client


@pytest.fixture
def room(api_owner: APIClient) -> dict:  # type: ignore[type-arg]
    response = api_owner.post("/api/v1/rooms/", {"kind": "threat", "title": "LV-426"}, format="json")
    assert response.status_code == 201
    return response.json()  # type: ignore[no-any-return]


def test_kinds_list_each_option_with_its_type_allowed_values_bounds_and_default() -> None:
    body = {k["kind"]: k for k in APIClient().get("/api/v1/rooms/kinds/").json()}
    threat = body["threat"]
    assert (threat["title"], threat["app"]) == ("Combat threat and action tracker", "tabletools")
    assert threat["options"] == [
        {
            "name": "threat",
            "label": "Starting combat threat (1-5)",
            "type": "int",
            "default": 3,
            "choices": [],
            "minimum": 1,
            "maximum": 5,
            "help": "",
        }
    ]
    check_die = next(o for o in body["stack"]["options"] if o["name"] == "check_die")
    assert check_die["type"] == "choice" and check_die["default"] == "D100"
    assert {"value": "D100", "label": "D100"} in check_die["choices"]


def test_the_schema_describes_the_kinds_options() -> None:
    schema = APIClient().get("/api/schema/", {"format": "json"}).json()
    option = schema["components"]["schemas"]["OptionField"]["properties"]
    assert {"type", "choices", "minimum", "maximum", "default"} <= set(option)
    kinds = schema["paths"]["/api/v1/rooms/kinds/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert kinds["items"]["$ref"].endswith("/TrackerKind")


def test_create_returns_id_code_kind_title_version_state(room: dict) -> None:  # type: ignore[type-arg]
    assert set(room) >= {"id", "code", "kind", "title", "version", "state"}
    assert room["version"] == 0 and len(room["code"]) == 8


def test_detail_has_members_and_an_etag(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    response = api_owner.get(f"/api/v1/rooms/{room['id']}/")
    assert response["ETag"] == '"0"'
    assert response.json()["members"][0]["role"] == "owner"
    assert api_owner.get(f"/api/v1/rooms/{room['id']}/", HTTP_IF_NONE_MATCH='"0"').status_code == 304


def test_actions_return_version_state_and_log_entry(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    url = f"/api/v1/rooms/{room['id']}/actions/"
    added = api_owner.post(url, {"type": "add_character", "payload": {"name": "Ripley"}, "version": 0}, format="json")
    assert added.status_code == 200
    rolled = api_owner.post(
        url, {"type": "combat_action", "payload": {"characters": ["c1"], "faces": [6, 6]}, "version": 1}, format="json"
    ).json()
    assert rolled["version"] == 2
    assert rolled["log_entry"]["rolls"][0]["faces"] == [6, 6]
    assert rolled["state"]["offer"]["kind"] == "ultra"


def test_a_stale_action_gets_409_with_the_latest(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    url = f"/api/v1/rooms/{room['id']}/actions/"
    api_owner.post(url, {"type": "add_character", "payload": {"name": "Ripley"}, "version": 0}, format="json")
    stale = api_owner.post(url, {"type": "add_character", "payload": {"name": "Hicks"}, "version": 0}, format="json")
    assert stale.status_code == 409
    assert stale.json()["detail"] == "Someone else changed this; here is the latest."
    assert stale.json()["version"] == 1 and stale.json()["state"]["characters"][0]["name"] == "Ripley"


def test_bad_actions_name_the_field(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    bad = api_owner.post(
        f"/api/v1/rooms/{room['id']}/actions/", {"type": "set_threat", "payload": {"level": 9}, "version": 0}, format="json"
    )
    assert bad.status_code == 400 and bad.json() == {"detail": "level must be from 1 to 5; got 9.", "field": "level"}
    missing = api_owner.post(f"/api/v1/rooms/{room['id']}/actions/", {"type": "end_phase"}, format="json")
    assert missing.status_code == 400 and "version" in missing.json()


def test_undo_and_log(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    api_owner.post(
        f"/api/v1/rooms/{room['id']}/actions/",
        {"type": "add_character", "payload": {"name": "Ripley"}, "version": 0},
        format="json",
    )
    undone = api_owner.post(f"/api/v1/rooms/{room['id']}/undo/", {"version": 1}, format="json")
    assert undone.status_code == 200 and undone.json()["state"]["characters"] == []
    log = api_owner.get(f"/api/v1/rooms/{room['id']}/log/").json()["results"]
    assert [e["type"] for e in log] == ["undo", "add_character"] and log[1]["undone"] is True


def test_join_by_code(room: dict, player) -> None:  # type: ignore[no-untyped-def, type-arg]
    client = APIClient()
    client.force_authenticate(player)
    joined = client.post("/api/v1/rooms/join/", {"code": room["code"]}, format="json")
    assert joined.json() == {"room": room["id"], "role": "player"}
    detail = client.get(f"/api/v1/rooms/{room['id']}/").json()
    assert detail["code"] is None  # only the owner sees the code


def test_outsiders_and_guests_get_404(room: dict, outsider) -> None:  # type: ignore[no-untyped-def, type-arg]
    client = APIClient()
    assert client.get(f"/api/v1/rooms/{room['id']}/").status_code == 404
    assert (
        client.post(f"/api/v1/rooms/{room['id']}/actions/", {"type": "end_phase", "version": 0}, format="json").status_code == 401
    )
    client.force_authenticate(outsider)
    assert client.get(f"/api/v1/rooms/{room['id']}/").status_code == 404
    assert (
        client.post(f"/api/v1/rooms/{room['id']}/actions/", {"type": "end_phase", "version": 0}, format="json").status_code == 404
    )
    assert client.get(f"/api/v1/rooms/{room['id']}/log/").status_code == 404


def test_an_action_payload_over_the_limit_is_refused_and_not_stored(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    response = api_owner.post(
        f"/api/v1/rooms/{room['id']}/actions/",
        {"type": "add_character", "payload": {"name": "Ripley", "notes": "x" * 1_000_000}, "version": 0},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["field"] == "payload" and "16384 bytes" in response.json()["detail"]
    assert api_owner.get(f"/api/v1/rooms/{room['id']}/log/").json()["results"] == []


def test_a_nul_character_in_an_action_payload_is_refused_naming_it(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    response = api_owner.post(
        f"/api/v1/rooms/{room['id']}/actions/",
        {"type": "add_character", "payload": {"name": "Rip\u0000ley"}, "version": 0},
        format="json",
    )
    assert response.status_code == 400
    assert "payload.name" in str(response.json())
    assert api_owner.get(f"/api/v1/rooms/{room['id']}/").json()["version"] == 0


def test_an_out_of_range_version_is_refused_naming_the_field(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    response = api_owner.post(
        f"/api/v1/rooms/{room['id']}/actions/", {"type": "end_phase", "payload": {}, "version": 2**40}, format="json"
    )
    assert response.status_code == 400 and "from 0 to 2147483647" in str(response.json()["version"])


@pytest.fixture
def seated_player(room: dict, player) -> APIClient:  # type: ignore[no-untyped-def, type-arg]
    client = APIClient()
    client.force_authenticate(player)
    assert client.post("/api/v1/rooms/join/", {"code": room["code"]}, format="json").status_code == 200
    return client


def test_the_owner_changes_a_members_role_and_the_log_has_it(api_owner: APIClient, room: dict, seated_player, player) -> None:  # type: ignore[no-untyped-def, type-arg]
    url = f"/api/v1/rooms/{room['id']}/members/{player.pk}/"
    changed = api_owner.patch(url, {"role": "viewer", "version": 0}, format="json")
    assert changed.status_code == 200
    body = changed.json()
    assert body["version"] == 1 and {"user_id": player.pk, "role": "viewer"}.items() <= body["members"][1].items()
    log = api_owner.get(f"/api/v1/rooms/{room['id']}/log/").json()["results"]
    assert log[0]["type"] == "member_role" and log[0]["events"][0]["text"] == "referee made hudson a viewer (was player)."


def test_a_bad_role_is_a_400_naming_role_and_the_allowed_values(api_owner: APIClient, room: dict, seated_player, player) -> None:  # type: ignore[no-untyped-def, type-arg]
    bad = api_owner.patch(f"/api/v1/rooms/{room['id']}/members/{player.pk}/", {"role": "admin", "version": 0}, format="json")
    assert bad.status_code == 400 and "player, viewer" in str(bad.json()["role"])


def test_a_stale_member_change_gets_409_with_the_current_state(api_owner: APIClient, room: dict, seated_player, player) -> None:  # type: ignore[no-untyped-def, type-arg]
    api_owner.post(
        f"/api/v1/rooms/{room['id']}/actions/",
        {"type": "add_character", "payload": {"name": "Hicks"}, "version": 0},
        format="json",
    )
    stale = api_owner.delete(f"/api/v1/rooms/{room['id']}/members/{player.pk}/", {"version": 0}, format="json")
    assert stale.status_code == 409 and stale.json()["version"] == 1 and stale.json()["state"]["characters"][0]["name"] == "Hicks"
    assert len(api_owner.get(f"/api/v1/rooms/{room['id']}/").json()["members"]) == 2


def test_a_player_gets_403_and_an_outsider_404_before_their_input_is_read(room: dict, seated_player, owner, outsider) -> None:  # type: ignore[no-untyped-def, type-arg]
    url = f"/api/v1/rooms/{room['id']}/members/{owner.pk}/"
    assert seated_player.patch(url, {"role": "bogus"}, format="json").status_code == 403
    assert seated_player.delete(url, {}, format="json").status_code == 403
    stranger = APIClient()
    stranger.force_authenticate(outsider)
    assert stranger.patch(url, {"role": "bogus"}, format="json").status_code == 404
    assert stranger.delete(url, {}, format="json").status_code == 404
    assert APIClient().delete(url, {"version": 0}, format="json").status_code == 401


def test_the_owner_removes_a_member_who_then_gets_404_and_their_figures_return(
    api_owner: APIClient, room: dict, seated_player, player
) -> None:  # type: ignore[no-untyped-def, type-arg]
    api_owner.post(
        f"/api/v1/rooms/{room['id']}/actions/",
        {"type": "add_character", "payload": {"name": "Hudson", "owner": player.pk}, "version": 0},
        format="json",
    )
    removed = api_owner.delete(f"/api/v1/rooms/{room['id']}/members/{player.pk}/", {"version": 1}, format="json")
    assert removed.status_code == 200
    assert [m["username"] for m in removed.json()["members"]] == ["referee"]
    assert removed.json()["state"]["characters"][0]["owner"] is None and removed.json()["version"] == 3
    assert seated_player.get(f"/api/v1/rooms/{room['id']}/").status_code == 404


def test_a_member_leaves_with_delete_on_themself(room: dict, seated_player, player) -> None:  # type: ignore[no-untyped-def, type-arg]
    left = seated_player.delete(f"/api/v1/rooms/{room['id']}/members/{player.pk}/", {"version": 0}, format="json")
    assert left.status_code == 204
    assert seated_player.get(f"/api/v1/rooms/{room['id']}/").status_code == 404


def test_an_outsider_or_a_viewer_with_bad_action_input_learns_nothing_from_it(room: dict, outsider, player) -> None:  # type: ignore[no-untyped-def, type-arg]
    from live.models import Membership

    Membership.objects.create(room_id=room["id"], user=player, role="viewer")
    for user, status in ((outsider, 404), (player, 403)):
        client = APIClient()
        client.force_authenticate(user)
        for path in ("actions", "undo"):
            url = f"/api/v1/rooms/{room['id']}/{path}/"
            assert client.post(url, {"type": "end_phase"}, format="json").status_code == status  # no version
            assert client.post(url, "{not json", content_type="application/json").status_code == status
            assert client.post(url, {"type": "end_phase", "version": 0}, format="json").status_code == status


def test_the_log_entry_of_an_action_and_an_undo_is_the_log_serializers(api_owner: APIClient, room: dict, owner) -> None:  # type: ignore[no-untyped-def, type-arg]
    from live.apis import LogEntrySerializer
    from live.models import RoomAction

    url = f"/api/v1/rooms/{room['id']}/"
    acted = api_owner.post(
        url + "actions/", {"type": "add_character", "payload": {"name": "Ripley"}, "version": 0}, format="json"
    )
    undone = api_owner.post(url + "undo/", {"version": 1}, format="json")
    entries = RoomAction.objects.filter(room_id=room["id"]).order_by("version")
    assert acted.json()["log_entry"] == LogEntrySerializer(entries[0]).data | {"undone": False}  # undone since
    assert undone.json()["log_entry"] == LogEntrySerializer(entries[1]).data
    assert acted.json()["log_entry"]["actor"] == owner.username


def test_an_action_reads_the_room_once_under_its_lock(api_owner: APIClient, room: dict) -> None:  # type: ignore[type-arg]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = f"/api/v1/rooms/{room['id']}/actions/"
    with CaptureQueriesContext(connection) as queries:
        assert api_owner.post(url, {"type": "end_phase", "version": 0}, format="json").status_code == 200
    sql = [q["sql"] for q in queries.captured_queries]
    assert len([s for s in sql if s.startswith('SELECT "live_room"')]) == 1
    # no actor again; the tables version is read inside the room's statement, and no tables for a reducer that reads none
    assert not [s for s in sql if "auth_user" in s or ("rules_" in s and not s.startswith('SELECT "live_room"'))]


def test_a_reducer_reading_tables_costs_no_query_of_its_own(api_owner: APIClient) -> None:
    """The rule tables' version is read in the statement that locks the room; the tables come
    from memory: a Bug Hunt action queries no rules table by itself."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.tables import load_system_tables

    load_system_tables("bughunt")
    options = {"main_characters": "Ripley, Hicks"}
    made = api_owner.post("/api/v1/rooms/", {"kind": "bughunt-mission", "title": "LZ", "options": options}, format="json")
    assert made.status_code == 201, made.content
    figure = made.json()["state"]["units"][0]["figures"][0]["id"]
    url = f"/api/v1/rooms/{made.json()['id']}/actions/"
    stun = {"type": "adjust", "payload": {"figure": figure, "stun": 1}}
    assert api_owner.post(url, {**stun, "version": 0}, format="json").status_code == 200  # warms this process's tables
    with CaptureQueriesContext(connection) as queries:
        response = api_owner.post(url, {**stun, "version": 1}, format="json")
    assert response.status_code == 200, response.content
    sql = [q["sql"] for q in queries.captured_queries]
    room_reads = [s for s in sql if s.startswith('SELECT "live_room"')]
    assert len(room_reads) == 1 and "rules_tablesversion" in room_reads[0]
    assert not [s for s in sql if "rules_" in s and s not in room_reads]
