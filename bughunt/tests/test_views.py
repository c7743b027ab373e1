"""The Bug Hunt screens: squads, the squad page, the log and the mission wizard."""

from __future__ import annotations

import pytest
from django.test import Client

from bughunt.models import Squad
from tests.html_forms import forms_of

pytestmark = pytest.mark.usefixtures("bughunt_tables")


@pytest.fixture
def client(player) -> Client:  # type: ignore[no-untyped-def]
    c = Client()
    c.force_login(player)
    return c


def new_squad(client: Client) -> Squad:
    response = client.post(
        "/bughunt/new/",
        {"name": "Kilo", "character_1": "Vasquez", "character_2": "Hicks", "character_3": "Hudson", "difficulty": "Mess Me Up"},
    )
    assert response.status_code == 302
    return Squad.objects.get(name="Kilo")


def test_anonymous_visitors_are_sent_to_log_in() -> None:
    response = Client().get("/bughunt/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_create_a_squad_and_see_its_roster(client: Client) -> None:
    squad = new_squad(client)
    page = client.get(f"/bughunt/{squad.pk}/").content.decode()
    for name in ("Vasquez", "Hicks", "Hudson", squad.regiment):
        assert name in page
    assert "Marksman training" in page  # the Special Assignments open to them
    listing = client.get("/bughunt/?q=kilo").content.decode()
    assert "Kilo" in listing


def test_a_missing_name_comes_back_with_the_field_named_and_nothing_saved(client: Client) -> None:
    response = client.post("/bughunt/new/", {"name": "Kilo", "character_1": "Vasquez", "character_2": "Hicks"})
    assert response.status_code == 400
    assert "character_names" in response.content.decode()
    assert not Squad.objects.exists()


def test_the_mission_wizard_walks_from_set_up_to_the_tracker(client: Client) -> None:
    squad = new_squad(client)
    response = client.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad.version, "objective_faces": "3, 3, 6"})
    assert response.status_code == 302
    mission = squad.missions.get()
    page = client.get(f"/bughunt/missions/{mission.pk}/").content.decode()
    assert "Vital Objective" in page and "Loadout" in page
    squad.refresh_from_db()
    loadout = {f"weapon_{t.pk}": "Shot gun" for t in squad.troopers.all()}
    assert client.post(f"/bughunt/missions/{mission.pk}/loadout/", {"version": squad.version, **loadout}).status_code == 302
    squad.refresh_from_db()
    response = client.post(f"/bughunt/missions/{mission.pk}/start/", {"version": squad.version})
    mission.refresh_from_db()
    assert mission.stage == "in_play" and mission.room is not None
    assert response["Location"] == f"/rooms/{mission.room.pk}/"
    room_page = client.get(response["Location"]).content.decode()
    assert "Vasquez" in room_page


def test_a_stale_form_is_refused_with_409(client: Client) -> None:
    squad = new_squad(client)
    response = client.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad.version + 5})
    assert response.status_code == 409
    assert "reload" in response.content.decode()
    assert not squad.missions.exists()


def test_the_log_filters_by_step(client: Client) -> None:
    squad = new_squad(client)
    client.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad.version})
    everything = client.get(f"/bughunt/{squad.pk}/log/").content.decode()
    only_creation = client.get(f"/bughunt/{squad.pk}/log/?step=creation").content.decode()
    assert "Objectives:" in everything and "Objectives:" not in only_creation
    assert "Regiment:" in only_creation


def test_another_players_squad_is_404(client: Client, other) -> None:  # type: ignore[no-untyped-def]
    squad = new_squad(client)
    stranger = Client()
    stranger.force_login(other)
    assert stranger.get(f"/bughunt/{squad.pk}/").status_code == 404
    assert stranger.post(f"/bughunt/{squad.pk}/missions/new/", {}).status_code == 404


