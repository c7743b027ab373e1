"""One Five Parsecs game played as a user would (issue 19, "Done when"): a campaign whose crew has
worn armour, an injured Psionic, a Bot with an upgrade, a loan and a Quest plays five turns. Turn 1
goes through the screens (the turn step form and the battle set-up form); the others through the
REST API. Each turn's battle is set up from the turn, played on the live tracker (room actions) or
without miniatures, finished, and its "Record the battle" step shows what the battle decided and
is confirmed. Then each campaign fact is checked where it shows in a battle: armour and the Bot
upgrade as Saving Throws (Compendium p.26), the Injured leg as a lower Speed (p.101), the Psionic's
powers on its figure and a Barrier it projects on the tracker, counted by the turn's record
(pp.17-20), the Quest's terms in the Quest battles (pp.79-80) and the loan's interest turn by
turn (p.154). The loan changes no battle here: its battle, "Fight it out" (p.156), comes only
with a seizure, which a 20-credit debt never reaches.

Every die is seeded or typed: the API and form writes that take no seed roll dice drawn from a
counter (the operating system's seed source is replaced for the test); the Quest progress dice
and the tracker's dice are typed as a player would."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns import services, turn_services
from campaigns.engine import quests
from campaigns.models import Campaign, Character
from campaigns.selectors import fiveparsecs_tables
from rules.engine import dice as dice_module
from rules.engine.dice import Dice

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fiveparsecs_tables")]

PROFILE = {"reactions": 1, "speed": 4, "combat_skill": 0, "toughness": 3, "savvy": 0}
OPTIONS = {"crew_size": 4, "loans": True, "psionics": "crew", "dramatic_combat": True, "detailed_injuries": True}
#: A standard enemy typed from the player's core rulebook (our own numbers).
ENEMY = {"name": "Enforcers", "numbers": 1, "panic": "1-2", "speed": 4, "combat_skill": 1, "toughness": 4}
ENEMY |= {"weapons": "Hand gun", "base_numbers": 3}
DEBT = 20  # at most the low-interest limit: 1 credit of interest a turn for this loan (p.154)
#: Turn number -> (mission, how the battle is played).
PLAN = {1: ("opportunity", "tracker"), 2: ("quest", "tracker"), 3: ("patron", "nominis"), 4: ("quest", "tracker")}
PLAN[5] = ("opportunity", "nominis")
#: The player's own dice for each turn's Quest progress (D6 + Rumors, then D100, p.78): Enemy
#: massing (85: +1 enemy in Quest battles) and Enemy more determined (99: Panic range 1 lower).
QUEST_FACES = {1: [1, 85], 2: [1, 99], 3: [1, 85], 4: [1, 99], 5: [1, 85]}


def ok(response: Any, code: int = 200) -> Any:
    assert response.status_code == code, response.content.decode()[:3000]
    return response.json()


@dataclass
class Game:
    """What the five turns left behind for the checks."""

    campaign_id: int
    crew: dict[str, int]
    battles: dict[int, dict[str, Any]] = field(default_factory=dict)  # turn -> the battle as the API reads it
    figures: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)  # turn -> name -> figure
    records: dict[int, dict[str, Any]] = field(default_factory=dict)  # turn -> the step's battle guide
    record_texts: dict[int, str] = field(default_factory=dict)
    balances: list[int] = field(default_factory=list)  # the loan balance after each turn
    quest_steps: dict[int, dict[str, Any]] = field(default_factory=dict)  # turn -> quest_step at set-up


class Player:
    """One user at the API (and, for the screens, a logged-in browser client)."""

    def __init__(self, user: Any) -> None:
        self.api = APIClient()
        self.api.force_authenticate(user)
        self.browser = Client()
        self.browser.force_login(user)
        self.base = ""
        self.seen = 0  # the campaign version the last turn read gave

    def version(self) -> int:
        return int(ok(self.api.get(self.base))["version"])

    def post(self, url: str, body: dict[str, Any], code: int = 200) -> Any:
        return ok(self.api.post(url, {"version": self.version(), **body}, format="json"), code)

    def battle(self, battle_id: int) -> dict[str, Any]:
        return ok(self.api.get(f"/api/v1/fp-battles/{battle_id}/"))  # type: ignore[no-any-return]

    def step(self) -> dict[str, Any] | None:
        current = self.api.get(f"{self.base}turns/current/")
        if current.status_code == 404:  # the turn is over
            return None
        state = ok(current)
        self.seen = state["version"]
        return state["step"]  # type: ignore[no-any-return]


def answer(name: str, kind: str, choices: list[str], mission: str) -> Any:
    """A player's answer to a required step input, read from the step's listed inputs."""
    if name == "mission":
        assert mission in choices
        return mission
    if name == "travel":
        return "no"  # the crew stays on its first world: the loan's days there stay simple
    if name == "core_upkeep":
        return 0
    if kind == "choice":
        return "no" if "no" in choices else choices[0]
    return 0 if kind in ("int", "count") else "Done."


def set_up(user: Any) -> tuple[Player, Game]:
    """The campaign and its crew through the API: Ria wears Combat armor (5+), Seer is a Psionic
    with an Injured leg, Unit is a Bot (6+ built in) with Improved armor casing; the ship's debt
    is the loan; a Quest is taken up."""
    me = Player(user)
    made = ok(me.api.post("/api/v1/campaigns/", {"name": "Five turns", "options": OPTIONS}, format="json"), 201)
    assert made["loan"]["origin"]  # the loan's terms were rolled at set-up (p.152)
    me.base = f"/api/v1/campaigns/{made['id']}/"
    crew = {}
    for name, extra in (
        ("Ria", {"captain": True}),
        ("Seer", {"psionic": True}),
        ("Unit", {"species": "bot", "kind": "bot"}),
    ):
        crew[name] = me.post(f"{me.base}characters/", {"name": name, "profile": PROFILE, **extra}, 201)["id"]
        me.post(f"{me.base}characters/{crew[name]}/equip/", {"item": "Hand gun"})
    me.post(f"{me.base}characters/{crew['Ria']}/creation-results/", {"credits_results": 3, "credits_faces": [6, 6, 6]})
    me.post(f"{me.base}characters/{crew['Ria']}/protection/", {"name": "Combat armor", "kind": "armor", "saving_throw": 5})
    seer = me.post(f"{me.base}characters/{crew['Seer']}/injury/", {"injury": "Injured leg"})
    assert seer["status"] == "active" and seer["sheet"]["injuries"] == ["Injured leg"] and seer["sheet"]["powers"]
    me.post(f"{me.base}characters/{crew['Unit']}/bot-save/", {"bot_save": 6})
    me.post(f"{me.base}characters/{crew['Unit']}/bot-upgrade/", {"upgrade": "Improved armor casing"})
    body = {"version": me.version(), "name": "Drift", "hull": 30, "max_hull": 30, "debt": DEBT}
    ok(me.api.put(f"{me.base}ship/", body, format="json"))
    detail = me.post(f"{me.base}quest/", {"name": "The lost relay"})
    assert detail["quest"] == "The lost relay" and detail["loan"]["balance"] == DEBT
    return me, Game(campaign_id=made["id"], crew=crew)


def resolve_step(me: Player, step: dict[str, Any], number: int, *, screens: bool) -> None:
    """Resolve the step to play with its required inputs: by the turn page's form, or the API."""
    key = step["spec"]["key"]
    mission = PLAN[number][0]
    inputs: dict[str, Any] = {
        f["name"]: answer(f["name"], f["kind"], f["choices"], mission) for f in step["input_fields"] if f["required"]
    }
    if key == "post.quest":
        inputs["faces"] = QUEST_FACES[number]
    mode = "roll" if step["rollable"] else "manual"
    if screens:
        form = {"version": me.seen, "page": "turn", "mode": mode, "text": "Done at the table."}
        form |= {
            f"input_{name}": [str(v) for v in value] if isinstance(value, list) else str(value) for name, value in inputs.items()
        }
        sent = me.browser.post(reverse("campaigns:act", args=[me.base.split("/")[-2], "step"]), form)
        assert sent.status_code == 302, sent.content.decode()[:3000]
        return
    body = {"version": me.seen, "mode": mode, "inputs": inputs, "text": "Done at the table."}
    ok(me.api.post(f"{me.base}turns/current/step/", body, format="json"))


