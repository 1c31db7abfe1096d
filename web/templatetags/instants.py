"""Instants in a page, every one with its time zone: a datetime as people read it (`instant`,
"2026-12-01 14:03:27 UTC"), and the round record's UTC instants (ISO 8601 to the millisecond,
"2026-12-01T18:43:44.123Z") written the same way, to the millisecond (`utc_instant`, and `utc_text`
inside a sentence that names the zone itself)."""
from datetime import UTC, datetime

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


def _utc_parts(value: str) -> tuple[str, str]:
    """("2026-12-01", "18:43:44.123") of a record's instant, in UTC."""
    moment = datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
    return moment.strftime("%Y-%m-%d"), moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


@register.filter
def utc_instant(value: str | None):
    """2026-12-01T18:43:44.123Z as "2026-12-01 18:43:44.123 UTC" in a <time> that keeps the ISO form
    (and may break after its date on a narrow screen)."""
    if not value:
        return ""
    day, clock = _utc_parts(value)
    return format_html('<time datetime="{}">{} <wbr>{} UTC</time>', value, day, clock)


@register.filter
def utc_text(value: str | None) -> str:
    """2026-12-01T18:43:44.123Z as "2026-12-01 18:43:44.123", for a sentence that says "UTC" after it."""
    if not value:
        return ""
    day, clock = _utc_parts(value)
    return f"{day} {clock}"
