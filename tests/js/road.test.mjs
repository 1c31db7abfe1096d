import { test } from "node:test";
import assert from "node:assert/strict";
import { bigRoad, ROAD_ROWS, streaks } from "../../static/js/road.js";
import { roadHTML, streakText } from "../../static/js/pages/play/bigroad.js";

const results = (letters) => [...letters].map((l, i) => ({
  round: i + 1, winner: l === "A" ? "andar" : l === "B" ? "bahar" : null, cards_dealt: 3,
}));
const at = (road) => road.cells.map((c) => `${c.side[0]}${c.col}.${c.row}`);

test("streaks group the same winning side, oldest first, and leave out rounds without a winner", () => {
  const s = streaks(results("AAABAA-B"));
  assert.deepEqual(s.map((x) => [x.side, x.count]), [["andar", 3], ["bahar", 1], ["andar", 2], ["bahar", 1]]);
  assert.deepEqual(s[2].rounds.map((r) => r.round), [5, 6]);
  assert.deepEqual(streaks(results("-")), []);
  assert.deepEqual(streaks(undefined), []);
});

test("a column per streak, a new column when the side changes", () => {
  const road = bigRoad(results("AABBBA"));
  assert.deepEqual(at(road), ["a0.0", "a0.1", "b1.0", "b1.1", "b1.2", "a2.0"]);
  assert.equal(road.columns, 3);
  assert.equal(road.rows, ROAD_ROWS);
  assert.equal(bigRoad(results("AB"), { least: 12 }).columns, 12);
  assert.equal(bigRoad([]).columns, 0);
});

test("a voided round does not break a streak or take a place", () => {
  assert.deepEqual(at(bigRoad(results("AA-A"))), ["a0.0", "a0.1", "a0.2"]);
});

test("a streak longer than the road turns right along the bottom: the dragon tail", () => {
  const road = bigRoad(results("AAAAAAAAB"));
  assert.deepEqual(at(road), ["a0.0", "a0.1", "a0.2", "a0.3", "a0.4", "a0.5", "a1.5", "a2.5", "b1.0"]);
  assert.equal(road.columns, 3);
});

test("a streak that meets an earlier tail turns right above it", () => {
  // Andar 7 (tail to column 1, row 5), then Bahar 7 from column 1: down to row 4, then right.
  const road = bigRoad(results("AAAAAAABBBBBBB"));
  const bahar = road.cells.filter((c) => c.side === "bahar").map((c) => `${c.col}.${c.row}`);
  assert.deepEqual(bahar, ["1.0", "1.1", "1.2", "1.3", "1.4", "2.4", "3.4"]);
  const places = road.cells.map((c) => `${c.col}.${c.row}`);
  assert.equal(new Set(places).size, places.length, "no two results share a place");
});

test("a shallower road turns sooner", () => {
  assert.deepEqual(at(bigRoad(results("AAAA"), { rows: 3 })), ["a0.0", "a0.1", "a0.2", "a1.2"]);
});

test("the streaks are a list for screen readers, each in words, and the current one is said", () => {
  assert.equal(streakText({ side: "andar", count: 3 }), "Andar 3 in a row");
  assert.equal(streakText({ side: "bahar", count: 1 }), "Bahar 1");
  const out = String(roadHTML(results("AAABAA")));
  const items = [...out.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => m[1]);
  assert.deepEqual(items, ["Andar 3 in a row", "then Bahar 1", "then Andar 2 in a row"]);
  assert.match(out, /Current streak: Andar 2 in a row/);
  assert.equal((out.match(/class="ring (andar|bahar)/g) || []).length, 6);
  assert.match(out, /data-round="3" data-col="0" data-row="2"/);
  assert.match(out, /class="ring andar newest" data-round="6" data-col="2" data-row="1"/);
  const none = String(roadHTML([]));
  assert.match(none, /No finished round yet/);
  assert.doesNotMatch(none, /<ol/);
});
