"""The admin's table form: side bets as checkboxes, random multipliers as a switch, spot
checkboxes, a number of draws and rows of multiplier and weight, instead of the model's raw JSON.

The form only builds the values the API takes (`side_bets`, a list; `multipliers`, null or
{"spots", "draws", "values"}); whether they make a table is the model's and the engine's to say
(Table.clean), and their refusal is shown on the field it names. A multiplier setting keeps its
spots in their configured order (the draw's order, engine.multipliers); newly ticked ones follow
in display order."""
from __future__ import annotations

from django import forms
from django.db import models

import engine
from engine.config import COUNT_BOXES
from engine.multipliers import MAX_MULTIPLIER, MAX_VALUES, MIN_MULTIPLIER

from studio.money import DecimalFormField, WholeNumberFormField

from .changes import LOGGED_FIELDS
from .models import Table

SIDE_BET_LABELS = {"first_andar": "1st Andar", "first_bahar": "1st Bahar", "first_three": "First 3 (poker hand)",
                   "card_count": "Card count"}
_BOXES = sorted({spot: box for boxes in COUNT_BOXES.values() for spot, box in boxes.items()}.items(), key=lambda kv: kv[1][:2])
SPOT_CHOICES = [("andar", "Andar"), ("bahar", "Bahar"), ("first_andar", "1st Andar"), ("first_bahar", "1st Bahar"),
                ("first_three", "First 3"), *((spot, f"{lo}–{hi} cards") for spot, (lo, hi, _odds) in _BOXES)]
MIN_ROWS = 6  # empty multiplier rows a form offers beyond the setting's own


class MultiplierRows(forms.MultiWidget):
    """Rows of (multiplier, weight) number inputs, drawn as a table."""

    template_name = "tables/widgets/multiplier_rows.html"

    def __init__(self, rows: int):
        pair = [{"min": MIN_MULTIPLIER, "max": MAX_MULTIPLIER}, {"min": 1}]
        super().__init__([forms.NumberInput(attrs={**pair[i % 2], "step": 1, "class": "vIntegerField"}) for i in range(2 * rows)])

    def decompress(self, value):
        """[[multiplier, weight], ...] to one value per input."""
        flat = [item for pair in value or [] for item in pair]
        return flat + [None] * (len(self.widgets) - len(flat))

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        sub = context["widget"]["subwidgets"]
        for i, widget in enumerate(sub):
            widget["attrs"]["aria-label"] = f"{'Weight' if i % 2 else 'Multiplier'} {i // 2 + 1}"
        context["widget"]["rows"] = [(i + 1, sub[2 * i], sub[2 * i + 1]) for i in range(len(sub) // 2)]
        return context


class MultiplierRowsField(forms.MultiValueField):
    """The filled rows as [[multiplier, weight], ...]; a row with one of the two is an error."""

    def __init__(self, rows: int, **kwargs):
        fields = [forms.IntegerField(required=False) for _ in range(2 * rows)]
        super().__init__(fields, widget=MultiplierRows(rows), require_all_fields=False, required=False, **kwargs)

    def compress(self, data_list):
        pairs = list(zip(data_list[0::2], data_list[1::2])) if data_list else []
        if any((m is None) != (w is None) for m, w in pairs):
            raise forms.ValidationError("Each row needs both a multiplier and a weight (or neither).", code="incomplete")
        return [[m, w] for m, w in pairs if m is not None]


class TableAdminForm(forms.ModelForm):
    side_bets = forms.MultipleChoiceField(choices=[(s, SIDE_BET_LABELS[s]) for s in engine.SIDE_BETS], required=False,
                                          widget=forms.CheckboxSelectMultiple, label="Side bets")
    multipliers = forms.BooleanField(required=False, label="Random multipliers",
                                     help_text="Draw multipliers for some spots each round (docs/RULES.md).")
    multiplier_spots = forms.MultipleChoiceField(choices=SPOT_CHOICES, required=False, widget=forms.CheckboxSelectMultiple,
                                                 label="Spots that can be multiplied",
                                                 help_text="Only spots the table offers (its mode, side bets and paytable).")
    multiplier_draws = forms.IntegerField(required=False, min_value=1, label="Spots drawn each round")
    multiplier_values = forms.Field(required=False)  # rows for the table's own setting: __init__

    class Meta:
        model = Table
        fields = "__all__"
        # Its numbers read by the API's parsers (studio.money): ASCII digits, no sign, no surrounding space.
        field_classes = {f.name: WholeNumberFormField if isinstance(f, models.PositiveIntegerField) else DecimalFormField
                         for f in Table._meta.concrete_fields if isinstance(f, (models.PositiveIntegerField, models.DecimalField))}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.multipliers_before = self.instance.multipliers
        setting = self.multipliers_before or {}
        rows = min(MAX_VALUES, len(setting.get("values", [])) + MIN_ROWS)
        rows_field = MultiplierRowsField(
            rows, label="Multipliers and weights",
            help_text="Each drawn spot gets one multiplier, chosen by weight: 2, 70 and 10, 2 give x2 35 times as often as x10.")
        rows_field.initial = rows_field.widget.decompress(setting.get("values"))  # one value per input, as posted
        self.fields["multiplier_values"] = rows_field
        self.fields["multiplier_spots"].initial = setting.get("spots", [])
        self.fields["multiplier_draws"].initial = setting.get("draws", 1)
        self.initial["multipliers"] = bool(setting)

    def clean(self):
        data = super().clean()
        if not data.get("multipliers"):
            data["multipliers"] = None
            return data
        if any(name in self.errors for name in ("multiplier_spots", "multiplier_draws", "multiplier_values")):
            return data
        before = (self.multipliers_before or {}).get("spots", [])
        chosen = set(data.get("multiplier_spots") or [])
        spots = [s for s in before if s in chosen] + [s for s, _label in SPOT_CHOICES if s in chosen and s not in before]
        data["multipliers"] = {"spots": spots, "draws": data.get("multiplier_draws") or 1,
                               "values": data.get("multiplier_values") or []}
        return data

    def changed_fields(self) -> list[str]:
        """The table's columns this form changed: Django's changed_data, with `multipliers` when the
        setting it built differs from the one the form opened with (the switch alone may not move)."""
        changed = [name for name in self.changed_data if name in LOGGED_FIELDS]
        if self.cleaned_data.get("multipliers") != self.multipliers_before and "multipliers" not in changed:
            changed.append("multipliers")
        return changed
