#!/usr/bin/env python3
"""Check a round's record offline: the JSON of GET /api/rounds/{id}/record/ (docs/AUDIT.md).

    python3 verify_round_record.py [--key VERIFIER-KEY] record.json        (or the record on stdin)

Standard library only: copy this one file anywhere. It checks

- each of the round's events: its digest is the SHA-256 of its canonical form (the exact text
  given), its hash the SHA-256 of its prev and its digest, and its form names the record's chain,
  its seq and its round;
- the chain segment the record shows (the round's events and the bare links of the records between
  them): each seq follows the one before it and each prev is the hash before it, except across a
  gap the record declares; the head is at or after the last record shown (the head itself if it is);
- the record's round, cards (position, side, card, time), winner, totals and incidents against
  what its events say, replayed in order;
- the round's leaves in the public log (docs/PUBLIC_LOG.md): each is this round's outcome (its
  round, status, version, joker and cards as the record shows them, for the newest), and its RFC 9162
  inclusion proof leads to the root of the record's checkpoint; with --key VERIFIER-KEY (the
  studio's, from GET /api/log/key/, pinned by you) and the `cryptography` package installed, the
  checkpoint's Ed25519 signature too;
- at a table with random multipliers: the seed revealed when betting closes hashes (SHA-256) to the
  commitment published when the round opened, and the multipliers drawn from it by the studio's
  algorithm (docs/RULES.md, "Random multipliers", repeated below) are the ones the round shows and
  its events chained.

Exit status 0 and one line when all is well; 1 and every problem found otherwise (2: not a record).
The studio's round page shows its "verified" mark by running this very file on the record.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import sys
from decimal import Decimal, InvalidOperation

FORMAT = "andar-bahar-round-record/1"
GENESIS = "0" * 64
SETTLING = ("settled", "resettled", "voided")
UNKNOWN = object()  # a winner the events do not say (a correction recorded before corrections said it)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def canonical(value) -> str:
    """The canonical JSON of a form: sorted keys, no spaces, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def ms(instant: str | None) -> str | None:
    """An instant of a form (microseconds) as the record shows it (milliseconds): 2026-12-01T18:43:44.123Z."""
    return None if instant is None else instant[:23] + "Z"


def amount(text) -> Decimal | None:
    try:
        return Decimal(str(text))
    except (InvalidOperation, ValueError):
        return None


def _integers(seed: bytes):
    """HMAC-SHA256(seed, k as 8 bytes big-endian), k = 0, 1, ...: four 64-bit big-endian integers a block."""
    k = 0
    while True:
        block = hmac.new(seed, k.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i:i + 8], "big")
        k += 1


def _choice(numbers, n: int) -> int:
    """Uniform in 0..n-1: the next integer below 2**64 - 2**64 % n, modulo n."""
    limit = 2 ** 64 - 2 ** 64 % n
    for x in numbers:
        if x < limit:
            return x % n


