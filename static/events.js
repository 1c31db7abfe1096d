// Generated from tables/events.py by scripts/stream_events.py: do not edit.

// table events
export const ROUND_OPENED = "round.opened";
export const BETTING_CLOSED = "betting.closed";
export const CARD_DEALT = "card.dealt";
export const ROUND_FINISHED = "round.finished";
export const ROUND_SETTLED = "round.settled";
export const ROUND_PAUSED = "round.paused";
export const ROUND_RESUMED = "round.resumed";
export const ROUND_CORRECTED = "round.corrected";
export const ROUND_VOIDED = "round.voided";
export const MATCH_STARTED = "match.started";
export const MATCH_ROUND = "match.round";
export const MATCH_FINISHED = "match.finished";
export const TABLE_STATE = "table.state";

// personal events
export const BET_PLACED = "bet.placed";
export const BET_CANCELLED = "bet.cancelled";
export const BET_SETTLED = "bet.settled";
export const BET_REFUNDED = "bet.refunded";

// lobby events
export const LOBBY_TABLE = "lobby.table";
export const LOBBY_PLAYERS = "lobby.players";

// crowd events
export const ROUND_CROWD = "round.crowd";

export const TABLE_EVENTS = Object.freeze([ROUND_OPENED, BETTING_CLOSED, CARD_DEALT, ROUND_FINISHED, ROUND_SETTLED, ROUND_PAUSED, ROUND_RESUMED, ROUND_CORRECTED, ROUND_VOIDED, MATCH_STARTED, MATCH_ROUND, MATCH_FINISHED, TABLE_STATE]);
export const USER_EVENTS = Object.freeze([BET_PLACED, BET_CANCELLED, BET_SETTLED, BET_REFUNDED]);
