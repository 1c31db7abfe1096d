import { test } from "node:test";
import assert from "node:assert/strict";
import {
  addBet, applyEvent, applyPersonal, applySnapshot, balanceAt, catchUp, newState, openBets, phaseOf, stakes,
} from "../../static/js/pages/play/state.js";
import { chipKey, chipValues } from "../../static/js/pages/play/betting.js";
import { spotName, spoken, correctionLine, multipliersLine } from "../../static/js/pages/play/words.js";

const TABLE = { id: 8, chip_unit: "1.00", min_bet: "10.00", max_bet: "500.00", betting_seconds: 15 };
const SPOTS = [{ spot: "andar", pays: "0.9:1" }, { spot: "bahar", pays: "1:1" }, { spot: "count_6_10", pays: "3.5:1" }];

function opened(S, now = 0) {
  applySnapshot(S, { seq: 1, table: TABLE, round: null, history: [] }, now);
  applyEvent(S, { type: "round.opened", seq: 2, round: 7, at: "2026-12-01T10:00:00Z", closes_at: "2026-12-01T10:00:15Z",
    joker: "KS", first_side: "andar", betting_seconds: 15, spots: SPOTS }, now);
}

test("a round opens with the server's spots and a countdown on the page's clock", () => {
  const S = newState();
  opened(S, 1000);
  assert.equal(phaseOf(S, 1000), "betting");
  assert.equal(phaseOf(S, 16001), "closing");
  assert.deepEqual(S.round.spots, SPOTS);
});

test("cards, the result and the winning spots are the server's, as sent", () => {
  const S = newState();
  opened(S);
  const said = applyEvent(S, { type: "card.dealt", seq: 3, round: 7, position: 1, side: "andar", card: "AC", next_side: "bahar" }, 0).say;
  assert.equal(spoken(said), "Card 1: Ace of clubs to Andar.");
  assert.equal(S.round.next_side, "bahar");
  applyEvent(S, { type: "card.dealt", seq: 4, round: 7, position: 2, side: "bahar", card: "KD", next_side: null }, 0);
  assert.equal(S.round.next_side, null); // no alternation worked out here
  applyEvent(S, { type: "round.finished", seq: 5, round: 7, winner: "bahar", cards_dealt: 2, match: "KD", winning_spots: ["bahar", "count_1_5"] }, 0);
  assert.deepEqual(S.round.winning_spots, ["bahar", "count_1_5"]);
  assert.deepEqual(S.history[0], { id: 7, winner: "bahar", cards_dealt: 2, joker: "KS" });
});

test("a bet counts once, whichever report comes first, and bet.settled carries staked, returned and net", () => {
  const S = newState();
  opened(S);
  assert.equal(addBet(S, { id: 1, round: 7, spot: "andar", amount: "50.00", balance: "950.00" }), true);
  applyPersonal(S, { type: "bet.placed", round: 7, bet: 1, spot: "andar", amount: "50.00", balance: "940.00" }); // older news
  assert.equal(S.balance, "950.00");
  assert.deepEqual(stakes(S), { andar: 5000n });
  applyPersonal(S, { type: "bet.settled", round: 7, bets: [{ bet: 1, spot: "andar", amount: "50.00", status: "won", payout: "95.00" }],
    payout: "95.00", balance: "1045.00", staked: "50.00", returned: "95.00", net: "45.00" });
  assert.deepEqual(S.result, { round: 7, staked: "50.00", returned: "95.00", net: "45.00" });
  assert.equal(openBets(S).length, 0);
});

test("a correction is kept as a notice and asks for the snapshot", () => {
  const S = newState();
  opened(S);
  const out = applyEvent(S, { type: "round.corrected", seq: 3, round: 7, cards: [{ position: 1, side: "andar", card: "9S" }],
    winner: null, action: "replace", position: 1, before: "QS", after: "9S" }, 0);
  assert.equal(out.snapshot, true);
  assert.deepEqual(S.round.cards, [{ position: 1, side: "andar", card: "9S" }]);
  assert.equal(correctionLine(S.notice), "Card 1 was corrected: Queen of spades is now 9 of spades.");
});

