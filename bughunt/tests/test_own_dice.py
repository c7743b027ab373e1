"""Your own dice everywhere (issue 22, item 6): every roll of character creation, mission
generation and the post-battle sequence takes the player's typed faces, through the services,
the API and the screens. Typed faces give the row the book's table gives for them (page cited);
a wrong count or a face the die cannot show is refused naming the field and the faces allowed,
and nothing is written. Typed dice are logged with their reason, marked typed (``entered``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from bughunt import postbattle_services, selectors, services
from bughunt.engine import characters
from bughunt.models import LogEntry, Mission, Squad
from bughunt.tests.versions import mission_version, squad_version
from live import services as live_services
from live.models import Room
from rules.engine.dice import DiceError, FedDice
from rules.engine.tables import RangeTable
from rules.errors import DropshipError
from rules.fixturefiles import read_all
from tests.html_forms import forms_of

pytestmark = pytest.mark.usefixtures("bughunt_tables")

NAMES = ["Vasquez", "Hicks", "Hudson"]


def _refused(call: Any, field: str, *words: str, **kwargs: Any) -> DropshipError:
    with pytest.raises(DropshipError) as caught:
        call(**kwargs)
    assert caught.value.field == field, caught.value.message
    for word in words:
        assert word in caught.value.message
    return caught.value


# -- the feeding dice ----------------------------------------------------------------------------


def test_fed_dice_hand_out_the_faces_in_order_and_name_the_next_roll_when_short() -> None:
    dice = FedDice([3, 5, 7], field="edge_faces")
    pair = dice.roll("2D6", "pair")
    assert pair.faces == (3, 5) and pair.total == 8 and pair.entered and pair.reason == "pair"
    assert dice.roll("D12", "edge").total == 7
    dice.check_used()
    with pytest.raises(DiceError) as short:
        FedDice([4], field="x").roll("2D6", "Priority")
    assert short.value.field == "x" and "2D6 (Priority) needs 2 face(s) of 1-6" in short.value.message
    with pytest.raises(DiceError) as wrong:
        FedDice([7], field="x").roll("D6", "Signals")
    assert wrong.value.field == "x" and "A D6 shows 1 to 6; got 7" in wrong.value.message
    extra = FedDice([1, 2], field="y")
    assert extra.roll("D6").entered
    with pytest.raises(DiceError, match="too many") as left:
        extra.check_used()
    assert left.value.field == "y"


# -- character creation (pp.171-173) ------------------------------------------------------------


def test_typed_regiment_and_character_dice_give_the_tables_rows(player) -> None:  # type: ignore[no-untyped-def]
    """p.173: 75 on part 1 is "[number]": a D6 ordinal (3: 3rd) and part 1 again (5: Flying);
    15 on part 2 is Wolves; 35 on the uniform column is Green. pp.171-172 for Hicks: 45
    Struggling colony (+1 Toughness), 12 Ground forces (Infantry) (+1 Combat Skill, +1
    Toughness), 95 Extended campaign (+2 XP, +1 Reputation, 2 Completed Missions, a Combat
    Operation), and the commendation D6s 6 and 2 give one commendation (+1 XP, +1 Reputation)."""
    squad = services.squad_create(
        user=player,
        name="Kilo",
        character_names=NAMES,
        regiment_faces="75, 3, 5, 15, 35",
        character_faces={"Hicks": [45, 12, 95, 6, 2]},
        seed=1,
    )
    assert squad.regiment == "3rd Flying Wolves" and squad.uniform == "Green"
    hicks = squad.troopers.get(name="Hicks")
    assert (hicks.origin, hicks.basic_training, hicks.service_history) == (
        "Struggling colony",
        "Ground forces (Infantry)",
        "Extended campaign",
    )
    assert (hicks.toughness, hicks.combat_skill, hicks.xp, hicks.completed_missions, hicks.commendations) == (5, 1, 3, 2, 1)
    line = squad.log.get(step="creation", data__trooper=hicks.pk)
    assert [r["faces"] for r in line.rolls] == [[45], [12], [95], [6, 2]] and all(r["entered"] for r in line.rolls)
    assert line.rolls[3]["reason"] == "Hicks: commendations"
    regiment = squad.log.get(step="creation", text__startswith="Regiment")
    assert [r["faces"] for r in regiment.rolls] == [[75], [3], [5], [15], [35]] and all(r["entered"] for r in regiment.rolls)
    rolled = squad.log.get(step="creation", data__trooper=squad.troopers.get(name="Vasquez").pk)
    assert not any(r["entered"] for r in rolled.rolls)  # a name left out is rolled


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"regiment_faces": [5, 15]}, "regiment_faces", ["D100 (Uniform color) needs 1 face(s) of 1-100"]),
        ({"regiment_faces": [5, 15, 35, 1]}, "regiment_faces", ["too many"]),
        ({"regiment_faces": [0, 15, 35]}, "regiment_faces", ["1 to 100"]),
        (
            {"character_faces": {"Hicks": [45, 12, 95]}},
            "character_faces",
            ["character_faces['Hicks']", "Hicks: commendations", "1-6"],
        ),
        ({"character_faces": {"Hicks": [45, 12, 5, 1]}}, "character_faces", ["character_faces['Hicks']", "too many"]),
        ({"character_faces": {"Hicks": [101, 12, 5]}}, "character_faces", ["character_faces['Hicks']", "1 to 100"]),
        ({"character_faces": {"Bishop": [1, 1, 1]}}, "character_faces", ["Bishop"]),
    ],
)
def test_bad_creation_dice_are_refused_and_nothing_is_written(player, kwargs, field, words) -> None:  # type: ignore[no-untyped-def]
    _refused(services.squad_create, field, *words, user=player, name="Kilo", character_names=NAMES, seed=1, **kwargs)
    assert not Squad.objects.exists() and not LogEntry.objects.exists() and not Room.objects.exists()


# -- mission generation (pp.185-190) ------------------------------------------------------------


@pytest.fixture
def squad(player) -> Squad:  # type: ignore[no-untyped-def]
    return services.squad_create(user=player, name="Kilo", character_names=NAMES, signals=True, seed=3)


def _create(user: Any, squad: Squad, **kwargs: Any) -> Mission:
    return services.mission_create(user=user, squad_id=squad.pk, version=squad_version(squad.pk), seed=2, **kwargs)


def test_typed_mission_dice_give_the_tables_rows(player, squad) -> None:  # type: ignore[no-untyped-def]
    """p.185: 2, 2, 5 keep marker 2 (Vital, rolled twice) and marker 5; the Objective table's 4 is
    Retrieve and 6 is Hack. p.190: a Signals D6 of 2 makes 2 Signals and 4 Tactical Locations.
    The deployment D12's 7 is the south edge."""
    mission = _create(
        player, squad, objective_faces="2, 2, 5", objective_type_faces="4, 6", priority_faces=[3, 5], signals_faces=[2],
        edge_faces=[7],
    )  # fmt: skip
    kinds = [(o["position"], o["rank"], o["type"]) for o in mission.setup["objectives"]]
    assert kinds == [(2, "Vital Objective", "Retrieve"), (5, "Objective", "Hack")]
    assert (mission.setup["signals"], mission.setup["tactical_locations"], mission.setup["deployment_edge"]) == (2, 4, "south")
    rolls = [r for e in mission.log.all() for r in e.rolls]
    assert all(r["entered"] for r in rolls)
    assert [r["reason"] for r in rolls] == [
        "Objective positions",
        "Objective at marker 2",
        "Objective at marker 5",
        "Priority",
        "Signals",
        "Deployment edge (1-3 north, 4-6 east, 7-9 south, 10-12 west)",
    ]


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"objective_faces": [2, 2, 5], "objective_type_faces": [4]}, "objective_type_faces", ["Objective at marker 5", "1-6"]),
        ({"objective_faces": [1, 1, 1], "objective_type_faces": [4, 4]}, "objective_type_faces", ["too many"]),
        ({"objective_type_faces": [9, 9, 9]}, "objective_type_faces", ["1 to 6"]),
        ({"signals_faces": [7]}, "signals_faces", ["1 to 6"]),
        ({"signals_faces": [1, 2]}, "signals_faces", ["too many"]),
        ({"edge_faces": [13]}, "edge_faces", ["1 to 12"]),
        ({"edge_faces": "x"}, "edge_faces", ["whole numbers"]),
        ({"objective_faces": [0, 1, 2]}, "objective_faces", ["1 to 6"]),
        ({"priority_faces": [4]}, "priority_faces", ["needs 2 face(s)"]),
        ({"priority_faces": [4, 7]}, "priority_faces", ["1 to 6"]),
    ],
)
def test_bad_mission_dice_are_refused_and_nothing_is_written(player, squad, kwargs, field, words) -> None:  # type: ignore[no-untyped-def]
    version = squad_version(squad.pk)
    _refused(_create, field, *words, user=player, squad=squad, **kwargs)
    assert not squad.missions.exists() and squad_version(squad.pk) == version
    assert not squad.log.filter(step__startswith="mission").exists()


