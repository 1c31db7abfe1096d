"""Instants as the round's record writes them (UTC, ISO 8601, to the millisecond), in a page."""
from django import template
from django.utils.html import format_html

register = template.Library()


@register.filter
def utc_instant(value: str | None):
    """2026-12-01T18:43:44.123Z in a <time>, which may break after its date on a narrow screen."""
    if not value:
        return ""
    day, _, clock = value.partition("T")
    return format_html('<time datetime="{}">{}T<wbr>{}</time>', value, day, clock)
