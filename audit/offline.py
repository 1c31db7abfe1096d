"""The offline check of a round's record, loaded from the very file an auditor runs
(scripts/verify_round_record.py, standard library only): the round page's "verified" mark and
verify_audit's replay of a round's events are that script's, so the studio and the script cannot
disagree on what a record or a round's events say."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "verify_round_record.py"

_spec = importlib.util.spec_from_file_location("verify_round_record", SCRIPT)
script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(script)

FORMAT: str = script.FORMAT
UNKNOWN = script.UNKNOWN
check = script.check  # check(record) -> the problems found (empty: it verifies)
replay = script.replay  # replay(forms) -> what a round's events say
check_multipliers = script.check_multipliers  # a multiplier round shown against its replayed events
ms = script.ms