def test_signals_dice_without_signals_and_priority_dice_under_escalation_are_refused(player) -> None:  # type: ignore[no-untyped-def]
    plain = services.squad_create(user=player, name="Kilo", character_names=NAMES, escalation=True, seed=3)
    _refused(_create, "signals_faces", "without Signals", user=player, squad=plain, signals_faces=[3])
    _refused(_create, "priority_faces", "escalation", user=player, squad=plain, priority_faces=[3, 3])
    assert not plain.missions.exists()


def test_support_and_assignment_dice_name_their_field_and_give_the_tables_rows(player, squad) -> None:  # type: ignore[no-untyped-def]
    """p.187: the Fire team comes on 2D6 at or over its target; 6 + 6 gets any option. p.183:
    a Special Assignment's 2D6 of 1 + 1 is under every target."""
    hicks = squad.troopers.get(name="Hicks")
    for faces, words in (([1], "needs 2 face(s)"), ([7, 1], "1 to 6")):
        _refused(
            postbattle_services.special_assignment_apply, "faces", words, user=player, squad_id=squad.pk,
            version=squad_version(squad.pk), trooper_id=hicks.pk, assignment="Cross-training", faces=faces,
        )  # fmt: skip
    assert not squad.log.filter(step="special assignment").exists()
    postbattle_services.special_assignment_apply(
        user=player, squad_id=squad.pk, version=squad_version(squad.pk), trooper_id=hicks.pk, assignment="Cross-training",
        faces="1, 1",
    )  # fmt: skip
    applied = squad.log.get(step="special assignment")
    assert applied.rolls[0]["faces"] == [1, 1] and applied.rolls[0]["entered"]
    assert "Cross-training" not in squad.troopers.get(name="Hicks").assignments
    mission = _create(player, squad)
    for faces, words in (([1], "needs 2 face(s)"), ([7, 1], "1 to 6")):
        _refused(
            services.mission_request_support, "faces", words, user=player, mission_id=mission.pk,
            version=mission_version(mission.pk), option="Fire team", faces=faces,
        )  # fmt: skip
    mission.refresh_from_db()
    assert mission.setup["support"]["requests"] == []
    mission = services.mission_request_support(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), option="Fire team", faces="6, 6"
    )
    assert mission.setup["support"]["requests"][0]["granted"] is True
    line = mission.log.get(step="mission: support")
    assert line.rolls[0]["faces"] == [6, 6] and line.rolls[0]["entered"]


