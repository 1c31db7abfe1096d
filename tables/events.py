"""Every event of the live stream, declared once: its name and its payload.

A table event goes to everyone watching the table, numbered by the table's `seq`; a personal event
goes to the watchers connected as one player. The sender (tables/stream.py) takes these payloads
only; a lobby event goes to every lobby page (tables/lobby_consumer.py); the pages import the names from
`static/events.js` and docs/STREAM.md lists the events, both
generated from these declarations (`python scripts/stream_events.py --write`; a test checks both).

Besides its payload's fields, a table event carries `type`, `seq`, `table`, `round` and `at`; a
personal event `type` and `at`. Amounts are decimal strings; times are ISO 8601 strings.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict


class Spot(TypedDict):
    spot: str
    pays: str


class PlacedCard(TypedDict):
    position: int
    side: str
    card: str


class Totals(TypedDict):
    bets: int
    staked: str
    paid: str
    house_result: str


class Standing(TypedDict, total=False):
    player: str
    chips: str
    points: int
    score: str
    rank: int  # in match.finished's ranking


class BetResult(TypedDict, total=False):
    bet: int
    spot: str
    amount: str
    status: str
    payout: str  # bet.settled only
    multiplier: int  # bet.settled only, on a won bet whose spot the round's multipliers drew: its winnings' multiplier


@dataclass(frozen=True)
class Event:
    name: ClassVar[str]

    def fields(self) -> dict[str, Any]:
        return dict(vars(self))


class TableEvent(Event):
    """An event of a table, to every watcher of it."""


class UserEvent(Event):
    """A personal event, to the watchers connected as its player."""


class CrowdEvent(Event):
    """A live figure of a table, to every watcher of it, unnumbered (each says the newest)."""


class LobbyEvent(Event):
    """An event of the lobby's one stream (ws/lobby/, tables/lobby_consumer.py), unnumbered."""


@dataclass(frozen=True)
class RoundOpened(TableEvent):
    """A round opened for bets: its joker, the side the first card goes to, when betting closes,
    the spots offered and what they pay (`commitment`: the virtual dealer's shuffle commitment)."""
    name = "round.opened"
    joker: str
    first_side: str
    closes_at: str
    betting_seconds: int
    spots: list[Spot]
    commitment: str | None
    multipliers_commit: str | None = None  # a multiplier table's: SHA-256 of the seed the draw comes from


@dataclass(frozen=True)
class BettingClosed(TableEvent):
    """Betting closed (`reason`: `dealer`, `timer`, `sweep` or `first card`); at a table with
    multipliers, the round's drawn `multipliers` ([{"spot", "multiplier"}]) and the seed they were
    drawn from (hex), whose SHA-256 is the round's `multipliers_commit`."""
    name = "betting.closed"
    closed_at: str
    reason: str
    multipliers: list[dict] | None = None
    multipliers_seed: str | None = None


@dataclass(frozen=True)
class CardDealt(TableEvent):
    """A card was dealt: its position (1, 2, ...), its side and its canonical code (`10H`, `KS`);
    `next_side`: where the next card goes (null once this card matched the joker); `dealt_at`: when
    it was recorded, UTC to the millisecond (`2026-12-01T18:43:44.123Z`)."""
    name = "card.dealt"
    position: int
    side: str
    card: str
    next_side: str | None = None
    dealt_at: str | None = None


@dataclass(frozen=True)
class RoundFinished(TableEvent):
    """The card that matched the joker was dealt: the winning side, and every spot this deal pays."""
    name = "round.finished"
    winner: str
    cards_dealt: int
    match: str
    winning_spots: list[str]


@dataclass(frozen=True)
class RoundSettled(TableEvent):
    """Every bet of the round was settled (`version` counts settlements after corrections)."""
    name = "round.settled"
    winner: str
    totals: Totals
    version: int


@dataclass(frozen=True)
class RoundPaused(TableEvent):
    """An incident paused the round (`betting_left_ms`: what was left of the countdown, or null)."""
    name = "round.paused"
    kind: str
    betting_left_ms: int | None


@dataclass(frozen=True)
class RoundResumed(TableEvent):
    """The incident was resolved: the round is back in `status`."""
    name = "round.resumed"
    status: str
    closes_at: str


@dataclass(frozen=True)
class RoundCorrected(TableEvent):
    """A supervisor replaced or removed a dealt card: the corrected cards and winner (null while dealing)."""
    name = "round.corrected"
    cards: list[PlacedCard]
    winner: str | None
    action: str
    position: int
    before: str
    after: str | None


@dataclass(frozen=True)
class RoundVoided(TableEvent):
    """The round was voided: every bet in it refunded."""
    name = "round.voided"
    reason: str
    bets: int
    refunded: str


@dataclass(frozen=True)
class MatchStarted(TableEvent):
    """A match of several rounds started on its private table."""
    name = "match.started"
    match: int
    scoring: str
    rounds: int
    players: list[str]
    chips: str


@dataclass(frozen=True)
class MatchRound(TableEvent):
    """A round of the match counted: the standings after it."""
    name = "match.round"
    match: int
    rounds_played: int
    rounds: int
    standings: list[Standing]


@dataclass(frozen=True)
class MatchFinished(TableEvent):
    """The match ended (`early`: before its last round, one player left with chips)."""
    name = "match.finished"
    match: int
    ranking: list[Standing]
    winners: list[str]
    shared: bool
    draw: bool
    early: bool


