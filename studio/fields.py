"""Serializer fields shared by the APIs: an amount that a client sends (studio.money.parse_amount)."""
from __future__ import annotations

from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .money import AMOUNT_EXPECTED, AMOUNT_PATTERN, parse_amount

AMOUNT_SCHEMA = {
    "oneOf": [{"type": "string", "pattern": AMOUNT_PATTERN, "maxLength": 24, "example": "50"}, {"type": "integer", "minimum": 1}],
    "description": AMOUNT_EXPECTED,
}


@extend_schema_field(AMOUNT_SCHEMA)
class AmountField(serializers.Field):
    """An amount a client sends: a string of ASCII digits with at most two decimals, or a JSON
    integer (read by parse_amount); its value is a Decimal. What the table allows (positive, a
    multiple of its chip unit, its limits) is for the service to say."""

    default_error_messages = {"invalid": AMOUNT_EXPECTED, "max_length": "At most 24 characters."}

    def to_internal_value(self, data) -> Decimal:
        if isinstance(data, str):
            data = data.strip()  # as the CharField it replaces did
            if len(data) > 24:
                self.fail("max_length")
        try:
            return parse_amount(data)
        except ValueError:
            self.fail("invalid")

    def to_representation(self, value) -> str:
        return f"{Decimal(value):.2f}"


class AmountDecimalField(serializers.DecimalField):
    """A DecimalField of money (two decimals) whose input is read by parse_amount first."""

    def __init__(self, **kwargs):
        super().__init__(max_digits=14, decimal_places=2, **kwargs)
        self.error_messages["invalid"] = AMOUNT_EXPECTED

    def to_internal_value(self, data):
        try:
            data = parse_amount(data.strip() if isinstance(data, str) else data)
        except ValueError:
            self.fail("invalid")
        return super().to_internal_value(data)