# -- the post-battle sequence (pp.201-206) -------------------------------------------------------


def _on_table(user: Any, squad: Squad) -> Mission:
    mission = _create(user, squad)
    loadout = {str(t.pk): "Shot gun" for t in services.available_troopers(squad)}
    services.mission_loadout(user=user, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    return services.mission_start(user=user, mission_id=mission.pk, version=mission_version(mission.pk))


def _act(user: Any, mission: Mission, type: str, **payload: Any) -> None:
    room = Room.objects.get(pk=int(mission.room_id or 0))
    live_services.room_act(user=user, room_id=room.pk, type=type, payload=payload, version=room.version, seed=1)


def _finish(user: Any, mission: Mission, **kwargs: Any) -> Mission:
    return postbattle_services.mission_finish(
        user=user, mission_id=mission.pk, version=mission_version(mission.pk), seed=5, **kwargs
    )


def _hudson_down(user: Any, squad: Squad) -> Mission:
    """A mission ended with Hudson a casualty and no Objective."""
    mission = _on_table(user, squad)
    state = Room.objects.get(pk=int(mission.room_id or 0)).state
    hudson = next(f["id"] for u in state["units"] for f in u["figures"] if f["name"] == "Hudson")
    _act(user, mission, "adjust", figure=hudson, status="casualty")
    _act(user, mission, "end_mission")
    return mission


@pytest.fixture
def over(player, squad) -> Mission:  # type: ignore[no-untyped-def]
    """A mission ended with no Objective: Hicks, in charge, faces a court martial."""
    mission = _on_table(player, squad)
    _act(player, mission, "end_mission")
    return mission


def test_typed_post_battle_dice_give_the_tables_rows(player, squad, over) -> None:  # type: ignore[no-untyped-def]
    """p.201: a court martial D6 of 1 is Guilty: Hicks leaves the campaign. p.203: Hudson, at 9
    Completed Missions after this one, rolls 2D6 against 9 to muster out: 1 + 2 stays. p.205:
    Operational Progress 45 is Stalemate. p.206: the D3 picks the second main character still
    active, Hudson (Hicks is gone), and 8 is a task for an officer: +1 Reputation."""
    squad.troopers.filter(name="Hudson").update(completed_missions=8)
    reputation = Squad.objects.get(pk=squad.pk).reputation
    mission = _finish(
        player, over, in_charge="Hicks", court_martial_faces=[1], muster_out_faces="1, 2", progress_faces=[45],
        military_life_faces=[2, 8], replacement_faces=[45, 12, 5],
    )  # fmt: skip
    steps = {s["title"]: s for s in mission.post_battle["steps"]}
    assert "guilty, Hicks is removed" in steps["Court martial"]["text"]
    assert squad.troopers.get(name="Hicks").status == "removed"
    assert squad.troopers.get(name="Hudson").status == "active"
    life = next(s for s in mission.post_battle["steps"] if s["number"] == 7)
    assert "Hudson" in life["text"] and "officer" in life["text"]
    assert Squad.objects.get(pk=squad.pk).reputation == reputation + 1
    progress = next(s for s in mission.post_battle["steps"] if s["number"] == 6)
    assert "Stalemate" in progress["text"]
    typed = [r for e in mission.log.filter(step__startswith="post-battle") for r in e.rolls if r["entered"]]
    assert [r["faces"] for r in typed] == [[1], [1, 2], [45], [12], [5], [45], [2], [8]]
    assert typed[1]["reason"] == "Hudson: muster out check"
    recruit = squad.troopers.get(name=f"Recruit {mission.turn}-1")
    assert (recruit.origin, recruit.basic_training, recruit.service_history) == (
        "Struggling colony",
        "Ground forces (Infantry)",
        "Garrison or patrol duties",
    )


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"court_martial_faces": [7]}, "court_martial_faces", ["1 to 6"]),
        ({"court_martial_faces": [2, 2]}, "court_martial_faces", ["too many"]),
        ({"progress_faces": []}, None, []),  # blank: rolled
        ({"military_life_faces": [2]}, "military_life_faces", ["Military Life", "1-100"]),
        ({"rest_faces": [1, 50]}, "rest_faces", ["too many", "took 0"]),
        ({"reputation_faces": [6]}, "reputation_faces", ["too many"]),
        ({"replacement_faces": [1, 1, 1]}, "replacement_faces", ["too many"]),
    ],
)
def test_bad_post_battle_dice_are_refused_and_nothing_is_written(player, squad, over, kwargs, field, words) -> None:  # type: ignore[no-untyped-def]
    version = mission_version(over.pk)
    if field is None:
        assert _finish(player, over, in_charge="Hicks", **kwargs).stage == "done"
        return
    _refused(_finish, field, *words, user=player, mission=over, in_charge="Hicks", **kwargs)
    over.refresh_from_db()
    assert over.stage == "in_play" and mission_version(over.pk) == version
    assert not LogEntry.objects.filter(mission=over, step__startswith="post-battle").exists()
    assert squad.troopers.get(name="Hicks").status == "active"


