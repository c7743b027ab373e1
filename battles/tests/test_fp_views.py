"""Five Parsecs battle screens through the test client: the set-up form (standalone and from a
campaign), the printable card, the no-minis screen played by buttons, undo and to the end, the
odds job page, and errors that name the field and keep what was typed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from battles import views
from battles.models import Battle
from campaigns import crew_services
from campaigns import services as campaign_services
from tests.factories import UserFactory
from tests.tables import load_system_tables

STANDALONE: dict[str, str] = {
    "title": "Warehouse job",
    "campaign": "",
    "mission_source": "opportunity",
    "battle_type": "conventional",
    "theme": "industrial",
    "enemy_kind": "custom",
    "enemy_name": "Dock Toughs",
    "category": "Criminal Elements",
    "base_numbers": "4",
    "enemy_numbers": "0",
    "enemy_panic": "1-2",
    "enemy_speed": "4",
    "enemy_combat_skill": "0",
    "enemy_toughness": "3",
    "enemy_weapons": "Hand gun",
    "hit_open": "3",
    "hit_cover": "5",
    "crew-0-name": "Ria",
    "crew-0-reactions": "2",
    "crew-0-speed": "5",
    "crew-0-combat_skill": "1",
    "crew-0-toughness": "4",
    "crew-0-savvy": "1",
    "crew-0-weapon": "Military rifle",
    "crew-2-name": "Bo",
    "crew-2-reactions": "1",
    "crew-2-speed": "4",
    "crew-2-combat_skill": "0",
    "crew-2-toughness": "3",
    "crew-2-weapon": "Hand gun",
}


@pytest.fixture
def tables(db: None) -> None:
    load_system_tables("fiveparsecs")


@pytest.fixture
def player(tables: None):  # type: ignore[no-untyped-def]
    return UserFactory.create(username="captain")


@pytest.fixture
def client(player: Any) -> Client:
    made = Client()
    made.force_login(player)
    return made


def _create(client: Client, **changes: str) -> Battle:
    response = client.post(reverse("battles:create"), {**STANDALONE, **changes})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Battle.objects.get(pk=int(response["Location"].rstrip("/").split("/")[-1]))


def _nom(battle: Battle) -> dict[str, Any]:
    assert battle.nominis is not None
    return battle.nominis


def _res(battle: Battle) -> dict[str, Any]:
    assert battle.result is not None
    return battle.result


def _act(client: Client, battle: Battle, name: str, /, **data: Any) -> Any:
    battle.refresh_from_db()
    return client.post(reverse("battles:act", args=[battle.pk, name]), {"version": battle.version, **data})


def test_the_setup_form_makes_a_standalone_battle_and_its_printable_card(client: Client) -> None:
    page = client.get(reverse("battles:list")).content.decode()
    assert 'name="crew-5-name"' in page and "Dramatic Combat (p.87)" in page and "Criminal Elements" in page
    battle = _create(client)
    assert [c["name"] for c in battle.setup["crew"]] == ["Ria", "Bo"]
    assert battle.setup["crew"][0]["captain"] and battle.setup["hit_numbers"]["open"] == 3
    card = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    for testid in ("mission", "deployment", "terrain", "enemy", "crew", "hit-numbers", "next-steps"):
        assert f'data-testid="{testid}"' in card, testid
    assert "Quarter 4" in card and "Panic 1-2" in card and "3+ in the open, 5+ in cover" in card
    assert 'data-testid="rank-basic"' in card and "Dock Toughs" in card
    assert "no-print" in card  # the tools stay off paper
    listed = client.get(reverse("battles:list") + "?status=setup").content.decode()
    assert "Warehouse job" in listed
    assert "Warehouse job" not in client.get(reverse("battles:list") + "?status=finished").content.decode()


def test_a_bad_setup_names_the_field_marks_the_input_and_keeps_what_was_typed(client: Client) -> None:
    missing = client.post(reverse("battles:create"), {**STANDALONE, "hit_open": "", "hit_cover": ""})
    body = missing.content.decode()
    assert missing.status_code == 400 and "hit_numbers is required" in body
    assert 'name="hit_open" min="1" max="6" inputmode="numeric" value="" placeholder="D6, e.g. 3" aria-invalid="true"' in body
    assert 'value="Dock Toughs"' in body and 'value="Ria"' in body and 'value="Military rifle"' in body

    weapon = client.post(reverse("battles:create"), {**STANDALONE, "crew-2-weapon": "Banana"})
    body = weapon.content.decode()
    assert weapon.status_code == 400 and "Banana" in body
    assert (
        'name="crew-2-weapon" maxlength="60" list="fp-weapons" value="Banana" placeholder="Weapon" aria-label="Crew member 3 weapon" aria-invalid="true"'
        in body
    )

    speed = client.post(reverse("battles:create"), {**STANDALONE, "enemy_speed": "40"})
    assert speed.status_code == 400 and 'name="enemy_speed" min="1" max="12" value="40"' in speed.content.decode()
    assert 'value="40" placeholder="4" aria-invalid="true"' in speed.content.decode()
    assert not Battle.objects.exists()


ERROR_INPUTS = {
    "enemy.speed": "enemy_speed",
    "enemy.base_numbers": "base_numbers",
    "crew[1].toughness": "crew-2-toughness",
    "crew[0].weapons[0]": "crew-0-weapon",
    "crew[1].name": "crew-2-name",
    "hit_numbers.cover": "hit_cover",
    "hit_numbers": "hit_open",
    "options.dramatic_combat": "dramatic_combat",
    "ai_type": "ai_type",
}


def test_error_fields_map_to_the_form_inputs() -> None:
    # Rows 0 and 2 were filled in: the service's crew[1] is the form's third row.
    assert {field: views.bad_input(field, [0, 2]) for field in ERROR_INPUTS} == ERROR_INPUTS


def test_the_no_minis_screen_plays_by_buttons_undoes_and_plays_to_the_end(client: Client) -> None:
    battle = _create(client)
    started = _act(client, battle, "nominis_start", mode="assisted")
    assert started.status_code == 302 and started["Location"] == reverse("battles:nominis", args=[battle.pk])
    screen = client.get(started["Location"]).content.decode()
    assert 'data-testid="choice"' in screen and "Roll Reaction dice" in screen and 'data-testid="undo"' not in screen

    battle.refresh_from_db()
    roll = json.dumps({"type": "roll_initiative"})
    htmx = client.post(
        reverse("battles:act", args=[battle.pk, "nominis_act"]),
        {"version": battle.version, "page": "nominis", "action": roll, "faces": "6"},
        headers={"HX-Request": "true"},
    )
    partial = htmx.content.decode()
    assert htmx.status_code == 200 and partial.lstrip().startswith('<div id="screen"') and "<html" not in partial
    assert "Initiative: assign dice" in partial and 'data-testid="undo"' in partial
    battle.refresh_from_db()
    assert _nom(battle)["actions"][0]["action"] == {"type": "roll_initiative", "faces": [6]}
    assert any(r["entered"] for e in _nom(battle)["events"] for r in e["rolls"])

    assert _act(client, battle, "nominis_undo", page="nominis").status_code == 302
    battle.refresh_from_db()
    assert _nom(battle)["actions"] == [] and _nom(battle)["state"]["phase"] == "initiative"

    stale = client.post(
        reverse("battles:act", args=[battle.pk, "nominis_act"]),
        {"version": battle.version - 1, "page": "nominis", "action": roll},
    )
    assert stale.status_code == 409 and 'data-testid="error"' in stale.content.decode()
    bad = _act(client, battle, "nominis_act", page="nominis", action="not json")
    assert bad.status_code == 400 and "pick one of the choices" in bad.content.decode()

    assert _act(client, battle, "nominis_act", page="nominis", action=json.dumps({"type": "auto"})).status_code == 302
    assert _act(client, battle, "nominis_auto", page="nominis").status_code == 302
    over = client.get(reverse("battles:nominis", args=[battle.pk])).content.decode()
    battle.refresh_from_db()
    assert _nom(battle)["state"]["finished"]
    assert 'data-testid="outcome"' in over and 'data-testid="play-to-end"' not in over
    assert 'class="dice"' in over  # roll records in the log

    finished = _act(client, battle, "finish", page="nominis")
    assert finished.status_code == 302
    battle.refresh_from_db()
    assert battle.status == "finished" and _res(battle)["source"] == "nominis"
    card = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="result"' in card and "the no-minis battle" in card


def test_an_initiative_action_takes_the_bonus_and_typed_dice(client: Client) -> None:
    battle = _create(client)
    _act(client, battle, "nominis_start", mode="assisted")
    _act(client, battle, "nominis_act", page="nominis", action=json.dumps({"type": "roll_initiative"}), faces="1")
    screen = client.get(reverse("battles:nominis", args=[battle.pk])).content.decode()
    assert 'data-testid="assign"' in screen and 'name="assign-Ria"' in screen
    response = _act(client, battle, "nominis_act", page="nominis", type="assign_initiative", **{"assign-Ria": "1"})
    assert response.status_code == 302, response.content.decode()[:500]
    battle.refresh_from_db()
    assert _nom(battle)["actions"][-1]["action"] == {"type": "assign_initiative", "assignments": {"Ria": 1}}
    screen = client.get(reverse("battles:nominis", args=[battle.pk])).content.decode()
    assert 'data-testid="choices-ria"' in screen and "+1: an ability or item helps" in screen
    take_cover = json.dumps({"type": "initiative_action", "actor": "Ria", "action": "Take Cover"})
    done = _act(client, battle, "nominis_act", page="nominis", action=take_cover, bonus="on", faces="3, 4")
    assert done.status_code == 302
    battle.refresh_from_db()
    assert _nom(battle)["actions"][-1]["action"] == {**json.loads(take_cover), "bonus": True, "faces": [3, 4]}


def test_the_odds_page_shows_the_chance_casualties_and_spread(
    client: Client, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the job runs in this process, as without Redis
    battle = _create(client)
    with django_capture_on_commit_callbacks(execute=True):
        started = _act(client, battle, "odds", runs="20")
    assert started.status_code == 302
    job = battle.jobs.get()
    assert started["Location"] == reverse("battles:job", args=[job.pk])
    job.refresh_from_db()
    assert job.status == "done", job.error
    page = client.get(started["Location"]).content.decode()
    assert 'data-testid="chance"' in page and 'data-testid="spread"' in page and 'class="fp-bar"' in page
    assert "hx-trigger" not in page  # a finished job stops polling
    poll = client.get(started["Location"], headers={"HX-Request": "true"}).content.decode()
    assert poll.lstrip().startswith('<article id="job"') and "<html" not in poll

    job.status, job.progress = "running", 40
    job.save()
    running = client.get(started["Location"]).content.decode()
    assert 'hx-trigger="every 1s"' in running and "40%" in running
    too_many = _act(client, battle, "odds", runs="5000")
    assert too_many.status_code == 400 and "runs must be" in too_many.content.decode()


def test_track_live_opens_the_room_and_delete_goes_back_to_the_list(client: Client) -> None:
    battle = _create(client)
    tracked = _act(client, battle, "track")
    battle.refresh_from_db()
    assert tracked.status_code == 302 and tracked["Location"] == reverse("live:room", args=[battle.room_id])
    card = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="room-link"' in card and 'data-testid="track"' not in card
    deleted = _act(client, battle, "delete")
    assert deleted.status_code == 302 and deleted["Location"] == reverse("battles:list")
    assert not Battle.objects.filter(pk=battle.pk).exists()


def test_a_finish_by_hand_keeps_the_answers_on_error(client: Client) -> None:
    battle = _create(client)
    refused = _act(client, battle, "finish", casualties="Bo")
    body = refused.content.decode()
    assert refused.status_code == 400 and "held_field is required" in body
    assert 'value="Bo" checked' in body and '<fieldset class="choice-row" aria-invalid="true">' in body
    done = _act(client, battle, "finish", held_field="yes", casualties="Bo")
    assert done.status_code == 302
    battle.refresh_from_db()
    assert _res(battle)["held_field"] and _res(battle)["casualties"] == ["Bo"]


def test_a_campaign_battle_from_the_form_and_who_may_see_it(client: Client, player: Any) -> None:
    campaign = campaign_services.campaign_create(user=player, name="Long Haul", options={"dramatic_combat": True})
    campaign.refresh_from_db()
    crew_services.character_create(user=player, campaign_id=campaign.pk, version=campaign.version, name="Dorn", species="krag")
    page = client.get(reverse("battles:list") + f"?campaign={campaign.pk}").content.decode()
    assert f'<option value="{campaign.pk}" selected data-dramatic>' in page and 'data-testid="dramatic-note"' in page

    response = client.post(
        reverse("battles:create"),
        {
            **{k: v for k, v in STANDALONE.items() if not k.startswith("crew-")},
            "campaign": str(campaign.pk),
            "hit_open": "",
            "hit_cover": "",
            "battle_flow": "on",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    battle = Battle.objects.get(campaign=campaign)
    assert [c["name"] for c in battle.setup["crew"]] == ["Dorn"]
    assert battle.setup["hit_numbers"]["open"] == 5 and battle.setup["options"]["battle_flow"]
    assert "Long Haul" in client.get(reverse("battles:detail", args=[battle.pk])).content.decode()

    stranger = Client()
    stranger.force_login(UserFactory.create(username="stranger"))
    assert stranger.get(reverse("battles:detail", args=[battle.pk])).status_code == 404
    assert stranger.post(reverse("battles:act", args=[battle.pk, "delete"]), {"version": 1}).status_code == 404
    campaign_services.member_invite(user=player, campaign_id=campaign.pk, username="stranger", role="reader")
    reading = stranger.get(reverse("battles:detail", args=[battle.pk]))
    assert reading.status_code == 200 and 'data-testid="next-steps"' not in reading.content.decode()
    battle.refresh_from_db()
    refused = stranger.post(reverse("battles:act", args=[battle.pk, "delete"]), {"version": battle.version})
    assert refused.status_code == 403
    assert f'value="{campaign.pk}"' not in stranger.get(reverse("battles:list")).content.decode()


def test_the_form_takes_the_enemy_from_the_campaigns_core_table_and_the_card_shows_it(client: Client, player: Any) -> None:
    from battles.tests.test_fp_services import map_my_tables

    campaign = campaign_services.campaign_create(user=player, name="Long Haul", options={"dramatic_combat": True})
    campaign.refresh_from_db()
    crew_services.character_create(user=player, campaign_id=campaign.pk, version=campaign.version, name="Dorn", species="krag")
    map_my_tables(player, campaign, "enemy_encounters", "deployment_conditions")
    page = client.get(reverse("battles:list") + f"?campaign={campaign.pk}").content.decode()
    assert 'data-testid="enemy-core"' in page and 'data-testid="core-note"' in page
    form = {
        **{k: v for k, v in STANDALONE.items() if not k.startswith("crew-") and not k.startswith("enemy_")},
        "campaign": str(campaign.pk),
        "mission_source": "",
        "category": "",
        "hit_open": "",
        "hit_cover": "",
        "enemy_kind": "core",
        "enemy_speed": "6",
    }
    response = client.post(reverse("battles:create"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    battle = Battle.objects.get(campaign=campaign)
    assert battle.setup["enemy"]["type"] in ("Dock gang", "Ghost crew")
    assert {f["speed"] for f in battle.setup["enemy"]["figures"]} == {6}  # typed wins over the row
    assert battle.setup["battle"]["mission"]["source"] == "opportunity"  # no turn: the default
    card = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="core-tables"' in card and battle.setup["enemy"]["type"] in card
    # Deployment conditions belong to conventional battles only.
    assert ("Low light" in card) == (battle.setup["battle"]["mission"]["battle_type"] == "conventional")

    # A standalone battle cannot use a campaign's table: the error names the enemy input.
    refused = client.post(reverse("battles:create"), {**STANDALONE, "enemy_kind": "core"})
    assert refused.status_code == 400 and "only a campaign battle has table slots" in refused.content.decode()


def test_the_card_asks_for_the_no_minis_mission_inputs_it_needs(client: Client, player: Any) -> None:
    from battles import services
    from battles.tests.fp_data import CREW, PUNKS
    from rules.engine.dice import Dice

    def made(objective: str) -> Battle:
        return services.battle_create(
            user=player, enemy=PUNKS, crew=CREW, hit_numbers={"open": 5, "cover": 6}, objective=objective, dice=Dice(seed=4)
        )

    patrol = made("Patrol")
    card = client.get(reverse("battles:detail", args=[patrol.pk])).content.decode()
    assert 'name="patrol_points"' in card and 'name="vip_name"' not in card
    refused = _act(client, patrol, "nominis_start", mode="automatic")
    assert refused.status_code == 400 and 'name="patrol_points"' in refused.content.decode()
    assert Battle.objects.get(pk=patrol.pk).nominis is None  # nothing written
    _act(client, patrol, "nominis_start", mode="automatic", patrol_points="3", task_target="", task_dice="")
    locations = [loc["name"] for loc in _nom(Battle.objects.get(pk=patrol.pk))["state"]["locations"]]
    assert [n for n in locations if n.startswith("Patrol point")] == ["Patrol point 1", "Patrol point 2", "Patrol point 3"]

    protect = made("Protect")
    card = client.get(reverse("battles:detail", args=[protect.pk])).content.decode()
    assert 'name="vip_name"' in card and 'name="escort"' in card
    vip = {"vip_name": "Envoy", "vip_reactions": "1", "vip_speed": "4", "vip_toughness": "3", "escort": "Bo"}
    _act(client, protect, "nominis_start", mode="assisted", task_dice="2D6", task_stat="savvy", task_target="8", **vip)
    state = _nom(Battle.objects.get(pk=protect.pk))["state"]
    assert state["objective"]["vip"] == "Envoy" and state["objective"]["escort"] == "Bo"
    assert state["objective"]["task"] == {"dice": "2D6", "stat": "savvy", "target": 8}

    fight = made("Fight Off")
    assert 'data-testid="mission-inputs"' not in client.get(reverse("battles:detail", args=[fight.pk])).content.decode()


def test_an_elite_battle_finished_by_hand_asks_for_the_rewards_and_shows_them(client: Client, player: Any) -> None:
    from battles import services
    from battles.tests.fp_data import CREW
    from rules.engine.dice import Dice

    enemy = {"elite": True, "category": "Hired Muscle", "base_numbers": 3, "basic_weapon": "Hand gun"}
    battle = services.battle_create(user=player, enemy=enemy, crew=CREW, hit_numbers={"open": 5, "cover": 6}, dice=Dice(seed=3))
    card = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="elite-answers"' in card and 'name="killed_leader"' in card
    _act(client, battle, "finish", held_field="yes", killed_any="on", rival_roll="on")
    battle.refresh_from_db()
    rewards = _res(battle)["elite_rewards"]
    card = client.get(reverse("battles:detail", args=[battle.pk])).content.decode()
    assert 'data-testid="elite-rewards"' in card
    assert all(line.replace("'", "&#x27;") in card for line in rewards["lines"])
    plain = _create(client)
    assert 'data-testid="elite-answers"' not in client.get(reverse("battles:detail", args=[plain.pk])).content.decode()


def test_typed_weapon_profiles_arm_the_enemy_and_a_bad_line_is_named(client: Client) -> None:
    armed = _create(client, enemy_weapons="Scrap gun", weapon_profiles="Scrap gun | 12 | 1 | 0 | Pistol, Clumsy\n")
    assert armed.setup["enemy_weapons"]["Scrap gun"]["range"] == 12 and armed.setup["warnings"] == []
    assert sorted(armed.setup["enemy_weapons"]["Scrap gun"]["traits"]) == ["clumsy", "pistol"]
    # A weapon the app cannot read is refused, naming the input, rather than leaving the enemy unarmed.
    count = Battle.objects.count()
    unknown = client.post(reverse("battles:create"), {**STANDALONE, "enemy_weapons": "Scrap gun"})
    body = unknown.content.decode()
    assert unknown.status_code == 400 and "enemy.weapons: &#x27;Scrap gun&#x27; is not a weapon" in body
    assert (
        'name="enemy_weapons" maxlength="80" value="Scrap gun" placeholder="code (2B) or weapon name" aria-invalid="true"' in body
    )
    # "1 A" is the core code 1A: it asks for the weapons rolled on the core table, then arms the enemy with them.
    coded = client.post(reverse("battles:create"), {**STANDALONE, "enemy_weapons": "1 A"})
    assert coded.status_code == 400 and 'name="basic_weapon"' in coded.content.decode()
    assert "enemy.basic_weapon: weapons 1A are rolled" in coded.content.decode() and Battle.objects.count() == count
    armed_by_code = _create(client, enemy_weapons="1 A", basic_weapon="Hand gun")
    assert armed_by_code.setup["enemy_weapons"]["Hand gun"] and armed_by_code.setup["warnings"] == []
    assert all(f["weapons"] for f in armed_by_code.setup["enemy"]["figures"])
    refused = client.post(reverse("battles:create"), {**STANDALONE, "weapon_profiles": "Scrap gun | twelve | 1 | 0"})
    body = refused.content.decode()
    assert refused.status_code == 400 and "weapon_profiles line 1" in body
    assert 'name="weapon_profiles" rows="2" placeholder="Scrap gun | 12 | 1 | 0 | Pistol" aria-invalid="true"' in body
    wrong = client.post(
        reverse("battles:create"),
        {**STANDALONE, "enemy_weapons": "Scrap gun", "weapon_profiles": "Scrap gun | 12 | 1 | 0 | Sticky"},
    )
    assert (
        wrong.status_code == 400 and 'placeholder="Scrap gun | 12 | 1 | 0 | Pistol" aria-invalid="true"' in wrong.content.decode()
    )


def test_an_elite_enemy_from_the_form_carries_the_weapons_named(client: Client) -> None:
    elite = {"enemy_kind": "elite", "category": "Criminal Elements", "base_numbers": "3"}
    bare = _create(client, **elite)
    armed = _create(client, **elite, basic_weapon="Hand gun", specialist_weapon="Shotgun")
    assert armed.setup["enemy"]["basic_weapon"] == "Hand gun" and armed.setup["enemy"]["specialist_weapon"] == "Shotgun"
    code = bare.setup["enemy"]["basic_weapon"]
    assert code.startswith("Basic weapon (")  # a core code such as 1B, with no profile: the card warns
    assert any(code in w for w in bare.setup["warnings"]) and not any("Basic weapon (" in w for w in armed.setup["warnings"])


def test_the_rival_roll_answer_rolls_gang_feuds_for_criminal_elements(client: Client, player: Any) -> None:
    from battles import services
    from battles.tests.fp_data import CREW
    from rules.engine.dice import Dice

    enemy = {"elite": True, "category": "Criminal Elements", "base_numbers": 3, "basic_weapon": "Hand gun"}
    lines = {}
    for answer in ("on", ""):
        battle = services.battle_create(
            user=player, enemy=enemy, crew=CREW, hit_numbers={"open": 5, "cover": 6}, dice=Dice(seed=3)
        )
        _act(client, battle, "finish", held_field="yes", rival_roll=answer)
        battle.refresh_from_db()
        lines[answer] = " ".join(_res(battle)["elite_rewards"]["lines"])
    assert "Gang feuds" in lines["on"] and "Gang feuds" not in lines[""]


def test_a_campaign_reader_posting_a_bad_battle_form_is_told_their_role_not_the_form_error(client: Client, player: Any) -> None:
    campaign = campaign_services.campaign_create(user=player, name="Long Haul", options={})
    campaign.refresh_from_db()
    crew_services.character_create(user=player, campaign_id=campaign.pk, version=campaign.version, name="Dorn", species="krag")
    response = client.post(
        reverse("battles:create"),
        {**{k: v for k, v in STANDALONE.items() if not k.startswith("crew-")}, "campaign": str(campaign.pk)},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    battle = Battle.objects.get(campaign=campaign)
    reader = UserFactory.create(username="stranger")
    campaign_services.member_invite(user=player, campaign_id=campaign.pk, username="stranger", role="reader")
    stranger = Client()
    stranger.force_login(reader)
    refused = stranger.post(reverse("battles:act", args=[battle.pk, "odds"]), {"version": battle.version, "runs": "lots"})
    assert refused.status_code == 403
    assert "must be a whole number" not in refused.content.decode()


def test_the_finish_form_and_the_api_share_one_input(client: Client) -> None:
    """battles.inputs reads the form's yes/no radios and blank numbers as the API reads JSON."""
    battle = _create(client)
    refused = _act(client, battle, "finish", held_field="maybe")
    assert refused.status_code == 400 and "held_field: Must be a valid boolean." in refused.content.decode()
    refused = _act(client, battle, "finish", held_field="no", psionic_uses="100")
    assert refused.status_code == 400 and "psionic_uses" in refused.content.decode()
    done = _act(client, battle, "finish", held_field="no", won="", psionic_uses="")
    assert done.status_code == 302
    battle.refresh_from_db()
    assert _res(battle)["held_field"] is False