def set_up_battle(me: Player, game: Game, number: int, *, screens: bool) -> dict[str, Any]:
    """The turn's battle set up from the turn (its battle type decides the mission), played as a
    conventional battle (picked: a Stealth mission would rule out the no-minis turns, p.117)."""
    if screens:
        form = {"campaign": str(game.campaign_id), "title": f"Turn {number} fight", "enemy_kind": "custom"}
        form |= {"battle_type": "conventional"}
        form |= {"enemy_name": str(ENEMY["name"]), "base_numbers": "3", "enemy_numbers": "1", "enemy_panic": "1-2"}
        form |= {"enemy_speed": "4", "enemy_combat_skill": "1", "enemy_toughness": "4", "enemy_weapons": "Hand gun"}
        sent = me.browser.post(reverse("battles:create"), form)
        assert sent.status_code == 302, sent.content.decode()[:3000]
        return me.battle(int(sent["Location"].rstrip("/").split("/")[-1]))
    body = {"campaign_id": game.campaign_id, "title": f"Turn {number} fight", "enemy": ENEMY, "seed": number}
    body |= {"battle_type": "conventional"}
    return ok(me.api.post("/api/v1/fp-battles/", body, format="json"), 201)  # type: ignore[no-any-return]


def play_on_tracker(me: Player, battle: dict[str, Any]) -> dict[str, Any]:
    """A short battle on the live tracker through the room actions API: Seize the Initiative,
    Reactions (the Psionic first: it wards Ria with Barrier), a shot, the end; the state at the
    start."""
    opened = ok(me.api.post(f"/api/v1/fp-battles/{battle['id']}/track/", {"version": battle["version"]}, format="json"))
    room = f"/api/v1/rooms/{opened['room']}/"
    first = ok(me.api.get(room))
    version = first["version"]

    def act(type_: str, **payload: Any) -> dict[str, Any]:
        nonlocal version
        done = ok(me.api.post(f"{room}actions/", {"type": type_, "payload": payload, "version": version}, format="json"))
        version = done["version"]
        return done["state"]  # type: ignore[no-any-return]

    act("seize", dice="2D6", target=10, faces="1, 1")  # the core rulebook's roll, typed by the player
    act("next_phase")
    crew = first["state"]["crew"]
    seer = next((f for f in crew if f.get("powers")), None)
    order = ([seer] if seer else []) + [f for f in crew if f is not seer]  # the Psionic takes the 1: Quick Actions
    act("roll_reactions", faces=", ".join(str(n) for n in range(1, len(order) + 1)))
    for die, figure in enumerate(order, start=1):
        act("assign_reaction", figure=figure["id"], die=die)
    act("next_phase")
    if seer is not None and "Barrier" in seer["powers"]:
        ria = next(f for f in crew if f["name"] == "Ria")
        warded = act("psionic", figure=seer["id"], power="Barrier", target=ria["id"], distance=3, faces="3, 4")
        assert warded["psionics"]["uses"] == 1  # Projection 7 reaches Ria 3" away (p.20)
    act("resolve", attacker=order[0]["id"], target="e1", range=6, faces="6, 6")  # a hit, and Damage 6 fells e1
    end = act("end_battle", held_field="on")
    assert end["enemies"][0]["status"] == "casualty"
    return first["state"]  # type: ignore[no-any-return]