def test_step_one_dice_by_name_at_the_end_when_not_rolled_before(player, squad) -> None:  # type: ignore[no-untyped-def]
    """p.202: a casualty's D100 of 100 is School of hard knocks."""
    mission = _hudson_down(player, squad)
    mission = _finish(player, mission, in_charge="Hicks", faces={"Hudson": 100}, court_martial_faces=[4])
    step = next(s for s in mission.post_battle["steps"] if s["number"] == 1)
    assert "School of hard knocks" in step["text"] and step["rolls"][0]["entered"]


def test_step_one_dice_for_someone_who_makes_no_roll_are_refused(player, squad, over) -> None:  # type: ignore[no-untyped-def]
    _refused(_finish, "faces", "Hicks, who makes no roll", user=player, mission=over, faces={"Hicks": 50})
    _refused(_finish, "recovery_faces", "Hicks", user=player, mission=over, recovery_faces={"Hicks": 2})
    over.refresh_from_db()
    assert over.stage == "in_play"


# -- the API and the screens -----------------------------------------------------------------------


def test_the_api_takes_and_documents_every_dice_field(player) -> None:  # type: ignore[no-untyped-def]
    api = APIClient()
    api.force_authenticate(player)
    bad = api.post(
        "/api/v1/bughunt/squads/",
        {"name": "Kilo", "character_names": NAMES, "character_faces": {"Hicks": [45, 12, 200]}},
        format="json",
    )
    assert bad.status_code == 400 and "character_faces" in str(bad.json()) and not Squad.objects.exists()
    made = api.post(
        "/api/v1/bughunt/squads/",
        {"name": "Kilo", "character_names": NAMES, "regiment_faces": [5, 15, 35], "character_faces": {"Hicks": "45, 12, 5"}},
        format="json",
    )
    assert made.status_code == 201, made.content
    squad = made.json()
    assert squad["regiment"] == "Flying Wolves" and squad["uniform"] == "Green"
    url = f"/api/v1/bughunt/squads/{squad['id']}/missions/"
    refused = api.post(url, {"version": squad["version"], "edge_faces": [0]}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "edge_faces" and "1 to 12" in refused.json()["detail"]
    created = api.post(url, {"version": squad["version"], "edge_faces": [12], "objective_type_faces": None}, format="json")
    assert created.status_code == 201 and created.json()["setup"]["deployment_edge"] == "west"
    schema = api.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert {"regiment_faces", "character_faces"} <= set(schema["SquadCreateRequest"]["properties"])
    assert {"objective_faces", "objective_type_faces", "priority_faces", "signals_faces", "edge_faces"} <= set(
        schema["MissionCreateInputRequest"]["properties"]
    )
    finish = schema["MissionFinishInputRequest"]["properties"]
    for step in ("court_martial", "muster_out", "reputation", "replacement", "progress", "military_life", "rest"):
        assert "Your own dice" in finish[f"{step}_faces"]["description"]


def test_the_screens_carry_a_my_dice_field_and_keep_the_page_whole_on_a_refusal(player) -> None:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(player)
    page = client.get("/bughunt/").content.decode()
    assert 'name="regiment_faces"' in page and 'name="character_faces_1"' in page
    form = {"name": "Kilo", "character_1": "Vasquez", "character_2": "Hicks", "character_3": "Hudson"}
    switches = {"difficulty": "Mega-violence", "escalation": "on", "signals": "on"}
    refused = client.post("/bughunt/new/", {**form, **switches, "character_faces_2": "45, 12, 5, 9"})
    assert refused.status_code == 400 and "too many" in refused.content.decode() and not Squad.objects.exists()
    assert 'value="45, 12, 5, 9"' in refused.content.decode()  # what was typed stays
    kept = forms_of(refused.content.decode())["/bughunt/new/"]
    assert kept["difficulty"] == ["Mega-violence"] and kept["escalation"] == ["on"] and kept["signals"] == ["on"]
    made = client.post("/bughunt/new/", {**form, "regiment_faces": "5, 15, 35", "character_faces_2": "45, 12, 5"})
    assert made.status_code == 302
    squad = Squad.objects.get()
    assert squad.regiment == "Flying Wolves" and squad.troopers.get(name="Hicks").origin == "Struggling colony"
    hicks, hudson = squad.troopers.get(name="Hicks").pk, squad.troopers.get(name="Hudson").pk
    page = client.get(f"/bughunt/{squad.pk}/").content.decode()
    offered = re.findall(r'<option value="([^"]+)"', page.split(f'data-testid="assignment-{hicks}"')[1].split("</form>")[0])
    chosen = offered[1]  # not the first, which a browser shows chosen anyway
    sent = {"version": squad.version, "trooper": hicks, "assignment": chosen, "faces": "7, 7"}
    refused = client.post(f"/bughunt/{squad.pk}/assignment/", sent)
    assert refused.status_code == 400 and "faces" in refused.content.decode()
    shown = refused.content.decode()
    own = shown.split(f'data-testid="assignment-{hicks}"')[1].split("</form>")[0]
    other = shown.split(f'data-testid="assignment-{hudson}"')[1].split("</form>")[0]
    assert 'value="7, 7"' in own and f'value="{chosen}" selected' in own  # Hicks's form keeps what was typed
    assert 'value="7, 7"' not in other and "selected" not in other
    detail = client.get(f"/bughunt/{squad.pk}/").content.decode()
    for name in ("objective_faces", "objective_type_faces", "priority_faces", "edge_faces"):
        assert f'name="{name}"' in detail
    bad = client.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad.version, "edge_faces": "13"})
    assert bad.status_code == 400 and "1 to 12" in bad.content.decode() and not squad.missions.exists()
    assert 'value="13" aria-invalid="true"' in bad.content.decode()  # what was typed stays, marked
    assert '<small class="field-error">edge_faces: D12 (Deployment edge' in bad.content.decode()  # under the field
    client.post(f"/bughunt/{squad.pk}/missions/new/", {"version": squad.version, "edge_faces": "1"})
    mission = squad.missions.get()
    assert mission.setup["deployment_edge"] == "north"
    log = client.get(f"/bughunt/{squad.pk}/log/", {"mission": "1"}).content.decode()
    assert "Deployment edge (1-3 north, 4-6 east, 7-9 south, 10-12 west): D12 [1] = 1 (typed)" in log


