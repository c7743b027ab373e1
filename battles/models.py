"""Five Parsecs battles: a battle's set-up (mission, enemy force, crew, options, hit numbers),
how it is being played (the live tracker room, or the no-minis reducer's log), its result and
the odds jobs run for it.

A battle belongs to its owner, or to a campaign (then the campaign's editors play it and its
readers read it). ``version`` goes up with every write; a write made against an older one is
refused.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Battle(models.Model):
    """One battle (Compendium pp.30-49 set-up, pp.66-73 without miniatures).

    - ``setup``: ``{"battle": BattleSetup.as_dict(), "enemy": EnemyForce.as_dict(), "crew":
      [figure dicts; "ref" is the campaign Character pk as text], "options": {flags},
      "hit_numbers": {"open", "cover", "source"}, "seed": int}`` (see :mod:`battles.services`).
    - ``nominis``: ``{"mode", "initial", "actions": [{"action", "seed"}], "state", "events",
      "checkpoints": [{"at", "state", "events"}]}`` (the state and event count after every
      ``NOMINIS_CHECKPOINT_EVERY``-th action, so undo replays a few actions, not the log).
    - ``result``: the outcome dict plus ``source`` (``nominis``, ``tracker`` or ``manual``).
    - ``reported``: the result went to the campaign turn's "Record the battle" step.
    """

    STATUSES = [("setup", "Set up"), ("tracking", "Tracked live"), ("nominis", "No-minis"), ("finished", "Finished")]

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="fiveparsecs_battles")
    campaign = models.ForeignKey("campaigns.Campaign", null=True, blank=True, on_delete=models.CASCADE, related_name="battles")
    turn_number = models.PositiveIntegerField(null=True, blank=True, help_text="The campaign turn it belongs to.")
    title = models.CharField(max_length=80)
    status = models.CharField(max_length=10, choices=STATUSES, default="setup")
    setup = models.JSONField(default=dict)
    room = models.OneToOneField("live.Room", null=True, blank=True, on_delete=models.SET_NULL, related_name="fiveparsecs_battle")
    nominis = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    reported = models.BooleanField(default=False, help_text="Handed to the campaign turn's Record the battle step.")
    version = models.PositiveIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "-id"]

    def __str__(self) -> str:
        return self.title


class BattleJob(models.Model):
    """An odds run (many automatic no-minis battles) in a Celery worker: ``progress`` 0-100 and
    the result (``battles.engine.odds.Odds.as_dict()``) or the reason it failed. ``owner`` is who
    started it (one queued or running job each); ``heartbeat`` is written as battles are played,
    so that a job whose worker died is found and ended (``rules.jobs.sweep``)."""

    STATUSES = [(s, s) for s in ("queued", "running", "done", "failed")]

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="jobs")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="battle_jobs"
    )
    runs = models.PositiveIntegerField()
    status = models.CharField(max_length=8, choices=STATUSES, default="queued")
    progress = models.PositiveSmallIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    heartbeat = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"odds {self.runs} {self.status}"


class Meeting(models.Model):
    """Two players' campaigns meeting in one battle: a PvP battle (Compendium pp.35-38) or an
    expanded co-op battle (pp.39-41), by ``kind``.

    The host's editor invites with ``code``; an editor of another campaign accepts it with their
    own campaign (``guest``). Each player keeps their campaign, crew and turn; ``host_turn`` and
    ``guest_turn`` record which turn of each the meeting belongs to.

    - ``fielded``: ``{"host": [Character pk], "guest": [...]}``, the figures each side brings.
    - ``agreed_crew``: ``{"host": n, "guest": n}``: a crew count each player agreed to; used only
      when both agree on the same number (p.35), else the smaller campaign crew size counts.
    - ``setup``: the set-up card (``battles.engine.fp_pvp.generate``) with each side's figures.
    - ``room``: the live tracker (kind ``fiveparsecs-pvp``) both players play at.
    - ``referee``: an optional third user (no campaign of their own needed) who runs the third
      party or the AI enemies from their own device (issue #21 item 5).
    - ``result``: :func:`battles.engine.fp_pvp.outcome` once finished; each side's result also
      becomes a finished :class:`Battle` of its own campaign, which its turn records.
    """

    STATUSES = [
        ("invited", "Invited"),
        ("accepted", "Accepted"),
        ("set_up", "Set up"),
        ("tracking", "Tracked live"),
        ("finished", "Finished"),
    ]

    KINDS = [("pvp", "PvP battle"), ("coop", "Expanded co-op battle")]

    code = models.CharField(max_length=16, unique=True)
    kind = models.CharField(max_length=8, choices=KINDS, default="pvp")
    host = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="hosted_meetings")
    host_turn = models.PositiveIntegerField()
    guest = models.ForeignKey(
        "campaigns.Campaign", null=True, blank=True, on_delete=models.CASCADE, related_name="joined_meetings"
    )
    guest_turn = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=STATUSES, default="invited")
    fielded = models.JSONField(default=dict, blank=True)
    agreed_crew = models.JSONField(default=dict, blank=True)
    setup = models.JSONField(null=True, blank=True)
    room = models.OneToOneField("live.Room", null=True, blank=True, on_delete=models.SET_NULL, related_name="pvp_meeting")
    result = models.JSONField(null=True, blank=True)
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="refereed_meetings"
    )
    version = models.PositiveIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "-id"]

    def __str__(self) -> str:
        return f"PvP {self.code}"
