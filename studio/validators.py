"""Validators of text that people name things with: names reach pages, logs and CSV exports."""
from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError

_CONTROL = {"Cc", "Zl", "Zp"}  # control characters (NUL, tab, CR, LF, ESC...) and line/paragraph separators


def has_control_characters(value: str) -> bool:
    return any(unicodedata.category(ch) in _CONTROL for ch in value)


def refuse_control_characters(value: str) -> None:
    """A name is one line of visible text: no control characters (tab, newline, NUL, escape...)."""
    if has_control_characters(value):
        raise ValidationError("Control characters (tab, newline, NUL...) are not allowed in a name.", code="control_characters")
