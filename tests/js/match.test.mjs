import { test } from "node:test";
import assert from "node:assert/strict";
import { countRange, listing, names, place, sideName, spotName } from "../../static/js/pages/match/words.js";
import { addChip, limits, sameBets, stakes, total } from "../../static/js/pages/match/slip.js";
import { chartSVG } from "../../static/js/pages/match/chart.js";

test("spots are named as the felt names them", () => {
  assert.equal(spotName("andar"), "Andar");
  assert.equal(spotName("first_three"), "First 3");
  assert.equal(spotName("count_6_10"), "6–10 cards");
  assert.equal(countRange("count_41_49"), "41–49");
  assert.equal(countRange("andar"), null);
  assert.equal(sideName("bahar"), "Bahar");
});

test("a slip reads as the player built it, money in the page's language", () => {
  assert.equal(listing([{ spot: "bahar", amount: 5000n }, { spot: "count_6_10", amount: 1000n }], "en"), "50 on Bahar + 10 on 6–10 cards");
  assert.equal(listing([{ spot: "andar", amount: 125050n }], "en"), "1,250.50 on Andar");
  assert.equal(names(["alice", "bob"]), "alice and bob");
  assert.equal(names(["alice", "bob", "carol"]), "alice, bob and carol");
  assert.equal(names(["alice"]), "alice");
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 22, 111].map((n) => place(n)),
    ["1st place", "2nd place", "3rd place", "4th place", "11th place", "12th place", "13th place", "22nd place", "111th place"]);
});

const table = limits({ min_bet: "10", max_bet: "500", allow_both_sides: false });

test("the table's limits come from its settings, in hundredths", () => {
  assert.deepEqual(table, { min: 1000n, max: 50000n, both: false });
  assert.equal(limits({ allow_both_sides: true }).both, true);
});

test("chips add up on a spot, capped at the table's maximum and at the player's chips", () => {
  let { slip } = addChip([], "andar", 10000n, table, 100000n);
  ({ slip } = addChip(slip, "andar", 10000n, table, 100000n));
  assert.deepEqual(slip, [{ spot: "andar", amount: 20000n }]);
  const capped = addChip([{ spot: "andar", amount: 45000n }], "count_1_5", 10000n, table, 100000n);
  assert.deepEqual([capped.added, capped.cap, total(capped.slip)], [5000n, 50000n, 50000n]);
  const poor = addChip([], "bahar", 10000n, table, 3000n);
  assert.deepEqual([poor.added, poor.cap], [3000n, 3000n]);
  const full = addChip([{ spot: "bahar", amount: 3000n }], "bahar", 1000n, table, 3000n);
  assert.equal(full.added, 0n);
  assert.deepEqual(full.slip, [{ spot: "bahar", amount: 3000n }]);
});

test("a table with one main side a round takes the other side's stake off; one that allows both keeps it", () => {
  const slip = [{ spot: "andar", amount: 5000n }, { spot: "first_three", amount: 1000n }];
  const one = addChip(slip, "bahar", 1000n, table, 100000n);
  assert.equal(one.removed, "andar");
  assert.deepEqual(one.slip, [{ spot: "first_three", amount: 1000n }, { spot: "bahar", amount: 1000n }]);
  assert.deepEqual(slip[0], { spot: "andar", amount: 5000n }, "the old slip is left as it was");
  const both = addChip(slip, "bahar", 1000n, { ...table, both: true }, 100000n);
  assert.equal(both.removed, null);
  assert.equal(both.slip.length, 3);
});

test("slips compare spot by spot, and stakes sum by spot", () => {
  assert.ok(sameBets([{ spot: "andar", amount: 1n }], [{ spot: "andar", amount: 1n }]));
  assert.ok(!sameBets([{ spot: "andar", amount: 1n }], [{ spot: "andar", amount: 2n }]));
  assert.deepEqual(stakes([{ spot: "andar", amount: 1n }, { spot: "andar", amount: 2n }]), { andar: 3n });
});

test("the chart draws one line per player, higher for more chips, with its points labelled", () => {
  const svg = chartSVG({
    width: 600, chips: true, start: 1000, fmt: (v) => v.toLocaleString("en"),
    series: [
      { name: "alice", color: "#e6b94a", points: [[0, 1000], [1, 1090], [2, 1040]] },
      { name: "bob <b>", color: "#4fa3ff", points: [[0, 1000], [1, 900], [2, 1125]] },
    ],
  });
  assert.match(svg, /^<svg [^>]*role="img" aria-label="Chips of each player after each round"/);
  const lines = [...svg.matchAll(/<polyline [^>]*data-player="([^"]+)" data-points="(\d+)"[^>]*points="([^"]+)"/g)];
  assert.deepEqual(lines.map((m) => [m[1], m[2]]), [["alice", "3"], ["bob &lt;b&gt;", "3"]]);
  const ys = lines.map((m) => m[3].split(" ").map((p) => Number(p.split(",")[1])));
  assert.ok(ys[0][1] < ys[1][1], "after round 1 alice (1,090) is drawn above bob (900)");
  assert.ok(ys[0][2] > ys[1][2], "after round 2 bob (1,125) is drawn above alice (1,040)");
  assert.match(svg, /alice · round 1: 1,090 chips/);
  assert.match(svg, /The 1,000 chips everyone started with/);
  assert.ok(!svg.includes("<b>"), "names are escaped");
});
