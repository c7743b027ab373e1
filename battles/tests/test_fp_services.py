"""Five Parsecs battle services: set-up from a campaign and standalone, refusals that name the
field and write nothing, versions and roles, no-minis play with undo and replay, the result
handed to the campaign turn, the live tracker path and odds jobs."""

from __future__ import annotations

from typing import Any

import pytest

from battles import nominis_services, odds_services, result_services, selectors, services, tracker_services
from battles.models import Battle, BattleJob
from battles.tests.fp_data import CREW, PUNKS
from campaigns import services as campaign_services
from campaigns import turn_services
from campaigns.models import Campaign, Character
from campaigns.selectors import current_turn
from campaigns.tests.conftest import core_table
from live import services as live_services
from rules.engine.dice import Dice
from rules.errors import DropshipError, NotAllowed, NotFound, StaleVersion
from rules.services import user_tables_import
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

ELITE = {"elite": True, "category": "Criminal Elements", "base_numbers": 3, "basic_weapon": "Hand gun"}


def standalone(user: Any, **extra: Any) -> Battle:
    args: dict[str, Any] = {"enemy": PUNKS, "crew": CREW, "hit_numbers": {"open": 5, "cover": 6}, "dice": Dice(seed=4)}
    args.update(extra)
    return services.battle_create(user=user, **args)


def make_campaign(user: Any, **options: Any) -> Campaign:
    campaign = campaign_services.campaign_create(user=user, name="Drift", options={"crew_size": 4, **options})
    Character.objects.create(
        campaign=campaign, name="Ria", is_captain=True, reactions=2, speed=5, combat_skill=1, toughness=4,
        sheet={"equipment": ["Military rifle", "Med-patch"]},
    )  # fmt: skip
    Character.objects.create(campaign=campaign, name="Bo", reactions=1, speed=4, toughness=3, sheet={"equipment": ["Hand gun"]})
    Character.objects.create(campaign=campaign, name="Zed", status="sick_bay", sick_bay=2)
    return campaign


def nm(battle: Battle) -> dict[str, Any]:
    assert battle.nominis is not None
    return battle.nominis


def res(battle: Battle | BattleJob) -> dict[str, Any]:
    assert battle.result is not None
    return battle.result


def fresh(battle: Battle) -> Battle:
    battle.refresh_from_db()
    return battle


# -- set-up ---------------------------------------------------------------------------------------


def test_a_campaign_battle_fields_the_active_crew_with_the_campaign_options(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True, casualty_tables=True)
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, theme="industrial", dice=Dice(seed=4))
    crew = battle.setup["crew"]
    assert [c["name"] for c in crew] == ["Ria", "Bo"]  # Zed is in Sick Bay
    ria = Character.objects.get(name="Ria")
    assert crew[0]["ref"] == str(ria.pk) and crew[0]["captain"] and crew[0]["reactions"] == 2
    assert [w["name"] for w in crew[0]["weapons"]] == ["Military rifle"]  # a Med-patch is no weapon
    assert battle.setup["hit_numbers"]["open"] == 5 and battle.setup["hit_numbers"]["cover"] == 6
    assert battle.setup["options"]["casualty_tables"] is True and battle.setup["battle"]["crew_size"] == 2
    assert battle.setup["enemy"]["elite"] and battle.setup["battle"]["terrain"] is not None
    assert battle.campaign_id == campaign.pk and battle.status == "setup"


def test_enemy_psionics_are_rolled_at_set_up_when_the_options_bring_them(player: Any) -> None:
    def psionics(option: str) -> list[tuple[str, list[str], list[str]]]:
        options = {"dramatic_combat": True, "psionics": option}
        battle = standalone(player, enemy=ELITE, options=options, hit_numbers=None, dice=Dice(seed=0))
        return [(f["name"], f["psionic_powers"], f["weapons"]) for f in battle.setup["enemy"]["figures"] if f["psionic_powers"]]

    assert psionics("off") == [] and psionics("crew") == []
    [(name, powers, weapons)] = psionics("enemies")
    assert powers and weapons == ["Hand gun", "Blade"]  # the Psionic's kit (p.23), both with profiles
    assert psionics("both") == [(name, powers, weapons)]


