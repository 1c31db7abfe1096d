"""Matches of several rounds among friends (RULES.md, "Matches of several rounds").

A match runs on its own private table, dealt by the virtual dealer, with its own chips: a wallet per
player in the match's currency (`M<id>`), issued by the mint at the start (1,000 each) and moved only
through the ledger like any chip, worthless afterwards. Every round is an ordinary round: same
engine, same settlement, same stream. Scoring: `chips` (most chips wins; early end when only one
player still has chips) or `points` (one point for each round where the player's main bet won).
"""
from __future__ import annotations

import secrets
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from bets.ledger import chips_issue
from bets.models import Account, Bet
from bets.placing import lock_round_for_betting
from bets.services import bet_place
from engine import Side
from studio.errors import ApplicationError, Busy, NotAllowed, WrongMoment, invalid
from studio.roles import PLAYER, SUPERVISOR, has_role
from tables import changes, events, stream
from tables.access import MATCH, match_or_404
from tables.locking import Held, lock_table
from tables.models import Match, MatchPlayer, Round, Table
from tables.services import round_close_betting, table_create, table_update

START_CHIPS = Decimal("1000")
MAX_PLAYERS, MIN_PLAYERS = 6, 2
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no O/0, I/1
MATCH_TABLE = {
    "first_card": "andar", "mode": "classic", "card_count_paytable": "play", "chip_unit": Decimal("1"),
    "min_bet": Decimal("10"), "max_bet": Decimal("500"), "allow_both_sides": False, "betting_seconds": 20,
    "deal_interval_ms": 900, "round_gap_ms": 4000, "virtual_dealer": False, "is_private": True,
}
MAIN = tuple(side.value for side in Side)  # the main bets, the ones that score a point


def _new_code() -> str:
    for _ in range(20):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
        if not Match.objects.filter(code=code).exists():
            return code
    raise Busy("Could not find a free match code; try again.", code="busy")


def table_name(match_id: int) -> str:
    """A match table's name: never the join code (whoever sees the table must not learn it)."""
    return f"Match {match_id}"


def _limit_unfinished(creator) -> None:
    """At most MATCHES_PER_PLAYER unfinished matches created by one user. The creator's user row is
    locked first, so parallel creates by one user count one after the other."""
    get_user_model().objects.select_for_update().filter(pk=creator.pk).values_list("pk", flat=True).first()
    limit = settings.MATCHES_PER_PLAYER
    unfinished = Match.objects.filter(created_by=creator).exclude(status=Match.Status.FINISHED).count()
    if unfinished >= limit:
        raise WrongMoment(f"You already have {unfinished} unfinished matches (at most {limit}): finish one first.",
                               code="too_many_matches", extra={"limit": limit})


def match_create(*, creator, scoring: str = "chips", rounds_total: int = 20, betting_seconds: int | None = None) -> Match:
    if not has_role(creator, PLAYER, SUPERVISOR):
        raise NotAllowed("Only a player or a supervisor may start a match.", code="permission_denied")
    if scoring not in Match.Scoring.values:
        raise invalid("scoring", "Scoring is chips or points.")
    if rounds_total not in (10, 20, 30):
        raise invalid("rounds", "A match is 10, 20 or 30 rounds.")
    if betting_seconds is not None and not 5 <= betting_seconds <= 120:
        raise invalid("betting_seconds", "Between 5 and 120 seconds.")
    with transaction.atomic():
        _limit_unfinished(creator)
        code = _new_code()
        fields = dict(MATCH_TABLE, betting_seconds=betting_seconds or MATCH_TABLE["betting_seconds"])
        table = table_create(table=Table(name=f"Match table {secrets.token_hex(8)}", currency="M", **fields),
                             actor=creator, source=changes.MATCH)
        match = Match.objects.create(table=table, code=code, scoring=scoring, rounds_total=rounds_total, created_by=creator)
        name = table_name(match.pk)
        if Table.objects.filter(name=name).exists():  # a studio table took that name: keep the unique one
            name = table.name
        table_update(table_id=table.pk, changes={"currency": match.currency, "name": name}, actor=creator, source=changes.MATCH)
        if has_role(creator, PLAYER):
            MatchPlayer.objects.create(match=match, user=creator)
        return match


def match_join(*, code: str, user) -> Match:
    if not has_role(user, PLAYER):
        raise NotAllowed("Only players join matches.", code="permission_denied")
    wanted = (code or "").strip().upper()
    if not (wanted.isascii() and wanted.isalnum() and len(wanted) <= 12):  # refused before any query (a NUL would fail it)
        raise invalid("code", f"No match has the code {code!r}.", code="unknown_code")
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(code=wanted).first()
        if match is None:
            raise invalid("code", f"No match has the code {code!r}.", code="unknown_code")
        if MatchPlayer.objects.filter(match=match, user=user).exists():
            return match
        if match.status != Match.Status.LOBBY:
            raise WrongMoment("This match has already started.", code="match_started")
        if MatchPlayer.objects.filter(match=match).count() >= MAX_PLAYERS:
            raise WrongMoment(f"This match is full ({MAX_PLAYERS} players).", code="match_full")
        MatchPlayer.objects.create(match=match, user=user)
        return match


