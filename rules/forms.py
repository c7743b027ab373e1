from __future__ import annotations

from typing import Any, cast

from django import forms

from rules.models import RuleTable


class TableRollForm(forms.Form):
    """Roll a table, or look up the number your own dice show (``value``)."""

    modifier = forms.IntegerField(required=False, initial=0, min_value=-100, max_value=100, help_text="Added to the roll.")
    column = forms.ChoiceField(required=False, choices=())
    value = forms.IntegerField(required=False, label="I rolled", help_text="Leave empty to let Dropship roll.")

    def __init__(self, *args: Any, table: RuleTable, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table
        columns = table.columns or []
        if columns:
            cast(forms.ChoiceField, self.fields["column"]).choices = [(c, c) for c in columns]
            self.fields["column"].required = True
        else:
            del self.fields["column"]
        if table.die:
            low, high = table.to_engine([]).span
            self.fields["value"].widget.attrs.update({"min": low, "max": high, "placeholder": f"{low}-{high}"})
            self.fields["value"].help_text = f"Your {table.die} roll, {low} to {high}. Leave empty to let Dropship roll."
