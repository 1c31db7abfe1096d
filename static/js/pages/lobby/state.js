// The lobby's state: every table the visitor may see, as the server says it (the stream's "lobby"
// message or GET /api/lobby/), then each "lobby.table" event applied to its row. Pure functions, no
// game rule: the phase, the winner, the cards dealt, the road and the players are the server's; the
// countdown runs on the page's clock from the server's betting_left_ms (the lobby) or closes_at
// minus at (an event), as the player page's does. Tested under node --test (tests/js/lobby.test.mjs).

import { LOBBY_PLAYERS, LOBBY_TABLE } from "../../../events.js";

export const ROAD = 12; // results a row shows (tables/lobby.py's ROAD)
const FINAL = new Set(["finished", "settled"]);

export function newLobby() {
  return { rows: [], byId: new Map() };
}

/** The lobby as the server sent it (rows in its order): every row replaced. `now` is the page's clock (ms). */
export function applyLobby(L, tables, now) {
  L.rows = (tables || []).map((t) => {
    const round = t.round ? { ...t.round } : null;
    return {
      ...t, round, road: (t.road || []).slice(-ROAD),
      deadline: round && round.status === "betting" ? now + Math.max(0, Number(round.betting_left_ms) || 0) : null,
    };
  });
  L.byId = new Map(L.rows.map((row) => [row.id, row]));
  return L;
}

function msLeft(e) {
  const ms = Date.parse(e.closes_at) - Date.parse(e.at);
  if (Number.isFinite(ms)) return Math.max(0, ms);
  return Number.isFinite(e.betting_seconds) ? e.betting_seconds * 1000 : 0;
}

/**
 * A `lobby.table` event applied to its row. Returns {row, refresh}: the row it changed (null: none),
 * and `refresh` when the page should read the lobby again (a table it does not list, a result it
 * could not follow, the players of a round whose betting closed: what an event does not carry).
 */
export function applyLobbyEvent(L, e, now) {
  const out = { row: null, refresh: false };
  if (!e || (e.type !== LOBBY_TABLE && e.type !== LOBBY_PLAYERS)) return out;
  const row = L.byId.get(e.table);
  if (!row) { out.refresh = true; return out; }
  out.row = row;
  const same = row.round && row.round.id === e.round;
  if (e.type === LOBBY_PLAYERS) { // the seats of the betting round, as the server counts them
    if (same) row.players = e.players;
    else out.row = null;
    return out;
  }
  const round = () => {
    if (!same) {
      row.round = { id: e.round, status: null, closes_at: null, betting_left_ms: 0, winner: null, cards_dealt: 0 };
      row.players = 0;
    }
    return row.round;
  };
  switch (e.change) {
    case "round.opened": {
      const r = round();
      Object.assign(r, { status: "betting", closes_at: e.closes_at, winner: null, cards_dealt: 0 });
      row.deadline = now + msLeft(e);
      break;
    }
    case "betting.closed": {
      const r = round();
      if (!FINAL.has(r.status) && r.status !== "voided") r.status = "dealing";
      row.deadline = null;
      out.refresh = true; // the players of the round are known now; the event does not carry them
      break;
    }
    case "round.paused": {
      const r = round();
      if (Number.isFinite(e.betting_left_ms)) r.betting_left_ms = e.betting_left_ms; // the server's, kept for the resume
      else if (r.status === "betting" && row.deadline !== null) r.betting_left_ms = Math.max(0, row.deadline - now);
      else r.betting_left_ms = 0;
      r.status = "paused";
      row.deadline = null;
      break;
    }
    case "round.resumed": {
      const r = round();
      r.status = e.status || "dealing";
      r.closes_at = e.closes_at || r.closes_at;
      row.deadline = r.status === "betting" ? now + msLeft(e) : null;
      break;
    }
    case "round.finished": {
      const wasFinal = same && FINAL.has(row.round.status);
      const r = round();
      Object.assign(r, { status: "finished", winner: e.winner, cards_dealt: e.cards_dealt });
      row.deadline = null;
      if (!wasFinal) row.road = [...row.road, { winner: e.winner, cards_dealt: e.cards_dealt }].slice(-ROAD);
      break;
    }
    case "round.settled": {
      const known = same && FINAL.has(row.round.status);
      const r = round();
      r.status = "settled";
      if (e.winner) r.winner = e.winner;
      row.deadline = null;
      if (!known) out.refresh = true; // its result never reached this page: the road is the server's to say
      break;
    }
    case "round.voided": {
      const wasFinal = same && FINAL.has(row.round.status);
      const r = round();
      r.status = "voided";
      row.deadline = null;
      if (wasFinal) out.refresh = true; // a settled round voided leaves the road: the server's road says how
      break;
    }
    case "table.state":
      row.state = e.state || row.state;
      row.state_reason = e.reason || "";
      break;
    default:
      out.row = null;
      break;
  }
  return out;
}

/**
 * What a row shows now: "betting" (with `left`, whole seconds, never below 0), "closing" (the
 * countdown ran out, the server has not said betting closed yet), "dealing", "paused" (with `left`
 * when it was paused in betting: the seconds it will have on resuming), "result"
 * (the latest round's winner and cards), "voided", "waiting" (no round yet); and `closed`: the
 * table's state when it is not open.
 */
export function phaseOf(row, now) {
  const r = row.round;
  const closed = row.state && row.state !== "open" ? row.state : null;
  if (!r || !r.status) return { phase: "waiting", closed };
  if (r.status === "betting") {
    const ms = row.deadline === null ? 0 : row.deadline - now;
    return ms > 0 ? { phase: "betting", left: Math.ceil(ms / 1000), closed } : { phase: "closing", left: 0, closed };
  }
  if (FINAL.has(r.status)) return { phase: "result", winner: r.winner, cards: r.cards_dealt, closed };
  if (r.status === "paused") {
    const ms = Number(r.betting_left_ms) || 0;
    return ms > 0 ? { phase: "paused", left: Math.ceil(ms / 1000), closed } : { phase: "paused", closed };
  }
  if (r.status === "dealing" || r.status === "voided") return { phase: r.status, closed };
  return { phase: "waiting", closed };
}