def match_start(*, match_id: int, actor) -> Match:
    with transaction.atomic():
        table_id = Match.objects.filter(pk=match_id).values_list("table_id", flat=True).get()
        held = lock_table(table_id)  # the table's locks before the match's row and its players' wallets (tables.locking)
        match = Match.objects.select_for_update().get(pk=match_id)
        if actor.pk != match.created_by_id and not has_role(actor, SUPERVISOR):
            raise NotAllowed("Only the player who created the match (or a supervisor) starts it.", code="permission_denied")
        if match.status != Match.Status.LOBBY:
            raise WrongMoment(f"This match is already {match.status}.", code=f"match_{match.status}")
        players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
        if len(players) < MIN_PLAYERS:
            raise WrongMoment(f"A match needs at least {MIN_PLAYERS} players (share the code {match.code}).", code="too_few_players")
        for p in players:
            chips_issue(user=p.user, amount=START_CHIPS, currency=match.currency, memo=f"match {match.code} chips")
        Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING, started_at=timezone.now())
        table_update(table_id=match.table_id, changes={"virtual_dealer": True}, actor=actor, source=changes.MATCH)
        stream.table_event(held, events.MatchStarted(match=match.pk, scoring=match.scoring,
                           rounds=match.rounds_total, players=[p.user.username for p in players], chips=str(START_CHIPS)))
        match.refresh_from_db()
        return match


def balances(match: Match) -> dict[int, Decimal]:
    rows = Account.objects.filter(kind="player", currency=match.currency).values_list("user_id", "balance")
    return dict(rows)


def active_players(match: Match) -> list[MatchPlayer]:
    """Players who can still bet: with chips left. The others watch."""
    money = balances(match)
    return [p for p in MatchPlayer.objects.filter(match=match) if money.get(p.user_id, Decimal(0)) > 0]


def _running_match_round(match_id: int, user) -> tuple[Match, MatchPlayer, Round]:
    match = match_or_404(match_id=match_id, user=user)
    player = MatchPlayer.objects.filter(match=match, user=user).first()
    if player is None:  # a supervisor watches
        raise NotAllowed("You are not playing in this match.", code="permission_denied")
    if match.status != Match.Status.RUNNING:
        raise WrongMoment(f"The match is {match.status}.", code=f"match_{match.status}")
    rnd = Round.objects.filter(table_id=match.table_id, status=Round.Status.BETTING).first()
    if rnd is None:
        raise WrongMoment("Betting is not open right now: wait for the next round.", code="betting_closed")
    return match, player, rnd


def proposal(*, match: Match, user) -> list[dict]:
    """The player's bets of the last counted round, set out again if they can still afford them."""
    player = MatchPlayer.objects.filter(match=match, user=user).first()
    if player is None or not player.history:
        return []
    last_round = player.history[-1]["round"]
    bets = list(Bet.objects.filter(round_id=last_round, player=user).exclude(status__in=["cancelled", "refunded"])
                .order_by("id").values("spot", "amount"))
    total = sum((b["amount"] for b in bets), Decimal(0))
    if not bets or total > balances(match).get(user.pk, Decimal(0)):
        return []
    return [{"spot": b["spot"], "amount": str(b["amount"])} for b in bets]


def match_bet(*, match_id: int, user, bets: list[dict]) -> list:
    """Place the player's bets for this round (all or nothing) and say they are done betting."""
    if not bets:
        raise invalid("bets", "Choose at least one bet, or sit the round out.")
    with transaction.atomic():
        match, player, rnd = _running_match_round(match_id, user)
        # Lock order as everywhere: the round (shared, as a bet does), then the player's row, so a
        # double tap on Bet waits here for the first and then finds the player done.
        lock_round_for_betting(rnd.pk)
        player = MatchPlayer.objects.select_for_update().get(pk=player.pk)
        if player.done_round_id == rnd.pk:
            raise WrongMoment("You have already bet this round.", code="already_done")
        if balances(match).get(user.pk, Decimal(0)) <= 0:
            raise WrongMoment("You have no chips left: you watch the rest of the match.", code="watching")
        placed = [bet_place(round_id=rnd.pk, player=user, spot=b.get("spot", ""), amount=b.get("amount", ""), via_match=True)[0] for b in bets]
        _done(match, player, rnd)
        return placed


def match_sit_out(*, match_id: int, user) -> None:
    with transaction.atomic():
        match, player, rnd = _running_match_round(match_id, user)
        _done(match, player, rnd)


