"""One shared table of everything a user can own, and the seven identities that look at it:
the owner, a campaign's (and a Bug Hunt squad's) co-op editor and reader, a room player and viewer, a signed-in outsider
and anonymous. The permission matrix and the schema fuzzing both walk the URLs over it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.management import call_command

from battles import odds_services, pvp_services
from battles import services as battle_services
from battles.models import Battle, BattleJob
from battles.tests.fp_data import PUNKS
from bughunt import history_services as bughunt_history
from bughunt import member_services as bughunt_members
from bughunt import services as bughunt_services
from bughunt.models import Mission, Squad
from campaigns import services as campaign_services
from campaigns import turn_services
from campaigns.models import Campaign, CampaignJob, Character
from live import services as live_services
from live.models import Membership, Room
from rules import services as rules_services
from rules.engine.dice import Dice
from rules.fixturefiles import FIXTURES_DIR
from rules.models import RuleTable
from tests.factories import UserFactory
from tests.tables import load_system_tables

IDENTITIES = ("owner", "editor", "reader", "player", "viewer", "outsider", "anonymous")

USER_TABLE: dict[str, Any] = {
    "system": "fiveparsecs",
    "slug": "ship-trouble",
    "title": "Ship trouble",
    "die": "D6",
    "source": "core p.64",
    "entries": [{"low": 1, "high": 3, "result": "Leak"}, {"low": 4, "high": 6, "result": "Fine"}],
}


@dataclass
class World:
    """The objects every URL parameter resolves to, all owned by ``users["owner"]``."""

    users: dict[str, Any]
    campaign: Campaign
    character: Character
    editor_membership: Membership
    campaign_job: CampaignJob
    battle: Battle
    battle_job: BattleJob
    squad: Squad
    mission: Mission
    room: Room
    user_table: RuleTable
    system_table: RuleTable
    extra: dict[str, Any] = field(default_factory=dict)

    def kwargs(self) -> dict[str, Any]:
        """URL keyword arguments by name (``slug`` is the owner's table, the only private one)."""
        return {
            "campaign_id": self.campaign.pk,
            "character_id": self.character.pk,
            "member_id": self.editor_membership.pk,
            "entry_id": self.campaign.log.order_by("pk").values_list("pk", flat=True).first(),
            "battle_id": self.battle.pk,
            "squad_id": self.squad.pk,
            "mission_id": self.mission.pk,
            "room_id": self.room.pk,
            "slug": self.user_table.slug,
        }


def build_world() -> World:
    """Load the shipped tables and make the users and objects (inside the caller's transaction).

    Jobs are queued but not run: their workers start on commit, which a test never reaches.
    """
    load_system_tables("fiveparsecs")
    load_system_tables("bughunt")
    call_command("loaddata", str(FIXTURES_DIR / "threat-tracker" / "threat-tracker.json"), verbosity=0)
    users = {name: UserFactory.create(username=name) for name in IDENTITIES if name != "anonymous"}
    users["anonymous"] = None
    owner = users["owner"]

    campaign = campaign_services.campaign_create(user=owner, name="Drift", options={"crew_size": 4})
    character = Character.objects.create(
        campaign=campaign, name="Ria", reactions=2, speed=5, toughness=4, sheet={"equipment": ["Hand gun"]}
    )
    editor_membership = campaign_services.member_invite(user=owner, campaign_id=campaign.pk, username="editor", role="editor")
    campaign_services.member_invite(user=owner, campaign_id=campaign.pk, username="reader", role="reader")
    turn_services.turn_start(user=owner, campaign_id=campaign.pk, version=Campaign.objects.get(pk=campaign.pk).version)
    campaign_job = campaign_services.job_start(user=owner, kind="export", campaign=campaign)
    campaign_job = campaign_services.job_run(job_id=campaign_job.pk)  # done, so its download exists

    battle = battle_services.battle_create(
        user=owner,
        campaign_id=campaign.pk,
        title="Dock fight",
        enemy=PUNKS,
        hit_numbers={"open": 5, "cover": 6},
        dice=Dice(seed=4),
        battle_type="conventional",
    )
    battle_job = odds_services.odds_start(user=owner, battle_id=battle.pk, runs=10)

    squad = bughunt_services.squad_create(user=owner, name="Kilo", character_names=["Vasquez", "Hicks", "Hudson"], seed=3)
    mission = bughunt_services.mission_create(
        user=owner, squad_id=squad.pk, version=squad.version, objective_faces=[1, 1, 4], priority_faces=[2, 5], seed=3
    )

    squad_editor_membership = bughunt_members.member_invite(
        user=owner, squad_id=squad.pk, version=Squad.objects.get(pk=squad.pk).version, username="editor", role="editor"
    )
    bughunt_members.member_invite(
        user=owner, squad_id=squad.pk, version=Squad.objects.get(pk=squad.pk).version, username="reader", role="reader"
    )

    squad_job = bughunt_history.JOBS.run(job_id=bughunt_history.JOBS.start(user=owner, kind="export", target=squad).pk)

    meeting = pvp_services.meeting_invite(user=owner, campaign_id=campaign.pk)  # a PvP invitation of the campaign

    room = live_services.room_create(user=owner, kind="threat", title="LV-426")
    code = live_services.room_code(room)
    assert code is not None
    live_services.room_join(user=users["player"], code=code.code)
    watching = live_services.room_join(user=users["viewer"], code=code.code)
    live_services.membership_set_role(user=owner, room_id=room.pk, user_id=watching.user_id, role="viewer", version=room.version)

    user_table = rules_services.user_table_create(user=owner, **USER_TABLE)
    system_table = RuleTable.objects.filter(owner__isnull=True, system__slug="fiveparsecs").order_by("slug").first()
    assert system_table is not None
    for obj in (campaign, battle, squad, room):
        obj.refresh_from_db()
    return World(
        users=users,
        campaign=campaign,
        character=character,
        editor_membership=editor_membership,
        campaign_job=campaign_job,
        battle=battle,
        battle_job=battle_job,
        squad=squad,
        mission=mission,
        room=room,
        user_table=user_table,
        system_table=system_table,
        extra={"squad_editor_membership": squad_editor_membership, "squad_job": squad_job, "meeting": meeting},
    )