def draw_multipliers(setting: dict, seed_hex: str) -> list[dict]:
    """The multipliers a seed draws under a table's `multipliers` setting: a partial Fisher-Yates
    shuffle of its spots picks `draws` of them, then each gets a value chosen by weight."""
    numbers = _integers(bytes.fromhex(seed_hex))
    pool, values = list(setting["spots"]), [tuple(pair) for pair in setting["values"]]
    for i in range(setting["draws"]):
        j = i + _choice(numbers, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    drawn = []
    for spot in pool[:setting["draws"]]:
        r = _choice(numbers, sum(w for _, w in values))
        for multiplier, weight in values:
            if r < weight:
                drawn.append({"spot": spot, "multiplier": multiplier})
                break
            r -= weight
    return drawn


def check_multipliers(rnd: dict, said: dict, problems: list[str]) -> None:
    """A multiplier round (`rnd`: its multipliers_commit, multipliers and multipliers_seed as shown)
    against its events (`said`, replayed): its seed against the commitment, its draw against the seed."""
    commit, setting = said["multipliers_commit"], said["multipliers_setting"]
    if (rnd.get("multipliers_commit") or None) != commit:
        problems.append(f"the round's multiplier commitment is {rnd.get('multipliers_commit')!r}; its events say {commit!r}")
    if said["multipliers"] is None:
        if rnd.get("multipliers") is not None:
            problems.append("the round shows multipliers its events never drew")
        return
    seed = said["multipliers_seed"]
    try:
        seed_ok = commit is not None and hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commit
    except (TypeError, ValueError):
        seed_ok = False
    if not seed_ok:
        problems.append(f"the multipliers' seed {seed!r} does not hash to the commitment published at the opening ({commit!r})")
    elif not isinstance(setting, dict) or draw_multipliers(setting, seed) != said["multipliers"]:
        problems.append(f"the multipliers chained ({said['multipliers']}) are not what the seed draws under the table's setting")
    if rnd.get("multipliers") != said["multipliers"] or (rnd.get("multipliers_seed") or None) != seed:
        problems.append(f"the round shows multipliers {rnd.get('multipliers')} (seed {rnd.get('multipliers_seed')!r}); "
                        f"its events drew {said['multipliers']} (seed {seed!r})")


def replay(forms: list[dict]) -> dict:
    """What a round's events say, in chain order: its status, joker, cards, winner, settlement or
    void, and its incidents (kind, status, notes, resolution, who resolved them)."""
    state = {"status": "", "joker": None, "cards": [], "winner": "", "settlements": 0, "totals": None, "incidents": {},
             "multipliers_commit": None, "multipliers_setting": None, "multipliers": None, "multipliers_seed": None}
    cards, incidents = state["cards"], state["incidents"]
    for form in forms:
        action, data = form.get("action"), form.get("data") or {}
        if form.get("to_status"):
            state["status"] = form["to_status"]
        if action == "opened":
            state["joker"] = data.get("joker")
            state["multipliers_commit"] = data.get("multipliers_commit")
            state["multipliers_setting"] = (data.get("settings") or {}).get("multipliers")
        elif action == "betting_closed" and "multipliers" in data:
            state["multipliers"], state["multipliers_seed"] = data.get("multipliers"), data.get("multipliers_seed")
        elif action == "card":
            cards.append({"position": data.get("position"), "side": data.get("side"), "card": data.get("card"),
                          "dealt_at": data.get("dealt_at")})
        elif action == "corrected":
            position = data.get("position")
            if data.get("action") == "replace" and isinstance(position, int) and 1 <= position <= len(cards):
                cards[position - 1] = {**cards[position - 1], "card": data.get("after")}
            elif data.get("action") == "remove_last" and cards and cards[-1]["position"] == position:
                cards.pop()
            else:
                cards.append({"position": position, "side": None, "card": "(a correction that does not fit the cards)", "dealt_at": None})
            if "winner" in data:
                state["winner"] = data["winner"]
            elif form.get("from_status") in ("finished", "settled"):
                state["winner"] = UNKNOWN
        elif action in ("finished", "settled", "resettled"):
            state["winner"] = data.get("winner", state["winner"])
        if action in SETTLING:
            state["settlements"] += 1
            version = data.get("version", state["settlements"])
            if action == "voided":
                state["totals"] = {"version": version, "bets": data.get("bets"), "staked": data.get("refunded"),
                                   "paid": data.get("refunded")}
            else:
                state["totals"] = {"version": version, "bets": data.get("bets"), "staked": data.get("staked"), "paid": data.get("paid"),
                                   "spots": data.get("spots")}
        if action == "incident":
            incidents[data.get("incident")] = {"kind": data.get("kind"), "status": "open", "notes": [], "resolution": "",
                                               "resolved_by": None}
        elif action == "incident_note":
            incidents.setdefault(data.get("incident"), {"kind": None, "status": None, "notes": [], "resolution": "",
                                                        "resolved_by": None})["notes"].append(data.get("note"))
        elif action in ("incident_resolved", "resumed") and data.get("incident") in incidents:
            incidents[data["incident"]].update(status="resolved", resolution=data.get("resolution") or "resumed",
                                               resolved_by=form.get("actor_id"))
        elif action == "voided":
            for number, incident in incidents.items():
                if number == data.get("incident"):
                    incident.update(status="voided", resolution=data.get("reason"), resolved_by=form.get("actor_id"))
                elif incident["status"] == "open":
                    incident.update(status="voided", resolution=f"round voided: {data.get('reason')}", resolved_by=form.get("actor_id"))
    return state


def _links(record: dict, problems: list[str]) -> list[dict]:
    """Every event's own check; then the segment they and the bare links make, in seq order."""
    chain = record.get("chain") or {}
    key, round_id = chain.get("key"), (record.get("round") or {}).get("id")
    rows = []
    for event in chain.get("events") or []:
        where = f"event seq {event.get('seq')} ({event.get('action')})"
        form_text = event.get("form", "")
        if sha256(form_text) != event.get("digest"):
            problems.append(f"{where}: its digest is not the SHA-256 of its form")
        try:
            form = json.loads(form_text)
        except ValueError:
            problems.append(f"{where}: its form is not JSON")
            continue
        if canonical(form) != form_text:
            problems.append(f"{where}: its form is not in canonical form")
        if (form.get("chain"), form.get("seq"), form.get("kind"), form.get("round_id")) != (key, event.get("seq"), "round_event", round_id):
            problems.append(f"{where}: its form names another chain, seq or round")
        rows.append({**event, "parsed": form})
    for link in chain.get("links") or []:
        rows.append(link)
    rows.sort(key=lambda row: row.get("seq") or 0)
    gaps = {(gap.get("after"), gap.get("before")) for gap in chain.get("gaps") or []}
    previous = None
    for row in rows:
        seq = row.get("seq")
        if sha256(f"{row.get('prev')}{row.get('digest')}") != row.get("hash"):
            problems.append(f"record seq {seq}: its hash is not the SHA-256 of its prev and its digest")
        if previous is not None:
            if seq == previous["seq"]:
                problems.append(f"record seq {seq}: shown twice")
            elif (previous["seq"], seq) in gaps:
                pass  # records not shown: verify_audit checks them in the studio
            elif seq != previous["seq"] + 1:
                problems.append(f"record seq {seq}: the records from seq {previous['seq'] + 1} are missing")
            elif row.get("prev") != previous.get("hash"):
                problems.append(f"record seq {seq}: its prev is not the hash of record seq {previous['seq']}")
        elif seq == 1 and row.get("prev") != GENESIS:
            problems.append("record seq 1: its prev is not the chain's start (64 zeros)")
        previous = row
    head = chain.get("head") or {}
    if previous is not None:
        if not isinstance(head.get("seq"), int) or head["seq"] < previous["seq"]:
            problems.append(f"the head (seq {head.get('seq')}) is before the last record shown (seq {previous['seq']})")
        elif head["seq"] == previous["seq"] and head.get("hash") != previous.get("hash"):
            problems.append(f"the head's hash is not the hash of record seq {previous['seq']}")
    return [row["parsed"] for row in rows if "parsed" in row]


def _same_amount(a, b) -> bool:
    return amount(a) is not None and amount(a) == amount(b)


def _facts(record: dict, forms: list[dict], problems: list[str]) -> None:
    """The record's round, cards, winner, totals and incidents against its events."""
    if not forms:
        problems.append("the record has no event of its round")
        return
    if forms[0].get("action") != "opened":
        problems.append(f"the round's first event is {forms[0].get('action')}, not opened")
    said = replay(forms)
    rnd = record.get("round") or {}
    for field in ("status", "joker"):
        if rnd.get(field) != said[field]:
            problems.append(f"the round's {field} is {rnd.get(field)!r}; its events say {said[field]!r}")
    if said["winner"] is not UNKNOWN and (rnd.get("winner") or "") != (said["winner"] or ""):
        problems.append(f"the round's winner is {rnd.get('winner')!r}; its events say {said['winner']!r}")
    shown = [(c.get("position"), c.get("side"), c.get("card"), c.get("dealt_at")) for c in record.get("cards") or []]
    replayed = [(c["position"], c["side"], c["card"], ms(c["dealt_at"]) if c["dealt_at"] else None) for c in said["cards"]]
    if len(shown) != len(replayed):
        problems.append(f"the record shows {len(shown)} cards; its events deal {len(replayed)}")
    for got, want in zip(shown, replayed):
        if got[:3] != want[:3] or (want[3] is not None and got[3] != want[3]):
            problems.append(f"card {got[0]}: the record shows {got[2]} ({got[1]}, {got[3]}); its events say {want[2]} ({want[1]}, {want[3]})")
    if rnd.get("cards_dealt") != len(replayed):
        problems.append(f"the round counts {rnd.get('cards_dealt')} cards; its events deal {len(replayed)}")
    totals, settlement, void = said["totals"], record.get("settlement"), record.get("void")
    if said["status"] == "voided":
        shown_totals = void and {"version": void.get("version"), "bets": void.get("bets"), "staked": void.get("refunded"),
                                 "paid": void.get("refunded")}
    elif said["status"] == "settled":
        shown_totals = settlement
    else:
        shown_totals = None
        if settlement or void:
            problems.append("the record shows a settlement or a void its events do not")
    if totals is not None and said["status"] in ("settled", "voided"):
        if not shown_totals:
            problems.append(f"the record shows no {'void' if said['status'] == 'voided' else 'settlement'}; its events have one")
        elif (shown_totals.get("version"), shown_totals.get("bets")) != (totals["version"], totals["bets"]) or not (
                _same_amount(shown_totals.get("staked"), totals["staked"]) and _same_amount(shown_totals.get("paid"), totals["paid"])):
            problems.append(f"the totals shown ({shown_totals}) are not its last settlement's ({totals})")
        _spots(record.get("spots") or [], totals, problems)
    if said["multipliers_commit"] is not None or (record.get("round") or {}).get("multipliers_commit"):
        check_multipliers(record.get("round") or {}, said, problems)
    shown_incidents = {i.get("id"): i for i in record.get("incidents") or []}
    if set(shown_incidents) != set(said["incidents"]):
        problems.append(f"the record shows incidents {sorted(shown_incidents)}; its events raise {sorted(said['incidents'])}")
    for number, want in said["incidents"].items():
        got = shown_incidents.get(number)
        if got is None:
            continue
        for field in ("kind", "status", "notes", "resolution"):
            if (got.get(field) or None) != (want[field] or None):
                problems.append(f"incident {number}: its {field} is {got.get(field)!r}; its events say {want[field]!r}")


def _spots(spots: list, totals: dict, problems: list[str]) -> None:
    """The record's bets per spot (read from the bets themselves) against what its last settlement or
    void chained: they add up to its totals, and spot by spot to its per-spot totals where it has
    them. A bet or a ledger entry edited behind the studio's back, however balanced, shows here."""
    added = {"bets": 0, "staked": Decimal(0), "paid": Decimal(0)}
    for row in spots:
        added["bets"] += row.get("bets") or 0
        for field in ("staked", "paid"):
            added[field] += amount(row.get(field)) or Decimal(0)
    want = {"bets": totals["bets"], "staked": amount(totals["staked"]), "paid": amount(totals["paid"])}
    if added != want:
        problems.append(f"the bets shown add up to {added['bets']} bets, {added['staked']} staked and {added['paid']} paid; "
                        f"its last settlement says {want['bets']}, {want['staked']} and {want['paid']}")
    chained = totals.get("spots")
    if not isinstance(chained, dict):
        return  # a settlement chained before it recorded its spots, or a void: the sums above
    shown = {row.get("spot"): row for row in spots}
    for spot in sorted(set(shown) | set(chained)):
        got, said = shown.get(spot) or {}, chained.get(spot) or {}
        if (got.get("bets") or 0) != (said.get("bets") or 0) or not all(
                (amount(got.get(f)) or Decimal(0)) == (amount(said.get(f)) or Decimal(0)) for f in ("staked", "paid")):
            problems.append(f"spot {spot}: the bets shown are {got.get('bets') or 0} bets, {got.get('staked') or '0'} staked, "
                            f"{got.get('paid') or '0'} paid; its last settlement says {said.get('bets') or 0}, "
                            f"{said.get('staked') or '0'} and {said.get('paid') or '0'}")


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def inclusion_verifies(leaf: bytes, index: int, size: int, path: list[bytes], root: bytes) -> bool:
    """RFC 9162, 2.1.3.2: the leaf's inclusion proof leads to the root."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, hashlib.sha256(b"\x00" + leaf).digest()
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = _node(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = _node(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def checkpoint_parts(note: str) -> tuple[str, int, bytes] | None:
    """A checkpoint's origin, size and root (C2SP tlog-checkpoint), or None."""
    lines = note.split("\n")
    try:
        return lines[0], int(lines[1]), base64.b64decode(lines[2], validate=True)
    except (IndexError, ValueError):
        return None


def _log(record: dict, problems: list[str], key: str | None) -> str:
    """The round's leaves against the checkpoint; what was checked of the checkpoint's signature."""
    log = record.get("log") or {}
    entries, note = log.get("entries") or [], log.get("checkpoint")
    if not entries:
        return "not in the public log yet"
    parts = checkpoint_parts(note or "")
    if parts is None:
        problems.append("the record's log checkpoint is not a checkpoint")
        return ""
    _, size, root = parts
    rnd = record.get("round") or {}
    for n, entry in enumerate(entries):
        try:
            leaf = base64.b64decode(entry.get("leaf") or "", validate=True)
            outcome = json.loads(leaf)
        except ValueError:
            problems.append(f"log leaf {entry.get('index')}: not base64 JSON")
            continue
        if not inclusion_verifies(leaf, entry.get("index", -1), size, [base64.b64decode(h) for h in entry.get("proof") or []], root):
            problems.append(f"log leaf {entry.get('index')}: its inclusion proof does not lead to the checkpoint's root")
        if outcome.get("round") != rnd.get("id"):
            problems.append(f"log leaf {entry.get('index')}: it is round {outcome.get('round')}'s, not this round's")
        newest = n == len(entries) - 1
        if newest and (outcome.get("status"), outcome.get("joker"), outcome.get("cards")) != (
                rnd.get("status"), rnd.get("joker"), [c.get("card") for c in record.get("cards") or []]):
            problems.append(f"log leaf {entry.get('index')}: the round's newest leaf says {outcome.get('status')}, "
                            f"joker {outcome.get('joker')}, cards {outcome.get('cards')}; the record shows otherwise")
    if key is None:
        return f"in the public log (tree of {size}), checkpoint signature not checked (no --key)"
    try:
        from cryptography.exceptions import InvalidSignature  # noqa: PLC0415 (optional: only with --key)
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: PLC0415
    except ImportError:
        return f"in the public log (tree of {size}), checkpoint signature not checked (install cryptography)"
    name, key_hex, b64 = key.strip().split("+", 2)
    raw = base64.b64decode(b64)
    body, _, signatures = note.partition("\n\n")
    for line in signatures.split("\n"):
        signer, _, sig64 = line[2:].rpartition(" ")
        sig = base64.b64decode(sig64 or "")
        if line.startswith("\u2014 ") and signer == name and sig[:4].hex() == key_hex and raw[:1] == b"\x01":
            try:
                Ed25519PublicKey.from_public_bytes(raw[1:]).verify(sig[4:], (body + "\n").encode())
                return f"in the public log (tree of {size}), checkpoint signed by {name}"
            except InvalidSignature:
                break
    problems.append(f"the checkpoint is not signed by {name}")
    return ""


def check(record, key: str | None = None) -> list[str]:
    """Every problem of the record (empty: it verifies)."""
    return check_all(record, key)[0]


def check_all(record, key: str | None = None) -> tuple[list[str], str]:
    """Every problem of the record, and what its public log check says."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return [f"not a round record ({FORMAT})"], ""
    problems: list[str] = []
    forms = _links(record, problems)
    _facts(record, forms, problems)
    logged = _log(record, problems, key)
    return problems, logged


def main(argv: list[str]) -> int:
    key = None
    if len(argv) >= 3 and argv[1] == "--key":
        key, argv = argv[2], [argv[0], *argv[3:]]
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__.strip())
        return 2
    try:
        text = open(argv[1], encoding="utf-8").read() if len(argv) == 2 else sys.stdin.read()
        record = json.loads(text)
    except (OSError, ValueError) as exc:
        print(f"cannot read the record: {exc}", file=sys.stderr)
        return 2
    problems, logged = check_all(record, key)
    if problems:
        rnd = (record.get("round") or {}).get("id") if isinstance(record, dict) else None
        print(f"NOT VERIFIED: round {rnd}: {len(problems)} problem(s)")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    chain = record["chain"]
    events, others = chain["events"], len(chain.get("links") or [])
    print(f"VERIFIED: round {record['round']['id']} at {chain['key']}: {len(events)} events, "
          f"seq {events[0]['seq']}-{events[-1]['seq']}, {others} other record{'' if others == 1 else 's'} linked, "
          f"head seq {chain['head']['seq']} {chain['head']['hash']}; {logged}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