def _done(match: Match, player: MatchPlayer, rnd: Round) -> None:
    MatchPlayer.objects.filter(pk=player.pk).update(done_round=rnd)
    transaction.on_commit(lambda: close_if_everyone_is_done(match_id=match.pk, round_id=rnd.pk))


def close_if_everyone_is_done(*, match_id: int, round_id: int) -> bool:
    """Betting ends early once every player with chips has bet or sat out."""
    match = Match.objects.get(pk=match_id)
    active = active_players(match)
    if any(p.done_round_id != round_id for p in active):
        return False
    try:
        return round_close_betting(round_id=round_id, reason="everyone has bet", strict=True, by=MATCH)
    except ApplicationError:
        return False


def on_round_settled(sender, *, rnd: Round, **kwargs) -> None:
    """tables.hooks.round_settled, inside the settlement transaction (and again on a re-settlement):
    record the round."""
    match = Match.objects.select_for_update().filter(table_id=rnd.table_id, status=Match.Status.RUNNING).first()
    if match is not None:
        _record(match, rnd)


def on_round_voided(sender, *, rnd: Round, **kwargs) -> None:
    """tables.hooks.round_voided, inside the void's transaction: a voided round does not count, so
    forget it (the refunds stay within the match's chips)."""
    match = Match.objects.select_for_update().filter(table_id=rnd.table_id, status=Match.Status.RUNNING).first()
    if match is not None:
        _record(match, rnd, drop=True)


def _record(match: Match, rnd: Round, *, drop: bool = False) -> None:
    money = balances(match)
    scored = set(Bet.objects.filter(round=rnd, spot__in=MAIN, status="won").values_list("player_id", flat=True))
    players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
    for p in players:
        history = [h for h in p.history if h["round"] != rnd.pk]
        if not drop:
            history.append({"round": rnd.pk, "scored": p.user_id in scored})
        history.sort(key=lambda h: h["round"])
        points = 0
        for n, h in enumerate(history, start=1):
            points += h["scored"]
            h.update(n=n, points=points)
        if history and not drop:
            history[-1]["chips"] = str(money.get(p.user_id, Decimal(0)))
        p.history, p.points = history, points
        MatchPlayer.objects.filter(pk=p.pk).update(history=history, points=points)
    played = len(players[0].history) if players else 0
    Match.objects.filter(pk=match.pk).update(rounds_played=played)
    match.rounds_played = played
    standings = _standings(match, players, money)
    # The settlement's or the void's transaction holds the table's locks: taken again, without a wait.
    held = lock_table(match.table_id)
    stream.table_event(held, events.MatchRound(match=match.pk, rounds_played=played,
                       rounds=match.rounds_total, standings=standings), round_id=rnd.pk)
    with_chips = sum(1 for p in players if money.get(p.user_id, Decimal(0)) > 0)
    early = match.scoring == Match.Scoring.CHIPS and with_chips <= 1
    if played >= match.rounds_total or early:
        _finish(held, match, standings, early=early and played < match.rounds_total)


def _score(match: Match, p: MatchPlayer, money: dict) -> Decimal:
    return money.get(p.user_id, Decimal(0)) if match.scoring == Match.Scoring.CHIPS else Decimal(p.points)


def _standings(match: Match, players: list[MatchPlayer], money: dict) -> list[dict]:
    """The players best first, each with their rank (players level share a rank: 1, 1, 3)."""
    rows = [{"player": p.user.username, "chips": str(money.get(p.user_id, Decimal(0))), "points": p.points,
             "score": str(_score(match, p, money))} for p in players]
    rows.sort(key=lambda r: (-Decimal(r["score"]), r["player"]))
    rank, previous = 0, None
    for i, row in enumerate(rows, start=1):
        if Decimal(row["score"]) != previous:
            rank, previous = i, Decimal(row["score"])
        row["rank"] = rank
    return rows


def match_standings(match: Match) -> list[dict]:
    """The match's standings now (what `match.round` sends after each counted round)."""
    players = list(MatchPlayer.objects.filter(match=match).select_related("user"))
    return _standings(match, players, balances(match))


def _finish(held: Held, match: Match, standings: list[dict], *, early: bool) -> None:
    scores = [Decimal(r["score"]) for r in standings]
    top = max(scores) if scores else Decimal(0)
    winners = [r["player"] for r in standings if Decimal(r["score"]) == top]
    draw = len(standings) > 1 and len(winners) == len(standings)
    result = {"ranking": standings, "winners": [] if draw else winners, "shared": len(winners) > 1 and not draw,
              "draw": draw, "early": early}
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished_at=timezone.now(), result=result)
    table_update(table_id=match.table_id, changes={"virtual_dealer": False}, actor=None, source=changes.MATCH)
    stream.table_event(held, events.MatchFinished(match=match.pk, **result))
