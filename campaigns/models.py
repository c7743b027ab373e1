"""Five Parsecs campaigns: the campaign with its set-up options, crew, ship, Rivals, Patrons,
table slots, campaign turns with their steps, the campaign log and export/import jobs.

A campaign owns a live :class:`live.models.Room`: its members are the campaign's co-op members
(owner, editor = player, reader = viewer), its permission check guards every campaign endpoint,
and its channel tells every device that the campaign changed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from campaigns.engine.slots import SLOTS
from rules.models import TransferJob


class Campaign(models.Model):
    """A crew's campaign (Compendium pp.8-160).

    ``options`` is :class:`campaigns.engine.options.CampaignOptions` as a dict; ``turn`` is the
    campaign turn being played (0 until the first turn starts); ``version`` goes up with every
    write, and a write made against an older one is refused. ``loan`` holds the loan terms
    (p.152) and balance; ``factions`` the Expanded Factions state (p.110); ``quest_step`` the
    Expanded Quest Progression state (pp.78-80, :mod:`campaigns.engine.quests`).
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaigns")
    name = models.CharField(max_length=80)
    crew_name = models.CharField(max_length=80, blank=True)
    options = models.JSONField(default=dict)
    turn = models.PositiveIntegerField(default=0)
    credits = models.IntegerField(default=0)
    story_points = models.IntegerField(default=0)
    rumors = models.JSONField(default=list, blank=True, help_text="Quest Rumors, in words.")
    quest = models.CharField(max_length=200, blank=True)
    quest_step = models.JSONField(
        default=dict, blank=True, help_text="Expanded Quest Progression state (pp.78-80): campaigns.engine.quests."
    )
    loan = models.JSONField(default=dict, blank=True)
    factions = models.JSONField(default=list, blank=True, help_text="Expanded Factions on this world (p.110).")
    room = models.OneToOneField("live.Room", on_delete=models.PROTECT, related_name="fiveparsecs_campaign")
    version = models.PositiveIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "-id"]

    def __str__(self) -> str:
        return self.name


class Character(models.Model):
    """A crew member (``campaigns.engine.characters.Character`` as columns plus JSON lists).

    Speed is in inches. ``status`` is ``active``, ``sick_bay``, ``dead`` or ``gone``.
    """

    KINDS = [("biological", "Biological"), ("bot", "Bot"), ("soulless", "Soulless")]
    STATUSES = [(s, s.replace("_", " ")) for s in ("active", "sick_bay", "dead", "gone")]

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    name = models.CharField(max_length=60)
    species = models.CharField(max_length=40, default="human")
    kind = models.CharField(max_length=12, choices=KINDS, default="biological")
    is_captain = models.BooleanField(default=False)
    reactions = models.SmallIntegerField(default=1)
    speed = models.SmallIntegerField(default=4, help_text="Inches.")
    combat_skill = models.SmallIntegerField(default=0)
    toughness = models.SmallIntegerField(default=3)
    savvy = models.SmallIntegerField(default=0)
    luck = models.SmallIntegerField(default=0)
    xp = models.IntegerField(default=0)
    status = models.CharField(max_length=10, choices=STATUSES, default="active")
    sick_bay = models.PositiveSmallIntegerField(default=0, help_text="Campaign turns left in Sick Bay.")
    sheet = models.JSONField(default=dict, blank=True, help_text="Psionics, implants, injuries, training, upgrades, kit.")
    notes = models.TextField(blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.name


class Ship(models.Model):
    """The crew's starship: hull points, components (with the miniaturized mod) and debt in credits."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="ship")
    name = models.CharField(max_length=80)
    hull = models.SmallIntegerField(default=0)
    max_hull = models.SmallIntegerField(default=0)
    components = models.JSONField(default=list, blank=True)
    debt = models.IntegerField(default=0)

    def __str__(self) -> str:
        return self.name


class World(models.Model):
    """A world the crew has visited; ``current`` marks where they are now."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="worlds")
    name = models.CharField(max_length=80)
    traits = models.JSONField(default=list, blank=True)
    psionic_legality = models.CharField(max_length=12, blank=True)
    instability = models.SmallIntegerField(default=0)
    unstable = models.BooleanField(default=False, help_text="The world tracks Instability (Fringe World Strife, p.148).")
    invaded = models.BooleanField(default=False)
    strife = models.JSONField(default=dict, blank=True)
    current = models.BooleanField(default=True)
    arrived_turn = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-current", "-arrived_turn", "-id"]

    def __str__(self) -> str:
        return self.name


class Rival(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rivals")
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=80, blank=True)
    elite = models.BooleanField(default=False)
    psi_hunter = models.BooleanField(default=False)
    collector = models.BooleanField(default=False, help_text="A loan collection squad: always follows the crew (p.156).")
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Patron(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="patrons")
    name = models.CharField(max_length=80)
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class TableSlot(models.Model):
    """A campaign's choice of table for one core-rulebook slot (``campaigns.engine.slots``)."""

    SLOT_CHOICES = [(s.key, s.title) for s in SLOTS]

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="slots")
    slot = models.CharField(max_length=40, choices=SLOT_CHOICES)
    table = models.ForeignKey("rules.RuleTable", on_delete=models.CASCADE, related_name="campaign_slots")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "slot"], name="one_table_per_slot")]

    def __str__(self) -> str:
        return f"{self.slot}: {self.table}"


