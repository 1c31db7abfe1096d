// The supervisor console's pure helpers (static/js/pages/supervisor/words.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { auditPairs, clock, kindName, openIncidents, spotName, statusName } from "../../static/js/pages/supervisor/words.js";

test("the audit leaves out empty keys, nested ones too", () => {
  const data = { joker: "KS", after: null, note: "", list: [], settings: { mode: "classic", match: null, private: false, side_bets: ["card_count"] } };
  assert.deepEqual(auditPairs(data), [
    ["joker", "KS"],
    ["settings", [["mode", "classic"], ["private", false], ["side_bets", ["card_count"]]]],
  ]);
  assert.deepEqual(auditPairs({ settings: { match: null } }), []);
  assert.deepEqual(auditPairs(null), []);
  assert.deepEqual(auditPairs({ cards_dealt: 0 }), [["cards_dealt", 0]]);  // zero is a value
});

test("open incidents of every table, oldest first, with their table", () => {
  const tables = [
    { id: 2, name: "Salon 2", incidents: [{ id: 9, kind: "stream" }] },
    { id: 1, name: "Salon 1", incidents: [{ id: 4, kind: "misread" }, { id: 12, kind: "other" }] },
    { id: 3, name: "Salon 3", incidents: [] },
  ];
  assert.deepEqual(openIncidents(tables).map((i) => [i.id, i.table, i.tableName]), [[4, 1, "Salon 1"], [9, 2, "Salon 2"], [12, 1, "Salon 1"]]);
  assert.deepEqual(openIncidents(undefined), []);
});

test("names for people", () => {
  assert.equal(spotName("count_6_10"), "Card count 6–10");
  assert.equal(spotName("first_three"), "First 3");
  assert.equal(spotName("andar"), "Andar");
  assert.equal(kindName("equipment"), "Equipment");
  assert.equal(kindName("new_kind"), "new_kind");
  assert.equal(statusName("idle"), "no round");
  assert.equal(statusName("paused"), "paused");
});

test("clocks round up to the second", () => {
  assert.equal(clock(65000), "1:05");
  assert.equal(clock(400), "0:01");
  assert.equal(clock(-5), "0:00");
});