ENCOUNTER_KEYS = ["numbers", "panic", "speed", "combat_skill", "toughness", "weapons"]
MY_TABLES: dict[
    str, tuple[str, str, list[tuple[int, int, str, dict[str, Any]]], list[str]]
] = {  # a player's own copies of core-rulebook tables (our placeholder words)
    "objectives": ("my-objectives", "D6", [(1, 3, "Move Through", {}), (4, 6, "Acquire", {})], []),
    "deployment_conditions": ("my-conditions", "D6", [(1, 6, "Low light", {})], []),
    "notable_sights": ("my-sights", "D6", [(1, 6, "Odd wreck", {})], []),
    "enemy_encounters": (
        "my-enemies",
        "D6",
        [
            (
                1,
                3,
                "Dock gang",
                {"numbers": 1, "panic": "1-2", "speed": 4, "combat_skill": 0, "toughness": 3, "weapons": "Hand gun"},
            ),
            (4, 6, "Ghost crew", {"numbers": 0, "panic": "1", "speed": 5, "combat_skill": 1, "toughness": 4, "weapons": "Blade"}),
        ],
        ENCOUNTER_KEYS,
    ),
    "bare_enemies": ("my-bare-enemies", "D6", [(1, 6, "Ghost crew", {})], []),
}


def map_my_tables(player: Any, campaign: Campaign, *slots: str) -> None:
    for slot in slots:
        slug, die, rows, keys = MY_TABLES[slot]
        slot = "enemy_encounters" if slot == "bare_enemies" else slot
        user_tables_import(user=player, text=core_table(slug, slug.replace("-", " ").title(), die, rows, keys))
        campaign.refresh_from_db()
        campaign_services.slot_set(user=player, campaign_id=campaign.pk, version=campaign.version, slot_key=slot, table_slug=slug)


def test_a_campaign_battle_rolls_the_players_own_core_tables(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    map_my_tables(player, campaign, *[k for k in MY_TABLES if k != "bare_enemies"])
    enemy = {"core_table": True, "toughness": "", "base_numbers": 3}
    battle = services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=enemy, battle_type="conventional", dice=Dice(seed=2)
    )
    core = {c["part"]: c for c in battle.setup["core"]}
    assert set(core) == {"objectives", "deployment_conditions", "notable_sights", "enemy_encounters"}
    assert core["deployment_conditions"]["result"] == "Low light" and core["notable_sights"]["result"] == "Odd wreck"
    assert all(c["roll"] and c["roll"]["notation"] == "D6" for c in core.values())
    assert battle.setup["objective"] in ("Move Through", "Acquire")  # rolled on my-objectives by the mission
    assert battle.setup["battle"]["mission"]["objectives"][0]["name"] == battle.setup["objective"]
    enemy_row = core["enemy_encounters"]["result"]
    assert battle.setup["enemy"]["type"] == enemy_row and not battle.setup["enemy"]["elite"]
    assert {f["toughness"] for f in battle.setup["enemy"]["figures"]} == {3 if enemy_row == "Dock gang" else 4}
    # The Notable Sight is a suspected Location when the battle is played without miniatures.
    battle = nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="automatic",
                                    mission_setup={"patrol_points": 2})  # fmt: skip
    assert "Odd wreck" in [loc["name"] for loc in nm(battle)["state"]["locations"]]
    # The set-up is in the campaign log with every roll it made.
    line = campaign.log.filter(kind="battle").get()
    assert "Low light" in line.text and len(line.rolls) >= 4