class Turn(models.Model):
    """One campaign turn: its planned steps (``plan``, StepSpec dicts), the index of the step to
    resolve next and the facts earlier steps recorded (traveled, mission, battle ...)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField()
    plan = models.JSONField(default=list)
    position = models.PositiveSmallIntegerField(default=0)
    facts = models.JSONField(default=dict, blank=True)
    finished = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["campaign", "number"], name="one_turn_per_number")]

    def __str__(self) -> str:
        return f"Turn {self.number}"


class TurnStep(models.Model):
    """A resolved (or skipped) step of a turn. ``mode`` is ``rolled``, ``entered``, ``manual``,
    ``rule`` or ``skipped``; ``snapshot`` is the campaign as it was before the step (undo)."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveSmallIntegerField()
    key = models.CharField(max_length=60)
    title = models.CharField(max_length=120)
    phase = models.CharField(max_length=20)
    mode = models.CharField(max_length=10)
    text = models.TextField(blank=True)
    rolls = models.JSONField(default=list, blank=True)
    changes = models.JSONField(default=list, blank=True)
    snapshot = models.JSONField(default=dict, blank=True)
    log_from = models.PositiveIntegerField(default=0, help_text="The first campaign log line this step wrote.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["index", "id"]

    def __str__(self) -> str:
        return f"{self.turn}: {self.title}"


class LogEntry(models.Model):
    """One line of the campaign log: a set-up choice, a step, a roll, a change or an undo.

    ``kind`` is ``setup``, ``step``, ``crew``, ``ship``, ``table``, ``member``, ``undo`` or
    ``import``; ``rolls`` are roll records; ``changes`` are engine Change dicts. ``before`` is
    the campaign snapshot an edit outside the turn (crew, ship, money, options) can be undone to."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="log")
    turn = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=12)
    step = models.CharField(max_length=60, blank=True)
    text = models.TextField()
    rolls = models.JSONField(default=list, blank=True)
    changes = models.JSONField(default=list, blank=True)
    undone = models.BooleanField(default=False)
    before = models.JSONField(
        null=True, blank=True, help_text="The campaign as it was before this change (a snapshot), when it can be undone."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "log entries"

    def __str__(self) -> str:
        return self.text[:60]


class CampaignJob(TransferJob):
    """An export or import of a campaign running in a Celery worker (``rules.models.TransferJob``):
    the result is the export document, or the imported campaign."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_jobs")
    campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs")