def test_a_refused_post_battle_form_keeps_every_pick(player, squad, over) -> None:  # type: ignore[no-untyped-def]
    """A bad die in the post-battle form (a D6 of 7) comes back naming it with every other pick
    as it was sent: who was in charge, the MVP, advanced care, retirements, replacement names,
    the Reputation spends; nothing is written."""
    client = Client()
    client.force_login(player)
    url = f"/bughunt/missions/{over.pk}/finish/"
    assert forms_of(client.get(f"/bughunt/missions/{over.pk}/").content.decode())["finish"]["pay_court_martial"] == []
    picks = {
        "in_charge": "Hudson",
        "mvp": "Vasquez",
        "advanced_care": ["Hicks", "Hudson"],
        "retire": ["Vasquez"],
        "replacement_names": "Drake, Ferro",
        "pay_court_martial": "on",
        "buy_rest": "on",
    }
    refused = client.post(url, {"version": mission_version(over.pk), **picks, "court_martial_faces": "7"})
    assert refused.status_code == 400 and "court_martial_faces" in refused.content.decode()
    shown = forms_of(refused.content.decode())["finish"]
    assert shown["in_charge"] == ["Hudson"] and shown["mvp"] == ["Vasquez"]
    assert sorted(shown["advanced_care"]) == ["Hicks", "Hudson"] and shown["retire"] == ["Vasquez"]
    assert shown["replacement_names"] == ["Drake, Ferro"] and shown["court_martial_faces"] == ["7"]
    assert shown["pay_court_martial"] == ["on"] and shown["buy_rest"] == ["on"]
    over.refresh_from_db()
    assert over.stage == "in_play" and squad.troopers.get(name="Vasquez").status == "active"


