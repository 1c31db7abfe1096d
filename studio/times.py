"""Times as the API writes a record's instant: UTC, ISO 8601, to the millisecond."""
from __future__ import annotations

from datetime import UTC, datetime


def utc_ms(value: datetime | None) -> str | None:
    """2026-12-01T18:43:44.123Z (an aware datetime; None stays None)."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