def test_a_core_table_row_without_stats_asks_for_them_by_name(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    map_my_tables(player, campaign, "bare_enemies")
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=campaign.pk, enemy={"core_table": True}, dice=Dice(seed=1))
    assert refused.value.field == "enemy.speed" and "Ghost crew" in str(refused.value) and "toughness" in str(refused.value)
    assert not Battle.objects.exists() and not campaign.log.filter(kind="battle").exists()
    typed = {"core_table": True, "speed": 5, "combat_skill": 1, "toughness": 4, "weapons": "Hand gun", "base_numbers": 3}
    made = services.battle_create(user=player, campaign_id=campaign.pk, enemy=typed, dice=Dice(seed=1))
    assert made.setup["enemy"]["type"] == "Ghost crew" and made.setup["enemy"]["figures"][0]["speed"] == 5
    with pytest.raises(DropshipError) as refused:
        standalone(player, enemy={"core_table": True})
    assert refused.value.field == "enemy.core_table"
    bare = make_campaign(player, dramatic_combat=True)
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=bare.pk, enemy={"core_table": True}, dice=Dice(seed=1))
    assert refused.value.field == "enemy.core_table" and "map a table" in str(refused.value)


def test_what_the_turn_already_rolled_is_taken_not_rolled_again(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    map_my_tables(player, campaign, *[k for k in MY_TABLES if k != "bare_enemies"])
    campaign.refresh_from_db()
    turn_services.turn_start(user=player, campaign_id=campaign.pk, version=campaign.version)
    rolled: dict[str, str] = {}
    for _ in range(60):
        campaign.refresh_from_db()
        turn = current_turn(campaign)
        assert turn is not None
        key = turn.plan[turn.position]["key"]
        if key == "battle.setup":
            break
        if key == "battle.type":
            turn_services.step_resolve(
                user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll", inputs={"mission": "rival"}
            )
        elif key in ("battle.deployment", "battle.objective", "battle.enemy"):
            step = turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="roll")
            rolled[key] = step.text
        elif key == "battle.sights":
            turn_services.step_resolve(
                user=player, campaign_id=campaign.pk, version=campaign.version, mode="manual", text="A shrine"
            )
        else:
            turn_services.step_resolve(
                user=player, campaign_id=campaign.pk, version=campaign.version, mode="manual", text="Done."
            )
    battle = services.battle_create(
        user=player, campaign_id=campaign.pk, enemy={"core_table": True, "speed": 4, "combat_skill": 0, "toughness": 3, "base_numbers": 2},
        battle_type="conventional", dice=Dice(seed=9),
    )  # fmt: skip
    core = {c["part"]: c for c in battle.setup["core"]}
    assert battle.setup["battle"]["mission"]["source"] == "rival"  # the turn's battle type
    assert all(c["roll"] is None and c["origin"].startswith("campaign turn 1") for c in core.values())
    assert core["notable_sights"]["result"] == "A shrine"  # typed by hand in the turn
    assert (
        rolled["battle.objective"].startswith(core["objectives"]["result"])
        and battle.setup["objective"] == core["objectives"]["result"]
    )
    assert rolled["battle.enemy"].startswith(battle.setup["enemy"]["type"])
    assert rolled["battle.deployment"].startswith(core["deployment_conditions"]["result"])


def test_without_dramatic_combat_a_campaign_battle_needs_the_core_hit_numbers(player: Any) -> None:
    campaign = make_campaign(player)
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    assert refused.value.field == "hit_numbers"
    battle = services.battle_create(
        user=player, campaign_id=campaign.pk, enemy=ELITE, hit_numbers={"open": 4, "cover": 5}, dice=Dice(seed=4)
    )
    assert battle.setup["hit_numbers"]["open"] == 4


def test_a_campaign_battle_takes_only_battle_flags_as_options(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    with pytest.raises(DropshipError) as refused:
        services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, options={"casualty_tables": True})
    assert refused.value.field == "options.casualty_tables"
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, options={"hectic": True})
    assert battle.setup["options"]["hectic"] is True and battle.setup["options"]["dramatic_combat"] is True


