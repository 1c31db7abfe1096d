"""The path converter of object ids: 1 to 18 ASCII digits, so that every id in a URL fits a BIGINT
(Django's `int` takes any length, and a longer one overflows the database's integer)."""
from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(IdConverter, "id")
