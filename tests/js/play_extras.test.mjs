import { test } from "node:test";
import assert from "node:assert/strict";
import { beadColumns, chartBars, chartSVG, statsHTML } from "../../static/js/pages/play/stats.js";
import { nextPath, roundHTML, spotLabel } from "../../static/js/pages/play/history.js";
import { proofOf, proofReport } from "../../static/js/pages/play/fairness.js";
import { refresher } from "../../static/js/pages/play/refresh.js";

const results = (winners) => winners.map((w, i) => ({ round: i + 1, winner: w, cards_dealt: 3 }));

test("the bead plate pours results column by column, six to a column, newest last", () => {
  const cols = beadColumns(results(["andar", "bahar", "andar", "andar", "bahar", "bahar", "andar", "bahar"]));
  assert.equal(cols.length, 2);
  assert.deepEqual(cols[0].map((r) => r.round), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(cols[1].map((r) => r && r.round), [7, 8, null, null, null, null]);
  assert.deepEqual(beadColumns([]), []);
  const wide = beadColumns(results(["andar"]), 6, 3);
  assert.equal(wide.length, 3);
  assert.deepEqual(wide[2], [null, null, null, null, null, null]);
});

test("the card-count chart is drawn at the width it is shown: a row per box, the longest bar and its count inside", () => {
  const boxes = [{ box: "1-5", observed: 1234, expected: "20.00" }, { box: "46-49", observed: 3, expected: "0.10" }];
  for (const width of [220, 380]) {
    const svg = String(chartSVG(boxes, width));
    assert.match(svg, new RegExp(`viewBox="0 0 ${width} 42" width="${width}" height="42"`)); // one unit a pixel
    const rects = [...svg.matchAll(/<rect class="obs" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]) + Number(m[2]));
    const counts = [...svg.matchAll(/<text class="n" x="([\d.]+)"/g)].map((m) => Number(m[1]));
    assert.equal(Math.max(...rects), width - 34); // the longest bar leaves the count its room
    assert.ok(counts.every((x) => x + 4 * 8 <= width + 2), counts); // four digits of 12 px text fit
  }
  assert.match(String(chartSVG(boxes, 50)), /width="200"/); // never narrower than its labels need
});

test("chart bars scale observed and expected counts by the larger of both", () => {
  const bars = chartBars([{ box: "1-5", observed: 4, expected: "2.71" }, { box: "6-10", observed: 1, expected: "8.00" }],
    { width: 200, height: 100 });
  assert.equal(bars[0].x, 0);
  assert.equal(bars[1].x, 100);
  assert.equal(bars[1].expectedHeight, 100);
  assert.equal(bars[0].observedHeight, 50);
  assert.deepEqual(chartBars([{ box: "1-5", observed: 0, expected: "0.00" }])[0].observedHeight, 0);
});

const STATS = {
  table: 1, rounds: 2, wins: { andar: 1, bahar: 1 }, expected_wins: { andar: "1.03", bahar: "0.97" },
  first_side_wins: 1, expected_first_side_wins: "1.03",
  card_count: [{ box: "1-5", observed: 1, expected: "0.54" }, { box: "6-10", observed: 1, expected: "0.43" }],
  joker_ranks: [], joker_colours: { red: 1, black: 1 }, longest_streaks: { andar: 1, bahar: 1 },
  results: [{ round: 7, winner: "andar", cards_dealt: 7 }, { round: 9, winner: "bahar", cards_dealt: 2 }],
};

test("the statistics show the server's counts, a bead per round and the counts as a table", () => {
  const out = String(statsHTML(STATS, 100));
  assert.match(out, /2 rounds counted/);
  assert.equal((out.match(/class="bead (andar|bahar)"/g) || []).length, 2);
  assert.match(out, /data-round="9"/);
  assert.match(out, /1 win \(expected 1\.03\)/);
  assert.match(out, /<th scope="row">6-10<\/th><td>1<\/td><td>0\.43<\/td>/);
  assert.match(out, /<option value="100" selected>/);
  assert.match(out, /the latest: Bahar/);
  const vi = String(statsHTML(STATS, 100, "vi"));  // the expected counts as the server writes them in Vietnamese
  assert.match(vi, /1 win \(expected 1,03\)/);
  assert.match(vi, /<td>0,43<\/td>/);
});

test("spot names and the next page's path", () => {
  assert.equal(spotLabel("andar"), "Andar");
  assert.equal(spotLabel("first_three"), "First 3");
  assert.equal(spotLabel("count_16_20"), "16–20 cards");  // as the table names it
  assert.equal(spotLabel("first_andar"), "1st Andar");
  assert.equal(nextPath("http://127.0.0.1:8000/api/me/rounds/?page=3"), "me/rounds/?page=3");
  assert.equal(nextPath(null), null);
});

const ROUND = {
  round: 12, table: 2, status: "settled", opened_at: "2026-12-01T10:00:00Z", joker: "KS", first_side: "andar", winner: "andar",
  cards: [{ position: 1, side: "andar", card: "AC" }, { position: 2, side: "bahar", card: "QS" }, { position: 3, side: "andar", card: "KD" }],
  bets: [{ bet: 1, spot: "andar", amount: "50.00", status: "won", payout: "95.00" }, { bet: 2, spot: "count_1_5", amount: "10.00", status: "cancelled", payout: "0.00" }],
  staked: "50.00", returned: "95.00", net: "45.00", void_reason: null,
};

test("a round of my history: link, cards in order, bets, net", () => {
  const out = String(roundHTML(ROUND, { tables: { 2: "Studio <table>" }, lang: "en" }));
  assert.match(out, /href="\/rounds\/12\/"/);
  assert.match(out, /Studio &lt;table&gt;/);
  assert.ok(out.indexOf('data-card="KS"') > 0 && out.indexOf('data-card="KS"') < out.indexOf('data-card="AC"'));
  assert.ok(out.indexOf('data-card="AC"') < out.indexOf('data-card="QS"') && out.indexOf('data-card="QS"') < out.indexOf('data-card="KD"'));
  assert.match(out, /Andar wins on card 3/);
  assert.match(out, /net \+45/);
  assert.match(out, /taken back/);
});

test("a voided round says why", () => {
  const out = String(roundHTML({ ...ROUND, status: "voided", winner: null, returned: "50.00", net: "0.00", void_reason: "Shoe <jam>" }, { lang: "en" }));
  assert.match(out, /Voided: your stakes were refunded\./);
  assert.match(out, /Reason: Shoe &lt;jam&gt;/);
  assert.match(out, /Table 2/);
});

test("a proof from the round detail, and what a failed check says", () => {
  const round = { joker: "KS", fairness: { commitment: "ab", salt: "s", pack: "p" }, cards: [{ position: 2, card: "QS" }, { position: 1, card: "AC" }] };
  assert.deepEqual(proofOf(round), { commitment: "ab", salt: "s", pack: "p", joker: "KS", cards: ["AC", "QS"] });
  const bad = proofReport({ ok: false, checks: { commitment: false, pack: true, joker: true, cards: false } }, proofOf(round));
  assert.equal(bad.title, "Does not match");
  assert.equal(bad.reasons.length, 2);
  assert.equal(proofReport({ ok: true, checks: {} }, proofOf(round)).title, "Verified");
});

test("refresher runs one load at a time and one more for calls made meanwhile", async () => {
  let calls = 0;
  let release;
  const refresh = refresher(() => { calls += 1; return new Promise((r) => { release = r; }); });
  const first = refresh();
  refresh();
  refresh();
  assert.equal(calls, 1);
  release();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(calls, 2);
  release();
  await first;
  assert.equal(calls, 2);
});
