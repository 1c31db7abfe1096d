"""Rounds played through the real services (open, close betting, deal: settlement runs in-process
after commit), with seeded packs or an injected fault."""
import random

import pytest

from engine import FULL_PACK
from tables.services import card_deal, round_close_betting, round_open


def fair_pack(rng: random.Random) -> list[str]:
    pack = [str(c) for c in FULL_PACK]
    rng.shuffle(pack)
    return pack


def first_card_pack(rng: random.Random) -> list[str]:
    """A stacked shoe: the first card dealt always matches the joker."""
    pack = fair_pack(rng)
    joker = pack[0]
    mate = next(i for i, c in enumerate(pack[1:], 1) if c[:-1] == joker[:-1])
    pack[1], pack[mate] = pack[mate], pack[1]
    return pack


def play(table, dealer, pack: list[str]) -> int:
    rnd = round_open(table_id=table.pk, joker=pack[0], dealer=dealer)
    round_close_betting(round_id=rnd.pk, actor=dealer)
    for card in pack[1:]:
        _, finished = card_deal(round_id=rnd.pk, card=card, actor=dealer)
        if finished:
            return rnd.pk
    raise AssertionError("no match")


@pytest.fixture
def rng():
    return random.Random(15)
