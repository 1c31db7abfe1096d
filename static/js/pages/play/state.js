// The player page's state, and how the server's messages change it: the snapshot, the table's
// events (in seq order, from stream.js's Sequencer) and the player's own messages. Pure functions
// on a plain object, tested under node --test (tests/js/play_state.test.mjs). No game rule: what
// a spot pays, which spots won, the player's staked, returned and net are the server's figures,
// kept as it sent them.

import { cents } from "../../money.js";

/** A fresh page state. `now` is a millisecond clock (performance.now in the page). */
export function newState() {
  return {
    table: null, round: null, history: [], idleSpots: null,
    bets: [], known: new Set(), balance: null,
    result: null,        // {round, staked, returned, net} or {round, voided: true, refunded}: the server's
    away: null,          // a result of an earlier round the player missed while disconnected
    notice: null,        // {kind: "corrected"|"voided"|..., ...}: a message on the felt
    deadline: null,      // betting closes at this value of the page's clock
  };
}

/** The player's balance at this table: from GET /api/me/'s `balances`, the wallet in the table's
 *  currency ("0.00" before the player has one); `balance` while the table is not known yet. */
export function balanceAt(me, table) {
  const currency = table && table.currency;
  if (!currency || !Array.isArray(me.balances)) return me.balance;
  const wallet = me.balances.find((w) => w.currency === currency);
  return wallet ? wallet.balance : "0.00";
}

function roundFromDetail(detail) {
  if (!detail) return null;
  return {
    id: detail.id, status: detail.status, joker: detail.joker, first_side: detail.first_side,
    cards: (detail.cards || []).map((c) => ({ position: c.position, side: c.side, card: c.card })),
    winner: detail.winner || null, winning_spots: detail.winning_spots || [], cards_dealt: detail.cards_dealt || 0,
    next_side: detail.next_side || null, spots: detail.spots || [], betting_seconds: detail.settings && detail.settings.betting_seconds,
    betting_left_ms: detail.betting_left_ms || 0, dealer: detail.dealer || null, void_reason: detail.void_reason || null,
    match: null, totals: detail.totals || null, multipliers: multipliersOf(detail.multipliers),
  };
}

/** A round's drawn multipliers as the server sent them ([{spot, multiplier}]), or null: none drawn
 *  yet, or a table without multipliers. */
export function multipliersOf(list) {
  return Array.isArray(list) && list.length ? list.map((m) => ({ spot: m.spot, multiplier: m.multiplier })) : null;
}

/** The snapshot replaces the table, the round and the history. Returns true when it shows another
 *  round than the state had (the player's bets of the old one are forgotten). */
export function applySnapshot(S, snap, now) {
  const before = S.round ? S.round.id : null;
  S.table = snap.table;
  S.history = snap.history || [];
  S.round = roundFromDetail(snap.round);
  S.deadline = S.round && S.round.status === "betting" ? now + (S.round.betting_left_ms || 0) : null;
  const other = (S.round ? S.round.id : null) !== before;
  if (other) { S.bets = []; S.result = null; S.notice = null; }
  if (S.round && S.round.status === "voided" && S.round.void_reason) S.notice = { kind: "voided", reason: S.round.void_reason };
  return other;
}

/** Betting is open now (the round says so and the countdown has time left). */
export function bettingOpen(S, now) {
  return !!(S.round && S.round.status === "betting" && S.deadline !== null && S.deadline > now);
}

/** What the page is showing: idle, betting, closing (the countdown ran out, the server has not
 *  closed yet), dealing, paused, finished, settled, voided. */
export function phaseOf(S, now) {
  const r = S.round;
  if (!r) return "idle";
  if (r.status === "betting") return bettingOpen(S, now) ? "betting" : "closing";
  return r.status;
}

/**
 * A table event, applied once and in order. Returns {snapshot, say}: `snapshot` when the page
 * should read the snapshot again (what changed is more than the event says), `say` what a screen
 * reader should hear (null: nothing).
 */
