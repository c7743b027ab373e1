"""Bug Hunt campaigns: the squad, its main characters, its missions and the campaign log.

A squad owns a live :class:`live.models.Room` (kind ``bughunt-squad``) the way a Five Parsecs
campaign does: its members are the squad's co-op members (owner, editor = player, reader =
viewer) and its permission check guards every squad page and API call. The squad keeps the campaign-wide pools (Reputation, Operational Progress, movie magic cards
used, enemy types met). A mission keeps its generated set-up as JSON, the live room that tracks
it, and the outcome the post-battle sequence reads. Every roll made for the campaign lands in a
:class:`LogEntry` with its roll records.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from rules.models import TransferJob


class Squad(models.Model):
    """A Hunter Squad and its campaign (Bug Hunt pp.170-206).

    ``version`` goes up with every write; a write made against an older one is refused.
    ``operation`` is the Operational Progress state (p.205); ``movie_magic_used`` names the movie
    magic cards spent this campaign (p.181); ``enemies_met`` names the enemy types met, which turns
    later encounters into variants (p.196).
    """

    DIFFICULTIES = [
        ("I'm Too Pretty to Die", "I'm Too Pretty to Die"),
        ("Hey, Not Too Crazy", "Hey, Not Too Crazy"),
        ("Mess Me Up", "Mess Me Up"),
        ("Mega-violence", "Mega-violence"),
        ("Living Nightmare", "Living Nightmare"),
    ]

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="squads")
    name = models.CharField(max_length=80)
    regiment = models.CharField(max_length=120, blank=True)
    uniform = models.CharField(max_length=60, blank=True)
    reputation = models.IntegerField(default=0)
    turn = models.PositiveIntegerField(default=1, help_text="The campaign turn being played.")
    main_characters = models.PositiveSmallIntegerField(default=3, help_text="How many main characters the squad keeps (3-5).")
    escalation = models.BooleanField(default=False, help_text="Campaign escalation option: fixed Priority for missions 1-8.")
    signals = models.BooleanField(default=False, help_text="Use the Signals rule when placing markers.")
    difficulty = models.CharField(max_length=40, choices=DIFFICULTIES, default="Mess Me Up")
    operation = models.JSONField(default=dict, blank=True)
    movie_magic_used = models.JSONField(default=list, blank=True)
    enemies_met = models.JSONField(default=list, blank=True)
    pending = models.JSONField(default=list, blank=True, help_text="Offers from Military Life waiting for the player.")
    priority_shift_next = models.SmallIntegerField(
        default=0, help_text="Steps a friend in the Intel Corps lets the next mission's Priority move (p.206)."
    )
    room = models.OneToOneField(
        "live.Room", on_delete=models.PROTECT, related_name="bughunt_squad", help_text="The squad's members and their roles."
    )
    version = models.PositiveIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "-id"]

    def __str__(self) -> str:
        return self.name


class Trooper(models.Model):
    """A main character (p.170): profile, XP, Completed Missions and campaign flags.

    ``player`` is the co-op member given this marine: in the mission tracker only they (and
    the owner, who referees) act with it (co-op play splits the squad between the players).

    ``status`` is ``active`` while on the roster; ``dead``, ``mustered_out``, ``retired`` and
    ``removed`` (court martial or a crippling injury) leave it. ``flags`` keeps the one-turn
    effects of Military Life and Special Assignments (see ``bughunt.engine.campaign.Trooper``).
    """

    STATUSES = [(s, s.replace("_", " ")) for s in ("active", "dead", "mustered_out", "retired", "removed")]

    squad = models.ForeignKey(Squad, on_delete=models.CASCADE, related_name="troopers")
    name = models.CharField(max_length=60)
    reactions = models.SmallIntegerField()
    speed = models.SmallIntegerField(help_text="Inches.")
    combat_skill = models.SmallIntegerField()
    toughness = models.SmallIntegerField()
    savvy = models.SmallIntegerField()
    xp = models.IntegerField(default=0)
    completed_missions = models.IntegerField(default=0)
    status = models.CharField(max_length=20, choices=STATUSES, default="active")
    sick_bay = models.PositiveSmallIntegerField(default=0, help_text="Campaign turns left in Sick Bay.")
    origin = models.CharField(max_length=80, blank=True)
    basic_training = models.CharField(max_length=80, blank=True)
    service_history = models.CharField(max_length=80, blank=True)
    commendations = models.PositiveSmallIntegerField(default=0)
    assignments = models.JSONField(default=list, blank=True)
    flags = models.JSONField(default=dict, blank=True)
    joined_turn = models.PositiveIntegerField(default=1)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The squad member who commands this marine at the table; empty: the owner (referee).",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name

    @property
    def profile(self) -> dict[str, int]:
        return {
            "reactions": self.reactions,
            "speed": self.speed,
            "combat_skill": self.combat_skill,
            "toughness": self.toughness,
            "savvy": self.savvy,
        }


class Mission(models.Model):
    """One mission of the campaign (pp.184-201).

    ``setup`` is the generated mission (objectives, difficulty, Priority, Spawn Rating, loadout,
    support, markers, deployment edge) in the shape the mission tracker starts from; ``outcome``
    is what the tracker reported at the end; ``post_battle`` keeps each post-battle step's result.
    """

    STAGES = [
        ("setup", "set-up"),
        ("in_play", "in play"),
        ("post_battle", "post-battle"),
        ("done", "done"),
    ]

    squad = models.ForeignKey(Squad, on_delete=models.CASCADE, related_name="missions")
    number = models.PositiveIntegerField()
    turn = models.PositiveIntegerField()
    stage = models.CharField(max_length=20, choices=STAGES, default="setup")
    setup = models.JSONField(default=dict)
    room = models.OneToOneField("live.Room", null=True, blank=True, on_delete=models.SET_NULL, related_name="bughunt_mission")
    outcome = models.JSONField(default=dict, blank=True)
    post_battle = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["squad", "number"], name="bughunt_mission_number_unique")]

    def __str__(self) -> str:
        return f"{self.squad} mission {self.number}"


class LogEntry(models.Model):
    """One line of the campaign log: what happened at which step, with every roll it took.

    ``rolls`` is a list of :class:`rules.engine.dice.RollRecord` dicts. The first line a squad
    write adds keeps ``before``, the squad as it was (``bughunt.documents.snapshot``), so
    that the last change can be undone without replaying anything.
    """

    squad = models.ForeignKey(Squad, on_delete=models.CASCADE, related_name="log")
    mission = models.ForeignKey(Mission, null=True, blank=True, on_delete=models.CASCADE, related_name="log")
    turn = models.PositiveIntegerField()
    step = models.CharField(max_length=60)
    text = models.TextField()
    rolls = models.JSONField(default=list, blank=True)
    data = models.JSONField(default=dict, blank=True)
    undone = models.BooleanField(default=False, help_text="Taken back by an undo: shown struck through.")
    before = models.JSONField(
        null=True, blank=True, help_text="The squad as it was before the change this line starts (undo puts it back)."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.step}: {self.text[:60]}"


class SquadJob(TransferJob):
    """An export or import of a squad running in a Celery worker (``rules.models.TransferJob``):
    the result is the export document, or the imported squad."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="squad_jobs")
    squad = models.ForeignKey(Squad, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs")
