"""The virtual dealer: the server runs a table instead of a person, through the very same services a
human dealer's console calls (round_open, round_close_betting, card_deal): no second code path.

Every round it shuffles a full pack with the operating system's cryptographically secure generator
(`secrets.SystemRandom`; a test passes a seeded `random.Random` to get the same packs every run),
commits to it before betting opens (SHA-256 of "salt:pack"), turns up the pack's first card as the
joker, and deals the rest in order at the table's pace; after the round the salt and the pack are
revealed so anyone can check that the dealt cards were the committed pack (docs/FAIRNESS.md).

`tick` is one idempotent step for one table; `run` loops over the virtual tables. Two loops racing
cannot break a round: the database refuses a second open round and a second card at a position.
"""
from __future__ import annotations

import hashlib
import logging
import random
import secrets
import threading
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import close_old_connections
from django.utils import timezone

from studio.errors import ApplicationError
from studio.roles import DEALER

from engine import FULL_PACK
from tables.models import Round, Table
from tables.selectors import table_paced
from tables.access import VIRTUAL
from tables.services import card_deal, round_close_betting, round_open

log = logging.getLogger(__name__)
S = Round.Status
VIRTUAL_DEALER = "virtual-dealer"
LOOK_AGAIN = 0.5  # seconds: the longest a wait goes before the table is read again (its pace may change)


def shuffled_pack(rng: random.Random | None = None) -> list[str]:
    pack = [str(card) for card in FULL_PACK]
    (rng or secrets.SystemRandom()).shuffle(pack)
    return pack


def commitment(salt: str, pack: str) -> str:
    return hashlib.sha256(f"{salt}:{pack}".encode()).hexdigest()


def verify(*, commitment_hex: str, salt: str, pack: str, joker: str, cards: list[str]) -> bool:
    """What anyone can check after a round: the hash matches, and the joker and dealt cards are the
    pack's first cards in order."""
    codes = pack.split(",")
    return (commitment(salt, pack) == commitment_hex and sorted(codes) == sorted(str(c) for c in FULL_PACK)
            and codes[0] == joker and codes[1:1 + len(cards)] == list(cards))


def dealer_user():
    user, created = get_user_model().objects.get_or_create(username=VIRTUAL_DEALER)
    if created:
        user.set_unusable_password()
        user.save()
        user.groups.add(Group.objects.get_or_create(name=DEALER)[0])
    return user


def tick(*, table_id: int, rng: random.Random | None = None, dealer=None) -> tuple[str, float]:
    """Do the next thing at a virtual table. Returns (what it did, seconds until it is worth asking again).
    The table sets the pace of a deal and the gap between rounds; VIRTUAL_DEALER_SETTLE_POLL is how
    soon it looks again at a finished round for its settlement (a Celery task). `dealer`: the
    virtual dealer's user, if the caller has it (`run` reads it with the tables, not once a card)."""
    paced = table_paced(table_id=table_id)
    if paced is None:
        return "off", 5.0
    table, rnd = paced
    dealer = dealer or dealer_user()
    pace, gap = table.deal_interval_ms / 1000, table.round_gap_ms / 1000
    settle_poll = settings.VIRTUAL_DEALER_SETTLE_POLL
    now = timezone.now()
    try:
        if rnd is None or rnd.status in (S.SETTLED, S.VOIDED):
            ended = (rnd.settled_at or rnd.finished_at or rnd.closed_at or rnd.opened_at) if rnd else None
            wait = (ended - now).total_seconds() + gap if ended else 0
            if wait > 0:  # read again within LOOK_AGAIN: a change to the table's pace applies at once
                return "between rounds", min(wait, LOOK_AGAIN)
            if table.state != Table.State.OPEN:  # round_open would refuse it (table_closed): wait for a supervisor
                return "closed", 2.0
            pack = shuffled_pack(rng)
            salt, text = secrets.token_hex(16), ",".join(pack)
            rnd = round_open(table_id=table.pk, joker=pack[0], dealer=dealer, by=VIRTUAL,
                             fairness={"commitment": commitment(salt, text), "pack": text, "salt": salt})
            return "opened", min(table.betting_seconds, LOOK_AGAIN)  # betting may close early (a match)
        if rnd.status == S.FINISHED:
            return "settling", settle_poll
        if rnd.status == S.PAUSED:
            return "paused", LOOK_AGAIN
        if rnd.status == S.BETTING:
            left = (rnd.closes_at - now).total_seconds()
            if left > 0:
                return "betting", min(left, LOOK_AGAIN)
            round_close_betting(round_id=rnd.pk, reason="timer", strict=False)
            return "closed", pace
        if rnd.status == S.DEALING:
            if not rnd.pack:
                return "a person's round", 5.0
            card = rnd.pack.split(",")[rnd.cards_dealt + 1]
            _, match = card_deal(round_id=rnd.pk, card=card, actor=dealer, by=VIRTUAL)
            return ("match" if match else "dealt"), (settle_poll if match else pace)
    except ApplicationError as exc:  # another loop got there first, or a supervisor acted: look again soon
        log.info("virtual dealer at table %s: %s", table_id, exc.message)
        return "refused", 0.2
    return "idle", 1.0


def run(*, stop: threading.Event | None = None, max_rounds: int | None = None, tables: list[int] | None = None,
        rng: random.Random | None = None) -> int:
    """Loop over the virtual tables until `stop` is set (or `max_rounds` rounds were opened)."""
    stop = stop or threading.Event()
    due: dict[int, float] = {}
    opened = 0
    last_scan = 0.0
    dealer = None
    while not stop.is_set():
        now = time.monotonic()
        if now - last_scan > 5 or not due:
            try:
                ids = tables or list(Table.objects.filter(virtual_dealer=True).values_list("pk", flat=True))
                dealer = dealer_user()
            except Exception:  # the database is away: keep the dealer alive and look again
                log.exception("virtual dealer: cannot list the tables; retrying")
                close_old_connections()
                stop.wait(1.0)
                continue
            due = {pk: due.get(pk, now) for pk in ids}
            last_scan = now
        for table_id, when in list(due.items()):
            if when > now:
                continue
            try:
                did, wait = tick(table_id=table_id, rng=rng, dealer=dealer)
            except Exception:
                log.exception("virtual dealer at table %s failed; retrying", table_id)
                did, wait = "error", 1.0
            opened += did == "opened"
            due[table_id] = time.monotonic() + max(wait, 0)
            if max_rounds is not None and opened >= max_rounds and did == "opened":
                stop.set()
        close_old_connections()
        next_due = min(due.values(), default=time.monotonic() + 1)
        stop.wait(min(max(next_due - time.monotonic(), 0.0), 1.0))
    return opened