@dataclass(frozen=True)
class TableState(TableEvent):
    """A supervisor opened, closed or put the table under maintenance (`reason`: why, for the
    players; empty when open). A closed or maintenance table opens no new round; a running one finishes."""
    name = "table.state"
    state: str
    reason: str


@dataclass(frozen=True)
class BetPlaced(UserEvent):
    """The player's bet was accepted (`balance`: the wallet after it)."""
    name = "bet.placed"
    round: int
    bet: int
    spot: str
    amount: str
    balance: str


@dataclass(frozen=True)
class BetCancelled(UserEvent):
    """The player took a bet back while betting was open; its stake returned (`balance`: null for a
    seamless operator's player, whose stake goes back to the operator)."""
    name = "bet.cancelled"
    round: int
    bet: int
    spot: str
    amount: str
    balance: str | None


@dataclass(frozen=True)
class BetSettled(UserEvent):
    """The player's result of a round: one message listing all their bets (`payout` and `returned`:
    stakes and winnings that came back; `net`: returned - staked; `balance`: null for a seamless
    operator's player, whose balance is the operator's)."""
    name = "bet.settled"
    round: int
    bets: list[BetResult]
    payout: str
    balance: str | None
    staked: str
    returned: str
    net: str


@dataclass(frozen=True)
class BetRefunded(UserEvent):
    """The round was voided: the player's refunded bets (`balance`: null for a seamless operator's player)."""
    name = "bet.refunded"
    round: int
    bets: list[BetResult]
    refunded: str
    balance: str | None


@dataclass(frozen=True)
class RoundCrowd(CrowdEvent):
    """The crowd of a round while betting is open, every second its bets change (bets.crowd): how
    many players have a bet standing, and the share of the main bets' stakes on each side, percent
    with one decimal ("" before any main bet). Never who bet what."""
    name = "round.crowd"
    table: int
    round: int
    players: int
    andar_share: str
    bahar_share: str


@dataclass(frozen=True)
class LobbyTable(LobbyEvent):
    """A public table's round or state changed (`change`: the table event that changed it:
    round.opened, betting.closed, round.paused, round.resumed, round.finished, round.settled,
    round.voided or table.state), with the fields of that event a lobby row shows; null for the rest
    (`betting_left_ms`: a paused round's betting time left, as round.paused says it)."""
    name = "lobby.table"
    table: int
    round: int | None
    change: str
    at: str
    closes_at: str | None = None
    betting_seconds: int | None = None
    betting_left_ms: int | None = None
    status: str | None = None
    winner: str | None = None
    cards_dealt: int | None = None
    state: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class LobbyPlayers(LobbyEvent):
    """How many players have a bet standing in a public table's betting round, each time it changes
    (bets.crowd, at most once a second a table): the lobby row's seat count while betting is open."""
    name = "lobby.players"
    table: int
    round: int
    players: int


TABLE_EVENTS: tuple[type[TableEvent], ...] = (
    RoundOpened, BettingClosed, CardDealt, RoundFinished, RoundSettled, RoundPaused, RoundResumed,
    RoundCorrected, RoundVoided, MatchStarted, MatchRound, MatchFinished, TableState,
)
USER_EVENTS: tuple[type[UserEvent], ...] = (BetPlaced, BetCancelled, BetSettled, BetRefunded)
LOBBY_EVENTS: tuple[type[LobbyEvent], ...] = (LobbyTable, LobbyPlayers)
CROWD_EVENTS: tuple[type[CrowdEvent], ...] = (RoundCrowd,)
TABLE_FIELDS = ("type", "seq", "table", "round", "at")
USER_FIELDS = ("type", "at")


def _js_name(event: type[Event]) -> str:
    return "".join(c if c.isalnum() else "_" for c in event.name).upper()


def events_js() -> str:
    """static/events.js: the event names for the pages, as an ES module."""
    lines = ["// Generated from tables/events.py by scripts/stream_events.py: do not edit.", ""]
    for title, declared in (("table", TABLE_EVENTS), ("personal", USER_EVENTS), ("lobby", LOBBY_EVENTS), ("crowd", CROWD_EVENTS)):
        lines.append(f"// {title} events")
        lines += [f'export const {_js_name(e)} = {json.dumps(e.name)};' for e in declared]
        lines.append("")
    lines.append("export const TABLE_EVENTS = Object.freeze([" + ", ".join(_js_name(e) for e in TABLE_EVENTS) + "]);")
    lines.append("export const USER_EVENTS = Object.freeze([" + ", ".join(_js_name(e) for e in USER_EVENTS) + "]);")
    return "\n".join(lines) + "\n"


def events_markdown() -> str:
    """The events table of docs/STREAM.md."""
    rows = ["| event | to | fields | meaning |", "|---|---|---|---|"]
    for declared, to in ((TABLE_EVENTS, "the table"), (USER_EVENTS, "its player"), (LOBBY_EVENTS, "the lobby"),
                         (CROWD_EVENTS, "the table, unnumbered")):
        for e in declared:
            fields = ", ".join(f"`{f.name}` ({f.type})" for f in dataclasses.fields(e))
            doc = " ".join((e.__doc__ or "").split())
            rows.append(f"| `{e.name}` | {to} | {fields.replace('|', 'or')} | {doc} |")
    return "\n".join(rows) + "\n"