def play_without_minis(me: Player, battle: dict[str, Any], seed: int) -> dict[str, Any]:
    """The battle played automatically without miniatures; the state at its start."""
    url = f"/api/v1/fp-battles/{battle['id']}/"
    started = ok(me.api.post(f"{url}nominis/", {"version": battle["version"], "mode": "automatic"}, format="json"))
    start_state = started["nominis"]["state"]
    played = ok(me.api.post(f"{url}nominis/auto/", {"version": started["version"], "seed": seed}, format="json"))
    assert played["nominis"]["state"]["finished"]
    return start_state  # type: ignore[no-any-return]


def play_turn(me: Player, game: Game, number: int) -> None:
    how = PLAN[number][1]
    screens = number == 1
    me.post(f"{me.base}turns/", {}, 201)
    battle: dict[str, Any] | None = None
    for _ in range(80):
        step = me.step()
        if step is None:
            break
        key = step["spec"]["key"]
        if key == "battle.setup":
            game.quest_steps[number] = ok(me.api.get(me.base))["quest_step"]
            battle = set_up_battle(me, game, number, screens=screens)
            start = play_on_tracker(me, battle) if how == "tracker" else play_without_minis(me, battle, number)
            game.figures[number] = {f["name"]: f for f in start["crew"]}
            version = me.battle(battle["id"])["version"]
            done = ok(me.api.post(f"/api/v1/fp-battles/{battle['id']}/finish/", {"version": version}, format="json"))
            assert done["status"] == "finished" and "when the turn gets there" in done["turn_note"]
            step = me.step()  # read again: the campaign's version for the next write
            assert step is not None and step["spec"]["key"] == "battle.setup"
        if key == "battle.record":
            assert battle is not None and step["battle"] is not None
            game.records[number] = step
            if screens:
                page = me.browser.get(reverse("campaigns:turn", args=[game.campaign_id])).content.decode()
                assert 'data-testid="battle-record"' in page and step["battle"]["words"] in page
            done = ok(me.api.post(f"{me.base}turns/current/step/", {"version": me.seen, "mode": "roll"}, format="json"))
            game.record_texts[number] = done["resolved"]["text"]
            continue
        resolve_step(me, step, number, screens=screens)
    else:
        pytest.fail(f"turn {number} did not finish")
    assert battle is not None
    game.battles[number] = me.battle(battle["id"])  # finished and recorded
    game.balances.append(int(ok(me.api.get(me.base))["loan"]["balance"]))


