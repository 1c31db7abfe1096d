import { test } from "node:test";
import assert from "node:assert/strict";
import { route } from "../../static/js/pages/console/keys.js";
import {
  cardCount, emptyEnterHint, lostScan, opensRound, phase, prompt, rulesLine, scanDone, shiftClock, shortCard, stage,
} from "../../static/js/pages/console/view.js";

const box = { tagName: "INPUT", type: "text", id: "entry-input" };
const select = { tagName: "SELECT" };
const button = { tagName: "BUTTON" };
const body = { tagName: "BODY" };

test("a character typed on a list, a button or the page goes into the scan box", () => {
  for (const target of [select, button, body, { tagName: "A" }, { tagName: "INPUT", type: "checkbox" }]) {
    assert.equal(route({ key: "K", target }, box), "type", target.tagName);
    assert.equal(route({ key: "7", target, shiftKey: true }, box), "type");
  }
});

test("keys that act on a control keep their meaning there", () => {
  for (const key of ["ArrowDown", "ArrowUp", "Tab", " ", "Escape", "Home"]) assert.equal(route({ key, target: select }, box), "keep", key);
  assert.equal(route({ key: "Enter", target: button }, box), "keep");
  assert.equal(route({ key: "Enter", target: select }, box), "keep");
  assert.equal(route({ key: "k", target: select, altKey: true }, box), "keep");
  assert.equal(route({ key: "r", target: body, ctrlKey: true }, box), "keep");  // the browser's own shortcuts
});

test("in the scan box or another text field a key is left alone", () => {
  assert.equal(route({ key: "K", target: box }, box), "keep");
  assert.equal(route({ key: "Enter", target: box }, box), "keep");
  assert.equal(route({ key: "K", target: { tagName: "TEXTAREA" } }, box), "keep");
  assert.equal(route({ key: "K", target: { tagName: "DIV", isContentEditable: true } }, box), "keep");
});

test("Enter on the page itself submits the box; Ctrl+Enter anywhere is the deliberate action", () => {
  assert.equal(route({ key: "Enter", target: body }, box), "submit");
  for (const target of [box, select, button, body]) {
    assert.equal(route({ key: "Enter", ctrlKey: true, target }, box), "primary");
    assert.equal(route({ key: "Enter", metaKey: true, target }, box), "primary");
  }
});

const round = (over = {}) => ({
  id: 7, status: "dealing", joker: "KS", next_side: "bahar", cards_dealt: 3, winner: null, totals: null,
  cards: [{ side: "andar", card: "7H", position: 1 }, { side: "bahar", card: "2C", position: 2 }, { side: "andar", card: "10D", position: 3 }],
  settings: { mode: "classic", commission: "0.90", first_card: "andar", betting_seconds: 20, currency: "CHIPS", min_bet: "10.00", max_bet: "500.00" },
  ...over,
});

test("the phase comes from the server's round, the countdown only tells betting from time up", () => {
  const base = { tableId: "1", loading: false, awaitingJoker: false, bettingLeftMs: 0 };
  assert.equal(phase({ ...base, tableId: null }), "no-table");
  assert.equal(phase({ ...base, loading: true, round: round() }), "loading");
  assert.equal(phase({ ...base, round: null }), "joker");
  assert.equal(phase({ ...base, round: round({ status: "finished" }), awaitingJoker: true }), "joker");
  assert.equal(phase({ ...base, round: round({ status: "betting" }), bettingLeftMs: 900 }), "betting");
  assert.equal(phase({ ...base, round: round({ status: "betting" }) }), "time-up");
  for (const s of ["dealing", "paused", "voided"]) assert.equal(phase({ ...base, round: round({ status: s }) }), s);
  assert.equal(phase({ ...base, round: round({ status: "settled" }) }), "over");
});

test("the words the dealer reads", () => {
  assert.equal(shortCard("10D"), "10♦");
  assert.equal(cardCount(1), "1 card");
  assert.equal(cardCount(2), "2 cards");
  assert.equal(cardCount(0), "0 cards");
  assert.equal(rulesLine(round()), "Classic · first side pays 0.9:1 · first card Andar · betting 20 s · CHIPS 10–500");
  assert.equal(rulesLine(null, "15"), "Betting 15 s");
  assert.deepEqual(prompt("dealing", round()), ["Scan card 4 → Bahar", "next card, e.g. 7H"]);
  assert.match(emptyEnterHint("betting", round()), /does not close betting/);
  assert.equal(emptyEnterHint("over", round()), "Scan the next joker: it opens the next round.");
  assert.equal(lostScan("KS"), "Not dealt: there is no table to deal at. KS went nowhere.");
});

test("the stage says the server's result and escapes what it puts in HTML", () => {
  const dealing = stage("dealing", round());
  assert.equal(String(dealing.main), '<span class="arrow bahar" aria-hidden="true">▼</span>Next: <span class="bahar">Bahar</span>');
  assert.equal(dealing.sub, "Card 4 · a K ends the round");
  const over = stage("over", round({ status: "settled", winner: "andar", cards_dealt: 3, totals: { bets: 1, staked: "25.00", paid: "47.50" } }));
  assert.equal(String(over.main), '<span class="andar">Andar</span> wins');
  assert.equal(over.sub, "on card 3: 10♦ matches the joker K♠");
  assert.equal(over.totals, "Settled: 1 bet, staked 25, paid 47.50");
  assert.equal(stage("over", round({ status: "finished", winner: "bahar", totals: { bets: 2, staked: "5", paid: "0" } })).totals, "Settled: 2 bets, staked 5, paid 0");
  assert.equal(String(stage("joker", null, round({ status: "settled", winner: "<b>" })).sub), "Last round 7: <b> won on card 3.");
  assert.equal(String(stage("over", round({ status: "settled", winner: "<i>" })).main), '<span class="&lt;i&gt;">&lt;i&gt;</span> wins');
});

test("a scan opens a round whenever the table has no open round, and the log says what the server did", () => {
  assert.deepEqual(["joker", "over", "voided", "betting", "time-up", "dealing", "paused"].map(opensRound),
    [true, true, true, false, false, false, false]);
  assert.equal(scanDone({ opened: { id: 12, joker: "KS" } }), "Joker K♠: round 12 open");
  assert.equal(scanDone({ dealt: { position: 3, card: "10D", side: "andar", match: false } }), "Card 3: 10♦ to Andar.");
  assert.equal(scanDone({ dealt: { position: 5, card: "KD", side: "bahar", match: true } }), "Card 5: K♦ to Bahar · match!");
  assert.deepEqual(prompt("over", round()), ["Round over · scan the next joker", "joker, e.g. KS"]);
});

test("the shift's clock against the table's shift length", () => {
  assert.equal(shiftClock(0, 30), "0:00 of 30:00");
  assert.equal(shiftClock(724.6, 30), "12:04 of 30:00");
  assert.equal(shiftClock(3725, 60), "1:02:05 of 1:00:00");
});
