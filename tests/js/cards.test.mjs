import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCard, cardName, cardHTML } from "../../static/js/cards.js";

test("parseCard reads every card of a pack and nothing else", () => {
  assert.deepEqual(parseCard("10h"), { rank: "10", suit: "H", red: true, symbol: "♥" });
  assert.equal(parseCard("KS").red, false);
  for (const bad of ["1S", "11H", "KX", "", null, "K"]) assert.equal(parseCard(bad), null, String(bad));
  const ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  assert.equal(ranks.flatMap((r) => "SHDC".split("").map((s) => parseCard(r + s))).filter(Boolean).length, 52);
});

test("a card's name is what a screen reader should say", () => {
  assert.equal(cardName("KD"), "King of diamonds");
  assert.equal(cardName("10H"), "10 of hearts");
  assert.equal(cardName("AS"), "Ace of spades");
  assert.equal(cardName("??"), "no card");
});

test("the card's face is labelled once and its symbols are hidden", () => {
  const out = cardHTML("QC", { pos: 3 });
  assert.match(out, /role="img" aria-label="Queen of clubs, position 3"/);
  assert.equal((out.match(/aria-hidden="true"/g) || []).length, 3);
  assert.match(cardHTML("QH"), /class="card red /);
  assert.match(cardHTML("<x>"), /class="card none/);
});