export function applyEvent(S, e, now) {
  const r = S.round && S.round.id === e.round ? S.round : null;
  const out = { snapshot: false, say: null };
  switch (e.type) {
    case "round.opened": {
      const ms = Date.parse(e.closes_at) - Date.parse(e.at);
      S.round = {
        id: e.round, status: "betting", joker: e.joker, first_side: e.first_side, cards: [], winner: null,
        winning_spots: [], cards_dealt: 0, next_side: e.first_side, spots: e.spots || [], betting_seconds: e.betting_seconds,
        betting_left_ms: 0, dealer: null, void_reason: null, match: null, totals: null, multipliers: null,
      };
      S.deadline = now + (Number.isFinite(ms) ? Math.max(0, ms) : e.betting_seconds * 1000);
      S.bets = []; S.result = null; S.notice = null; S.away = null; S.crowd = null;
      out.say = { key: "opened", joker: e.joker };
      break;
    }
    case "betting.closed":
      if (r) {
        r.status = "dealing"; S.deadline = null;
        r.multipliers = multipliersOf(e.multipliers); // drawn as betting closed (a table with multipliers)
        out.say = { key: "closed", multipliers: r.multipliers };
      }
      break;
    case "card.dealt":
      if (r && !r.cards.some((c) => c.position === e.position)) {
        r.cards.push({ position: e.position, side: e.side, card: e.card });
        r.cards.sort((a, b) => a.position - b.position);
        r.cards_dealt = Math.max(r.cards_dealt, e.position);
        r.next_side = e.next_side || null; // the server's
        if (r.status === "betting") { r.status = "dealing"; S.deadline = null; }
        out.say = { key: "card", card: e.card, side: e.side, position: e.position };
      }
      break;
    case "round.finished":
      if (r) {
        Object.assign(r, { status: "finished", winner: e.winner, winning_spots: e.winning_spots || [], cards_dealt: e.cards_dealt, match: e.match, next_side: null });
        if (!S.history.some((h) => h.id === r.id)) S.history.unshift({ id: r.id, winner: e.winner, cards_dealt: e.cards_dealt, joker: r.joker });
        S.history = S.history.slice(0, 50);
        out.say = { key: "finished", winner: e.winner, cards: e.cards_dealt };
      }
      break;
    case "round.settled":
      if (r) { r.status = "settled"; r.totals = e.totals; }
      break;
    case "round.paused":
      if (r) { r.status = "paused"; r.betting_left_ms = e.betting_left_ms || 0; S.deadline = null; out.say = { key: "paused" }; }
      break;
    case "round.resumed":
      if (r) { r.status = e.status; out.say = { key: "resumed" }; }
      out.snapshot = true; // the countdown's time left, the next side: the snapshot's
      break;
    case "round.corrected":
      if (r) {
        r.cards = (e.cards || []).map((c) => ({ position: c.position, side: c.side, card: c.card }));
        r.cards_dealt = r.cards.length;
        r.winner = e.winner || null;
        S.notice = { kind: "corrected", action: e.action, position: e.position, before: e.before, after: e.after || null };
        out.say = { key: "corrected", ...S.notice };
      }
      out.snapshot = true; // the winning spots and the history may have changed
      break;
    case "round.voided":
      if (r) {
        r.status = "voided"; r.void_reason = e.reason; S.deadline = null;
        S.notice = { kind: "voided", reason: e.reason };
        out.say = { key: "voided", reason: e.reason };
      }
      out.snapshot = true; // the history leaves the round out
      break;
    case "table.state": // a supervisor opened, closed or put the table under maintenance
      S.table = { ...(S.table || {}), state: e.state, state_reason: e.reason || "" };
      break;
    default: // match events and anything newer: nothing on this page
      break;
  }
  return out;
}

/** A bet the page learnt of (its HTTP answer or its bet.placed message, whichever came first):
 *  counted once, and only the first report moves the balance. */
