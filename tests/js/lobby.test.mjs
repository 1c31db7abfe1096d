import { test } from "node:test";
import assert from "node:assert/strict";
import { applyLobby, applyLobbyEvent, newLobby, phaseOf, ROAD } from "../../static/js/pages/lobby/state.js";
import { limitsLine, multiplierBadge, phaseLine, playersLine, roadHTML, sideBetNames } from "../../static/js/pages/lobby/words.js";

const AT = "2026-12-01T10:00:00Z";
const row = (over = {}) => ({
  id: 3, name: "Lotus", state: "open", state_reason: "", driver: "person", currency: "CHIPS", min_bet: "10.00", max_bet: "500.00",
  mode: "classic", side_bets: ["card_count", "first_three"], multipliers: null, private: false, round: null, players: 0, road: [], ...over,
});
const ev = (change, over = {}) => ({
  type: "lobby.table", table: 3, round: 7, change, at: AT, closes_at: null, betting_seconds: null, status: null, winner: null,
  cards_dealt: null, state: null, reason: null, ...over,
});

test("the lobby's rows are the server's, and a betting round counts down from its betting_left_ms on the page's clock", () => {
  const L = applyLobby(newLobby(), [row({ round: { id: 6, status: "betting", closes_at: AT, betting_left_ms: 9500, winner: null, cards_dealt: 0 }, players: 2 })], 1000);
  assert.deepEqual(phaseOf(L.rows[0], 1000), { phase: "betting", left: 10, closed: null });
  assert.deepEqual(phaseOf(L.rows[0], 10_000), { phase: "betting", left: 1, closed: null });
  assert.equal(phaseOf(L.rows[0], 10_501).phase, "closing"); // the server has not said so yet: no more bets, still not dealing
  assert.equal(L.rows[0].players, 2);
});

test("a round opens, betting closes, the round finishes: the road grows once, the players are read again", () => {
  const L = applyLobby(newLobby(), [row({ road: [{ winner: "bahar", cards_dealt: 4 }], players: 5,
    round: { id: 6, status: "settled", closes_at: AT, betting_left_ms: 0, winner: "bahar", cards_dealt: 4 } })], 0);
  let out = applyLobbyEvent(L, ev("round.opened", { closes_at: "2026-12-01T10:00:15Z", betting_seconds: 15 }), 100);
  assert.equal(out.row.id, 3);
  assert.deepEqual(phaseOf(L.rows[0], 100), { phase: "betting", left: 15, closed: null });
  assert.equal(L.rows[0].players, 0);
  out = applyLobbyEvent(L, ev("betting.closed"), 2000);
  assert.equal(out.refresh, true);
  assert.equal(phaseOf(L.rows[0], 2000).phase, "dealing");
  applyLobbyEvent(L, ev("round.finished", { winner: "andar", cards_dealt: 7 }), 3000);
  assert.deepEqual(phaseOf(L.rows[0], 3000), { phase: "result", winner: "andar", cards: 7, closed: null });
  out = applyLobbyEvent(L, ev("round.settled", { winner: "andar" }), 3100);
  applyLobbyEvent(L, ev("round.finished", { winner: "andar", cards_dealt: 7 }), 3200); // told twice: counted once
  assert.equal(out.refresh, false);
  assert.deepEqual(L.rows[0].road, [{ winner: "bahar", cards_dealt: 4 }, { winner: "andar", cards_dealt: 7 }]);
});

test("the road keeps the last results only", () => {
  const road = Array.from({ length: ROAD }, (_, i) => ({ winner: "bahar", cards_dealt: i + 1 }));
  const L = applyLobby(newLobby(), [row({ road })], 0);
  applyLobbyEvent(L, ev("round.finished", { winner: "andar", cards_dealt: 30 }), 0);
  assert.equal(L.rows[0].road.length, ROAD);
  assert.deepEqual(L.rows[0].road.at(-1), { winner: "andar", cards_dealt: 30 });
  assert.equal(L.rows[0].road[0].cards_dealt, 2);
});

