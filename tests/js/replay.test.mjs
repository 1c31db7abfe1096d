import { test } from "node:test";
import assert from "node:assert/strict";
import { netLine, replaySteps, resultLine, stepSaid } from "../../static/js/pages/play/replay.js";
import { replayable, roundHTML } from "../../static/js/pages/play/history.js";

// A row of GET /api/me/rounds/ (worked example 2 of RULES.md): the sides are the server's.
const ROW = {
  round: 12, table: 3, status: "settled", opened_at: "2026-12-01T10:00:00Z", joker: "KS", first_side: "andar", winner: "andar",
  cards: [
    { position: 2, side: "bahar", card: "QS" }, { position: 1, side: "andar", card: "AC" }, { position: 3, side: "andar", card: "8D" },
    { position: 4, side: "bahar", card: "7C" }, { position: 5, side: "andar", card: "JH" }, { position: 6, side: "bahar", card: "2H" },
    { position: 7, side: "andar", card: "KD" },
  ],
  bets: [{ spot: "andar", amount: "50.00", status: "won", payout: "95.00" }], staked: "50.00", returned: "95.00", net: "45.00",
};

test("the replay deals the joker first, then each card in the order dealt, onto the side the server recorded", () => {
  const steps = replaySteps(ROW);
  assert.deepEqual(steps[0], { kind: "joker", card: "KS" });
  assert.deepEqual(steps.slice(1, -1).map((s) => `${s.position}${s.side[0]}:${s.card}`),
    ["1a:AC", "2b:QS", "3a:8D", "4b:7C", "5a:JH", "6b:2H", "7a:KD"]);
  assert.deepEqual(steps[steps.length - 1], { kind: "end" });
  assert.equal(ROW.cards[0].position, 2, "the row itself is left as it was");
});

test("each step is said, then the result and the player's figures", () => {
  const steps = replaySteps(ROW);
  assert.equal(stepSaid(steps[0], ROW), "Replay of round 12. Joker: King of spades.");
  assert.equal(stepSaid(steps[2], ROW), "Card 2: Queen of spades to Bahar.");
  assert.equal(resultLine(ROW), "Andar wins on card 7.");
  assert.equal(netLine(ROW, "en"), "Staked 50 · came back 95 · net +45");
  assert.equal(stepSaid(steps[steps.length - 1], ROW), "Andar wins on card 7. Staked 50 · came back 95 · net +45");
});

test("a voided round replays its cards and ends with the void and its reason", () => {
  const voided = { ...ROW, status: "voided", winner: null, cards: ROW.cards.slice(0, 2), void_reason: "Shoe jammed", returned: "50.00", net: "0.00" };
  assert.equal(resultLine(voided), "Voided: your stakes were refunded. Reason: Shoe jammed");
  assert.equal(replaySteps(voided).length, 4);
  assert.ok(replayable(voided));
});

test("a round in play, or one without a card, has no Replay button", () => {
  assert.ok(replayable(ROW));
  assert.match(String(roundHTML(ROW)), /data-replay="12"[^>]*aria-label="Replay round 12">Replay</);
  assert.equal(replayable({ ...ROW, status: "dealing", winner: null }), false);
  assert.equal(replayable({ ...ROW, status: "voided", winner: null, cards: [] }), false);
  assert.doesNotMatch(String(roundHTML({ ...ROW, status: "betting", winner: null, cards: [] })), /data-replay/);
});
