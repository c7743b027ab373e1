"""Campaign services: set-up options and their effect, crew rules where the app acts, table
slots, members and roles, stale writes, the guided turn's undo, export/import jobs."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import crew_services, services, turn_services
from campaigns.models import Campaign, CampaignJob, LogEntry, Ship
from campaigns.tests.conftest import core_table
from rules.engine.dice import Dice
from rules.errors import DropshipError, NotAllowed, NotFound, StaleVersion
from rules.services import user_tables_import

pytestmark = pytest.mark.django_db


def _v(campaign: Campaign) -> int:
    campaign.refresh_from_db()
    return campaign.version


def make(player: Any, **options: Any) -> Campaign:
    return services.campaign_create(user=player, name="Test crew", options=options, dice=Dice(seed=1))


def plan_keys(campaign: Campaign) -> list[str]:
    campaign.refresh_from_db()
    return [s.key for s in turn_services.plan_preview(campaign)]


# -- set-up ------------------------------------------------------------------------------------


def test_a_bad_option_names_the_field_and_writes_nothing(fiveparsecs_tables: None, player: Any) -> None:
    with pytest.raises(DropshipError) as error:
        make(player, crew_size=7)
    assert error.value.field == "crew_size" and "4, 5, 6" in error.value.message
    with pytest.raises(DropshipError) as error:
        make(player, toggles=["hard_mode"])
    assert error.value.field == "toggles"
    assert not Campaign.objects.exists()


def test_no_ship_toggle_starts_without_a_ship(fiveparsecs_tables: None, player: Any) -> None:
    assert Ship.objects.filter(campaign=make(player)).exists()
    assert not Ship.objects.filter(campaign=make(player, toggles=["gutter_no_ship"])).exists()


def test_loans_roll_the_loan_at_set_up(fiveparsecs_tables: None, player: Any) -> None:
    plain = make(player)
    assert plain.loan == {}
    loaned = make(player, loans=True)
    assert loaned.loan["origin"] and loaned.loan["interest"]
    assert loaned.log.filter(kind="setup", text__startswith="Loan").get().rolls
    assert "world.loan_enforcement" in plan_keys(loaned) and "world.loan_enforcement" not in plan_keys(plain)


@pytest.mark.parametrize(
    ("option", "value", "step"),
    [
        ("psionics", "crew", "arrival.psionic_legality"),
        ("psionics", "both", "post.psionic_detection"),
        ("fringe_world_strife", True, "arrival.instability"),
        ("expanded_factions", True, "arrival.factions"),
        ("story_track", True, "post.story_track"),
        ("elite_enemies", "roll", "battle.elite"),
    ],
)
def test_each_option_brings_its_turn_step(fiveparsecs_tables: None, player: Any, option: str, value: Any, step: str) -> None:
    assert step not in plan_keys(make(player))
    assert step in plan_keys(make(player, **{option: value}))


def test_introductory_campaign_shortens_the_first_turn(fiveparsecs_tables: None, player: Any) -> None:
    full = plan_keys(make(player))
    intro = plan_keys(make(player, introductory_campaign=True))
    assert len(intro) < len(full) and "world.crew_tasks" in full


def test_options_change_mid_campaign_and_are_logged(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    services.campaign_update(user=player, campaign_id=campaign.pk, version=_v(campaign), options={"story_track": True})
    assert "post.story_track" in plan_keys(campaign)
    assert campaign.log.filter(kind="setup", text__contains="Story Track off to on").exists()


# -- crew ------------------------------------------------------------------------------------------


def test_krag_with_a_patron_gains_a_rival_and_skulker_ignores_the_first(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    krag = crew_services.character_create(user=player, campaign_id=campaign.pk, version=_v(campaign), name="Dorn", species="krag")
    assert (krag.speed, krag.toughness) == (4, 4)
    crew_services.character_creation_results(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=krag.pk, patrons=2, rivals=0
    )
    assert (campaign.patrons.count(), campaign.rivals.count()) == (2, 1)
    skulker = crew_services.character_create(
        user=player, campaign_id=campaign.pk, version=_v(campaign), name="Pip", species="skulker"
    )
    crew_services.character_creation_results(
        user=player,
        campaign_id=campaign.pk,
        version=_v(campaign),
        character_id=skulker.pk,
        rivals=1,
        credits_results=1,
        credits_faces=[3],
    )
    campaign.refresh_from_db()
    assert campaign.rivals.count() == 1  # the Skulker's first Rival is ignored (p.14)
    assert campaign.credits == 3  # a typed D3 face of 3
    with pytest.raises(DropshipError, match="already in"):
        crew_services.character_creation_results(
            user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=skulker.pk
        )


def test_money_is_tight_takes_one_off_creation_credits(fiveparsecs_tables: None, player: Any) -> None:
    for toggles, expected in (([], 4), (["money_is_tight"], 3)):
        campaign = make(player, toggles=toggles)
        member = crew_services.character_create(
            user=player, campaign_id=campaign.pk, version=_v(campaign), name="A", species="krag"
        )
        crew_services.character_creation_results(
            user=player,
            campaign_id=campaign.pk,
            version=_v(campaign),
            character_id=member.pk,
            credits_results=1,
            credits_faces=[4],
        )
        campaign.refresh_from_db()
        assert campaign.credits == expected


def test_psionics_need_the_option_and_one_per_crew(fiveparsecs_tables: None, player: Any) -> None:
    off = make(player)
    with pytest.raises(DropshipError):
        crew_services.character_create(user=player, campaign_id=off.pk, version=_v(off), name="Vex", species="krag", psionic=True)
    campaign = make(player, psionics="crew")
    vex = crew_services.character_create(
        user=player, campaign_id=campaign.pk, version=_v(campaign), name="Vex", species="krag", psionic=True, power_faces=[1, 7]
    )
    assert vex.sheet["powers"] == {"Barrier": False, "Shock": False}
    with pytest.raises(DropshipError, match="Psionic"):
        crew_services.character_create(
            user=player, campaign_id=campaign.pk, version=_v(campaign), name="Two", species="krag", psionic=True
        )
    crew_services.character_implant(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=vex.pk, implant="Neural link"
    )
    vex.refresh_from_db()
    assert vex.sheet["psionics_lost"] is True
    assert campaign.log.filter(text__contains="loses their psionic powers").exists()


def test_a_repeated_power_asks_for_the_neighbour(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player, psionics="crew")
    with pytest.raises(DropshipError) as error:
        crew_services.character_create(
            user=player,
            campaign_id=campaign.pk,
            version=_v(campaign),
            name="Vex",
            species="krag",
            psionic=True,
            power_faces=[5, 5],
        )
    assert error.value.field == "duplicate_choice" and error.value.extra["choices"] == ["Shroud", "Predict"]
    assert not campaign.characters.exists()
    vex = crew_services.character_create(
        user=player,
        campaign_id=campaign.pk,
        version=_v(campaign),
        name="Vex",
        species="krag",
        psionic=True,
        power_faces=[5, 5],
        duplicate_choice="Predict",
    )
    assert set(vex.sheet["powers"]) == {"Enrage", "Predict"}


def test_advancement_reads_slower_progression_or_the_users_core_costs(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    member = crew_services.character_create(user=player, campaign_id=campaign.pk, version=_v(campaign), name="A", species="krag")
    crew_services.character_update(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=member.pk, values={"xp": 10}
    )
    with pytest.raises(DropshipError) as error:
        crew_services.character_advance(
            user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=member.pk, stat="reactions"
        )
    assert "upgrade" in error.value.message.lower()
    rows = [(None, None, "Reactions", {"stat": "reactions", "xp": 7, "maximum": 6})]
    user_tables_import(user=player, text=core_table("my-costs", "My upgrade costs", "", rows, ["stat", "xp", "maximum"]))  # type: ignore[arg-type]
    services.slot_set(
        user=player, campaign_id=campaign.pk, version=_v(campaign), slot_key="advancement_costs", table_slug="my-costs"
    )
    crew_services.character_advance(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=member.pk, stat="reactions"
    )
    member.refresh_from_db()
    assert (member.reactions, member.xp) == (2, 3)
    services.campaign_update(
        user=player, campaign_id=campaign.pk, version=_v(campaign), options={"toggles": ["slower_progression"]}
    )
    crew_services.character_update(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=member.pk, values={"xp": 10}
    )
    crew_services.character_advance(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=member.pk, stat="reactions"
    )
    member.refresh_from_db()
    assert (member.reactions, member.xp) == (3, 2)  # Slower Progression: Reactions cost 8 XP (p.32)


def test_bot_upgrades_once_per_turn_and_paid(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    bot = crew_services.character_create(
        user=player,
        campaign_id=campaign.pk,
        version=_v(campaign),
        name="Unit 7",
        species="bot",
        kind="bot",
        profile={"reactions": 2, "speed": 4, "combat_skill": 0, "toughness": 4, "savvy": 0},
    )
    services.campaign_adjust(user=player, campaign_id=campaign.pk, version=_v(campaign), credits=20)
    crew_services.character_bot_upgrade(
        user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=bot.pk, upgrade="Jump module"
    )
    campaign.refresh_from_db()
    assert campaign.credits == 14
    with pytest.raises(DropshipError, match="turn"):
        crew_services.character_bot_upgrade(
            user=player, campaign_id=campaign.pk, version=_v(campaign), character_id=bot.pk, upgrade="Improved armor casing"
        )


def test_ship_parts_and_the_miniaturized_mod(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    services.campaign_adjust(user=player, campaign_id=campaign.pk, version=_v(campaign), credits=40)
    crew_services.ship_component(
        user=player, campaign_id=campaign.pk, version=_v(campaign), name="Expanded Database", miniaturized=True
    )
    crew_services.ship_component(user=player, campaign_id=campaign.pk, version=_v(campaign), name="Scientific Research System")
    campaign.refresh_from_db()
    assert campaign.credits == 40 - 15 - 10
    assert campaign.log.filter(kind="ship", text__contains="1 components count for fuel").exists()
    assert "travel.research" in plan_keys(campaign)
    with pytest.raises(DropshipError) as error:
        crew_services.ship_component(user=player, campaign_id=campaign.pk, version=_v(campaign), name="Expanded Database")
    assert error.value.field


# -- slots, members, versions ---------------------------------------------------------------------


def test_slot_needs_own_table_of_the_right_shape(fiveparsecs_tables: None, player: Any, other: Any) -> None:
    campaign = make(player)
    user_tables_import(user=other, text=core_table("their-loot", "Their loot", "D6", [(1, 6, "Junk", {})]))
    with pytest.raises(DropshipError, match="No table"):
        services.slot_set(user=player, campaign_id=campaign.pk, version=_v(campaign), slot_key="loot", table_slug="their-loot")
    with pytest.raises(DropshipError) as error:
        services.slot_set(user=player, campaign_id=campaign.pk, version=_v(campaign), slot_key="treasure", table_slug="x")
    assert "loot" in error.value.message
    user_tables_import(user=player, text=core_table("my-loot", "My loot", "D6", [(1, 6, "Junk", {})]))
    with pytest.raises(DropshipError, match="reference table"):
        services.slot_set(
            user=player, campaign_id=campaign.pk, version=_v(campaign), slot_key="advancement_costs", table_slug="my-loot"
        )
    services.slot_set(user=player, campaign_id=campaign.pk, version=_v(campaign), slot_key="loot", table_slug="my-loot")
    assert campaign.slots.get().table.slug == "my-loot"


def test_roles_editor_reader_outsider(fiveparsecs_tables: None, player: Any, other: Any) -> None:
    from tests.factories import UserFactory

    UserFactory(username="third")
    campaign = make(player)
    with pytest.raises(NotFound):
        services.campaign_adjust(user=other, campaign_id=campaign.pk, version=_v(campaign), credits=5)
    services.member_invite(user=player, campaign_id=campaign.pk, username="stranger", role="reader")
    with pytest.raises(NotAllowed):
        services.campaign_adjust(user=other, campaign_id=campaign.pk, version=_v(campaign), credits=5)
    assert services.campaign_export(user=other, campaign_id=campaign.pk)["campaign"]["name"] == "Test crew"
    services.member_invite(user=player, campaign_id=campaign.pk, username="stranger", role="editor")
    services.campaign_adjust(user=other, campaign_id=campaign.pk, version=_v(campaign), credits=5)
    with pytest.raises(NotAllowed):
        services.member_invite(user=other, campaign_id=campaign.pk, username="third", role="reader")
    with pytest.raises(DropshipError) as error:
        services.member_invite(user=player, campaign_id=campaign.pk, username="stranger", role="admiral")
    assert error.value.field == "role"


def test_a_stale_write_is_refused(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    old = _v(campaign)
    services.campaign_adjust(user=player, campaign_id=campaign.pk, version=old, credits=5)
    with pytest.raises(StaleVersion) as error:
        services.campaign_adjust(user=player, campaign_id=campaign.pk, version=old, credits=5)
    assert error.value.extra["version"] == old + 1
    campaign.refresh_from_db()
    assert campaign.credits == 5


# -- the turn ------------------------------------------------------------------------------------------


def test_undo_puts_the_campaign_back_and_strikes_the_log(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player, toggles=["money_is_tight"])
    crew_services.character_create(user=player, campaign_id=campaign.pk, version=_v(campaign), name="A", species="krag")
    services.campaign_adjust(user=player, campaign_id=campaign.pk, version=_v(campaign), credits=10)
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    while turn_services.step_guide(campaign, turn)["spec"].key != "world.upkeep":  # type: ignore[index]
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="as rolled")
        turn.refresh_from_db()
    step = turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll")
    campaign.refresh_from_db()
    assert campaign.credits == 10  # Money is Tight: upkeep 0 for a crew of one (p.32)
    assert "Upkeep 0" in step.text
    turn_services.step_resolve(
        user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="sold scrap", credits=3
    )
    campaign.refresh_from_db()
    assert campaign.credits == 13
    turn_services.step_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    campaign.refresh_from_db()
    turn.refresh_from_db()
    assert campaign.credits == 10
    assert LogEntry.objects.get(campaign=campaign, kind="step", text__contains="sold scrap").undone
    assert turn_services.step_guide(campaign, turn)["spec"].key == step.key or turn.position == step.index + 1  # type: ignore[index]


def test_a_step_without_a_table_asks_for_the_result_by_hand(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    with pytest.raises(DropshipError) as error:
        while True:
            turn_services.step_resolve(
                user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", inputs={"travel": "no"}
            )
    assert error.value.field == "mode" and "by hand" in error.value.message
    with pytest.raises(DropshipError) as error:
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="")
    assert error.value.field == "text"


def test_psionic_use_on_an_outlawed_world_can_bring_psi_hunters(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player, psionics="crew")
    crew_services.character_create(
        user=player, campaign_id=campaign.pk, version=_v(campaign), name="Vex", species="krag", psionic=True, power_faces=[1, 2]
    )
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    inputs = {
        "travel": "yes",
        "mission": "opportunity",
        "won": "yes",
        "held_field": "no",
        "psionic_uses": "3",
        "core_upkeep": "0",
        f"xp_{campaign.characters.get(name='Vex').pk}": "2",  # the XP step asks every active crew member's XP
    }
    found = False
    for _ in range(60):
        turn.refresh_from_db()
        if turn.finished:
            break
        guide = turn_services.step_guide(campaign, turn)
        assert guide is not None
        key = guide["spec"].key
        if key == "arrival.psionic_legality":
            turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="enter", value=10)
        elif key == "post.psionic_detection":
            found = True
            turn_services.step_resolve(
                user=player, campaign_id=campaign.pk, version=_v(campaign), mode="enter", value=2, inputs={"faces": [5]}
            )
        elif guide["rollable"]:
            turn_services.step_resolve(
                user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", inputs=inputs, dice=Dice(seed=5)
            )
        else:
            turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="by hand")
    assert found
    hunters = campaign.rivals.filter(psi_hunter=True)
    assert hunters.count() == 1  # several uses detect on 1-2; a typed 2 detects (p.21)


# -- export and import jobs --------------------------------------------------------------------------


def test_export_and_import_jobs_and_a_malformed_file(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    crew_services.character_create(user=player, campaign_id=campaign.pk, version=_v(campaign), name="A", species="krag")
    export = CampaignJob.objects.create(owner=player, kind="export", campaign=campaign)
    done = services.job_run(job_id=export.pk)
    assert done.document is not None
    assert done.state == "done" and done.progress == 100 and done.document["characters"][0]["name"] == "A"
    bad = dict(done.document)
    bad["characters"] = [{"name": "no ref"}]
    failed = services.job_run(job_id=CampaignJob.objects.create(owner=player, kind="import", document=bad).pk)
    assert failed.state == "failed" and "characters[0] lacks ref" in failed.message
    assert Campaign.objects.count() == 1
    imported = services.job_run(job_id=CampaignJob.objects.create(owner=player, kind="import", document=done.document).pk)
    assert imported.state == "done" and imported.campaign is not None
    assert imported.campaign.characters.get().name == "A"


def test_the_campaign_room_is_unlisted_and_takes_no_actions(fiveparsecs_tables: None, player: Any) -> None:
    from live import registry
    from live.services import room_act, room_create

    assert "fiveparsecs-campaign" not in [k.kind for k in registry.kinds()]
    with pytest.raises(DropshipError, match="own pages"):
        room_create(user=player, kind="fiveparsecs-campaign", title="Sneaky")
    campaign = make(player)
    assert campaign.room.state["name"] == "Test crew" and campaign.room.state["version"] == campaign.version
    with pytest.raises(DropshipError, match="campaign's pages"):
        room_act(user=player, room_id=campaign.room_id, type="anything", payload={}, version=campaign.room.version)


def _play_to_injuries(player: Any, campaign: Campaign, casualty: str) -> Any:
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    inputs = {
        "travel": "no",
        "mission": "opportunity",
        "won": "no",
        "held_field": "no",
        "casualties": [casualty],
        "core_upkeep": "0",
    }
    for index in range(60):
        turn.refresh_from_db()
        guide = turn_services.step_guide(campaign, turn)
        assert guide is not None
        if guide["spec"].key == "post.injuries":
            return turn_services.step_resolve(
                user=player, campaign_id=campaign.pk, version=_v(campaign), mode="roll", dice=Dice(seed=9)
            )
        mode = "roll" if guide["rollable"] else "manual"
        turn_services.step_resolve(
            user=player,
            campaign_id=campaign.pk,
            version=_v(campaign),
            mode=mode,
            inputs=inputs,
            text="by hand",
            dice=Dice(seed=index),
        )
    pytest.fail("never reached the injuries step")


def test_detailed_injuries_roll_the_compendium_table_only_when_on(fiveparsecs_tables: None, player: Any) -> None:
    for detailed in (False, True):
        campaign = make(player, detailed_injuries=detailed)
        member = crew_services.character_create(
            user=player, campaign_id=campaign.pk, version=_v(campaign), name="Dorn", species="krag"
        )
        step = _play_to_injuries(player, campaign, str(member.pk))
        if detailed:
            assert step.rolls and step.rolls[0]["notation"] == "D100"  # Detailed Post-battle Injuries (p.101)
        else:
            assert not step.rolls and "core injury table" in step.text


# -- undo outside the turn, Primary Alien, names, the crew fight ------------------------------------


def test_undo_takes_back_crew_and_ship_edits_one_at_a_time(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    crew_services.character_create(user=player, campaign_id=campaign.pk, version=_v(campaign), name="Ada", species="krag")
    services.campaign_adjust(user=player, campaign_id=campaign.pk, version=_v(campaign), credits=7, reason="sold scrap")
    campaign.refresh_from_db()
    credits = campaign.credits
    assert "sold scrap" in turn_services.change_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    campaign.refresh_from_db()
    assert campaign.credits == credits - 7 and campaign.characters.filter(name="Ada").exists()
    turn_services.change_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    assert not campaign.characters.filter(name="Ada").exists()
    assert LogEntry.objects.filter(campaign=campaign, kind="crew", undone=True).count() >= 2
    with pytest.raises(DropshipError) as error:  # the set-up itself is not an edit to take back
        turn_services.change_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    assert error.value.field == "log"


def test_undo_after_a_turn_step_takes_back_the_step(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=_v(campaign))
    turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=_v(campaign), mode="manual", text="a quiet trip")
    turn.refresh_from_db()
    after = turn.position
    assert "last step" in turn_services.change_undo(user=player, campaign_id=campaign.pk, version=_v(campaign))
    turn.refresh_from_db()
    assert turn.position < after and not turn.steps.filter(text="a quiet trip").exists()


def test_primary_alien_roll_is_logged_and_gives_a_species(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    assert crew_services.species_roll(user=player, campaign_id=campaign.pk, version=_v(campaign), value=45) == "krag"
    line = campaign.log.get(text__startswith="Primary Alien")
    assert line.rolls[0]["total"] == 45 and line.rolls[0]["entered"]
    rolled = crew_services.species_roll(user=player, campaign_id=campaign.pk, version=_v(campaign), dice=Dice(seed=3))
    assert rolled in {"engineer", "feral", "kerin", "krag", "precursor", "skulker", "soulless", "swift"}
    with pytest.raises(DropshipError) as error:
        crew_services.species_roll(user=player, campaign_id=campaign.pk, version=_v(campaign), value=101)
    assert error.value.field == "value"


def test_rolled_names_go_to_the_ship_a_patron_or_the_world(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    ship_name = services.name_roll(user=player, campaign_id=campaign.pk, version=_v(campaign), recipe="ship", use="ship")
    assert Ship.objects.get(campaign=campaign).name == ship_name and ship_name.startswith("The ")
    patron = services.name_roll(
        user=player, campaign_id=campaign.pk, version=_v(campaign), recipe="corporate-patron", use="patron"
    )
    assert campaign.patrons.filter(name=patron).exists()
    line = campaign.log.filter(text__contains=patron).get()
    assert len(line.rolls) == 2 and line.changes[0]["kind"] == "patron_add"
    with pytest.raises(DropshipError) as error:  # no world before the first arrival
        services.name_roll(user=player, campaign_id=campaign.pk, version=_v(campaign), recipe="colony", use="world")
    assert error.value.field == "use"
    with pytest.raises(DropshipError) as error:
        services.name_roll(user=player, campaign_id=campaign.pk, version=_v(campaign), recipe="ship", use="patron")
    assert error.value.field == "recipe" and "corporate-patron" in error.value.message
    campaign.worlds.create(name="Old Name", current=True)
    world_name = services.name_roll(user=player, campaign_id=campaign.pk, version=_v(campaign), recipe="colony", use="world")
    assert campaign.worlds.get(current=True).name == world_name != "Old Name"


def test_the_crew_fight_picks_a_krag_when_there_is_one(fiveparsecs_tables: None, player: Any) -> None:
    campaign = make(player)
    for name, species in (("Ann", "skulker"), ("Bo", "skulker")):
        crew_services.character_create(user=player, campaign_id=campaign.pk, version=_v(campaign), name=name, species=species)
    picks = {
        crew_services.fight_pick(user=player, campaign_id=campaign.pk, version=_v(campaign), dice=Dice(seed=s)).name
        for s in range(8)
    }
    assert picks == {"Ann", "Bo"}  # no Krag: anyone
    crew_services.character_create(user=player, campaign_id=campaign.pk, version=_v(campaign), name="Krok", species="krag")
    for seed in range(8):
        chosen = crew_services.fight_pick(user=player, campaign_id=campaign.pk, version=_v(campaign), dice=Dice(seed=seed))
        assert chosen.name == "Krok"
    assert "no Story Point" in campaign.log.order_by("-id").first().text  # type: ignore[union-attr]


def test_a_long_campaign_name_gives_a_ship_name_that_fits_its_column(player: Any, fiveparsecs_tables: None) -> None:
    campaign = services.campaign_create(user=player, name="N" * 80, options={"crew_size": 4})
    name = Ship.objects.get(campaign=campaign).name
    assert name.startswith("NNN") and len(name) <= Ship._meta.get_field("name").max_length  # type: ignore[operator]
