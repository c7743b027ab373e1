"""Shared play rooms: one tracker each, its state with a version, members, join codes, and the
append-only log of actions."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from live.engine.tracker import Role


class Room(models.Model):
    """A table hosting one tracker of a registered ``kind``.

    ``state`` is the tracker's current JSON state and ``version`` counts accepted changes;
    ``initial_state`` is where replay starts (undo).
    """

    kind = models.CharField(max_length=60)
    title = models.CharField(max_length=120)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="owned_rooms")
    initial_state = models.JSONField()
    state = models.JSONField()
    version = models.PositiveIntegerField(default=0)
    guests_can_watch = models.BooleanField(default=False, help_text="Anyone with the link may watch without an account.")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated"]

    def __str__(self) -> str:
        return self.title

    @property
    def channel(self) -> str:
        return f"room-{self.pk}"


class Membership(models.Model):
    ROLE_CHOICES = [(r.value, r.value.capitalize()) for r in Role]

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="room_memberships")
    role = models.CharField(max_length=10, choices=ROLE_CHOICES)
    joined = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["room", "user"], name="one_membership_per_user")]
        ordering = ["joined"]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.room}"


class JoinCode(models.Model):
    """A short code (and QR link) that lets a signed-in user join a room as a player."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="codes")
    code = models.CharField(max_length=16, unique=True)
    expires = models.DateTimeField()
    revoked = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.code


class RoomAction(models.Model):
    """One accepted action (or an undo), append-only. ``seed`` replays its dice; ``rolls`` are
    the roll records it made; ``undone`` is set when a later undo took it back.

    ``state_before`` is the room's state just before this action, so undo restores it in one
    step whatever the log's length. Actions logged before it existed (and undo entries) hold
    ``None``: undo replays the log for those."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="actions")
    version = models.PositiveIntegerField(help_text="The room's version after this action.")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    role = models.CharField(max_length=10)
    type = models.CharField(max_length=60)
    payload = models.JSONField(default=dict)
    seed = models.BigIntegerField()
    rolls = models.JSONField(default=list)
    events = models.JSONField(default=list)
    undone = models.BooleanField(default=False)
    state_before = models.JSONField(null=True, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["version"]
        constraints = [models.UniqueConstraint(fields=["room", "version"], name="one_action_per_version")]

    def __str__(self) -> str:
        return f"{self.room_id} v{self.version} {self.type}"
