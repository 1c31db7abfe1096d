"""The report as CSV, through DRF's public renderer API: one line per group and spot ("" is every
bet of the group together, with the rounds' figures), cells made safe for spreadsheets as the rounds'
export does (a text cell that a spreadsheet would run as a formula gets a leading quote). A refusal
is never CSV: the view answers it as JSON."""
from __future__ import annotations

import csv
import io
import re

from rest_framework.renderers import BaseRenderer

COLUMNS = ["group", "key", "label", "spot", "rounds", "rounds_per_hour", "seconds_per_card", "cards", "incidents", "voids",
           "player_rounds", "bets", "stakes", "payouts", "ggr", "hold", "theoretical_hold"]
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    if value is None:
        return ""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS) or _NUMBER.fullmatch(value):
        return value
    return "'" + value


class CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        out = io.StringIO()
        writer = csv.writer(out)
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Disposition"] = f'attachment; filename="report-{data["group"]}.csv"'
        writer.writerow(COLUMNS)
        for row in [*data["rows"], data["total"]]:
            group = data["group"] if row is not data["total"] else "total"
            writer.writerow([group, csv_cell(row["key"]), csv_cell(row["label"]), ""]
                            + [csv_cell(row[c]) for c in COLUMNS[4:16]] + [""])
            for spot in row["spots"]:
                writer.writerow([group, csv_cell(row["key"]), csv_cell(row["label"]), csv_cell(spot["spot"])]
                                + [""] * 7 + [spot["bets"], spot["stakes"], spot["payouts"], spot["ggr"], csv_cell(spot["hold"]),
                                              csv_cell(spot["theoretical_hold"])])
        return out.getvalue().encode(self.charset)