def test_the_referee_hands_a_unit_to_a_player_at_the_table(client: Client, other) -> None:  # type: ignore[no-untyped-def]
    from bughunt import services
    from bughunt.tests.versions import mission_version, squad_version
    from live import services as live_services

    squad = new_squad(client)
    mission = services.mission_create(user=squad.owner, squad_id=squad.pk, version=squad_version(squad.pk), seed=1)
    loadout = {str(t.pk): "Shot gun" for t in squad.troopers.all()}
    services.mission_loadout(user=squad.owner, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    mission = services.mission_start(user=squad.owner, mission_id=mission.pk, version=mission_version(mission.pk))
    room = mission.room
    assert room is not None
    code = live_services.room_code(room)
    assert code is not None
    live_services.room_join(user=other, code=code.code)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert "played by burke" in page
    unit = room.state["units"][0]
    live_services.room_act(
        user=squad.owner, room_id=room.pk, type="set_player", payload={"unit": unit["id"], "player": str(other.pk)}, version=0
    )
    live_services.room_act(user=squad.owner, room_id=room.pk, type="roll_reactions", payload={}, version=1)
    result = live_services.room_act(
        user=other, room_id=room.pk, type="assign_reaction", payload={"unit": unit["id"], "die": 1}, version=2
    )
    assert result.room.state["units"][0]["face"] is not None
    phone = Client()
    phone.force_login(other)
    assert "yours" in phone.get(f"/rooms/{room.pk}/").content.decode()


def test_a_standalone_mission_table_from_the_rooms_page(player) -> None:  # type: ignore[no-untyped-def]
    from live import services as live_services
    from rules.errors import DropshipError

    with pytest.raises(DropshipError) as caught:
        live_services.room_create(user=player, kind="bughunt-mission", title="Quick", options={"priority": "9"})
    assert caught.value.field == "priority"
    with pytest.raises(DropshipError) as caught:
        live_services.room_create(user=player, kind="bughunt-mission", title="Quick", options={"difficulty": "Easy"})
    assert caught.value.field == "difficulty" and "Living Nightmare" in caught.value.message
    room = live_services.room_create(
        user=player, kind="bughunt-mission", title="Quick", options={"priority": "4", "main_characters": "Ripley, Hicks"}
    )
    assert room.state["priority"] == 4 and [u["name"] for u in room.state["units"]][:2] == ["Ripley", "Hicks"]


def test_the_mission_page_shows_contacts_and_success_from_the_engine(client: Client) -> None:
    from bughunt.engine import missions

    squad = new_squad(client)
    client.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad.version, "objective_faces": "3, 3, 6"})
    mission = squad.missions.get()
    page = client.get(f"/bughunt/missions/{mission.pk}/").content.decode()
    contacts = missions.starting_contacts(mission.setup)
    assert f"<small>Contacts</small><strong>{contacts}</strong>" in page
    assert f"and {missions.center_contacts(mission.setup)} at the center" in page
    mission.stage, mission.post_battle = "done", {"steps": []}
    for done, shown in ((2, "2 Objective points: success"), (1, "1 Objective point</header>")):
        mission.outcome = {"objectives_completed": done}
        mission.save()
        page = client.get(f"/bughunt/missions/{mission.pk}/").content.decode()
        assert shown in page


def test_a_special_assignment_takes_the_same_input_on_the_page_and_in_the_api(client: Client, player) -> None:  # type: ignore[no-untyped-def]
    """One input schema (bughunt.inputs.AssignmentInput): the form's "5, 4" and the API's [5, 4]
    are the same dice; a trooper that is no number is refused naming ``trooper`` on both."""
    from rest_framework.test import APIClient

    from bughunt.models import LogEntry

    api = APIClient()
    api.force_authenticate(player)
    squad = new_squad(client)
    hicks, hudson = squad.troopers.get(name="Hicks"), squad.troopers.get(name="Hudson")
    page = f"/bughunt/{squad.pk}/assignment/"
    refused = client.post(
        page, {"version": squad.version, "trooper": "Hicks", "assignment": "Physical training", "faces": "5, 4"}
    )
    assert refused.status_code == 400 and "trooper: " in refused.content.decode()
    refused_api = api.post(
        f"/api/v1/bughunt/squads/{squad.pk}/assignments/",
        {"version": squad.version, "trooper": "Hicks", "assignment": "Physical training", "faces": [5, 4]},
        format="json",
    )
    assert refused_api.status_code == 400 and "trooper" in refused_api.json()
    squad.refresh_from_db()
    done = client.post(page, {"version": squad.version, "trooper": hicks.pk, "assignment": "Physical training", "faces": "5, 4"})
    assert done.status_code == 302, done.content.decode()[:2000]
    squad.refresh_from_db()
    done_api = api.post(
        f"/api/v1/bughunt/squads/{squad.pk}/assignments/",
        {"version": squad.version, "trooper": hudson.pk, "assignment": "Physical training", "faces": [5, 4]},
        format="json",
    )
    assert done_api.status_code == 200, done_api.content
    rolls = [
        e.rolls[0]["faces"] for e in LogEntry.objects.filter(squad=squad, step__startswith="special").order_by("id") if e.rolls
    ]
    assert rolls[-2:] == [[5, 4], [5, 4]]