def test_five_turns_with_every_campaign_fact_in_the_battles(player: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = itertools.count(1000)
    monkeypatch.setattr(dice_module, "secrets", SimpleNamespace(randbits=lambda _bits: next(seeds)))
    me, game = set_up(player)
    for number in range(1, 6):
        play_turn(me, game, number)
    check_the_turns(game)
    check_armour(game)
    check_injured_psionic(game)
    check_bot_upgrade(game)
    check_quest(game)
    check_loan(game)


def check_the_turns(game: Game) -> None:
    """Five turns, five battles set up from the turns, finished and recorded."""
    campaign = Campaign.objects.get(pk=game.campaign_id)
    assert campaign.turn == 5 and campaign.turns.filter(finished=True).count() == 5
    assert sorted(game.battles) == [1, 2, 3, 4, 5]
    for number, battle in game.battles.items():
        assert battle["status"] == "finished" and battle["result"] is not None and battle["reported"]
        assert battle["turn_number"] == number and battle["campaign"] == game.campaign_id
        assert battle["result"]["source"] == PLAN[number][1]
        assert battle["setup"]["battle"]["mission"]["source"] == PLAN[number][0]
        record = game.records[number]
        assert record["battle"]["id"] == battle["id"] and record["battle"]["title"] == battle["title"]
        decided = {f["name"]: f["decided"] for f in record["input_fields"] if f["decided"] is not None}
        assert decided["won"] == ("yes" if battle["result"]["won"] else "no")
        assert decided["held_field"] == ("yes" if battle["result"]["held_field"] else "no")
        assert not any(f["required"] for f in record["input_fields"])  # the battle answered them
        assert f"From the battle {battle['title']}." in game.record_texts[number]
        facts = campaign.turns.get(number=number).facts
        assert facts["battle_source"]["id"] == battle["id"] and facts["battle"]["won"] is battle["result"]["won"]
        assert facts["battle"]["held_field"] is battle["result"]["held_field"]


def check_armour(game: Game) -> None:
    """Ria's Combat armor is her Saving Throw in every battle she fights (p.26)."""
    fought = [number for number, figures in game.figures.items() if "Ria" in figures]
    assert 1 in fought and 2 in fought  # the tracker battles of turns 1 and 2
    for number in fought:
        ria = game.figures[number]["Ria"]
        assert ria["save"] == 5 and ria.get("save_kind", "armor") == "armor"
    ria_set_up = next(f for f in game.battles[1]["setup"]["crew"] if f["name"] == "Ria")
    assert ria_set_up["save_from"] == ["Combat armor (Armor 5+)"]


def check_injured_psionic(game: Game) -> None:
    """Seer fights with Speed 3" (Injured leg, p.101) and brings the powers rolled for it."""
    powers = set(Character.objects.get(pk=game.crew["Seer"]).sheet["powers"])
    assert len(powers) == 2
    fought = [number for number, figures in game.figures.items() if "Seer" in figures]
    assert 1 in fought and 2 in fought
    for number in fought:
        figures = game.figures[number]
        seer = figures["Seer"]
        assert seer["speed"] == PROFILE["speed"] - 1
        if PLAN[number][1] == "tracker":
            assert set(seer["powers"]) == powers and seer["psionic"]
            # Its Barrier on the tracker is a power used: the battle and the turn's record count it (p.20).
            assert game.battles[number]["result"]["psionic_uses"] == int("Barrier" in powers)
            facts = Campaign.objects.get(pk=game.campaign_id).turns.get(number=number).facts
            assert facts["battle"]["psionic_uses"] == int("Barrier" in powers)
            assert all("powers" not in figures[name] for name in figures if name != "Seer")
    flags = {f["name"]: f["psionic"] for f in game.battles[1]["setup"]["crew"]}
    assert flags == {"Ria": False, "Seer": True, "Unit": False}


def check_bot_upgrade(game: Game) -> None:
    """Unit's Improved armor casing makes its built-in 6+ save a 5+ (p.26)."""
    for figures in game.figures.values():
        if "Unit" in figures:
            assert figures["Unit"]["save"] == 5
    unit = next(f for f in game.battles[1]["setup"]["crew"] if f["name"] == "Unit")
    assert unit["save_from"] == ["Improved armor casing (built-in Armor 5+, p.26)"]


def check_quest(game: Game) -> None:
    """The Quest battles (turns 2 and 4) carry the Quest's terms; the other battles do not."""
    tables = fiveparsecs_tables()
    assert game.quest_steps[2]["numbers"] == 1 and game.quest_steps[4]["panic"] == -1
    for number in (2, 4):
        enemy = game.battles[number]["setup"]["enemy"]
        terms = quests.battle_terms(game.quest_steps[number], tables)
        assert terms.lines, game.quest_steps[number]
        assert all(any(line in said for said in enemy["lines"]) for line in terms.lines)
        if terms.panic:
            assert enemy["panic"] != ENEMY["panic"]
    for number in (3, 5):
        terms = quests.battle_terms(game.quest_steps[number], tables)
        enemy = game.battles[number]["setup"]["enemy"]
        assert enemy["panic"] == ENEMY["panic"]
        assert not any(line in said for line in terms.lines for said in enemy["lines"])


def check_loan(game: Game) -> None:
    """The loan's interest (1 credit a turn while 30 or less is owed, p.154) each turn."""
    assert game.balances == [DEBT + 1, DEBT + 2, DEBT + 3, DEBT + 4, DEBT + 5]
    campaign = Campaign.objects.get(pk=game.campaign_id)
    assert campaign.ship.debt == DEBT + 5
    upkeep = [t.steps.get(key="world.upkeep").text for t in campaign.turns.order_by("number")]
    assert all("loan interest +1 credits owed" in text for text in upkeep)


# -- two faults the game met, each on its own ----------------------------------------------------


def advance_to(player: Any, campaign_id: int, key: str) -> None:
    """Resolve the turn's steps by hand up to the step ``key``."""
    for _ in range(60):
        campaign = Campaign.objects.get(pk=campaign_id)
        turn = campaign.turns.get(finished=False)
        if turn.plan[turn.position]["key"] == key:
            return
        turn_services.step_resolve(user=player, campaign_id=campaign_id, version=campaign.version, mode="manual", text="Done.")
    pytest.fail(f"the turn never reached {key}")


def test_a_core_upkeep_of_zero_sent_as_a_json_number_is_taken(player: Any) -> None:
    # An int input the step lists was read as "not typed" when it was 0 (core p.76 upkeep can be 0).
    me = Player(player)
    campaign = services.campaign_create(user=player, name="Thrift", options={"crew_size": 4}, dice=Dice(seed=1))
    Character.objects.create(campaign=campaign, name="Ria", is_captain=True)
    me.base = f"/api/v1/campaigns/{campaign.pk}/"
    me.post(f"{me.base}turns/", {}, 201)
    advance_to(player, campaign.pk, "world.upkeep")
    done = me.post(f"{me.base}turns/current/step/", {"mode": "roll", "inputs": {"core_upkeep": 0}})
    assert done["resolved"]["key"] == "world.upkeep" and done["resolved"]["text"].startswith("Upkeep 0 credits for 1 crew")


def test_a_battle_confirmed_at_record_the_battle_is_reported_until_the_step_is_undone(player: Any) -> None:
    me = Player(player)
    campaign = services.campaign_create(user=player, name="Drift", options={"crew_size": 4, "dramatic_combat": True})
    Character.objects.create(campaign=campaign, name="Ria", is_captain=True, sheet={"equipment": ["Hand gun"]})
    me.base = f"/api/v1/campaigns/{campaign.pk}/"
    me.post(f"{me.base}turns/", {}, 201)
    body = {"campaign_id": campaign.pk, "enemy": ENEMY, "seed": 3}
    made = ok(me.api.post("/api/v1/fp-battles/", body, format="json"), 201)
    url = f"/api/v1/fp-battles/{made['id']}/finish/"
    ok(me.api.post(url, {"version": made["version"], "held_field": True}, format="json"))
    advance_to(player, campaign.pk, "battle.record")
    assert me.battle(made["id"])["reported"] is False
    me.post(f"{me.base}turns/current/step/", {"mode": "roll"})
    assert me.battle(made["id"])["reported"] is True  # its result went to the step
    me.post(f"{me.base}turns/current/undo/", {})
    assert me.battle(made["id"])["reported"] is False
    step = me.step()
    assert step is not None and step["battle"]["id"] == made["id"]  # offered again
