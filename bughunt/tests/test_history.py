"""Undo, export and import of a Bug Hunt squad through the services and the API: undo takes back
the last change whatever it was (set-up, post-battle, edit) from what the change kept, with the
role and version checks of every write; an export imported as a new squad exports the same."""

from __future__ import annotations

import copy
import importlib
import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bughunt import documents, history_services, member_services, postbattle_services, services
from bughunt.models import LogEntry, Mission, Squad, SquadJob, Trooper
from bughunt.tests.test_coop_api import client_for
from bughunt.tests.versions import mission_version, squad_version
from live import services as live_services
from live.models import Room
from rules.errors import DropshipError, NotAllowed, NotFound, StaleVersion
from tests.factories import UserFactory

pytestmark = pytest.mark.usefixtures("bughunt_tables")


@pytest.fixture(autouse=True)
def _jobs_run_in_process(settings: Any) -> None:
    """Export and import jobs run in this process, as in local play, with or without REDIS_URL
    (CI sets one; campaigns/tests/test_jobs.py does the same)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def squad(player: Any) -> Squad:
    return services.squad_create(user=player, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=3)


def played(user: Any, squad: Squad) -> Mission:
    """A mission created, loaded out, played to its end and through the post-battle sequence."""
    mission = services.mission_create(user=user, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    loadout = {str(t.pk): "Shot gun" for t in services.available_troopers(squad)}
    first = next(iter(loadout))
    services.mission_loadout(
        user=user, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout, hand_cannon=first
    )
    mission = services.mission_start(user=user, mission_id=mission.pk, version=mission_version(mission.pk))
    room = Room.objects.get(pk=int(mission.room_id or 0))
    live_services.room_act(user=user, room_id=room.pk, type="end_mission", payload={}, version=room.version, seed=1)
    return postbattle_services.mission_finish(
        user=user, mission_id=mission.pk, version=mission_version(mission.pk), in_charge="Hicks", seed=4
    )


def ended(user: Any, squad: Squad) -> Mission:
    """A mission created, loaded out and played to its end at the tracker, before the post-battle."""
    mission = services.mission_create(user=user, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    loadout = {str(t.pk): "Shot gun" for t in services.available_troopers(squad)}
    services.mission_loadout(user=user, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    mission = services.mission_start(user=user, mission_id=mission.pk, version=mission_version(mission.pk))
    room = Room.objects.get(pk=int(mission.room_id or 0))
    live_services.room_act(user=user, room_id=room.pk, type="end_mission", payload={}, version=room.version, seed=1)
    return mission


def undo(user: Any, squad: Squad) -> str:
    return history_services.squad_undo(user=user, squad_id=squad.pk, version=squad_version(squad.pk))


def test_undo_takes_back_a_set_up_step_and_strikes_its_lines(player: Any, squad: Squad) -> None:
    mission = services.mission_create(user=player, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    before = documents.snapshot(Squad.objects.get(pk=squad.pk))
    loadout = {str(t.pk): "Combat rifle" for t in services.available_troopers(squad)}
    services.mission_loadout(user=player, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    assert Mission.objects.get(pk=mission.pk).setup["loadout"] == loadout
    undone = undo(player, squad)
    assert undone.startswith("Loadout:")
    assert Mission.objects.get(pk=mission.pk).setup["loadout"] == {}
    assert documents.snapshot(Squad.objects.get(pk=squad.pk)) == before
    line = LogEntry.objects.get(squad=squad, step="mission: loadout")
    assert line.undone
    assert LogEntry.objects.filter(squad=squad, step="undo", text__startswith="Undid: Loadout").exists()
    # the next undo takes back the mission's creation, not the undo
    undo(player, squad)
    assert not Mission.objects.filter(squad=squad).exists()
    assert LogEntry.objects.filter(squad=squad, step__startswith="mission", undone=True).count() >= 2


def test_undo_takes_back_the_post_battle_sequence(player: Any, squad: Squad) -> None:
    mission = ended(player, squad)
    before = documents.snapshot(Squad.objects.get(pk=squad.pk))
    postbattle_services.mission_finish(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), in_charge="Hicks", seed=4
    )
    assert Mission.objects.get(pk=mission.pk).stage == "done"
    undo(player, squad)
    assert Mission.objects.get(pk=mission.pk).stage == "in_play"
    assert documents.snapshot(Squad.objects.get(pk=squad.pk)) == before
    assert Mission.objects.get(pk=mission.pk).post_battle == {}


def test_undo_takes_back_an_edit_and_refuses_when_nothing_is_left(player: Any, squad: Squad) -> None:
    services.squad_update(user=player, squad_id=squad.pk, version=squad_version(squad.pk), name="Renamed", signals=True)
    undo(player, squad)
    squad.refresh_from_db()
    assert (squad.name, squad.signals) == ("Kilo", False)
    with pytest.raises(DropshipError, match="Nothing to undo") as caught:
        undo(player, squad)  # the creation of the squad is not a change an undo takes back
    assert caught.value.field == "log"


def test_undo_checks_the_version_and_the_role(player: Any, squad: Squad) -> None:
    services.squad_update(user=player, squad_id=squad.pk, version=squad_version(squad.pk), name="Renamed")
    stale = squad_version(squad.pk) - 1
    with pytest.raises(StaleVersion):
        history_services.squad_undo(user=player, squad_id=squad.pk, version=stale)
    reader, editor, stranger = (UserFactory.create(username=n) for n in ("gorman", "apone", "burke2"))
    member_services.member_invite(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), username="gorman", role="reader"
    )
    with pytest.raises(NotAllowed):
        undo(reader, squad)
    with pytest.raises(NotFound):
        undo(stranger, squad)
    # a member change is changed back on its own screen: it stops an undo past it
    with pytest.raises(DropshipError, match="members screen"):
        undo(player, squad)
    member_services.member_invite(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), username="apone", role="editor"
    )
    services.squad_update(user=player, squad_id=squad.pk, version=squad_version(squad.pk), signals=True)
    assert undo(editor, squad).startswith("Squad changed")
    assert Squad.objects.get(pk=squad.pk).signals is False


def test_a_change_keeps_only_the_open_missions(player: Any, squad: Squad) -> None:
    played(player, squad)
    squad.refresh_from_db()
    snap = documents.snapshot(squad)
    assert len(snap["mission_ids"]) == 1 and snap["missions"] == []


def test_export_import_export_gives_the_same_document(player: Any, other: Any, squad: Squad) -> None:
    played(player, squad)
    services.squad_update(user=player, squad_id=squad.pk, version=squad_version(squad.pk), name="Kilo Two")
    first = history_services.squad_export(user=player, squad_id=squad.pk)
    assert first["missions"][0]["setup"]["hand_cannon"] in {"1", "2", "3"}
    assert all(line.get("data", {}).get("room") is None for line in first["log"])
    made = history_services.squad_import(user=other, doc=json.loads(json.dumps(first)))
    assert made.owner == other and made.pk != squad.pk
    assert {t.pk for t in made.troopers.all()}.isdisjoint({t.pk for t in squad.troopers.all()})
    second = history_services.squad_export(user=other, squad_id=made.pk)
    assert second == first
    loadout = made.missions.get().setup["loadout"]
    assert set(loadout) == {str(pk) for pk in made.troopers.values_list("pk", flat=True)}
    with pytest.raises(DropshipError):
        undo(other, made)  # an import starts with nothing to undo


def test_an_older_export_keeps_its_undone_table_lines(player: Any, other: Any, squad: Squad) -> None:
    """Exports made before the table's undo mark moved to the line's ``undone`` field carry it in
    ``data["undone"]``: the import takes it from there."""
    played(player, squad)
    doc = history_services.squad_export(user=player, squad_id=squad.pk)
    table = [i for i, line in enumerate(doc["log"]) if line["step"].startswith(documents.TABLE_STEP)]
    assert table
    for i in table:
        doc["log"][i]["data"]["undone"] = i == table[0]
    doc["log"][table[0]]["undone"] = True  # marked both ways: the data mark still goes
    made = history_services.squad_import(user=other, doc=doc)
    lines = list(made.log.filter(step__startswith=documents.TABLE_STEP).order_by("id"))
    assert [line.undone for line in lines] == [i == table[0] for i in table]
    assert not any("undone" in line.data for line in lines)


def test_the_migration_moves_the_table_undo_mark_to_the_field(player: Any, squad: Squad) -> None:
    from django.apps import apps

    move_mark = importlib.import_module("bughunt.migrations.0004_tracker_undone_field").move_mark
    marked = {
        mark: LogEntry.objects.create(
            squad=squad, turn=1, step="tracker: shoot", text=str(mark), data={"type": "x", "undone": mark}
        )
        for mark in (True, False)
    }
    squad_undone = LogEntry.objects.create(squad=squad, turn=1, step="edit", text="kept", undone=True)
    move_mark(apps, None)
    assert {mark: LogEntry.objects.get(pk=line.pk).undone for mark, line in marked.items()} == {True: True, False: False}
    assert all(LogEntry.objects.get(pk=line.pk).data == {"type": "x"} for line in marked.values())
    assert LogEntry.objects.get(pk=squad_undone.pk).undone


@pytest.mark.parametrize(
    ("spoil", "field"),
    [
        (lambda d: d.update(format="dropship-campaign"), "format"),
        (lambda d: d["squad"].pop("reputation"), "squad.reputation"),
        (lambda d: d["troopers"][1].update(speed="fast"), "troopers[1].speed"),
        (lambda d: d["troopers"][0].update(status="immortal"), "troopers[0].status"),
        (lambda d: d["missions"][0].update(stage="won"), "missions[0].stage"),
        (lambda d: d["log"][2].update(mission=99), "log[2].mission"),
        (lambda d: d["troopers"][2].update(ref=1), "troopers[2].ref"),
        (lambda d: d["missions"][0]["setup"].update(hand_cannon="7"), "missions[0].setup"),
        (lambda d: d["log"][0]["data"].update(trooper=12), "log[0].data"),
    ],
)
def test_a_bad_document_names_the_field_and_writes_nothing(player: Any, other: Any, squad: Squad, spoil: Any, field: str) -> None:
    played(player, squad)
    doc = copy.deepcopy(history_services.squad_export(user=player, squad_id=squad.pk))
    spoil(doc)
    counts = (Squad.objects.count(), Trooper.objects.count(), LogEntry.objects.count(), Room.objects.count())
    with pytest.raises(DropshipError) as caught:
        history_services.squad_import(user=other, doc=doc)
    assert caught.value.field == field and field in caught.value.message
    response = client_for(other).post("/api/v1/bughunt/squads/import/", doc, format="json")
    assert response.status_code == 400 and response.json()["field"] == field
    assert (Squad.objects.count(), Trooper.objects.count(), LogEntry.objects.count(), Room.objects.count()) == counts
    assert not SquadJob.objects.exists()


# -- the API ------------------------------------------------------------------------------------------


def test_undo_over_the_api(player: Any, squad: Squad) -> None:
    client = client_for(player)
    services.squad_update(user=player, squad_id=squad.pk, version=squad_version(squad.pk), name="Renamed")
    stale = client.post(f"/api/v1/bughunt/squads/{squad.pk}/undo/", {"version": squad_version(squad.pk) - 1}, format="json")
    assert stale.status_code == 409
    done = client.post(f"/api/v1/bughunt/squads/{squad.pk}/undo/", {"version": squad_version(squad.pk)}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["version"] == squad_version(squad.pk) and done.json()["undone"].startswith("Squad changed")
    assert Squad.objects.get(pk=squad.pk).name == "Kilo"
    nothing = client.post(f"/api/v1/bughunt/squads/{squad.pk}/undo/", {"version": squad_version(squad.pk)}, format="json")
    assert nothing.status_code == 400 and nothing.json()["field"] == "log"


def test_undo_api_role_checks(player: Any, squad: Squad) -> None:
    reader, stranger = UserFactory.create(username="gorman"), UserFactory.create(username="carter")
    member_services.member_invite(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), username="gorman", role="reader"
    )
    body = {"version": squad_version(squad.pk)}
    assert client_for(reader).post(f"/api/v1/bughunt/squads/{squad.pk}/undo/", body, format="json").status_code == 403
    assert client_for(stranger).post(f"/api/v1/bughunt/squads/{squad.pk}/undo/", body, format="json").status_code == 404
    assert client_for(stranger).post(f"/api/v1/bughunt/squads/{squad.pk}/export/", format="json").status_code == 404


def test_export_and_import_jobs_over_the_api(
    player: Any, other: Any, squad: Squad, django_capture_on_commit_callbacks: Any
) -> None:
    played(player, squad)
    with django_capture_on_commit_callbacks(execute=True):
        started = client_for(player).post(f"/api/v1/bughunt/squads/{squad.pk}/export/", format="json")
    assert started.status_code == 202, started.content
    job = client_for(player).get(f"/api/v1/bughunt/squad-jobs/{started.json()['id']}/").json()
    assert job["state"] == "done" and job["progress"] == 100 and job["squad"] == squad.pk
    document = job["document"]
    assert document["format"] == documents.FORMAT and len(document["troopers"]) == 3
    assert client_for(other).get(f"/api/v1/bughunt/squad-jobs/{started.json()['id']}/").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        imported = client_for(other).post("/api/v1/bughunt/squads/import/", {"text": json.dumps(document)}, format="json")
    assert imported.status_code == 202, imported.content
    job = client_for(other).get(f"/api/v1/bughunt/squad-jobs/{imported.json()['id']}/").json()
    assert job["state"] == "done" and job["squad"] and job["document"] is None
    made = Squad.objects.get(pk=job["squad"])
    assert made.owner == other and history_services.squad_export(user=other, squad_id=made.pk) == document


# -- the screens ---------------------------------------------------------------------------------------


def browser_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_squad_page_undoes_the_last_change(player: Any, squad: Squad) -> None:
    browser = browser_for(player)
    assert 'data-testid="undo"' not in browser.get(reverse("bughunt:squad", args=[squad.pk])).content.decode()
    services.squad_update(user=player, squad_id=squad.pk, version=squad_version(squad.pk), name="Renamed")
    page = browser.get(reverse("bughunt:squad", args=[squad.pk])).content.decode()
    assert 'data-testid="undo-bar"' in page and "Squad changed: name." in page
    stale = browser.post(reverse("bughunt:undo", args=[squad.pk]), {"version": squad_version(squad.pk) - 1})
    assert stale.status_code == 409 and 'data-testid="roster"' in stale.content.decode()  # the page stays whole
    done = browser.post(reverse("bughunt:undo", args=[squad.pk]), {"version": squad_version(squad.pk)})
    assert done.status_code == 302 and Squad.objects.get(pk=squad.pk).name == "Kilo"
    log = browser.get(reverse("bughunt:squad_log", args=[squad.pk])).content.decode()
    assert "<s>Squad changed: name.</s>" in log and "Undid: Squad changed: name." in log


def test_a_reader_sees_no_undo_and_may_not(player: Any, squad: Squad) -> None:
    reader = UserFactory.create(username="gorman")
    member_services.member_invite(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), username="gorman", role="reader"
    )
    services.squad_update(user=player, squad_id=squad.pk, version=squad_version(squad.pk), name="Renamed")
    browser = browser_for(reader)
    assert 'data-testid="undo"' not in browser.get(reverse("bughunt:squad", args=[squad.pk])).content.decode()
    refused = browser.post(reverse("bughunt:undo", args=[squad.pk]), {"version": squad_version(squad.pk)})
    assert refused.status_code == 403 and Squad.objects.get(pk=squad.pk).name == "Renamed"


def test_export_and_import_on_the_screens(player: Any, other: Any, squad: Squad, django_capture_on_commit_callbacks: Any) -> None:
    played(player, squad)
    with django_capture_on_commit_callbacks(execute=True):
        started = browser_for(player).post(reverse("bughunt:export", args=[squad.pk]))
    job = SquadJob.objects.get()
    assert started.status_code == 302 and started["Location"] == reverse("bughunt:job", args=[job.pk])
    page = browser_for(player).get(started["Location"]).content.decode()
    assert 'data-state="done"' in page and 'data-testid="download"' in page
    download = browser_for(player).get(reverse("bughunt:job_download", args=[job.pk]))
    assert download.status_code == 200 and "kilo" in download["Content-Disposition"]
    text = download.content.decode()
    assert browser_for(other).get(reverse("bughunt:job_download", args=[job.pk])).status_code == 404
    bad = json.loads(text)
    bad["troopers"][0]["xp"] = 2.5
    refused = browser_for(other).post(reverse("bughunt:import"), {"text": json.dumps(bad)})
    assert refused.status_code == 400 and "troopers[0].xp" in refused.content.decode()
    assert not Squad.objects.filter(owner=other).exists()
    with django_capture_on_commit_callbacks(execute=True):
        imported = browser_for(other).post(reverse("bughunt:import"), {"text": text})
    assert imported.status_code == 302
    page = browser_for(other).get(imported["Location"]).content.decode()
    made = Squad.objects.get(owner=other)
    assert 'data-testid="open-squad"' in page and made.name in page
    assert history_services.squad_export(user=other, squad_id=made.pk) == json.loads(text)


# PostgreSQL keeps a JSON number's decimal value, not Python's float type: 6.240479438326453e+16 comes
# back as the integer 62404794383264530. Floats stay below 1e15, where repr() writes no exponent and
# the value round-trips as a float; the infinities are drawn on their own (they must be refused).
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(min_value=-1e15, max_value=1e15, allow_nan=False)
    | st.sampled_from([float("inf"), float("-inf")])
    | st.text(max_size=90),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_value_anywhere_is_imported_or_refused_naming_its_field(player: Any, other: Any, squad: Squad, data: Any) -> None:
    if not squad.missions.exists():
        services.mission_create(user=player, squad_id=squad.pk, version=squad_version(squad.pk), seed=2)
    doc = copy.deepcopy(history_services.squad_export(user=player, squad_id=squad.pk))
    section = data.draw(st.sampled_from(["squad", "troopers", "missions", "log"]))
    row = doc["squad"] if section == "squad" else data.draw(st.sampled_from(doc[section]))
    key = data.draw(st.sampled_from(sorted(row)))
    row[key] = data.draw(JSON_VALUES)
    before = (Squad.objects.count(), Trooper.objects.count(), LogEntry.objects.count())
    try:
        made = history_services.squad_import(user=other, doc=doc)
    except DropshipError as exc:
        assert (
            exc.status == 400 and exc.field and exc.field.split(".")[0].split("[")[0] in {"squad", "troopers", "missions", "log"}
        )
        assert (Squad.objects.count(), Trooper.objects.count(), LogEntry.objects.count()) == before
    else:  # a value of the right type: the import keeps it as it was given
        assert history_services.squad_export(user=other, squad_id=made.pk) == doc


def test_a_post_battle_step_is_undone_from_the_mission_page_and_shown_there(player: Any, squad: Squad) -> None:
    """The mission page, where the post-battle sequence is played, has the Undo bar; rolling
    step 1 and undoing it both answer with that page scrolled to step 1 (a phone sees the result
    where it tapped); an Undo from the squad page still goes back to the squad page."""

    mission = ended(player, squad)
    client = Client()
    client.force_login(player)
    page = f"/bughunt/missions/{mission.pk}/"
    rolled = client.post(f"{page}casualties/", {"version": squad_version(squad.pk)})
    assert rolled.status_code == 302 and rolled["Location"] == f"{page}#casualties"
    shown = client.get(page).content.decode()
    assert 'data-testid="undo-bar"' in shown and "post-battle: 1. casualties rolled" in shown
    assert f'name="mission" value="{mission.pk}"' in shown
    undone = client.post(f"/bughunt/{squad.pk}/undo/", {"version": squad_version(squad.pk), "mission": mission.pk})
    assert undone.status_code == 302 and undone["Location"] == f"{page}#casualties"
    assert (Mission.objects.get(pk=mission.pk).post_battle or {}).get("casualties") is None
    assert "Undid: No casualties" in client.get(page).content.decode()
    services.squad_update(user=player, squad_id=squad.pk, version=squad_version(squad.pk), name="Kilo Two")
    back = client.post(f"/bughunt/{squad.pk}/undo/", {"version": squad_version(squad.pk)})
    assert back["Location"] == f"/bughunt/{squad.pk}/"
