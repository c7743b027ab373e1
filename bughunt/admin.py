from django.contrib import admin

from bughunt.models import LogEntry, Mission, Squad, Trooper


class TrooperInline(admin.TabularInline):
    model = Trooper
    extra = 0
    fields = [
        "name",
        "status",
        "reactions",
        "speed",
        "combat_skill",
        "toughness",
        "savvy",
        "xp",
        "completed_missions",
        "sick_bay",
    ]


@admin.register(Squad)
class SquadAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "regiment", "reputation", "turn", "difficulty"]
    search_fields = ["name", "regiment", "owner__username"]
    inlines = [TrooperInline]


@admin.register(Mission)
class MissionAdmin(admin.ModelAdmin):
    list_display = ["squad", "number", "turn", "stage"]
    list_filter = ["stage"]
    raw_id_fields = ["squad", "room"]


@admin.register(LogEntry)
class LogEntryAdmin(admin.ModelAdmin):
    list_display = ["squad", "turn", "step", "text"]
    list_filter = ["step"]
    raw_id_fields = ["squad", "mission"]
