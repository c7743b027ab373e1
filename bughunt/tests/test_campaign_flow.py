"""A three-mission Bug Hunt campaign played through the services, from squad creation to the
third post-battle: set-up, the live tracker (rooms), Evac, casualties and the post-battle."""

from __future__ import annotations

from typing import Any

import pytest

from bughunt import postbattle_services, services
from bughunt.models import LogEntry, Mission, Squad
from bughunt.tests.versions import mission_version
from live import services as live_services
from live.models import Room
from rules.errors import DropshipError

pytestmark = pytest.mark.usefixtures("bughunt_tables")


class Table:
    """Drives one mission's tracker through the room service, as the laptop does."""

    def __init__(self, user: Any, mission: Mission) -> None:
        assert mission.room is not None
        self.user, self.room_id, self.seed = user, mission.room.pk, 100

    @property
    def state(self) -> dict[str, Any]:
        return Room.objects.get(pk=self.room_id).state

    def act(self, type: str, **payload: Any) -> dict[str, Any]:
        self.seed += 1
        version = Room.objects.get(pk=self.room_id).version
        result = live_services.room_act(
            user=self.user, room_id=self.room_id, type=type, payload=payload, version=version, seed=self.seed
        )
        return result.room.state

    def figure(self, name: str) -> str:
        return next(f["id"] for u in self.state["units"] for f in u["figures"] if f["name"] == name)

    def play_round(self) -> None:
        state = self.state
        if not state["beep_done"]:
            self.act("beep_sir", faces=[1] * int(state["priority"]))  # no 6: no new marker
        units = [u for u in self.state["units"] if u["active"]]
        self.act("roll_reactions", faces=[1] * len(units))
        for index, unit in enumerate(units, start=1):
            self.act("assign_reaction", unit=unit["id"], die=index)
        self.act("next_phase")  # Quick Action phase
        for unit in units:
            self.act("act", unit=unit["id"])
        self.act("next_phase")  # Enemy Action phase
        self.act("next_phase")  # Slow Action phase
        self.act("next_phase")  # end of round: Objectives, Spawn phase, Evac
        self.act("next_phase")  # the next round begins


def play_mission(user: Any, squad: Squad, *, objectives: int, casualty: str | None = None) -> Mission:
    squad.refresh_from_db()
    mission = services.mission_create(user=user, squad_id=squad.pk, version=squad.version, seed=squad.turn)
    loadout = {str(t.pk): "Combat rifle" for t in services.available_troopers(squad)}
    services.mission_loadout(user=user, mission_id=mission.pk, version=mission_version(mission.pk), loadout=loadout)
    mission = services.mission_start(user=user, mission_id=mission.pk, version=mission_version(mission.pk))
    table = Table(user, mission)
    for oid in [o["id"] for o in table.state["objectives"]][:objectives]:
        table.act("set_objective", objective=oid, completed="on")
    if casualty:
        table.act("adjust", figure=table.figure(casualty), status="casualty")
    for _ in range(4):
        table.play_round()
    assert table.state["round"] == 5
    caller = next(f["id"] for u in table.state["units"] if u["active"] for f in u["figures"] if f["status"] == "active")
    table.act("request_evac", figure=caller, faces=[6, 6])  # 12 and more: the drop ship comes
    assert table.state["evac"]["status"] == "coming"
    table.play_round()  # round 5
    table.play_round()  # round 6: it lands at the end
    assert table.state["evac"]["status"] == "hovering"
    assert table.state["priority"] == mission.setup["priority"] + 1  # they heard the engines
    for unit in [u for u in table.state["units"] if u["active"]]:
        table.act("evacuate", unit=unit["id"])
    table.act("end_mission")
    with pytest.raises(DropshipError):  # the post-battle names only those who took the field
        postbattle_services.mission_finish(user=user, mission_id=mission.pk, version=mission_version(mission.pk), mvp="Nobody")
    took = table.state["units"][0]["name"]
    return postbattle_services.mission_finish(
        user=user, mission_id=mission.pk, version=mission_version(mission.pk), mvp=took, seed=squad.turn
    )


def test_a_squad_plays_three_missions_from_creation_to_the_third_post_battle(player) -> None:  # type: ignore[no-untyped-def]
    squad = services.squad_create(user=player, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=5)
    start_missions = {t.name: t.completed_missions for t in squad.troopers.all()}

    # turn 1: a Special Assignment with the player's own dice, then a good mission
    hicks = squad.troopers.get(name="Hicks")
    squad = postbattle_services.special_assignment_apply(
        user=player, squad_id=squad.pk, version=squad.version, trooper_id=hicks.pk, assignment="Cross-training", faces=[6, 6]
    )
    hicks.refresh_from_db()
    assert "Cross-training" in hicks.assignments
    first = play_mission(player, squad, objectives=2)
    assert first.stage == "done" and first.outcome["objectives_completed"] >= 2
    squad.refresh_from_db()
    assert squad.turn == 2

    # turn 2: Hudson goes down
    before = {t.name: t.xp for t in squad.troopers.all()}
    second = play_mission(player, squad, objectives=1, casualty="Hudson")
    squad.refresh_from_db()
    assert "Hudson" in [f["name"] for f in second.outcome["casualties"]]
    assert {s["number"] for s in second.post_battle["steps"]} >= set(range(1, 10))  # all nine steps
    casualty_step = next(s for s in second.post_battle["steps"] if s["number"] == 1)
    assert casualty_step["rolls"] and casualty_step["rolls"][0]["notation"] == "D100"

    # turn 3: whoever is fit goes again
    third = play_mission(player, squad, objectives=3)
    squad.refresh_from_db()
    assert squad.turn == 4 and squad.missions.filter(stage="done").count() == 3
    assert third.setup["mission_number"] == 3

    # Completed Missions went up for those who took the field, XP was paid out
    veterans = [t for t in squad.troopers.all() if t.name in start_missions]
    assert any(t.completed_missions > start_missions[t.name] for t in veterans)
    assert any(t.xp > before.get(t.name, 0) for t in squad.troopers.all())
    # every post-battle step is in the campaign log with its rolls
    steps = set(LogEntry.objects.filter(squad=squad, step__startswith="post-battle").values_list("step", flat=True))
    assert {"post-battle: 1. Determine Casualties and Lost Marines", "post-battle: 6. Roll for Operational Progress"} <= steps
    assert LogEntry.objects.filter(squad=squad, step="post-battle: 6. Roll for Operational Progress").count() == 3

    # and the screens show it: the post-battle on the mission page, the roster, the whole log
    from django.test import Client

    client = Client()
    client.force_login(player)
    page = client.get(f"/bughunt/missions/{third.pk}/").content.decode()
    assert "Post-battle" in page and "Roll for Military Life" in page
    assert client.get(f"/bughunt/{squad.pk}/").status_code == 200
    # the tracker's lines come first in the mission's log now: read its post-battle steps
    log = client.get(f"/bughunt/{squad.pk}/log/?mission=3&step=post-battle").content.decode()
    assert "Operational Progress" in log and "D100" in log
