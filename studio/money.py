"""Exact money. Amounts are Decimals in Python and whole hundredths of a chip in the database
(BIGINT), so that set-based SQL (settlement) does integer arithmetic, and never a float."""
from __future__ import annotations

import re
from decimal import ROUND_DOWN, Decimal

from django import forms
from django.db import models

SCALE = 100  # hundredths: the finest chip unit a table may use is 0.01
CENT = Decimal("0.01")


def to_minor(amount: Decimal | int | str) -> int:
    value = Decimal(amount)
    minor = value * SCALE
    if minor != minor.to_integral_value():
        raise ValueError(f"{amount} has more than two decimals")
    return int(minor)


def from_minor(minor: int) -> Decimal:
    return (Decimal(minor) / SCALE).quantize(CENT)


AMOUNT_PATTERN = r"^[0-9]+(\.[0-9]{1,2})?$"
AMOUNT_TEXT = re.compile(AMOUNT_PATTERN[1:-1])  # matched whole (fullmatch: no trailing newline)
AMOUNT_EXPECTED = 'Send an amount as a JSON integer or a string of ASCII digits with at most two decimals, e.g. "50" or "2.50".'


def parse_amount(value) -> Decimal:
    """The one parser of amounts that come from outside (the API, the admin, the commands).

    Accepted: a string of ASCII digits with an optional point and one or two decimals ("50",
    "2.50"), or an integer (a JSON integer; negative ones parse, for the caller to refuse). Refused,
    with a ValueError saying what is expected: exponents ("1e1"), signs ("+10", "-5"), underscores
    ("1_0"), other scripts' digits, more than two decimals (even zeros: money is kept in
    hundredths), floats (JSON 10.0), booleans, anything else. A Decimal (read from the database, or
    a form field's value) passes if it is finite and holds at most two decimals."""
    if isinstance(value, Decimal):
        try:
            if value.is_finite() and value == value.quantize(CENT):
                return value
        except ArithmeticError:  # too many digits to quantize: no amount
            pass
    elif isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    elif isinstance(value, str) and AMOUNT_TEXT.fullmatch(value):
        return Decimal(value)
    raise ValueError(AMOUNT_EXPECTED)


class AmountFormField(forms.DecimalField):
    """A form's amount (the admin): Django's DecimalField, read by `parse_amount` first."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return super().to_python(parse_amount(value.strip() if isinstance(value, str) else value))
        except ValueError:
            raise forms.ValidationError(AMOUNT_EXPECTED, code="invalid") from None


def floor_to_unit(amount: Decimal, unit: Decimal) -> Decimal:
    return (amount / unit).to_integral_value(rounding=ROUND_DOWN) * unit


class MoneyField(models.BigIntegerField):
    """A Decimal amount stored as BIGINT hundredths."""

    description = "Exact amount of chips (stored in hundredths)"

    def from_db_value(self, value, expression, connection):
        return None if value is None else from_minor(value)

    def to_python(self, value):
        if value is None or isinstance(value, Decimal):
            return value
        return parse_amount(value)

    def get_prep_value(self, value):
        if value is None:
            return None
        if hasattr(value, "resolve_expression"):
            return value
        return to_minor(value)

    def formfield(self, **kwargs):
        return AmountFormField(decimal_places=2, **kwargs)


def money(value) -> models.Value:
    """A literal amount inside an ORM expression (e.g. F("balance") - money(x))."""
    return models.Value(value, output_field=MoneyField())
