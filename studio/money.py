"""Exact money. Amounts are Decimals in Python and whole hundredths of a chip in the database
(BIGINT), so that set-based SQL (settlement) does integer arithmetic on every backend, SQLite
included, and never a float."""
from __future__ import annotations

from decimal import ROUND_DOWN, Decimal, InvalidOperation

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


def parse_amount(text) -> Decimal:
    """A positive-or-zero decimal from user input; raises ValueError with a readable message."""
    if isinstance(text, float):
        raise ValueError("send amounts as strings or integers, never floats")
    try:
        value = Decimal(str(text).strip())
    except (InvalidOperation, ValueError):
        raise ValueError(f"{text!r} is not an amount") from None
    if not value.is_finite():
        raise ValueError(f"{text!r} is not an amount")
    return value


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
        from django import forms

        return forms.DecimalField(decimal_places=2, **kwargs)


def money(value) -> models.Value:
    """A literal amount inside an ORM expression (e.g. F("balance") - money(x))."""
    return models.Value(value, output_field=MoneyField())