test("a pause keeps what was left, a resume counts again from the server's closes_at, a void and a table state show", () => {
  const L = applyLobby(newLobby(), [row()], 0);
  applyLobbyEvent(L, ev("round.opened", { closes_at: "2026-12-01T10:00:15Z", betting_seconds: 15 }), 0);
  applyLobbyEvent(L, ev("round.paused", { betting_left_ms: 9600 }), 5000);
  assert.deepEqual(phaseOf(L.rows[0], 5000), { phase: "paused", left: 10, closed: null }); // the server's time left
  assert.deepEqual(phaseOf(L.rows[0], 50_000), { phase: "paused", left: 10, closed: null }); // a pause does not count down
  assert.equal(phaseLine(phaseOf(L.rows[0], 5000), "en"), "Round paused: 10 s of betting left");
  applyLobbyEvent(L, ev("round.resumed", { status: "betting", at: "2026-12-01T10:01:00Z", closes_at: "2026-12-01T10:01:08Z" }), 60_000);
  assert.deepEqual(phaseOf(L.rows[0], 60_000), { phase: "betting", left: 8, closed: null });
  applyLobbyEvent(L, ev("round.voided"), 61_000);
  assert.equal(phaseOf(L.rows[0], 61_000).phase, "voided");
  applyLobbyEvent(L, ev("table.state", { round: null, state: "maintenance", reason: "camera fault" }), 62_000);
  assert.equal(phaseOf(L.rows[0], 62_000).closed, "maintenance");
  assert.equal(L.rows[0].state_reason, "camera fault");
});

test("a pause without the server's time left keeps the page's own, and one in dealing has none", () => {
  const L = applyLobby(newLobby(), [row()], 0);
  applyLobbyEvent(L, ev("round.opened", { closes_at: "2026-12-01T10:00:15Z", betting_seconds: 15 }), 0);
  applyLobbyEvent(L, ev("round.paused"), 5000);
  assert.equal(phaseOf(L.rows[0], 5000).left, 10);
  applyLobbyEvent(L, ev("round.resumed", { status: "dealing" }), 6000);
  applyLobbyEvent(L, ev("round.paused", { betting_left_ms: null }), 7000);
  assert.deepEqual(phaseOf(L.rows[0], 7000), { phase: "paused", closed: null });
  assert.equal(phaseLine(phaseOf(L.rows[0], 7000), "en"), "Round paused");
});

test("the seat count of the betting round follows lobby.players; another round's is not this one's", () => {
  const L = applyLobby(newLobby(), [row()], 0);
  applyLobbyEvent(L, ev("round.opened", { closes_at: "2026-12-01T10:00:15Z", betting_seconds: 15 }), 0);
  let out = applyLobbyEvent(L, { type: "lobby.players", table: 3, round: 7, players: 4, at: AT }, 100);
  assert.equal(out.row.id, 3);
  assert.equal(L.rows[0].players, 4);
  out = applyLobbyEvent(L, { type: "lobby.players", table: 3, round: 6, players: 9, at: AT }, 200);
  assert.deepEqual(out, { row: null, refresh: false });
  assert.equal(L.rows[0].players, 4);
  assert.equal(applyLobbyEvent(L, { type: "lobby.players", table: 99, round: 1, players: 1, at: AT }, 0).refresh, true);
});

test("an event of a table the page does not list, or a result it never saw, asks for the lobby again", () => {
  const L = applyLobby(newLobby(), [row()], 0);
  assert.deepEqual(applyLobbyEvent(L, ev("round.opened", { table: 99 }), 0), { row: null, refresh: true });
  assert.equal(applyLobbyEvent(L, ev("round.settled", { winner: "andar" }), 0).refresh, true);
  applyLobbyEvent(L, ev("round.finished", { round: 8, winner: "bahar", cards_dealt: 2 }), 0);
  assert.equal(applyLobbyEvent(L, ev("round.voided", { round: 8 }), 0).refresh, true); // a finished round voided leaves the road
  assert.deepEqual(applyLobbyEvent(L, { type: "pong", seq: 3 }, 0), { row: null, refresh: false });
});

test("the words: limits in the page's number format, side bets, the multiplier badge, players, the road", () => {
  assert.equal(limitsLine(row({ max_bet: "250000.00" }), "hi"), "10–2,50,000 chips");
  assert.equal(limitsLine(row({ currency: "INR", min_bet: "12.50" }), "vi"), "12,50–500 INR");
  assert.deepEqual(sideBetNames(["card_count", "first_andar", "first_three"]), ["1st Andar", "First 3", "Card count"]);
  assert.equal(multiplierBadge({ draws: 1, spots: 9, highest: 10 }, "en"), "Multipliers up to ×10");
  assert.equal(multiplierBadge(null, "en"), "");
  assert.equal(playersLine(1, "en"), "1 player");
  assert.equal(playersLine(1200, "hi"), "1,200 players");
  assert.equal(phaseLine({ phase: "result", winner: "bahar", cards: 12 }, "en"), "Bahar wins on card 12");
  const road = roadHTML([{ winner: "andar", cards_dealt: 7 }, { winner: "bahar", cards_dealt: 2 }], "en");
  assert.match(road, /class="bead andar"[^>]*>.*Andar wins on card 7.*A<sub>7<\/sub>/);
  assert.match(road, /class="bead bahar".*B<sub>2<\/sub>/);
  assert.match(roadHTML([], "en"), /No results yet/);
});
