"""Support and loadout as the book gives them (Bug Hunt pp.187-189): each option's figures and
weapons, the Sarge's choice of arms, Weapons support and Grenades on any one figure."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from bughunt import services
from bughunt.engine import support, tracker
from bughunt.models import LogEntry
from bughunt.tests.versions import mission_version, squad_version
from rules.engine.tables import RangeTable
from rules.errors import DropshipError
from rules.fixturefiles import read_all

TABLES: dict[str, RangeTable] = {s.slug: s.engine() for s in read_all() if s.system == "bughunt"}
ROWS = {e.result: e.data for e in TABLES["bh-support"].entries}
FIGURES = ["Vasquez", "Hicks", "Fire team 1", "Fire team 2", "Fire team 3", "Fire team 4", "Sarge 1"]

# -- engine -------------------------------------------------------------------------------------------------


def test_a_soulless_recon_team_has_one_carbine_and_one_sniper_rifle_between_two_figures() -> None:
    """p.189: a 2-figure team, 1 Carbine and 1 Sniper Rifle."""
    assert support.team_weapons(ROWS["Soulless Recon Team"]) == [["Carbine"], ["Sniper rifle"]]
    assert support.team_weapons(ROWS["Fire team"]) == [["Combat rifle"]] * 4  # p.188: 4 figures, Combat Rifles
    assert support.team_weapons(ROWS["K'Erin assault marine Team"]) == [["Carbine", "Boarding sword"]] * 4
    assert support.team_weapons(ROWS["Scientific survey team"]) == [[], [], [], []]


def test_the_sarge_carries_either_pair_of_arms_the_book_gives() -> None:
    """p.188: Shotgun and Boarding Sword OR Service Pistol and Power Claw."""
    assert support.arms_options(ROWS["Sarge"]) == ["Shot gun + Boarding sword", "Service pistol + Power claw"]
    assert support.team_weapons(ROWS["Sarge"], arms="Service pistol + Power claw") == [["Service pistol", "Power claw"]]
    with pytest.raises(support.SupportError, match="Shot gun \\+ Boarding sword") as caught:
        support.team_weapons(ROWS["Sarge"], arms="Plasma rifle")
    assert caught.value.field == "arms"
    with pytest.raises(support.SupportError, match="no choice of arms"):
        support.team_weapons(ROWS["Fire team"], arms="Shot gun + Boarding sword")


def test_weapons_support_goes_to_any_one_figure_grunts_included() -> None:
    """p.188: outfit any one figure with one weapon of the list."""
    made = support.outfit("Weapons support", ROWS["Weapons support"], "Fire team 3: Plasma rifle", FIGURES)
    assert [o.as_dict() for o in made] == [{"figure": "Fire team 3", "weapons": ["Plasma rifle"]}]
    with pytest.raises(support.SupportError, match="outfits 1 figure"):
        support.outfit("Weapons support", ROWS["Weapons support"], ["Hicks: Incinerator", "Vasquez: Power claw"], FIGURES)
    with pytest.raises(support.SupportError, match="Light machine gun, Incinerator"):
        support.outfit("Weapons support", ROWS["Weapons support"], "Hicks: Sniper rifle", FIGURES)
    with pytest.raises(support.SupportError, match="not taking the field") as caught:
        support.outfit("Weapons support", ROWS["Weapons support"], "Burke: Plasma rifle", FIGURES)
    assert caught.value.field == "extras"


def test_grenades_go_to_four_figures_or_a_launcher_to_one() -> None:
    """p.188: Frag or Flash grenades for four figures OR one figure with a Mounted Launcher and
    either grenade."""
    four = ["Vasquez: Frag grenade", "Fire team 1: Flash grenade", "Fire team 2: Frag grenade", "Sarge 1: Frag grenade"]
    made = support.outfit("Grenades", ROWS["Grenades"], four, FIGURES)
    assert [(o.figure, o.weapons) for o in made][1] == ("Fire team 1", ("Flash grenade",))
    with pytest.raises(support.SupportError, match="4 figures at most"):
        support.outfit("Grenades", ROWS["Grenades"], [*four, "Hicks: Frag grenade"], FIGURES)
    launcher = support.outfit("Grenades", ROWS["Grenades"], "Fire team 4: Mounted launcher + Flash grenade", FIGURES)
    assert [o.as_dict() for o in launcher] == [{"figure": "Fire team 4", "weapons": ["Mounted launcher", "Flash grenade"]}]
    with pytest.raises(support.SupportError, match="Mounted launcher goes to 1 figure"):
        support.outfit("Grenades", ROWS["Grenades"], ["Hicks: Mounted launcher + Frag grenade", "Vasquez: Frag grenade"], FIGURES)
    with pytest.raises(support.SupportError, match="Mounted launcher goes to 1 figure"):
        support.outfit("Grenades", ROWS["Grenades"], "Hicks: Mounted launcher", FIGURES)
    with pytest.raises(support.SupportError, match="named twice"):
        support.outfit("Grenades", ROWS["Grenades"], ["Hicks: Frag grenade", "Hicks: Flash grenade"], FIGURES)


def test_the_tracker_gives_each_team_figure_its_own_weapons() -> None:
    """A Soulless Recon Team on the tracker: figure 1 a Carbine, figure 2 a Sniper Rifle (p.189);
    Reinforcements of the same option too (p.181)."""
    state = tracker.initial_state(
        {"priority": 2, "main_characters": ["Vasquez"], "combat_teams": [{"name": "Soulless Recon Team"}]}, TABLES
    )
    team = state["units"][1]
    assert [[w["name"] for w in f["weapons"]] for f in team["figures"]] == [["Carbine"], ["Sniper rifle"]]
    given = tracker.initial_state(
        {
            "priority": 2,
            "main_characters": ["Vasquez"],
            "combat_teams": [
                {"name": "Fire team", "figure_weapons": [["Combat rifle"], ["Combat rifle", "Plasma rifle"]], "figures": 2}
            ],
        },
        TABLES,
    )
    assert [w["name"] for w in given["units"][1]["figures"][1]["weapons"]] == ["Combat rifle", "Plasma rifle"]


# -- services and API -----------------------------------------------------------------------------------------


def _mission(user, priority=(6, 6)):  # type: ignore[no-untyped-def]
    squad = services.squad_create(user=user, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=7)
    return services.mission_create(
        user=user, squad_id=squad.pk, version=squad_version(squad.pk), objective_faces=[1, 3, 5], priority_faces=list(priority)
    )


def _grant(user, mission, option):  # type: ignore[no-untyped-def]
    return services.mission_request_support(
        user=user, mission_id=mission.pk, version=mission_version(mission.pk), option=option, faces=[6, 6]
    )


def _loadout(mission) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {str(t.pk): "Combat rifle" for t in services.available_troopers(mission.squad)}


@pytest.mark.usefixtures("bughunt_tables")
def test_support_teams_and_weapons_reach_the_tracker_figure_by_figure(player) -> None:  # type: ignore[no-untyped-def]
    mission = _mission(player)
    for option in ("Soulless Recon Team", "Sarge", "Weapons support", "Grenades"):
        mission = _grant(player, mission, option)
    assert services.field_figures(mission)[-3:] == ["Soulless Recon Team 1", "Soulless Recon Team 2", "Sarge 1"]
    mission = services.mission_loadout(
        user=player, mission_id=mission.pk, version=mission_version(mission.pk), loadout=_loadout(mission)
    )
    with pytest.raises(DropshipError, match="choose who carries Weapons support, Grenades") as caught:
        services.mission_start(user=player, mission_id=mission.pk, version=mission_version(mission.pk))
    assert caught.value.field == "extras"
    mission = services.mission_loadout(
        user=player,
        mission_id=mission.pk,
        version=mission_version(mission.pk),
        loadout=_loadout(mission),
        extras={
            "Weapons support": "Fire team 2: Light machine gun",
            "Grenades": ["Hicks: Frag grenade", "Sarge 1: Flash grenade", "Fire team 1: Frag grenade"],
        },
        arms={"Sarge": "Service pistol + Power claw"},
    )
    setup = services.tracker_setup(mission)
    teams = {t["name"]: t["figure_weapons"] for t in setup["combat_teams"]}
    assert teams["Soulless Recon Team"] == [["Carbine"], ["Sniper rifle"]]
    assert teams["Sarge"] == [["Service pistol", "Power claw", "Flash grenade"]]
    assert teams["Fire team"] == [
        ["Combat rifle", "Frag grenade"],
        ["Combat rifle", "Light machine gun"],
        ["Combat rifle"],
        ["Combat rifle"],
    ]
    mains = {m["name"]: m["weapons"] for m in setup["main_characters"]}
    assert mains["Hicks"] == ["Service pistol", "Combat rifle", "Frag grenade"] and mains["Vasquez"] == [
        "Service pistol",
        "Combat rifle",
    ]
    state = tracker.initial_state(setup, TABLES)
    fire = next(u for u in state["units"] if u["name"] == "Fire team")
    assert [w["name"] for w in fire["figures"][1]["weapons"]] == ["Combat rifle", "Light machine gun"]
    assert "Fire team 2 Light machine gun" in LogEntry.objects.filter(step="mission: loadout").order_by("id").last().text  # type: ignore[union-attr]


@pytest.mark.usefixtures("bughunt_tables")
def test_a_granted_fire_team_is_named_apart_from_the_free_one(player) -> None:  # type: ignore[no-untyped-def]
    mission = _grant(player, _mission(player), "Fire team")
    figures = services.field_figures(mission)
    assert "Fire team 1" in figures and "Fire team (Support) 1" in figures and len(figures) == len(set(figures))


@pytest.mark.usefixtures("bughunt_tables")
def test_a_refused_loadout_names_the_field_and_writes_nothing(player) -> None:  # type: ignore[no-untyped-def]
    mission = _grant(player, _mission(player), "Weapons support")
    version = mission_version(mission.pk)
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"extras": {"Grenades": "Hicks: Frag grenade"}}, "extras", "not a granted Support option"),
        ({"extras": {"Weapons support": "Burke: Plasma rifle"}}, "extras", "not taking the field"),
        ({"extras": {"Weapons support": "Fire team 1: Railgun"}}, "extras", "Plasma rifle"),
        ({"arms": {"Fire team": "Shot gun + Boarding sword"}}, "arms", "no choice of arms"),
    ]
    for kwargs, field, message in cases:
        with pytest.raises(DropshipError, match=message) as caught:
            services.mission_loadout(user=player, mission_id=mission.pk, version=version, loadout=_loadout(mission), **kwargs)
        assert caught.value.field == field
    mission.refresh_from_db()
    assert mission.setup["loadout"] == {} and mission.setup["extras"][0]["assigned"] is None
    assert mission_version(mission.pk) == version


@pytest.mark.usefixtures("bughunt_tables")
def test_the_api_refuses_a_support_weapon_it_cannot_place_with_400(player) -> None:  # type: ignore[no-untyped-def]
    api = APIClient()
    api.force_authenticate(player)
    mission = _grant(player, _mission(player), "Grenades")
    url = f"/api/v1/bughunt/missions/{mission.pk}/loadout/"
    body = {"version": mission_version(mission.pk), "loadout": _loadout(mission)}
    bad = api.post(
        url, {**body, "extras": {"Grenades": ["Hicks: Mounted launcher + Frag grenade", "Vasquez: Frag grenade"]}}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["field"] == "extras" and "Mounted launcher" in bad.json()["detail"]
    worse = api.post(url, {**body, "extras": {"Grenades": 3}}, format="json")
    assert worse.status_code == 400 and "extras" in worse.json()
    good = api.post(url, {**body, "extras": {"Grenades": "Fire team 4: Mounted launcher + Frag grenade"}}, format="json")
    assert good.status_code == 200, good.content
    assert good.json()["setup"]["extras"][0]["assigned"] == [
        {"figure": "Fire team 4", "weapons": ["Mounted launcher", "Frag grenade"]}
    ]


@pytest.mark.usefixtures("bughunt_tables")
def test_the_loadout_form_offers_grunts_four_grenade_slots_and_the_sarges_arms(client, player) -> None:  # type: ignore[no-untyped-def]
    client.force_login(player)
    mission = _grant(player, _grant(player, _mission(player), "Grenades"), "Sarge")
    page = client.get(f"/bughunt/missions/{mission.pk}/").content.decode()
    assert page.count('name="extra_Grenades"') == 4
    assert "Fire team 3: Mounted launcher + Flash grenade" in page
    assert 'name="arms_Sarge"' in page and "Service pistol + Power claw" in page
    form = {"version": mission_version(mission.pk), "extra_Grenades": ["Sarge 1: Frag grenade", "", "Hicks: Flash grenade", ""]}
    form.update({f"weapon_{k}": v for k, v in _loadout(mission).items()})
    form["arms_Sarge"] = "Service pistol + Power claw"
    response = client.post(f"/bughunt/missions/{mission.pk}/loadout/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    mission.refresh_from_db()
    assert [a["figure"] for a in mission.setup["extras"][0]["assigned"]] == ["Sarge 1", "Hicks"]
    assert mission.setup["teams"][0]["figure_weapons"] == [["Service pistol", "Power claw"]]
