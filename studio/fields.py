"""Serializer fields shared by the APIs, each reading what a client sends by the one strict parser
of its kind (studio.money): amounts, decimals and whole numbers in bodies and query parameters are
ASCII digits, with no sign and no surrounding space; text is a JSON string, a boolean JSON's true
or false; identifiers are one line without control characters."""
from __future__ import annotations

from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .money import AMOUNT_EXPECTED, AMOUNT_PATTERN, WHOLE_EXPECTED, decimal_expected, parse_amount, parse_decimal, parse_whole
from .validators import has_control_characters

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
        if isinstance(data, str) and len(data) > 24:
            self.fail("max_length")
        try:
            return parse_amount(data)
        except ValueError:
            self.fail("invalid")

    def to_representation(self, value) -> str:
        return f"{Decimal(value):.2f}"


class StrictDecimalField(serializers.DecimalField):
    """DRF's DecimalField (its digits, places and bounds), its input read by parse_decimal first:
    DRF's own would take surrounding space and other scripts' digits ("٠.٩")."""

    def __init__(self, *, expected: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.error_messages["invalid"] = expected or decimal_expected(self.decimal_places)

    def to_internal_value(self, data):
        try:
            data = parse_decimal(data, places=self.decimal_places, expected=self.error_messages["invalid"])
        except ValueError:
            self.fail("invalid")
        return super().to_internal_value(data)


class AmountDecimalField(StrictDecimalField):
    """A DecimalField of money (two decimals) whose input is read by parse_amount."""

    def __init__(self, **kwargs):
        super().__init__(max_digits=14, decimal_places=2, expected=AMOUNT_EXPECTED, **kwargs)


class WholeNumberField(serializers.IntegerField):
    """DRF's IntegerField (its bounds, its schema), its input read by parse_whole: a JSON integer or
    a string of ASCII digits. DRF's own would take "+10", " 10", "10.0", 10.0 and "١٠"."""

    default_error_messages = {"invalid": WHOLE_EXPECTED}

    def to_internal_value(self, data) -> int:
        try:
            return parse_whole(data)
        except ValueError:
            self.fail("invalid")


class TextField(serializers.CharField):
    """DRF's CharField, a JSON string only: DRF's own takes a number for text (0 as "0")."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """DRF's BooleanField, JSON's true or false only: DRF's own takes 1, 0, "yes", "off", "" and more."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class IdentifierField(TextField):
    """Text that names someone or something (a username, an operator's player id or code): one line,
    a control character anywhere refused (a trailing newline too, which a CharField would trim away);
    surrounding spaces are trimmed as a CharField's."""

    default_error_messages = {"control_characters": "Control characters (tab, newline, NUL...) are not allowed here."}

    def to_internal_value(self, data):
        if isinstance(data, str) and has_control_characters(data):
            self.fail("control_characters")
        return super().to_internal_value(data)