export function addBet(S, { id, round, spot, amount, status = "open", balance }) {
  if (S.known.has(id)) return false;
  S.known.add(id);
  if (balance != null) S.balance = balance;
  if (S.round && S.round.id === round) S.bets.push({ id, spot, amount, status, payout: null });
  return true;
}

export function dropBet(S, id, balance) {
  if (!S.bets.some((b) => b.id === id)) return false;
  S.bets = S.bets.filter((b) => b.id !== id);
  if (balance != null) S.balance = balance;
  return true;
}

/** A personal message (no seq: only ever the player's own). */
export function applyPersonal(S, m) {
  if (m.type === "bet.placed") {
    addBet(S, { id: m.bet, round: m.round, spot: m.spot, amount: m.amount, balance: m.balance });
  } else if (m.type === "bet.cancelled") {
    dropBet(S, m.bet, m.balance);
  } else if (m.type === "bet.settled") {
    if (m.balance != null) S.balance = m.balance; // null: an operator's player, whose balance is the operator's (GET me/)
    if (S.round && m.round === S.round.id) {
      S.bets = m.bets.map((b) => ({ id: b.bet, spot: b.spot, amount: b.amount, status: b.status, payout: b.payout, multiplier: b.multiplier || null }));
      S.result = { round: m.round, staked: m.staked, returned: m.returned, net: m.net };
      S.repeatable = true; // the next round can repeat this one's bets
    }
  } else if (m.type === "bet.refunded") {
    if (m.balance != null) S.balance = m.balance;
    if (S.round && m.round === S.round.id) {
      const refunded = new Set(m.bets.map((b) => b.bet));
      S.bets.forEach((b) => { if (refunded.has(b.id)) b.status = "refunded"; });
      S.result = { round: m.round, voided: true, refunded: m.refunded };
      S.repeatable = true;
    }
  } else if (m.type === "round.crowd") {
    // the round's crowd, the server's figures (bets/crowd.py): players, and the main stakes' shares
    if (S.round && m.round === S.round.id) S.crowd = { players: m.players, andar: m.andar_share, bahar: m.bahar_share };
  } else if (m.balance != null) {
    S.balance = m.balance;
  }
}

/**
 * The player's rounds (GET /api/me/rounds/, newest first), read after a snapshot: the current
 * round's figures, and the latest finished round of this table before it that the page never
 * showed (`shown`: the newest round whose result the page has shown). Returns that missed row, or null.
 */
export function catchUp(S, rows, tableId, shown) {
  const done = (row) => row.table === tableId && row.returned !== null && row.returned !== undefined;
  const current = S.round && rows.find((row) => row.round === S.round.id);
  if (current && done(current)) {
    S.result = current.status === "voided"
      ? { round: current.round, voided: true, refunded: current.returned }
      : { round: current.round, staked: current.staked, returned: current.returned, net: current.net };
  }
  // Repeat has something to place again: a round of this table before the current one with a bet
  // that was not taken back (what the server repeats)
  S.repeatable = rows.some((row) => row.table === tableId && (!S.round || row.round < S.round.id)
    && (row.bets || []).some((b) => b.status !== "cancelled"));
  const missed = rows.find((row) => done(row) && (!S.round || row.round < S.round.id));
  if (missed && shown !== null && missed.round > shown) {
    S.away = missed;
    return missed;
  }
  return null;
}

/** The stake on each spot this round, as BigInt hundredths (bets refunded or cancelled left out). */
export function stakes(S) {
  const out = {};
  for (const b of S.bets) if (b.status !== "refunded" && b.status !== "cancelled") out[b.spot] = (out[b.spot] || 0n) + (cents(b.amount) || 0n);
  return out;
}

/** The player's open bets this round, oldest first (what Undo, Clear and Double act on). */
export function openBets(S) {
  return S.bets.filter((b) => (b.status || "open") === "open");
}
