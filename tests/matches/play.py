"""Playing a match through the API, round by round, with outcomes the test chooses.

The virtual dealer opens each round (a shuffled pack, committed to); the test then swaps in a pack
that starts with the same joker and ends the deal where it wants (Andar on card 1, or Bahar on
card 2), and re-commits to it, so the round still verifies. Players bet or sit out through
/api/matches/{id}/bet/ and /sit-out/; the virtual dealer's ticks close betting when due and deal.
"""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone

from bets.models import Account, LedgerEntry
from virtual import dealer as virtual
from engine import FULL_PACK, parse_card
from tables.models import Match, Round, Table

D = Decimal
S = Round.Status
SIT_OUT = None


def pack_for(joker: str, winner: str) -> str:
    """A full pack, joker first, whose deal (first card to Andar) ends on Andar's first card or on
    Bahar's first card."""
    rank = parse_card(joker).rank
    cards = [str(c) for c in FULL_PACK]
    same = next(c for c in cards if parse_card(c).rank == rank and c != joker)
    other = next(c for c in cards if parse_card(c).rank != rank)
    head = [same] if winner == "andar" else [other, same]
    return ",".join([joker, *head, *(c for c in cards if c not in head and c != joker)])


class MatchPlay:
    """One match as its players see it: `clients` maps a username to that player's API client."""

    def __init__(self, match_id: int, clients: dict):
        self.id = match_id
        self.clients = clients
        self.match = Match.objects.get(pk=match_id)
        self.table_id = self.match.table_id
        Table.objects.filter(pk=self.table_id).update(round_gap_ms=0, deal_interval_ms=0)

    @classmethod
    def start(cls, clients: dict, *, scoring: str = "chips", rounds: int = 10) -> MatchPlay:
        """The first client creates the match, the others join by its code, the creator starts it."""
        names = list(clients)
        created = clients[names[0]].post("/api/matches/", {"scoring": scoring, "rounds": rounds}, format="json")
        assert created.status_code == 201, created.content
        for name in names[1:]:
            joined = clients[name].post("/api/matches/join/", {"code": created.json()["code"]}, format="json")
            assert joined.status_code == 200, joined.content
        started = clients[names[0]].post(f"/api/matches/{created.json()['id']}/start/")
        assert started.status_code == 200, started.content
        return cls(created.json()["id"], clients)

    # --- reading ------------------------------------------------------------------------------
    def state(self, who: str | None = None) -> dict:
        response = self.clients[who or next(iter(self.clients))].get(f"/api/matches/{self.id}/")
        assert response.status_code == 200, response.content
        return response.json()

    def chips(self) -> dict[str, Decimal]:
        return {p["player"]: D(p["chips"]) for p in self.state()["players"]}

    def refresh(self) -> Match:
        self.match.refresh_from_db()
        return self.match

    def current(self) -> Round | None:
        return Round.objects.filter(table_id=self.table_id).order_by("-id").first()

    # --- the dealer ---------------------------------------------------------------------------
    def open(self, winner: str) -> Round:
        """The virtual dealer opens the next round; its pack is set so that `winner` wins."""
        did, _ = virtual.tick(table_id=self.table_id)
        assert did == "opened", did
        rnd = self.current()
        pack = pack_for(rnd.joker, winner)
        Round.objects.filter(pk=rnd.pk).update(pack=pack, commitment=virtual.commitment(rnd.salt, pack))
        rnd.refresh_from_db()
        return rnd

    def time_runs_out(self, rnd: Round) -> None:
        Round.objects.filter(pk=rnd.pk, status=S.BETTING).update(closes_at=timezone.now() - timedelta(seconds=1))

    def deal_out(self, rnd: Round) -> Round:
        """Tick the virtual dealer until the round is settled (betting must be over)."""
        for _ in range(10):
            rnd.refresh_from_db()
            if rnd.status in (S.SETTLED, S.VOIDED):
                return rnd
            did, _ = virtual.tick(table_id=self.table_id)
            assert did not in ("betting", "off"), f"the dealer is {did} in round {rnd.pk} ({rnd.status})"
        raise AssertionError(f"round {rnd.pk} did not end: {rnd.status}")

    # --- the players --------------------------------------------------------------------------
    def bet(self, who: str, *bets: tuple[str, int], status: int = 201) -> dict:
        body = {"bets": [{"spot": spot, "amount": str(amount)} for spot, amount in bets]}
        response = self.clients[who].post(f"/api/matches/{self.id}/bet/", body, format="json")
        assert response.status_code == status, response.content
        return response.json()

    def sit_out(self, who: str, status: int = 200) -> dict:
        response = self.clients[who].post(f"/api/matches/{self.id}/sit-out/")
        assert response.status_code == status, response.content
        return response.json()

    def play(self, winner: str, **moves) -> Round:
        """One whole round: every named player bets (a (spot, amount) pair or a list of them) or sits
        out (SIT_OUT); betting then ends early, and the dealer deals until `winner` wins."""
        rnd = self.open(winner)
        for who, move in moves.items():
            if move is SIT_OUT:
                self.sit_out(who)
            else:
                self.bet(who, *(move if isinstance(move, list) else [move]))
        return self.deal_out(rnd)

    def everyone_sits_out(self, winner: str = "andar") -> Round:
        return self.play(winner, **{name: SIT_OUT for name in self.clients})

    def nobody_bets(self, winner: str = "andar") -> Round:
        """A round where the countdown runs out with no bet: the virtual dealer closes it on its clock."""
        rnd = self.open(winner)
        self.time_runs_out(rnd)
        return self.deal_out(rnd)


def ledger_sum(**filters) -> Decimal:
    return LedgerEntry.objects.filter(**filters).aggregate(s=Sum("amount"))["s"] or D(0)


def assert_match_chips_balance(match: Match) -> None:
    """The ledger sums to zero, every match wallet equals its entries, and the match's mint issued
    exactly what the players and the house now hold."""
    assert ledger_sum() == 0
    wallets = Account.objects.filter(currency=match.currency, kind=Account.Kind.PLAYER)
    assert wallets.exists()
    for wallet in wallets:
        assert wallet.balance == ledger_sum(account=wallet), wallet
    assert ledger_sum(account__currency=match.currency) == 0