test("a void keeps its reason, from the event or from the snapshot", () => {
  const S = newState();
  opened(S);
  applyEvent(S, { type: "round.voided", seq: 3, round: 7, reason: "shoe fault", bets: 1, refunded: "50.00" }, 0);
  assert.deepEqual(S.notice, { kind: "voided", reason: "shoe fault" });
  const T = newState();
  applySnapshot(T, { seq: 3, table: TABLE, history: [], round: { id: 7, status: "voided", joker: "KS", cards: [], void_reason: "shoe fault" } }, 0);
  assert.equal(T.round.void_reason, "shoe fault");
});

test("catching up: the current round's figures, and a missed result of this table newer than the one shown", () => {
  const S = newState();
  applySnapshot(S, { seq: 9, table: TABLE, history: [], round: { id: 12, status: "betting", joker: "2C", cards: [], betting_left_ms: 5000 } }, 0);
  const rows = [
    { round: 13, table: 9, status: "settled", returned: "0.00", net: "-10.00", staked: "10.00" }, // another table
    { round: 11, table: 8, status: "settled", winner: "andar", staked: "50.00", returned: "95.00", net: "45.00" },
    { round: 10, table: 8, status: "settled", winner: "bahar", staked: "50.00", returned: "0.00", net: "-50.00" },
  ];
  assert.equal(catchUp(S, rows, 8, 11), null); // already shown
  assert.equal(catchUp(S, rows, 8, 10).round, 11);
  assert.equal(S.away.net, "45.00");
});

test("chips: the table's denominations between its limits; arrow keys wrap around the group", () => {
  assert.deepEqual(chipValues(TABLE), [1000n, 2500n, 5000n, 10000n, 25000n, 50000n]);
  assert.deepEqual(chipValues({ chip_unit: "0.50", min_bet: "2.50", max_bet: "20.00" }), [250n, 500n, 1000n]);
  assert.equal(chipKey("ArrowRight", 5, 6), 0);
  assert.equal(chipKey("ArrowLeft", 0, 6), 5);
  assert.equal(chipKey("Home", 3, 6), 0);
  assert.equal(chipKey("a", 3, 6), null);
});

test("spot names", () => {
  assert.equal(spotName("count_6_10"), "6–10 cards");
  assert.equal(spotName("first_three"), "First 3");
});

test("table.state: the table's state and the supervisor's reason replace the snapshot's", () => {
  const S = newState();
  applySnapshot(S, { table: { id: 3, state: "open", state_reason: "" }, round: null, history: [] }, 0);
  const out = applyEvent(S, { type: "table.state", seq: 5, table: 3, round: null, state: "maintenance", reason: "Shoe jammed" }, 0);
  assert.deepEqual([S.table.id, S.table.state, S.table.state_reason], [3, "maintenance", "Shoe jammed"]);
  assert.equal(out.snapshot, false);
  applyEvent(S, { type: "table.state", seq: 6, table: 3, round: null, state: "open", reason: "" }, 0);
  assert.deepEqual([S.table.state, S.table.state_reason], ["open", ""]);
});

test("the balance shown is the wallet in the table's currency, from GET /api/me/'s balances", () => {
  const me = { balance: "1000.00", currency: "CHIPS",
    balances: [{ currency: "CHIPS", balance: "1000.00" }, { currency: "INR", balance: "250.00" }] };
  assert.equal(balanceAt(me, { ...TABLE, currency: "INR" }), "250.00");
  assert.equal(balanceAt(me, { ...TABLE, currency: "CHIPS" }), "1000.00");
  assert.equal(balanceAt(me, { ...TABLE, currency: "EUR" }), "0.00"); // no wallet there yet
  assert.equal(balanceAt(me, null), "1000.00"); // before the snapshot
});

