from django.contrib import admin

from rules.models import Roll, RuleSystem, RuleTable, TableEntry


class TableEntryInline(admin.TabularInline):
    model = TableEntry
    extra = 0
    fields = ["column", "position", "low", "high", "result", "effect", "data"]


@admin.register(RuleSystem)
class RuleSystemAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "position"]


@admin.register(RuleTable)
class RuleTableAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "system", "die", "source", "owner"]
    list_filter = ["system", "book"]
    search_fields = ["title", "slug", "entries__result"]
    inlines = [TableEntryInline]


@admin.register(Roll)
class RollAdmin(admin.ModelAdmin):
    list_display = ["created", "user", "table", "value", "result"]
    list_filter = ["table__system"]
    raw_id_fields = ["user", "table", "entry"]
