"""Co-op Bug Hunt: every squad owns a room of kind ``bughunt-squad`` whose memberships are the
squad's members (existing squads get one, with their owner seated), and a main character may be
given to a member to command at the table."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def rooms_for_squads(apps, schema_editor):  # type: ignore[no-untyped-def]
    Squad = apps.get_model("bughunt", "Squad")
    Room = apps.get_model("live", "Room")
    Membership = apps.get_model("live", "Membership")
    for squad in Squad.objects.filter(room__isnull=True):
        state = {"squad": squad.pk, "name": squad.name, "turn": squad.turn}
        room = Room.objects.create(
            kind="bughunt-squad", title=squad.name[:120], owner_id=squad.owner_id, initial_state=state, state=state
        )
        Membership.objects.create(room=room, user_id=squad.owner_id, role="owner")
        squad.room = room
        squad.save(update_fields=["room"])


class Migration(migrations.Migration):
    dependencies = [
        ("bughunt", "0001_initial"),
        ("live", "0002_roomaction_state_before"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="squad",
            name="room",
            field=models.OneToOneField(
                null=True,
                help_text="The squad's members and their roles.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="bughunt_squad",
                to="live.room",
            ),
        ),
        migrations.RunPython(rooms_for_squads, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="squad",
            name="room",
            field=models.OneToOneField(
                help_text="The squad's members and their roles.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="bughunt_squad",
                to="live.room",
            ),
        ),
        migrations.AddField(
            model_name="trooper",
            name="player",
            field=models.ForeignKey(
                blank=True,
                help_text="The squad member who commands this marine at the table; empty: the owner (referee).",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
    ]