test("random multipliers: shown as drawn from betting.closed or the snapshot, said, and gone when the next round opens", () => {
  const S = newState();
  opened(S);
  assert.equal(S.round.multipliers, null);
  const drawn = [{ spot: "count_6_10", multiplier: 7 }, { spot: "andar", multiplier: 2 }];
  const out = applyEvent(S, { type: "betting.closed", seq: 3, round: 7, closed_at: "2026-12-01T10:00:15Z", reason: "timer",
    multipliers: drawn, multipliers_seed: "ab".repeat(32) }, 0);
  assert.deepEqual(S.round.multipliers, drawn);
  assert.equal(spoken(out.say), "No more bets. Multipliers this round: 6–10 cards ×7, Andar ×2.");
  applyPersonal(S, { type: "bet.settled", round: 7, staked: "10.00", returned: "255.00", net: "245.00", balance: "1245.00",
    bets: [{ bet: 1, spot: "count_6_10", amount: "10.00", status: "won", payout: "255.00", multiplier: 7 }] });
  assert.equal(S.bets[0].multiplier, 7);
  applyEvent(S, { type: "round.opened", seq: 4, round: 8, at: "2026-12-01T10:01:00Z", closes_at: "2026-12-01T10:01:15Z",
    joker: "2C", first_side: "bahar", betting_seconds: 15, spots: SPOTS }, 0);
  assert.equal(S.round.multipliers, null);
  // A table without multipliers: betting.closed says only that betting closed.
  assert.equal(spoken(applyEvent(S, { type: "betting.closed", seq: 5, round: 8, closed_at: "x", reason: "timer", multipliers: null }, 0).say), "No more bets.");
  applySnapshot(S, { seq: 9, table: TABLE, history: [], round: { id: 9, status: "dealing", joker: "QH", first_side: "andar", cards: [],
    multipliers_commit: "cd".repeat(32), multipliers: [{ spot: "bahar", multiplier: 5 }], multipliers_seed: "ef".repeat(32) } }, 0);
  assert.deepEqual(S.round.multipliers, [{ spot: "bahar", multiplier: 5 }]);
  assert.equal(multipliersLine([]), "");
});

test("the round's crowd is the server's, for this round only, and gone when the next opens", () => {
  const S = newState();
  opened(S);
  applyPersonal(S, { type: "round.crowd", table: 8, round: 6, players: 9, andar_share: "50.0", bahar_share: "50.0" }); // an older round's
  assert.equal(S.crowd ?? null, null);
  applyPersonal(S, { type: "round.crowd", table: 8, round: 7, players: 12, andar_share: "62.5", bahar_share: "37.5" });
  assert.deepEqual(S.crowd, { players: 12, andar: "62.5", bahar: "37.5" });
  applyEvent(S, { type: "round.opened", seq: 3, round: 8, at: "2026-12-01T10:01:00Z", closes_at: "2026-12-01T10:01:15Z",
    joker: "QH", first_side: "andar", betting_seconds: 15, spots: SPOTS }, 0);
  assert.equal(S.crowd, null);
});

test("Repeat has something to place only after a round of this table with a bet standing", () => {
  const S = newState();
  opened(S);
  catchUp(S, [{ round: 5, table: 3, returned: "0.00", bets: [{ status: "lost" }] }], 8, null); // another table's
  assert.equal(S.repeatable, false);
  catchUp(S, [{ round: 6, table: 8, returned: "0.00", bets: [{ status: "cancelled" }] }], 8, null); // taken back: nothing
  assert.equal(S.repeatable, false);
  catchUp(S, [{ round: 6, table: 8, returned: "95.00", bets: [{ status: "won" }] }], 8, null);
  assert.equal(S.repeatable, true);
  const fresh = newState();
  opened(fresh);
  applyPersonal(fresh, { type: "bet.settled", round: 7, bets: [], staked: "10.00", returned: "0.00", net: "-10.00", balance: "990.00" });
  assert.equal(fresh.repeatable, true); // the next round may repeat this one
});