def test_a_standalone_battle_needs_crew_and_hit_numbers(player: Any) -> None:
    battle = standalone(player)
    assert battle.campaign_id is None and [c["name"] for c in battle.setup["crew"]] == ["Ria", "Bo"]
    assert battle.setup["hit_numbers"] == {
        "open": 5,
        "cover": 6,
        "source": "core rulebook (typed)",
        "close": None,
        "close_range_in": 6,
    }
    assert battle.setup["enemy"]["elite"] is False and len(battle.setup["enemy"]["figures"]) == 3
    dramatic = standalone(player, hit_numbers=None, options={"dramatic_combat": True})
    assert dramatic.setup["hit_numbers"]["open"] == 5 and "p.87" in dramatic.setup["hit_numbers"]["source"]


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"crew": None}, "crew"),
        ({"hit_numbers": None}, "hit_numbers"),
        ({"hit_numbers": {"open": 9, "cover": 6}}, "hit_numbers.open"),
        ({"crew": [{"name": "Ria", "speed": 5}]}, "crew[0].reactions"),
        ({"crew": [{**CREW[0], "weapons": ["Banana"]}]}, "crew[0].weapons[0]"),
        ({"enemy": {**PUNKS, "toughness": 12}}, "enemy.toughness"),
        ({"enemy": {**PUNKS, "panic": "7"}}, "enemy.panic"),
        ({"enemy": {"elite": True}}, "enemy.category"),
        ({"options": {"warp_drive": True}}, "options.warp_drive"),
        ({"theme": "swamp"}, "theme"),
        ({"mission_source": "bribe"}, "source"),
    ],
)
def test_a_bad_set_up_names_the_field_and_writes_nothing(player: Any, extra: dict[str, Any], field: str) -> None:
    with pytest.raises(DropshipError) as refused:
        standalone(player, **extra)
    assert refused.value.field == field
    assert not Battle.objects.exists()


# -- versions and roles -----------------------------------------------------------------------------


def test_a_stale_version_is_refused(player: Any) -> None:
    battle = standalone(player)
    services.battle_update_title(user=player, battle_id=battle.pk, version=1, title="Dock fight")
    with pytest.raises(StaleVersion) as refused:
        services.battle_update_title(user=player, battle_id=battle.pk, version=1, title="Again")
    assert refused.value.extra["version"] == 2
    assert fresh(battle).title == "Dock fight"


def test_readers_read_editors_play_and_outsiders_see_nothing(player: Any, other: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    reader, editor = UserFactory(username="reader"), UserFactory(username="editor")
    campaign_services.member_invite(user=player, campaign_id=campaign.pk, username="reader", role="reader")
    campaign_services.member_invite(user=player, campaign_id=campaign.pk, username="editor", role="editor")
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    assert selectors.battle_for(reader, battle.pk).pk == battle.pk
    with pytest.raises(NotAllowed):
        services.battle_update_title(user=reader, battle_id=battle.pk, version=battle.version, title="Mine")
    with pytest.raises(NotFound):
        services.battle_update_title(user=other, battle_id=battle.pk, version=battle.version, title="Mine")
    services.battle_update_title(user=editor, battle_id=battle.pk, version=battle.version, title="Ours")
    assert fresh(battle).title == "Ours"
    solo = standalone(player)
    with pytest.raises(NotFound):
        nominis_services.nominis_start(user=editor, battle_id=solo.pk, version=solo.version, mode="assisted")
    with pytest.raises(NotAllowed):
        services.battle_create(user=reader, campaign_id=campaign.pk, enemy=ELITE)


# -- without miniatures -----------------------------------------------------------------------------


def test_assisted_play_stores_each_action_and_undo_replays_the_rest(player: Any) -> None:
    battle = standalone(player)
    battle = nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="assisted")
    assert battle.status == "nominis" and nm(battle)["state"]["phase"] == "initiative"
    with pytest.raises(DropshipError) as refused:
        nominis_services.nominis_act(user=player, battle_id=battle.pk, version=battle.version, action={"type": "end_round"})
    assert refused.value.field == "action.type"
    for seed in (11, 12, 13):
        battle = nominis_services.nominis_act(
            user=player, battle_id=battle.pk, version=battle.version, action={"type": "auto"}, dice=Dice(seed=seed)
        )
    assert [a["seed"] for a in nm(battle)["actions"]] == [11, 12, 13]
    after_two = nominis_services.nominis_replay(nm(battle)["initial"], nm(battle)["actions"][:2])[0]
    undone = nominis_services.nominis_undo(user=player, battle_id=battle.pk, version=battle.version)
    assert len(nm(undone)["actions"]) == 2 and nm(undone)["state"] == after_two
    again = nominis_services.nominis_act(
        user=player, battle_id=battle.pk, version=undone.version, action={"type": "auto"}, dice=Dice(seed=13)
    )
    assert nm(again)["state"] == nm(battle)["state"]  # same action, same seed: same state