def test_the_casualty_screen_takes_each_ones_d100_by_name(player, squad) -> None:  # type: ignore[no-untyped-def]
    """p.202: 100 is School of hard knocks."""
    mission = _hudson_down(player, squad)
    client = Client()
    client.force_login(player)
    page = client.get(f"/bughunt/missions/{mission.pk}/").content.decode()
    assert 'name="faces_Hudson"' in page and 'name="court_martial_faces"' in page
    typed = {"version": squad_version(squad.pk), "faces_Hudson": "0", "recovery_Hudson": "2", "escape_card": "on"}
    bad = client.post(f"/bughunt/missions/{mission.pk}/casualties/", typed)
    assert bad.status_code == 400 and "faces" in bad.content.decode()
    kept = forms_of(bad.content.decode())[f"/bughunt/missions/{mission.pk}/casualties/"]  # what was typed stays
    assert kept["faces_Hudson"] == ["0"] and kept["recovery_Hudson"] == ["2"] and kept["escape_card"] == ["on"]
    mission.refresh_from_db()
    assert not mission.post_battle
    client.post(f"/bughunt/missions/{mission.pk}/casualties/", {"version": squad_version(squad.pk), "faces_Hudson": "100"})
    mission.refresh_from_db()
    assert mission.post_battle["casualties"]["results"]["Hudson"]["result"] == "School of hard knocks"
    assert mission.post_battle["casualties"]["rolls"][0]["entered"]


