"""The server's numbers in each offered language (Django's formats, completed by studio/formats/) are
the ones in tests/js/number_formats.json, which tests/js/numbers.test.mjs holds the pages' modules
to: a page writes a number as the server does whatever locale data the browser has."""
import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.template.defaultfilters import floatformat
from django.utils import translation

TABLE = json.loads((Path(__file__).resolve().parents[1] / "js" / "number_formats.json").read_text(encoding="utf-8"))
OFFERED = [code for code, _name in settings.LANGUAGES]


def test_the_table_has_every_offered_language():
    for row in TABLE["rows"]:
        assert sorted(set(row) - {"value", "format"}) == sorted(OFFERED), row


@pytest.mark.parametrize("lang", OFFERED)
def test_the_server_writes_the_tables_numbers(lang):
    with translation.override(lang):
        written = [str(floatformat(Decimal(row["value"]), row["format"])) for row in TABLE["rows"]]
    assert written == [row[lang] for row in TABLE["rows"]]


def test_hindi_and_nepali_group_by_lakh_and_vietnamese_by_dots():
    with translation.override("ne"):
        assert floatformat(Decimal("1235467.5"), "2g") == "12,35,467.50"
    with translation.override("hi"):
        assert floatformat(Decimal("10000000"), "0g") == "1,00,00,000"
    with translation.override("vi"):
        assert floatformat(Decimal("1235467.5"), "2g") == "1.235.467,50"