def _count_applies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the no-minis engine's ``apply`` calls made through the services."""
    calls: list[int] = []
    apply = nominis_services.nominis.apply

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return apply(*args, **kwargs)

    monkeypatch.setattr(nominis_services.nominis, "apply", counting)
    return calls


def test_no_minis_undo_replays_only_the_actions_since_the_last_checkpoint(player: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    battle = standalone(player)
    battle = nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="automatic")
    battle = nominis_services.nominis_auto(user=player, battle_id=battle.pk, version=battle.version, dice=Dice(seed=5))
    played = nm(battle)["actions"]
    assert len(played) > 2 * nominis_services.NOMINIS_CHECKPOINT_EVERY
    calls = _count_applies(monkeypatch)
    # Undo back across a checkpoint: each undo agrees with a replay of the whole log.
    for _ in range(nominis_services.NOMINIS_CHECKPOINT_EVERY + 2):
        calls.clear()
        battle = nominis_services.nominis_undo(user=player, battle_id=battle.pk, version=battle.version)
        assert len(calls) < nominis_services.NOMINIS_CHECKPOINT_EVERY
        kept = nm(fresh(battle))["actions"]
        replayed, events = nominis_services.nominis_replay(nm(battle)["initial"], kept)
        assert kept == played[: len(kept)]
        assert nm(battle)["state"] == replayed and nm(battle)["events"] == events
        assert all(c["at"] <= len(kept) for c in nm(battle)["checkpoints"])


def test_no_minis_undo_of_a_battle_stored_before_checkpoints_replays_from_the_start(player: Any) -> None:
    battle = standalone(player)
    battle = nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="automatic")
    battle = nominis_services.nominis_auto(user=player, battle_id=battle.pk, version=battle.version, dice=Dice(seed=5))
    old = {k: v for k, v in nm(battle).items() if k != "checkpoints"}
    Battle.objects.filter(pk=battle.pk).update(nominis=old)
    undone = nominis_services.nominis_undo(user=player, battle_id=battle.pk, version=battle.version)
    replayed, events = nominis_services.nominis_replay(old["initial"], old["actions"][:-1])
    assert nm(undone)["state"] == replayed and nm(undone)["events"] == events


def test_automatic_play_runs_to_the_end_and_the_replay_agrees(player: Any) -> None:
    battle = standalone(player)
    battle = nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="automatic")
    battle = nominis_services.nominis_auto(user=player, battle_id=battle.pk, version=battle.version, dice=Dice(seed=5))
    assert nm(battle)["state"]["finished"] and len(nm(battle)["actions"]) > 3
    replayed, events = nominis_services.nominis_replay(nm(battle)["initial"], nm(battle)["actions"])
    assert replayed == nm(battle)["state"] and len(events) == len(nm(battle)["events"])
    with pytest.raises(DropshipError) as refused:
        nominis_services.nominis_auto(user=player, battle_id=battle.pk, version=battle.version)
    assert refused.value.field == "action.type"
    finished = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    assert finished.status == "finished" and res(finished)["source"] == "nominis"
    assert res(finished)["won"] == res(finished)["objective"]["achieved"]


