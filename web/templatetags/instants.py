"""Instants in a page: as the round's record writes them (UTC, ISO 8601, to the millisecond), and
as people read them (`instant`)."""
from django import template
from django.template.defaultfilters import date
from django.utils.html import format_html

register = template.Library()

# 2026-12-01 14:03:27 UTC: as static/js/time.js writes an instant, the same in every language.
INSTANT = "Y-m-d H:i:s T"


@register.filter
def instant(value):
    """A datetime in the studio's time zone, to the second, with the zone's name."""
    return date(value, INSTANT) if value else ""


@register.filter
def utc_instant(value: str | None):
    """2026-12-01T18:43:44.123Z in a <time>, which may break after its date on a narrow screen."""
    if not value:
        return ""
    day, _, clock = value.partition("T")
    return format_html('<time datetime="{}">{}T<wbr>{}</time>', value, day, clock)