def test_the_forms_and_the_api_share_one_input_per_operation(client: Client) -> None:
    """The same serializers (bughunt.inputs) read a form's text, blanks and ticked boxes and the
    API's JSON: a form's blank choice is "none", a bad value is refused naming the field."""
    from rest_framework.test import APIClient

    squad = new_squad(client)
    refused = client.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad.version, "reputation_spent": "3"})
    assert refused.status_code == 400
    assert "reputation_spent: Must be a whole number from -2 to 2." in refused.content.decode()
    refused = client.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad.version, "objective_faces": "3, x"})
    assert refused.status_code == 400 and "objective_faces" in refused.content.decode()
    created = client.post(
        f"/bughunt/{squad.pk}/missions/new/",
        {"version": squad.version, "difficulty": "", "reputation_spent": "", "objective_faces": "3, 3, 6"},
    )
    assert created.status_code == 302
    mission = squad.missions.get()
    squad.refresh_from_db()
    support = {"version": squad.version, "option": "Sarge", "faces": "9, 9"}
    refused = client.post(f"/bughunt/missions/{mission.pk}/support/", support)
    assert refused.status_code == 400 and "faces" in refused.content.decode()
    kept = forms_of(refused.content.decode())[f"/bughunt/missions/{mission.pk}/support/"]  # what was typed stays
    assert kept["option"] == ["Sarge"] and kept["faces"] == ["9, 9"] and kept["extra_support_card"] == []
    api = APIClient()
    api.force_authenticate(squad.owner)
    body = {"version": squad.version, "loadout": {str(t.pk): "Boarding sword" for t in squad.troopers.all()}}
    assert api.post(f"/api/v1/bughunt/missions/{mission.pk}/loadout/", body, format="json").status_code == 200
    squad.refresh_from_db()
    refused = client.post(f"/bughunt/missions/{mission.pk}/start/", {"version": squad.version, "guests_can_watch": "maybe"})
    assert refused.status_code == 400 and "guests_can_watch" in refused.content.decode()
    assert (
        client.post(f"/bughunt/missions/{mission.pk}/start/", {"version": squad.version, "guests_can_watch": "yes"}).status_code
        == 302
    )
    mission.refresh_from_db()
    assert mission.room is not None and mission.room.guests_can_watch


def test_squad_settings_take_the_form_as_the_input_reads_it(client: Client) -> None:
    squad = new_squad(client)
    refused = client.post(f"/bughunt/{squad.pk}/settings/", {"version": squad.version, "difficulty": "Easy peasy"})
    assert refused.status_code == 400 and "difficulty: Must be one of:" in refused.content.decode()
    changed = client.post(f"/bughunt/{squad.pk}/settings/", {"version": squad.version, "name": "Lima", "signals": "on"})
    assert changed.status_code == 302
    squad.refresh_from_db()
    assert squad.name == "Lima" and squad.signals and not squad.escalation
    refused = client.post(f"/bughunt/{squad.pk}/settings/", {"version": squad.version, "name": " "})
    assert refused.status_code == 400 and "name" in refused.content.decode()