# -- one log (issue 22, item 7) ----------------------------------------------------------------------


def test_a_tracker_shots_dice_are_in_the_squad_log_by_mission_and_step(player, squad) -> None:  # type: ignore[no-untyped-def]
    """Every shot's dice reach the squad log under ``tracker: shoot`` and the mission's number:
    typed with the action, rolled by the app, or typed one step at a time (the last die's line
    is filed under the shot it completes, not under ``roll die``)."""
    mission = _on_table(player, squad)
    robots = {"faces": [5], "enemy_face": [48], "variant_face": [1], "numbers_faces": [2], "leader_faces": [12, 12, 12]}
    _act(player, mission, "detect", contact="c1", **robots)  # three Berserk robots (p.195)
    units = [u for u in Room.objects.get(pk=int(mission.room_id or 0)).state["units"] if u["active"]]
    _act(player, mission, "roll_reactions", faces=[1] * len(units))
    for die, unit in enumerate(units, start=1):
        _act(player, mission, "assign_reaction", unit=unit["id"], die=die)
    _act(player, mission, "next_phase")  # the Quick Actions phase
    shot = {"weapon": "Shot gun", "enemy": "e1", "band": "open"}
    _act(player, mission, "shoot", figure="f1", faces=[2, 2], **shot)  # Vasquez, dice typed with the shot
    _act(player, mission, "shoot", figure="f2", typed="on", **shot)  # Hicks: the app asks for the dice
    _act(player, mission, "roll_die", faces=[2, 2])
    _act(player, mission, "shoot", figure="f3", **shot)  # Hudson: the app rolls
    lines = list(selectors.log_list(squad=squad, step="tracker: shoot", mission=1))
    assert [line.step for line in lines] == ["tracker: shoot"] * 4 and all(line.mission == mission for line in lines)
    fired = [line for line in lines if line.rolls]
    assert [line.text.split(": ", 1)[1].split(" fires")[0] for line in fired] == ["Vasquez", "Hicks", "Hudson"]
    firing = [line.rolls[0] for line in fired]
    assert all(r["reason"] == "Shot gun firing dice at Berserk robots 1" for r in firing)
    assert [(r["faces"], r["entered"]) for r in firing[:2]] == [([2, 2], True), ([2, 2], True)]
    assert not firing[2]["entered"] and len(firing[2]["faces"]) == 2
    assert not selectors.log_list(squad=squad, step="tracker: shoot", mission=2).exists()
    assert not selectors.log_list(squad=squad, step="tracker: roll die").exists()
    api = APIClient()
    api.force_authenticate(player)
    body = api.get(f"/api/v1/bughunt/squads/{squad.pk}/log/", {"step": "tracker: shoot", "mission": "1"}).json()
    assert [e["rolls"][0]["faces"] for e in body["results"] if e["rolls"]][:2] == [[2, 2], [2, 2]]
    client = Client()
    client.force_login(player)
    page = client.get(f"/bughunt/{squad.pk}/log/", {"step": "tracker: shoot", "mission": "1"}).content.decode()
    assert page.count("Shot gun firing dice at Berserk robots 1: 2D6 [2, 2] (typed)") == 2  # separate dice: no total
    assert "Reactions" not in page and '<option value="tracker: shoot" selected>' in page