def test_finishing_before_the_no_minis_battle_ends_is_refused(player: Any) -> None:
    battle = standalone(player)
    battle = nominis_services.nominis_start(user=player, battle_id=battle.pk, version=battle.version, mode="assisted")
    with pytest.raises(DropshipError) as refused:
        result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version)
    assert refused.value.field == "status" and fresh(battle).status == "nominis"


# -- the result in the campaign turn ------------------------------------------------------------------


def play_to_record(player: Any, campaign: Campaign) -> None:
    campaign.refresh_from_db()
    turn = turn_services.turn_start(user=player, campaign_id=campaign.pk, version=campaign.version)
    for _ in range(60):
        turn.refresh_from_db()
        if turn.plan[turn.position]["key"] == "battle.record":
            return
        campaign.refresh_from_db()
        turn_services.step_resolve(user=player, campaign_id=campaign.pk, version=campaign.version, mode="manual", text="Done.")
    pytest.fail("the turn never reached Record the battle")


def test_finishing_a_campaign_battle_records_it_in_the_turn(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    play_to_record(player, campaign)
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    bo = Character.objects.get(name="Bo")
    with pytest.raises(DropshipError) as refused:
        result_services.battle_finish(
            user=player, battle_id=battle.pk, version=battle.version, held_field=True, casualties=["Nobody"]
        )
    assert refused.value.field == "casualties"
    done = result_services.battle_finish(
        user=player, battle_id=battle.pk, version=battle.version, held_field=True, casualties=["Bo"]
    )
    rewards = res(done).pop("elite_rewards")
    record = res(done).pop("record")
    assert done.reported and done.result == {"held_field": True, "won": True, "casualties": ["Bo"], "source": "manual"}
    assert record["casualties"] == [str(bo.pk)] and record["kills"] is None and record["won"]
    assert rewards["bounty_credits"] == (battle.setup["enemy"]["bounty_credits"] or 0)  # Held the Field: the bounty
    turn = current_turn(campaign)
    assert turn is not None
    facts = turn.facts["battle"]
    assert facts["won"] and facts["held_field"] and facts["casualties"] == [str(bo.pk)] and facts["elite"]
    assert turn.steps.filter(key="battle.record").exists()
    assert turn.plan[turn.position]["phase"] == "post-battle"
    line = campaign.log.filter(step="battle.record").get()
    assert "won" in line.text and "field held" in line.text


def test_an_elite_battle_pays_its_rewards_into_the_campaign(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    credits = Campaign.objects.get(pk=campaign.pk).credits
    enforcers = {"elite": True, "category": "Hired Muscle", "base_numbers": 3, "basic_weapon": "Hand gun"}
    battle = next(
        b
        for seed in range(40)
        if (b := services.battle_create(user=player, campaign_id=campaign.pk, enemy=enforcers, dice=Dice(seed=seed)))
        and b.setup["enemy"]["type"] == "Enforcers"
    )
    done = result_services.battle_finish(
        user=player, battle_id=battle.pk, version=battle.version, held_field=False, killed_any=True, dice=Dice(seed=1)
    )
    rewards = res(done)["elite_rewards"]
    assert rewards["rival"] is True and rewards["credits"] == 0  # Enforcers always become Rivals (their type rule)
    campaign.refresh_from_db()
    assert campaign.credits == credits and campaign.rivals.filter(name="Enforcers", elite=True).exists()
    line = campaign.log.filter(kind="battle", text__startswith="Elite rewards").get()
    assert "Enforcers always become Rivals" in line.text and line.changes

    # A standalone elite battle shows its rewards and pays nobody.
    alone = standalone(player, enemy=ELITE, dice=Dice(seed=4))
    done = result_services.battle_finish(user=player, battle_id=alone.pk, version=alone.version, held_field=True)
    assert res(done)["elite_rewards"]["bounty_credits"] == (alone.setup["enemy"]["bounty_credits"] or 0)
    # Played without miniatures, the kills come from the battle itself.
    fought = standalone(player, enemy=ELITE, dice=Dice(seed=5), battle_type="conventional")
    fought = nominis_services.nominis_start(user=player, battle_id=fought.pk, version=fought.version, mode="automatic")
    fought = nominis_services.nominis_auto(user=player, battle_id=fought.pk, version=fought.version, dice=Dice(seed=2))
    done = result_services.battle_finish(user=player, battle_id=fought.pk, version=fought.version)
    killed = res(done)["enemies_killed"] > 0
    assert killed or not res(done)["held_field"]
    assert res(done)["elite_rewards"]["bounty_credits"] == (
        fought.setup["enemy"]["bounty_credits"] or 0 if res(done)["held_field"] else 0
    )
    # A standard (non-elite) force has no elite rewards.
    plain = standalone(player)
    assert "elite_rewards" not in res(
        result_services.battle_finish(user=player, battle_id=plain.pk, version=plain.version, held_field=True)
    )


def test_psionic_power_uses_reach_the_turns_record_step(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True, psionics="crew")
    Character.objects.filter(name="Bo").update(sheet={"equipment": ["Hand gun"], "psionic": True})
    play_to_record(player, campaign)
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    assert [c["psionic"] for c in battle.setup["crew"]] == [False, True]
    result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version, held_field=True, psionic_uses=2)
    turn = current_turn(campaign)
    assert turn is not None and turn.facts["battle"]["psionic_uses"] == 2
    alone = standalone(player)
    with pytest.raises(DropshipError) as refused:
        result_services.battle_finish(user=player, battle_id=alone.pk, version=alone.version, held_field=True, psionic_uses=1)
    assert refused.value.field == "psionic_uses" and fresh(alone).status == "setup"


def test_a_battle_finished_before_the_turn_reaches_the_step_is_handed_over_later(player: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    battle = services.battle_create(user=player, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    battle = result_services.battle_finish(user=player, battle_id=battle.pk, version=battle.version, held_field=False)
    assert not battle.reported and res(battle)["won"] is False
    with pytest.raises(DropshipError) as refused:
        result_services.battle_report(user=player, battle_id=battle.pk, version=battle.version)
    assert refused.value.field == "turn"
    play_to_record(player, campaign)
    battle = result_services.battle_report(user=player, battle_id=battle.pk, version=battle.version)
    assert battle.reported and current_turn(campaign).facts["battle"]["held_field"] is False  # type: ignore[union-attr]


# -- the live tracker ----------------------------------------------------------------------------------


def test_tracking_opens_one_room_and_finish_reads_its_outcome(player: Any) -> None:
    battle = standalone(player)
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    assert room.kind == "fiveparsecs-battle" and [c["name"] for c in room.state["crew"]] == ["Ria", "Bo"]
    assert len(room.state["enemies"]) == 3 and room.state["hit_numbers"] == {"open": 5, "cover": 6}
    battle = fresh(battle)
    assert battle.status == "tracking" and battle.room_id == room.pk
    assert tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version).pk == room.pk
    with pytest.raises(DropshipError):
        nominis_services.nominis_start(user=player, battle_id=battle.pk, version=fresh(battle).version, mode="assisted")

    def act(type_: str, **payload: Any) -> None:
        room.refresh_from_db()
        live_services.room_act(user=player, room_id=room.pk, type=type_, payload=payload, version=room.version, seed=3)

    act("next_phase")
    act("roll_reactions", faces="1, 4")
    act("assign_reaction", figure="c1", die=1)
    act("assign_reaction", figure="c2", die=2)
    act("next_phase")
    act("resolve", attacker="c1", target="e1", range=10, faces="6, 6")
    act("end_battle", held_field="on")
    battle = result_services.battle_finish(user=player, battle_id=battle.pk, version=fresh(battle).version)
    assert res(battle)["source"] == "tracker" and res(battle)["held_field"] is True
    assert res(battle)["enemies_killed"] == 1 and res(battle)["won"] is True


def test_the_tracker_takes_the_set_up_cards_deployment_and_time_limit(player: Any) -> None:
    battle = standalone(
        player, deployment_variables=True, ai_type="tactical", options={"toggles": ["paying_by_the_hour"]}, dice=Dice(seed=3)
    )
    card = battle.setup["battle"]
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    assert room.state["planned"] == {
        "deployment_face": card["deployment"]["rolls"][0]["total"],
        "time_limit": card["mission"]["time_limit_round"],
    }
    assert room.state["planned"]["time_limit"] is not None


def test_a_battles_tracker_asks_for_the_core_seize_numbers_and_uses_them(player: Any) -> None:
    from django.test import Client

    battle = standalone(player)
    room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
    assert room.state["seize"]["target"] is None  # the core numbers are not in the set-up
    client = Client()
    client.force_login(player)
    page = client.get(f"/rooms/{room.pk}/").content.decode()
    assert 'data-testid="seize-dice"' in page and 'data-testid="seize-target"' in page
    sent = {"type": "seize", "version": room.version, "dice": "2D6", "target": "10", "faces": "6, 5"}
    client.post(f"/rooms/{room.pk}/act/", sent, HTTP_HX_REQUEST="true")
    room.refresh_from_db()
    assert room.state["seize"]["result"] == "seized" and room.state["seize"]["total"] == 11 + room.state["seize"]["modifier"]


def test_a_campaign_battle_room_seats_the_campaigns_co_op_members(player: Any, other: Any) -> None:
    campaign = make_campaign(player, dramatic_combat=True)
    UserFactory(username="reader")
    campaign_services.member_invite(user=player, campaign_id=campaign.pk, username=other.username, role="editor")
    campaign_services.member_invite(user=player, campaign_id=campaign.pk, username="reader", role="reader")
    battle = services.battle_create(user=other, campaign_id=campaign.pk, enemy=ELITE, dice=Dice(seed=4))
    room = tracker_services.battle_track(user=other, battle_id=battle.pk, version=battle.version)
    roles = {m.user.username: m.role for m in room.members.select_related("user")}
    assert roles == {other.username: "owner", player.username: "player", "reader": "viewer"}
    # A standalone battle's room is the owner's alone until someone joins by code.
    lone = tracker_services.battle_track(user=player, battle_id=standalone(player).pk, version=1)
    assert [m.user_id for m in lone.members.all()] == [player.pk]


def test_the_tracker_gets_the_elite_profile_and_takes_progressive_strength_once(player: Any) -> None:
    plain = standalone(player, enemy=ELITE, options={"dramatic_combat": True}, hit_numbers=None, campaign_turn=12)
    strong = standalone(
        player, enemy=ELITE, options={"dramatic_combat": True, "progressive": [1]}, hit_numbers=None, campaign_turn=12
    )
    assert len(strong.setup["enemy"]["figures"]) > len(plain.setup["enemy"]["figures"])
    for battle in (plain, strong):
        room = tracker_services.battle_track(user=player, battle_id=battle.pk, version=battle.version)
        assert len(room.state["enemies"]) == len(battle.setup["enemy"]["figures"])
        assert room.state["groups"][0]["elite"] is True and room.state["hit_numbers"] is None


# -- odds ---------------------------------------------------------------------------------------------


def test_an_odds_job_runs_to_100_and_gives_the_chance_to_hold(
    player: Any, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the job runs in this process, as without Redis
    battle = standalone(player)
    with pytest.raises(DropshipError) as refused:
        odds_services.odds_start(user=player, battle_id=battle.pk, runs=5)
    assert refused.value.field == "runs" and not BattleJob.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        job = odds_services.odds_start(user=player, battle_id=battle.pk, runs=20)
    job.refresh_from_db()
    assert job.status == "done" and job.progress == 100 and job.error == ""
    # 20 battles in all, shared among the three stances; the headline is Steady's 6 plus the spare 2.
    assert res(job)["total_runs"] == 20 and res(job)["runs"] == 8 and 0 <= res(job)["chance_hold"] <= 1
    assert sum(res(job)["casualties_spread"].values()) == 8
