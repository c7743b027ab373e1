"""The campaign screens keep their query count flat as the crew and the log grow: a Five Parsecs
campaign (its page, turn, log, crew sheet and characters, HTML and API), a Bug Hunt squad
(its page and log) and a Five Parsecs battle (its set-up card), each drawn with 5 and with 50
crew or troopers, a few and many members, and 10 and 5,000 log lines, make the same number of
queries (same style as ``tests/test_query_counts.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from live.models import Membership
from rules.engine.dice import Dice
from tests.factories import UserFactory
from tests.tables import load_system_tables
from tests.test_query_counts import MANY, queries

pytestmark = pytest.mark.django_db

#: A crew member's sheet with something in every list the screens draw.
SHEET = {
    "equipment": ["Military rifle", "Hand gun", "Med-patch"],
    "implants": ["Boosted arm"],
    "injuries": ["Old scar"],
    "training": ["Medical school"],
    "bot_upgrades": [],
    "powers": [],
}


def _crew(campaign: Any, start: int, stop: int) -> None:
    from campaigns.models import Character

    Character.objects.bulk_create(
        Character(
            campaign=campaign, name=f"Crew {n}", position=n, is_captain=n == 0, reactions=1 + n % 2, speed=4,
            combat_skill=n % 3, toughness=3 + n % 2, xp=n, status="sick_bay" if n % 7 == 6 else "active",
            sick_bay=1 if n % 7 == 6 else 0, sheet=SHEET,
        )
        for n in range(start, stop)
    )  # fmt: skip


def _seat(room: Any, count: int, role: str = "player") -> None:
    """``count`` more users seated in ``room`` (a campaign's or a battle's)."""
    for _ in range(count):
        Membership.objects.create(room=room, user=UserFactory.create(), role=role)


def test_the_campaign_screens_make_as_many_queries_with_fifty_crew_twenty_members_and_five_thousand_log_lines() -> None:
    from campaigns import services as campaign_services
    from campaigns import turn_services
    from campaigns.models import Campaign, Character, LogEntry

    load_system_tables("fiveparsecs")
    captain = UserFactory.create(username="captain")
    campaign = campaign_services.campaign_create(user=captain, name="Drift", options={"crew_size": 6})
    _crew(campaign, 0, 5)
    _seat(campaign.room, 2)
    turn_services.turn_start(user=captain, campaign_id=campaign.pk, version=Campaign.objects.get(pk=campaign.pk).version)
    LogEntry.objects.bulk_create(LogEntry(campaign=campaign, kind="crew", turn=1, text=f"Line {n}") for n in range(10))
    first = Character.objects.filter(campaign=campaign).order_by("position").first()
    assert first is not None
    base, api = f"/campaigns/{campaign.pk}", f"/api/v1/campaigns/{campaign.pk}"
    urls = [
        "/campaigns/",
        f"{base}/",
        f"{base}/turn/",
        f"{base}/log/",
        f"{base}/log/?kind=crew&page=2",
        f"{base}/sheet/",
        f"{base}/crew/{first.pk}/",
        f"{api}/",
        f"{api}/characters/",
        f"{api}/characters/{first.pk}/",
        f"{api}/turns/",
        f"{api}/turns/current/",
        f"{base}/settings/",
        f"{api}/log/",
    ]
    client = Client()
    client.force_login(captain)
    queries(client, urls[1])  # the rule tables come into this process's memory once
    small = {url: queries(client, url) for url in urls}
    _crew(campaign, 5, 50)
    _seat(campaign.room, 18)
    LogEntry.objects.bulk_create(
        LogEntry(campaign=campaign, kind="crew", turn=1, text=f"Line {n}", before={"big": "x" * 200}) for n in range(MANY)
    )
    large = {url: queries(client, url) for url in urls}
    assert large == small
    # ...and the screens draw every crew member and every member of the table
    for url in (f"{base}/", f"{base}/sheet/", f"{api}/characters/"):
        assert "Crew 49" in client.get(url).content.decode(), url
    settings = client.get(f"{base}/settings/").content.decode()
    seated = Membership.objects.filter(room=campaign.room).exclude(user=captain).select_related("user")
    assert seated.count() == 20 and all(m.user.get_username() in settings for m in seated)


def test_the_squad_screens_make_as_many_queries_with_fifty_troopers_and_five_thousand_log_lines() -> None:
    from bughunt import services as bughunt_services
    from bughunt.models import LogEntry, Mission, Trooper

    load_system_tables("bughunt")
    sarge = UserFactory.create(username="apone")
    squad = bughunt_services.squad_create(
        user=sarge, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson", "Drake", "Dietrich"], seed=1
    )
    squad.refresh_from_db()
    bughunt_services.mission_create(
        user=sarge, squad_id=squad.pk, version=squad.version, objective_faces=[1, 1, 4], priority_faces=[2, 5], seed=3
    )
    mission = Mission.objects.get(squad=squad)
    troopers = list(Trooper.objects.filter(squad=squad))
    assert len(troopers) == 5

    def lines(count: int) -> None:
        LogEntry.objects.bulk_create(
            LogEntry(squad=squad, mission=mission if n % 2 else None, turn=1, step="creation", text=f"Line {n}")
            for n in range(count)
        )

    lines(10)
    client = Client()
    client.force_login(sarge)
    urls = [
        "/bughunt/",
        f"/bughunt/{squad.pk}/",
        f"/bughunt/{squad.pk}/log/",
        f"/bughunt/{squad.pk}/log/?step=creation&page=2",
        f"/bughunt/missions/{mission.pk}/",
        f"/api/v1/bughunt/squads/{squad.pk}/",
        f"/api/v1/bughunt/squads/{squad.pk}/log/",
        f"/api/v1/bughunt/missions/{mission.pk}/",
    ]
    queries(client, urls[1])  # the rule tables come into this process's memory once
    small = {url: queries(client, url) for url in urls}
    grown = []
    for n in range(45):
        twin = troopers[n % 5]
        twin.pk, twin.name = None, f"Grunt {n}"
        twin.status = "active" if n % 9 else "dead"
        grown.append(twin)
    Trooper.objects.bulk_create(grown)
    lines(MANY)
    large = {url: queries(client, url) for url in urls}
    assert large == small
    assert "Grunt 44" in client.get(f"/bughunt/{squad.pk}/").content.decode()


def test_the_battle_card_makes_as_many_queries_with_fifty_crew_and_twenty_members() -> None:
    from battles import services as battle_services
    from battles import tracker_services
    from battles.tests.fp_data import PUNKS
    from campaigns import services as campaign_services

    load_system_tables("fiveparsecs")
    captain = UserFactory.create(username="captain")
    client = Client()
    client.force_login(captain)

    def card(crew: int, members: int) -> list[int]:
        campaign = campaign_services.campaign_create(user=captain, name=f"Drift {crew}", options={"crew_size": 6})
        _crew(campaign, 0, crew)
        _seat(campaign.room, members)
        battle = battle_services.battle_create(
            user=captain, campaign_id=campaign.pk, title="Dock fight", enemy=PUNKS, hit_numbers={"open": 5, "cover": 6},
            dice=Dice(seed=4),
        )  # fmt: skip
        assert len(battle.setup["crew"]) >= crew * 6 // 7
        room = tracker_services.battle_track(user=captain, battle_id=battle.pk, version=battle.version)
        _seat(room, members)
        urls = ["/battles/fp/", f"/battles/fp/{battle.pk}/", f"/api/v1/fp-battles/{battle.pk}/", "/api/v1/fp-battles/"]
        counts = [queries(client, url) for url in urls]
        assert f"Crew {crew - 1}" in client.get(urls[1]).content.decode()  # the card draws the whole crew
        return counts

    card(5, 2)  # the rule tables come into this process's memory once
    small = card(5, 2)
    large = card(50, 20)
    assert large == small