# -- bounds, for any faces ----------------------------------------------------------------------------

_TABLES: dict[str, RangeTable] = {}


def _engine_tables() -> dict[str, RangeTable]:
    """The shipped Bug Hunt tables as the engine reads them (read once)."""
    if not _TABLES:
        _TABLES.update({t.slug: t.engine() for t in read_all() if t.system == "bughunt"})
    return _TABLES


@settings(max_examples=60, deadline=None)
@given(
    backgrounds=st.lists(st.integers(1, 100), min_size=3, max_size=3),
    commendations=st.lists(st.integers(1, 6), min_size=2, max_size=2),
    extra=st.lists(st.integers(1, 6), max_size=2),
)
def test_any_typed_background_gives_the_rows_covering_those_faces(backgrounds, commendations, extra) -> None:  # type: ignore[no-untyped-def]
    """pp.171-172: the Origin, Basic Training and Service History rows are those whose ranges hold
    the typed D100s; the commendation D6s are asked for exactly after a Combat Operation, and
    any face more is refused."""
    tables = _engine_tables()
    history = tables["bh-service-history"].lookup(backgrounds[2])
    combat = bool(history.data.get("combat_operation"))
    faces = backgrounds + (commendations if combat else []) + extra
    dice = FedDice(faces, field="character_faces")
    try:
        made = characters.create_main_character("Hicks", tables, dice)
        dice.check_used()
    except DiceError as exc:
        assert extra and "too many" in exc.message and exc.field == "character_faces"
        return
    assert not extra
    for slug, face, got in zip(
        ("bh-origin", "bh-basic-training", "bh-service-history"),
        backgrounds,
        (made.origin, made.basic_training, made.service_history),
        strict=True,
    ):
        row = next(e for e in tables[slug].entries if e.result == got)
        assert row.low is not None and row.high is not None and row.low <= face <= row.high
    assert made.commendations == (sum(1 for f in commendations if f == 6) if combat else 0)
    assert all(r.entered for r in made.rolls)
