"""Exact money, and the strict parsers of the numbers that come from outside. Amounts are Decimals
in Python and whole hundredths of a chip in the database (BIGINT), so that set-based SQL
(settlement) does integer arithmetic, and never a float. Every amount, decimal and whole number a
client sends is read by parse_amount, parse_decimal or parse_whole: ASCII digits only, no sign, no
surrounding space."""
from __future__ import annotations

import functools
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
AMOUNT_EXPECTED = 'Send an amount as a JSON integer or a string of ASCII digits with at most two decimals, e.g. "50" or "2.50".'
WHOLE_EXPECTED = 'Send a whole number as a JSON integer or a string of ASCII digits, e.g. 15 or "15".'
_WHOLE_TEXT = re.compile(r"[0-9]{1,40}")  # matched whole (fullmatch: no trailing newline); longer is no number of ours


def decimal_expected(places: int) -> str:
    return f'Send a JSON integer or a string of ASCII digits with at most {places} decimals, e.g. "0.9".'


def parse_decimal(value, *, places: int, expected: str | None = None) -> Decimal:
    """The one parser of decimal numbers that come from outside (the API, the admin, the commands).

    Accepted: a string of ASCII digits with an optional point and 1 to `places` decimals ("50",
    "2.50"), or an integer (a JSON integer; negative ones parse, for the caller to refuse). Refused,
    with a ValueError saying what is expected (`expected`): exponents ("1e1"), signs ("+10", "-5"),
    surrounding space (" 10", "10\n"), underscores ("1_0"), other scripts' digits, more decimals
    (even zeros), floats (JSON 10.0), booleans, anything else. A Decimal (read from the database,
    or a form field's value) passes if it is finite and holds at most `places` decimals."""
    if isinstance(value, Decimal):
        try:
            if value.is_finite() and value == value.quantize(Decimal(1).scaleb(-places)):
                return value
        except ArithmeticError:  # too many digits to quantize: no number of ours
            pass
    elif isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    elif isinstance(value, str) and _decimal_text(places).fullmatch(value):
        return Decimal(value)
    raise ValueError(expected or decimal_expected(places))


@functools.cache
def _decimal_text(places: int) -> re.Pattern:
    return re.compile(rf"[0-9]+(\.[0-9]{{1,{places}}})?")  # matched whole (fullmatch: no trailing newline)


def parse_amount(value) -> Decimal:
    """The one parser of amounts (parse_decimal with money's two decimals): money is kept in hundredths."""
    return parse_decimal(value, places=2, expected=AMOUNT_EXPECTED)


def parse_whole(value) -> int:
    """The one parser of whole numbers that come from outside (a body's fields, query parameters):
    an integer (a JSON integer; a negative one parses, for the caller's bounds to refuse) or a
    string of ASCII digits. Refused, with a ValueError saying what is expected: signs ("+10"),
    surrounding space (" 10", "10\n"), other scripts' digits ("١٠"), points ("10.0"), exponents,
    floats, booleans, an empty string, anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _WHOLE_TEXT.fullmatch(value):
        return int(value)
    raise ValueError(WHOLE_EXPECTED)


class AmountFormField(forms.DecimalField):
    """A form's amount (the admin): Django's DecimalField, read by `parse_amount` first."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return super().to_python(parse_amount(value))
        except ValueError:
            raise forms.ValidationError(AMOUNT_EXPECTED, code="invalid") from None


class DecimalFormField(forms.DecimalField):
    """A form's decimal number (the admin: a table's commission): Django's DecimalField (its digits,
    places and bounds), read by `parse_decimal` first: Django's own takes surrounding space and other
    scripts' digits."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return super().to_python(parse_decimal(value, places=self.decimal_places))
        except ValueError:
            raise forms.ValidationError(decimal_expected(self.decimal_places), code="invalid") from None


class WholeNumberFormField(forms.IntegerField):
    """A form's whole number (the admin: a table's seconds and minutes): Django's IntegerField (its
    bounds), read by `parse_whole`: Django's own takes "+10", " 10", "10.0" and "١٠"."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return parse_whole(value)
        except ValueError:
            raise forms.ValidationError(WHOLE_EXPECTED, code="invalid") from None


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
